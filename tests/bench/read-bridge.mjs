// Does reading ahead asynchronously help once there is parsing to do? Compares, in a
// headless Chromium module worker that also does CPU work on every chunk (a stand-in for
// the parser):
//   sync   - FileReaderSync in the parsing worker (read, then parse, then read...)
//   bridge - a second "reader" worker reads ahead with `await blob.slice().arrayBuffer()`
//            into a SharedArrayBuffer ring; the parsing worker blocks on Atomics.wait for
//            the next chunk (the page must be cross-origin isolated: COOP + COEP headers).
// This is how a pull-based core (ByteSource::read) can be fed by async reads.
//
//   node tests/bench/read-bridge.mjs [FILE]     (default /tmp/heapscope-bench/big.bin, 2 GiB)
//   BENCH_WORK=0,1,2 BENCH_CHUNK_MIB=16 BENCH_SLOTS=4 node tests/bench/read-bridge.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { launchChromium } from '../e2e/helpers/browser.mjs';

const works = (process.env.BENCH_WORK || '0,1,2').split(',').map(Number);
const chunk = Number(process.env.BENCH_CHUNK_MIB || 16) << 20;
const slots = Number(process.env.BENCH_SLOTS || 4);
let file = process.argv[2];
if (!file) {
  const dir = path.join(os.tmpdir(), 'heapscope-bench');
  fs.mkdirSync(dir, { recursive: true });
  file = path.join(dir, 'big.bin');
  if (!fs.existsSync(file)) execFileSync('dd', ['if=/dev/urandom', `of=${file}`, 'bs=1M', 'count=2048', 'status=none']);
}
const size = fs.statSync(file).size;

// CPU work per chunk: `passes` sweeps over every byte (about what a parser costs per pass).
const work = `
function work(buf, n, passes) {
  let h = 0;
  for (let p = 0; p < passes; p++) for (let i = 0; i < n; i++) h = (h * 31 + buf[i]) | 0;
  return h;
}`;

const parser = `${work}
self.onmessage = (e) => {
  const { file, method, chunk, passes, ring } = e.data;
  const own = new Uint8Array(chunk);
  const t0 = performance.now();
  let done = 0, h = 0;
  if (method === 'sync') {
    const r = new FileReaderSync();
    for (let off = 0; off < file.size; off += chunk) {
      const ab = r.readAsArrayBuffer(file.slice(off, Math.min(off + chunk, file.size)));
      own.set(new Uint8Array(ab));
      h ^= work(own, ab.byteLength, passes); done += ab.byteLength;
    }
  } else {
    const state = new Int32Array(ring.ctrl, 0, ring.slots), lens = new Int32Array(ring.ctrl, 4 * ring.slots, ring.slots);
    for (let i = 0; ; i++) {
      const s = i % ring.slots;
      Atomics.wait(state, s, 0);
      const n = lens[s];
      if (n === 0) break;
      own.set(new Uint8Array(ring.data, s * chunk, n));
      Atomics.store(state, s, 0); Atomics.notify(state, s);
      h ^= work(own, n, passes); done += n;
    }
  }
  self.postMessage({ ms: performance.now() - t0, done, h });
};`;

const reader = `
self.onmessage = async (e) => {
  const { file, chunk, ring } = e.data;
  const state = new Int32Array(ring.ctrl, 0, ring.slots), lens = new Int32Array(ring.ctrl, 4 * ring.slots, ring.slots);
  const read = (off) => off < file.size ? file.slice(off, Math.min(off + chunk, file.size)).arrayBuffer() : null;
  const inflight = [];
  let next = 0;
  for (let k = 0; k < 2; k++) { inflight.push(read(next)); next += chunk; }
  for (let i = 0; ; i++) {
    const s = i % ring.slots;
    const p = inflight.shift();
    inflight.push(read(next)); next += chunk;
    const ab = p ? await p : null;
    while (Atomics.load(state, s) !== 0) await Atomics.waitAsync(state, s, 1).value;
    if (ab) new Uint8Array(ring.data, s * chunk, ab.byteLength).set(new Uint8Array(ab));
    lens[s] = ab ? ab.byteLength : 0;
    Atomics.store(state, s, 1); Atomics.notify(state, s);
    if (!ab) break;
  }
};`;

const page = `<!doctype html><meta charset="utf-8"><input type="file" id="f"><script type="module">
window.run = (method, chunk, passes, slots) => new Promise((res) => {
  const file = document.getElementById('f').files[0];
  const p = new Worker('/parser.js', { type: 'module' });
  let ring = null;
  if (method === 'bridge') {
    ring = { slots, ctrl: new SharedArrayBuffer(8 * slots), data: new SharedArrayBuffer(slots * chunk) };
    const r = new Worker('/reader.js', { type: 'module' });
    r.postMessage({ file, chunk, ring });
    p.onmessage = (e) => { r.terminate(); p.terminate(); res(e.data); };
  } else p.onmessage = (e) => { p.terminate(); res(e.data); };
  p.postMessage({ file, method, chunk, passes, ring });
});
window.isolated = () => crossOriginIsolated;
</script>`;

const server = http.createServer((req, res) => {
  const body = req.url === '/parser.js' ? parser : req.url === '/reader.js' ? reader : page;
  res.writeHead(200, {
    'content-type': req.url.endsWith('.js') ? 'text/javascript' : 'text/html',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
  });
  res.end(body);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const { browser, close } = await launchChromium();
try {
  const tab = await browser.newPage();
  await tab.goto(`http://127.0.0.1:${server.address().port}/`);
  if (!(await tab.evaluate(() => window.isolated()))) throw new Error('page is not cross-origin isolated');
  await tab.setInputFiles('#f', file);
  console.log(`file ${(size / 1e6).toFixed(0)} MB, chunk ${chunk >> 20} MiB, ring ${slots} slots; chromium ${browser.version()}`);
  await tab.evaluate(([c]) => window.run('sync', c, 0, 0), [chunk]); // warm the page cache
  for (const passes of works) {
    for (const method of ['sync', 'bridge', 'sync', 'bridge']) {
      const r = await tab.evaluate(([m, c, p, s]) => window.run(m, c, p, s), [method, chunk, passes, slots]);
      if (r.done !== size) throw new Error(`${method}: ${r.done} of ${size} bytes`);
      console.log(`work ${passes} pass(es)  ${method.padEnd(6)}  ${(r.ms / 1000).toFixed(2).padStart(6)} s  ${Math.round(size / 1e3 / r.ms).toString().padStart(5)} MB/s`);
    }
  }
} finally {
  await close();
  server.close();
}
