// The page's side of the worker: one worker per dump. A spare worker is started ahead of
// time (so the wasm module is compiled before the user picks a file); opening a file hands
// it the file, and cancelling terminates it at once. Whatever happens (done, error,
// cancel), the next file gets a fresh worker.
import type { AnalysisError, FromWorker, OpenOptions, Progress, Summary, ToWorker } from '../protocol';
import { isAnalysisError } from '../protocol';

export interface OpenResult {
  summary: Summary;
  seconds: number;
}

export interface RunHandlers {
  onProgress(progress: Progress): void;
}

interface Run {
  worker: Worker;
  reject(error: AnalysisError): void;
  settled: boolean;
}

export const CANCELLED: AnalysisError = { kind: 'cancelled', offset: null, message: 'cancelled', text: 'cancelled' };

export class AnalysisClient {
  private spare: Worker | null = null;
  private failed = new WeakSet<Worker>();
  private run: Run | null = null;
  /** The worker that holds the last opened dump (kept for queries once the core lands). */
  private holder: Worker | null = null;
  private versionListeners: ((version: string) => void)[] = [];
  private knownVersion: string | null = null;

  constructor() {
    this.prepareSpare();
  }

  /** Calls `listener` with the wasm module's version once a worker has loaded it. */
  onVersion(listener: (version: string) => void): void {
    if (this.knownVersion) listener(this.knownVersion);
    else this.versionListeners.push(listener);
  }

  /** True while a file is being read. */
  get busy(): boolean {
    return this.run !== null && !this.run.settled;
  }

  /** Opens `file` in a fresh worker. Rejects with an AnalysisError (kind 'cancelled' on cancel). */
  open(file: Blob, options: OpenOptions, handlers: RunHandlers): Promise<OpenResult> {
    this.cancel();
    this.closeDump();
    const spare = this.spare && !this.failed.has(this.spare) ? this.spare : null;
    if (this.spare && !spare) this.spare.terminate();
    const worker = spare ?? this.createWorker();
    this.spare = null;
    return new Promise<OpenResult>((resolve, reject) => {
      const run: Run = { worker, reject, settled: false };
      this.run = run;
      const finish = (): void => {
        run.settled = true;
        if (this.run === run) this.run = null;
        this.prepareSpare();
      };
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        if (run.settled) return;
        const msg = event.data;
        if (msg.type === 'progress') handlers.onProgress(msg.progress);
        else if (msg.type === 'opened') {
          finish();
          this.holder = worker;
          resolve({ summary: msg.summary, seconds: msg.seconds });
        } else if (msg.type === 'error') {
          finish();
          worker.terminate(); // a worker that failed is never reused
          reject(msg.error);
        } else if (msg.type === 'ready') this.noteVersion(msg.version);
      };
      worker.onerror = (event: ErrorEvent) => {
        if (run.settled) return;
        event.preventDefault();
        finish();
        worker.terminate();
        const message = `the analysis worker failed: ${event.message || 'it could not be started'}`;
        reject({ kind: 'internal', offset: null, message, text: message });
      };
      const msg: ToWorker = { type: 'open', file, options };
      worker.postMessage(msg);
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
    this.holder?.terminate();
    this.holder = null;
  }

  private prepareSpare(): void {
    if (this.spare) return;
    // Started when the page is idle, so it never competes with a running analysis.
    const start = (): void => {
      if (!this.spare && !this.busy) this.spare = this.createWorker();
    };
    if ('requestIdleCallback' in window) window.requestIdleCallback(start, { timeout: 1000 });
    else setTimeout(start, 50);
  }

  private createWorker(): Worker {
    const worker = new Worker(new URL('../worker.ts', import.meta.url), { type: 'module', name: 'heapscope' });
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      if (event.data.type === 'ready') this.noteVersion(event.data.version);
    };
    // A worker whose script failed to load is not handed a file (a fresh one is made).
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.failed.add(worker);
    };
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
