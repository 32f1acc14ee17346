// Read-ahead (web/src/import/read-ahead.ts): served with cross-origin isolation (serve.json's
// COOP + COEP), the analysis worker reads the file through a second worker that fills a
// shared ring of 16 MiB slots ahead of the parser. A dump several slots long (52 MB: every
// pass restarts the ring, wraps it, and ends mid-slot) analyzed that way must give the
// CLI's report byte for byte, and must have used the read-ahead. Served without COEP (a
// static host that sends no such header), the page is not isolated, reads the file itself,
// and gives the same report.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cliReport } from './helpers/cli.mjs';
import { writeDump } from './helpers/customers-dump.mjs';
import { harness } from './helpers/harness.mjs';
import { openFile, openPage } from './helpers/page.mjs';
import { REPO } from './helpers/paths.mjs';
import { startServer } from './helpers/server.mjs';

const h = harness();

/** Analyzes `file` in `page`: whether the page was isolated, the worker's report JSON and whether it read ahead. */
async function analyze(page, file) {
  const isolated = await page.evaluate(() => self.crossOriginIsolated);
  const mode = await openFile(page, file, 300_000);
  assert.equal(mode, 'done', mode === 'error' ? await page.locator('#error-message').textContent() : '');
  let got = null;
  for (const worker of page.workers()) {
    got ??= await worker.evaluate(() => (self.__heapscope?.session ? { json: self.__heapscope.session.report_json(), readAhead: self.__heapscope.readAhead } : null));
  }
  assert.ok(got, 'a worker holds the analysis');
  return { isolated, ...got };
}

test('a dump read through the read-ahead worker gives the CLI report, byte for byte', { timeout: 600_000 }, async () => {
  const file = path.join(h.tmp, 'customers.hprof');
  writeDump(file, 20_000);
  await h.withPage(async ({ page }) => {
    const r = await analyze(page, file);
    assert.equal(r.isolated, true, 'the page is cross-origin isolated');
    assert.equal(r.readAhead, true, 'the analysis read the file through the read-ahead worker');
    assert.equal(r.json, cliReport(file), 'the report equals `heapscope analyze --format json`');
  });
});

test('without cross-origin isolation the worker reads the file itself, with the same report', { timeout: 600_000 }, async () => {
  const file = path.join(h.tmp, 'customers.hprof');
  if (!fs.existsSync(file)) writeDump(file, 20_000);
  const site = path.join(h.tmp, 'site');
  fs.cpSync(path.join(REPO, 'www'), site, { recursive: true });
  const config = JSON.parse(fs.readFileSync(path.join(site, 'serve.json'), 'utf8'));
  for (const rule of config.headers) rule.headers = rule.headers.filter((x) => x.key !== 'Cross-Origin-Embedder-Policy');
  fs.writeFileSync(path.join(site, 'serve.json'), JSON.stringify(config));
  const server = await startServer(site);
  const p = await openPage(h.chromium.browser, server.url);
  try {
    const r = await analyze(p.page, file);
    assert.equal(r.isolated, false, 'the page is not cross-origin isolated');
    assert.equal(r.readAhead, false, 'no read-ahead worker');
    assert.equal(r.json, cliReport(file), 'the report equals `heapscope analyze --format json`');
    assert.deepEqual(p.problems, [], 'console errors, CSP violations or page errors');
  } finally {
    await p.close();
    await server.stop();
  }
});
