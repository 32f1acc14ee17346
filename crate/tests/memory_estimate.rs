//! The peak the page estimates after pass 1 ([`PEAK_BYTES_PER_OBJECT`] per object, on top
//! of a fixed margin) against the peak the allocator actually reaches, on a mid-size dump
//! shaped like the benchmark's (`make-big.sh`: customers in a map, their strings, orders
//! and order lines, about 30% `String`s and 30% `byte[]`s, a quarter of the customers
//! also held by an event list). Not timed.
//!
//! The per-object peak is measured as the slope between two sizes of the same heap, so
//! that what does not grow with the dump (the read buffer, the class table) does not
//! count: the page keeps a fixed margin for that.
//!
//! This file holds one test: the counting allocator sees the whole process.

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
mod support;

use heapscope::analysis::{Options, PEAK_BYTES_PER_OBJECT};
use heapscope::source::MemorySource;
use support::hprof_builder::{ClassDef, Hprof, Value as V};

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

/// Field and class name strings, and the classes (id, name string, super).
const NAMES: &[(u64, &str)] = &[
    (1, "java/lang/Object"),
    (2, "java/lang/String"),
    (3, "value"),
    (4, "coder"),
    (5, "[B"),
    (6, "[Ljava/lang/Object;"),
    (7, "[I"),
    (8, "bench/Customer"),
    (9, "bench/Address"),
    (10, "bench/Order"),
    (11, "bench/OrderLine"),
    (12, "bench/Node"),
    (13, "java/lang/Long"),
    (14, "bench/Event"),
    (15, "java/lang/Class"),
    (20, "f0"),
    (21, "f1"),
    (22, "f2"),
    (23, "f3"),
    (24, "f4"),
];
const OBJECT: u64 = 0x100;
const STRING: u64 = 0x108;
const BYTES: u64 = 0x110;
const OBJECTS: u64 = 0x118;
const INTS: u64 = 0x120;
const CUSTOMER: u64 = 0x128;
const ADDRESS: u64 = 0x130;
const ORDER: u64 = 0x138;
const LINE: u64 = 0x140;
const NODE: u64 = 0x148;
const LONG: u64 = 0x150;
const EVENT: u64 = 0x158;
const CLASS: u64 = 0x160;

/// Bump allocation of addresses in creation order (a compacted heap), 8-byte aligned.
struct Heap(u64);

impl Heap {
    fn next(&mut self, bytes: u64) -> u64 {
        let at = self.0;
        self.0 += bytes.div_ceil(8) * 8;
        at
    }
}

/// A dump of `customers` customers: about 70 objects each.
fn dump(customers: u64) -> (Vec<u8>, u64) {
    let mut h = Hprof::new(8);
    for &(id, name) in NAMES {
        h.string(id, name);
    }
    let classes = [
        (OBJECT, 1),
        (STRING, 2),
        (BYTES, 5),
        (OBJECTS, 6),
        (INTS, 7),
        (CUSTOMER, 8),
        (ADDRESS, 9),
        (ORDER, 10),
        (LINE, 11),
        (NODE, 12),
        (LONG, 13),
        (EVENT, 14),
        (CLASS, 15),
    ];
    for (serial, &(class, name)) in classes.iter().enumerate() {
        h.load_class(serial as u32 + 1, class, name);
    }
    let mut seg = h.segment_builder();
    let obj = |c: ClassDef, n: usize| (0..n).fold(c, |c, k| c.field(20 + k as u64, 2));
    let defs = [
        ClassDef::new(OBJECT, 0),
        ClassDef::new(STRING, OBJECT).field(3, 2).field(4, 8),
        ClassDef::new(BYTES, OBJECT),
        ClassDef::new(OBJECTS, OBJECT),
        ClassDef::new(INTS, OBJECT),
        obj(ClassDef::new(CUSTOMER, OBJECT), 4).field(24, 11),
        obj(ClassDef::new(ADDRESS, OBJECT), 3),
        obj(ClassDef::new(ORDER, OBJECT), 3).field(23, 7),
        obj(ClassDef::new(LINE, OBJECT), 1).field(21, 10).field(22, 7),
        obj(ClassDef::new(NODE, OBJECT), 3).field(23, 10),
        ClassDef::new(LONG, OBJECT).field(20, 11),
        obj(ClassDef::new(EVENT, OBJECT), 2),
        ClassDef::new(CLASS, OBJECT),
    ];
    for d in &defs {
        seg.class_dump(d).root_sticky_class(d.id);
    }
    let mut heap = Heap(0x1_0000_0000);
    let mut objects = defs.len() as u64 + 1; // the classes and MAT's pseudo object 0x0
    let cities = ["Paris", "Lyon", "Nantes", "Lille"];
    let statuses = ["NEW", "PAID", "SHIPPED"];
    let string = |seg: &mut support::hprof_builder::Segment, heap: &mut Heap, text: &str| {
        let s = heap.next(32);
        let a = heap.next(24 + text.len() as u64);
        seg.instance(s, STRING, &[V::Obj(a), V::Byte(0)]);
        seg.primitive_array_header(a, 8, text.len() as u32).raw(text.as_bytes());
        s
    };
    let mut nodes = Vec::new();
    let mut events = Vec::new();
    for k in 0..customers {
        let node = heap.next(32);
        let key = heap.next(16);
        let customer = heap.next(48);
        let name = string(&mut seg, &mut heap, &format!("customer-{k}"));
        let email = string(&mut seg, &mut heap, &format!("customer-{k}@example.com"));
        let address = heap.next(32);
        let street = string(&mut seg, &mut heap, &format!("{} rue {}", k % 200, k % 37));
        let city = string(&mut seg, &mut heap, cities[k as usize % 4]);
        let zip = string(&mut seg, &mut heap, &format!("{:05}", k % 1000));
        seg.instance(address, ADDRESS, &[V::Obj(street), V::Obj(city), V::Obj(zip)]);
        let mut orders = Vec::new();
        for o in 0..4 {
            let order = heap.next(40);
            let status = string(&mut seg, &mut heap, statuses[(k + o) as usize % 3]);
            let mut lines = Vec::new();
            for l in 0..3 {
                let line = heap.next(32);
                let sku = string(&mut seg, &mut heap, &format!("SKU-{}", (k * 7 + o * 3 + l) % 5000));
                seg.instance(line, LINE, &[V::Obj(sku), V::Int(l as i32 + 1), V::Double(9.5)]);
                lines.push(line);
            }
            let array = heap.next(24 + 8 * 3);
            seg.object_array(array, OBJECTS, &lines);
            let items = heap.next(24 + 4 * 3);
            seg.primitive_array_header(items, 10, 3).raw(&[0u8; 12]);
            seg.instance(order, ORDER, &[V::Obj(status), V::Obj(array), V::Obj(items), V::Double(o as f64)]);
            orders.push(order);
        }
        let order_array = heap.next(24 + 8 * 4);
        seg.object_array(order_array, OBJECTS, &orders);
        seg.instance(
            customer,
            CUSTOMER,
            &[V::Obj(name), V::Obj(email), V::Obj(address), V::Obj(order_array), V::Long(k as i64)],
        );
        seg.instance(key, LONG, &[V::Long(k as i64)]);
        seg.instance(node, NODE, &[V::Obj(key), V::Obj(customer), V::Obj(0), V::Int(k as i32)]);
        nodes.push(node);
        if k % 4 == 0 {
            events.push(customer);
        }
        objects += 3 + 2 * 2 + 1 + 3 * 2 + 4 * (1 + 2 + 3 * 3 + 2) + 1;
    }
    // The event log: a chain of events, each also holding a customer the map holds.
    let mut next = 0;
    for &c in events.iter().rev() {
        let e = heap.next(24);
        seg.instance(e, EVENT, &[V::Obj(next), V::Obj(c)]);
        next = e;
        objects += 1;
    }
    let table = heap.next(24 + 8 * nodes.len() as u64);
    seg.object_array(table, OBJECTS, &nodes).root_jni_global(table, 1);
    seg.root_jni_global(next, 2);
    objects += 1;
    h.segment(&seg).heap_dump_end();
    (h.into_bytes(), objects)
}

/// Bytes the allocator held at most during the analysis, above what it held before (the
/// dump's own bytes), and the objects analyzed.
fn measured_peak(customers: u64) -> (u64, u64) {
    let (bytes, objects) = dump(customers);
    let before = counting_alloc::live();
    counting_alloc::reset_peak();
    // A session: the analysis with its features, as the page and the command line run it.
    let s = support::session(Box::new(MemorySource::new(bytes)), &Options::default()).expect("analysis");
    let peak = counting_alloc::peak() - before;
    let a = &s.analysis;
    assert_eq!(a.object_count() as u64, objects, "every object of the dump is indexed");
    // All but MAT's pseudo object 0x0, which has a class only when the dump defines
    // java.lang.ClassLoader (this one does not).
    assert_eq!(a.kept_objects, objects - 1, "every object of the heap is reachable");
    drop(s);
    (peak as u64, objects)
}

#[test]
fn peak_per_object_estimate_is_within_ten_percent_of_the_measured_peak() {
    let (small_peak, small) = measured_peak(4_000);
    let (big_peak, big) = measured_peak(16_000);
    assert!(big > 1_000_000, "a mid-size dump: {big} objects");
    let per_object = (big_peak - small_peak) as f64 / (big - small) as f64;
    let estimate = PEAK_BYTES_PER_OBJECT as f64;
    eprintln!("measured peak: {per_object:.2} bytes per object ({small} objects: {small_peak} B, {big}: {big_peak} B); estimate {estimate}");
    assert!(
        (estimate - per_object).abs() <= 0.10 * per_object,
        "the estimate, {estimate} bytes per object, is not within 10% of the measured {per_object:.2}"
    );
}
