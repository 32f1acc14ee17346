// The JVM's sizes on the page (issue 41): a dump with compact object headers opens in the
// sizes the JVM used, read from the dump's addresses; the overview's dump facts say the
// layout and what Eclipse MAT would report instead; `?sizes=mat` gives MAT's sizes. The
// page's numbers equal the CLI's (`analyze`, and `analyze --sizes mat`), whose sizes the
// native tests check against the JVM's own class histogram (crate/tests/jvm_sizes.rs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { CLI } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { openFile, overviewFacts } from './helpers/page.mjs';
import { CORPUS, CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();
const COMPACT = path.join(CORPUS, 'layouts', 'jdk25_compact_serial.hprof.gz');

function cliJson(...args) {
  return JSON.parse(execFileSync(CLI, ['analyze', COMPACT, '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] }));
}

describe('sizes as the JVM laid the objects out', { skip: CORPUS_MISSING }, () => {
  test('compact object headers: the JVM\'s sizes by default, the layout and MAT\'s difference in the dump facts', async () => {
    const jvm = cliJson();
    const mat = cliJson('--sizes', 'mat');
    // By construction of the layouts corpus: compact headers are 8 bytes, MAT assumes 12.
    assert.equal(jvm.dump.layout.header_bytes, 8);
    assert.ok(jvm.overview.used_heap_bytes < mat.overview.used_heap_bytes, 'MAT overstates a compact-header heap');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, COMPACT), 'done');
      const facts = await overviewFacts(page);
      assert.equal(Number(facts['used-heap'].value), jvm.overview.used_heap_bytes);
      assert.equal(facts.layout.text, jvm.dump.layout.description);
      assert.match(facts.layout.text, /compact object headers \(8 bytes\)/);
      assert.equal(facts['mat-sizes'].text, jvm.dump.layout.mat_difference);
      assert.match(facts['mat-sizes'].text, /^Eclipse MAT would report /);
    });
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, COMPACT), 'done');
      const facts = await overviewFacts(page);
      assert.equal(Number(facts['used-heap'].value), mat.overview.used_heap_bytes);
      assert.equal(facts.layout.text, mat.dump.layout.description);
      assert.equal(facts['mat-sizes'], undefined, 'in MAT\'s sizes there is no difference to state');
    }, { query: '?sizes=mat' });
  });
});
