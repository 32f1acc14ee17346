// What holds an object, in the page, on s07 (MANIFEST.md: an ArrayList referenced only by
// Owner "owner-A" and Owner "owner-B"; WIDE, one Object[], holds all 500,000 Small):
// classes up (the Small row has one Object[] above it, weighing the whole row; the open
// rows are in the URL), the leak trace of the shared list (nothing marked: the whole heap
// dump holds it), "held how else?" (exactly its two owners), and drawing the other way.
//
//   npm run build && node --test tests/e2e/holders.test.mjs
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { harness } from './helpers/harness.mjs';
import { openFile, showTab } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();

describe('what holds an object', { skip: CORPUS_MISSING }, () => {
  test('s07: classes up, the shared list\'s leak trace and its two independent ways', async () => {
    const file = h.corpusFile('dumps/s07_wide_array_serial.hprof.gz');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');

      // Classes up: above the 500,000 Small, the one Object[] holding them all.
      await showTab(page, 'classes');
      const small = page.locator('#classes-up > li[data-class="corpus.S07WideArray$Small"]');
      await small.waitFor();
      assert.equal(await small.getAttribute('data-objects'), '500000');
      const weight = await small.getAttribute('data-weight');
      await small.locator(':scope > .class-row button.toggle').click();
      const above = small.locator(':scope > ul > li[data-class]');
      await above.first().waitFor();
      assert.equal(await above.count(), 1);
      assert.equal(await above.first().getAttribute('data-class'), 'java.lang.Object[]');
      assert.equal(await above.first().getAttribute('data-objects'), '1');
      assert.equal(await above.first().getAttribute('data-weight'), weight);
      assert.match(new URL(page.url()).hash, /view=classes&rows=0x[0-9a-f]+/);

      // The owners, from their class row's objects.
      const ownerRow = page.locator('#classes-up > li[data-class="corpus.S07WideArray$Owner"]');
      await ownerRow.locator(':scope > .class-row button', { hasText: 'objects' }).click();
      await ownerRow.locator('.instances a.obj').nth(1).waitFor();
      const owners = await ownerRow.locator('.instances a.obj').evaluateAll((as) => as.map((a) => a.dataset.address));
      assert.equal(owners.length, 2);

      // The shared list, from owner A's field.
      await page.evaluate((o) => {
        location.hash = `#view=inspector&object=${o}`;
      }, owners[0]);
      const field = page.locator('#inspector-fields tr[data-field="shared"]');
      await field.waitFor();
      const list = await field.getAttribute('data-value');

      // Its leak trace: nothing in particular holds it (the inspector's phrase).
      await page.evaluate((l) => {
        location.hash = `#view=path&object=${l}`;
      }, list);
      await page.waitForSelector(`#gc-path li[data-address="${list}"]`);
      assert.equal(await page.locator('#gc-path li[data-dominates="true"]').count(), 0);
      assert.match(await page.locator('#trace-dominator').textContent(), /none: it is a top-level dominator \(no single object is on every path from the GC roots to it\)/);
      const drawnHolder = await page.locator('#gc-path li').nth(-2).getAttribute('data-address');
      assert.ok(owners.includes(drawnHolder), 'the drawn chain goes through an owner');

      // Held how else: exactly the two owners, and the other one can be drawn instead.
      await page.locator('#gc-path button.how-else').click();
      const ways = page.locator('#gc-path .independent-paths');
      await ways.waitFor();
      assert.equal(await ways.getAttribute('data-paths'), '2');
      const other = owners.find((o) => o !== drawnHolder);
      for (let i = 0; i < 2; i++) {
        await page.locator('#gc-path .independent-paths li.way button').nth(i).click();
        const holder = await page.locator('#gc-path li').nth(-2).getAttribute('data-address');
        if (holder === other) break;
        assert.equal(holder, drawnHolder);
        // Drawing replaced the list: ask again for the ways to try the next one.
        await page.locator('#gc-path button.how-else').click();
        await page.locator('#gc-path .independent-paths').waitFor();
      }
      assert.equal(await page.locator('#gc-path li').nth(-2).getAttribute('data-address'), other, 'the other owner is drawn');
      assert.equal(await page.locator('#gc-path li').last().getAttribute('data-address'), list);
    });
  });
});
