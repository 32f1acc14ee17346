//! Warming the page's WebAssembly up before the first dump: a small synthetic dump,
//! analyzed a few times, so the browser has optimized the analysis' code before it meets
//! the user's dump.
//!
//! Why: V8 runs a wasm function first in its baseline compiler (Liftoff) and compiles it
//! again with its optimizing compiler (TurboFan) once the function has run "enough" (its
//! tiering budget, about 13 MB of executed wasm bytes in Chromium 156), but only later
//! *calls* use the optimized code: wasm has no on-stack replacement. The analysis' phases
//! are long loops inside functions called once per dump (a pass's record walk, the
//! dominator search, the retained sizes), so on a first dump they ran to the end in
//! baseline code: a `perf` profile of the page's worker on the 1 GB benchmark dump had
//! three quarters of the wasm time in Liftoff code, 2–3× slower than the native build.
//! The compiled code belongs to the module, which the page compiles once and shares with
//! every worker, so code optimized during the warm-up serves the dump analyzed next.
//!
//! Two things undo it, and the page avoids both. The optimized code inlines indirect
//! calls (`dyn ByteSource` reads, progress callbacks) for the targets it has seen and
//! falls back to baseline code when another comes: the page's warm-up
//! (`crate::wasm::warm_up`) therefore goes the way a dropped file goes, a `Blob` through
//! `Session::open`, not a [`MemorySource`]. And a long loop must not sit in a huge
//! function whose optimized code may not be ready when the dump arrives: the record
//! walk calls its segment loop once per segment, and `scripts/build-wasm.sh` keeps
//! binaryen from folding every function with one caller into one.
//!
//! [`customers_dump`] writes a dump shaped like the benchmark's (`make-big.sh`: customers
//! in a map, their strings, addresses, orders and order lines), the same shape as
//! `tests/e2e/helpers/customers-dump.mjs`; [`warm_up`] analyzes it `rounds` times as the
//! page analyzes a dump (the passes, dominator tree, retained sizes, the report).
//! Cost: linear in `customers × rounds` (71 objects and about 3.3 KB of dump per
//! customer); the memory of one round, freed before the next.

use crate::analysis::{Options, Progress, ProgressInfo};
use crate::error::Result;
use crate::records::basic_type::{
    BYTE as T_BYTE, DOUBLE as T_DOUBLE, INT as T_INT, LONG as T_LONG, OBJECT as T_OBJECT,
};
use crate::records::tag::{HEAP_DUMP_END, HEAP_DUMP_SEGMENT, LOAD_CLASS, STRING};
use crate::report::SourceInfo;
use crate::session::Session;
use crate::source::MemorySource;

/// The classes the dump defines (their class objects are objects of the dump too).
pub const CLASSES: usize = 13;

/// Objects per customer: node, key, customer, 2 strings (each a `String` and its `byte[]`),
/// the address and its 3 strings, 4 orders (the order, its status string, its lines array,
/// its `int[]`, 3 lines with a string each), the orders array.
pub const OBJECTS_PER_CUSTOMER: u64 = 3 + 2 * 2 + 1 + 3 * 2 + 4 * (1 + 2 + 2 + 3 * 3) + 1;

// Heap sub-record tags (the reader matches them in crate::records::heap).
const CLASS_DUMP: u8 = 0x20;
const INSTANCE_DUMP: u8 = 0x21;
const OBJECT_ARRAY_DUMP: u8 = 0x22;
const PRIMITIVE_ARRAY_DUMP: u8 = 0x23;
const ROOT_UNKNOWN: u8 = 0xff;
const ROOT_STICKY_CLASS: u8 = 0x05;

// The class ids.
const C_OBJECT: u64 = 0x100;
const C_STRING: u64 = 0x108;
const C_BYTES: u64 = 0x110;
const C_OBJECTS: u64 = 0x118;
const C_INTS: u64 = 0x120;
const C_CUSTOMER: u64 = 0x128;
const C_ADDRESS: u64 = 0x130;
const C_ORDER: u64 = 0x138;
const C_LINE: u64 = 0x140;
const C_NODE: u64 = 0x148;
const C_LONG: u64 = 0x150;
const C_CLASS: u64 = 0x158;
const C_LOADER: u64 = 0x160;

/// A class of the dump: its id, name, super class and instance fields (name, type).
type ClassDef = (u64, &'static str, u64, &'static [(&'static str, u8)]);

/// Big-endian HPROF bytes with 8-byte ids.
struct Out(Vec<u8>);

impl Out {
    fn u1(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u2(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn u4(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn id(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn record(&mut self, tag: u8, body: &[u8]) {
        self.u1(tag).u4(0).u4(body.len() as u32);
        self.0.extend_from_slice(body);
    }
}

/// The heap segment's writer: object ids handed out in address order.
struct Heap {
    out: Out,
    next: u64,
}

impl Heap {
    fn alloc(&mut self, bytes: u64) -> u64 {
        let at = self.next;
        self.next += bytes.div_ceil(8) * 8;
        at
    }
    fn instance(&mut self, obj: u64, class: u64, field_bytes: u32) -> &mut Out {
        self.out.u1(INSTANCE_DUMP).id(obj).u4(0).id(class).u4(field_bytes)
    }
    fn object_array(&mut self, obj: u64, elements: &[u64]) {
        self.out.u1(OBJECT_ARRAY_DUMP).id(obj).u4(0).u4(elements.len() as u32).id(C_OBJECTS);
        for &e in elements {
            self.out.id(e);
        }
    }
    /// A `String` (JDK 9+: `value` a `byte[]`, `coder` 0) of `text`.
    fn string(&mut self, text: &str) -> u64 {
        let s = self.alloc(32);
        let a = self.alloc(24 + text.len() as u64);
        self.instance(s, C_STRING, 9).id(a).u1(0);
        self.out.u1(PRIMITIVE_ARRAY_DUMP).id(a).u4(0).u4(text.len() as u32).u1(T_BYTE);
        self.out.0.extend_from_slice(text.as_bytes());
        s
    }
}

/// A dump of `customers` customers (a HotSpot 1.0.2 dump, 8-byte ids) with
/// `customers × OBJECTS_PER_CUSTOMER + 3` objects (the table holding the nodes, the class
/// loader and its array of classes) besides the [`CLASSES`] class objects.
pub fn customers_dump(customers: u32) -> Vec<u8> {
    let mut out = Out(Vec::with_capacity(customers as usize * 3400 + 4096));
    out.0.extend_from_slice(b"JAVA PROFILE 1.0.2\0");
    out.u4(8).id(1_767_225_600_000);
    let mut names = 0x1_0000u64;
    let mut string = |out: &mut Out, text: &str| {
        names += 1;
        let mut body = names.to_be_bytes().to_vec();
        body.extend_from_slice(text.as_bytes());
        out.record(STRING, &body);
        names
    };
    let mut seg = Out(Vec::new());
    let classes: [ClassDef; CLASSES] = [
        (C_OBJECT, "java/lang/Object", 0, &[]),
        (C_CLASS, "java/lang/Class", C_OBJECT, &[]),
        (C_LOADER, "java/lang/ClassLoader", C_OBJECT, &[("classes", T_OBJECT)]),
        (C_STRING, "java/lang/String", C_OBJECT, &[("value", T_OBJECT), ("coder", T_BYTE)]),
        (C_BYTES, "[B", C_OBJECT, &[]),
        (C_OBJECTS, "[Ljava/lang/Object;", C_OBJECT, &[]),
        (C_INTS, "[I", C_OBJECT, &[]),
        (
            C_CUSTOMER,
            "bench/Customer",
            C_OBJECT,
            &[("name", T_OBJECT), ("email", T_OBJECT), ("address", T_OBJECT), ("orders", T_OBJECT), ("id", T_LONG)],
        ),
        (C_ADDRESS, "bench/Address", C_OBJECT, &[("street", T_OBJECT), ("city", T_OBJECT), ("zip", T_OBJECT)]),
        (
            C_ORDER,
            "bench/Order",
            C_OBJECT,
            &[("status", T_OBJECT), ("lines", T_OBJECT), ("items", T_OBJECT), ("amount", T_DOUBLE)],
        ),
        (C_LINE, "bench/OrderLine", C_OBJECT, &[("sku", T_OBJECT), ("quantity", T_INT), ("price", T_DOUBLE)]),
        (
            C_NODE,
            "bench/Node",
            C_OBJECT,
            &[("key", T_OBJECT), ("value", T_OBJECT), ("next", T_OBJECT), ("hash", T_INT)],
        ),
        (C_LONG, "java/lang/Long", C_OBJECT, &[("value", T_LONG)]),
    ];
    // The application's classes (bench/…) are loaded by a class loader object, not GC roots:
    // each is a hub (every instance refers to its class), as in a real dump, which the
    // dominator search checks and lifts to the root.
    const LOADER: u64 = 0x8000_0000;
    const LOADER_CLASSES: u64 = 0x8000_0020;
    let mut app = Vec::new();
    for (k, &(id, name, superclass, fields)) in classes.iter().enumerate() {
        let name_id = string(&mut out, name);
        let mut body = Out(Vec::new());
        body.u4(k as u32 + 1).id(id).u4(0).id(name_id);
        out.record(LOAD_CLASS, &body.0);
        let in_app = name.starts_with("bench/");
        seg.u1(CLASS_DUMP)
            .id(id)
            .u4(0)
            .id(superclass)
            .id(if in_app { LOADER } else { 0 })
            .id(0)
            .id(0)
            .id(0)
            .id(0)
            .u4(0)
            .u2(0)
            .u2(0);
        seg.u2(fields.len() as u16);
        for &(field, ty) in fields {
            let field_id = string(&mut out, field);
            seg.id(field_id).u1(ty);
        }
        if in_app {
            app.push(id);
        } else {
            seg.u1(ROOT_STICKY_CLASS).id(id);
        }
    }
    seg.u1(INSTANCE_DUMP).id(LOADER).u4(0).id(C_LOADER).u4(8).id(LOADER_CLASSES);
    seg.u1(OBJECT_ARRAY_DUMP).id(LOADER_CLASSES).u4(0).u4(app.len() as u32).id(C_OBJECTS);
    for id in app {
        seg.id(id);
    }
    seg.u1(ROOT_UNKNOWN).id(LOADER);
    let mut h = Heap { out: seg, next: 0x1_0000_0000 };
    let cities = ["Paris", "Lyon", "Nantes", "Lille"];
    let statuses = ["NEW", "PAID", "SHIPPED"];
    let mut nodes = Vec::with_capacity(customers as usize);
    for k in 0..customers {
        let node = h.alloc(32);
        let key = h.alloc(16);
        let customer = h.alloc(48);
        let name = h.string(&format!("customer-{k}"));
        let email = h.string(&format!("customer-{k}@example.com"));
        let address = h.alloc(32);
        let street = h.string(&format!("{} rue {}", k % 200, k % 37));
        let city = h.string(cities[k as usize % 4]);
        let zip = h.string(&format!("{:05}", k % 1000));
        h.instance(address, C_ADDRESS, 24).id(street).id(city).id(zip);
        let mut orders = [0u64; 4];
        for (o, order_id) in orders.iter_mut().enumerate() {
            let order = h.alloc(40);
            let status = h.string(statuses[(k as usize + o) % 3]);
            let mut lines = [0u64; 3];
            for (l, line_id) in lines.iter_mut().enumerate() {
                let line = h.alloc(32);
                let sku = h.string(&format!("SKU-{}", (k as usize * 7 + o * 3 + l) % 5000));
                h.instance(line, C_LINE, 20).id(sku).u4(l as u32 + 1).id(9.5f64.to_bits());
                *line_id = line;
            }
            let array = h.alloc(24 + 8 * 3);
            h.object_array(array, &lines);
            let items = h.alloc(24 + 4 * 3);
            h.out.u1(PRIMITIVE_ARRAY_DUMP).id(items).u4(0).u4(3).u1(T_INT).u4(1).u4(2).u4(3);
            h.instance(order, C_ORDER, 32).id(status).id(array).id(items).id((o as f64).to_bits());
            *order_id = order;
        }
        let order_array = h.alloc(24 + 8 * 4);
        h.object_array(order_array, &orders);
        h.instance(customer, C_CUSTOMER, 40).id(name).id(email).id(address).id(order_array).id(k as u64);
        h.instance(key, C_LONG, 8).id(k as u64);
        h.instance(node, C_NODE, 28).id(key).id(customer).id(0).u4(k);
        nodes.push(node);
    }
    let table = h.alloc(24 + 8 * nodes.len() as u64);
    h.object_array(table, &nodes);
    h.out.u1(ROOT_UNKNOWN).id(table);
    out.record(HEAP_DUMP_SEGMENT, &h.out.0);
    out.record(HEAP_DUMP_END, &[]);
    out.0
}

struct Silent;

impl Progress for Silent {
    fn update(&mut self, _: &ProgressInfo) -> Result<()> {
        Ok(())
    }
}

/// Analyzes [`customers_dump`]`(customers)` `rounds` times as a dump is analyzed (with the
/// report, and what a later comparison needs from the dump); returns the objects the
/// last round counted.
pub fn warm_up(customers: u32, rounds: u32) -> Result<u64> {
    let dump: std::rc::Rc<[u8]> = customers_dump(customers).into();
    let mut objects = 0;
    for _ in 0..rounds {
        let source = Box::new(MemorySource::new(dump.clone()));
        let mut session = Session::open(source, &Options::default(), &mut Silent, SourceInfo::default())?;
        objects = session.report()?.overview.objects;
    }
    Ok(objects)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Instances per class, as the construction writes them.
    fn expected(customers: u64) -> Vec<(&'static str, u64)> {
        let c = customers;
        vec![
            ("java.lang.String", 21 * c),
            ("byte[]", 21 * c),
            ("int[]", 4 * c),
            // A lines array per order, an orders array per customer, the table, the loader's.
            ("java.lang.Object[]", 4 * c + c + 2),
            ("java.lang.Long", c),
            // The loader, and MAT's pseudo object 0x0 for the bootstrap loader (classes
            // refer to it), which MAT counts as a class loader.
            ("java.lang.ClassLoader", 2),
            ("bench.Customer", c),
            ("bench.Address", c),
            ("bench.Order", 4 * c),
            ("bench.OrderLine", 12 * c),
            ("bench.Node", c),
        ]
    }

    #[test]
    fn the_customers_dump_has_the_objects_its_construction_gives() {
        let customers = 50;
        let dump = customers_dump(customers);
        let source = Box::new(MemorySource::new(dump));
        let mut session = Session::open(source, &Options::default(), &mut Silent, SourceInfo::default()).unwrap();
        let report = session.report().unwrap().clone();
        let instances =
            |name: &str| report.histogram.iter().filter(|c| c.class_name == name).map(|c| c.instances).sum::<u64>();
        for (name, n) in expected(customers as u64) {
            assert_eq!(instances(name), n, "{name}");
        }
        // Each of the 13 classes is one row (every class object is reachable).
        assert_eq!(report.histogram.len(), CLASSES);
        // The application's classes are not GC roots (hubs), the others are.
        assert_eq!(report.histogram.iter().filter(|c| c.class_name.starts_with("bench.")).count(), 5);
        let per_customer: u64 = expected(1).iter().map(|&(_, n)| n).sum::<u64>() - 4;
        assert_eq!(per_customer, OBJECTS_PER_CUSTOMER);
    }

    #[test]
    fn warm_up_analyzes_each_round_in_full() {
        // The objects of the dump: its instances and arrays, its class objects (and MAT's
        // pseudo object 0x0 for the bootstrap loader, kept here: classes refer to it).
        assert_eq!(warm_up(20, 2).unwrap(), 20 * OBJECTS_PER_CUSTOMER + 3 + CLASSES as u64 + 1);
    }
}
