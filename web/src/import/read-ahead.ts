// Read-ahead: a second worker reads the dropped file into shared memory while the analysis
// worker parses, so reading the Blob (the browser's bottleneck, and on two cores a rival for
// CPU time) overlaps with the wasm work instead of alternating with it.
//
// The analysis worker starts a nested worker from its own script (`startReadAhead`), hands it
// the File and a SharedArrayBuffer, and sets the global `heapscopeReadAhead(start, end)` that
// crate/src/wasm/blob_source.rs calls for each sequential slice. The reader (`runReader`)
// fills a ring of SLOTS slots of SLOT bytes in file order from where it was last asked to
// start, reading the file through `Blob.stream()`; the analysis side takes bytes from the
// ring (a view of one slot, or a copy when a slice spans two), skips forward over what it
// does not need, and asks for a restart after a seek (a new pass, a long skip). Anything
// unexpected answers `undefined`, and the wasm side reads that slice itself as it would
// without read-ahead: no cross-origin isolation, a read error in the reader, or no answer
// within WAIT_MS (which also ends read-ahead for the rest of the analysis).
//
// Shared memory needs a cross-origin isolated page (COOP same-origin + COEP require-corp:
// web/public/serve.json, vite.config.ts); without it, no reader starts and the analysis
// worker reads the file itself (FileReaderSync).

/** Bytes per slot: the wasm side's chunk size (DEFAULT_CHUNK_SIZE), so a pass's slices are whole slots. */
export const SLOT = 16 << 20;
/** Slots in the ring: one being parsed, the others read ahead. */
export const SLOTS = 3;
/** How long the analysis side waits for a slot before reading the slice itself. */
const WAIT_MS = 30_000;
/** A forward skip of at most this much past the ring's position is served from the ring. */
const NEAR = 32 << 20;

// Int32 control words.
const REQ = 0; // restart requests issued (analysis side)
const ACK = 1; // restart requests taken up (reader)
const FILLED = 2; // slots filled since the last restart (reader)
const CONSUMED = 3; // slots released since the last restart (analysis side)
const FAILED = 4; // 1 once the reader could not read
const CONTROL_BYTES = 64;
// Float64 words after the control words: [0] the restart position, then per slot its file offset and length.
const META_BYTES = 8 * (1 + 2 * SLOTS);

export interface ReadAheadMessage {
  type: 'read-ahead';
  file: Blob;
  buffer: SharedArrayBuffer;
}

function views(buffer: SharedArrayBuffer): { ctrl: Int32Array; meta: Float64Array; data: Uint8Array } {
  return {
    ctrl: new Int32Array(buffer, 0, CONTROL_BYTES / 4),
    meta: new Float64Array(buffer, CONTROL_BYTES, META_BYTES / 8),
    data: new Uint8Array(buffer, CONTROL_BYTES + META_BYTES, SLOT * SLOTS),
  };
}

/** `Atomics.wait` without blocking the worker's event loop where the browser has `waitAsync`
 * (the stream's reads complete through that loop); elsewhere the blocking wait, which is
 * allowed in a worker and only runs while no read is pending. */
function waitFor(ctrl: Int32Array, index: number, value: number, ms?: number): Promise<unknown> | unknown {
  const a = Atomics as unknown as { waitAsync?: (t: Int32Array, i: number, v: number, ms?: number) => { value: Promise<unknown> | string } };
  return a.waitAsync ? a.waitAsync(ctrl, index, value, ms).value : Atomics.wait(ctrl, index, value, ms);
}

/** Reads a blob from its start through `Blob.stream()`, in the chunks the stream hands out.
 * (Not a BYOB reader into a buffer of ours: in Chromium 156 such reads of a multi-GB file
 * stopped resolving partway through, while the default reader read it to the end.) */
class StreamReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  /** What the last chunk held beyond what was asked for. */
  private rest: Uint8Array | null = null;

  constructor(file: Blob) {
    this.reader = file.stream().getReader();
  }

  /** The next bytes (at most `max`), or null at the end. */
  async next(max: number): Promise<Uint8Array | null> {
    let chunk = this.rest;
    if (!chunk) {
      const { value, done } = await this.reader.read();
      if (done || !value) return null;
      chunk = value;
    }
    this.rest = chunk.length > max ? chunk.subarray(max) : null;
    return chunk.length > max ? chunk.subarray(0, max) : chunk;
  }

  cancel(): void {
    this.reader.cancel().catch(() => {});
  }
}

/**
 * The reader worker's loop (never returns): fills slots in file order from each restart
 * position, reading through `Blob.stream()` rather than `FileReaderSync` slices: cheaper for
 * the browser's threads, which on two cores share them with the parsing (README,
 * Performance; `node tests/bench/read-speed.mjs`).
 */
export async function runReader(msg: ReadAheadMessage, post: (m: unknown) => void): Promise<void> {
  const { ctrl, meta, data } = views(msg.buffer);
  const size = msg.file.size;
  post({ type: 'read-ahead-ready' });
  let seen = 0;
  for (;;) {
    if (Atomics.load(ctrl, REQ) === seen) await waitFor(ctrl, REQ, seen);
    seen = Atomics.load(ctrl, REQ);
    let pos = meta[0];
    Atomics.store(ctrl, FILLED, 0);
    Atomics.store(ctrl, ACK, seen);
    Atomics.notify(ctrl, ACK);
    let filled = 0;
    let reader: StreamReader | null = null;
    try {
      reader = new StreamReader(msg.file.slice(pos, size));
      while (pos < size && Atomics.load(ctrl, REQ) === seen) {
        // Wait for a free slot, or a new request.
        const consumed = Atomics.load(ctrl, CONSUMED);
        if (filled - consumed >= SLOTS) {
          await waitFor(ctrl, CONSUMED, consumed, 50);
          continue;
        }
        const slot = filled % SLOTS;
        const want = Math.min(SLOT, size - pos);
        let got = 0;
        while (got < want && Atomics.load(ctrl, REQ) === seen) {
          const bytes = await reader.next(want - got);
          if (!bytes) break;
          data.set(bytes, slot * SLOT + got);
          got += bytes.length;
        }
        if (Atomics.load(ctrl, REQ) !== seen) break; // the analysis moved on meanwhile
        meta[1 + 2 * slot] = pos;
        meta[2 + 2 * slot] = got;
        filled += 1;
        Atomics.store(ctrl, FILLED, filled);
        Atomics.notify(ctrl, FILLED);
        pos += got;
        if (got < want) throw new Error('the file ended early'); // it changed: the analysis side reads (and reports) it
      }
    } catch {
      Atomics.store(ctrl, FAILED, 1);
      Atomics.notify(ctrl, FILLED);
      return;
    } finally {
      reader?.cancel();
    }
  }
}

/** The analysis side: serves `heapscopeReadAhead(start, end)` from the ring. */
export class ReadAhead {
  private readonly ctrl: Int32Array;
  private readonly meta: Float64Array;
  private readonly data: Uint8Array;
  private requests = 0;
  private active = false;
  /** Set once the reader is stopped: every read is then the caller's own. */
  closed = false;
  /** Slots taken (read to their end or skipped) since the last restart. */
  private taken = 0;
  /** Of those, the ones handed back to the reader: the last slices returned are views
   * the caller copies after `read` returns, so their slots go back at the next call. */
  private consumed = 0;
  /** The next file offset the ring holds or will hold (where sequential reading stands). */
  private pos = 0;

  constructor(buffer: SharedArrayBuffer) {
    ({ ctrl: this.ctrl, meta: this.meta, data: this.data } = views(buffer));
  }

  /** Bytes `start..end` of the file, or undefined (the caller then reads them itself). */
  read(start: number, end: number): Uint8Array | undefined {
    this.release();
    // More than a slot could need more slots than the ring has free.
    if (this.closed || Atomics.load(this.ctrl, FAILED) || end - start > SLOT) return undefined;
    if (!this.active || start < this.pos || start > this.pos + NEAR) {
      this.restart(start);
      if (this.closed) return undefined;
    }
    const parts: Uint8Array[] = [];
    let at = start;
    while (at < end) {
      const slot = this.nextSlot();
      if (slot === null) {
        this.active = false;
        return undefined;
      }
      const offset = this.meta[1 + 2 * slot];
      const length = this.meta[2 + 2 * slot];
      if (length === 0) {
        this.active = false;
        return undefined;
      }
      if (offset + length <= at) {
        this.taken += 1; // all before `at`: skipped
        this.release();
        continue;
      }
      const from = at - offset;
      const to = Math.min(length, end - offset);
      parts.push(this.data.subarray(slot * SLOT + from, slot * SLOT + to));
      at = offset + to;
      if (to === length) this.taken += 1; // read to its end: handed back at the next call
    }
    this.pos = end;
    if (parts.length === 1) return parts[0];
    const whole = new Uint8Array(end - start);
    let k = 0;
    for (const p of parts) {
      whole.set(p, k);
      k += p.length;
    }
    return whole;
  }

  /** The slot holding the next bytes in order, once the reader filled it (null: gave up). */
  private nextSlot(): number | null {
    const deadline = performance.now() + WAIT_MS;
    while (Atomics.load(this.ctrl, FILLED) <= this.taken) {
      if (Atomics.load(this.ctrl, FAILED)) return null;
      const left = deadline - performance.now();
      if (left <= 0) {
        // A reader this late is stuck, not slow: read everything from here on without it,
        // rather than wait this long again for each slice.
        this.closed = true;
        return null;
      }
      Atomics.wait(this.ctrl, FILLED, Atomics.load(this.ctrl, FILLED), left);
    }
    return this.taken % SLOTS;
  }

  /** Hands the slots taken so far back to the reader. */
  private release(): void {
    if (this.consumed === this.taken) return;
    this.consumed = this.taken;
    Atomics.store(this.ctrl, CONSUMED, this.consumed);
    Atomics.notify(this.ctrl, CONSUMED);
  }

  /** Asks the reader to start over at `start` and waits until it has (it may be mid-read). */
  private restart(start: number): void {
    this.requests += 1;
    this.taken = 0;
    this.consumed = 0;
    this.pos = start;
    Atomics.store(this.ctrl, CONSUMED, 0);
    this.meta[0] = start;
    Atomics.store(this.ctrl, REQ, this.requests);
    Atomics.notify(this.ctrl, REQ);
    Atomics.notify(this.ctrl, CONSUMED);
    const deadline = performance.now() + WAIT_MS;
    while (Atomics.load(this.ctrl, ACK) !== this.requests && performance.now() < deadline) {
      Atomics.wait(this.ctrl, ACK, Atomics.load(this.ctrl, ACK), 50);
    }
    this.active = Atomics.load(this.ctrl, ACK) === this.requests;
    if (!this.active) this.closed = true; // no answer: stuck (see nextSlot)
  }
}

/**
 * Starts the reader worker from `script` (this worker's own) for `file` and resolves with
 * the analysis side once the reader runs; null when the page is not cross-origin isolated
 * or the reader did not start (the analysis then reads the file itself).
 */
export function startReadAhead(file: Blob, script: string): Promise<{ readAhead: ReadAhead; stop(): void } | null> {
  if (!(globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated || typeof SharedArrayBuffer !== 'function' || file.size < SLOT) {
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      const buffer = new SharedArrayBuffer(CONTROL_BYTES + META_BYTES + SLOT * SLOTS);
      worker = new Worker(trustedScriptUrl(script), { type: 'module', name: 'heapscope-read-ahead' });
      const readAhead = new ReadAhead(buffer);
      const stop = (): void => {
        readAhead.closed = true;
        worker.terminate();
      };
      const timer = setTimeout(() => {
        stop();
        resolve(null);
      }, 5000);
      worker.onmessage = (event: MessageEvent<{ type: string }>) => {
        if (event.data?.type !== 'read-ahead-ready') return;
        clearTimeout(timer);
        resolve({ readAhead, stop });
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        clearTimeout(timer);
        stop();
        resolve(null);
      };
      const msg: ReadAheadMessage = { type: 'read-ahead', file, buffer };
      worker.postMessage(msg);
    } catch {
      resolve(null);
    }
  });
}

interface TrustedTypesLike {
  createPolicy(name: string, rules: { createScriptURL(input: string): string }): { createScriptURL(input: string): unknown };
}
let policy: { createScriptURL(input: string): unknown } | null = null;

/** The page's CSP requires Trusted Types for `new Worker` here too: same-origin (or blob:) script URLs only. */
function trustedScriptUrl(script: string): string {
  const tt = (globalThis as { trustedTypes?: TrustedTypesLike }).trustedTypes;
  if (!tt) return script;
  // The CSP allows one policy name, "default" (as the page's own, web/src/lib/trusted-types.ts).
  policy ??= tt.createPolicy('default', {
    createScriptURL(input: string): string {
      const url = new URL(input, self.location.href);
      if (url.origin !== self.location.origin) throw new TypeError(`heapscope: refusing a worker script from ${url.origin}`);
      return url.href;
    },
  });
  return policy.createScriptURL(script) as string;
}
