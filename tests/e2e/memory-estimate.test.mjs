// The page's estimate of the wasm memory an analysis needs (`wasm_peak_estimate`: a fixed
// part plus a part per object, checked after pass 1 against what the tab can still grow
// by) against what the worker's WebAssembly.Memory actually grew by, on mid-size dumps
// analyzed in the page: within 10%. Not timed.
//
// The dumps are shaped like the benchmark's (`make-big.sh`: customers in a map, their
// strings, addresses, orders and order lines; about 30% `String`s, 30% `byte[]`s), built
// here straight into one buffer, and big enough (1.4 M objects) that the fixed part does
// not hide the per-object one; a smaller one (0.36 M objects), where the fixed part is
// most of it, checks that part.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { harness } from './helpers/harness.mjs';
import { HprofWriter, TYPE } from './helpers/hprof.mjs';
import { openFile } from './helpers/page.mjs';

const h = harness();

// The class ids.
const [OBJECT, STRING, BYTES, OBJECTS, INTS, CUSTOMER, ADDRESS, ORDER, LINE, NODE, LONG] = Array.from({ length: 11 }, (_, k) => 0x100 + 8 * k);

/** Objects per customer: node, key, customer, 2 strings, address and its 3 strings, 4 orders (status string, lines array, items int[], 3 lines with a string each), the orders array. */
const PER_CUSTOMER = 3 + 2 * 2 + 1 + 3 * 2 + 4 * (1 + 2 + 2 + 3 * 3) + 1;

/** A dump of `customers` customers, written to `file`; returns its object count. */
function writeDump(file, customers) {
  const w = new HprofWriter({ idSize: 8 });
  const ref = (name) => ({ name, type: TYPE.OBJECT });
  w.defineClass(OBJECT, 'java/lang/Object');
  w.defineClass(STRING, 'java/lang/String', { superId: OBJECT, fields: [ref('value'), { name: 'coder', type: TYPE.BYTE }] });
  w.defineClass(BYTES, '[B', { superId: OBJECT });
  w.defineClass(OBJECTS, '[Ljava/lang/Object;', { superId: OBJECT });
  w.defineClass(INTS, '[I', { superId: OBJECT });
  w.defineClass(CUSTOMER, 'bench/Customer', { superId: OBJECT, fields: [ref('name'), ref('email'), ref('address'), ref('orders'), { name: 'id', type: TYPE.LONG }] });
  w.defineClass(ADDRESS, 'bench/Address', { superId: OBJECT, fields: [ref('street'), ref('city'), ref('zip')] });
  w.defineClass(ORDER, 'bench/Order', { superId: OBJECT, fields: [ref('status'), ref('lines'), ref('items'), { name: 'amount', type: TYPE.DOUBLE }] });
  w.defineClass(LINE, 'bench/OrderLine', { superId: OBJECT, fields: [ref('sku'), { name: 'quantity', type: TYPE.INT }, { name: 'price', type: TYPE.DOUBLE }] });
  w.defineClass(NODE, 'bench/Node', { superId: OBJECT, fields: [ref('key'), ref('value'), ref('next'), { name: 'hash', type: TYPE.INT }] });
  w.defineClass(LONG, 'java/lang/Long', { superId: OBJECT, fields: [{ name: 'value', type: TYPE.LONG }] });

  // The heap records, straight into one buffer (the writer's record-per-Buffer is slow
  // for a million objects).
  const buf = Buffer.alloc(customers * 4096 + (1 << 20));
  let at = 0;
  const u1 = (v) => (buf[at++] = v);
  const u4 = (v) => {
    buf.writeUInt32BE(v >>> 0, at);
    at += 4;
  };
  const id = (v) => {
    buf.writeBigUInt64BE(BigInt(v), at);
    at += 8;
  };
  let next = 0x1_0000_0000;
  const alloc = (bytes) => {
    const a = next;
    next += Math.ceil(bytes / 8) * 8;
    return a;
  };
  /** An INSTANCE DUMP header for `fieldBytes` bytes of fields (the fields follow). */
  const instance = (obj, cls, fieldBytes) => {
    u1(0x21);
    id(obj);
    u4(0);
    id(cls);
    u4(fieldBytes);
  };
  const string = (text) => {
    const s = alloc(32);
    const a = alloc(24 + text.length);
    instance(s, STRING, 9);
    id(a);
    u1(0);
    u1(0x23);
    id(a);
    u4(0);
    u4(text.length);
    u1(TYPE.BYTE);
    at += buf.write(text, at, 'latin1');
    return s;
  };
  const objectArray = (obj, elements) => {
    u1(0x22);
    id(obj);
    u4(0);
    u4(elements.length);
    id(OBJECTS);
    for (const e of elements) id(e);
  };
  const cities = ['Paris', 'Lyon', 'Nantes', 'Lille'];
  const statuses = ['NEW', 'PAID', 'SHIPPED'];
  const nodes = [];
  for (let k = 0; k < customers; k++) {
    const node = alloc(32);
    const key = alloc(16);
    const customer = alloc(48);
    const name = string(`customer-${k}`);
    const email = string(`customer-${k}@example.com`);
    const address = alloc(32);
    const street = string(`${k % 200} rue ${k % 37}`);
    const city = string(cities[k % 4]);
    const zip = string(String(k % 1000).padStart(5, '0'));
    instance(address, ADDRESS, 24);
    id(street);
    id(city);
    id(zip);
    const orders = [];
    for (let o = 0; o < 4; o++) {
      const order = alloc(40);
      const status = string(statuses[(k + o) % 3]);
      const lines = [];
      for (let l = 0; l < 3; l++) {
        const line = alloc(32);
        const sku = string(`SKU-${(k * 7 + o * 3 + l) % 5000}`);
        instance(line, LINE, 20);
        id(sku);
        u4(l + 1);
        buf.writeDoubleBE(9.5, at);
        at += 8;
        lines.push(line);
      }
      const array = alloc(24 + 8 * 3);
      objectArray(array, lines);
      const items = alloc(24 + 4 * 3);
      u1(0x23);
      id(items);
      u4(0);
      u4(3);
      u1(TYPE.INT);
      at += 12;
      instance(order, ORDER, 32);
      id(status);
      id(array);
      id(items);
      buf.writeDoubleBE(o, at);
      at += 8;
      orders.push(order);
    }
    const orderArray = alloc(24 + 8 * 4);
    objectArray(orderArray, orders);
    instance(customer, CUSTOMER, 40);
    id(name);
    id(email);
    id(address);
    id(orderArray);
    buf.writeBigInt64BE(BigInt(k), at);
    at += 8;
    instance(key, LONG, 8);
    buf.writeBigInt64BE(BigInt(k), at);
    at += 8;
    instance(node, NODE, 28);
    id(key);
    id(customer);
    id(0);
    u4(k);
    nodes.push(node);
  }
  const table = alloc(24 + 8 * nodes.length);
  objectArray(table, nodes);
  u1(0xff); // ROOT UNKNOWN
  id(table);
  w.segment.push(buf.subarray(0, at));
  fs.writeFileSync(file, w.finish());
  // The instances and arrays (the overview's count leaves out the class objects).
  return customers * PER_CUSTOMER + 1;
}

/** Analyzes `file` in the page; the worker's memory before and after, and the estimate. */
async function measure(page, file) {
  const mode = await openFile(page, file, 300_000);
  assert.equal(mode, 'done', mode === 'error' ? await page.locator('#error-message').textContent() : '');
  const objects = Number(await page.locator('#view-overview [data-fact="objects"]').getAttribute('data-value'));
  // The memory when the analysis ended (it never shrinks: the peak), as the page shows it.
  const after = Number(await page.locator('#run-facts').getAttribute('data-memory-bytes'));
  for (const worker of page.workers()) {
    const got = await worker.evaluate((n) => (self.__heapscope?.session ? { before: self.__heapscope.memoryBefore, estimate: self.__heapscope.peakEstimate(n) } : null), objects);
    if (got) return { objects, grown: after - got.before, estimate: got.estimate };
  }
  throw new Error('no worker holds the analysis');
}

test('the wasm memory estimate is within 10% of the memory a mid-size dump takes in the page', { timeout: 600_000 }, async () => {
  const sizes = [5_000, 20_000];
  const files = sizes.map((customers) => {
    const file = path.join(h.tmp, `customers-${customers}.hprof`);
    return { file, objects: writeDump(file, customers) };
  });
  const runs = [];
  for (const { file, objects } of files) {
    await h.withPage(async ({ page }) => {
      const r = await measure(page, file);
      assert.equal(r.objects, objects, `${path.basename(file)}: every object of the dump is indexed`);
      runs.push(r);
    });
  }
  const [small, big] = runs;
  assert.ok(big.objects > 1_000_000, `a mid-size dump: ${big.objects} objects`);
  const MiB = 2 ** 20;
  for (const r of runs) {
    console.log(`${r.objects} objects: the wasm memory grew by ${(r.grown / MiB).toFixed(1)} MiB (${(r.grown / r.objects).toFixed(1)} B/object); estimated ${(r.estimate / MiB).toFixed(1)} MiB`);
  }
  // Both sizes: the mid-size one (the per-object part dominates), and the small one, where
  // the fixed part is most of it.
  for (const r of [big, small]) {
    assert.ok(Math.abs(r.estimate - r.grown) <= 0.1 * r.grown, `${r.objects} objects: estimated ${r.estimate} bytes, the memory grew by ${r.grown}`);
  }
});
