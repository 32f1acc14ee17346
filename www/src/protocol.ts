// Messages between the page and its worker (www/src/worker.ts). The worker owns one dump:
// the page starts a fresh worker for each file and terminates it to cancel or close.

/** Options for opening a dump (see crate/src/wasm/session.rs). */
export interface OpenOptions {
  /** Bytes per FileReaderSync read; default 16 MiB. */
  chunkSize?: number;
}

/** Sent by the wasm side a few times a second. `bytesDone`/`bytesTotal` count input bytes. */
export interface Progress {
  phase: string;
  bytesDone: number;
  bytesTotal: number | null;
  decodedBytes: number | null;
  objects: number;
}

export interface TagCount {
  tag: number;
  name: string;
  count: number;
  bytes: number;
}

/** What one pass over the file found (crate/src/wasm/scan.rs). */
export interface Summary {
  format: string;
  idSize: number;
  timestampMs: number;
  decodedBytes: number;
  inputBytes: number;
  compressed: boolean;
  records: number;
  recordsByTag: TagCount[];
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

export type ToWorker = { type: 'open'; file: Blob; options: OpenOptions };

export type FromWorker =
  | { type: 'ready'; version: string }
  | { type: 'progress'; progress: Progress }
  | { type: 'opened'; summary: Summary; seconds: number }
  | { type: 'error'; error: AnalysisError };

export function isAnalysisError(e: unknown): e is AnalysisError {
  return typeof e === 'object' && e !== null && typeof (e as AnalysisError).kind === 'string' &&
    typeof (e as AnalysisError).message === 'string';
}
