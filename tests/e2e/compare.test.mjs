// "Compare with a baseline…": the page compares the open dump with a baseline dump (analyzed
// in a worker of its own) or a saved report, and shows and exports what the CLI's
// `heapscope compare BASELINE CURRENT` writes for the same files — the CLI is run here and
// its output is the expected value. Pairs from the corpus (../shared/corpus/MANIFEST.md):
// ahat's baseline run and the dump after it (Android, 4-byte ids), and s04's `live` and
// `all` dumps (HotSpot). Mismatched pairs give the CLI's error, in its words.
//
//   cargo build --release && npm run build && node --test tests/e2e/compare.test.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { CLI, cliReport } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { HprofWriter } from './helpers/hprof.mjs';
import { downloadText, openFile, showTab } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();
const AHAT_BASE = 'android/ahat_test_dump_base_8e3b7d7.hprof.gz';
const AHAT = 'android/ahat_test_dump_8e3b7d7.hprof.gz';
const S04_LIVE = 'dumps/s04_references_serial_live.hprof.gz';
const S04_ALL = 'dumps/s04_references_serial_all.hprof.gz';

/** `heapscope compare BASELINE CURRENT ARGS…`: {status, stdout, stderr}. */
function cliCompare(baseline, current, ...args) {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} not found: build it first (cargo build --release)`);
  const r = spawnSync(CLI, ['compare', baseline, current, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function cliCompareOk(baseline, current, ...args) {
  const r = cliCompare(baseline, current, ...args);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** Chooses `file` as the baseline in the comparison view and waits for the outcome. */
async function chooseBaseline(page, file) {
  await showTab(page, 'compare');
  await page.evaluate(() => {
    document.querySelector('#view-compare .compare').dataset.state = 'idle';
  });
  await page.setInputFiles('#compare-input', file);
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#view-compare .compare').dataset.state), null, { timeout: 120_000 });
  return page.evaluate(() => document.querySelector('#view-compare .compare').dataset.state);
}

/** The class rows drawn in the table (the first screenfuls; the table is virtualized). */
async function shownRows(page) {
  return page.$$eval('#compare-body .vrow:not([hidden])', (rows) =>
    rows
      .map((r) => ({ index: Number(r.dataset.index), cells: [...r.children].map((c) => c.dataset.value), class_name: r.dataset.class, loader: r.dataset.loader, status: r.dataset.status }))
      .sort((a, b) => a.index - b.index),
  );
}

/** What a CLI class row looks like in the table's cells (see COLUMNS in web/src/views/compare.ts). */
function expectedCells(c) {
  return [c.class_name, c.loader, c.status === 'both' ? '' : c.status, c.delta.instances, c.delta.shallow_bytes, c.delta.retained_bytes_min, c.current.instances, c.current.shallow_bytes, c.current.retained_bytes_min].map(String);
}

/** Filters the table by `c`'s name and checks its row (new and gone ones marked as such). */
async function expectFiltered(page, c) {
  await page.fill('#compare-filter', c.class_name);
  await page.waitForFunction((name) => [...document.querySelectorAll('#compare-body .vrow:not([hidden])')].every((r) => r.dataset.class.toLowerCase().includes(name.toLowerCase())), c.class_name);
  const found = (await shownRows(page)).find((r) => r.class_name === c.class_name && r.loader === c.loader);
  assert.deepEqual(found?.cells, expectedCells(c), `${c.status} class ${c.class_name}`);
  assert.equal(found.status, c.status);
}

/** Waits until the worker holding the dump and the spare one for the next file are up. */
async function workersUp(page) {
  for (let i = 0; i < 50 && page.workers().length < 2; i++) await page.waitForTimeout(100);
  assert.equal(page.workers().length, 2);
}

/** The workers started from now on, each `{closed}` (set when it is terminated). */
function newWorkers(page) {
  const started = [];
  page.on('worker', (w) => {
    const e = { closed: false };
    w.on('close', () => (e.closed = true));
    started.push(e);
  });
  return started;
}

/** Waits (a little) until every worker of `started` is terminated. */
async function allClosed(page, started) {
  for (let i = 0; i < 50 && !started.every((e) => e.closed); i++) await page.waitForTimeout(100);
  return started.length > 0 && started.every((e) => e.closed);
}

describe('comparing with a baseline', { skip: CORPUS_MISSING && !process.env.CI }, () => {
  test('ahat: a baseline dump in its own worker; view, links, sort and exports as the CLI', async () => {
    const base = h.corpusFile(AHAT_BASE);
    const cur = h.corpusFile(AHAT);
    const cli = JSON.parse(cliCompareOk(base, cur, '--format', 'json'));
    // By construction (MANIFEST.md): bigArray grew from byte[400,000] to byte[1,000,000].
    assert.ok(cli.leaders.some((l) => l.class_name === 'byte[]' && l.status === 'grown'), 'byte[] leads the growth');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, cur), 'done');
      await workersUp(page);
      const started = newWorkers(page);
      // The button in the results' head opens the view (and the file picker).
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#compare-button')]);
      assert.ok(!(await page.locator('#view-compare').isHidden()));
      await chooser.setFiles(base);
      await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#view-compare .compare').dataset.state), null, { timeout: 120_000 });
      assert.equal(await page.evaluate(() => document.querySelector('#view-compare .compare').dataset.state), 'done', await page.locator('#compare-error').textContent());
      // The baseline was analyzed in a worker of its own, terminated once its report was out.
      assert.ok(await allClosed(page, started), 'the baseline worker was terminated');
      assert.equal(started.length, 1, 'one worker for the baseline');

      // Totals: every delta the CLI's.
      const totals = await page.$$eval('#compare-totals tbody tr', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.total, Number(r.dataset.delta)])));
      assert.equal(totals.objects, cli.totals.delta.objects);
      assert.equal(totals.used_heap_bytes, cli.totals.delta.used_heap_bytes);
      assert.equal(totals.classes, cli.totals.delta.classes);
      assert.equal(totals.gc_roots, cli.totals.delta.gc_roots);
      for (const r of cli.totals.delta.gc_roots_by_type) assert.equal(totals[`gc_roots.${r.name}`], r.objects, r.name);
      // Growth leaders and suspects: the CLI's, in its order, with its status.
      const leaders = await page.$$eval('#compare-leaders tbody tr', (rows) => rows.map((r) => ({ class_name: r.dataset.class, status: r.dataset.status, delta: Number(r.dataset.delta), text: r.children[1].textContent, elements: r.lastElementChild.textContent })));
      assert.deepEqual(leaders.map(({ class_name, status, delta }) => ({ class_name, status, delta })), cli.leaders.map((l) => ({ class_name: l.class_name, status: l.status, delta: l.delta_retained_bytes })));
      for (const [i, l] of cli.leaders.entries()) {
        if (l.status === 'new') assert.equal(leaders[i].text, 'new');
        if (l.status === 'grown') assert.match(leaders[i].text, new RegExp(`^grown by ${l.delta_retained_bytes.toLocaleString('en-US')} bytes`));
        const b = l.baseline?.accumulation_point_elements;
        const n = l.current?.accumulation_point_elements;
        if (b != null && n != null) assert.match(leaders[i].elements, new RegExp(`: ${b.toLocaleString('en-US')} → ${n.toLocaleString('en-US')}$`));
      }
      // Each leader with the reference path from a GC root the CLI prints (`class Main .a →
      // DumpedStuff .v → byte[]`), named once (no value beside its link), never a bare
      // "entries" without a count.
      const paths = await page.$$eval('#compare-leaders tbody tr', (rows) => rows.map((r) => r.querySelector('[data-reference-path]')?.textContent ?? null));
      for (const [i, l] of cli.leaders.entries()) {
        const want = (l.reference_path?.length ?? 0) > 1 ? l.reference_path.map((p) => `${p.class_name}${p.via.length ? ` .${p.via.join('/')}` : ''}`).join(' → ') : null;
        assert.equal(paths[i], want, l.class_name);
      }
      assert.ok(paths.some((p) => p !== null), 'a leader has its path');
      // The growth leader is the first thing seen: its row within the first screenful.
      const leaderTop = await page.locator('#compare-leaders tbody tr').first().evaluate((r) => r.getBoundingClientRect().top + window.scrollY);
      assert.ok(leaderTop < 600, `the first growth leader starts at ${leaderTop} px`);
      assert.equal(await page.locator('#compare-leaders .val').count(), 0);
      assert.ok(leaders.every((l) => l.elements !== 'entries'), JSON.stringify(leaders));
      const suspects = await page.$$eval('#compare-suspects tbody tr', (rows) => rows.map((r) => [r.dataset.class, r.dataset.status]));
      assert.deepEqual(suspects, cli.suspects.map((s) => [s.class_name, s.status]));

      // Classes: all of them, in the CLI's order (retained change, descending).
      assert.equal(Number(await page.locator('#compare-count').getAttribute('data-rows')), cli.classes.length);
      assert.equal(cli.classes.length, cli.classes_total);
      const rows = await shownRows(page);
      assert.ok(rows.length >= 10, `rows drawn: ${rows.length}`);
      assert.deepEqual(rows.map((r) => r.cells), cli.classes.slice(0, rows.length).map(expectedCells));
      // A class found with the filter.
      await expectFiltered(page, cli.classes.find((c) => c.status === 'both' && c.delta.instances < 0) ?? cli.classes[cli.classes.length - 1]);
      await page.fill('#compare-filter', '');
      await page.waitForFunction((n) => Number(document.getElementById('compare-count').dataset.rows) === n, cli.classes.length);

      // Exports: the CLI's bytes (default sort).
      for (const format of ['json', 'md', 'html']) {
        const got = await downloadText(page, `#compare-export-${format}`);
        assert.equal(got.text, cliCompareOk(base, cur, '--format', format), `export ${format}`);
      }
      // Sorting by the shallow change: in the fragment, and the exports follow (--sort shallow).
      await page.click('#compare-table .sort[data-sort="delta.shallow_bytes"]');
      await page.waitForFunction(() => location.hash.includes('sort=delta.shallow_bytes'));
      assert.equal(await page.locator('#compare-table [role="columnheader"]:has(.sort[data-sort="delta.shallow_bytes"])').getAttribute('aria-sort'), 'descending');
      const bySallow = JSON.parse(cliCompareOk(base, cur, '--format', 'json', '--sort', 'shallow'));
      const sortedRows = await shownRows(page);
      assert.deepEqual(sortedRows.map((r) => r.cells[4]), bySallow.classes.slice(0, sortedRows.length).map((c) => String(c.delta.shallow_bytes)));
      assert.equal((await downloadText(page, '#compare-export-json')).text, cliCompareOk(base, cur, '--format', 'json', '--sort', 'shallow'));
      assert.match(await page.locator('#compare-cli').textContent(), /^heapscope compare ahat_test_dump_base_8e3b7d7\.hprof\.gz ahat_test_dump_8e3b7d7\.hprof\.gz --sort shallow --format json$/);

      // A class row links into the current dump's histogram, with its objects listed.
      const grown = cli.classes.find((c) => c.status === 'both' && c.delta.instances > 0);
      await expectFiltered(page, grown);
      const row = page.locator(`#compare-body .vrow[data-class="${grown.class_name}"]`).first();
      await row.click();
      assert.equal(await page.locator('#compare-class-numbers tbody tr').first().locator('td').nth(2).textContent(), `+${grown.delta.instances.toLocaleString('en-US')}`);
      await page.click('#compare-to-histogram');
      await page.waitForFunction(() => !document.getElementById('view-histogram').hidden);
      assert.equal(await page.inputValue('#histogram-filter'), grown.class_name);
      await page.waitForSelector('#histogram-instances h3');
      // The heading names the class (a merge-paths link may follow it).
      const heading = await page.locator('#histogram-instances h3').textContent();
      assert.ok(heading === `Objects of ${grown.class_name}` || heading.startsWith(`Objects of ${grown.class_name} · `), heading);

      // A reload keeps the view and the sort; the baseline (a file) is asked for again.
      await page.goBack();
      await page.waitForFunction(() => location.hash.includes('view=compare'));
      await page.reload();
      await page.waitForSelector('#main[data-mode="idle"]');
      assert.equal(await openFile(page, cur), 'done');
      assert.ok(!(await page.locator('#view-compare').isHidden()), 'the comparison view is shown again');
      assert.ok(await page.locator('#compare-intro').isVisible());
      assert.match(await page.locator('#compare-intro').textContent(), /after a reload .* choose the baseline again/);
      assert.equal(await chooseBaseline(page, base), 'done');
      assert.equal(await page.locator('#compare-table [role="columnheader"]:has(.sort[data-sort="delta.shallow_bytes"])').getAttribute('aria-sort'), 'descending');
    });
  });

  test('s04: a saved JSON report as the baseline gives what the dump gives', async () => {
    const baseDump = h.corpusFile(S04_LIVE);
    const cur = h.corpusFile(S04_ALL);
    const saved = path.join(h.tmp, 's04_live_report.json');
    fs.writeFileSync(saved, cliReport(baseDump, 'json'));
    const expected = cliCompareOk(saved, cur, '--format', 'json');
    // The CLI itself: a saved report and its dump give the same comparison.
    assert.equal(expected, cliCompareOk(baseDump, cur, '--format', 'json'));
    const cli = JSON.parse(expected);
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, cur), 'done');
      assert.equal(await chooseBaseline(page, saved), 'done', await page.locator('#compare-error').textContent());
      const rows = await shownRows(page);
      assert.deepEqual(rows.map((r) => r.cells), cli.classes.slice(0, rows.length).map(expectedCells));
      assert.equal((await downloadText(page, '#compare-export-json')).text, expected);
      assert.equal((await downloadText(page, '#compare-export-md')).text, cliCompareOk(saved, cur, '--format', 'md'));
      // A lambda class, whose name carries a per-run address in each dump, is one row on
      // both sides (nothing in this pair is new or gone), as in the CLI.
      assert.deepEqual(cli.classes.filter((c) => c.status !== 'both'), []);
      const lambda = cli.classes.find((c) => c.class_name.includes('$$Lambda'));
      assert.ok(lambda, 'a lambda class in the s04 pair');
      await expectFiltered(page, lambda);
      // The current side a saved report too (opened without its dump): the same comparison.
      const savedCurrent = path.join(h.tmp, 's04_all_report.json');
      fs.writeFileSync(savedCurrent, cliReport(cur, 'json'));
      assert.equal(await openFile(page, savedCurrent), 'done');
      assert.equal(await chooseBaseline(page, baseDump), 'done', await page.locator('#compare-error').textContent());
      assert.equal((await downloadText(page, '#compare-export-json')).text, cliCompareOk(baseDump, savedCurrent, '--format', 'json'));
      assert.equal(cliCompareOk(baseDump, savedCurrent, '--format', 'json'), expected);
    });
  });

  test('s04 with "release this dump\'s memory": the current dump\'s worker is gone before the baseline is read', async () => {
    const base = h.corpusFile(S04_LIVE);
    const cur = h.corpusFile(S04_ALL);
    const expected = cliCompareOk(base, cur, '--format', 'json');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, cur), 'done');
      await workersUp(page);
      const before = page.workers();
      const closed = new Set();
      for (const w of before) w.on('close', () => closed.add(w));
      const closedAtFirstNew = [];
      page.on('worker', () => closedAtFirstNew.push(closed.size));
      await showTab(page, 'compare');
      await page.check('#compare-release');
      assert.equal(await chooseBaseline(page, base), 'done', await page.locator('#compare-error').textContent());
      assert.ok(closedAtFirstNew.length >= 1, 'the baseline got a worker');
      assert.equal(closedAtFirstNew[0], 1, 'the worker holding the dump was terminated before any other was started');
      assert.ok(await page.locator('#dump-lost').isVisible());
      assert.match(await page.locator('#dump-lost').textContent(), /memory was released/);
      assert.equal((await downloadText(page, '#compare-export-json')).text, expected);
      // The views that read the dump now say it is needed.
      await showTab(page, 'dominators');
      await page.waitForSelector('#view-dominators .query-error, #view-dominators [data-needs-dump]');
    });
  });

  test('a baseline being analyzed shows its progress and Cancel stops its worker at once', async () => {
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, h.corpusFile('dumps/s01_hello_serial_live.hprof.gz')), 'done');
      await workersUp(page);
      const started = newWorkers(page);
      await showTab(page, 'compare');
      // A million-object dump: long enough to be seen running.
      await page.setInputFiles('#compare-input', h.corpusFile('dumps/s06_linked_list_1m_serial.hprof.gz'));
      await page.waitForSelector('#compare-progress-bar', { timeout: 60_000 });
      assert.match(await page.locator('#compare-progress').textContent(), /Analyzing the baseline: s06_linked_list_1m_serial\.hprof\.gz — .*read/);
      await page.click('#compare-cancel');
      await page.waitForSelector('#view-compare .compare[data-state="idle"]');
      assert.ok(await page.locator('#compare-progress').isHidden());
      assert.ok(await allClosed(page, started), 'the baseline worker was terminated');
      assert.ok(await page.locator('#compare-intro').isVisible(), 'ready for another baseline');
    });
  });

  test('ahat with its mapping: the baseline dump is deobfuscated with the current dump\'s mapping', async () => {
    const base = h.corpusFile(AHAT_BASE);
    const cur = h.corpusFile(AHAT);
    const map = h.corpusFile('android/ahat_test_dump_8e3b7d7.map');
    // The CLI: both sides analyzed with the mapping, saved, then compared.
    const saved = [base, cur].map((dump) => {
      const out = path.join(h.tmp, `${path.basename(dump)}.mapped.json`);
      const r = spawnSync(CLI, ['analyze', dump, '--mapping', map, '--format', 'json', '-o', out], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return out;
    });
    const expected = cliCompareOk(saved[0], saved[1], '--format', 'json');
    // By the mapping file: the obfuscated class `o` is DumpedStuff$StackSmasher.
    assert.ok(JSON.parse(expected).classes.some((c) => c.class_name === 'DumpedStuff$StackSmasher'), 'deobfuscated names');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, [cur, map]), 'done');
      await showTab(page, 'compare');
      assert.match(await page.locator('#compare-mapping').textContent(), /ahat_test_dump_8e3b7d7\.map/);
      assert.equal(await chooseBaseline(page, base), 'done', await page.locator('#compare-error').textContent());
      assert.equal((await downloadText(page, '#compare-export-json')).text, expected);
      await page.fill('#compare-filter', 'StackSmasher');
      await page.waitForFunction(() => Number(document.getElementById('compare-count').dataset.rows) >= 1);
    });
  });

  test('a mismatched pair and a report of another schema version: the CLI\'s error', async () => {
    const hotspot = h.corpusFile(S04_LIVE);
    const android = h.corpusFile(AHAT_BASE);
    const mismatch = cliCompare(android, hotspot, '--format', 'json');
    assert.equal(mismatch.status, 1);
    const old = path.join(h.tmp, 'old_schema.json');
    const report = JSON.parse(cliReport(hotspot, 'json'));
    fs.writeFileSync(old, JSON.stringify({ ...report, schema_version: report.schema_version + 7 }));
    const schema = cliCompare(old, hotspot, '--format', 'json');
    assert.equal(schema.status, 1);
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, hotspot), 'done');
      assert.equal(await chooseBaseline(page, android), 'error');
      // The CLI writes "heapscope: MESSAGE"; the page shows the message.
      assert.equal(await page.locator('#compare-error-message').textContent(), mismatch.stderr.trim().replace(/^heapscope: /, ''));
      assert.match(mismatch.stderr, /same kind of VM/);
      assert.equal(await chooseBaseline(page, old), 'error');
      // The CLI names the file as it was given (a path); the page by its name.
      assert.equal(await page.locator('#compare-error-message').textContent(), schema.stderr.trim().replace(/^heapscope: /, '').replace(old, 'old_schema.json'));
      assert.match(schema.stderr, /schema version/);
      // The current dump is still open and can be compared with a good baseline; a lambda
      // class is paired across the two dumps.
      const good = JSON.parse(cliCompareOk(h.corpusFile(S04_ALL), hotspot, '--format', 'json'));
      assert.equal(await chooseBaseline(page, h.corpusFile(S04_ALL)), 'done');
      assert.ok(await page.locator('#compare-error').isHidden(), 'the error is gone');
      assert.deepEqual(good.classes.filter((c) => c.status !== 'both'), []);
      await expectFiltered(page, good.classes.find((c) => c.class_name.includes('$$Lambda')));
    });
  });
});

/**
 * One of a pair of made-up dumps with 20,000 classes: classes `first` … `first + N - 1`
 * (names by number, so the two sides share all but `first` of them), each with 1 + (k % mod)
 * instances; plus two loaders of one class, both defining `gen.Shared` (two rows), with
 * `shared` instances of the first loader's.
 */
function manyClasses(file, first, mod, shared) {
  const N = 20_000;
  const w = new HprofWriter({ idSize: 8 });
  w.defineClass(0x100, 'java/lang/Object');
  w.defineClass(0x110, 'java/lang/Class', { superId: 0x100 });
  w.defineClass(0x120, '[Ljava/lang/Object;', { superId: 0x100 });
  w.defineClass(0x130, 'gen/PluginLoader', { superId: 0x100 });
  const held = [];
  for (const loader of [0x300, 0x310]) {
    w.instance(loader, 0x130, []);
    held.push(loader);
  }
  w.defineClass(0x400, 'gen/AOnly', { superId: 0x100, loaderId: 0x300 });
  w.defineClass(0x410, 'gen/Shared', { superId: 0x100, loaderId: 0x300 });
  w.defineClass(0x420, 'gen/Shared', { superId: 0x100, loaderId: 0x310 });
  let next = 0x10000000;
  const add = (cls, fields) => {
    w.instance(next, cls, fields.map(() => ({ type: 11, value: 7 })));
    held.push(next);
    next += 0x100;
  };
  for (let i = 0; i < shared; i++) add(0x410, []);
  add(0x420, []);
  for (let i = 0; i < N; i++) {
    const k = first + i;
    const cls = 0x100000 + k * 0x100;
    const fields = Array.from({ length: k % 5 }, (_, j) => ({ name: `f${j}`, type: 11 }));
    w.defineClass(cls, `gen/p${k % 13}/Class${String(k).padStart(5, '0')}`, { superId: 0x100, fields });
    for (let j = 0; j <= k % mod; j++) add(cls, fields);
  }
  w.objectArray(0x200, 0x120, held);
  w.rootUnknown(0x200);
  fs.writeFileSync(file, w.finish());
}

test('20,000 classes: every column sorts both ways as the CLI\'s rows say, the table stays virtualized, one name in two loaders is two rows', async () => {
  const base = path.join(h.tmp, 'many_base.hprof');
  const cur = path.join(h.tmp, 'many_current.hprof');
  manyClasses(base, 0, 3, 1);
  manyClasses(cur, 500, 4, 3);
  const cli = JSON.parse(cliCompareOk(base, cur, '--format', 'json'));
  const statuses = new Set(cli.classes.map((c) => c.status));
  assert.deepEqual([...statuses].sort(), ['both', 'gone', 'new'], 'the pair has new, gone and common classes');
  await h.withPage(async ({ page }) => {
    assert.equal(await openFile(page, cur), 'done');
    assert.equal(await chooseBaseline(page, base), 'done', await page.locator('#compare-error').textContent());
    assert.equal(Number(await page.locator('#compare-count').getAttribute('data-rows')), cli.classes.length);
    assert.ok(cli.classes.length > 20_000);
    const drawn = page.locator('#compare-body .vrow:not([hidden])');
    assert.ok((await drawn.count()) < 100, `only the rows in view exist (${await drawn.count()})`);
    // Each column, both ways: the first rows are the CLI's rows in that order (ties: the CLI's order).
    const columns = ['class_name', 'loader', 'status', 'delta.instances', 'delta.shallow_bytes', 'delta.retained_bytes_min', 'current.instances', 'current.shallow_bytes', 'current.retained_bytes_min'];
    const value = (c, key) => (key === 'status' ? (c.status === 'both' ? '' : c.status) : key.split('.').reduce((o, k) => o[k], c));
    for (const key of columns) {
      for (let click = 0; click < 2; click++) {
        await page.click(`#compare-table .sort[data-sort="${key}"]`);
        const dir = await page.locator(`#compare-table [role="columnheader"]:has(> .sort[data-sort="${key}"])`).getAttribute('aria-sort');
        const sign = dir === 'descending' ? -1 : 1;
        const expected = cli.classes.slice().sort((a, b) => {
          const x = value(a, key);
          const y = value(b, key);
          return (typeof x === 'number' ? x - y : x < y ? -1 : x > y ? 1 : 0) * sign;
        });
        await page.waitForFunction(([k, d]) => document.querySelector(`#compare-table [role="columnheader"]:has(> .sort[data-sort="${k}"])`).getAttribute('aria-sort') === d, [key, dir]);
        const rows = await shownRows(page);
        assert.deepEqual(rows.slice(0, 5).map((r) => r.cells), expected.slice(0, 5).map(expectedCells), `sorted by ${key} (${dir})`);
      }
    }
    // The fragment keeps the last sort.
    assert.match(await page.evaluate(() => location.hash), /sort=current\.retained_bytes_min/);
    // Scrolling to the end draws the last rows, still few in the DOM.
    await page.$eval('#compare-body', (b) => (b.scrollTop = b.scrollHeight));
    await page.waitForSelector(`#compare-body .vrow[data-index="${cli.classes.length - 1}"]:not([hidden])`);
    assert.ok((await drawn.count()) < 100);
    // gen.Shared in its two loaders: two rows, each the CLI's.
    const shared = cli.classes.filter((c) => c.class_name === 'gen.Shared');
    assert.equal(shared.length, 2);
    assert.notEqual(shared[0].loader, shared[1].loader);
    await page.fill('#compare-filter', 'gen.Shared');
    await page.waitForFunction(() => document.getElementById('compare-count').dataset.rows === '2');
    const rows = await shownRows(page);
    for (const c of shared) assert.deepEqual(rows.find((r) => r.loader === c.loader)?.cells, expectedCells(c), c.loader);
    // Only the classes that changed.
    await page.fill('#compare-filter', '');
    await page.check('#compare-changed');
    await page.waitForFunction((n) => document.getElementById('compare-count').dataset.rows === String(n), cli.classes_changed);
  });
});
