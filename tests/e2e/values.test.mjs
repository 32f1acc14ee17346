// Values where the reference is, collections as entries and merged paths to GC roots, in
// the page, on the corpus (MANIFEST.md): s02's static CACHE is a HashMap of 300 entries
// key-0000..key-0299 → byte[100,000]; s07's ArrayList of 1,000 Shared is held only by
// owner-A and owner-B. Screenshots at 1440 and 800 px go to /tmp/values-shots/ when
// SHOTS is set.
//
//   npm run build && node --test tests/e2e/values.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { harness } from './helpers/harness.mjs';
import { openFile, showTab } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();
const SHOTS = process.env.SHOTS ? '/tmp/values-shots' : null;

async function shoot(page, name) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [1440, 800]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(150);
    await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: false });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function go(page, hash) {
  await page.evaluate((x) => {
    location.hash = x;
  }, hash);
}

describe('values, entries, merged paths', { skip: CORPUS_MISSING }, () => {
  test('s02: the map\'s keys beside its nodes, and its 300 entries', async () => {
    const file = h.corpusFile('dumps/s02_static_map_leak_serial.hprof.gz');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      // The accumulation point is the map's table; its dominator is the map.
      await showTab(page, 'suspects');
      const table = await page.locator('[data-accumulation-point]').first().getAttribute('data-accumulation-point');
      await go(page, `#view=inspector&object=${table}`);
      await page.waitForSelector('#inspector-fields a.obj[data-value]', { state: 'attached' });
      // Every node in the table shows its key, as MAT does.
      await page.waitForFunction(() => document.querySelectorAll('#inspector-fields a.obj:not([data-value-done])').length === 0);
      const shown = await page.$$eval('#inspector-fields a.obj', (as) => as.map((a) => [a.dataset.value ?? null, a.nextElementSibling?.className === 'val' ? a.nextElementSibling.textContent : null]));
      assert.ok(shown.length > 100, `${shown.length} nodes`);
      for (const [value, text] of shown) {
        assert.match(value, /^key-\d{4}$/);
        assert.equal(text, ` ${value}`);
        assert.ok(Number(value.slice(4)) < 300);
      }
      await shoot(page, 'inspector-table-values');

      const map = await page.locator('#inspector-facts [data-fact="dominator"]').getAttribute('data-value');
      await go(page, `#view=inspector&object=${map}`);
      const summary = page.locator('#inspector-entries p[data-total]');
      await summary.waitFor();
      assert.equal(await summary.getAttribute('data-total'), '300');
      assert.equal(await summary.getAttribute('data-kind'), 'map');
      // The raw fields one click away.
      assert.equal(await page.locator('details.raw-fields #inspector-fields').count(), 1);
      assert.equal(await page.locator('details.raw-fields').getAttribute('open'), null);
      // The map itself shows its size.
      await page.waitForSelector('#inspector-entries a.obj[data-value]', { state: 'attached' });
      for (let i = 0; i < 2; i++) {
        await page.locator('#inspector-entries button.more').click();
        await page.waitForFunction((n) => document.querySelectorAll('#inspector-entries tbody tr').length === n, 200 + i * 100);
      }
      await page.waitForFunction(() => document.querySelectorAll('#inspector-entries a.obj:not([data-value-done])').length === 0);
      const keys = await page.$$eval('#inspector-entries tbody tr td:nth-child(2) a.obj', (as) => as.map((a) => a.dataset.value));
      assert.deepEqual([...keys].sort(), Array.from({ length: 300 }, (_, i) => `key-${String(i).padStart(4, '0')}`));
      const values = await page.$$eval('#inspector-entries tbody tr td:nth-child(3) a.obj', (as) => as.map((a) => a.textContent));
      assert.equal(values.length, 300);
      assert.ok(values.every((v) => v.startsWith('byte[]')));
      await page.locator('#inspector-entries').scrollIntoViewIfNeeded();
      await shoot(page, 'inspector-map-entries');
      // The dominator tree's rows carry values too (a top-level map's size).
      await showTab(page, 'dominators');
      await page.waitForSelector('#view-dominators a.obj[data-value]', { state: 'attached' });
      await shoot(page, 'dominators-values');
    });
  });

  test('s07: merged paths to the 1,000 Shared, from the histogram', async () => {
    const file = h.corpusFile('dumps/s07_wide_array_serial.hprof.gz');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      await showTab(page, 'histogram');
      await page.fill('#histogram-filter', 'S07WideArray$Shared');
      // The filter applies after typing settles: wait until it has, then for the class's row.
      await page.waitForSelector('#histogram-count[data-filter="s07widearray$shared"]', { state: 'attached' });
      const row = page.locator('#histogram-body .vrow:not([hidden])').filter({ hasText: 'S07WideArray$Shared' }).first();
      await row.waitFor();
      await row.click();
      const link = page.locator('#histogram-instances a.merge-link');
      await link.click();
      const view = page.locator('#merge-paths');
      await page.waitForFunction(() => document.querySelector('#merge-paths, #merge-body .query-error'), null, { timeout: 60_000 }).catch(() => {});
      assert.equal(await page.locator('#merge-body .query-error').count(), 0, await page.locator('#merge-body').textContent());
      await view.waitFor({ timeout: 60_000 });
      assert.equal(await view.getAttribute('data-objects'), '1000');
      assert.equal(await view.getAttribute('data-unreached'), '0');
      const rows = await page.$$eval('#merge-table tbody tr', (trs) => trs.map((t) => ({ c: t.dataset.class, n: Number(t.dataset.count), d: Number(t.dataset.depth), target: t.dataset.target === 'true' })));
      const roots = rows.filter((r) => r.d === 0);
      assert.equal(roots.length, 1);
      assert.equal(roots[0].n, 1000);
      const list = rows.find((r) => r.c === 'java.util.ArrayList');
      assert.equal(list?.n, 1000);
      assert.equal(rows.find((r) => r.c === 'java.lang.Object[]')?.n, 1000);
      assert.ok(rows.filter((r) => r.target).every((r) => r.n === 1 && r.c === 'corpus.S07WideArray$Shared'));
      // The field names along the chain.
      assert.match(await page.locator('#merge-table').textContent(), /↳ shared/);
      await shoot(page, 'merge-paths');
    });
  });
});
