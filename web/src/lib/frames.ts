// Stack frames as a Java developer writes them. The report keeps each frame as Eclipse MAT
// prints it, with the method's JVM descriptor (`at pkg.Worker.descend(Ljava/lang/String;I)V
// (WorkerPool.java:48)`); the page shows `Worker.descend(String, int) (WorkerPool.java:48)`
// and keeps MAT's text for the hover. A frame that does not read as MAT's is shown as it is.
// Pure functions.

export interface Frame {
  /** The class, without its package: `Worker`, `ThreadPoolExecutor$Worker`. */
  cls: string;
  method: string;
  /** The parameter types in Java (`String`, `int[]`), or null when the frame has no
   * readable descriptor. */
  params: string[] | null;
  /** What MAT prints in parentheses after the method: `WorkerPool.java:48`,
   * `Unsafe.java(Native Method)`; null when there is none. */
  location: string | null;
}

const PRIMITIVES: Record<string, string> = { B: 'byte', C: 'char', D: 'double', F: 'float', I: 'int', J: 'long', S: 'short', Z: 'boolean', V: 'void' };

/** `java/lang/String` or `java.lang.String` → `String`. */
function simple(name: string): string {
  return name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('.')) + 1);
}

/** The parameter types of a JVM method descriptor's argument part (`Ljava/lang/String;I`
 * → `String`, `int`), or null when it is not one. */
export function descriptorParams(desc: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  while (i < desc.length) {
    let dims = 0;
    while (desc[i] === '[') {
      dims++;
      i++;
    }
    let type: string;
    if (desc[i] === 'L') {
      const end = desc.indexOf(';', i);
      if (end < 0) return null;
      type = simple(desc.slice(i + 1, end));
      i = end + 1;
    } else {
      const p = PRIMITIVES[desc[i]];
      if (!p || p === 'void') return null;
      type = p;
      i++;
    }
    out.push(type + '[]'.repeat(dims));
  }
  return out;
}

/** MAT's frame text taken apart, or null when it is not in MAT's form. */
export function parseFrame(text: string): Frame | null {
  const m = /^at (\S+?)\.([^.\s(]+)(?:\(([^)]*)\)\S*)?(?: \((.*)\))?$/.exec(text.trim());
  if (!m) return null;
  const params = m[3] === undefined ? null : descriptorParams(m[3]);
  if (m[3] !== undefined && params === null) return null;
  return { cls: simple(m[1]), method: m[2], params, location: m[4] ?? null };
}

/** `Worker.descend(String, int) (WorkerPool.java:48)`; the text itself when it is not
 * MAT's. */
export function javaFrame(text: string): string {
  const f = parseFrame(text);
  if (!f) return text;
  const params = f.params === null ? '' : `(${f.params.join(', ')})`;
  return `${f.cls}.${f.method}${params}${f.location ? ` (${f.location})` : ''}`;
}

/** `Worker.descend (WorkerPool.java:48)`: the frame named in a line of a path. */
export function shortFrame(text: string): string {
  const f = parseFrame(text);
  if (!f) return text;
  return `${f.cls}.${f.method}${f.location ? ` (${f.location})` : ''}`;
}
