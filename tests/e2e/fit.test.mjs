// Everything fits (issue 43): at 1440×900 and 800×1000, on every view of real dumps, no tab,
// header or cell is clipped and nothing is cut on the right. Measured, not looked at: an
// element is clipped when its content is wider than its box (scrollWidth > clientWidth);
// the only things allowed to be cut are class names and values (`.cls`, `.val`), cut with
// an ellipsis and whole in a title on hover. The page itself never scrolls sideways, and
// every tab lies inside the window.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { harness } from './helpers/harness.mjs';
import { openFile, resetRecording, showTab } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';
import { serviceBinderDump } from './helpers/scene.mjs';

const h = harness();
const SIZES = [
  [1440, 900],
  [800, 1000],
];
const VIEWS = ['overview', 'histogram', 'leaks', 'suspects', 'consumers', 'threads', 'waste', 'dominators', 'classes', 'treemap', 'inspector', 'path', 'merge', 'compare'];

/** What is clipped on the page as it is now (a list of descriptions; empty when all fits). */
function clippedNow(page) {
  return page.evaluate(() => {
    const out = [];
    const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 60)}"`;
    const shown = (el) => el.getClientRects().length > 0 && !el.closest('[hidden]');
    const root = document.scrollingElement;
    if (root.scrollWidth > root.clientWidth + 1) out.push(`the page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth}`);
    const bar = document.getElementById('tabs').getBoundingClientRect();
    for (const tab of document.querySelectorAll('#tabs [role="tab"]')) {
      const r = tab.getBoundingClientRect();
      if (r.left < bar.left - 1 || r.right > bar.right + 1 || r.right > window.innerWidth || tab.scrollWidth > tab.clientWidth) out.push(`tab ${name(tab)} cut`);
    }
    const view = document.querySelector('.view:not([hidden])');
    const boxes = view.querySelectorAll('th, td, .vcell, [role="columnheader"], .cls > span, .val, .table-scroll, .vscroll, .split-main, .leak-trace, .bar-row, h3, h4, p, li, dd, dt, summary, button, label');
    for (const el of [...boxes, ...document.querySelectorAll('header.top button, header.top label')]) {
      if (!shown(el)) continue;
      const cut = el.scrollWidth > el.clientWidth && getComputedStyle(el).overflowX !== 'visible';
      const spills = el.scrollWidth > el.clientWidth && getComputedStyle(el).overflowX === 'visible' && el.getBoundingClientRect().right > window.innerWidth + 1;
      if (!cut && !spills) continue;
      // A name or value cut on purpose: with its whole in a title.
      if (el.matches('.cls > span, .val') && el.closest('[title]')) continue;
      // Inside such a cut name: its box is what counts.
      if (el.closest('.cls, .val') && !el.matches('.cls > span, .val')) continue;
      out.push(`${cut ? 'cut' : 'spills out of the window'}: ${name(el)} (${el.scrollWidth} > ${el.clientWidth})`);
    }
    return out;
  });
}

/** Shows view `id` as a person would get it going, then waits for it to settle. */
async function show(page, id, object) {
  if (['inspector', 'path', 'merge'].includes(id)) {
    await page.evaluate(([v, o]) => (location.hash = `#view=${v}&object=${o}`), [id, object]);
  } else await showTab(page, id);
  const ready = {
    histogram: async () => {
      await page.locator('#histogram-body .vrow[data-index="0"]').click();
      await page.waitForSelector('#histogram-instances table');
    },
    dominators: async () => {
      await page.waitForSelector('#dominator-tree tbody tr[data-address]');
      await page.locator('#dominator-tree tbody tr[data-address] button.toggle').first().click();
      await page.locator('#dominator-tree tbody tr[data-address] td.num').first().click();
      await page.waitForSelector('#tree-dock .dock-title');
    },
    threads: async () => {
      await page.waitForSelector('#threads-summary');
      const row = page.locator('#threads-tree tr[data-kind="thread"][data-has-stack="true"]').first();
      if ((await row.count()) && (await row.getAttribute('aria-expanded')) === 'false') await row.click();
    },
    inspector: () => page.waitForSelector('#inspector-body .details'),
    path: () => page.waitForSelector('#gc-path'),
    merge: () => page.waitForSelector('#view-merge table, #view-merge .placeholder, #view-merge .query-error'),
  }[id];
  if (ready) await ready();
  await page.waitForTimeout(400);
}

/** Every view of the open dump at both sizes: what is clipped, per size and view. */
async function measureAll(page, object) {
  const found = [];
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    for (const id of VIEWS) {
      await show(page, id, object);
      for (const c of await clippedNow(page)) found.push(`${width}px ${id}: ${c}`);
    }
  }
  return found;
}

/** The biggest top-level object of the open dump, for the views about one object. */
function biggest(page) {
  return page.evaluate(() => document.querySelector('#biggest-objects li[data-address]')?.dataset.address);
}

describe('Fit', () => {
  test('a library-leak dump built here: every view fits at 1440 and 800 px', async () => {
    const d = serviceBinderDump({ appList: true });
    const file = path.join(h.tmp, 'leak_service_binder.hprof');
    fs.writeFileSync(file, d.bytes);
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      assert.deepEqual(await measureAll(page, d.service), []);
    });
  });

  for (const [label, rel, baseline] of [
    ['the LeakCanary dump', 'android/leakcanary_leak_service_binder.hprof.gz', null],
    ['the obfuscated ahat dump, compared with its base run', 'android/ahat_test_dump_8e3b7d7.hprof.gz', 'android/ahat_test_dump_base_8e3b7d7.hprof.gz'],
    ['s02, compared with its G1 twin', 'dumps/s02_static_map_leak_serial.hprof.gz', 'dumps/s02_static_map_leak_g1.hprof.gz'],
  ]) {
    test(`${label}: every view fits at 1440 and 800 px`, { skip: CORPUS_MISSING }, async () => {
      await h.withPage(async ({ page }) => {
        assert.equal(await openFile(page, h.corpusFile(rel)), 'done');
        if (baseline) {
          await showTab(page, 'compare');
          await resetRecording(page);
          await page.setInputFiles('#compare-input', h.corpusFile(baseline));
          await page.waitForFunction(() => document.querySelector('#view-compare .compare')?.dataset.state === 'done', null, { timeout: 120_000 });
        }
        assert.deepEqual(await measureAll(page, await biggest(page)), []);
      });
    });
  }
});
