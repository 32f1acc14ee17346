// Measures how fast headless Chromium reads a big local File in chunks, the way the
// page's workers would: FileReaderSync (synchronous, workers only) vs `Blob.stream()`
// (the default reader's chunks, as web/src/import/read-ahead.ts reads; or a BYOB reader into
// one reused buffer, which the page does not use: its reads stopped resolving on an 8 GB file) vs `await blob.slice().arrayBuffer()` (async), one read at a time and with
// read-ahead, each chunk copied into one reusable buffer (as the wasm side does). Each line
// also gives the CPU time all of Chromium's processes spent (Linux: /proc), since on a
// two-core machine the browser's reading competes with the parsing for the cores.
//
//   node tests/bench/read-speed.mjs [FILE]        (default: makes /tmp/heapscope-bench/big.bin)
//   BENCH_MIB=2048 BENCH_CHUNKS_MIB=16,32 BENCH_ROUNDS=2 node tests/bench/read-speed.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { launchChromium } from '../e2e/helpers/browser.mjs';

const mib = Number(process.env.BENCH_MIB || 2048);
const chunksMiB = (process.env.BENCH_CHUNKS_MIB || '16,32').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS || 2);
let file = process.argv[2];
if (!file) {
  const dir = path.join(os.tmpdir(), 'heapscope-bench');
  fs.mkdirSync(dir, { recursive: true });
  file = path.join(dir, 'big.bin');
  if (!fs.existsSync(file) || fs.statSync(file).size !== mib * 1048576) {
    console.log(`making ${file} (${mib} MiB) with dd...`);
    execFileSync('dd', ['if=/dev/urandom', `of=${file}`, 'bs=1M', `count=${mib}`, 'status=none']);
  }
}
const size = fs.statSync(file).size;

/** CPU seconds (user + system) of every Chromium process so far (Linux; 0 elsewhere). */
function chromiumCpu() {
  let ticks = 0;
  for (const pid of fs.existsSync('/proc') ? fs.readdirSync('/proc') : []) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`).includes('chrom')) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks / 100; // USER_HZ, 100 on Linux
}

const worker = `
self.onmessage = async (e) => {
  const { file, method, chunk } = e.data;
  // 'FileReaderSync/k/i': this worker reads chunks i, i+k, i+2k... (k workers share the file).
  const [, k, i] = method.startsWith('FileReaderSync/') ? method.split('/').map(Number) : [0, 1, 0];
  const dst = new Uint8Array(chunk);
  const t0 = performance.now();
  let done = 0;
  if (method.startsWith('FileReaderSync')) {
    const r = new FileReaderSync();
    for (let off = i * chunk; off < file.size; off += k * chunk) {
      const ab = r.readAsArrayBuffer(file.slice(off, Math.min(off + chunk, file.size)));
      dst.set(new Uint8Array(ab)); done += ab.byteLength;
    }
  } else if (method === 'arrayBuffer') {
    for (let off = 0; off < file.size; off += chunk) {
      const ab = await file.slice(off, Math.min(off + chunk, file.size)).arrayBuffer();
      dst.set(new Uint8Array(ab)); done += ab.byteLength;
    }
  } else if (method === 'stream BYOB' || method === 'stream') {
    // Blob.stream(): the default reader's own chunks (what the page's read-ahead worker
    // takes), or a BYOB reader into one reused buffer of \`chunk\` bytes.
    const stream = file.stream();
    if (method === 'stream') {
      const r = stream.getReader();
      for (let x = await r.read(); !x.done; x = await r.read()) {
        for (let k = 0; k < x.value.length; k += chunk) dst.set(x.value.subarray(k, k + chunk));
        done += x.value.length;
      }
    } else {
      const r = stream.getReader({ mode: 'byob' });
      let buf = new ArrayBuffer(chunk);
      for (let x = await r.read(new Uint8Array(buf)); !x.done; x = await r.read(new Uint8Array(buf))) {
        dst.set(x.value); done += x.value.length; buf = x.value.buffer;
      }
    }
  } else if (method.startsWith('arrayBuffer+readahead')) {
    // 'arrayBuffer+readahead' keeps two reads in flight, 'arrayBuffer+readahead/N' N.
    const depth = Number(method.split('/')[1] || 2);
    const read = (off) => off < file.size ? file.slice(off, Math.min(off + chunk, file.size)).arrayBuffer() : null;
    const queue = [];
    let next = 0;
    for (; queue.length < depth && next < file.size; next += chunk) queue.push(read(next));
    while (queue.length) {
      const ab = await queue.shift();
      if (next < file.size) { queue.push(read(next)); next += chunk; }
      dst.set(new Uint8Array(ab)); done += ab.byteLength;
    }
  }
  self.postMessage({ ms: performance.now() - t0, done });
};`;
const page = `<!doctype html><meta charset="utf-8"><input type="file" id="f"><script type="module">
const w = new Worker('/w.js', { type: 'module' });
const w2 = new Worker('/w.js', { type: 'module' });
window.runWorker = (method, chunk) => new Promise((res) => {
  w.onmessage = (e) => res(e.data);
  w.postMessage({ file: document.getElementById('f').files[0], method, chunk });
});
// Two workers at once, each reading every other chunk.
window.runTwo = async (chunk) => {
  const file = document.getElementById('f').files[0];
  const t0 = performance.now();
  const one = (wk, i) => new Promise((res) => { wk.onmessage = (e) => res(e.data); wk.postMessage({ file, method: "FileReaderSync/2/" + i, chunk }); });
  const [a, b] = await Promise.all([one(w, 0), one(w2, 1)]);
  return { ms: performance.now() - t0, done: a.done + b.done };
};
window.runMain = async (chunk) => {
  const file = document.getElementById('f').files[0], dst = new Uint8Array(chunk);
  const t0 = performance.now(); let done = 0;
  for (let off = 0; off < file.size; off += chunk) {
    const ab = await file.slice(off, Math.min(off + chunk, file.size)).arrayBuffer();
    dst.set(new Uint8Array(ab)); done += ab.byteLength;
  }
  return { ms: performance.now() - t0, done };
};
</script>`;
const server = http.createServer((req, res) => {
  const js = req.url === '/w.js';
  res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html' });
  res.end(js ? worker : page);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const { browser, close } = await launchChromium();
try {
  const tab = await browser.newPage();
  await tab.goto(`http://127.0.0.1:${server.address().port}/`);
  await tab.setInputFiles('#f', file);
  console.log(`file: ${file}, ${(size / 1e6).toFixed(0)} MB; chromium ${browser.version()}; ${os.cpus().length} cores`);
  // One untimed pass so every method starts with the file in the page cache.
  await tab.evaluate(() => window.runWorker('FileReaderSync', 32 << 20));
  const results = [];
  for (let round = 1; round <= rounds; round++) {
    for (const c of chunksMiB) {
      for (const method of ['FileReaderSync', 'FileReaderSync, two workers', 'stream BYOB', 'stream', 'arrayBuffer', 'arrayBuffer+readahead', 'arrayBuffer+readahead/3', 'arrayBuffer+readahead/4', 'main thread arrayBuffer']) {
        const cpu0 = chromiumCpu();
        const r = method.startsWith('main')
          ? await tab.evaluate((c) => window.runMain(c), c << 20)
          : method.endsWith('two workers')
            ? await tab.evaluate((c) => window.runTwo(c), c << 20)
            : await tab.evaluate(([m, c]) => window.runWorker(m, c), [method, c << 20]);
        if (r.done !== size) throw new Error(`${method}: read ${r.done} of ${size} bytes`);
        const cpu = chromiumCpu() - cpu0;
        const mbs = size / 1e6 / (r.ms / 1000);
        results.push({ round, chunkMiB: c, method, seconds: +(r.ms / 1000).toFixed(2), 'MB/s': Math.round(mbs), cpu: +cpu.toFixed(2) });
        console.log(`round ${round}  chunk ${String(c).padStart(3)} MiB  ${method.padEnd(24)} ${(r.ms / 1000).toFixed(2).padStart(6)} s  ${Math.round(mbs).toString().padStart(5)} MB/s  Chromium CPU ${cpu.toFixed(2)} s`);
      }
    }
  }
  const best = {};
  for (const r of results) {
    const k = `${r.method} @ ${r.chunkMiB} MiB`;
    best[k] = Math.max(best[k] || 0, r['MB/s']);
  }
  console.log('best of rounds (MB/s):', JSON.stringify(best, null, 1));
} finally {
  await close();
  server.close();
}
