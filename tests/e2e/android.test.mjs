// Android in the page: the corpus's R8-obfuscated ahat dump deobfuscated with its mapping
// file, dropped with the dump or applied after from the results' control. Names are checked
// against the mapping file itself (read here) and the export against the CLI's --mapping.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { CLI } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { downloadText, resetRecording, showTab, waitForOutcome } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();
const DUMP = 'android/ahat_test_dump_8e3b7d7.hprof.gz';
const MAP = 'android/ahat_test_dump_8e3b7d7.map';
const SHOTS = process.env.HEAPSCOPE_SCREENSHOTS;

/** obfuscated class name → original, from the mapping's unindented `original -> obf:` lines. */
function classMap(file) {
  const out = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (/^[^\s#]/.test(line)) {
      const [orig, obf] = line.replace(/:$/, '').split(' -> ');
      out.set(obf, orig);
    }
  }
  return out;
}

/** The histogram rows left by a name filter: their class-name cells. */
async function filteredNames(page, text) {
  await showTab(page, 'histogram');
  await page.fill('#histogram-filter', text);
  // The filter applies after typing settles: wait until the rows show it.
  await page.waitForFunction((f) => document.getElementById('histogram-count')?.dataset.filter === f, text.trim().toLowerCase());
  return page.$$eval('#histogram-body .vrow:not([hidden])', (rows) => rows.map((r) => r.querySelector('.vcell').dataset.full ?? r.querySelector('.vcell').textContent));
}

describe('Android', { skip: CORPUS_MISSING }, () => {
  test('a mapping dropped with the ahat dump deobfuscates the histogram, the inspector and the export', async () => {
    const dump = h.corpusFile(DUMP);
    const map = h.corpusFile(MAP);
    const names = classMap(map);
    assert.equal(names.get('o'), 'DumpedStuff$StackSmasher', 'the manifest: class o is StackSmasher');
    await h.withPage(async ({ page }) => {
      await resetRecording(page);
      await page.setInputFiles('#file-input', [dump, map]);
      assert.equal(await waitForOutcome(page), 'done');
      assert.match(await page.locator('#run-facts').textContent(), /deobfuscated with ahat_test_dump_8e3b7d7\.map/);
      assert.deepEqual(await filteredNames(page, 'StackSmasher'), [names.get('o')]);
      assert.deepEqual((await filteredNames(page, 'ObjectTree')).sort(), [names.get('l'), `${names.get('l')}[]`].sort());
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'mapping-histogram.png') });
      // The export is the CLI's with --mapping, byte for byte.
      const cli = execFileSync(CLI, ['analyze', dump, '--format', 'json', '--mapping', map], { encoding: 'utf8', maxBuffer: 64 << 20 });
      const json = await downloadText(page, '#export-json');
      assert.ok(json.text === cli, 'the exported JSON differs from heapscope analyze --format json --mapping');
      const report = JSON.parse(json.text);
      for (const row of report.histogram) {
        const base = row.class_name.replace(/(\[\])+$/, '');
        assert.ok(!names.has(base) || names.get(base) === base, `obfuscated ${row.class_name} left in the histogram`);
      }
      // The inspector shows DumpedStuff's fields by their original names (`d` is basicString).
      const stuff = report.leak_suspects.suspects.map((s) => s.accumulation_point).find((p) => p?.class_name === 'DumpedStuff');
      await page.evaluate((a) => (location.hash = `#view=inspector&object=${a}`), stuff.address);
      await page.waitForSelector(`#inspector-body .details[data-address="${stuff.address}"]`);
      await page.waitForSelector('[data-field="basicString"]');
      assert.equal(await page.locator('[data-field="d"]').count(), 0);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'mapping-inspector.png'), fullPage: true });
    });
  });

  test('a mapping chosen after the dump is analyzed renames the classes in place', async () => {
    const dump = h.corpusFile(DUMP);
    const map = h.corpusFile(MAP);
    const names = classMap(map);
    await h.withPage(async ({ page }) => {
      await resetRecording(page);
      await page.setInputFiles('#file-input', dump);
      assert.equal(await waitForOutcome(page), 'done');
      assert.deepEqual(await filteredNames(page, 'StackSmasher'), []);
      assert.ok((await filteredNames(page, '')).length > 0);
      await page.setInputFiles('#mapping-input', map);
      await page.waitForFunction(() => /deobfuscated/.test(document.getElementById('run-facts').textContent));
      assert.deepEqual(await filteredNames(page, 'StackSmasher'), [names.get('o')]);
      // A file that is not a mapping: an error naming the line; the analysis stays.
      const bad = path.join(h.tmp, 'bad.txt');
      fs.writeFileSync(bad, 'a -> b:\n    int\n');
      await page.setInputFiles('#mapping-input', bad);
      await page.waitForSelector('#error:not([hidden])');
      assert.match(await page.locator('#error').textContent(), /line 2/);
      assert.equal(await page.locator('#results').isHidden(), false);
    }, { allowProblems: [/./] });
  });

  test('ART heaps: the overview line, the heap column and filter (leak_service_binder: zygote and app)', async () => {
    const dump = h.corpusFile('android/leakcanary_leak_service_binder.hprof.gz');
    const cli = JSON.parse(execFileSync(CLI, ['analyze', dump, '--format', 'json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    // The manifest names two heaps, zygote then app; the numbers are the CLI's
    // (crate/tests/heaps.rs checks them against the manifest's record counts).
    assert.deepEqual(cli.overview.heaps.map((x) => x.name), ['zygote', 'app']);
    await h.withPage(async ({ page }) => {
      await resetRecording(page);
      await page.setInputFiles('#file-input', dump);
      assert.equal(await waitForOutcome(page), 'done');
      assert.equal(await page.locator('#heap-facts [data-fact="heaps"]').getAttribute('data-value'), 'zygote,app');
      const line = await page.locator('#heap-facts [data-fact="heaps"] dd').textContent();
      for (const x of cli.overview.heaps) assert.ok(line.includes(`${x.name}: ${x.objects.toLocaleString('en-US')} objects`), line);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'heaps-overview.png') });
      await showTab(page, 'histogram');
      const heapCell = async (name) => {
        await page.fill('#histogram-filter', name);
        await page.waitForFunction((f) => document.getElementById('histogram-count')?.dataset.filter === f, name.toLowerCase());
        return page.$$eval('#histogram-body .vrow:not([hidden])', (rows) => rows.map((r) => [...r.querySelectorAll('.vcell')].map((c) => c.dataset.full ?? c.textContent)));
      };
      // java.lang.Class objects are in both heaps.
      const rows = await heapCell('java.lang.Class');
      const row = rows.find((r) => r[0] === 'java.lang.Class');
      assert.equal(row[5], 'zygote, app');
      // The filter: only the app heap's objects, per class and in the count line.
      await page.selectOption('#histogram-heap', 'app');
      const app = cli.overview.heaps.find((x) => x.name === 'app');
      await page.fill('#histogram-filter', '');
      const appLine = `${app.objects.toLocaleString('en-US')} objects in heap app`;
      await page.waitForFunction((want) => document.getElementById('histogram-count')?.textContent.includes(want), appLine, { timeout: 10_000 }).catch(() => {});
      assert.ok((await page.locator('#histogram-count').textContent()).includes(appLine), await page.locator('#histogram-count').textContent());
      const cls = cli.histogram.find((r) => r.class_name === 'java.lang.Class').heaps.find((x) => x.name === 'app');
      const appRow = (await heapCell('java.lang.Class')).find((r) => r[0] === 'java.lang.Class');
      assert.deepEqual([appRow[2], appRow[5]], [cls.objects.toLocaleString('en-US'), 'app']);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'heaps-histogram.png') });
    });
  });
});
