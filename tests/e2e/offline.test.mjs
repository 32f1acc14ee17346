// The page as an installed, offline app: the web app manifest passes Chromium's
// installability checks, and after one visit the service worker lets the page reload and
// analyze a dump with the network cut (Chromium's offline emulation).
//
//   npm run build && node --test tests/e2e/offline.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './helpers/browser.mjs';
import { cliJson } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { openPage, overviewFacts, resetRecording, waitForOutcome } from './helpers/page.mjs';
import { REPO } from './helpers/paths.mjs';
import { startServer } from './helpers/server.mjs';

const h = harness();
const SAMPLE = path.join(REPO, 'www/sample.hprof.gz');

/** Waits until the service worker is active and controls the page. */
async function controlled(page) {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
}

describe('offline and installable', () => {
  test('after one visit, the page reloads and analyzes the sample with the network cut', async () => {
    await h.withPage(async ({ page, context, requests, problems }) => {
      await controlled(page);
      await context.setOffline(true);
      const from = requests.length;
      const response = await page.reload();
      assert.ok(response.fromServiceWorker(), 'the page comes from the service worker');
      await page.waitForSelector('#main[data-mode="idle"]');
      // The worker and its wasm module came up offline too (the footer shows its version).
      await page.waitForFunction(() => document.getElementById('version').textContent.length > 0);
      await resetRecording(page);
      await page.click('#sample-button');
      assert.equal(await waitForOutcome(page), 'done');
      const facts = await overviewFacts(page);
      const cli = cliJson(SAMPLE).overview;
      assert.equal(Number(facts.objects.value), cli.objects);
      assert.equal(Number(facts['used-heap'].value), cli.used_heap_bytes);
      assert.equal(Number(facts['gc-roots'].value), cli.gc_roots);
      // Everything since going offline was answered by the service worker: the network
      // really is cut (a file it does not keep cannot be fetched).
      const fetched = requests.slice(from).filter((u) => !u.startsWith('blob:'));
      assert.ok(fetched.some((u) => u.endsWith('/sample.hprof.gz')), 'the sample was fetched (from the cache)');
      assert.ok(fetched.some((u) => u.endsWith('.wasm')), 'the wasm module was fetched (from the cache)');
      assert.deepEqual(problems, [], 'console errors, CSP violations or page errors');
      const cut = await page.evaluate(() => fetch(`./not-kept-${Date.now()}.txt`).then(() => false, () => true));
      assert.ok(cut, 'a file the service worker does not keep cannot be fetched offline');
      await context.setOffline(false);
    }, { allowProblems: [/^console error: Failed to load resource: net::ERR_FAILED$/] });
  });

  test('a new version installs in the background, never blocks an analysis, and takes over on "Reload to update"', async () => {
    // A copy of the site, so that a new version can be published on the same origin.
    const site = fs.mkdtempSync(path.join(os.tmpdir(), 'heapscope-site-'));
    fs.cpSync(path.join(REPO, 'www'), site, { recursive: true });
    const server = await startServer(site);
    const p = await openPage(h.chromium.browser, server.url);
    try {
      const { page } = p;
      await controlled(page);
      const cacheNames = () => page.evaluate(() => caches.keys());
      const [first] = await cacheNames();
      assert.match(first, /^heapscope-[0-9a-f]{16}$/);
      // The new version: another sw.js (its version, hence its cache, differs).
      const sw = path.join(site, 'sw.js');
      fs.writeFileSync(sw, fs.readFileSync(sw, 'utf8').replace(/const VERSION = "([0-9a-f]+)";/, 'const VERSION = "$1-next";'));
      // The browser's update check and the new version's download run during an analysis.
      await resetRecording(page);
      await Promise.all([page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r.update())), page.click('#sample-button')]);
      assert.equal(await waitForOutcome(page), 'done');
      // Offered, not forced: the report stays, the old version still serves the page.
      await page.waitForSelector('#update-button');
      assert.ok(await page.locator('#results').isVisible());
      assert.deepEqual((await cacheNames()).sort(), [first, `${first}-next`]);
      await Promise.all([page.waitForEvent('load'), page.click('#update-button')]);
      await page.waitForSelector('#main[data-mode="idle"]');
      await page.waitForFunction((want) => caches.keys().then((k) => k.length === 1 && k[0] === want), `${first}-next`);
      assert.deepEqual(p.foreignRequests(), []);
      assert.deepEqual(p.problems, []);
    } finally {
      await p.close();
      await server.stop();
      fs.rmSync(site, { recursive: true, force: true });
    }
  });

  test('the service worker keeps exactly the built site (minus itself and the server config)', () => {
    const sw = fs.readFileSync(path.join(REPO, 'www/sw.js'), 'utf8');
    const files = JSON.parse(sw.match(/const FILES = (\[.*\]);/)[1]);
    const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const built = walk(path.join(REPO, 'www')).map((f) => path.relative(path.join(REPO, 'www'), f).split(path.sep).join('/'));
    const expected = built.filter((f) => f !== 'sw.js' && f !== 'serve.json').map((f) => (f === 'index.html' ? './' : f)).sort();
    assert.deepEqual(files, expected);
    assert.ok(files.includes('sample.hprof.gz') && files.includes('manifest.webmanifest') && files.some((f) => f.endsWith('.wasm')));
    assert.match(sw, /const VERSION = "[0-9a-f]{16}";/);
  });

  test('the manifest passes Chromium\'s installability checks', async () => {
    // A persistent profile (a fresh one): an incognito context is never installable.
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'heapscope-profile-'));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const page = await context.newPage();
      const requests = [];
      context.on('request', (r) => requests.push(r.url()));
      await page.goto(h.server.url);
      await page.waitForSelector('#main[data-mode="idle"]');
      await controlled(page);
      const cdp = await context.newCDPSession(page);
      const manifest = await cdp.send('Page.getAppManifest');
      assert.deepEqual(manifest.errors, [], 'manifest parse errors');
      assert.equal(new URL(manifest.url).pathname, '/manifest.webmanifest');
      const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
      assert.deepEqual(installabilityErrors, [], 'installability errors');
      const parsed = JSON.parse(manifest.data);
      assert.equal(parsed.display, 'standalone');
      for (const icon of parsed.icons) {
        const r = await page.request.get(new URL(icon.src, manifest.url).href);
        assert.equal(r.status(), 200, icon.src);
        assert.equal(r.headers()['content-type'].split(';')[0], icon.type, icon.src);
      }
      const origin = new URL(h.server.url).origin;
      assert.deepEqual(requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith(`blob:${origin}/`)), [], 'requests to other origins');
    } finally {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  });
});
