// The page as a triage tool (issue 12): suspects that say what they found, an overview whose
// numbers lead to their views, a layout that fits 800 px, and the dominator tree grouped by
// class beside a docked inspector. Checked on corpus dumps against Eclipse MAT's own tables
// (../shared/corpus/expected: the suspects and every object's class, sizes and immediate
// dominator) and the corpus manifest, and against the CLI's JSON.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import { cliJson } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { openFile, showTab } from './helpers/page.mjs';
import { CORPUS, CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();
const S02 = 'dumps/s02_static_map_leak_serial.hprof.gz';
const S03 = 'dumps/s03_threadlocal_leak_serial.hprof.gz';

/** MAT's per-object table of a corpus dump: {address, class, shallow, retained, dominator}. */
function matObjects(name) {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(CORPUS, 'expected', `${name}.objects.tsv.gz`))).toString('utf8');
  return text.trim().split('\n').slice(1).map((l) => {
    const [address, cls, shallow, retained, dominator] = l.split('\t');
    return { address, class: cls, shallow: Number(shallow), retained: Number(retained), dominator };
  });
}

/** MAT's objects grouped by class: {class: [objects, shallow sum, retained sum]}. */
function groupByClass(objects) {
  const out = {};
  for (const o of objects) {
    const g = (out[o.class] ??= [0, 0, 0]);
    g[0] += 1;
    g[1] += o.shallow;
    g[2] += o.retained;
  }
  return out;
}

/** The page's rows of a grouped table as the same shape. */
async function shownGroups(page, selector) {
  const rows = await page.$$eval(selector, (els) => els.map((r) => [r.dataset.class, Number(r.dataset.objects), Number(r.dataset.shallow), Number(r.dataset.retained)]));
  return Object.fromEntries(rows.map(([c, ...v]) => [c, v]));
}

describe('triage', { skip: CORPUS_MISSING }, () => {
  test('s02: the suspect names the static map and lists what its accumulation point holds, by class', async () => {
    const expected = JSON.parse(fs.readFileSync(path.join(CORPUS, 'expected', 's02_static_map_leak_serial.json'), 'utf8'));
    const matSuspect = expected.leak_suspects.suspects[0];
    const mat = matObjects('s02_static_map_leak_serial');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile(S02)), 'done');
      await showTab(page, 'suspects');
      const s = page.locator('[data-suspect="1"]');
      // MAT's accumulation point, and MAT's objects it immediately dominates, by class.
      assert.equal(await s.locator('[data-accumulation-point]').getAttribute('data-accumulation-point'), matSuspect.accumulation_point.object);
      const groups = await shownGroups(page, '#suspect-1-accumulated tbody tr');
      assert.deepEqual(groups, groupByClass(mat.filter((o) => o.dominator === matSuspect.accumulation_point.object)));
      // The manifest: the leak is the static field CACHE of corpus.S02StaticMapLeak, a HashMap.
      const headline = await s.locator('[data-headline]').textContent();
      assert.match(headline, /^corpus\.S02StaticMapLeak\.CACHE holds [\d,]+ × HashMap\$Node, .* of the heap\); each holds a byte\[\] by value$/);
      // A class-object suspect is described by the class it stands for, not java.lang.Class.
      assert.equal(await s.locator('[data-fact="class"] dd').textContent(), 'corpus.S02StaticMapLeak');
      const loader = s.locator('[data-fact="loader"] .cls');
      assert.match((await loader.getAttribute('title')) ?? (await loader.textContent()), /^jdk\.internal\.loader\.ClassLoaders\$AppClassLoader @ 0x/);
      // Whole, as the program wrote it (never package initials); cut from the left only where
      // its box is too narrow.
      assert.equal(await loader.textContent(), await loader.getAttribute('title'), 'the whole name');
    });
  });

  test('s03: thread suspects are named by their thread', async () => {
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile(S03)), 'done');
      await showTab(page, 'suspects');
      const headlines = await page.$$eval('[data-headline] .held-in', (els) => els.map((e) => e.textContent));
      // The manifest: pool threads leaky-pool-1 and leaky-pool-2 retain the leak.
      assert.ok(headlines.some((t) => t.startsWith('Thread("leaky-pool-1")')), headlines.join(' | '));
      assert.ok(headlines.some((t) => t.startsWith('Thread("leaky-pool-2")')), headlines.join(' | '));
    });
  });

  test('the overview: numbers open their views; the biggest objects are bars that open the inspector', async () => {
    const file = h.corpusFile(S02);
    const cli = cliJson(file);
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      for (const [fact, view] of [['objects', 'histogram'], ['classes', 'histogram'], ['suspects', 'suspects'], ['top-level-dominators', 'dominators'], ['used-heap', 'treemap'], ['class-loaders', 'consumers']]) {
        await showTab(page, 'overview');
        await page.click(`#view-overview [data-fact="${fact}"] a`);
        await page.waitForFunction((v) => !document.getElementById(`view-${v}`).hidden, view);
      }
      await showTab(page, 'overview');
      const bars = await page.$$eval('#biggest-objects li[data-address]', (els) => els.map((e) => [e.dataset.address, Number(e.dataset.retained)]));
      assert.deepEqual(bars, cli.top_dominators.slice(0, 10).map((o) => [o.address, o.retained_bytes]));
      const rest = Number(await page.locator('#biggest-objects li.rest').getAttribute('data-retained'));
      assert.equal(rest + bars.reduce((s, [, r]) => s + r, 0), cli.overview.used_heap_bytes);
      await page.click(`#biggest-objects li[data-address="${bars[0][0]}"] a`);
      await page.waitForSelector(`#inspector-body .details[data-address="${bars[0][0]}"]`);
    });
  });

  test('800 px wide: no horizontal page scroll in any view; the toolbar replaces the import area and asks before replacing', async () => {
    await h.withPage(async ({ page }) => {
      await page.setViewportSize({ width: 800, height: 900 });
      assert.equal(await openFile(page, h.corpusFile(S02)), 'done');
      assert.ok(await page.locator('#import').isHidden(), 'the import area gives way to the toolbar once a dump is open');
      const toolbar = await page.locator('#toolbar').evaluate((e) => e.getBoundingClientRect().height);
      assert.ok(toolbar < 50, `the toolbar is one row (${toolbar}px)`);
      for (const view of ['overview', 'histogram', 'suspects', 'consumers', 'dominators', 'classes', 'treemap', 'inspector', 'path']) {
        await showTab(page, view);
        await page.waitForTimeout(500);
        const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(scroll <= client, `${view}: the page scrolls sideways (${scroll} > ${client})`);
      }
      // Replacing the analysis asks first; keeping it leaves the report.
      await page.click('#open-button');
      await page.waitForSelector('#replace-confirm:not([hidden])');
      await page.click('#replace-no');
      assert.ok(await page.locator('#replace-confirm').isHidden());
      assert.equal(await page.locator('#main').getAttribute('data-mode'), 'done');
    });
  });

  test('the dominator tree grouped by class: MAT\'s sums per class at every level, kept in the URL, a docked inspector', async () => {
    const file = h.corpusFile(S02);
    const cli = cliJson(file);
    const mat = matObjects('s02_static_map_leak_serial');
    // MAT's sums: the page analyzes in MAT's sizes (`?sizes=mat`).
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      await showTab(page, 'dominators');
      // Object mode: a row opens in the dock beside the tree.
      await page.waitForSelector('#dominator-tree tbody tr[data-address]');
      const first = await page.locator('#dominator-tree tbody tr[data-address]').first().getAttribute('data-address');
      await page.locator('#dominator-tree tbody tr[data-address] td.num').first().click();
      await page.waitForSelector(`#tree-dock .dock-title[data-address="${first}"]`);
      assert.ok(await page.locator('#view-dominators').isVisible());
      // Grouped: the top level is MAT's top-level objects by class; counts add up to the CLI's.
      await page.check('#dominators-group');
      await page.waitForSelector('#dominator-groups tr[data-group]');
      const top = mat.filter((o) => o.dominator === 'root');
      assert.equal(top.length, cli.overview.top_level_dominators);
      assert.deepEqual(await shownGroups(page, '#dominator-groups tr[data-depth="0"]'), groupByClass(top));
      // Open the biggest group: its objects' children, by class, one level down.
      const row = page.locator('#dominator-groups tr[data-depth="0"]').first();
      const cls = await row.getAttribute('data-class');
      const key = await row.getAttribute('data-group');
      await row.locator('button.toggle').click();
      await page.waitForSelector('#dominator-groups tr[data-depth="1"]');
      const parents = new Set(top.filter((o) => o.class === cls).map((o) => o.address));
      assert.deepEqual(await shownGroups(page, '#dominator-groups tr[data-depth="1"]'), groupByClass(mat.filter((o) => parents.has(o.dominator))));
      // Selecting a group shows its biggest objects in the dock.
      await row.click();
      await page.waitForSelector(`#tree-dock .dock-title[data-group="${key}"]`);
      // The open groups are in the URL: they survive switching views and a reload.
      assert.match(page.url(), new RegExp(`group=class&open=${key.replace('/', '%2F')}`));
      await showTab(page, 'overview');
      await showTab(page, 'dominators');
      assert.equal(await page.locator('#dominator-groups tr[data-depth="1"]').count() > 0, true);
      await page.reload();
      assert.equal(await openFile(page, file), 'done');
      await page.waitForSelector('#dominator-groups tr[data-depth="1"]');
      assert.equal(await page.locator('#dominators-group').isChecked(), true);
    }, { query: '?sizes=mat' });
  });

  test('the treemap: a chain of single children is one click, the zoom is in the URL and survives a reload', async () => {
    const file = h.corpusFile(S02);
    const mat = matObjects('s02_static_map_leak_serial');
    // MAT: the HashMap CACHE (0xfab19bb0) dominates one object, its table (0xfbda1118).
    const map = '0xfab19bb0';
    const table = mat.filter((o) => o.dominator === map);
    assert.deepEqual(table.map((o) => o.address), ['0xfbda1118']);
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      await page.evaluate(() => { location.hash = '#view=treemap&zoom=0xfab193e0'; });
      await page.waitForFunction(() => document.getElementById('treemap-breadcrumb').dataset.depth === '1');
      await page.waitForSelector(`#treemap-items button[data-address="${map}"]`, { state: 'attached' });
      // Nested: the boxes of the next levels are drawn inside the big ones.
      await page.waitForFunction(() => Number(document.getElementById('treemap-canvas').dataset.nested) > 0);
      await page.locator(`#treemap-items button[data-address="${map}"]`).evaluate((b) => b.click());
      // One click: through the map to its table, where the memory spreads.
      await page.waitForFunction(() => document.getElementById('treemap-breadcrumb').dataset.depth === '3');
      assert.match(page.url(), /zoom=0xfab193e0%2C0xfab19bb0%2C0xfbda1118/);
      await page.reload();
      assert.equal(await openFile(page, file), 'done');
      await page.waitForFunction(() => document.getElementById('treemap-breadcrumb')?.dataset.depth === '3');
      assert.match(await page.locator('#treemap-breadcrumb').textContent(), /HashMap\$Node\[\] @ 0xfbda1118/);
    });
  });
});
