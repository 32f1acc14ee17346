// End-to-end tests of the built page (dist/) in headless Chromium: privacy (no request
// leaves the origin, CSP, Trusted Types), opening real corpus dumps (plain, .gz, Android),
// progress, cancel, errors, the sample, and the URL-fragment state.
//
//   npm run build && npm run test:e2e
//
// The corpus is read from ../shared/corpus beside the repository; its tests are skipped
// with a message when it is absent. Figures the page shows are compared with figures
// computed here independently (helpers/hprof.mjs). When the analysis core lands, the
// report figures get compared with the native CLI's the same way (see `expectSummary`).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from './helpers/browser.mjs';
import { makeBigDump, nativeFacts } from './helpers/hprof.mjs';
import { fileFacts, formatCount, openFile, openPage, recordsByTag, resetRecording, waitForOutcome } from './helpers/page.mjs';
import { CORPUS, CORPUS_MISSING, REPO } from './helpers/paths.mjs';
import { startServer } from './helpers/server.mjs';

let server;
let chromium;
let tmp;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'heapscope-e2e-'));
  server = await startServer();
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs `body` with a fresh page; fails if the page requested another origin or logged errors. */
async function withPage(body, { allowProblems = [] } = {}) {
  const p = await openPage(chromium.browser, server.url);
  try {
    await body(p);
    assert.deepEqual(p.foreignRequests(), [], 'requests to other origins');
    const problems = p.problems.filter((m) => !allowProblems.some((re) => re.test(m)));
    assert.deepEqual(problems, [], 'console errors, CSP violations or page errors');
  } finally {
    await p.close();
  }
}

/** The overview shows exactly the facts computed natively for `file`. */
async function expectSummary(page, facts) {
  const shown = await fileFacts(page);
  assert.equal(shown.format, facts.format);
  assert.equal(shown['id-size'], `${facts.idSize} bytes`);
  assert.match(shown['decoded-bytes'], new RegExp(`\\(${formatCount(facts.decodedBytes)} bytes\\)$`));
  assert.match(shown['input-bytes'], new RegExp(`\\(${formatCount(facts.inputBytes)} bytes\\)$`));
  assert.equal(shown.compression.startsWith('gzip'), facts.compressed);
  assert.equal(shown.records, formatCount(facts.records));
  assert.equal(shown.timestamp, `${new Date(facts.timestampMs).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} UTC`);
  assert.deepEqual(await recordsByTag(page), facts.recordsByTag);
  // Every view still awaits the analysis core: none shows made-up figures.
  const awaiting = await page.locator('[data-awaiting="analysis-core"]').count();
  assert.equal(awaiting, 8, 'one "awaiting the analysis core" placeholder per view');
}

function corpusFile(rel) {
  return path.join(CORPUS, rel);
}

function gunzipTo(rel) {
  const out = path.join(tmp, path.basename(rel).replace(/\.gz$/, ''));
  if (!fs.existsSync(out)) fs.writeFileSync(out, zlib.gunzipSync(fs.readFileSync(corpusFile(rel))));
  return out;
}

describe('the page', () => {
  test('loads with no request to another origin, a strict CSP and Trusted Types', async () => {
    await withPage(async ({ page, requests }) => {
      const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /connect-src 'self'/);
      assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
      assert.match(csp, /require-trusted-types-for 'script'/);
      // The server sends it as a header too.
      const response = await page.request.get(server.url);
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
      // The shell is there: drop zone, picker, sample, no results yet.
      assert.ok(await page.locator('#choose-button').isVisible());
      assert.ok(await page.locator('#sample-button').isVisible());
      assert.ok(await page.locator('#results').isHidden());
      // The spare worker has loaded the wasm module (its version shows in the footer).
      await page.waitForFunction(() => document.getElementById('version').textContent.length > 0);
      assert.ok(requests.some((u) => u.endsWith('.wasm')), 'the wasm module is loaded from the origin');
    }, { allowProblems: [/example\.invalid|Content Security Policy|Trusted Type|TrustedHTML/] });
  });

  test('"Try a sample" opens the dump the project ships, fetched from the page\'s origin', async () => {
    const facts = nativeFacts(path.join(REPO, 'dist/sample.hprof.gz'));
    await withPage(async ({ page, requests }) => {
      await resetRecording(page);
      await page.click('#sample-button');
      assert.equal(await waitForOutcome(page), 'done');
      await expectSummary(page, facts);
      assert.ok(requests.some((u) => u === new URL('sample.hprof.gz', server.url).href));
    });
  });

  test('the view and the selected object live in the URL fragment', async () => {
    await withPage(async ({ page }) => {
      await page.goto(`${server.url}#view=inspector&object=0xDEADBEEF`);
      await page.waitForSelector('#main[data-mode="idle"]');
      await resetRecording(page);
      await page.click('#sample-button');
      assert.equal(await waitForOutcome(page), 'done');
      assert.ok(await page.locator('#view-inspector').isVisible());
      assert.match(await page.locator('#view-inspector [data-selection]').textContent(), /Selected object: 0xdeadbeef/);
      assert.match(await page.locator('#view-inspector').textContent(), /Awaiting the analysis core/);
      await page.click('#tab-histogram');
      assert.equal(new URL(page.url()).hash, '#view=histogram&object=0xdeadbeef');
      assert.ok(await page.locator('#view-histogram').isVisible());
      assert.ok(await page.locator('#view-inspector').isHidden());
      await page.goBack();
      await page.waitForFunction(() => !document.getElementById('view-inspector').hidden);
      // Whatever is in the fragment is validated, never rendered as markup.
      await page.evaluate(() => {
        location.hash = '#view=%3Cimg%20src%3Dx%3E&object=%3Cb%3E';
      });
      await page.waitForFunction(() => !document.getElementById('view-overview').hidden);
      assert.match(await page.locator('#view-path [data-selection]').textContent(), /No object selected/);
    });
  });
});

describe('opening corpus dumps', { skip: CORPUS_MISSING }, () => {
  test('a plain .hprof (HotSpot, 8-byte ids) shows progress and the summary', async () => {
    const file = gunzipTo('dumps/s01_hello_serial_live.hprof.gz');
    const facts = nativeFacts(file);
    assert.equal(facts.decodedBytes, fs.statSync(file).size);
    await withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'done');
      await expectSummary(page, facts);
      const modes = await page.evaluate(() => window.__modes);
      assert.deepEqual(modes, ['running', 'done']);
      assert.match(await page.locator('#dump-title').textContent(), /s01_hello_serial_live\.hprof/);
    });
  });

  test('a .hprof.gz is decoded in the worker; a multi-member one too', async () => {
    const gz = corpusFile('dumps/s01_hello_serial_live.hprof.gz');
    const facts = nativeFacts(gz);
    assert.equal(facts.decodedBytes, fs.statSync(gunzipTo('dumps/s01_hello_serial_live.hprof.gz')).size);
    // Several gzip members back to back, as the JDK's -gz option writes them.
    const raw = fs.readFileSync(gunzipTo('dumps/s02_static_map_leak_serial.hprof.gz'));
    const multi = path.join(tmp, 's02_multi_member.hprof.gz');
    const cut = [0, 1 << 20, 3 << 20, raw.length];
    fs.writeFileSync(multi, Buffer.concat(cut.slice(1).map((end, i) => zlib.gzipSync(raw.subarray(cut[i], end)))));
    await withPage(async ({ page }) => {
      assert.equal(await openFile(page, gz), 'done');
      await expectSummary(page, facts);
      assert.equal(await openFile(page, multi), 'done');
      await expectSummary(page, nativeFacts(multi));
    });
  });

  test('Android ART dumps (JAVA PROFILE 1.0.3, 4-byte ids) open directly', async () => {
    const dumps = fs.readdirSync(corpusFile('android')).filter((f) => f.endsWith('.hprof.gz')).sort();
    assert.ok(dumps.length > 0);
    await withPage(async ({ page }) => {
      for (const name of dumps) {
        const file = corpusFile(`android/${name}`);
        const facts = nativeFacts(file);
        assert.equal(await openFile(page, file), 'done', name);
        await expectSummary(page, facts);
        if (!name.includes('hprofconv')) assert.equal(facts.format, 'JAVA PROFILE 1.0.3');
      }
    });
  });

  test('dropping a file on the page opens it', async () => {
    const gz = corpusFile('dumps/s03_threadlocal_leak_serial.hprof.gz');
    const facts = nativeFacts(gz);
    const bytes = fs.readFileSync(gz).toString('base64');
    await withPage(async ({ page }) => {
      await resetRecording(page);
      const dataTransfer = await page.evaluateHandle(({ b64, name }) => {
        const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bin], name));
        return dt;
      }, { b64: bytes, name: path.basename(gz) });
      await page.dispatchEvent('#import', 'dragenter', { dataTransfer });
      assert.match(await page.locator('#main').getAttribute('class'), /dragging/);
      await page.dispatchEvent('#import', 'dragover', { dataTransfer });
      await page.dispatchEvent('#import', 'drop', { dataTransfer });
      assert.equal(await waitForOutcome(page), 'done');
      await expectSummary(page, facts);
      assert.doesNotMatch((await page.locator('#main').getAttribute('class')) ?? '', /dragging/);
    });
  });
});

describe('cancel and errors', () => {
  test('Cancel stops a large file mid-read at once, and the next file then works', async () => {
    const big = path.join(tmp, 'big.hprof');
    const size = makeBigDump(big, Number(process.env.E2E_BIG_MIB || 1536));
    const small = CORPUS_MISSING ? path.join(REPO, 'dist/sample.hprof.gz') : corpusFile('dumps/s01_hello_serial_live.hprof.gz');
    await withPage(async ({ page }) => {
      await resetRecording(page);
      await page.setInputFiles('#file-input', big);
      await page.waitForSelector('#progress:not([hidden])');
      // Progress shows bytes read, a rate and a time left before we cancel.
      await page.waitForFunction(() => window.__progress.some((b) => b > 0), null, { timeout: 60_000 });
      await page.waitForFunction(() => document.getElementById('progress-rate').textContent.includes('MB/s'), null, { timeout: 30_000 });
      const bytes = await page.locator('#progress-bytes').textContent();
      assert.match(bytes, /of 1\.\d+ GB \(\d+(\.\d)?%\)/);
      assert.match(await page.locator('#progress-left').textContent(), /\d/);
      const before = Math.max(...(await page.evaluate(() => window.__progress)));
      assert.ok(before > 0 && before < size, `mid-read when cancelled (${before} of ${size})`);
      const closed = [];
      for (const w of page.workers()) w.on('close', () => closed.push(w.url()));
      const t0 = Date.now();
      await page.click('#cancel-button');
      await page.waitForSelector('#main[data-mode="idle"]');
      assert.ok(Date.now() - t0 < 2000, 'cancel is immediate');
      assert.ok(await page.locator('#progress').isHidden());
      assert.match(await page.locator('#notice').textContent(), /Cancelled reading big\.hprof/);
      for (let i = 0; i < 50 && closed.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(closed.length >= 1, 'the reading worker was terminated');
      // The next file gets a fresh worker and works.
      assert.equal(await openFile(page, small), 'done');
      await expectSummary(page, nativeFacts(small));
    });
  });

  test('a truncated file shows an error naming the byte offset; the page stays usable', async () => {
    const sample = path.join(REPO, 'dist/sample.hprof.gz');
    const raw = zlib.gunzipSync(fs.readFileSync(sample));
    const cutAt = 1_000_003;
    const truncated = path.join(tmp, 'truncated.hprof');
    fs.writeFileSync(truncated, raw.subarray(0, cutAt));
    const truncatedGz = path.join(tmp, 'truncated.hprof.gz');
    const gz = fs.readFileSync(sample);
    fs.writeFileSync(truncatedGz, gz.subarray(0, gz.length >> 1));
    await withPage(async ({ page }) => {
      assert.equal(await openFile(page, truncated), 'error');
      assert.equal(await page.locator('#error').getAttribute('data-kind'), 'format');
      assert.equal(await page.locator('#error').getAttribute('data-offset'), String(cutAt));
      assert.match(await page.locator('#error-offset').textContent(), /^1,000,003 \(0xf4243\)$/);
      assert.match(await page.locator('#error-message').textContent(), /at byte 1000003 .*truncated file\?/);
      assert.match(await page.locator('#error-file').textContent(), /truncated\.hprof/);
      assert.ok(await page.locator('#progress').isHidden());

      // A cut .gz fails in the decoder, with an offset in the decoded stream.
      assert.equal(await openFile(page, truncatedGz), 'error');
      assert.equal(await page.locator('#error').getAttribute('data-kind'), 'format');
      assert.match(await page.locator('#error-message').textContent(), /gzip/);
      assert.notEqual(await page.locator('#error').getAttribute('data-offset'), '');

      // Still usable: the next file opens.
      assert.equal(await openFile(page, sample), 'done');
      assert.ok(await page.locator('#error').isHidden());
    });
  });

  test('a file that is not a heap dump is refused at byte 0, as text', async () => {
    const garbage = path.join(tmp, 'notes.txt');
    fs.writeFileSync(garbage, '<img src=x onerror="document.title=1">PK\x03\x04 these are not the bytes you are looking for\n'.repeat(50));
    const empty = path.join(tmp, 'empty.hprof');
    fs.writeFileSync(empty, '');
    await withPage(async ({ page }) => {
      assert.equal(await openFile(page, garbage), 'error');
      assert.equal(await page.locator('#error').getAttribute('data-offset'), '0');
      const message = await page.locator('#error-message').textContent();
      assert.match(message, /not an HPROF heap dump/);
      assert.match(message, /<img src=x/, 'the file\'s bytes are shown as text');
      assert.equal(await page.locator('#error img').count(), 0, 'and never parsed as markup');
      assert.notEqual(await page.title(), '1');

      assert.equal(await openFile(page, empty), 'error');
      assert.match(await page.locator('#error-message').textContent(), /empty/);

      // The same file can be picked again after an error (the input was reset).
      assert.equal(await openFile(page, garbage), 'error');
      assert.equal(await openFile(page, path.join(REPO, 'dist/sample.hprof.gz')), 'done');
    });
  });
});
