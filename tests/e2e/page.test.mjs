// End-to-end tests of the built page (www/) in headless Chromium: privacy (no request
// leaves the origin, CSP, Trusted Types, working with the network cut), the sample, and
// the URL-fragment state.
//
//   npm run build && npm run test:e2e
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { cliJson } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { openFile, overviewFacts, resetRecording, showTab, waitForOutcome } from './helpers/page.mjs';
import { CORPUS_MISSING, REPO } from './helpers/paths.mjs';

const h = harness();
const SAMPLE = path.join(REPO, 'www/sample.hprof.gz');

/** The overview shows the CLI's numbers for `file`. */
async function expectOverview(page, file) {
  const cli = cliJson(file);
  const o = cli.overview;
  const facts = await overviewFacts(page);
  assert.equal(Number(facts['used-heap'].value), o.used_heap_bytes);
  assert.equal(Number(facts.objects.value), o.objects);
  assert.equal(Number(facts.classes.value), o.classes);
  assert.equal(Number(facts['class-loaders'].value), o.class_loaders);
  assert.equal(Number(facts['gc-roots'].value), o.gc_roots);
  assert.equal(Number(facts.suspects.value), cli.leak_suspects.suspects.length);
  assert.match(facts['used-heap'].text, new RegExp(`^${o.used_heap_bytes.toLocaleString('en-US')} bytes`));
}

describe('the page', () => {
  test('loads with no request to another origin, a strict CSP and Trusted Types', async () => {
    await h.withPage(async ({ page, requests }) => {
      const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /connect-src 'self'/);
      assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
      assert.match(csp, /require-trusted-types-for 'script'/);
      // The server sends it as a header too.
      const response = await page.request.get(h.server.url);
      assert.match(response.headers()['content-security-policy'], /default-src 'self'/);
      // Markup sinks are closed: a string assigned to innerHTML throws.
      const blocked = await page.evaluate(() => {
        try {
          document.body.innerHTML = '<img src=x onerror=alert(1)>';
          return false;
        } catch {
          return true;
        }
      });
      assert.ok(blocked, 'innerHTML with a string must throw under Trusted Types');
      // A fetch to another origin is refused by the CSP.
      const refused = await page.evaluate(() => fetch('http://example.invalid/').then(() => false, () => true));
      assert.ok(refused);
      assert.ok(await page.locator('#choose-button').isVisible());
      assert.ok(await page.locator('#sample-button').isVisible());
      assert.ok(await page.locator('#results').isHidden());
      // The spare worker has loaded the wasm module (its version shows in the footer).
      await page.waitForFunction(() => document.getElementById('version').textContent.length > 0);
      assert.ok(requests.some((u) => u.endsWith('.wasm')), 'the wasm module is loaded from the origin');
    }, { allowProblems: [/example\.invalid|Content Security Policy|Trusted Type|TrustedHTML/] });
  });

  test('works with the network cut after load: analyzes the sample, then another file', async () => {
    await h.withPage(async ({ page, context }) => {
      await page.waitForFunction(() => document.getElementById('version').textContent.length > 0);
      // The service worker (offline.test.mjs) answers the browser's own late requests.
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
      await context.setOffline(true);
      const offline = [];
      context.on('request', (r) => offline.push(r));
      assert.equal(await openFile(page, SAMPLE), 'done');
      await expectOverview(page, SAMPLE);
      // The next file runs in a fresh worker, started with no network at all.
      const next = CORPUS_MISSING ? SAMPLE : h.corpusFile('dumps/s01_hello_serial_live.hprof.gz');
      assert.equal(await openFile(page, next), 'done');
      await expectOverview(page, next);
      await showTab(page, 'treemap');
      await page.waitForFunction(() => Number(document.getElementById('treemap-canvas')?.dataset.items) > 0);
      // Nothing reached the network: the only requests (the browser's lazy favicon fetch)
      // were answered by the service worker from the page's own files.
      const network = [];
      for (const r of offline.filter((r) => !r.url().startsWith('blob:'))) {
        if (!(await r.response())?.fromServiceWorker()) network.push(r.url());
      }
      assert.deepEqual(network, [], 'no request reached the network while offline');
      await context.setOffline(false);
    });
  });

  test('"Try a sample" analyzes the dump the project ships, fetched from the page\'s origin', async () => {
    await h.withPage(async ({ page, requests }) => {
      await resetRecording(page);
      await page.click('#sample-button');
      assert.equal(await waitForOutcome(page), 'done');
      await expectOverview(page, SAMPLE);
      assert.ok(requests.some((u) => u === new URL('sample.hprof.gz', h.server.url).href));
      assert.match(await page.locator('#dump-title').textContent(), /sample\.hprof\.gz/);
      // Progress was shown with the core's phases, and the worker's memory.
      assert.match(await page.locator('#run-facts').textContent(), /Analyzed in .* MiB of memory/);
    });
  });

  test('dropping a file on the page analyzes it', async () => {
    const file = CORPUS_MISSING ? SAMPLE : h.corpusFile('dumps/s03_threadlocal_leak_serial.hprof.gz');
    const bytes = fs.readFileSync(file).toString('base64');
    await h.withPage(async ({ page }) => {
      await resetRecording(page);
      const dataTransfer = await page.evaluateHandle(({ b64, name }) => {
        const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bin], name));
        return dt;
      }, { b64: bytes, name: path.basename(file) });
      await page.dispatchEvent('#import', 'dragenter', { dataTransfer });
      assert.match(await page.locator('#main').getAttribute('class'), /dragging/);
      await page.dispatchEvent('#import', 'dragover', { dataTransfer });
      await page.dispatchEvent('#import', 'drop', { dataTransfer });
      assert.equal(await waitForOutcome(page), 'done');
      await expectOverview(page, file);
      assert.doesNotMatch((await page.locator('#main').getAttribute('class')) ?? '', /dragging/);
    });
  });

  test('the view and the selected object live in the URL fragment', async () => {
    await h.withPage(async ({ page }) => {
      await resetRecording(page);
      await page.click('#sample-button');
      assert.equal(await waitForOutcome(page), 'done');
      // Select the biggest object from the dominator tree: it goes into the fragment.
      await showTab(page, 'dominators');
      const first = page.locator('#dominator-tree tbody tr[data-address]').first();
      await first.waitFor();
      const address = await first.getAttribute('data-address');
      await first.locator('td.name').click();
      assert.equal(new URL(page.url()).hash, `#view=dominators&object=${address}`);
      await showTab(page, 'inspector');
      assert.equal(new URL(page.url()).hash, `#view=inspector&object=${address}`);
      await page.waitForSelector(`#inspector-body .details[data-address="${address}"]`);
      // Back returns to the previous view; a reload with the same dump comes back here.
      await page.goBack();
      await page.waitForFunction(() => !document.getElementById('view-dominators').hidden);
      await page.goForward();
      await page.waitForFunction(() => !document.getElementById('view-inspector').hidden);
      await page.reload();
      await page.waitForSelector('#main[data-mode="idle"]');
      await resetRecording(page);
      await page.click('#sample-button');
      assert.equal(await waitForOutcome(page), 'done');
      assert.ok(await page.locator('#view-inspector').isVisible());
      await page.waitForSelector(`#inspector-body .details[data-address="${address}"]`);
      // Whatever is in the fragment is validated, never rendered as markup.
      await page.evaluate(() => {
        location.hash = '#view=%3Cimg%20src%3Dx%3E&object=%3Cb%3E';
      });
      await page.waitForFunction(() => !document.getElementById('view-overview').hidden);
      assert.match(await page.locator('#view-path [data-selection]').textContent(), /No object selected/);
      assert.equal(await page.locator('#results img').count(), 0);
    });
  });
});
