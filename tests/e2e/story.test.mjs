// One story on every dump (issue 43): a dump whose leak is a library leak opens on Leaks
// (and so does its JSON report, and a drop onto an open analysis); a view that throws
// leaves the others usable; a second dump starts from a clean state; a String reads as its
// characters; the inspector's path can be the leak trace's, and says why the shortest
// differs; Home and End move between the tabs. The dumps are built here (helpers/scene.mjs,
// as crate/tests/leaks.rs builds them), so every expected value is known by construction.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { cliReport } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { openFile, resetRecording, showTab, waitForOutcome } from './helpers/page.mjs';
import { CORPUS_MISSING } from './helpers/paths.mjs';
import { Scene, serviceBinderDump, SERVICE_KEY } from './helpers/scene.mjs';

const h = harness();
const LIBRARY_PATTERN = 'native global variable referencing android.os.Binder';

/** The library-leak dump (the service held only by the system's binder) and the app-leak
 * one (held through the app's static list too), written once. */
function dumps() {
  const lib = serviceBinderDump();
  const app = serviceBinderDump({ appList: true });
  const libFile = path.join(h.tmp, 'leak_service_binder_ignored.hprof');
  const appFile = path.join(h.tmp, 'leak_service_binder.hprof');
  if (!fs.existsSync(libFile)) fs.writeFileSync(libFile, lib.bytes);
  if (!fs.existsSync(appFile)) fs.writeFileSync(appFile, app.bytes);
  return { lib: { ...lib, file: libFile }, app: { ...app, file: appFile } };
}

/** Drops `file` on the page (as a person drags it from the file manager). */
async function drop(page, file) {
  const dataTransfer = await page.evaluateHandle(
    ([b64, name]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
      return dt;
    },
    [fs.readFileSync(file).toString('base64'), path.basename(file)],
  );
  await page.dispatchEvent('#main', 'dragenter', { dataTransfer });
  await page.dispatchEvent('#main', 'dragover', { dataTransfer });
  await page.dispatchEvent('#main', 'drop', { dataTransfer });
}

/** The open page shows the library leak of the service-binder dump in its Leaks view. */
async function assertLibraryLeakShown(page, d) {
  assert.equal(await page.locator('#tab-leaks').getAttribute('aria-selected'), 'true', 'opened on Leaks');
  assert.ok(await page.locator('#view-leaks').isVisible());
  assert.equal(await page.locator('#leaks').getAttribute('data-library'), '1');
  assert.equal(await page.locator('#leaks').getAttribute('data-application'), '0');
  // The library leaks are all there is: folded open, the leak open on its trace.
  assert.equal(await page.locator('#leaks-library').evaluate((d) => d.open), true);
  const leak = page.locator('details.leak[data-kind="library"]');
  assert.equal(await leak.evaluate((d) => d.open), true);
  assert.match(await leak.locator('.leak-library').textContent(), new RegExp(`Known leak \\(${LIBRARY_PATTERN}`));
  const instance = leak.locator(`details.leak-instance[data-key="${SERVICE_KEY}"]`);
  assert.equal(await instance.getAttribute('data-object'), d.service);
  const steps = await instance.locator('.leak-step').evaluateAll((ls) => ls.map((l) => [l.dataset.address, l.dataset.leaking]));
  assert.deepEqual(steps, [[d.binder, 'UNKNOWN'], [d.service, 'YES']]);
  assert.match(await instance.locator('.leak-root').textContent(), /GC Root: JNI Global/);
  assert.equal(await page.locator('#leaks-android').textContent(), 'Android API level 19, manufacturer unknown.');
  assert.ok(await page.locator('#error').isHidden(), 'no error panel');
}

describe('One story', () => {
  test('a dump whose only leak is a library leak opens on Leaks, as do its JSON report and a drop onto an open analysis', async () => {
    const d = dumps();
    const json = path.join(h.tmp, 'leak_service_binder_ignored.json');
    fs.writeFileSync(json, cliReport(d.lib.file, 'json'));
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, d.lib.file), 'done');
      await assertLibraryLeakShown(page, d.lib);
      // The overview says the same: one leak, in a library.
      await showTab(page, 'overview');
      assert.match(await page.locator('#verdict .verdict-lead').textContent(), /1 leak found, all in libraries/);
      assert.equal(await page.locator('#verdict li[data-kind="library"]').count(), 1);
      assert.match(await page.locator('#dump-facts [data-fact="android"] dd').textContent(), /^API level 19, manufacturer unknown$/);
    });
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, json), 'done');
      assert.ok(await page.locator('#report-only').isVisible(), 'a saved report, without its dump');
      await assertLibraryLeakShown(page, d.lib);
    });
    await h.withPage(async ({ page }) => {
      // Dropped onto the app's leak: asked first, then the library leak replaces it.
      assert.equal(await openFile(page, d.app.file), 'done');
      assert.equal(await page.locator('#leaks').getAttribute('data-application'), '1');
      await resetRecording(page);
      await drop(page, d.lib.file);
      await page.click('#replace-yes');
      assert.equal(await waitForOutcome(page), 'done');
      assert.equal(await page.locator('#dump-title').textContent(), path.basename(d.lib.file));
      await assertLibraryLeakShown(page, d.lib);
    });
  });

  test('a view that fails shows its error and leaves the other views working', async () => {
    const d = dumps();
    await h.withPage(
      async ({ page }) => {
        assert.equal(await openFile(page, d.app.file), 'done');
        // The failing view: its error, where its content would be.
        await showTab(page, 'leaks');
        const error = page.locator('#view-leaks [data-view-error]');
        assert.ok(await error.isVisible());
        assert.match(await error.textContent(), /This view could not be drawn: a failure simulated by fail-view=leaks in the address\./);
        assert.equal(await error.getAttribute('role'), 'alert');
        // The others: drawn and answering.
        await showTab(page, 'overview');
        assert.equal(await page.locator('#verdict').getAttribute('data-verdict'), 'leaks');
        await showTab(page, 'histogram');
        await page.waitForSelector('#histogram-body .vrow[data-index="0"]');
        await page.evaluate((a) => (location.hash = `#view=inspector&object=${a}`), d.app.service);
        await page.waitForSelector(`#inspector-body .details[data-address="${d.app.service}"]`);
        await showTab(page, 'dominators');
        await page.waitForSelector('#dominator-tree tbody tr[data-address]');
        assert.equal(await page.locator('[data-view-error]').count(), 1, 'only the failing view');
        assert.ok(await page.locator('#error').isHidden(), 'the dump stays open');
      },
      { query: '?fail-view=leaks' },
    );
  });

  test('a second dump starts from a clean state: its own first view, no selection, no filter, a clean fragment', async () => {
    const d = dumps();
    // A dump without leaks: its first view is the overview.
    const plain = new Scene();
    plain.class('com.example.Holder', 'java.lang.Object', []);
    plain.staticRef('com.example.Holder', 'held', plain.string('hello'));
    const plainFile = path.join(h.tmp, 'plain.hprof');
    fs.writeFileSync(plainFile, plain.bytes());
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, d.app.file), 'done');
      assert.match(await page.evaluate(() => location.hash), /view=leaks&leak=[0-9a-f]{40}/);
      // Wander: an object in the inspector, a filtered histogram.
      await showTab(page, 'histogram');
      await page.fill('#histogram-filter', 'LeakyService');
      await page.waitForFunction(() => document.querySelector('#histogram-body .vrow[data-index="0"]')?.textContent.includes('LeakyService'));
      await page.evaluate((a) => (location.hash = `#view=inspector&object=${a}`), d.app.service);
      await page.waitForSelector(`#inspector-body .details[data-address="${d.app.service}"]`);
      // The next dump, dropped and confirmed.
      await resetRecording(page);
      await drop(page, plainFile);
      await page.click('#replace-yes');
      assert.equal(await waitForOutcome(page), 'done');
      assert.equal(await page.evaluate(() => location.hash), '', 'nothing of the first dump in the fragment');
      assert.equal(await page.locator('#tab-overview').getAttribute('aria-selected'), 'true');
      await showTab(page, 'histogram');
      assert.equal(await page.inputValue('#histogram-filter'), '');
      await showTab(page, 'inspector');
      assert.equal(await page.locator('#inspector-body [data-no-selection]').count(), 1, 'no object selected');
      // And back to a dump with leaks: it opens on them, with its own leak.
      await resetRecording(page);
      await drop(page, d.lib.file);
      await page.click('#replace-yes');
      assert.equal(await waitForOutcome(page), 'done');
      await assertLibraryLeakShown(page, d.lib);
    });
  });

  test('a String reads as its characters: printable Unicode as it is, only controls escaped', async () => {
    const s = new Scene();
    s.class('com.example.Texts', 'java.lang.Object', []);
    const sigma = s.string('Sigma (\u01a9) is not ASCII');
    const control = s.string('tab\there\u0001');
    s.staticRef('com.example.Texts', 'sigma', sigma);
    s.staticRef('com.example.Texts', 'control', control);
    const file = path.join(h.tmp, 'texts.hprof');
    fs.writeFileSync(file, s.bytes());
    const hex = (id) => `0x${id.toString(16)}`;
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      await page.evaluate((a) => (location.hash = `#view=inspector&object=${a}`), hex(sigma));
      await page.waitForSelector('#inspector-text');
      assert.equal(await page.locator('#inspector-text').textContent(), 'Sigma (\u01a9) is not ASCII');
      await page.evaluate((a) => (location.hash = `#view=inspector&object=${a}`), hex(control));
      await page.waitForFunction((a) => document.querySelector('#inspector-body .details')?.dataset.address === a, hex(control));
      assert.equal(await page.locator('#inspector-text').textContent(), 'tab\\u0009here\\u0001');
      // Beside the references of the class's statics, the same texts.
      await page.evaluate((a) => (location.hash = `#view=inspector&object=${a}`), hex(s.classId('com.example.Texts')));
      const value = page.locator('#inspector-fields tr[data-field="sigma"] .val');
      await value.waitFor();
      assert.equal((await value.textContent()).trim(), 'Sigma (\u01a9) is not ASCII');
      assert.equal((await page.locator('#inspector-fields tr[data-field="control"] .val').textContent()).trim(), 'tab\\u0009here\\u0001');
    });
  });

  test("the path view draws the leak trace's path for a leaking object and says why the shortest differs", async () => {
    const d = dumps();
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, d.app.file), 'done');
      // The Leaks view's trace of the service.
      const traced = await page.locator(`details.leak-instance[data-object="${d.app.service}"] .leak-step`).evaluateAll((ls) => ls.map((l) => l.dataset.address));
      assert.equal(traced.length, 5);
      await page.evaluate((a) => (location.hash = `#view=path&object=${a}`), d.app.service);
      const note = page.locator('#route-note');
      await note.waitFor();
      assert.equal(await note.getAttribute('data-route'), 'differs');
      assert.equal(await note.getAttribute('data-steps'), '5');
      assert.equal(await note.getAttribute('data-shortest-steps'), '2');
      assert.match(await page.locator('#route-why').textContent(), new RegExp(`starts at a JNI Global root holding com\\.example\\.LeakyService\\$MyBinder: a known library leak \\(${LIBRARY_PATTERN}\\), which the leak trace visits last`));
      // A leaking object: the leak trace's path first, the one the Leaks view drew.
      const drawn = () => page.locator('#gc-path li').evaluateAll((ls) => ls.map((l) => l.dataset.address));
      assert.equal(await page.locator('#path-drawn').getAttribute('data-route'), 'leak');
      assert.deepEqual(await drawn(), traced);
      await page.check('#path-route-shortest');
      assert.deepEqual(await drawn(), [d.app.binder, d.app.service]);
      // One phrase for an object without a dominator, here and in the inspector.
      const phrase = 'none: it is a top-level dominator (no single object is on every path from the GC roots to it)';
      assert.equal((await page.locator('#trace-dominator').textContent()).replace('Its dominator: ', ''), phrase);
      await page.evaluate((a) => (location.hash = `#view=inspector&object=${a}`), d.app.service);
      await page.waitForSelector('#inspector-facts [data-fact="dominator"]');
      assert.equal(await page.locator('#inspector-facts [data-fact="dominator"] dd').textContent(), phrase);
    });
  });

  test('from its tab, the dominator tree is three Tab presses away (the strength legend is one tab stop)', async () => {
    const d = dumps();
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, d.lib.file), 'done');
      await showTab(page, 'dominators');
      await page.waitForSelector('#dominator-tree tbody tr[data-address]');
      await page.focus('#tab-dominators');
      let presses = 0;
      while (presses < 10 && !(await page.evaluate(() => document.activeElement?.closest('#dominator-tree') !== null))) {
        await page.keyboard.press('Tab');
        presses++;
      }
      // The legend's checkboxes, the grouping switch, the tree.
      assert.equal(presses, 3);
      // Inside the legend the arrows move from checkbox to checkbox.
      await page.focus('#strength-legend-dominators input[data-strength="strong"]');
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.strength), 'cache');
    });
  });

  test('Mapping… opens a heap dump chosen there; an obfuscated dump says a mapping would help; a mapping that does not fit is said so near the top', { skip: CORPUS_MISSING }, async () => {
    const d = dumps();
    const AHAT = h.corpusFile('android/ahat_test_dump_8e3b7d7.hprof.gz');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, d.lib.file), 'done');
      // A dump chosen with Mapping… by mistake: opened as a dump (after asking), not refused.
      await resetRecording(page);
      await page.setInputFiles('#mapping-input', AHAT);
      await page.click('#replace-yes');
      assert.equal(await waitForOutcome(page), 'done');
      assert.equal(await page.locator('#dump-title').textContent(), 'ahat_test_dump_8e3b7d7.hprof.gz');
      // Its names are R8's: the overview says what would help, under the verdict.
      await showTab(page, 'overview');
      const hint = page.locator('#obfuscated-hint');
      assert.equal(await hint.getAttribute('data-classes'), '24');
      assert.match(await hint.textContent(), /24 classes have names like an obfuscator's/);
      // A mapping of another build: applied, and the warning is at the top of the overview.
      const wrong = path.join(h.tmp, 'other-mapping.txt');
      fs.writeFileSync(wrong, 'com.example.Other -> zz:\n');
      await page.setInputFiles('#mapping-input', wrong);
      await page.waitForFunction(() => /deobfuscated with other-mapping\.txt/.test(document.getElementById('run-facts').textContent));
      await showTab(page, 'overview');
      assert.match(await page.locator('#overview-warnings').textContent(), /the mapping names none of the dump's 1,126 classes: it is probably another build's mapping/);
      const order = await page.$$eval('#view-overview .overview > *', (els) => els.map((e) => e.id || e.className));
      assert.ok(order.indexOf('overview-warnings') === 1, `the warnings right under the verdict: ${order}`);
      // Its own mapping: the names come back, the hint and the warning go.
      await page.setInputFiles('#mapping-input', h.corpusFile('android/ahat_test_dump_8e3b7d7.map'));
      await page.waitForFunction(() => /deobfuscated with ahat_test_dump_8e3b7d7\.map/.test(document.getElementById('run-facts').textContent));
      await showTab(page, 'overview');
      assert.equal(await page.locator('#obfuscated-hint').count(), 0);
      assert.equal(await page.locator('#overview-warnings').count(), 0);
    });
  });

  test('the tab list follows the ARIA tabs pattern: arrows, Home and End', async () => {
    const d = dumps();
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, d.lib.file), 'done');
      const ids = await page.$$eval('#tabs [role="tab"]', (ts) => ts.map((t) => t.id));
      const selected = () => page.evaluate(() => [document.activeElement?.id, document.querySelector('#tabs [aria-selected="true"]')?.id]);
      await page.focus('#tab-leaks');
      await page.keyboard.press('End');
      assert.deepEqual(await selected(), [ids[ids.length - 1], ids[ids.length - 1]]);
      await page.keyboard.press('Home');
      assert.deepEqual(await selected(), [ids[0], ids[0]]);
      await page.keyboard.press('ArrowLeft');
      assert.deepEqual(await selected(), [ids[ids.length - 1], ids[ids.length - 1]], 'round the ends');
      await page.keyboard.press('ArrowRight');
      assert.deepEqual(await selected(), [ids[0], ids[0]]);
      assert.equal(await page.locator('#tabs [tabindex="0"]').count(), 1, 'one tab stop');
    });
  });
});

