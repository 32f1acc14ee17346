// Test inputs written in Node: a tiny HPROF writer (the format is documented in
// crate/src/records/*.rs), a crafted dump full of HTML and script, and a large sparse
// dump for cancelling.
import fs from 'node:fs';

const TAG = { STRING: 0x01, LOAD_CLASS: 0x02, HEAP_DUMP_SEGMENT: 0x1c, HEAP_DUMP_END: 0x2c };
export const TYPE = { OBJECT: 2, BOOLEAN: 4, CHAR: 5, FLOAT: 6, DOUBLE: 7, BYTE: 8, SHORT: 9, INT: 10, LONG: 11 };
const SIZE = { [TYPE.BOOLEAN]: 1, [TYPE.CHAR]: 2, [TYPE.FLOAT]: 4, [TYPE.DOUBLE]: 8, [TYPE.BYTE]: 1, [TYPE.SHORT]: 2, [TYPE.INT]: 4, [TYPE.LONG]: 8 };

/** Big-endian bytes, appended piece by piece. */
class Bytes {
  constructor(idSize) {
    this.idSize = idSize;
    this.parts = [];
    this.length = 0;
  }
  push(buf) {
    this.parts.push(buf);
    this.length += buf.length;
    return this;
  }
  u1(v) {
    return this.push(Buffer.from([v & 0xff]));
  }
  u2(v) {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(v);
    return this.push(b);
  }
  u4(v) {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v >>> 0);
    return this.push(b);
  }
  id(v) {
    const b = Buffer.alloc(this.idSize);
    if (this.idSize === 8) b.writeBigUInt64BE(BigInt(v));
    else b.writeUInt32BE(Number(v) >>> 0);
    return this.push(b);
  }
  /** A value of HPROF basic type `type` (OBJECT: an id). */
  value(type, v) {
    if (type === TYPE.OBJECT) return this.id(v);
    const b = Buffer.alloc(SIZE[type]);
    if (type === TYPE.INT) b.writeInt32BE(v);
    else if (type === TYPE.LONG) b.writeBigInt64BE(BigInt(v));
    else if (type === TYPE.SHORT || type === TYPE.CHAR) b.writeUInt16BE(v);
    else if (type === TYPE.FLOAT) b.writeFloatBE(v);
    else if (type === TYPE.DOUBLE) b.writeDoubleBE(v);
    else b.writeUInt8(v & 0xff);
    return this.push(b);
  }
  toBuffer() {
    return Buffer.concat(this.parts, this.length);
  }
}

/** Writes a well-formed HPROF dump, record by record. */
export class HprofWriter {
  constructor({ idSize = 8, version = 'JAVA PROFILE 1.0.2', timestampMs = Date.UTC(2026, 0, 1) } = {}) {
    this.idSize = idSize;
    this.out = new Bytes(idSize);
    this.out.push(Buffer.from(`${version}\0`, 'latin1')).u4(idSize);
    const ts = Buffer.alloc(8);
    ts.writeBigUInt64BE(BigInt(timestampMs));
    this.out.push(ts);
    this.nextString = 1;
    this.strings = new Map();
    this.segment = new Bytes(idSize);
  }
  record(tag, body) {
    this.out.u1(tag).u4(0).u4(body.length).push(body);
    return this;
  }
  /** The id of a STRING record holding `text` (written once). */
  string(text) {
    if (this.strings.has(text)) return this.strings.get(text);
    const id = 0x10000 + this.nextString++;
    this.record(TAG.STRING, new Bytes(this.idSize).id(id).push(Buffer.from(text, 'utf8')).toBuffer());
    this.strings.set(text, id);
    return id;
  }
  /**
   * A class: LOAD_CLASS (name in the JVM's form, e.g. "java/lang/String" or "[B"), a
   * CLASS_DUMP in the heap segment, and a sticky-class GC root.
   * statics: [{name, type, value}]; fields: [{name, type}] (instance fields).
   */
  defineClass(id, name, { superId = 0, loaderId = 0, statics = [], fields = [], sticky = true } = {}) {
    const nameId = this.string(name);
    const staticNames = statics.map((s) => this.string(s.name));
    const fieldNames = fields.map((f) => this.string(f.name));
    this.record(TAG.LOAD_CLASS, new Bytes(this.idSize).u4(id & 0xffff).id(id).u4(0).id(nameId).toBuffer());
    const s = this.segment;
    s.u1(0x20).id(id).u4(0).id(superId).id(loaderId).id(0).id(0).id(0).id(0).u4(0).u2(0);
    s.u2(statics.length);
    statics.forEach((st, i) => s.id(staticNames[i]).u1(st.type).value(st.type, st.value));
    s.u2(fields.length);
    fields.forEach((f, i) => s.id(fieldNames[i]).u1(f.type));
    if (sticky) s.u1(0x05).id(id); // ROOT STICKY CLASS
    return this;
  }
  /** INSTANCE DUMP: `values` in dump order ([{type, value}], own class's fields first). */
  instance(id, classId, values) {
    const body = new Bytes(this.idSize);
    for (const v of values) body.value(v.type, v.value);
    const bytes = body.toBuffer();
    this.segment.u1(0x21).id(id).u4(0).id(classId).u4(bytes.length).push(bytes);
    return this;
  }
  objectArray(id, classId, elements) {
    this.segment.u1(0x22).id(id).u4(0).u4(elements.length).id(classId);
    for (const e of elements) this.segment.id(e);
    return this;
  }
  byteArray(id, bytes) {
    this.segment.u1(0x23).id(id).u4(0).u4(bytes.length).u1(TYPE.BYTE).push(Buffer.from(bytes));
    return this;
  }
  /** A char[] of UTF-16 code units (big-endian, as HPROF writes them). */
  charArray(id, units) {
    this.segment.u1(0x23).id(id).u4(0).u4(units.length).u1(TYPE.CHAR);
    for (const u of units) this.segment.u2(u);
    return this;
  }
  rootUnknown(id) {
    this.segment.u1(0xff).id(id);
    return this;
  }
  /** ROOT JNI GLOBAL: native code's global reference to `id`. */
  rootJniGlobal(id, jniRef = 0) {
    this.segment.u1(0x01).id(id).id(jniRef);
    return this;
  }
  /** Writes the heap segment and the end record; returns the file's bytes. */
  finish() {
    this.record(TAG.HEAP_DUMP_SEGMENT, this.segment.toBuffer());
    this.record(TAG.HEAP_DUMP_END, Buffer.alloc(0));
    return this.out.toBuffer();
  }
}

export const XSS = {
  /** Displayed as `<script>alert(1)<.script>`: class names' "/" become "." (as in MAT). */
  className: '<script>alert(1)</script>',
  staticName: '<b onmouseover=window.__pwned=2>PAYLOAD</b>',
  text: '<img src=x onerror=window.__pwned=1>',
  fieldName: '<svg onload=window.__pwned=3>',
};

/**
 * A small dump whose class names, field names and strings are HTML and script: a class
 * `<script>alert(1)</script>` with a static String field holding `<img src=x onerror=…>`,
 * and a class named like an <img> tag holding instances of itself.
 */
export function writeXssDump(file) {
  const w = new HprofWriter({ idSize: 8 });
  const OBJECT = 0x100;
  const CLASS = 0x110;
  const STRING = 0x120;
  const BYTES = 0x130;
  const EVIL = 0x140;
  const IMG = 0x150;
  const ARRAY = 0x160;
  w.defineClass(OBJECT, 'java/lang/Object');
  w.defineClass(CLASS, 'java/lang/Class', { superId: OBJECT });
  w.defineClass(STRING, 'java/lang/String', { superId: OBJECT, fields: [{ name: 'value', type: TYPE.OBJECT }, { name: 'coder', type: TYPE.BYTE }] });
  w.defineClass(BYTES, '[B', { superId: OBJECT });
  w.defineClass(ARRAY, '[Ljava/lang/Object;', { superId: OBJECT });
  w.defineClass(EVIL, XSS.className, {
    superId: OBJECT,
    statics: [
      { name: XSS.staticName, type: TYPE.OBJECT, value: 0x1000 },
      { name: 'holder', type: TYPE.OBJECT, value: 0x3000 },
      { name: 'count', type: TYPE.INT, value: 42 },
    ],
  });
  w.defineClass(IMG, '<img src=x onerror=window.__pwned=4>', { superId: OBJECT, fields: [{ name: XSS.fieldName, type: TYPE.OBJECT }] });
  // The String: value = Latin-1 bytes of the payload, coder 0 (LATIN1).
  w.instance(0x1000, STRING, [{ type: TYPE.OBJECT, value: 0x2000 }, { type: TYPE.BYTE, value: 0 }]);
  w.byteArray(0x2000, Buffer.from(XSS.text, 'latin1'));
  // An Object[] of <img…> instances, each pointing at the String, so there is a tree.
  const imgs = [];
  for (let i = 0; i < 50; i++) {
    const id = 0x4000 + i * 0x20;
    imgs.push(id);
    w.instance(id, IMG, [{ type: TYPE.OBJECT, value: 0x1000 }]);
  }
  w.objectArray(0x3000, ARRAY, imgs);
  fs.writeFileSync(file, w.finish());
  return { stringAddress: '0x1000', bytesAddress: '0x2000', holderAddress: '0x3000' };
}

/**
 * A large, valid HPROF file that is mostly holes (sparse on disk, fast to make): heap dump
 * segments of 16 MiB byte arrays full of zeros. Readers must go through every byte.
 */
export function makeBigDump(file, totalMiB) {
  const fd = fs.openSync(file, 'w');
  let pos = 0;
  const write = (buf) => {
    fs.writeSync(fd, buf, 0, buf.length, pos);
    pos += buf.length;
  };
  const header = Buffer.alloc(31);
  header.write('JAVA PROFILE 1.0.2\0', 0, 'latin1');
  header.writeUInt32BE(8, 19);
  header.writeBigUInt64BE(BigInt(Date.UTC(2026, 0, 1)), 23);
  write(header);
  const arrayBytes = 16 << 20;
  const perSegment = 16; // 16 arrays of 16 MiB per segment (< 4 GiB record length)
  const subHeader = 1 + 8 + 4 + 4 + 1;
  let id = 0x1000n;
  let arrays = Math.max(1, Math.floor(totalMiB / 16));
  while (arrays > 0) {
    const n = Math.min(perSegment, arrays);
    const rec = Buffer.alloc(9);
    rec[0] = 0x1c;
    rec.writeUInt32BE(n * (subHeader + arrayBytes), 5);
    write(rec);
    for (let i = 0; i < n; i++) {
      const sub = Buffer.alloc(subHeader);
      sub[0] = 0x23; // PRIMITIVE ARRAY DUMP
      sub.writeBigUInt64BE(id, 1);
      sub.writeUInt32BE(0, 9); // stack trace serial
      sub.writeUInt32BE(arrayBytes, 13); // length
      sub[17] = 8; // byte[]
      write(sub);
      pos += arrayBytes; // a hole: zeros
      id += 0x1000000n;
    }
    arrays -= n;
  }
  const end = Buffer.alloc(9);
  end[0] = 0x2c;
  write(end);
  fs.ftruncateSync(fd, pos);
  fs.closeSync(fd);
  return pos;
}
