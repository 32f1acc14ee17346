// The strength-aware reading in the page, on s04 (MANIFEST.md: Payload objects with
// byte[1,000,000] weak-but-strongly-held, byte[1,100,000] weak-only, byte[1,300,000]
// soft-only, byte[1,500,000] phantom-only…): the switch between MAT's tree and the
// strength-aware one (kept in the URL fragment), the strength legend (nine rows adding up
// to MAT's kept plus discarded objects and bytes, `expected/`), its colour checkboxes, the
// inspector's strength, and the dominator tree, leak trace, classes up and exports in the
// strength-aware tree, against `heapscope … --tree strength` run here.
//
//   npm run build && node --test tests/e2e/strength.test.mjs
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { CLI } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { downloadText, formatCount, openFile, showTab } from './helpers/page.mjs';
import { CORPUS, CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();

function cli(...args) {
  return execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
}

const STRENGTHS = ['strong', 'cache', 'thread_local', 'local', 'soft', 'weak', 'finalizer', 'phantom', 'unreachable'];

describe('the strength-aware reading', { skip: CORPUS_MISSING }, () => {
  test('s04: switch, legend, inspector, tree, trace and classes up in the strength-aware tree', async () => {
    const file = h.corpusFile('dumps/s04_references_serial_all.hprof.gz');
    const expected = JSON.parse(fs.readFileSync(path.join(CORPUS, 'expected/s04_references_serial_all.json'), 'utf8'));
    const strengthJson = cli('analyze', file, '--format', 'json', '--tree', 'strength');
    const report = JSON.parse(strengthJson);
    const byteArray = report.histogram.find((r) => r.class_name === 'byte[]');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      // MAT's tree by default.
      assert.equal(await page.locator('#tree-mat').isChecked(), true);
      assert.equal(await page.locator('#tree-switch').getAttribute('data-tree'), 'mat');
      assert.doesNotMatch(new URL(page.url()).hash, /tree=/);

      // The legend: nine rows, as the CLI counts them, adding up to the whole dump.
      await showTab(page, 'dominators');
      const legend = page.locator('#strength-legend-dominators');
      const rows = await legend.locator('li[data-strength]').evaluateAll((ls) => ls.map((l) => ({ strength: l.dataset.strength, objects: Number(l.dataset.objects), shallow_bytes: Number(l.dataset.bytes), text: l.textContent })));
      assert.deepEqual(rows.map((r) => r.strength), STRENGTHS);
      assert.deepEqual(rows.map(({ strength, objects, shallow_bytes }) => ({ strength, objects, shallow_bytes })), report.reachability);
      assert.equal(rows.reduce((s, r) => s + r.objects, 0), expected.total_objects + expected.unreachable.objects);
      // In MAT's sizes (the CLI's --sizes mat), the bytes add up to MAT's kept plus discarded.
      const matRows = JSON.parse(cli('analyze', file, '--format', 'json', '--tree', 'strength', '--sizes', 'mat')).reachability;
      assert.equal(matRows.reduce((s, r) => s + r.shallow_bytes, 0), expected.total_shallow_heap + expected.unreachable.shallow_heap);
      const weak = rows.find((r) => r.strength === 'weak');
      assert.match(weak.text, new RegExp(`^Weak .+ · ${formatCount(weak.objects)} objects?$`));
      assert.ok(weak.objects >= 12, 'the weak-only payload, its byte[] and the 10 weak keys at least');
      // Something is held weakly, softly and phantom: the "nothing weaker" note is absent.
      assert.equal(await legend.locator('.nothing-weaker').count(), 0);

      // The checkboxes only colour: one selection for every legend.
      assert.equal(await page.locator('#strength-legend-dominators-weak').isChecked(), true);
      await page.locator('#strength-legend-dominators-weak').uncheck();
      assert.equal(await page.locator('#strength-legend-treemap-weak').isChecked(), false);
      assert.equal(await page.locator('#view-dominators .strength-dot.on[data-strength="weak"]:not(.always)').count(), 0);
      await page.locator('#strength-legend-dominators-weak').check();

      // Switch: the fragment keeps it, and the views are in the strength-aware tree.
      await page.locator('#tree-strength').check();
      await page.waitForSelector('#view-dominators .dominators[data-tree="strength"]');
      assert.match(new URL(page.url()).hash, /tree=strength/);
      assert.equal(await page.locator('#tree-strength').isChecked(), true);
      const top = page.locator('#dominator-tree tr[data-address]');
      await top.first().waitFor();
      assert.equal(await top.first().getAttribute('data-address'), report.top_dominators[0].address);

      // The exports are `analyze --tree strength`'s, byte for byte.
      const json = await downloadText(page, '#export-json');
      assert.ok(json.text === strengthJson, 'the exported JSON differs from heapscope analyze --tree strength --format json');

      // Find the payloads' byte[] among byte[]'s objects (the largest first).
      // (Asked of the worker holding the dump; a spare worker waits beside it.)
      let holder = null;
      for (const w of page.workers()) if (await w.evaluate(() => Boolean(self.__heapscope?.session))) holder = w;
      const instances = JSON.parse(await holder.evaluate((c) => self.__heapscope.session.query(JSON.stringify({ query: 'instances', class: c, offset: 0, limit: 20 })), byteArray.class_address)).answer;
      const ofSize = (n) => instances.objects.find((o) => o.shallow_bytes === 16 + n).address;
      const weakOnly = ofSize(1_100_000);
      const strongToo = ofSize(1_000_000);

      // The inspector shows the strength (the manifest's, and the CLI's).
      for (const [address, strength] of [[weakOnly, 'weak'], [strongToo, 'strong'], [ofSize(1_300_000), 'soft'], [ofSize(1_500_000), 'phantom']]) {
        await page.evaluate((a) => {
          location.hash = `#view=inspector&object=${a}&tree=strength`;
        }, address);
        const fact = page.locator(`#view-inspector .details[data-address="${address}"] [data-fact="strength"]`);
        await fact.waitFor();
        assert.equal(await fact.getAttribute('data-value'), strength, address);
        assert.equal(JSON.parse(cli('inspect', file, address, '--tree', 'strength')).strength, strength);
      }

      // The leak trace of the weak-only byte[]: the CLI's, with the WeakReference marked.
      const paths = JSON.parse(cli('paths', file, weakOnly, '--tree', 'strength', '--format', 'json'));
      await page.evaluate((a) => {
        location.hash = `#view=path&object=${a}&tree=strength`;
      }, weakOnly);
      await page.waitForSelector(`#gc-path li[data-address="${weakOnly}"]`);
      const steps = await page.locator('#gc-path > li').evaluateAll((ls) => ls.map((l) => [l.dataset.address, l.dataset.dominates === 'true']));
      assert.deepEqual(steps, paths.trace.map((s) => [s.object.address, s.dominates]));
      const marked = paths.trace.filter((s) => s.dominates).map((s) => s.object.class_name);
      assert.ok(marked.includes('java.lang.ref.WeakReference'), `marked: ${marked}`);
      // The strongly held one: no reference on its trace (the strength-aware edges drop it).
      const strongPaths = JSON.parse(cli('paths', file, strongToo, '--tree', 'strength', '--format', 'json'));
      assert.ok(strongPaths.trace.every((s) => s.object.class_name !== 'java.lang.ref.WeakReference'));

      // Classes up: byte[]'s row weighs what the CLI says in this tree.
      const up = JSON.parse(cli('classes-up', file, '--tree', 'strength', '--format', 'json', '--depth', '0'));
      await page.evaluate(() => {
        location.hash = '#view=classes&tree=strength';
      });
      const row = page.locator('#classes-up > li[data-class="byte[]"]');
      await row.waitFor();
      const cliRow = up.rows.find((r) => r.class_name === 'byte[]');
      assert.equal(Number(await row.getAttribute('data-weight')), cliRow.weight_bytes);
      assert.equal(Number(await row.getAttribute('data-objects')), cliRow.objects);

      // Leak suspects follow the tree.
      await showTab(page, 'suspects');
      const suspects = await page.$$eval('#view-suspects [data-suspect]', (els) => els.map((e) => Number(e.dataset.retained)));
      assert.deepEqual(suspects, report.leak_suspects.suspects.map((s) => s.retained_bytes));

      // Back to MAT's tree: the fragment forgets the choice, the report is MAT's again.
      await page.locator('#tree-mat').check();
      await page.waitForSelector('#tree-switch[data-tree="mat"]');
      assert.doesNotMatch(new URL(page.url()).hash, /tree=/);
      const mat = await downloadText(page, '#export-json');
      assert.equal(JSON.parse(mat.text).tree ?? 'mat', 'mat');
    });
  });

  test('a link with tree=strength opens the dump in the strength-aware tree', async () => {
    const file = h.corpusFile('dumps/s04_references_serial_all.hprof.gz');
    await h.withPage(
      async ({ page }) => {
        assert.equal(await openFile(page, file), 'done');
        await page.waitForSelector('#view-dominators .dominators[data-tree="strength"]');
        assert.equal(await page.locator('#tree-strength').isChecked(), true);
      },
      { hash: '#view=dominators&tree=strength' },
    );
  });
});
