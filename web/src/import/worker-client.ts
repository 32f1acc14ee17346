// The page's side of the worker: one worker per dump.
//
// At load the page fetches the worker's script and compiles the wasm module once, from its
// own origin; every worker is then started from that script (a blob: URL) and handed the
// compiled module, so opening the next file needs no network at all (the page keeps
// working with the network cut after load). A spare worker is started ahead of time;
// opening a file hands it the file, and cancelling terminates it at once. Whatever happens
// (done, error, cancel), the next file gets a fresh worker. After a dump is opened, its
// worker stays as the "holder" and answers queries until the next file.
import workerUrl from '../worker.ts?worker&url';
import wasmUrl from '../../pkg/heapscope_bg.wasm?url';
import type { AnalysisError, FromWorker, OpenOptions, Opened, Progress, Request, ToWorker } from '../protocol';
import { internalError, isAnalysisError } from '../protocol';

export interface RunHandlers {
  onProgress(progress: Progress): void;
}

interface Run {
  worker: Worker;
  reject(error: AnalysisError): void;
  settled: boolean;
}

interface Pending {
  resolve(json: string | null): void;
  reject(error: AnalysisError): void;
}

interface Holder {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Set when the worker died or its wasm instance trapped. */
  dead: AnalysisError | null;
}

interface Boot {
  /** What `new Worker` is given: a blob: URL of the fetched script, or its URL. */
  script: string;
  module: WebAssembly.Module | null;
  /** The module's absolute URL, for a worker that must load it itself. */
  wasm: string;
}

export const CANCELLED: AnalysisError = { kind: 'cancelled', offset: null, message: 'cancelled', text: 'cancelled' };

async function compileWasm(url: string): Promise<WebAssembly.Module> {
  const response = await fetch(url, { credentials: 'omit' });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  if (typeof WebAssembly.compileStreaming === 'function' && response.headers.get('content-type')?.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

async function fetchScript(url: string): Promise<string> {
  const response = await fetch(url, { credentials: 'omit' });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return URL.createObjectURL(new Blob([await response.blob()], { type: 'text/javascript' }));
}

/** Fetches and compiles once; falls back to plain URLs (the worker then loads its own wasm). */
async function bootstrap(): Promise<Boot> {
  const url = new URL(workerUrl, document.baseURI).href;
  const wasm = new URL(wasmUrl, document.baseURI).href;
  if (import.meta.env.DEV) return { script: url, module: null, wasm }; // dev server: modules with imports
  const [script, module] = await Promise.all([fetchScript(url).catch(() => url), compileWasm(wasm).catch(() => null)]);
  return { script, module, wasm };
}

export class AnalysisClient {
  private readonly boot: Promise<Boot> = bootstrap();
  private spare: Promise<Worker> | null = null;
  private failed = new WeakSet<Worker>();
  private run: Run | null = null;
  private holder: Holder | null = null;
  private nextId = 1;
  private versionListeners: ((version: string) => void)[] = [];
  private lostListeners: ((error: AnalysisError) => void)[] = [];
  private knownVersion: string | null = null;

  constructor() {
    this.prepareSpare();
  }

  /** Calls `listener` with the wasm module's version once a worker has loaded it. */
  onVersion(listener: (version: string) => void): void {
    if (this.knownVersion) listener(this.knownVersion);
    else this.versionListeners.push(listener);
  }

  /** Calls `listener` when the worker holding the open dump dies (crash, out of memory). */
  onDumpLost(listener: (error: AnalysisError) => void): void {
    this.lostListeners.push(listener);
  }

  /** True while a file is being read. */
  get busy(): boolean {
    return this.run !== null && !this.run.settled;
  }

  /** Analyzes a dump in a fresh worker. Rejects with an AnalysisError ('cancelled' on cancel). */
  open(file: Blob, options: OpenOptions, handlers: RunHandlers): Promise<Opened> {
    return this.start({ type: 'open', file, options }, handlers);
  }

  /** Opens a saved JSON report (no dump) in a fresh worker, which checks it against the core's types. */
  openReport(file: Blob): Promise<Opened> {
    return this.start({ type: 'open-report', file }, { onProgress: () => {} });
  }

  /**
   * Analyzes `file` in a worker of its own, beside the one holding the open dump, and
   * reduces it to its report: the worker (with all its memory) is terminated as soon as the
   * report's JSON is out, or on `cancel()` (then `report` rejects with CANCELLED). Used for a
   * comparison's baseline.
   */
  analyzeApart(file: Blob, options: OpenOptions, handlers: RunHandlers): { report: Promise<string>; cancel(): void } {
    let worker: Worker | null = null;
    let settled = false;
    let fail: (error: AnalysisError) => void = () => {};
    const report = new Promise<string>((resolve, reject) => {
      fail = reject;
      void this.createWorker().then((w) => {
        if (settled) return w.terminate();
        worker = w;
        const finish = (): void => {
          settled = true;
          w.terminate();
        };
        w.onmessage = (event: MessageEvent<FromWorker>) => {
          const m = event.data;
          if (settled) return;
          if (m.type === 'progress') handlers.onProgress(m.progress);
          else if (m.type === 'opened') {
            finish();
            resolve(m.reportJson);
          } else if (m.type === 'error') {
            finish();
            reject(m.error);
          } else if (m.type === 'ready') this.noteVersion(m.version);
        };
        w.onerror = (event: ErrorEvent) => {
          event.preventDefault();
          if (settled) return;
          finish();
          reject(internalError(`the worker analyzing the baseline stopped: ${event.message || 'it could not be started'}`));
        };
        const msg: ToWorker = { type: 'open', file, options };
        w.postMessage(msg);
      }, reject);
    });
    return {
      report,
      cancel: () => {
        if (settled) return;
        settled = true;
        worker?.terminate();
        fail(CANCELLED);
      },
    };
  }

  /** Asks the worker holding the open dump; resolves with the answer's JSON text. */
  request(request: Request): Promise<string | null> {
    const holder = this.holder;
    if (!holder) return Promise.reject(internalError('no dump is open'));
    if (holder.dead) return Promise.reject(holder.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      holder.pending.set(id, { resolve, reject });
      const msg: ToWorker = { type: 'request', id, request };
      holder.worker.postMessage(msg);
    });
  }

  /** Stops the current run at once (terminates its worker); no-op when idle. */
  cancel(): void {
    const run = this.run;
    if (!run || run.settled) return;
    run.settled = true;
    this.run = null;
    run.worker.terminate();
    run.reject(CANCELLED);
    this.prepareSpare();
  }

  /** Frees the worker holding the last dump, with all its memory. */
  closeDump(): void {
    const holder = this.holder;
    this.holder = null;
    if (!holder) return;
    holder.worker.terminate();
    for (const p of holder.pending.values()) p.reject(internalError('the dump was closed'));
    holder.pending.clear();
  }

  private async start(msg: ToWorker, handlers: RunHandlers): Promise<Opened> {
    this.cancel();
    this.closeDump();
    const spare = this.spare;
    this.spare = null;
    let worker = spare ? await spare : null;
    if (worker && this.failed.has(worker)) {
      worker.terminate();
      worker = null;
    }
    worker ??= await this.createWorker();
    const w = worker;
    return new Promise<Opened>((resolve, reject) => {
      const run: Run = { worker: w, reject, settled: false };
      this.run = run;
      const finish = (): void => {
        run.settled = true;
        if (this.run === run) this.run = null;
        this.prepareSpare();
      };
      w.onmessage = (event: MessageEvent<FromWorker>) => {
        if (run.settled) return;
        const m = event.data;
        if (m.type === 'progress') handlers.onProgress(m.progress);
        else if (m.type === 'opened') {
          finish();
          this.hold(w);
          resolve(m);
        } else if (m.type === 'error') {
          finish();
          w.terminate(); // a worker that failed is never reused
          reject(m.error);
        } else if (m.type === 'ready') this.noteVersion(m.version);
      };
      w.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        if (run.settled) return;
        finish();
        w.terminate();
        reject(internalError(`the analysis worker stopped: ${event.message || 'it could not be started'}. The page is ready for another file.`));
      };
      w.postMessage(msg);
    });
  }

  /** Keeps `worker` (it holds the dump) to answer queries. */
  private hold(worker: Worker): void {
    const holder: Holder = { worker, pending: new Map(), dead: null };
    this.holder = holder;
    const lose = (error: AnalysisError): void => {
      if (holder.dead) return;
      holder.dead = error;
      for (const p of holder.pending.values()) p.reject(error);
      holder.pending.clear();
      if (this.holder === holder) for (const l of this.lostListeners) l(error);
    };
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const m = event.data;
      if (m.type !== 'answer' && m.type !== 'answer-error') return;
      const p = holder.pending.get(m.id);
      holder.pending.delete(m.id);
      if (m.type === 'answer') p?.resolve(m.json);
      else {
        p?.reject(m.error);
        if (m.fatal) {
          worker.terminate();
          lose(m.error);
        }
      }
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      worker.terminate();
      lose(internalError(`the worker holding this dump stopped: ${event.message || 'unknown error'}`));
    };
  }

  private prepareSpare(): void {
    if (this.spare) return;
    // Started when the page is idle, so it never competes with a running analysis.
    const spare = new Promise<Worker>((resolve) => {
      const start = (): void => resolve(this.createWorker());
      if ('requestIdleCallback' in window) window.requestIdleCallback(start, { timeout: 1000 });
      else setTimeout(start, 50);
    });
    this.spare = spare;
  }

  private async createWorker(): Promise<Worker> {
    const boot = await this.boot;
    const worker = new Worker(boot.script, { type: 'module', name: 'heapscope' });
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      if (event.data.type === 'ready') this.noteVersion(event.data.version);
    };
    // A worker whose script failed to load is not handed a file (a fresh one is made).
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.failed.add(worker);
    };
    const init: ToWorker = { type: 'init', module: boot.module, wasmUrl: boot.wasm };
    worker.postMessage(init);
    return worker;
  }

  private noteVersion(version: string): void {
    if (this.knownVersion) return;
    this.knownVersion = version;
    for (const l of this.versionListeners) l(version);
    this.versionListeners = [];
  }
}

export { isAnalysisError };
