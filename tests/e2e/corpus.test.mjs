// Corpus dumps analyzed in the page give the CLI's numbers, and every view works on them:
// an Android ART dump, gzip'd and plain HotSpot dumps; the exported JSON, Markdown and HTML are
// the CLI's byte for byte; the dominator tree expands, the treemap draws and zooms, the
// inspector and the path read the dump; a saved JSON report opens without its dump.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { cliJson, cliReport } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { HprofWriter } from './helpers/hprof.mjs';
import { downloadText, openFile, overviewFacts, showTab } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();

/** The numbers shown equal the CLI's; the exported JSON and Markdown are the CLI's bytes. */
async function expectCliNumbers(page, file) {
  const cli = cliJson(file);
  const o = cli.overview;
  const facts = await overviewFacts(page);
  const shown = Object.fromEntries(Object.entries(facts).map(([k, v]) => [k, v.value]));
  assert.deepEqual(
    { used: shown['used-heap'], objects: shown.objects, classes: shown.classes, loaders: shown['class-loaders'], roots: shown['gc-roots'], suspects: shown.suspects, unreachable: shown.unreachable, format: shown.format, hprof: shown['hprof-bytes'] },
    { used: String(o.used_heap_bytes), objects: String(o.objects), classes: String(o.classes), loaders: String(o.class_loaders), roots: String(o.gc_roots), suspects: String(cli.leak_suspects.suspects.length), unreachable: String(o.unreachable.objects), format: cli.dump.format, hprof: String(cli.source.hprof_bytes) },
    path.basename(file),
  );
  assert.equal(facts['used-heap'].text.split(' ')[0], o.used_heap_bytes.toLocaleString('en-US'));
  // GC roots by type: heapscope's name beside MAT's, with the counts.
  const roots = await page.$$eval('#gc-roots-by-type tbody tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
  assert.deepEqual(roots, o.gc_roots_by_type.map((t) => [t.name, t.mat_name, t.objects.toLocaleString('en-US')]));
  // Leak suspects: one article per suspect, with its retained bytes and description.
  await showTab(page, 'suspects');
  const suspects = await page.$$eval('#view-suspects [data-suspect]', (els) => els.map((e) => ({ retained: Number(e.dataset.retained), description: e.querySelector('.description').textContent })));
  assert.deepEqual(suspects, cli.leak_suspects.suspects.map((s) => ({ retained: s.retained_bytes, description: s.description })));
  // The histogram's row count is the report's.
  await showTab(page, 'histogram');
  assert.equal(Number(await page.locator('#histogram-count').getAttribute('data-rows')), cli.histogram.length);
  // Exports: the CLI's JSON and Markdown, byte for byte (same file name, so nothing differs).
  const json = await downloadText(page, '#export-json');
  assert.equal(json.name, `${path.basename(file).replace(/(\.hprof)?(\.gz)?$/, '')}.json`);
  assert.ok(json.text === cliReport(file, 'json'), `${path.basename(file)}: the exported JSON differs from heapscope analyze --format json`);
  const md = await downloadText(page, '#export-markdown');
  assert.ok(md.text === cliReport(file, 'md'), `${path.basename(file)}: the exported Markdown differs from heapscope analyze --format md`);
  const html = await downloadText(page, '#export-html');
  assert.equal(html.name, `${path.basename(file).replace(/(\.hprof)?(\.gz)?$/, '')}.html`);
  assert.ok(html.text === cliReport(file, 'html'), `${path.basename(file)}: the exported HTML differs from heapscope analyze --format html`);
  return { cli, json: json.text };
}

/** Pixels of the treemap canvas that are not the blank background. */
async function paintedPixels(page) {
  return page.evaluate(() => {
    const c = document.getElementById('treemap-canvas');
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
    return { painted: n, total: data.length / 4 };
  });
}

describe('corpus dumps in the page equal the CLI', { skip: CORPUS_MISSING }, () => {
  test('Android ART (1.0.3, .gz): numbers, exports, views', async () => {
    const file = h.corpusFile('android/ahat_test_dump_8e3b7d7.hprof.gz');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      const { cli } = await expectCliNumbers(page, file);
      assert.equal(cli.dump.format, 'JAVA PROFILE 1.0.3');
      // Android's own root kinds appear beside MAT's name for them ("Unknown").
      const kinds = await page.$$eval('#gc-roots-by-type tbody tr', (rows) => rows.map((r) => r.dataset.rootType));
      assert.ok(kinds.includes('Interned String'));
      // The dominator tree of an ART dump expands too.
      await showTab(page, 'dominators');
      await page.locator('#dominator-tree tbody tr[data-address]').first().waitFor();
      const row = page.locator('#dominator-tree tbody tr[data-address]:not([data-children="0"])').first();
      await row.locator('button.toggle').click();
      await page.waitForSelector('#dominator-tree tbody tr[data-depth="1"]');
    });
  });

  test('HotSpot .gz (s02, a static map leak): numbers, exports, tree, treemap, inspector, path', async () => {
    const file = h.corpusFile('dumps/s02_static_map_leak_serial.hprof.gz');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      const { cli } = await expectCliNumbers(page, file);

      // Leak suspect: the accumulation point and the chain link to the objects.
      await showTab(page, 'suspects');
      const ap = cli.leak_suspects.suspects[0].accumulation_point.address;
      assert.equal(ap, '0xfbda1118');
      const chain = await page.$$eval('[data-suspect="1"] [data-chain] li[data-address]', (els) => els.map((e) => e.textContent));
      assert.ok(chain.some((t) => t.includes('class corpus.S02StaticMapLeak')), chain.join('\n'));

      // Dominator tree: the top level, expanding, and pages of children.
      await showTab(page, 'dominators');
      const top = page.locator('#dominator-tree tbody tr[data-address]');
      await top.first().waitFor();
      assert.equal(await top.count(), 50, 'a first page of 50 top-level dominators');
      assert.match(await page.locator('#dominator-tree [data-more]').first().textContent(), /Show 50 more \(3,501 left, 3,551 in all\)/);
      assert.equal(await top.first().getAttribute('data-address'), cli.top_dominators[0].address);
      await top.first().locator('button.toggle').click();
      const child = page.locator('#dominator-tree tbody tr[data-depth="1"]').first();
      await child.waitFor();
      assert.equal(await child.getAttribute('data-address'), '0xfab19bb0');
      await child.locator('button.toggle').click();
      await page.waitForSelector('#dominator-tree tbody tr[data-depth="2"][data-address="0xfbda1118"]');
      await page.click('#dominator-tree [data-more]');
      await page.waitForFunction(() => document.querySelectorAll('#dominator-tree tbody tr[data-depth="0"]').length === 100);
      // Collapsing hides the children again.
      await top.first().locator('button.toggle').click();
      assert.equal(await page.locator('#dominator-tree tbody tr[data-depth="1"]').count(), 0);

      // Treemap: draws (non-blank canvas), zooms in on click, back out with the breadcrumb.
      await showTab(page, 'treemap');
      await page.waitForFunction(() => Number(document.getElementById('treemap-canvas').dataset.items) > 0);
      const { painted, total } = await paintedPixels(page);
      assert.ok(painted > total * 0.5, `the treemap is drawn (${painted} of ${total} pixels)`);
      const items = await page.$$eval('#treemap-items button', (bs) => bs.map((b) => ({ kind: b.dataset.kind, address: b.dataset.address, children: Number(b.dataset.children), x: Number(b.dataset.x), y: Number(b.dataset.y), w: Number(b.dataset.w), h: Number(b.dataset.h) })));
      assert.equal(items[0].address, '0xfab193e0', 'the biggest rectangle is the leaking class');
      assert.ok(items.some((i) => i.kind === 'group'), 'the crowd of small top-level objects is grouped by class');
      const box = await page.locator('#treemap-canvas').boundingBox();
      // Click the biggest rectangle (in its label strip, above what is drawn inside it): it zooms in.
      await page.mouse.click(box.x + items[0].x + 8, box.y + items[0].y + 8);
      await page.waitForFunction(() => document.getElementById('treemap-breadcrumb').dataset.depth === '1');
      assert.match(await page.locator('#treemap-breadcrumb').textContent(), /Heap›class corpus\.S02StaticMapLeak @ 0xfab193e0/);
      await page.waitForFunction(() => document.querySelector('#treemap-items button[data-address="0xfab19bb0"]'));
      // The zoom is in the URL fragment too (beside the dominator tree's open rows).
      const fragment = new URLSearchParams(new URL(page.url()).hash.slice(1));
      assert.deepEqual([fragment.get('view'), fragment.get('object'), fragment.get('zoom')], ['treemap', '0xfab193e0', '0xfab193e0']);
      assert.ok((await paintedPixels(page)).painted > 0);
      // Hover shows the object.
      await page.mouse.move(box.x + 100, box.y + 100);
      await page.waitForFunction(() => document.getElementById('treemap-info').dataset.address);
      // Zoom into a group at the top level, then back out with the breadcrumb.
      await page.click('#treemap-breadcrumb button[data-depth="0"]');
      await page.waitForFunction(() => document.getElementById('treemap-breadcrumb').dataset.depth === '0');
      const group = items.find((i) => i.kind === 'group');
      await page.mouse.click(box.x + group.x + group.w / 2, box.y + group.y + group.h / 2);
      await page.waitForFunction(() => document.getElementById('treemap-breadcrumb').dataset.depth === '1');
      assert.match(await page.locator('#treemap-breadcrumb').textContent(), /Heap›[\d,]+ × /);
      await page.waitForFunction(() => document.querySelectorAll('#treemap-items button[data-kind="object"]').length > 0);

      // Inspector: the accumulation point, read back from the dump (selected through the URL).
      await page.evaluate(() => {
        location.hash = '#view=inspector&object=0xfbda1118';
      });
      await page.waitForSelector('#inspector-body .details[data-address="0xfbda1118"]');
      const fact = async (k) => page.locator(`#inspector-facts [data-fact="${k}"]`).getAttribute('data-value');
      assert.equal(await fact('class'), 'java.util.HashMap$Node[]');
      assert.equal(await fact('array-length'), '512');
      assert.equal(await fact('dominator'), '0xfab19bb0');
      assert.equal(await fact('retained'), String(cli.leak_suspects.suspects[0].accumulation_point.retained_bytes));
      // Referrers, on request: only the HashMap whose table it is.
      const referrers = async () => {
        await page.click('#find-referrers');
        await page.waitForSelector('#inspector-referrers [data-total]');
        return {
          total: Number(await page.locator('#inspector-referrers [data-total]').getAttribute('data-total')),
          rows: await page.$$eval('#referrers-table tbody tr', (rows) => rows.map((r) => r.dataset.address)),
        };
      };
      assert.deepEqual(await referrers(), { total: 1, rows: ['0xfab19bb0'] });
      // References are links: follow the dominator to the HashMap and read its fields.
      await page.click('#inspector-facts [data-fact="dominator"] a');
      await page.waitForSelector('#inspector-body .details[data-address="0xfab19bb0"]');
      assert.equal(await page.locator('#inspector-fields tr[data-field="size"]').getAttribute('data-value'), '300');
      assert.equal(await page.locator('#inspector-fields tr[data-field="table"]').getAttribute('data-value'), '0xfbda1118');
      // The HashMap is referenced by the class whose static CACHE it is.
      assert.ok((await referrers()).rows.includes('0xfab193e0'));
      // The class's statics.
      await page.fill('#inspector-address', '0xfab193e0');
      await page.click('#inspector-form button[type="submit"]');
      await page.waitForSelector('#inspector-body .details[data-address="0xfab193e0"]');
      assert.equal(await page.locator('#inspector-fields tr[data-field="CACHE"]').getAttribute('data-value'), '0xfab19bb0');

      // Path from a GC root to the accumulation point, with the field names.
      await page.evaluate(() => {
        location.hash = '#view=path&object=0xfbda1118';
      });
      await page.waitForSelector('#gc-path li[data-address="0xfbda1118"]');
      const steps = await page.$$eval('#gc-path li', (lis) => lis.map((li) => ({ address: li.dataset.address, text: li.textContent, via: li.querySelector('.via')?.dataset.via ?? null })));
      assert.ok(steps[0].text.startsWith('GC root: System Class'), steps[0].text);
      const leak = steps.findIndex((s) => s.text.includes('class corpus.S02StaticMapLeak'));
      assert.ok(leak >= 0, 'the path goes through corpus.S02StaticMapLeak');
      assert.equal(steps[leak].via, 'CACHE');
      assert.equal(steps[leak + 1].via, 'table');
      assert.equal(steps.at(-1).address, '0xfbda1118');
    });
  });

  test('plain .hprof (s01, gunzipped here), then its saved JSON report opened without the dump', async () => {
    const file = h.gunzipTo('dumps/s01_hello_serial_live.hprof.gz');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      const { cli, json } = await expectCliNumbers(page, file);
      assert.equal(cli.source.gzip, false);
      // Save the report, and open it again without the dump.
      const saved = path.join(h.tmp, 's01_report.json');
      fs.writeFileSync(saved, json);
      assert.equal(await openFile(page, saved), 'done');
      assert.ok(await page.locator('#report-only').isVisible());
      const facts = await overviewFacts(page);
      assert.equal(Number(facts.objects.value), cli.overview.objects);
      assert.equal(Number(facts['used-heap'].value), cli.overview.used_heap_bytes);
      await showTab(page, 'suspects');
      assert.equal(await page.locator('#view-suspects [data-suspect]').count(), cli.leak_suspects.suspects.length);
      await showTab(page, 'histogram');
      assert.equal(Number(await page.locator('#histogram-count').getAttribute('data-rows')), cli.histogram.length);
      for (const v of ['dominators', 'treemap', 'inspector', 'path']) {
        await showTab(page, v);
        assert.ok(await page.locator(`#view-${v} [data-needs-dump]`).isVisible(), `${v} says it needs the dump`);
        assert.match(await page.locator(`#view-${v} [data-needs-dump]`).textContent(), /s01_hello_serial_live\.hprof/);
      }
      // Its exports are the same bytes again.
      assert.ok((await downloadText(page, '#export-json')).text === json);
      assert.ok((await downloadText(page, '#export-markdown')).text === cliReport(file, 'md'));
      assert.ok((await downloadText(page, '#export-html')).text === cliReport(file, 'html'));
    });
  });
});

describe('the histogram', () => {
  test('sorts by every column, filters by name, groups by package, and stays virtualized with 20,000 classes', async () => {
    // A dump with 20,000 classes, one instance each (instance sizes differ by class).
    const file = path.join(h.tmp, 'many_classes.hprof');
    const w = new HprofWriter({ idSize: 8 });
    w.defineClass(0x100, 'java/lang/Object');
    w.defineClass(0x110, 'java/lang/Class', { superId: 0x100 });
    const N = 20_000;
    for (let i = 0; i < N; i++) {
      const cls = 0x100000 + i * 0x100;
      const fields = Array.from({ length: i % 7 }, (_, k) => ({ name: `f${k}`, type: 11 }));
      w.defineClass(cls, `gen/p${i % 13}/Class${String(i).padStart(5, '0')}`, { superId: 0x100, fields });
      w.instance(0x10000000 + i * 0x100, cls, fields.map(() => ({ type: 11, value: i })));
    }
    const held = Array.from({ length: N }, (_, i) => 0x10000000 + i * 0x100);
    w.defineClass(0x120, '[Ljava/lang/Object;', { superId: 0x100 });
    w.objectArray(0x200, 0x120, held);
    w.rootUnknown(0x200);
    fs.writeFileSync(file, w.finish());
    const cli = cliJson(file);
    assert.ok(cli.histogram.length > N);
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      await showTab(page, 'histogram');
      const count = async () => Number(await page.locator('#histogram-count').getAttribute('data-rows'));
      assert.equal(await count(), cli.histogram.length);
      const rows = page.locator('#histogram-body .vrow:not([hidden])');
      assert.ok((await rows.count()) < 100, `only the rows in view exist (${await rows.count()})`);
      const cell = (i, col) => page.locator(`#histogram-body .vrow[data-index="${i}"] .vcell`).nth(col).evaluate((c) => c.dataset.full ?? c.textContent);
      assert.equal(await cell(0, 0), cli.histogram[0].class_name);
      // Sort by each column, both ways.
      const columns = [['class_name', 0], ['loader', 1], ['instances', 2], ['shallow_bytes', 3], ['retained_bytes_min', 4]];
      for (const [key, col] of columns) {
        await page.click(`#histogram-table button[data-sort="${key}"]`);
        const dir = await page.locator(`#histogram-table [role="columnheader"]:has(> button[data-sort="${key}"])`).getAttribute('aria-sort');
        const values = cli.histogram.map((r) => r[key]);
        const sorted = typeof values[0] === 'number'
          ? values.sort((a, b) => (dir === 'descending' ? b - a : a - b))
          : values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0) * (dir === 'descending' ? -1 : 1));
        const expect = typeof sorted[0] === 'number' ? sorted[0].toLocaleString('en-US') : sorted[0];
        assert.equal(await cell(0, col), expect, `sorted by ${key} (${dir})`);
        await page.click(`#histogram-table button[data-sort="${key}"]`);
        assert.notEqual(await page.locator(`#histogram-table [role="columnheader"]:has(> button[data-sort="${key}"])`).getAttribute('aria-sort'), dir);
      }
      // Scrolling to the end shows the last rows, still few in the DOM; it keeps up.
      const t0 = Date.now();
      await page.$eval('#histogram-body', (b) => (b.scrollTop = b.scrollHeight));
      await page.waitForSelector(`#histogram-body .vrow[data-index="${cli.histogram.length - 1}"]:not([hidden])`);
      assert.ok(Date.now() - t0 < 3000, 'scrolling to the end is quick');
      assert.ok((await rows.count()) < 100);
      // Filter by name.
      await page.fill('#histogram-filter', 'class1234');
      await page.waitForFunction(() => Number(document.getElementById('histogram-count').dataset.rows) < 100);
      const matching = cli.histogram.filter((r) => r.class_name.toLowerCase().includes('class1234'));
      assert.equal(await count(), matching.length);
      // Selecting a class lists its objects (a query on the dump).
      await page.click('#histogram-body .vrow[data-index="0"]');
      await page.waitForSelector('#histogram-instances a.obj');

      // Grouped by package: one row per package with the sums of its classes' rows.
      await page.fill('#histogram-filter', '');
      await page.selectOption('#histogram-group', 'package');
      const packageOf = (name) => {
        const base = name.replace(/(\[\])+$/, '');
        return base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : '<default package>';
      };
      const packages = new Map();
      for (const r of cli.histogram) {
        const p = packages.get(packageOf(r.class_name)) ?? { classes: 0, instances: 0 };
        p.classes += 1;
        p.instances += r.instances;
        packages.set(packageOf(r.class_name), p);
      }
      await page.waitForFunction((n) => document.getElementById('histogram-count').dataset.rows === String(n), packages.size);
      assert.equal(await page.locator('#histogram-table button[data-sort="classes"]').textContent(), 'Classes');
      const shown = await page.$$eval('#histogram-body .vrow:not([hidden])', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
      assert.equal(shown.length, packages.size);
      for (const [name, classes, instances] of shown) {
        const p = packages.get(name);
        assert.ok(p, `package ${name} is one of the report's`);
        assert.deepEqual([classes, instances], [p.classes.toLocaleString('en-US'), p.instances.toLocaleString('en-US')], name);
      }
      // Selecting a package lists its classes; the chip goes back to all of them.
      await page.click('#histogram-body .vrow[data-group="gen.p7"]');
      await page.waitForFunction((n) => document.getElementById('histogram-count').dataset.rows === String(n), packages.get('gen.p7').classes);
      assert.match(await page.locator('#histogram-scope').textContent(), /Package: gen\.p7/);
      assert.equal(await cell(0, 1), cli.histogram[0].loader);
      await page.click('#histogram-scope');
      assert.equal(await count(), cli.histogram.length);
      assert.ok(await page.locator('#histogram-scope').isHidden());
    });
  });
});
