// Accessibility of the built page: axe-core (a devDependency, injected by this test only,
// never part of the page) finds no serious or critical violation on any view of a loaded
// report, in the light and the dark theme; and every view works with the keyboard alone.
//
//   npm run build && node --test tests/e2e/a11y.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { harness } from './helpers/harness.mjs';
import { resetRecording, showTab, waitForOutcome } from './helpers/page.mjs';

const h = harness();
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** The views there were when this test was written; any view added since is checked too. */
const KNOWN_VIEWS = ['overview', 'histogram', 'suspects', 'consumers', 'dominators', 'treemap', 'inspector', 'path', 'compare'];
/** The comparison's baseline: the sample itself (every class row present, all zeros). */
const SAMPLE = fileURLToPath(new URL('../../web/public/sample.hprof.gz', import.meta.url));

/** axe-core's serious and critical violations on the page as it is now. */
async function violations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    // Colours mid-transition (the drop zone fades its background in 0.1 s) are not the
    // page's: on a loaded machine axe could read the old background after a theme switch.
    await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {})));
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

async function openSample(page) {
  await resetRecording(page);
  await page.click('#sample-button');
  assert.equal(await waitForOutcome(page), 'done');
}

/** Waits until view `id` shows what it is for (its queries answered). */
async function viewReady(page, id) {
  const ready = {
    histogram: '#histogram-body .vrow:not([hidden])',
    dominators: '#dominator-tree tbody tr[data-address]',
    classes: '#classes-up > li',
    treemap: '#treemap-canvas[data-items]',
    inspector: '#inspector-body .details',
    path: '#gc-path',
    threads: '#threads-summary',
    waste: '#waste-panel > *',
    merge: '#merge-paths',
  }[id];
  if (id === 'compare') {
    await page.setInputFiles('#compare-input', SAMPLE);
    await page.waitForSelector('#compare-body .vrow:not([hidden])', { timeout: 60_000 });
    await page.click('#compare-body .vrow:not([hidden])');
  }
  if (ready) await page.waitForSelector(ready);
}

/** Presses Tab until `test(activeElement)` holds; fails after `max` presses. */
async function tabTo(page, what, test, max = 60) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(test)) return;
  }
  assert.fail(`Tab never reached ${what}`);
}

/** The focused element shows a focus ring (:focus-visible, with a visible outline). */
async function focusVisible(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    const s = getComputedStyle(el);
    return el.matches(':focus-visible') && s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
  });
}

describe('accessibility', () => {
  for (const scheme of ['light', 'dark']) {
    test(`axe-core: no serious or critical violation on any view (${scheme} theme)`, async () => {
      await h.withPage(async ({ page }) => {
        await page.emulateMedia({ colorScheme: scheme });
        // Every view is checked before failing, so one run lists every problem.
        const found = { start: await violations(page) };
        await openSample(page);
        // An object to inspect: the biggest in the dominator tree.
        await showTab(page, 'dominators');
        const first = page.locator('#dominator-tree tbody tr[data-address]').first();
        await first.waitFor();
        await first.locator('td.name').click();
        const views = await page.$$eval('#results [role="tab"][data-view]', (tabs) => tabs.map((t) => t.dataset.view));
        for (const id of KNOWN_VIEWS) assert.ok(views.includes(id), `view ${id} is on the page`);
        for (const id of views) {
          await showTab(page, id);
          await viewReady(page, id);
          // Threads: with a thread open (its frames and locals are rows too).
          if (id === 'threads') await page.locator('#threads-tree tr[data-kind="thread"] button.toggle').first().click();
          found[id] = await violations(page);
        }
        // Waste: every kind's tab, the first duplicate string group open.
        await showTab(page, 'waste');
        for (const kind of await page.$$eval('.subtabs [role="tab"]', (tabs) => tabs.map((t) => t.dataset.kind).filter(Boolean))) {
          await page.click(`#waste-tab-${kind}`);
          await page.waitForFunction((k) => document.getElementById('waste-panel').getAttribute('aria-labelledby') === `waste-tab-${k}`, kind);
          if (kind === 'strings' && (await page.locator('#waste-strings button.toggle').count())) {
            await page.locator('#waste-strings button.toggle').first().click();
            await page.waitForSelector('#waste-strings .group-members[data-total]');
          }
          found[`waste ${kind}`] = await violations(page);
        }
        assert.deepEqual(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length)), {}, 'serious or critical violations, by view');
      });
    });
  }

  test('every view works with the keyboard alone, with a visible focus', async () => {
    await h.withPage(async ({ page }) => {
      // Open the sample: Tab to the button, Enter.
      await tabTo(page, 'the sample button', () => document.activeElement?.id === 'sample-button');
      assert.ok(await focusVisible(page), 'focus ring on the sample button');
      await resetRecording(page);
      // What screen readers are told (the polite live region), recorded as it changes.
      await page.evaluate(() => {
        const heard = (window.__heard = []);
        const region = document.getElementById('announcer');
        new MutationObserver(() => heard.push(region.textContent)).observe(region, { childList: true, characterData: true, subtree: true });
      });
      await page.keyboard.press('Enter');
      assert.equal(await waitForOutcome(page), 'done');
      const heard = await page.evaluate(() => window.__heard);
      assert.ok(heard.some((t) => /^Analyzing sample\.hprof\.gz$/.test(t)), `the start is announced: ${JSON.stringify(heard)}`);
      assert.ok(heard.some((t) => /^pass 1\b.*read 1 of 2/.test(t)), `the first read is announced: ${JSON.stringify(heard)}`);
      assert.ok(heard.some((t) => /^pass 2\b.*read 2 of 2/.test(t)), `the second read is announced: ${JSON.stringify(heard)}`);
      assert.match(heard[heard.length - 1], /^sample\.hprof\.gz: analysis done\./);
      assert.equal(await page.locator('#announcer').getAttribute('aria-live'), 'polite');
      // The views' tabs: Tab reaches the selected one, the arrow keys switch views.
      await tabTo(page, 'the view tabs', () => document.activeElement?.id === 'tab-overview');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => !document.getElementById('view-histogram').hidden && document.activeElement?.id === 'tab-histogram');

      // Histogram: Tab into the rows; arrow keys move and select; the class's objects appear.
      await tabTo(page, 'the histogram rows', () => document.activeElement?.id === 'histogram-body');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => document.activeElement.dataset.index), '1');
      assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-selected')), 'true');
      assert.ok(await focusVisible(page), 'focus ring on the histogram row');
      await page.waitForSelector('#histogram-instances a.obj');
      await page.keyboard.press('End');
      const last = await page.evaluate(() => Number(document.getElementById('histogram-count').dataset.rows) - 1);
      await page.waitForFunction((n) => document.activeElement.dataset.index === String(n), last);

      // Dominator tree (treegrid): one tab stop, Right expands, Down/Left move, Enter selects.
      await page.focus('#tab-histogram');
      // Past the views between (leak suspects, top consumers, threads, waste…).
      for (let i = 0; i < 12 && (await page.evaluate(() => document.activeElement?.id)) !== 'tab-dominators'; i++) await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => document.activeElement?.id === 'tab-dominators');
      await page.waitForSelector('#dominator-tree tbody tr[data-address]');
      await tabTo(page, 'the dominator tree', () => document.activeElement?.matches('#dominator-tree tr[data-address]'));
      const top = await page.evaluate(() => document.activeElement.dataset.address);
      assert.equal(top, await page.locator('#dominator-tree tbody tr[data-address]').first().getAttribute('data-address'));
      assert.ok(await focusVisible(page), 'focus ring on the tree row');
      const expandable = await page.evaluate(() => Number(document.activeElement.dataset.children) > 0);
      assert.ok(expandable, 'the biggest object of the sample keeps others alive');
      await page.keyboard.press('ArrowRight');
      await page.waitForSelector(`#dominator-tree tr[data-address="${top}"][aria-expanded="true"]`);
      await page.waitForSelector('#dominator-tree tr[aria-level="2"]');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-level')), '2');
      const child = await page.evaluate(() => document.activeElement.dataset.address);
      await page.keyboard.press('Enter');
      await page.waitForFunction((a) => location.hash.includes(`object=${a}`), child);
      await page.keyboard.press('ArrowLeft');
      assert.equal(await page.evaluate(() => document.activeElement.dataset.address), top, 'Left moves to the parent');
      await page.keyboard.press('ArrowLeft');
      await page.waitForSelector(`#dominator-tree tr[data-address="${top}"][aria-expanded="false"]`);
      assert.equal(await page.evaluate(() => document.activeElement.dataset.address), top, 'the focus stays on the collapsed row');

      // Classes up: Tab reaches a row's toggle; Enter opens the rows above it.
      await page.focus('#tab-dominators');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => document.activeElement?.id === 'tab-classes');
      await page.waitForSelector('#classes-up > li');
      await tabTo(page, 'a classes-up row', () => document.activeElement?.matches('#classes-up > li > .class-row button.toggle'));
      assert.ok(await focusVisible(page), 'focus ring on the row toggle');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#classes-up > li[aria-expanded="true"] > ul > li[data-class]');

      // Treemap: the canvas is a tab stop; arrows move between rectangles, Enter zooms in,
      // Escape zooms out; the info line says which rectangle has the focus.
      await page.focus('#tab-classes');
      await page.keyboard.press('ArrowRight');
      await page.waitForSelector('#treemap-canvas[data-items]');
      await tabTo(page, 'the treemap', () => document.activeElement?.id === 'treemap-canvas');
      assert.ok(await focusVisible(page), 'focus ring on the treemap');
      const info = () => page.evaluate(() => document.getElementById('treemap-info').textContent);
      const firstRect = await info();
      assert.ok(firstRect, 'the focused rectangle is described');
      const items = Number(await page.locator('#treemap-canvas').getAttribute('data-items'));
      if (items > 1) {
        const seen = new Set([firstRect]);
        for (const key of ['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp']) {
          await page.keyboard.press(key);
          seen.add(await info());
        }
        assert.ok(seen.size > 1, 'the arrow keys reach other rectangles');
        await page.keyboard.press('Home');
        assert.equal(await info(), firstRect);
      }
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.getElementById('treemap-breadcrumb').dataset.depth === '1');
      await page.waitForFunction(() => Number(document.getElementById('treemap-canvas').dataset.items) > 0);
      assert.equal(await page.evaluate(() => document.activeElement.id), 'treemap-canvas');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => document.getElementById('treemap-breadcrumb').dataset.depth === '0');

      // Inspector (the object selected in the tree): Tab reaches the field rows, which take
      // the arrow keys, and a reference, which Enter follows.
      await page.focus('#tab-treemap');
      await page.keyboard.press('ArrowRight');
      await page.waitForSelector('#inspector-body .details');
      await tabTo(page, 'the fields table', () => document.activeElement?.matches('#inspector-fields tbody tr'));
      assert.ok(await focusVisible(page), 'focus ring on the field row');
      const rows = await page.locator('#inspector-fields tbody tr').count();
      if (rows > 1) {
        await page.keyboard.press('ArrowDown');
        assert.equal(await page.evaluate(() => [...document.activeElement.parentElement.rows].indexOf(document.activeElement)), 1);
      }
    });
  });
});
