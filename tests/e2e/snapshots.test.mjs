// A file holding two heap-dump snapshots (as the JDK's hprof agent writes one per request):
// the page analyzes the last, says how many the file holds, and analyzes the other on request,
// giving the CLI's numbers for `--snapshot N`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLI } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { HprofWriter } from './helpers/hprof.mjs';
import { openFile, overviewFacts, waitForOutcome } from './helpers/page.mjs';

const h = harness();

/** One snapshot: Object, Class and Node, and `nodes` Node instances held by unknown roots. */
function snapshot(nodes) {
  const w = new HprofWriter({ idSize: 8 });
  w.defineClass(0x100, 'java/lang/Object');
  w.defineClass(0x110, 'java/lang/Class', { superId: 0x100 });
  w.defineClass(0x120, 'Node', { superId: 0x100 });
  for (let i = 0; i < nodes; i++) w.instance(0x1000 + i * 0x10, 0x120, []).rootUnknown(0x1000 + i * 0x10);
  return w.finish();
}

function cli(file, snapshotNumber) {
  const args = ['analyze', file, '--format', 'json', ...(snapshotNumber ? ['--snapshot', String(snapshotNumber)] : [])];
  return JSON.parse(execFileSync(CLI, args, { encoding: 'utf8' }));
}

test('two snapshots: the last is shown, the first on request, each as the CLI analyzes it', async () => {
  const first = snapshot(2);
  const second = snapshot(5);
  const header = Buffer.byteLength('JAVA PROFILE 1.0.2\0') + 4 + 8;
  const file = path.join(h.tmp, 'two_snapshots.hprof');
  fs.writeFileSync(file, Buffer.concat([first, second.subarray(header)]));
  const last = cli(file, null);
  const one = cli(file, 1);
  assert.deepEqual([last.dump.snapshots, last.dump.snapshot, one.dump.snapshot], [2, 2, 1]);
  // By construction: three more Node objects in the second snapshot.
  assert.equal(last.overview.objects - one.overview.objects, 3);
  await h.withPage(async ({ page }) => {
    assert.equal(await openFile(page, file), 'done');
    assert.equal((await overviewFacts(page)).objects.value, String(last.overview.objects));
    const chooser = page.locator('#snapshots');
    assert.deepEqual([await chooser.getAttribute('data-count'), await chooser.getAttribute('data-current')], ['2', '2']);
    await page.evaluate(() => {
      window.__modes = [];
    });
    await page.selectOption('#snapshot-select', '1');
    await page.click('#snapshot-analyze');
    // A control that replaces the loaded analysis asks first.
    await page.click('#replace-yes');
    assert.equal(await waitForOutcome(page), 'done');
    assert.equal((await overviewFacts(page)).objects.value, String(one.overview.objects));
    assert.equal(await page.locator('#snapshots').getAttribute('data-current'), '1');
  });
});
