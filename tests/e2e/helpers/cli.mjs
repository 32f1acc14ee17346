// The native CLI's answers, to check the page against: `heapscope analyze DUMP --format json`
// (and md, html). The binary is built by scripts/test-all.sh before the browser tests.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './paths.mjs';

export const CLI = process.env.HEAPSCOPE_CLI || path.join(REPO, 'target/release/heapscope');

const cache = new Map();

/** The CLI's output for `file` in `format` ('json', 'md' or 'html'), as text. Exit 1 (incomplete dump) is fine. */
export function cliReport(file, format = 'json') {
  const key = `${format}\0${file}`;
  if (cache.has(key)) return cache.get(key);
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} not found: build it first (cargo build --release), as scripts/test-all.sh does`);
  let out;
  try {
    out = execFileSync(CLI, ['analyze', file, '--format', format], { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    if (e.status === 1 && e.stdout) out = e.stdout;
    else throw e;
  }
  cache.set(key, out);
  return out;
}

/** The CLI's JSON report of `file`, parsed. */
export function cliJson(file) {
  return JSON.parse(cliReport(file, 'json'));
}
