// One server + one Chromium per test file, a temporary directory, and `withPage`, which
// runs a test body in a fresh page and fails it if the page requested another origin or
// logged an error (console error, CSP violation, page error).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before } from 'node:test';
import { launchChromium } from './browser.mjs';
import { openPage } from './page.mjs';
import { CORPUS } from './paths.mjs';
import { startServer } from './server.mjs';

export function harness() {
  const h = {
    server: null,
    chromium: null,
    tmp: null,
    /**
     * Runs `body({page, context, requests, problems})` with a fresh page at `hash`;
     * `setup(context)` runs before the page loads.
     */
    async withPage(body, { allowProblems = [], hash = '', query = '', setup = null } = {}) {
      const p = await openPage(h.chromium.browser, `${h.server.url}${query}${hash}`, setup);
      try {
        await body(p);
        assert.deepEqual(p.foreignRequests(), [], 'requests to other origins');
        const problems = p.problems.filter((m) => !allowProblems.some((re) => re.test(m)));
        assert.deepEqual(problems, [], 'console errors, CSP violations or page errors');
      } finally {
        await p.close();
      }
    },
    corpusFile(rel) {
      return path.join(CORPUS, rel);
    },
    /** A corpus .gz dump, gunzipped into the temporary directory (a plain .hprof). */
    gunzipTo(rel) {
      const out = path.join(h.tmp, path.basename(rel).replace(/\.gz$/, ''));
      if (!fs.existsSync(out)) fs.writeFileSync(out, zlib.gunzipSync(fs.readFileSync(path.join(CORPUS, rel))));
      return out;
    },
  };
  before(async () => {
    h.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'heapscope-e2e-'));
    h.server = await startServer();
    h.chromium = await launchChromium();
  });
  after(async () => {
    await h.chromium?.close();
    await h.server?.stop();
    if (h.tmp) fs.rmSync(h.tmp, { recursive: true, force: true });
  });
  return h;
}
