// The page that gets to the answer (issue 38): a compact frame (the view's content starts
// near the top of the window), the overview's verdict before any table, long tables
// folded, threads that can be scanned (frame sums, Java-style frames, threads named), a
// path that names the frame holding a local, a dump with nothing readable, a drop that
// asks before replacing, a memory refusal said plainly, the treemap's colours and the
// dock at 800 px. Checked against Eclipse MAT's tables in ../shared/corpus/expected, the
// CLI's JSON, and dumps built here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import { cliJson } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { HprofWriter, TYPE } from './helpers/hprof.mjs';
import { openFile, resetRecording, showTab, waitForOutcome } from './helpers/page.mjs';
import { CORPUS, CORPUS_MISSING, REPO } from './helpers/paths.mjs';

const h = harness();
const S02 = 'dumps/s02_static_map_leak_serial.hprof.gz';
const S03 = 'dumps/s03_threadlocal_leak_serial.hprof.gz';
const LEAKCANARY = 'android/leakcanary_leak_service_binder.hprof.gz';
const SAMPLE = path.join(REPO, 'web', 'public', 'sample.hprof.gz');

/** MAT's expected answers for a corpus dump. */
function matExpected(name) {
  return JSON.parse(fs.readFileSync(path.join(CORPUS, 'expected', `${name}.json`), 'utf8'));
}

/** MAT's retained size per object address. */
function matRetained(name) {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(CORPUS, 'expected', `${name}.objects.tsv.gz`))).toString('utf8');
  const out = new Map();
  for (const l of text.trim().split('\n').slice(1)) {
    const [address, , , retained] = l.split('\t');
    out.set(address, Number(retained));
  }
  return out;
}

/** Where the first thing of the shown view's content starts, from the top of the page (px). */
async function contentTop(page) {
  return page.evaluate(() => {
    window.scrollTo(0, 0);
    const view = document.querySelector('.view:not([hidden]) .view-body');
    const first = [...view.children].find((c) => c.getBoundingClientRect().height > 0);
    return Math.round(first.getBoundingClientRect().top + window.scrollY);
  });
}

/** A dump where nothing holds more than 10%, alone or with the other top-level objects of
 * its class: 12 arrays of 1,000 references (8 KiB each, about 8% of the heap), each of its
 * own array class, each a root. */
function writeSpreadDump(file) {
  const w = new HprofWriter({ idSize: 8 });
  w.defineClass(0x100, 'java/lang/Object');
  for (let i = 0; i < 12; i++) {
    const cls = 0x200 + i * 0x10;
    w.defineClass(cls, `[Lspread/Part${i};`, { superId: 0x100 });
    w.objectArray(0x10000 + i * 0x4000, cls, new Array(1000).fill(0)).rootUnknown(0x10000 + i * 0x4000);
  }
  fs.writeFileSync(file, w.finish());
}

/** The sample dump cut 4 bytes into its first heap record: names and classes, no heap. */
function writeCutBeforeHeap(file) {
  const raw = zlib.gunzipSync(fs.readFileSync(SAMPLE));
  // Walk the top-level records (tag u1, time u4, length u4) to the first heap dump record.
  let at = raw.indexOf(0, 0) + 1 + 4 + 8;
  while (at < raw.length && raw[at] !== 0x0c && raw[at] !== 0x1c) at += 9 + raw.readUInt32BE(at + 5);
  assert.ok(at < raw.length, 'the sample has a heap dump record');
  fs.writeFileSync(file, raw.subarray(0, at + 4));
  return at;
}

describe('a compact page that answers first', { skip: CORPUS_MISSING && 'the corpus (../shared/corpus) is not here' }, () => {
  test('the first view starts within 250 px of the top at 1440×900 (and 800 px wide); tabs in one row at 1440 px, every tab in sight at 800; the treemap fills the window', async () => {
    await h.withPage(async ({ page }) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      assert.equal(await openFile(page, h.corpusFile(S02)), 'done');
      const wide = await contentTop(page);
      const tabTops = await page.$$eval('#tabs [role="tab"]', (tabs) => [...new Set(tabs.map((t) => Math.round(t.getBoundingClientRect().top)))]);
      assert.equal(tabTops.length, 1, `the tabs are one row (${tabTops})`);
      await page.setViewportSize({ width: 800, height: 900 });
      await page.waitForTimeout(200);
      const narrow = await contentTop(page);
      console.log(`content top: ${wide} px at 1440×900, ${narrow} px at 800×900`);
      assert.ok(wide <= 250, `the overview's content starts at ${wide} px at 1440×900`);
      assert.ok(narrow <= 300, `the overview's content starts at ${narrow} px at 800×900`);
      // At 800 px the tabs take two rows, every one of them whole and in the window (none
      // hidden behind a scroll).
      const rows = await page.$$eval('#tabs [role="tab"]', (tabs) => new Set(tabs.map((t) => Math.round(t.getBoundingClientRect().top))).size);
      assert.ok(rows <= 2, `${rows} rows of tabs at 800 px`);
      assert.ok(await page.$$eval('#tabs [role="tab"]', (tabs) => tabs.every((t) => t.getBoundingClientRect().right <= window.innerWidth && t.scrollWidth <= t.clientWidth)), 'every tab whole');
      // The treemap takes the window's height below its top, whatever the width.
      await page.setViewportSize({ width: 1440, height: 900 });
      await showTab(page, 'treemap');
      await page.waitForFunction(() => Number(document.getElementById('treemap-canvas')?.dataset.items) > 0);
      const canvas = await page.locator('#treemap-canvas').evaluate((c) => {
        window.scrollTo(0, 0);
        const r = c.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, window: window.innerHeight };
      });
      assert.ok(canvas.top < 320, `the treemap starts at ${canvas.top} px`);
      assert.ok(canvas.bottom > canvas.window - 80 && canvas.bottom <= canvas.window, `the treemap ends at ${canvas.bottom} px of ${canvas.window}`);
    });
  });

  test('the overview opens with a verdict: the biggest suspect as the report names it, with its links; else that the heap is spread out', async () => {
    const file = h.corpusFile(S02);
    const cli = cliJson(file);
    const biggest = [...cli.leak_suspects.suspects].sort((a, b) => b.retained_bytes - a.retained_bytes)[0];
    const spread = path.join(h.tmp, 'spread.hprof');
    writeSpreadDump(spread);
    assert.equal(cliJson(spread).leak_suspects.suspects.length, 0);
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      const verdict = page.locator('#verdict');
      assert.equal(await verdict.getAttribute('data-verdict'), 'suspect');
      assert.ok(biggest.held_in, 'the CLI names where the suspect holds its memory');
      assert.ok((await verdict.textContent()).includes(biggest.held_in), 'the verdict names the suspect by its held_in');
      // Before any table: the first thing of the overview, ahead of every table.
      const order = await page.evaluate(() => {
        const body = document.querySelector('#view-overview .view-body .overview');
        const verdict = document.getElementById('verdict');
        const firstTable = body.querySelector('table');
        return { first: body.firstElementChild === verdict, beforeTables: !!(verdict.compareDocumentPosition(firstTable) & Node.DOCUMENT_POSITION_FOLLOWING) };
      });
      assert.deepEqual(order, { first: true, beforeTables: true });
      // Its links lead on: the path link opens the accumulation point's path.
      const target = biggest.accumulation_point?.address ?? biggest.object.address;
      await page.click('#verdict-path');
      await page.waitForSelector(`#gc-path li[data-address="${target}"]`, { timeout: 60_000 });

      assert.equal(await openFile(page, spread), 'done');
      assert.equal(await page.locator('#verdict').getAttribute('data-verdict'), 'spread');
      assert.match(await page.locator('#verdict').textContent(), /No single object holds more than 10%: the heap is spread out\./);
    });
  });

  test('the verdict names the leaks first when the report has a leaks section', async (t) => {
    const cli = cliJson(h.corpusFile(LEAKCANARY));
    if (!cli.leaks) {
      t.skip('the core writes no leaks section yet (the page reads it when it does)');
      return;
    }
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile(LEAKCANARY)), 'done');
      const verdict = page.locator('#verdict');
      if (cli.leaks.leaks.length === 0) {
        assert.notEqual(await verdict.getAttribute('data-verdict'), 'leaks');
        return;
      }
      assert.equal(await verdict.getAttribute('data-verdict'), 'leaks');
      const shown = await page.$$eval('#verdict [data-leak]', (ls) => ls.map((l) => l.dataset.leak));
      const apps = cli.leaks.leaks.filter((l) => l.kind === 'application').map((l) => l.signature);
      assert.ok(shown.length > 0 && (apps.length === 0 || apps.includes(shown[0])), 'an application leak comes first');
    });
  });

  test('long overview tables show their first 10 rows and open on request', async () => {
    const file = h.corpusFile(LEAKCANARY);
    const cli = cliJson(file);
    const rows = cli.overview.unreachable.classes.length;
    assert.ok(rows > 10, `the LeakCanary dump has ${rows} unreachable classes`);
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      // The dump has leaks: the page opens on them.
      await showTab(page, 'overview');
      const visible = () => page.$$eval('#unreachable-classes tbody tr', (trs) => trs.filter((r) => !r.hidden).length);
      assert.equal(await visible(), 10);
      assert.equal(await page.locator('#unreachable-classes tbody tr').count(), rows, 'every row is in the table');
      const toggle = page.locator('.folded:has(#unreachable-classes) .fold-toggle');
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      assert.match(await toggle.textContent(), new RegExp(`Show all ${rows} rows`));
      await toggle.click();
      assert.equal(await visible(), rows);
      await toggle.click();
      assert.equal(await visible(), 10);
      // The keyboard skips the folded rows: End goes to the 10th.
      await page.locator('#unreachable-classes tbody tr').first().focus();
      await page.keyboard.press('End');
      assert.equal(await page.evaluate(() => [...document.activeElement.parentElement.rows].indexOf(document.activeElement)), 9);
    });
  });

  test('threads: each frame shows its locals retained together (MAT\'s sizes), the biggest frame marked, "1 local", Java-style frames; the overview names threads', async () => {
    const name = 's03_threadlocal_leak_serial';
    const mat = matExpected(name).threads.threads;
    const retained = matRetained(name);
    const thread = mat.find((t) => t.has_stack && t.frames.some((f) => f.locals.length === 1) && t.frames.some((f) => f.locals.some((a) => a !== t.object)));
    assert.ok(thread, 'a thread with a frame of one local');
    // MAT: each frame's locals, each object once, the thread itself not counted.
    const sums = thread.frames.map((f) => [...new Set(f.locals)].filter((a) => a !== thread.object).reduce((s, a) => s + retained.get(a), 0));
    const biggest = sums.indexOf(Math.max(...sums));
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile(S03)), 'done');
      // The overview's biggest objects: a thread is named by its name (MAT's).
      const names = new Map(mat.map((t) => [t.object, t.name]));
      const bars = await page.$$eval('#biggest-objects li[data-address]', (ls) => ls.map((l) => ({ address: l.dataset.address, label: l.querySelector('.bar-label').textContent })));
      const threadBars = bars.filter((b) => names.get(b.address));
      assert.ok(threadBars.length > 0, 'a thread is among the biggest objects of s03');
      for (const b of threadBars) assert.ok(b.label.startsWith(`${names.get(b.address)} (`), `${b.label} names thread ${names.get(b.address)}`);
      await showTab(page, 'threads');
      await page.locator(`#threads-tree tr[data-kind="thread"][data-address="${thread.object}"]`).click();
      await page.waitForSelector('#threads-tree tr[data-kind="frame"]');
      const frames = await page.$$eval('#threads-tree tr[data-kind="frame"]', (rs) => rs.filter((r) => Number(r.dataset.frame) >= 0).map((r) => ({
        held: Number(r.dataset.localsRetained),
        shown: r.querySelector('td.num:last-child').textContent,
        count: r.querySelectorAll('td.num')[0].textContent,
        biggest: r.dataset.biggest === 'true',
        text: r.querySelector('.frame').textContent,
        mat: r.querySelector('.frame').getAttribute('title'),
      })));
      assert.deepEqual(frames.map((f) => f.held), sums);
      assert.deepEqual(frames.map((f) => f.shown), sums.map((s) => (s > 0 ? s.toLocaleString('en-US') : '')));
      assert.deepEqual(frames.map((f) => f.biggest), sums.map((_, i) => i === biggest && sums[i] > 0));
      assert.deepEqual(frames.map((f) => f.count), thread.frames.map((f) => (f.locals.length === 0 ? 'no locals' : f.locals.length === 1 ? '1 local' : `${f.locals.length} locals`)));
      // Java-style, MAT's text on hover.
      assert.deepEqual(frames.map((f) => f.mat), thread.frames.map((f) => f.text));
      const run = frames.find((f) => f.mat === 'at java.lang.Thread.run()V (Thread.java:840)');
      assert.equal(run?.text, 'Thread.run() (Thread.java:840)');
      const worker = frames.find((f) => f.mat.startsWith('at java.util.concurrent.ThreadPoolExecutor.runWorker('));
      assert.equal(worker?.text, 'ThreadPoolExecutor.runWorker(ThreadPoolExecutor$Worker) (ThreadPoolExecutor.java:1122)');
    });
  });

  test('a path that passes a thread\'s local names the thread and the frame', async () => {
    const name = 's03_threadlocal_leak_serial';
    const mat = matExpected(name).threads.threads;
    const thread = mat.find((t) => t.name === 'leaky-pool-1');
    const frame = thread.frames.find((f) => f.locals.some((a) => a !== thread.object));
    const local = frame.locals.find((a) => a !== thread.object);
    // The innermost frame that holds the local is the one named.
    const innermost = thread.frames.find((f) => f.locals.includes(local));
    const m = /^at (?:[\w$]+\.)*([\w$]+)\.([\w$<>]+)\(.*\)\S* \((.*)\)$/.exec(innermost.text);
    const expected = `${thread.name} · ${m[1]}.${m[2]} (${m[3]})`;
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile(S03)), 'done');
      await page.evaluate((a) => { location.hash = `#view=path&object=${a}`; }, local);
      await page.waitForSelector('#gc-path li', { timeout: 60_000 });
      const named = await page.$$eval('#gc-path [data-frame]', (els) => els.map((e) => e.dataset.frame));
      assert.ok(named.includes(expected), `the path names ${expected}: ${JSON.stringify(named)}`);
    });
  });

  test('a dump cut before its first heap record shows the error and what was read, not empty views', async () => {
    const cut = path.join(h.tmp, 'cut-before-heap.hprof');
    const at = writeCutBeforeHeap(cut);
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, cut), 'error');
      assert.ok(await page.locator('#results').isHidden(), 'no views');
      assert.ok(await page.locator('#tabs').isHidden(), 'no tabs');
      assert.equal(await page.locator('#error').getAttribute('data-kind'), 'format');
      assert.match(await page.locator('#error-title').textContent(), /no heap record/);
      const read = await page.locator('#error-read-list').textContent();
      assert.match(read, /JAVA PROFILE 1\.0\.2/);
      assert.ok(read.includes(at.toLocaleString('en-US')), `what was read names the ${at} bytes before the heap: ${read}`);
      // The page stays usable.
      assert.equal(await openFile(page, SAMPLE), 'done');
      assert.ok(await page.locator('#error').isHidden());
    });
  });

  test('a file dropped onto an open analysis asks before replacing it', async () => {
    const bytes = fs.readFileSync(SAMPLE).toString('base64');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile(S02)), 'done');
      const drop = async () => {
        const dataTransfer = await page.evaluateHandle((b64) => {
          const dt = new DataTransfer();
          dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'sample.hprof.gz'));
          return dt;
        }, bytes);
        await page.dispatchEvent('#main', 'dragenter', { dataTransfer });
        await page.dispatchEvent('#main', 'dragover', { dataTransfer });
        await page.dispatchEvent('#main', 'drop', { dataTransfer });
      };
      await drop();
      await page.waitForSelector('#replace-confirm:not([hidden])');
      assert.match(await page.locator('#replace-question').textContent(), /replaces the analysis of s02_static_map_leak_serial\.hprof\.gz/);
      assert.equal(await page.locator('#replace-yes').textContent(), 'Analyze sample.hprof.gz');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'replace-yes', 'the question has the focus');
      await page.click('#replace-no');
      assert.ok(await page.locator('#replace-confirm').isHidden());
      assert.equal(await page.locator('#main').getAttribute('data-mode'), 'done');
      assert.equal(await page.locator('#dump-title').textContent(), 's02_static_map_leak_serial.hprof.gz');
      // Confirmed: the dropped file is analyzed.
      await resetRecording(page);
      await drop();
      await page.click('#replace-yes');
      assert.equal(await waitForOutcome(page), 'done');
      assert.equal(await page.locator('#dump-title').textContent(), 'sample.hprof.gz');
    });
  });

  test('the exports are one menu that works with the keyboard', async () => {
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile(S02)), 'done');
      const items = await page.$$eval('#export-items button', (bs) => bs.map((b) => b.id));
      assert.deepEqual(items, ['export-json', 'export-markdown', 'export-md-graphs', 'export-html']);
      assert.ok(await page.locator('#export-items').isHidden());
      await page.focus('#export-button');
      await page.keyboard.press('Enter');
      assert.equal(await page.locator('#export-button').getAttribute('aria-expanded'), 'true');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'export-json');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'export-markdown');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('ArrowUp');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'export-html', 'the arrows wrap around');
      await page.keyboard.press('Escape');
      assert.ok(await page.locator('#export-items').isHidden());
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'export-button', 'Escape returns to the button');
      // Enter on an item downloads it and closes the menu.
      await page.keyboard.press('Enter');
      const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
      assert.equal(download.suggestedFilename(), 's02_static_map_leak_serial.json');
      assert.ok(await page.locator('#export-items').isHidden());
    });
  });

  test('the memory refusal names what is needed and what this tab can give, in binary units', async () => {
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile(S02)), 'error');
      assert.equal(await page.locator('#error').getAttribute('data-kind'), 'memory');
      const message = await page.locator('#error-message').textContent();
      // 20,000,000 bytes = 19.07 MiB; s02 has more than 18,000 objects.
      assert.match(message, /^this dump has \d{2},\d{3} objects: analyzing it needs about \d+\.\d MiB of memory \(\d+\.\d MiB plus \d+ bytes per object\), more than the 19\.1 MiB available here$/);
      assert.doesNotMatch(message, /(^|[^\d.])0 MiB/);
      assert.match(await page.locator('#error-limit').textContent(), /lowered to 19\.1 MiB \(20,000,000 bytes\) by memory-limit/);
      assert.doesNotMatch(await page.locator('#error-cli').textContent(), /4 GiB/);
    }, { query: '?memory-limit=20000000' });
  });

  test('the treemap draws strongly held objects in greys, never in the legend\'s colours', async () => {
    await h.withPage(async ({ page }) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      assert.equal(await openFile(page, h.corpusFile(S02)), 'done');
      await showTab(page, 'treemap');
      await page.waitForFunction(() => Number(document.getElementById('treemap-canvas')?.dataset.items) > 0);
      await page.waitForTimeout(500);
      // The colour inside each rectangle, near its top right corner (nested boxes start
      // below the label strip; the label stops short of the edge), as saturation in [0, 1].
      const samples = await page.evaluate(() => {
        const canvas = document.getElementById('treemap-canvas');
        const c = canvas.getContext('2d');
        const dpr = canvas.width / canvas.getBoundingClientRect().width;
        return [...document.querySelectorAll('#treemap-items button[data-kind="object"]')]
          .map((b) => ({ strength: b.dataset.strength, x: Number(b.dataset.x), y: Number(b.dataset.y), w: Number(b.dataset.w), h: Number(b.dataset.h) }))
          .filter((r) => r.w >= 12 && r.h >= 24)
          .map((r) => {
            const [R, G, B] = c.getImageData(Math.floor((r.x + r.w - 3) * dpr), Math.floor((r.y + 9) * dpr), 1, 1).data;
            const max = Math.max(R, G, B) / 255;
            const min = Math.min(R, G, B) / 255;
            const l = (max + min) / 2;
            const s = max === min ? 0 : (max - min) / (1 - Math.abs(2 * l - 1));
            return { strength: r.strength, s };
          });
      });
      const strong = samples.filter((x) => x.strength === 'strong');
      assert.ok(strong.length > 0, 'strongly held rectangles are drawn');
      for (const x of strong) assert.ok(x.s < 0.2, `a strongly held object drawn with saturation ${x.s.toFixed(2)}`);
      // Checking "Strong" in the legend colours them.
      await page.locator('#strength-legend-treemap-strong').check();
      await page.waitForTimeout(200);
      const coloured = await page.evaluate(() => {
        const canvas = document.getElementById('treemap-canvas');
        const b = document.querySelector('#treemap-items button[data-kind="object"][data-strength="strong"]');
        const dpr = canvas.width / canvas.getBoundingClientRect().width;
        const [R, G, B] = canvas.getContext('2d').getImageData(Math.floor((Number(b.dataset.x) + Number(b.dataset.w) - 3) * dpr), Math.floor((Number(b.dataset.y) + 9) * dpr), 1, 1).data;
        return Math.max(R, G, B) - Math.min(R, G, B);
      });
      assert.ok(coloured > 60, `checked, a strong object is drawn in colour (channel spread ${coloured})`);
      await page.locator('#strength-legend-treemap-strong').uncheck();
    });
  });

  test('at 800 px the selected object\'s panel is in the window when a row of a long tree is chosen', async () => {
    await h.withPage(async ({ page }) => {
      await page.setViewportSize({ width: 800, height: 900 });
      assert.equal(await openFile(page, h.corpusFile(S02)), 'done');
      await showTab(page, 'dominators');
      await page.waitForSelector('#dominator-tree tbody tr[data-address]');
      const rows = page.locator('#dominator-tree tbody tr[data-address]');
      assert.ok((await rows.count()) >= 50, 'a tree of 50 rows');
      const row = rows.nth(40);
      const address = await row.getAttribute('data-address');
      await row.locator('td.num').first().click();
      await page.waitForSelector(`#tree-dock .dock-title[data-address="${address}"]`);
      const box = await page.locator('#tree-dock').evaluate((d) => {
        const r = d.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, window: window.innerHeight };
      });
      assert.ok(box.top >= 0 && box.top < box.window - 100 && box.bottom <= box.window + 1, `the dock is in the window: ${JSON.stringify(box)}`);
    });
  });
});
