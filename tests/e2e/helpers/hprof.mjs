// Test inputs and the facts a correct reader must report about them, computed here in
// Node independently of the Rust code: the gunzipped size, the header, the top-level
// record walk. (When the analysis core lands, report figures come from the native CLI.)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const TAGS = new Set([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x1c, 0x2c]);

/** Header and record counts of an HPROF file (.gz decoded first, all members). */
export function nativeFacts(file) {
  const raw = fs.readFileSync(file);
  const compressed = raw[0] === 0x1f && raw[1] === 0x8b;
  const data = compressed ? zlib.gunzipSync(raw) : raw;
  const nul = data.indexOf(0);
  const format = data.subarray(0, nul).toString('latin1');
  let off = nul + 1;
  const idSize = data.readUInt32BE(off);
  const timestampMs = Number(data.readBigUInt64BE(off + 4));
  off += 12;
  let records = 0;
  const byTag = new Map();
  while (off < data.length) {
    const tag = data[off];
    const len = data.readUInt32BE(off + 5);
    if (!TAGS.has(tag)) throw new Error(`${file}: unknown tag 0x${tag.toString(16)} at ${off}`);
    off += 9 + len;
    records++;
    byTag.set(tag, (byTag.get(tag) ?? 0) + 1);
  }
  if (off !== data.length) throw new Error(`${file}: last record runs past the end`);
  return {
    name: path.basename(file),
    inputBytes: raw.length,
    decodedBytes: data.length,
    compressed,
    format,
    idSize,
    timestampMs,
    records,
    recordsByTag: [...byTag.entries()].sort((a, b) => a[0] - b[0]).map(([tag, count]) => ({ tag, count })),
  };
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
