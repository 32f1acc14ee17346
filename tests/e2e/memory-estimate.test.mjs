// The page's estimate of the wasm memory an analysis needs (`wasm_peak_estimate`: a fixed
// part plus a part per object, checked after pass 1 against what the tab can still grow
// by) against what the worker's WebAssembly.Memory actually grew by, on mid-size dumps
// analyzed in the page: within 10%. Not timed.
//
// The dumps are shaped like the benchmark's (`make-big.sh`: customers in a map, their
// strings, addresses, orders and order lines; about 30% `String`s, 30% `byte[]`s), built
// here straight into one buffer, and big enough (1.4 M objects) that the fixed part does
// not hide the per-object one; a smaller one (0.36 M objects), where the fixed part is
// most of it, checks that part.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { harness } from './helpers/harness.mjs';
import { writeDump } from './helpers/customers-dump.mjs';
import { openFile } from './helpers/page.mjs';

const h = harness();

/** Analyzes `file` in the page; the worker's memory before and after, and the estimate. */
async function measure(page, file) {
  const mode = await openFile(page, file, 300_000);
  assert.equal(mode, 'done', mode === 'error' ? await page.locator('#error-message').textContent() : '');
  const objects = Number(await page.locator('#view-overview [data-fact="objects"]').getAttribute('data-value'));
  // The memory when the analysis ended (it never shrinks: the peak), as the page shows it.
  const after = Number(await page.locator('#run-facts').getAttribute('data-memory-bytes'));
  for (const worker of page.workers()) {
    const got = await worker.evaluate((n) => (self.__heapscope?.session ? { before: self.__heapscope.memoryBefore, estimate: self.__heapscope.peakEstimate(n) } : null), objects);
    if (got) return { objects, grown: after - got.before, estimate: got.estimate };
  }
  throw new Error('no worker holds the analysis');
}

test('the wasm memory estimate is within 10% of the memory a mid-size dump takes in the page', { timeout: 600_000 }, async () => {
  const sizes = [5_000, 20_000];
  const files = sizes.map((customers) => {
    const file = path.join(h.tmp, `customers-${customers}.hprof`);
    return { file, objects: writeDump(file, customers) };
  });
  const runs = [];
  for (const { file, objects } of files) {
    await h.withPage(async ({ page }) => {
      const r = await measure(page, file);
      assert.equal(r.objects, objects, `${path.basename(file)}: every object of the dump is indexed`);
      runs.push(r);
    });
  }
  const [small, big] = runs;
  assert.ok(big.objects > 1_000_000, `a mid-size dump: ${big.objects} objects`);
  const MiB = 2 ** 20;
  for (const r of runs) {
    console.log(`${r.objects} objects: the wasm memory grew by ${(r.grown / MiB).toFixed(1)} MiB (${(r.grown / r.objects).toFixed(1)} B/object); estimated ${(r.estimate / MiB).toFixed(1)} MiB`);
  }
  // Both sizes: the mid-size one (the per-object part dominates), and the small one, where
  // the fixed part is most of it.
  for (const r of [big, small]) {
    assert.ok(Math.abs(r.estimate - r.grown) <= 0.1 * r.grown, `${r.objects} objects: estimated ${r.estimate} bytes, the memory grew by ${r.grown}`);
  }
});
