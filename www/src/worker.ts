// The analysis worker: loads heapscope's wasm module and opens one dump, reading the
// dropped File synchronously in chunks (FileReaderSync) from inside wasm, so the page's
// thread never blocks. The page terminates this worker to cancel, and uses a new worker
// for the next file (wasm memory never shrinks, so each dump starts on a clean heap).
import init, { Session, version } from '../pkg/heapscope.js';
import type { AnalysisError, FromWorker, Progress, ToWorker } from './protocol';

interface WorkerScope {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const post = (message: FromWorker): void => scope.postMessage(message);

let session: Session | null = null;
let loadError: AnalysisError | null = null;

const ready = init().then(
  () => post({ type: 'ready', version: version() }),
  (e: unknown) => {
    loadError = internalError(`could not load heapscope's WebAssembly module: ${describe(e)}`);
    post({ type: 'error', error: loadError });
  },
);

scope.onmessage = async (event) => {
  await ready;
  if (loadError) return post({ type: 'error', error: loadError });
  const msg = event.data;
  if (msg.type !== 'open') return;
  if (session) {
    return post({ type: 'error', error: internalError('this worker already holds a dump (the page opens each dump in a new worker)') });
  }
  const t0 = performance.now();
  try {
    session = Session.open(msg.file, msg.options, (progress: Progress) => post({ type: 'progress', progress }));
    post({ type: 'opened', summary: session.summary(), seconds: (performance.now() - t0) / 1000 });
  } catch (e) {
    post({ type: 'error', error: toAnalysisError(e) });
  }
};

function toAnalysisError(e: unknown): AnalysisError {
  if (typeof e === 'object' && e !== null && 'kind' in e && 'message' in e) return e as AnalysisError;
  if (e instanceof WebAssembly.RuntimeError) {
    // A panic (a bug): the hook in crate/src/wasm/mod.rs left its message here.
    const panic = (globalThis as { __heapscopePanic?: string }).__heapscopePanic;
    return internalError(`heapscope crashed (a bug; please report it): ${panic ?? e.message}`);
  }
  if (e instanceof RangeError) {
    return { kind: 'memory', offset: null, message: `out of memory: ${e.message}`, text: `out of memory: ${e.message}` };
  }
  return internalError(describe(e));
}

function internalError(message: string): AnalysisError {
  return { kind: 'internal', offset: null, message, text: message };
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
