// The Leaks view (issue 36): LeakCanary's reading of a dump, opened first when the report
// has leaks. Checked against what the corpus's LeakCanary dump holds by construction
// (../shared/corpus/MANIFEST.md: LeakCanary 1.x watches the app's LeakyService with key
// b3abfae6-…, and the app keeps it through the binders in its static leakAllTheBinders)
// and against the CLI's JSON report.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { cliJson } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { openFile, showTab } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';

const h = harness();
const LEAKCANARY = 'android/leakcanary_leak_service_binder.hprof.gz';
const KEY = 'b3abfae6-2c53-42e1-b8c1-96b0558dbeae';
const SHOTS = process.env.HEAPSCOPE_SCREENSHOTS;

describe('Leaks', { skip: CORPUS_MISSING }, () => {
  test('the LeakCanary dump opens on its leaks: the watched LeakyService, its key and its trace', async () => {
    const file = h.corpusFile(LEAKCANARY);
    const cli = cliJson(file);
    const watched = cli.leaks.leaks.find((l) => l.instances.some((i) => i.watch?.key === KEY));
    assert.ok(watched, 'the CLI reports the watched service');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      // Opened first, and said so in the URL.
      assert.equal(await page.locator('#view-leaks').isHidden(), false);
      assert.equal(await page.locator('#tab-leaks').getAttribute('aria-selected'), 'true');
      assert.match(await page.evaluate(() => location.hash), /view=leaks/);
      // The application's leaks, in the CLI's order, the first one open.
      const shown = await page.$$eval('#leaks-application details.leak', (ds) => ds.map((d) => [d.dataset.leak, d.open]));
      const apps = cli.leaks.leaks.filter((l) => l.kind === 'application');
      assert.deepEqual(shown.map((s) => s[0]), apps.map((l) => l.signature));
      assert.equal(shown[0][1], true);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'leaks.png'), fullPage: true });
      const leak = page.locator(`details.leak[data-leak="${watched.signature}"]`);
      const instance = leak.locator(`details.leak-instance[data-key="${KEY}"]`);
      assert.equal(await instance.getAttribute('data-found-by'), 'watched');
      assert.match(await instance.locator('summary').textContent(), /com\.example\.leakcanary\.LeakyService/);
      assert.equal(await instance.locator('.leak-key').textContent(), KEY);
      // The trace: the class's static list of binders, the binder's `service`, the service leaking.
      const steps = await instance.locator('.leak-step').evaluateAll((ls) =>
        ls.map((l) => ({ address: l.dataset.address, leaking: l.dataset.leaking, text: l.textContent, suspect: l.querySelector('[data-suspect]') !== null })),
      );
      const trace = watched.instances.find((i) => i.watch?.key === KEY).trace;
      assert.deepEqual(steps.map((s) => s.address), trace.map((s) => s.object));
      assert.deepEqual(steps.map((s) => s.leaking), trace.map((s) => s.leaking));
      assert.deepEqual(steps.map((s) => s.suspect), trace.map((s) => s.suspect));
      assert.match(steps[0].text, /GC Root: System Class/);
      assert.match(steps[0].text, /static LeakyService\.leakAllTheBinders/);
      assert.match(steps[steps.length - 2].text, /LeakyService\$MyBinder\.service/);
      assert.equal(steps[steps.length - 1].leaking, 'YES');
      assert.match(steps[steps.length - 1].text, /Leaking: YES \(.*ObjectWatcher was watching this/);
      assert.ok(steps.some((s) => s.suspect), 'suspect references are marked');
      // An array's element as LeakCanary writes it: `Object[1]`.
      const k = trace.findIndex((s) => s.reference?.kind === 'array_element');
      assert.ok(k > 0 && steps[k].text.includes(`↓ Object${trace[k].reference.name}`), steps[k]?.text);
      assert.match(await instance.locator('[data-suspect] .leak-underline').first().textContent(), /~+/);
      // Each object links to the inspector.
      const last = trace[trace.length - 1].object;
      await instance.locator(`.leak-step[data-address="${last}"] a.obj`).click();
      await page.waitForFunction((a) => location.hash.includes('view=inspector') && location.hash.includes(`object=${a}`), last);
      // The open leak is in the fragment: a link to it opens it.
      await showTab(page, 'leaks');
      await page.evaluate(() => document.querySelectorAll('details.leak').forEach((d) => (d.open = false)));
      await page.evaluate((s) => (location.hash = `#view=leaks&leak=${s}`), watched.signature);
      await page.waitForFunction((s) => document.querySelector(`details.leak[data-leak="${s}"]`)?.open === true, watched.signature);
      // The overview's verdict links the view.
      await showTab(page, 'overview');
      assert.equal(await page.locator('#verdict').getAttribute('data-verdict'), 'leaks');
      assert.equal(await page.locator('#verdict [data-verdict-link="leaks"]').count(), 1);
    });
  });
});
