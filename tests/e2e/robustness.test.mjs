// The page under bad inputs and failures: Cancel mid-analysis, truncated and foreign
// files, a dump full of HTML and script, a dump too big for the memory it may use, and a
// worker that dies. In every case the page says what happened and takes the next file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import { cliJson, cliReport } from './helpers/cli.mjs';
import { harness } from './helpers/harness.mjs';
import { XSS, makeBigDump, writeXssDump } from './helpers/hprof.mjs';
import { downloadText, openFile, overviewFacts, resetRecording, showTab } from './helpers/page.mjs';
import { CORPUS_MISSING, REPO } from './helpers/paths.mjs';

const h = harness();
const SAMPLE = path.join(REPO, 'www/sample.hprof.gz');

describe('cancel and errors', () => {
  test('Cancel stops a large file mid-analysis at once, and the next file then works', async () => {
    const big = path.join(h.tmp, 'big.hprof');
    const size = makeBigDump(big, Number(process.env.E2E_BIG_MIB || 1536));
    const small = CORPUS_MISSING ? SAMPLE : h.corpusFile('dumps/s01_hello_serial_live.hprof.gz');
    await h.withPage(async ({ page }) => {
      await resetRecording(page);
      await page.setInputFiles('#file-input', big);
      await page.waitForSelector('#progress:not([hidden])');
      // Progress shows the phase, bytes read, a rate and a time left before we cancel.
      await page.waitForFunction(() => window.__progress.some((b) => b > 0), null, { timeout: 60_000 });
      await page.waitForFunction(() => document.getElementById('progress-rate').textContent.includes('MiB/s'), null, { timeout: 30_000 });
      assert.match(await page.locator('#progress-phase').textContent(), /^pass 1: .* \(read 1 of 2\)$/);
      assert.match(await page.locator('#progress-bytes').textContent(), /of 1\.\d+ GiB \(\d+(\.\d)?%\)/);
      assert.match(await page.locator('#progress-left').textContent(), /\d/);
      assert.match(await page.locator('#progress-memory').textContent(), /MiB/);
      const before = Math.max(...(await page.evaluate(() => window.__progress)));
      assert.ok(before > 0 && before < size, `mid-read when cancelled (${before} of ${size})`);
      const closed = [];
      for (const w of page.workers()) w.on('close', () => closed.push(w.url()));
      const t0 = Date.now();
      await page.click('#cancel-button');
      await page.waitForSelector('#main[data-mode="idle"]');
      assert.ok(Date.now() - t0 < 2000, 'cancel is immediate');
      assert.ok(await page.locator('#progress').isHidden());
      assert.match(await page.locator('#notice').textContent(), /Cancelled analyzing big\.hprof/);
      for (let i = 0; i < 50 && closed.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(closed.length >= 1, 'the analysis worker was terminated');
      // The next file gets a fresh worker and works.
      assert.equal(await openFile(page, small), 'done');
      assert.equal(Number((await overviewFacts(page)).objects.value), cliJson(small).overview.objects);
    });
  });

  test('a truncated dump gets an incomplete report naming the byte offset; a cut header an error; the page stays usable', async () => {
    const raw = zlib.gunzipSync(fs.readFileSync(SAMPLE));
    const cutAt = Math.floor(raw.length * 0.6) + 3;
    const truncated = path.join(h.tmp, 'truncated.hprof');
    fs.writeFileSync(truncated, raw.subarray(0, cutAt));
    const cli = cliJson(truncated);
    assert.equal(cli.complete, false);
    const headerCut = path.join(h.tmp, 'header-cut.hprof');
    fs.writeFileSync(headerCut, raw.subarray(0, 25));
    const truncatedGz = path.join(h.tmp, 'truncated.hprof.gz');
    const gz = fs.readFileSync(SAMPLE);
    fs.writeFileSync(truncatedGz, gz.subarray(0, gz.length >> 1));
    await h.withPage(async ({ page }) => {
      // Cut in the heap: the report of what came before, with a notice naming the offset.
      assert.equal(await openFile(page, truncated), 'done');
      const notice = page.locator('#incomplete');
      assert.ok(await notice.isVisible());
      assert.equal(await notice.getAttribute('data-offset'), String(cli.incomplete.offset));
      assert.equal(await page.locator('#incomplete-offset').textContent(), `${cli.incomplete.offset.toLocaleString('en-US')} (0x${cli.incomplete.offset.toString(16)})`);
      assert.equal(await page.locator('#incomplete-message').textContent(), cli.incomplete.message);
      assert.equal(Number((await overviewFacts(page)).objects.value), cli.overview.objects);

      // Cut in the header: an error naming the byte offset.
      assert.equal(await openFile(page, headerCut), 'error');
      assert.equal(await page.locator('#error').getAttribute('data-kind'), 'format');
      assert.notEqual(await page.locator('#error').getAttribute('data-offset'), '');
      assert.match(await page.locator('#error-message').textContent(), /^at byte \d+/);
      assert.match(await page.locator('#error-file').textContent(), /header-cut\.hprof/);
      assert.ok(await page.locator('#progress').isHidden());

      // A cut .gz: an incomplete report or an error, with an offset in the decoded stream.
      const outcome = await openFile(page, truncatedGz);
      if (outcome === 'error') assert.notEqual(await page.locator('#error').getAttribute('data-offset'), '');
      else assert.ok(await page.locator('#incomplete').isVisible());

      // Still usable: the next file opens, and the notices are gone.
      assert.equal(await openFile(page, SAMPLE), 'done');
      assert.ok(await page.locator('#error').isHidden());
      assert.ok(await page.locator('#incomplete').isHidden());
    });
  });

  test('a file that is not a heap dump is refused at byte 0, as text', async () => {
    const garbage = path.join(h.tmp, 'notes.txt');
    fs.writeFileSync(garbage, '<img src=x onerror="document.title=1">PK\x03\x04 these are not the bytes you are looking for\n'.repeat(50));
    const empty = path.join(h.tmp, 'empty.hprof');
    fs.writeFileSync(empty, '');
    const badJson = path.join(h.tmp, 'other.json');
    fs.writeFileSync(badJson, '{"hello": "<img src=x onerror=document.title=2>"}');
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, garbage), 'error');
      assert.equal(await page.locator('#error').getAttribute('data-offset'), '0');
      const message = await page.locator('#error-message').textContent();
      assert.match(message, /<img src=x/, 'the file\'s bytes are shown as text');
      assert.equal(await page.locator('#error img').count(), 0, 'and never parsed as markup');
      assert.equal(await openFile(page, empty), 'error');
      // A JSON file that is not a heapscope report.
      assert.equal(await openFile(page, badJson), 'error');
      assert.match(await page.locator('#error-message').textContent(), /not a heapscope JSON report/);
      assert.notEqual(await page.title(), '1');
      // The same file can be picked again after an error (the input was reset).
      assert.equal(await openFile(page, garbage), 'error');
      assert.equal(await openFile(page, SAMPLE), 'done');
    });
  });

  test('class names, field names and strings with HTML and script are shown as text and run nothing', async () => {
    const file = path.join(h.tmp, 'xss.hprof');
    const ids = writeXssDump(file);
    const cli = cliJson(file);
    const shownName = cli.histogram.find((r) => r.class_name.startsWith('<script>')).class_name;
    assert.equal(shownName, '<script>alert(1)<.script>');
    await h.withPage(async ({ page }) => {
      await page.evaluate(() => {
        window.__scripts = document.scripts.length;
      });
      assert.equal(await openFile(page, file), 'done');
      const visit = async (view) => {
        await showTab(page, view);
        await page.waitForTimeout(300);
        return page.locator(`#view-${view}`).textContent();
      };
      await visit('histogram');
      await page.fill('#histogram-filter', '<script>');
      await page.waitForFunction(() => document.getElementById('histogram-count').dataset.rows === '1');
      assert.equal(await page.locator('#histogram-body .vrow[data-index="0"] .vcell').first().textContent(), shownName);
      assert.ok((await visit('suspects')).includes(shownName));
      assert.ok((await visit('consumers')).includes(shownName));
      await showTab(page, 'dominators');
      await page.waitForSelector('#dominator-tree tbody tr[data-address]');
      assert.ok((await page.locator('#view-dominators').textContent()).includes(`class ${shownName}`));
      await showTab(page, 'treemap');
      await page.waitForFunction(() => Number(document.getElementById('treemap-canvas').dataset.items) > 0);
      // The class's statics: the field named like a tag, holding the String.
      await page.evaluate(() => {
        location.hash = '#view=inspector&object=0x140';
      });
      await page.waitForSelector('#inspector-body .details[data-address="0x140"]');
      assert.equal(await page.locator(`#inspector-fields tr[data-field="${XSS.staticName}"]`).getAttribute('data-value'), ids.stringAddress);
      assert.ok((await page.locator('#inspector-fields').textContent()).includes(XSS.staticName));
      // The String's text, literally.
      await page.click(`#inspector-fields tr[data-field="${XSS.staticName}"] a`);
      await page.waitForSelector(`#inspector-body .details[data-address="${ids.stringAddress}"]`);
      assert.equal(await page.locator('#inspector-text').textContent(), XSS.text);
      // The path names the field.
      await showTab(page, 'path');
      await page.waitForSelector('#gc-path li');
      assert.ok((await page.locator('#gc-path').textContent()).includes(XSS.staticName));
      // An instance of the class named like an <img>, with a field named like an <svg>.
      await page.evaluate(() => {
        location.hash = '#view=inspector&object=0x4000';
      });
      await page.waitForSelector('#inspector-body .details[data-address="0x4000"]');
      assert.ok((await page.locator('#inspector-body').textContent()).includes(XSS.fieldName));
      // Nothing ran, nothing was parsed as markup.
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      assert.equal(await page.locator('#results img, #results svg, #results script, #results b').count(), 0);
      assert.equal(await page.evaluate(() => document.scripts.length), await page.evaluate(() => window.__scripts));

      // The exported HTML report, opened as a page: the names are text there too.
      const html = await downloadText(page, '#export-html');
      assert.ok(html.text === cliReport(file, 'html'));
      await page.goto('about:blank');
      await page.setContent(html.text);
      await page.waitForTimeout(300);
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      assert.equal(await page.locator('main img, main svg, main script, main b').count(), 0);
      assert.equal(await page.evaluate(() => document.scripts.length), 0);
      assert.ok((await page.locator('main').textContent()).includes(shownName));
    });
  });

  test('a dump needing more memory than the tab allows is refused before allocating, with the CLI command', async () => {
    const file = CORPUS_MISSING ? SAMPLE : h.corpusFile('dumps/s02_static_map_leak_serial.hprof.gz');
    // ?memory-limit= lowers the limit the page gives the analysis (as on a small device): to
    // the estimate's fixed part (WASM_FIXED_BYTES, 30 MiB) plus room for about 5,000 objects
    // at 24 bytes each, so the tiny dump below fits and s02 (18,724 objects) or the sample
    // (15,127) does not.
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, file), 'error');
      assert.equal(await page.locator('#error').getAttribute('data-kind'), 'memory');
      assert.match(await page.locator('#error-title').textContent(), /Not enough memory/);
      assert.match(await page.locator('#error-message').textContent(), /MiB/);
      const name = path.basename(file);
      assert.equal(await page.locator('#error-cli-command').textContent(), `heapscope analyze ${name} -o ${name.replace(/(\.hprof)?(\.gz)?$/, '')}.md`);
      // The next file is analyzed (by a fresh worker, with the same low limit: a small dump fits).
      const small = path.join(h.tmp, 'small.hprof');
      writeXssDump(small);
      assert.equal(await openFile(page, small), 'done');
      assert.ok(await page.locator('#error').isHidden());
    }, { query: `?memory-limit=${(30 << 20) + (128 << 10)}` });
  });

  test('a worker that dies or traps is reported, never silent, and the page stays usable', async () => {
    const file = CORPUS_MISSING ? SAMPLE : h.corpusFile('dumps/s02_static_map_leak_serial.hprof.gz');
    await h.withPage(async ({ page }) => {
      // A trap inside a query (as a failed allocation aborts wasm): simulated in the worker.
      assert.equal(await openFile(page, file), 'done');
      const holders = [];
      for (const w of page.workers()) {
        if (await w.evaluate(() => self.__heapscope?.session !== null && self.__heapscope?.session !== undefined)) holders.push(w);
      }
      assert.equal(holders.length, 1, 'one worker holds the dump');
      await holders[0].evaluate(() => {
        const session = self.__heapscope.session;
        const query = session.query.bind(session);
        session.query = (q) => {
          if (JSON.parse(q).query === 'object') throw new WebAssembly.RuntimeError('unreachable');
          return query(q);
        };
      });
      await page.evaluate(() => {
        location.hash = '#view=inspector&object=0xfbda1118';
      });
      await page.waitForSelector('#inspector-body .query-error');
      assert.match(await page.locator('#inspector-body .query-error').textContent(), /stopped \(unreachable\)|out of memory/);
      await page.waitForSelector('#dump-lost:not([hidden])');
      assert.match(await page.locator('#dump-lost-message').textContent(), /unreachable/);
      // The report views still work; the JSON export too.
      await showTab(page, 'suspects');
      assert.ok((await page.locator('#view-suspects [data-suspect]').count()) > 0);
      // The next file works.
      assert.equal(await openFile(page, SAMPLE), 'done');
      assert.ok(await page.locator('#dump-lost').isHidden());

      // A worker that throws outside wasm (its onerror): reported the same way.
      const holder = [];
      for (const w of page.workers()) {
        if (await w.evaluate(() => Boolean(self.__heapscope?.session))) holder.push(w);
      }
      await holder[0].evaluate(() => {
        setTimeout(() => {
          throw new Error('simulated crash');
        });
      });
      await page.waitForSelector('#dump-lost:not([hidden])');
      assert.match(await page.locator('#dump-lost-message').textContent(), /simulated crash/);
      assert.equal(await openFile(page, file), 'done');
    }, { allowProblems: [/simulated crash/] });
  });
  test('a browser whose WebAssembly lacks SIMD is told so when it drops a file, not shown a bare compile error', async () => {
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, SAMPLE), 'error');
      const message = await page.locator('#error-message').textContent();
      assert.match(message, /lacks the SIMD instructions/);
      assert.match(message, /Chrome or Edge 91, Firefox 89, Safari 16\.4/);
    }, {
      // Such a browser, simulated: the module does not compile (here: it is cut after its
      // header), and the worker's WebAssembly validates no SIMD code.
      setup: async (context) => {
        await context.route(/\.wasm$/, (route) => route.fulfill({ status: 200, contentType: 'application/wasm', body: Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1]) }));
        await context.route(/\/assets\/worker-[^/]*\.js$/, async (route) => {
          const response = await route.fetch();
          await route.fulfill({ response, body: `WebAssembly.validate = () => false;\n${await response.text()}` });
        });
      },
    });
  });
  test('when the page could not fetch the module, the worker loads it itself and the dump opens', async () => {
    let requests = 0;
    await h.withPage(async ({ page }) => {
      assert.equal(await openFile(page, SAMPLE), 'done');
      assert.ok(requests >= 2, `the page's fetch of the module failed, and the worker fetched it again (${requests} requests)`);
      assert.equal(Number((await overviewFacts(page)).objects.value), cliJson(SAMPLE).overview.objects);
    }, {
      // The first request for the module (the page's) fails; the worker's goes through.
      setup: async (context) => {
        await context.route(/\.wasm$/, (route) => (++requests === 1 ? route.fulfill({ status: 503, body: 'busy' }) : route.continue()));
      },
      allowProblems: [/503/],
    });
  });
});
