import type { Query } from './generated/query';

// Messages between the page and its worker (web/src/worker.ts). The worker owns one dump:
// the page starts a fresh worker for each file and terminates it to cancel or close.
// Report and query answers cross as JSON strings of the core's types (web/src/generated/).

/** Options for opening a dump (crate/src/wasm/session.rs `OpenOptions`). */
export interface OpenOptions {
  /** Bytes per FileReaderSync read; default 16 MiB. */
  chunkSize?: number;
  /** MAT's keep_unreachable_objects. */
  keepUnreachable?: boolean;
  /** A lower memory limit than the wasm memory allows (bytes). */
  memoryLimit?: number;
  /** The text of a ProGuard/R8 mapping file (mapping.txt) to deobfuscate names with. */
  mapping?: string;
  /** The heap-dump snapshot to analyze (1-based) when the file holds several; default the last. */
  snapshot?: number;
}

/** Sent a few times a second. `bytesDone`/`bytesTotal` count input (compressed) bytes. */
export interface Progress {
  phase: string;
  bytesDone: number;
  bytesTotal: number | null;
  objects: number;
  /** The worker's wasm linear memory (bytes) when this was sent. */
  memoryBytes: number;
}

export type ErrorKind = 'format' | 'io' | 'memory' | 'cancelled' | 'internal';

/** An error from the worker. `offset` is a byte offset in the decoded HPROF stream. */
export interface AnalysisError {
  kind: ErrorKind;
  offset: number | null;
  message: string;
  /** The full sentence, with the offset ("at byte 123 (0x7b): ..."). */
  text: string;
}

/** What the worker sends besides query answers: the report rendered for people. */
export type Rendering = 'markdown' | 'html';

/**
 * A request to the worker holding a dump: a typed query of the core (crate/src/query/,
 * generated into ./generated/query.ts), or a rendering of the report.
 */
export type Request =
  | { kind: 'query'; query: Query }
  | { kind: 'render'; format: Rendering }
  /** Applies a ProGuard/R8 mapping's text; the answer is the rebuilt report's JSON. */
  | { kind: 'mapping'; text: string }
  /** Whether a saved report can be a side of a comparison (answer null; errors in the CLI's words). */
  | { kind: 'check-report'; text: string }
  /** This report compared with a baseline report, as `heapscope compare BASELINE CURRENT
   * --format FORMAT --sort SORT` writes it. */
  | { kind: 'compare'; baseline: string; format: CompareFormat; sort: CompareSort }
  /** `{report loader label: the comparison's stable loader name}` of this report. */
  | { kind: 'loader-names' }
  /** Makes `tree` the dominator tree the queries and retained sizes answer from (computed
   * on the first switch to it); the answer is the report's JSON in that reading. */
  | { kind: 'tree'; tree: 'mat' | 'strength' };

export type CompareFormat = 'json' | 'md' | 'html';
export type CompareSort = 'instances' | 'shallow' | 'retained';

export type ToWorker =
  /** The compiled module, or null: then the worker loads it from `wasmUrl` (absolute: a blob: script has no base). */
  | { type: 'init'; module: WebAssembly.Module | null; wasmUrl: string }
  | { type: 'open'; file: Blob; options: OpenOptions }
  | { type: 'open-report'; file: Blob }
  | { type: 'request'; id: number; request: Request };

export interface Opened {
  type: 'opened';
  /** Exactly `report::to_json` (what `heapscope analyze --format json` writes). */
  reportJson: string;
  /** False for a report opened from its JSON. */
  hasDump: boolean;
  seconds: number;
  /** Wasm linear memory after the analysis: its peak (it never shrinks). */
  memoryBytes: number;
  /** The memory limit the analysis was given (bytes). */
  memoryLimit: number;
}

export type FromWorker =
  | { type: 'ready'; version: string }
  | { type: 'progress'; progress: Progress }
  | Opened
  | { type: 'error'; error: AnalysisError }
  | { type: 'answer'; id: number; json: string | null }
  | { type: 'answer-error'; id: number; error: AnalysisError; fatal: boolean };

export function isAnalysisError(e: unknown): e is AnalysisError {
  return typeof e === 'object' && e !== null && typeof (e as AnalysisError).kind === 'string' &&
    typeof (e as AnalysisError).message === 'string';
}

export function internalError(message: string): AnalysisError {
  return { kind: 'internal', offset: null, message, text: message };
}
