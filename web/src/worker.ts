// The analysis worker: instantiates heapscope's wasm module (compiled once by the page and
// handed over, so new workers need no network) and analyzes one dump, reading the dropped
// File synchronously in chunks (FileReaderSync) from inside wasm, so the page's thread
// never blocks. Then it answers the page's queries about that dump.
//
// The page terminates this worker to cancel, and uses a new worker for the next file (wasm
// memory never shrinks, so each dump starts on a clean heap). A wasm trap (a failed
// allocation aborts; a panic) leaves the instance unusable: it is reported as such, never
// swallowed, and later queries are refused with the same message.
import init, { Session, heapLog, memoryLimit, version, warmUp, wasmPeakEstimate } from '../pkg/heapscope.js';
import { cliCommand } from './lib/cli';
import { formatBytes } from './lib/format';
import { runReader, startReadAhead, type ReadAheadMessage } from './import/read-ahead';
import { loadFailure } from './import/wasm-support';
import type { AnalysisError, FromWorker, OpenOptions, Progress, Request, ToWorker } from './protocol';
import { internalError } from './protocol';

interface WorkerScope {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  __heapscope?: { memory: WebAssembly.Memory | null; memoryBefore: number; session: Session | null; heapLog: () => string; peakEstimate: (objects: number) => number; readAhead?: boolean; warmUpSeconds?: number };
}
const scope = self as unknown as WorkerScope;
const post = (message: FromWorker): void => scope.postMessage(message);

/**
 * The warm-up (crate/src/warm_up.rs): a synthetic dump of this many customers (71 objects
 * each) analyzed this many times, right after the module loads, while this (spare) worker
 * waits for a file: V8 then runs the analysis' long loops in optimized code instead of its
 * baseline code (wasm has no on-stack replacement). 0.7 CPU-s under node; the memory it
 * takes (about 28 MiB) is free again for the analysis.
 */
const WARM_UP = { customers: 2000, rounds: 4 };

/** Above this much linear memory, a trap is taken for an allocation failure. */
const NEAR_FULL = 3.5 * 2 ** 30;

let memory: WebAssembly.Memory | null = null;
let session: Session | null = null;
let loadError: AnalysisError | null = null;
/** Set once the instance has trapped: nothing may run in it any more. */
let dead: AnalysisError | null = null;
let ready: Promise<void> | null = null;
let fileName = 'DUMP';

// Diagnostics from the devtools console (and the tests, the benchmark): the wasm memory,
// the session (its phase_stats()), the log of large allocations, the wasm memory when the
// analysis started and the page's estimate of its growth.
// (The estimate for the dump this worker analyzed: with or without read-ahead.)
scope.__heapscope = { memory: null, memoryBefore: 0, session: null, heapLog, peakEstimate: (objects) => wasmPeakEstimate(objects, scope.__heapscope?.readAhead ?? false) };

const memoryBytes = (): number => memory?.buffer.byteLength ?? 0;

function start(module: WebAssembly.Module | string | null): Promise<void> {
  return init(module ? { module_or_path: module } : undefined).then(
    (exports) => {
      memory = exports.memory;
      scope.__heapscope!.memory = memory;
      post({ type: 'ready', version: version() });
      warm();
    },
    (e: unknown) => {
      loadError = internalError(loadFailure(describe(e)));
    },
  );
}

/** Runs the warm-up; a file sent meanwhile waits for it (it runs before `ready` resolves). */
function warm(): void {
  // The estimate of the analysis' growth counts from a fresh instance.
  scope.__heapscope!.memoryBefore = memoryBytes();
  const t0 = performance.now();
  try {
    warmUp(WARM_UP.customers, WARM_UP.rounds);
  } catch (e) {
    // Only speed is lost, unless the instance trapped: then nothing may run in it.
    if (e instanceof WebAssembly.RuntimeError) loadError = toAnalysisError(e);
  }
  scope.__heapscope!.warmUpSeconds = (performance.now() - t0) / 1000;
}

scope.onmessage = async (event) => {
  const msg = event.data;
  // This script also runs as the read-ahead worker an analysis worker starts (read-ahead.ts).
  if ((msg as unknown as ReadAheadMessage).type === 'read-ahead') return runReader(msg as unknown as ReadAheadMessage, (m) => scope.postMessage(m as FromWorker));
  if (msg.type === 'init') {
    ready ??= start(msg.module ?? msg.wasmUrl);
    return;
  }
  ready ??= start(null);
  await ready;
  if (loadError) {
    if (msg.type === 'request') return post({ type: 'answer-error', id: msg.id, error: loadError, fatal: true });
    return post({ type: 'error', error: loadError });
  }
  if (msg.type === 'open') return await open(msg.file, msg.options);
  if (msg.type === 'open-report') return openReport(msg.file);
  if (msg.type === 'request') return request(msg.id, msg.request);
};

async function open(file: Blob, options: OpenOptions): Promise<void> {
  if (session) return post({ type: 'error', error: internalError('this worker already holds a dump (the page opens each dump in a new worker)') });
  fileName = file instanceof File ? file.name : 'DUMP';
  const t0 = performance.now();
  const limit = memoryLimit(options.memoryLimit ?? null);
  // Reading overlapped with parsing when the page is cross-origin isolated (else null).
  const ahead = await startReadAhead(file, self.location.href);
  const global = globalThis as { heapscopeReadAhead?: (start: number, end: number) => Uint8Array | undefined };
  if (ahead) global.heapscopeReadAhead = (start, end) => ahead.readAhead.read(start, end);
  scope.__heapscope!.readAhead = ahead !== null;
  try {
    session = Session.open(file, options, (p: Omit<Progress, 'memoryBytes'>) => post({ type: 'progress', progress: { ...p, memoryBytes: memoryBytes() } }));
    scope.__heapscope!.session = session;
    post({ type: 'opened', reportJson: session.report_json(), hasDump: true, seconds: (performance.now() - t0) / 1000, memoryBytes: memoryBytes(), memoryLimit: limit });
  } catch (e) {
    post({ type: 'error', error: toAnalysisError(e) });
  } finally {
    ahead?.stop();
    delete global.heapscopeReadAhead;
  }
}

async function openReport(file: Blob): Promise<void> {
  if (session) return post({ type: 'error', error: internalError('this worker already holds a report') });
  const t0 = performance.now();
  try {
    if (file.size > 256 * 2 ** 20) throw formatError(`${describeSize(file.size)} is too big for a heapscope JSON report (reports stay small whatever the dump's size)`);
    const text = await file.text();
    session = Session.from_report_json(text);
    scope.__heapscope!.session = session;
    post({ type: 'opened', reportJson: session.report_json(), hasDump: false, seconds: (performance.now() - t0) / 1000, memoryBytes: memoryBytes(), memoryLimit: 0 });
  } catch (e) {
    post({ type: 'error', error: toAnalysisError(e) });
  }
}

function request(id: number, req: Request): void {
  if (dead) return post({ type: 'answer-error', id, error: dead, fatal: true });
  const s = session;
  if (!s) return post({ type: 'answer-error', id, error: internalError('no dump is open in this worker'), fatal: false });
  try {
    let json: string | null;
    if (req.kind === 'query') json = s.query(JSON.stringify(req.query));
    else if (req.kind === 'mapping') json = s.apply_mapping(req.text);
    else if (req.kind === 'check-report') {
      Session.check_report_json(req.text);
      json = null;
    }
    else if (req.kind === 'compare') json = s.compare_with_baseline(req.baseline, req.format, req.sort, undefined);
    else if (req.kind === 'loader-names') json = s.stable_loader_names();
    else if (req.kind === 'tree') json = s.set_tree(req.tree);
    else if (req.format === 'markdown') json = s.markdown();
    else if (req.format === 'markdown_graphs') json = s.markdown_graphs();
    else json = s.html();
    post({ type: 'answer', id, json });
  } catch (e) {
    const error = toAnalysisError(e);
    post({ type: 'answer-error', id, error, fatal: dead !== null });
  }
}

function toAnalysisError(e: unknown): AnalysisError {
  if (typeof e === 'object' && e !== null && 'kind' in e && 'message' in e) return e as AnalysisError;
  if (e instanceof WebAssembly.RuntimeError) {
    // The instance is unusable after a trap. A panic (a bug) left its message through the
    // hook in crate/src/wasm/mod.rs; an allocation failure aborts without one.
    const panic = (globalThis as { __heapscopePanic?: string }).__heapscopePanic;
    const used = memoryBytes();
    let error: AnalysisError;
    if (panic) {
      error = internalError(`heapscope crashed (a bug; please report it): ${panic}`);
    } else if (used >= NEAR_FULL) {
      const message = `out of memory: the analysis needed more than the ${describeSize(used)} of memory a browser tab can give it (${e.message}). ` +
        `The command-line tool has no such limit: ${cliCommand(fileName)}`;
      error = { kind: 'memory', offset: null, message, text: message };
    } else {
      error = internalError(`heapscope's WebAssembly code stopped (${e.message}) with ${describeSize(used)} of memory in use: ` +
        `most likely the browser refused it more memory. The command-line tool has no such limit: ${cliCommand(fileName)}`);
    }
    dead = error;
    session = null;
    return error;
  }
  if (e instanceof RangeError) {
    const message = `out of memory: ${e.message}`;
    return { kind: 'memory', offset: null, message, text: message };
  }
  return internalError(describe(e));
}

function formatError(message: string): AnalysisError {
  return { kind: 'format', offset: 0, message, text: `at byte 0 (0x0): ${message}` };
}

function describeSize(bytes: number): string {
  return formatBytes(bytes);
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
