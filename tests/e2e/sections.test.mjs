// The report's sections beyond MAT's pages on the page (issue 37): the OOM triage after the
// verdict, the heap composition, the top components and the system properties on the
// overview, a single suspect's path to its GC root and dominator subtree, and the md-graphs
// export, each as the CLI's report of the same dump has them (whose values the native
// tests check against MAT's own report and brute-force definitions).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cliJson, cliReport } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { downloadText, openFile, showTab } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();
const S02 = 'dumps/s02_static_map_leak_serial.hprof.gz';

describe('the report sections on the page', { skip: CORPUS_MISSING && 'the corpus (../shared/corpus) is not here' }, () => {
  test('overview and suspects show the sections of the CLI report', async () => {
    const file = h.corpusFile(S02);
    const cli = cliJson(file);
    assert.ok(cli.oom_triage && cli.system_properties?.length && cli.top_components && cli.heap_composition);
    const single = cli.leak_suspects.suspects.findIndex((s) => s.root_path);
    assert.ok(single >= 0, 'a single suspect with a root path');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      const overview = await page.evaluate(() => {
        const body = document.querySelector('#view-overview .view-body .overview');
        const triage = document.getElementById('oom-triage');
        return {
          verdictFirst: body.firstElementChild === document.getElementById('verdict'),
          triageSecond: body.children[1] === triage,
          shape: triage.dataset.shape,
          verdict: triage.dataset.verdict,
          text: triage.textContent,
          properties: [...document.querySelectorAll('#system-properties-table tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent)),
          components: [...document.querySelectorAll('#top-components .component')].map((c) => Number(c.dataset.retained)),
          kinds: document.querySelectorAll('#composition-kinds tbody tr').length,
        };
      });
      assert.equal(overview.verdictFirst, true);
      assert.equal(overview.triageSecond, true);
      assert.equal(overview.shape, cli.oom_triage.shape);
      assert.equal(overview.verdict, cli.oom_triage.verdict);
      assert.ok(overview.text.includes(cli.oom_triage.shape_text) && overview.text.includes(cli.oom_triage.verdict_text));
      assert.deepEqual(overview.properties, cli.system_properties.map((p) => [p.key, p.value]));
      assert.deepEqual(overview.components, cli.top_components.map((c) => c.retained_bytes));
      assert.equal(overview.kinds, cli.heap_composition.kinds.length);

      await showTab(page, 'suspects');
      const s = cli.leak_suspects.suspects[single];
      const shown = await page.evaluate((n) => {
        const article = document.querySelector(`[data-suspect="${n}"]`);
        return {
          path: [...article.querySelectorAll('[data-root-path] li[data-address]')].map((li) => li.dataset.address),
          why: article.querySelector('.why-alive')?.textContent,
          subtree: [...article.querySelectorAll('tr[data-depth]')].map((tr) => [tr.dataset.address, Number(tr.dataset.depth)]),
        };
      }, single + 1);
      assert.deepEqual(shown.path, s.root_path.steps.map((st) => st.object.address));
      assert.equal(shown.why, s.root_path.why_alive);
      assert.deepEqual(shown.subtree, s.dominator_subtree.nodes.map((n) => [n.object.address, n.depth]));

      // Export: the Markdown with graphs is the CLI's -f md-graphs, bars and all.
      const graphs = (await downloadText(page, '#export-md-graphs')).text;
      assert.ok(graphs.includes('```text\n') && graphs.includes('█'));
      assert.ok(graphs === cliReport(file, 'md-graphs'), 'the md-graphs export equals the CLI');
    });
  });
});
