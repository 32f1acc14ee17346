// A dump shaped like the benchmark's (`make-big.sh`: customers in a map, their strings,
// addresses, orders and order lines; about 30% `String`s, 30% `byte[]`s), built straight
// into one buffer (the writer's record-per-Buffer is slow for a million objects). Used by
// the memory-estimate and read-ahead tests.
import fs from 'node:fs';
import { HprofWriter, TYPE } from './hprof.mjs';

// The class ids.
const [OBJECT, STRING, BYTES, OBJECTS, INTS, CUSTOMER, ADDRESS, ORDER, LINE, NODE, LONG] = Array.from({ length: 11 }, (_, k) => 0x100 + 8 * k);

/** Objects per customer: node, key, customer, 2 strings, address and its 3 strings, 4 orders (status string, lines array, items int[], 3 lines with a string each), the orders array. */
const PER_CUSTOMER = 3 + 2 * 2 + 1 + 3 * 2 + 4 * (1 + 2 + 2 + 3 * 3) + 1;

/** A dump of `customers` customers, written to `file`; returns its object count. */
export function writeDump(file, customers) {
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

