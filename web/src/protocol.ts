// Messages between the page and its worker (web/src/worker.ts). The worker owns one dump:
// the page starts a fresh worker for each file and terminates it to cancel or close.
// Report and query answers cross as JSON strings of the core's types (web/src/generated/).

import type { Answer, Report } from './generated/protocol';
import type {
  AnalysisError,
  CompareFormat,
  CompareSort,
  ErrorKind,
  OpenOptions,
  Progress,
  Rendering,
  Request,
} from './generated/protocol';

// The types the core names (crate/src/session/protocol.rs, generated into
// ./generated/protocol.ts): options, progress, errors, requests.
export type { AnalysisError, CompareFormat, CompareSort, ErrorKind, OpenOptions, Progress, Rendering, Request };

/** A JSON text holding a `T`: answers cross as text and are parsed once, on the page. */
export type Json<T> = string & { readonly __holds?: T };

/** Parses a JSON text into the type it holds. */
export function parseJson<T>(text: Json<T>): T {
  return JSON.parse(text) as T;
}

/** What the JSON text of the answer to request `R` holds (the core's `JsonAnswers`). */
export type AnswerJson<R extends Request> = R extends { kind: 'query' }
  ? Json<Answer>
  : R extends { kind: 'mapping' } | { kind: 'tree' }
    ? Json<Report>
    : R extends { kind: 'loader-names' }
      ? Json<Record<string, string>>
      : R extends { kind: 'check-report' }
        ? null
        : string;

export type ToWorker =
  /** The compiled module, or null: then the worker loads it from `wasmUrl` (absolute: a blob: script has no base). */
  | { type: 'init'; module: WebAssembly.Module | null; wasmUrl: string }
  | { type: 'open'; file: Blob; options: OpenOptions }
  | { type: 'open-report'; file: Blob }
  | { type: 'request'; id: number; request: Request };

export interface Opened {
  type: 'opened';
  /** Exactly `report::to_json` (what `heapscope analyze --format json` writes). */
  reportJson: Json<Report>;
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
  | { type: 'answer'; id: number; json: AnswerJson<Request> | null }
  | { type: 'answer-error'; id: number; error: AnalysisError; fatal: boolean };

export function isAnalysisError(e: unknown): e is AnalysisError {
  return typeof e === 'object' && e !== null && typeof (e as AnalysisError).kind === 'string' &&
    typeof (e as AnalysisError).message === 'string';
}

export function internalError(message: string): AnalysisError {
  return { kind: 'internal', offset: null, message, text: message };
}
