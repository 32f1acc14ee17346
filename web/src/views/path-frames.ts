// A path that passes a thread's stack names the frame: the thread's name and the frame as
// Java writes it (`worker-63 · Worker.descend (WorkerPool.java:48)`), found in the report's
// thread overview (the frames and the locals each holds), so no question to the worker.
import { shortFrame } from '../lib/frames';
import type { DumpContext } from './common';

/** Root kinds of an object a stack frame holds. */
const FRAME_ROOTS = new Set(['Java Local', 'JNI Local']);

/** The frame of thread `thread` (an address; null: any thread) that holds `local` as a
 * local variable, as `name · Class.method (File.java:12)`; null when none does. */
export function localFrame(ctx: DumpContext, thread: string | null, local: string): string | null {
  for (const t of ctx.report.threads ?? []) {
    if (thread !== null && t.address !== thread) continue;
    const name = t.name ?? t.class_name;
    // The innermost frame that holds it (frames are innermost first).
    const frame = t.frames.find((f) => f.locals.some((o) => o.address === local));
    if (frame) return `${name} · ${shortFrame(frame.frame)}`;
    if (t.other_locals.some((o) => o.address === local)) return `${name} · a frame its stack trace does not list`;
  }
  return null;
}

/** Whether a path's first step is held as a GC root by a stack frame. */
export function heldByFrame(gcRoot: string[]): boolean {
  return gcRoot.some((k) => FRAME_ROOTS.has(k));
}
