// The Threads and Waste views on s09 (MANIFEST.md: a HotSpot dump with stacks; 20,000 + 1
// interned "duplicate-string-value-ALPHA-0123456789", 5,000 "duplicate-BETA", …), checked
// against Eclipse MAT's own reports in ../shared/corpus/expected/s09_duplicate_strings_serial.json:
// `threads` (every thread, its frames as MAT prints them, each frame's locals) and
// `duplicate_strings` (each group's value, count and wasted bytes; the first member).
// Also: the state in the URL, the keyboard, the overview's wasted total, and no sideways
// page scroll at 800 px. The page analyzes in MAT's sizes here (`?sizes=mat`), as MAT's
// numbers are the reference. With WASTEVIEW_SHOTS=DIR, screenshots of both views at 1440 and
// 800 px are written there.
//
//   npm run build && node --test tests/e2e/wasteview.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { harness } from './helpers/harness.mjs';
import { openFile, showTab } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();
const SHOTS = process.env.WASTEVIEW_SHOTS || null;

function expected() {
  return JSON.parse(fs.readFileSync(h.corpusFile('expected/s09_duplicate_strings_serial.json'), 'utf8'));
}

/** The visible rows of the threads tree: kind, level, address, text of the first cell. */
async function treeRows(page) {
  return page.$$eval('#threads-tree tbody tr', (rows) =>
    rows.map((r) => ({ name: r.dataset.name ?? null, kind: r.dataset.kind, level: Number(r.getAttribute('aria-level')), address: r.dataset.address ?? null, text: r.cells[0].textContent.replace(/^[▸▾]/, ''), mat: r.querySelector('.frame')?.dataset.mat ?? null, locals: r.dataset.locals ?? null })),
  );
}

async function noSidewaysScroll(page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
}

async function shots(page, name) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [1440, 800]) {
    await page.setViewportSize({ width, height: 1000 });
    await page.locator(`#view-${name}`).scrollIntoViewIfNeeded();
    await page.evaluate((v) => document.getElementById(`tab-${v}`).scrollIntoView(), name);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('threads and waste views', { skip: CORPUS_MISSING }, () => {
  test('s09: every thread, its frames and locals as MAT lists them; URL state; keyboard', async () => {
    const exp = expected().threads.threads;
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile('dumps/s09_duplicate_strings_serial.hprof.gz')), 'done');
      await showTab(page, 'threads');
      const tops = await treeRows(page);
      assert.deepEqual(tops.map((r) => r.address), exp.map((t) => t.object), 'every thread, largest retained first (MAT\'s order)');
      assert.deepEqual(
        await page.$$eval('#threads-tree tr[data-kind="thread"]', (rows) => rows.map((r) => Number(r.dataset.retained))),
        exp.map((t) => t.retained),
      );
      assert.deepEqual(tops.map((r) => r.name), exp.map((t) => t.name));

      // A thread with a stack: its frames (MAT's text, kept beside the Java-style one shown),
      // each frame's locals (MAT's addresses).
      const main = exp.find((t) => t.frames.length > 0 && t.frames.some((f) => f.locals.length > 0));
      assert.ok(main, 'MAT lists a thread with frames holding locals');
      const row = page.locator(`#threads-tree tr[data-kind="thread"][data-address="${main.object}"]`);
      await row.locator('button.toggle').click();
      assert.equal(await row.getAttribute('aria-expanded'), 'true');
      assert.match(new URL(page.url()).hash, new RegExp(`threads=${main.object}`));
      let rows = await treeRows(page);
      const frames = rows.filter((r) => r.kind === 'frame');
      assert.equal(frames.length, main.frames.length, 'frames');
      assert.deepEqual(frames.map((f) => f.mat), main.frames.map((f) => f.text));
      assert.deepEqual(frames.map((f) => Number(f.locals)), main.frames.map((f) => f.locals.length), 'locals per frame');
      const k = main.frames.findIndex((f) => f.locals.length > 0);
      await page.locator(`#threads-tree tr[data-kind="frame"][data-frame="${k}"] button.toggle`).click();
      rows = await treeRows(page);
      assert.deepEqual(rows.filter((r) => r.kind === 'local').map((r) => r.address), main.frames[k].locals, `frame ${k}'s locals`);
      // The open frame is in the URL too (thread address / frame index).
      await page.waitForFunction((key) => decodeURIComponent(location.hash).includes(key), `${main.object}/${k}`);
      // A local is a link to the inspector.
      const local = page.locator('#threads-tree tr[data-kind="local"] a.obj').first();
      assert.equal(await local.getAttribute('href'), `#view=inspector&object=${main.frames[k].locals[0]}`);

      // A thread without a stack says so.
      const bare = exp.find((t) => !t.has_stack);
      if (bare) {
        await page.locator(`#threads-tree tr[data-kind="thread"][data-address="${bare.object}"] button.toggle`).click();
        const notes = await page.$$eval('#threads-tree tr[data-kind="note"]', (r) => r.map((x) => x.textContent));
        assert.ok(notes.some((t) => /no stack recorded/.test(t)), JSON.stringify(notes));
      }

      // The open threads come from the URL: exactly those named there.
      const last = exp[exp.length - 1].object;
      await page.evaluate((a) => {
        location.hash = `#view=threads&threads=${a}`;
      }, last);
      await page.waitForSelector(`#threads-tree tr[data-address="${last}"][aria-expanded="true"]`);
      await page.waitForSelector(`#threads-tree tr[data-address="${main.object}"][aria-expanded="false"]`);

      // A frame named in the URL opens with its thread (a shared link, a reload).
      await page.evaluate(([a, f]) => {
        location.hash = `#view=threads&threads=${a}/${f}`;
      }, [main.object, k]);
      await page.waitForSelector(`#threads-tree tr[data-address="${main.object}"][aria-expanded="true"]`);
      await page.waitForSelector(`#threads-tree tr[data-kind="frame"][data-frame="${k}"][aria-expanded="true"]`);
      assert.deepEqual((await treeRows(page)).filter((r) => r.kind === 'local').map((r) => r.address), main.frames[k].locals, 'the frame from the URL shows its locals');

      // Keyboard: the tree is one tab stop; Right opens, Down moves into the frames, Left goes back up.
      await page.evaluate(() => {
        location.hash = '#view=threads';
      });
      await page.waitForFunction(() => document.querySelectorAll('#threads-tree tr[data-kind="thread"][aria-expanded="true"]').length === 0);
      const first = page.locator(`#threads-tree tr[data-address="${main.object}"]`);
      await first.focus();
      await page.keyboard.press('ArrowRight');
      await page.waitForSelector(`#threads-tree tr[data-address="${main.object}"][aria-expanded="true"]`);
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => document.activeElement.dataset.kind), 'frame');
      await page.keyboard.press('ArrowLeft');
      assert.equal(await page.evaluate(() => document.activeElement.dataset.address), main.object, 'Left moves to the thread');
      await page.keyboard.press('ArrowLeft');
      await page.waitForSelector(`#threads-tree tr[data-address="${main.object}"][aria-expanded="false"]`);

      await page.locator(`#threads-tree tr[data-address="${main.object}"] button.toggle`).click();
      await page.setViewportSize({ width: 800, height: 900 });
      assert.ok(await noSidewaysScroll(page), 'no sideways page scroll at 800 px (threads)');
      await page.setViewportSize({ width: 1280, height: 900 });
      await shots(page, 'threads');
    }, { query: '?sizes=mat' });
  });

  test('s09: duplicate string groups as MAT groups them; a group opens into its strings and holders; sorting; overview total', async () => {
    const exp = expected().duplicate_strings;
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile('dumps/s09_duplicate_strings_serial.hprof.gz')), 'done');
      // The overview's wasted total links to the Waste view.
      const total = await page.locator('#overview-wasted').textContent();
      assert.ok(total.length > 0);
      await page.click('#overview-wasted');
      await page.waitForFunction(() => !document.getElementById('view-waste').hidden);
      const pageTotal = Number(await page.locator('#waste-total').getAttribute('data-value'));
      assert.equal(Number(await page.locator('#view-overview [data-fact="wasted"]').getAttribute('data-value')), pageTotal);
      assert.ok(pageTotal >= exp.total_wasted, 'the total counts the duplicate strings\' waste at least');
      assert.match(await page.locator('#waste-panel .waste-summary').textContent(), new RegExp(`wasting ${exp.total_wasted.toLocaleString('en-US')} bytes`));

      // The groups, by wasted bytes: value, count and waste as MAT's (the first 20; ties
      // at the report's cut of 100 may be filled by other members of the tie).
      const rows = await page.$$eval('#waste-strings tbody tr[data-value]', (r) => r.map((x) => ({ value: x.dataset.value, count: Number(x.dataset.count), wasted: Number(x.dataset.wasted), first: x.dataset.first, shown: x.cells[0].textContent })));
      assert.ok(rows.length >= 20);
      for (let i = 0; i < 20; i++) {
        const e = exp.top[i];
        const r = rows.find((x) => x.value === e.value);
        assert.ok(r, `group ${JSON.stringify(e.value)}`);
        assert.deepEqual([r.count, r.wasted, r.first], [e.count, e.wasted, e.first_object], e.value);
        assert.ok(r.shown.includes(e.value), 'the value is shown as text');
      }
      assert.deepEqual(rows.slice(0, 4).map((r) => r.value), exp.top.slice(0, 4).map((g) => g.value));

      // Sorting by the number of strings, most first; the URL remembers it.
      await page.click('#waste-strings th button[data-sort="count"]');
      await page.waitForFunction(() => location.hash.includes('sort=-count'));
      const counts = await page.$$eval('#waste-strings tbody tr[data-value]', (r) => r.map((x) => Number(x.dataset.count)));
      assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
      assert.equal(await page.locator('#waste-strings th[aria-sort="descending"] button').getAttribute('data-sort'), 'count');

      // The biggest group opens into its strings by address, each with what holds it.
      const alpha = exp.top[0];
      const row = page.locator(`#waste-strings tbody tr[data-first="${alpha.first_object}"]`);
      await row.locator('button.toggle').click();
      await page.waitForFunction(() => location.hash.includes('dup='));
      const list = page.locator('#waste-strings .group-members');
      await page.waitForSelector('#waste-strings .group-members[data-total]');
      assert.equal(Number(await list.getAttribute('data-total')), alpha.count, 'members: MAT\'s count');
      const members = await list.locator(':scope > li').evaluateAll((li) => li.map((x) => ({ address: x.dataset.address, holders: Number(x.dataset.holders), links: x.querySelectorAll('a.obj').length - 1 })));
      assert.equal(members.length, 20);
      assert.equal(members[0].address, alpha.first_object, 'the lowest-address member first');
      const addresses = members.map((m) => BigInt(m.address));
      assert.deepEqual(addresses, [...addresses].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      // MANIFEST: STRINGS' array holds each ALPHA string (the interned literal also has the constant pool).
      assert.ok(members.every((m) => m.holders >= 1 && m.links >= 1), JSON.stringify(members.slice(0, 3)));
      await page.click('#waste-strings .group-details button.more');
      await page.waitForFunction(() => document.querySelector('#waste-strings .group-members')?.dataset.shown === '40');

      // A duplicate-array group opens the same way: its arrays by address (the report's
      // count of them), each with what holds it; the URL names the group.
      await page.click('#waste-tab-arrays');
      await page.waitForSelector('#waste-arrays tbody tr[data-first]');
      const group = await page.$eval('#waste-arrays tbody tr[data-first]', (r) => ({ first: r.dataset.first, count: Number(r.dataset.count) }));
      await page.locator(`#waste-arrays tbody tr[data-first="${group.first}"] button.toggle`).click();
      await page.waitForSelector('#waste-arrays .group-members[data-total]');
      assert.equal(Number(await page.locator('#waste-arrays .group-members').getAttribute('data-total')), group.count, 'members: the group\'s count');
      const arrays = await page.$$eval('#waste-arrays .group-members > li', (li) => li.map((x) => ({ address: x.dataset.address, holders: Number(x.dataset.holders) })));
      assert.equal(arrays.length, Math.min(group.count, 20));
      assert.equal(arrays[0].address, group.first, 'the lowest-address array first');
      assert.ok(arrays.every((m) => m.holders >= 1), JSON.stringify(arrays.slice(0, 3)));
      assert.match(new URL(page.url()).hash, new RegExp(`dup=${group.first}`));

      await page.setViewportSize({ width: 800, height: 900 });
      assert.ok(await noSidewaysScroll(page), 'no sideways page scroll at 800 px (waste)');
      await page.setViewportSize({ width: 1280, height: 900 });
      await shots(page, 'waste');
    }, { query: '?sizes=mat' });
  });
});
