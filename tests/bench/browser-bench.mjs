// The page's analysis of big dumps in headless Chromium: drop-to-report time, time per
// phase and peak wasm memory (the worker's WebAssembly.Memory size, sent with every
// progress message and at the end), or the error when the tab cannot take the dump.
// Not a test: a measurement.
//
//   npm run build
//   node tests/bench/browser-bench.mjs DUMP...            (default: /work/big/big-1g.hprof)
//   node tests/bench/browser-bench.mjs --cli DUMP...      (also time the native CLI on each)
//   node tests/bench/browser-bench.mjs --log FILE DUMP    (write the large allocations' log)
//   node tests/bench/browser-bench.mjs --shots DIR DUMP   (screenshots of the overview and the treemap)
//   node tests/bench/browser-bench.mjs --eager DUMP       (drop before the warm-up has finished)
//
// The file is dropped once the page has settled: its spare worker has finished the warm-up
// (crate/src/warm_up.rs, about 1 s) that it runs right after loading, as it has long before a
// user drops a file. With --eager it is dropped as soon as the page shows its version, and the
// file waits for the rest of the warm-up: the time to a report then counts part of it.
//
// On a shared machine wall time says little: each phase's line also gives the CPU time
// the worker's thread spent in it (Linux: /proc's per-thread counters of Chromium's
// "DedicatedWorker" threads, sampled every 50 ms; 10 ms resolution).
//
// Make dumps with tests/bench/make-big.sh SIZE_GB DIR (e.g. 1, 2, 3, 4; needs SIZE_GB of free
// disk each; ../shared/corpus/make-big.sh caps them at 2 GiB). Prints one line per dump,
// with its phases, and a JSON summary at the end.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../e2e/helpers/browser.mjs';
import { CLI } from '../e2e/helpers/cli.mjs';
import { startServer } from '../e2e/helpers/server.mjs';

const args = process.argv.slice(2);
const withCli = args.includes('--cli');
const eager = args.includes('--eager');
// --log FILE: write the worker's log of large allocations (heap_stats.rs) there.
const logAt = args.indexOf('--log');
const logFile = logAt >= 0 ? args[logAt + 1] : null;
// --shots DIR: once the report is shown, screenshot the overview and the treemap there.
const shotsAt = args.indexOf('--shots');
const shotsDir = shotsAt >= 0 ? args[shotsAt + 1] : null;
const dumps = args.filter((a, i) => !a.startsWith('--') && (logAt < 0 || i !== logAt + 1) && (shotsAt < 0 || i !== shotsAt + 1));
if (!dumps.length) dumps.push('/work/big/big-1g.hprof');
for (const d of dumps) if (!fs.existsSync(d)) throw new Error(`${d} not found (make it with tests/bench/make-big.sh)`);

/** Samples of the CPU time (seconds) of every Chromium worker thread: [epoch ms, Map tid -> s]. */
const cpuSamples = [];
function sampleCpu() {
  const now = Date.now();
  const byTid = new Map();
  let pids = [];
  try { pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)); } catch { return; }
  for (const pid of pids) {
    let tids = [];
    try { tids = fs.readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const tid of tids) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const close = stat.lastIndexOf(')');
        if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('DedicatedWorker')) continue;
        const f = stat.slice(close + 2).split(' ');
        byTid.set(`${pid}/${tid}`, (Number(f[11]) + Number(f[12])) / 100);
      } catch { /* the thread ended */ }
    }
  }
  cpuSamples.push([now, byTid]);
}
/** CPU seconds the busiest worker thread spent between two epoch times (nearest samples). */
function workerCpu(fromMs, toMs) {
  const at = (t) => cpuSamples.reduce((best, s) => (Math.abs(s[0] - t) < Math.abs(best[0] - t) ? s : best), cpuSamples[0]);
  const a = at(fromMs)[1];
  const b = at(toMs)[1];
  let best = 0;
  for (const [tid, v] of b) best = Math.max(best, v - (a.get(tid) ?? 0));
  return best;
}

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const fmt = (bytes) => (bytes >= GiB ? `${(bytes / GiB).toFixed(2)} GiB` : `${(bytes / MiB).toFixed(0)} MiB`);

async function benchOne(browser, url, file) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const foreign = [];
  context.on('request', (r) => {
    if (!r.url().startsWith(url) && !r.url().startsWith('blob:') && !r.url().startsWith('data:')) foreign.push(r.url());
  });
  // Phase changes and memory as the page shows them (the worker's progress messages).
  await page.addInitScript(() => {
    const w = window;
    w.__phases = [];
    w.__peak = 0;
    new MutationObserver(() => {
      const el = document.getElementById('progress');
      if (!el) return;
      const phase = el.dataset.phase;
      const memory = Number(el.dataset.memoryBytes || 0);
      if (phase && w.__phases[w.__phases.length - 1]?.phase !== phase) w.__phases.push({ phase, t: performance.now(), memory });
      // The memory a phase ends with: the last figure seen while it ran.
      const last = w.__phases[w.__phases.length - 1];
      if (last) last.memory = Math.max(last.memory, memory);
      w.__peak = Math.max(w.__peak, memory);
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-phase', 'data-memory-bytes'] });
  });
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('version')?.textContent.length > 0);
  if (!eager) await warmedUp(page);
  const start = await page.evaluate(() => performance.now());
  const t0 = Date.now();
  cpuSamples.length = 0;
  sampleCpu();
  const sampler = setInterval(sampleCpu, 50);
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('main').dataset.mode) && document.getElementById('progress').hidden, null, { timeout: 60 * 60_000, polling: 250 });
  const wall = (Date.now() - t0) / 1000;
  clearInterval(sampler);
  sampleCpu();
  const cpu = workerCpu(t0, Date.now());
  // The worker's own record of each phase (wall time, bytes read from the file, what the
  // allocator held at most and at the end, the linear memory at the end), and the log of
  // large allocations, when the analysis finished.
  let records = null;
  let heapLog = null;
  let readAhead = null;
  let warmUp = null;
  for (const w of page.workers()) {
    const got = await w.evaluate(() => {
      const h = self.__heapscope;
      return h?.session ? { records: h.session.phase_stats(), log: h.heapLog(), readAhead: h.readAhead ?? false, warmUp: h.warmUpSeconds ?? null } : null;
    }).catch(() => null);
    if (got) {
      records = JSON.parse(got.records);
      heapLog = JSON.parse(got.log);
      readAhead = got.readAhead;
      warmUp = got.warmUp;
    }
  }
  const result = await page.evaluate((startMs) => {
    const mode = document.getElementById('main').dataset.mode;
    const facts = document.getElementById('run-facts');
    const end = performance.now();
    const phases = window.__phases.map((p, i, all) => ({ phase: p.phase, seconds: ((all[i + 1]?.t ?? end) - p.t) / 1000, memory: p.memory }));
    const firstPhase = window.__phases[0]?.t ?? end;
    const objects = document.querySelector('#view-overview [data-fact="objects"]')?.dataset.value;
    return {
      mode,
      workerSeconds: Number(facts?.dataset.seconds ?? NaN),
      peakMemory: Math.max(Number(facts?.dataset.memoryBytes ?? 0), window.__peak),
      phases,
      startupSeconds: (firstPhase - startMs) / 1000,
      objects: objects ? Number(objects) : null,
      error: mode === 'error' ? { kind: document.getElementById('error').dataset.kind, text: document.getElementById('error-message').textContent } : null,
    };
  }, start);
  if (shotsDir && result.mode === 'done') result.shots = await screenshots(page, path.basename(file));
  await context.close();
  if (records) for (const r of records) r.cpuSeconds = workerCpu(r.startMs, r.endMs);
  return { file, bytes: fs.statSync(file).size, wall, cpu, readAhead, warmUp, foreign, records, heapLog, ...result };
}

/** Waits until a worker of the page has finished its warm-up (it records how long it took). */
async function warmedUp(page) {
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    for (const w of page.workers()) {
      const done = await w.evaluate(() => self.__heapscope?.warmUpSeconds !== undefined).catch(() => false);
      if (done) return;
    }
  }
  throw new Error('the page did not finish its warm-up within 60 s');
}

/** The overview and the treemap (its canvas drawn with items), as PNG files in shotsDir. */
async function screenshots(page, name) {
  fs.mkdirSync(shotsDir, { recursive: true });
  const overview = path.join(shotsDir, `${name}-overview.png`);
  await page.screenshot({ path: overview, fullPage: true });
  await page.click('#tab-treemap');
  await page.waitForFunction(() => Number(document.getElementById('treemap-canvas')?.dataset.items) > 0, null, { timeout: 10 * 60_000 });
  // And the levels drawn inside the biggest rectangles (their children queries answered).
  await page.waitForFunction(() => document.getElementById('treemap-canvas')?.dataset.nested !== undefined, null, { timeout: 10 * 60_000 });
  const treemap = path.join(shotsDir, `${name}-treemap.png`);
  // The canvas in the viewport (a full-page shot resizes the viewport, and the canvas redraws).
  await page.locator('#treemap-canvas').scrollIntoViewIfNeeded();
  await page.screenshot({ path: treemap });
  const items = Number(await page.locator('#treemap-canvas').getAttribute('data-items'));
  const nested = Number(await page.locator('#treemap-canvas').getAttribute('data-nested'));
  return { overview, treemap, treemapItems: items, treemapNested: nested };
}

/** The native CLI on the same dump: exit status, wall seconds, peak RSS (GNU time). */
function cliRun(file) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', CLI, 'analyze', file, '--format', 'json', '-o', '/dev/null'], { encoding: 'utf8' });
  const [secs, kb] = (r.stderr ?? '').trim().split('\n').pop().split(' ');
  return `exit ${r.status}, ${secs} s, peak RSS ${fmt(Number(kb) * 1024)}`;
}

// BENCH_SITE: serve another build of the page (an A/B run), default www/.
const server = await startServer(process.env.BENCH_SITE || undefined);
const chromium = await launchChromium();
const results = [];
try {
  for (const file of dumps) {
    process.stdout.write(`${path.basename(file)} (${fmt(fs.statSync(file).size)}): `);
    const r = await benchOne(chromium.browser, server.url, file);
    results.push(r);
    if (r.mode === 'done') {
      const perObject = r.objects ? (r.peakMemory / r.objects).toFixed(1) : '?';
      console.log(`report in ${r.wall.toFixed(1)} s (worker ${r.workerSeconds.toFixed(1)} s, worker thread CPU ${r.cpu.toFixed(1)} s, read-ahead ${r.readAhead ? 'on' : 'off'}, warm-up ${r.warmUp === null ? 'none' : `${r.warmUp.toFixed(2)} s ${eager ? 'before the drop or while the file waited' : 'before the drop'}`}, load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}), peak wasm memory ${fmt(r.peakMemory)} (${perObject} B/object, ${r.objects?.toLocaleString('en-US')} objects)`);
    } else {
      console.log(`${r.error?.kind} error after ${r.wall.toFixed(1)} s, wasm memory ${fmt(r.peakMemory)}: ${r.error?.text}`);
    }
    if (r.records) {
      // The worker's records: exact phase boundaries, bytes read, allocator vs linear memory.
      for (const p of r.records) {
        console.log(`    ${p.phase.padEnd(30)} ${((p.endMs - p.startMs) / 1000).toFixed(1).padStart(7)} s (CPU ${p.cpuSeconds.toFixed(1).padStart(5)} s)   read ${fmt(p.bytesRead).padStart(9)}   allocator peak ${fmt(p.peakAllocated).padStart(9)}, at end ${fmt(p.allocated).padStart(9)}   wasm memory at end ${fmt(p.memory)}`);
      }
      if (logFile) fs.writeFileSync(logFile, JSON.stringify(r.heapLog));
    } else {
      for (const p of r.phases) console.log(`    ${p.phase.padEnd(30)} ${p.seconds.toFixed(1).padStart(7)} s   wasm memory by its end ${fmt(p.memory)}`);
    }
    if (r.shots) console.log(`    screenshots: ${r.shots.overview}, ${r.shots.treemap} (treemap of ${r.shots.treemapItems} items, ${r.shots.treemapNested} drawn inside them)`);
    if (r.foreign.length) console.log(`    REQUESTS TO OTHER ORIGINS: ${r.foreign.join(', ')}`);
    if (withCli && fs.existsSync(CLI)) {
      console.log(`    native CLI: ${cliRun(file)}`);
    }
  }
} finally {
  await chromium.close();
  await server.stop();
}
console.log(JSON.stringify(results.map(({ file, bytes, wall, cpu, workerSeconds, peakMemory, objects, mode, error, phases, records }) => ({ file, bytes, mode, wall, cpu, workerSeconds, peakMemory, objects, error, phases, records })), null, 1));
