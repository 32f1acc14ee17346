//! Duplicate arrays, empty and sparse collections, boxed numbers and allocation sites:
//! against brute-force definitions over random dumps built with the HPROF builder (JDK
//! and Android field names, a subclass read through its JDK superclass), and against the
//! corpus manifest's constructions (s03, s05, s11).

mod support;

use std::collections::BTreeMap;

use heapscope::analysis::Options;
use heapscope::model::document::Block;
use heapscope::render::{document, html, markdown};
use heapscope::session::Session;
use proptest::prelude::*;
use support::hprof_builder::{ClassDef, Hprof, Segment, Value as V};

#[derive(Debug, Clone)]
struct ArraySpec {
    /// Index into TYPES.
    ty: usize,
    len: u32,
    /// 0: all zero; else one of two non-zero patterns.
    content: u8,
    reachable: bool,
    /// Held by a String (a byte[] only): not a duplicate array.
    backs_string: bool,
}

#[derive(Debug, Clone)]
struct BoxSpec {
    /// 0 Integer, 1 Long, 2 Boolean.
    which: usize,
    value: i64,
    reachable: bool,
}

#[derive(Debug, Clone)]
struct CollSpec {
    /// 0 ArrayList, 1 MyList (extends ArrayList), 2 HashMap, 3 LinkedHashMap, 4 HashSet.
    kind: usize,
    size: u32,
    /// Backing array length; None: null.
    capacity: Option<u32>,
    reachable: bool,
}

/// (HPROF type, element size, class id, class name in the report).
const TYPES: [(u8, usize, u64, &str); 5] = [
    (8, 1, 0x300, "byte[]"),
    (10, 4, 0x310, "int[]"),
    (11, 8, 0x320, "long[]"),
    (5, 2, 0x330, "char[]"),
    (4, 1, 0x340, "boolean[]"),
];
const COLL_CLASSES: [(u64, &str); 5] = [
    (0x500, "java.util.ArrayList"),
    (0x510, "corpus.MyList"),
    (0x600, "java.util.HashMap"),
    (0x610, "java.util.LinkedHashMap"),
    (0x700, "java.util.HashSet"),
];
const BOX_CLASSES: [(u64, &str); 3] =
    [(0x900, "java.lang.Integer"), (0x910, "java.lang.Long"), (0x920, "java.lang.Boolean")];

fn content_bytes(a: &ArraySpec) -> Vec<u8> {
    let size = TYPES[a.ty].1;
    (0..a.len as usize * size)
        .map(|i| if a.content == 0 { 0 } else { (i as u8).wrapping_mul(7).wrapping_add(a.content) | 1 })
        .collect()
}

/// Ids of what [`dump`] wrote: arrays, boxes, collections (and, per set, its map).
struct Ids {
    arrays: Vec<u64>,
    boxes: Vec<u64>,
    colls: Vec<u64>,
    backing: Vec<Option<u64>>,
}

/// A HotSpot dump (`android`: Android's old field names `array`, `backingMap`).
/// With `scrambled`, the primitive arrays' addresses are a permutation of their record
/// order (heap regions dumped out of order: pass 2 meets them out of object order).
fn dump(arrays: &[ArraySpec], boxes: &[BoxSpec], colls: &[CollSpec], android: bool, scrambled: bool) -> (Vec<u8>, Ids) {
    let mut h = Hprof::new(8);
    let names: &[(u64, &str)] = &[
        (1, "java/lang/Object"),
        (2, "java/lang/String"),
        (3, "value"),
        (4, "coder"),
        (5, "[B"),
        (6, "[I"),
        (7, "[J"),
        (8, "[C"),
        (9, "[Z"),
        (10, "[Ljava/lang/Object;"),
        (11, "java/util/ArrayList"),
        (12, "corpus/MyList"),
        (13, "java/util/HashMap"),
        (14, "java/util/LinkedHashMap"),
        (15, "java/util/HashSet"),
        (16, "[Ljava/util/HashMap$Node;"),
        (17, "java/lang/Integer"),
        (18, "java/lang/Long"),
        (19, "java/lang/Boolean"),
        (20, "size"),
        (21, if android { "array" } else { "elementData" }),
        (22, "table"),
        (23, if android { "backingMap" } else { "map" }),
        (24, "extra"),
        (25, "head"),
    ];
    for &(id, name) in names {
        h.string(id, name);
    }
    let classes: &[(u64, u64)] = &[
        (0x100, 1),
        (0x200, 2),
        (0x300, 5),
        (0x310, 6),
        (0x320, 7),
        (0x330, 8),
        (0x340, 9),
        (0x400, 10),
        (0x500, 11),
        (0x510, 12),
        (0x600, 13),
        (0x610, 14),
        (0x700, 15),
        (0x800, 16),
        (0x900, 17),
        (0x910, 18),
        (0x920, 19),
    ];
    for (serial, &(class, name)) in classes.iter().enumerate() {
        h.load_class(serial as u32 + 1, class, name);
    }
    let mut seg = h.segment_builder();
    for c in [
        ClassDef::new(0x100, 0),
        ClassDef::new(0x200, 0x100).field(3, 2).field(4, 8),
        ClassDef::new(0x300, 0x100),
        ClassDef::new(0x310, 0x100),
        ClassDef::new(0x320, 0x100),
        ClassDef::new(0x330, 0x100),
        ClassDef::new(0x340, 0x100),
        ClassDef::new(0x400, 0x100),
        ClassDef::new(0x500, 0x100).field(21, 2).field(20, 10),
        ClassDef::new(0x510, 0x500).field(24, 10),
        ClassDef::new(0x600, 0x100).field(22, 2).field(20, 10),
        ClassDef::new(0x610, 0x600).field(25, 2),
        ClassDef::new(0x700, 0x100).field(23, 2),
        ClassDef::new(0x800, 0x100),
        ClassDef::new(0x900, 0x100).field(3, 10),
        ClassDef::new(0x910, 0x100).field(3, 11),
        ClassDef::new(0x920, 0x100).field(3, 4),
    ] {
        seg.class_dump(&c);
    }
    let mut held = Vec::new();
    let mut ids = Ids { arrays: Vec::new(), boxes: Vec::new(), colls: Vec::new(), backing: Vec::new() };
    for (k, a) in arrays.iter().enumerate() {
        // (k × 17 mod 41 is a permutation of 0..41; the strategy makes at most 40 arrays.)
        let slot = if scrambled { (k as u64 * 17) % 41 } else { k as u64 };
        let id = 0x100_0000 + 0x1000 * slot;
        let (ty, _, _, _) = TYPES[a.ty];
        let data = content_bytes(a);
        seg.primitive_array_header(id, ty, a.len).raw(&data);
        ids.arrays.push(id);
        let holder = if a.backs_string {
            let s = 0x200_0000 + 0x100 * k as u64;
            seg.instance(s, 0x200, &[V::Obj(id), V::Byte(0)]);
            s
        } else {
            id
        };
        if a.reachable {
            held.push(holder);
        }
    }
    for (k, b) in boxes.iter().enumerate() {
        let id = 0x300_0000 + 0x100 * k as u64;
        let value = match b.which {
            0 => V::Int(b.value as i32),
            1 => V::Long(b.value),
            _ => V::Bool(b.value != 0),
        };
        seg.instance(id, BOX_CLASSES[b.which].0, &[value]);
        ids.boxes.push(id);
        if b.reachable {
            held.push(id);
        }
    }
    for (k, c) in colls.iter().enumerate() {
        let id = 0x400_0000 + 0x1000 * k as u64;
        let table = c.capacity.map(|cap| {
            let t = id + 0x100;
            let class = if c.kind >= 2 { 0x800 } else { 0x400 };
            seg.object_array(t, class, &vec![0; cap as usize]);
            t
        });
        let t = V::Obj(table.unwrap_or(0));
        let size = V::Int(c.size as i32);
        match c.kind {
            0 => seg.instance(id, 0x500, &[t, size]),
            1 => seg.instance(id, 0x510, &[V::Int(7), t, size]),
            2 => seg.instance(id, 0x600, &[t, size]),
            3 => seg.instance(id, 0x610, &[V::Obj(0), t, size]),
            _ => {
                let map = id + 0x200;
                seg.instance(map, 0x600, &[t, size]);
                seg.instance(id, 0x700, &[V::Obj(map)])
            }
        };
        ids.colls.push(id);
        ids.backing.push(table);
        if c.reachable {
            held.push(id);
        }
    }
    seg.object_array(0x9_0000, 0x400, &held).root_jni_global(0x9_0000, 1);
    h.segment(&seg).heap_dump_end();
    (h.into_bytes(), ids)
}

fn run(bytes: Vec<u8>) -> Session {
    support::session_of(bytes)
}

fn check(
    arrays: &[ArraySpec],
    boxes: &[BoxSpec],
    colls: &[CollSpec],
    android: bool,
    scrambled: bool,
) -> Result<(), TestCaseError> {
    let (bytes, ids) = dump(arrays, boxes, colls, android, scrambled);
    let s = run(bytes);
    let a = &s.analysis;
    let obj = |id: u64| a.object_at(id).expect("object");
    let shallow = |id: u64| a.shallow(obj(id));
    let w = &s.features().waste;

    // Duplicate arrays: kept arrays no String holds, by (type, length, bytes).
    let mut groups: BTreeMap<(usize, u32, Vec<u8>), Vec<u64>> = BTreeMap::new();
    let (mut zero_n, mut zero_b, mut n) = (0u64, 0u64, 0u64);
    for (k, s) in arrays.iter().enumerate() {
        if !s.reachable || s.backs_string {
            continue;
        }
        n += 1;
        let bytes = content_bytes(s);
        if !bytes.is_empty() && bytes.iter().all(|&b| b == 0) {
            zero_n += 1;
            zero_b += shallow(ids.arrays[k]);
        }
        groups.entry((s.ty, s.len, bytes)).or_default().push(ids.arrays[k]);
    }
    let mut expected: Vec<(String, u64, u64, u64, bool, String)> = Vec::new();
    let mut wasted = 0;
    for ((ty, len, bytes), members) in &groups {
        if members.len() < 2 {
            continue;
        }
        let first = *members.iter().min().unwrap();
        let waste = (members.len() as u64 - 1) * shallow(first);
        wasted += waste;
        let zero = !bytes.is_empty() && bytes.iter().all(|&b| b == 0);
        expected.push((
            TYPES[*ty].3.to_string(),
            *len as u64,
            members.len() as u64,
            waste,
            zero,
            format!("0x{first:x}"),
        ));
    }
    expected.sort();
    let d = &w.duplicate_arrays;
    let mut actual: Vec<(String, u64, u64, u64, bool, String)> = d
        .groups
        .iter()
        .map(|g| (g.class_name.clone(), g.length, g.count, g.wasted_bytes, g.all_zero, g.sample[0].address.clone()))
        .collect();
    actual.sort();
    prop_assert_eq!(actual, expected);
    prop_assert_eq!(
        (d.arrays, d.distinct_contents, d.wasted_bytes, d.all_zero_arrays, d.all_zero_bytes),
        (n, groups.len() as u64, wasted, zero_n, zero_b)
    );
    for g in &d.groups {
        prop_assert_eq!(g.wasted_bytes, (g.count - 1) * g.array_shallow_bytes);
    }

    // Boxed numbers: per class, kept count, distinct values, instances beyond one each.
    let mut by_class: BTreeMap<&str, BTreeMap<i64, u64>> = BTreeMap::new();
    let mut box_bytes: BTreeMap<&str, u64> = BTreeMap::new();
    for (k, b) in boxes.iter().enumerate().filter(|(_, b)| b.reachable) {
        let v = if b.which == 2 { (b.value != 0) as i64 } else { b.value };
        *by_class.entry(BOX_CLASSES[b.which].1).or_default().entry(v).or_default() += 1;
        *box_bytes.entry(BOX_CLASSES[b.which].1).or_default() += shallow(ids.boxes[k]);
    }
    let mut boxed_wasted = 0;
    let expected_boxed: BTreeMap<String, (u64, u64, u64, u64, u64)> = by_class
        .iter()
        .map(|(c, values)| {
            let count: u64 = values.values().sum();
            let bytes = box_bytes[c];
            let dup = count - values.len() as u64;
            boxed_wasted += dup * (bytes / count);
            (c.to_string(), (count, bytes, values.len() as u64, dup, dup * (bytes / count)))
        })
        .collect();
    let actual_boxed: BTreeMap<String, (u64, u64, u64, u64, u64)> = w
        .boxed
        .iter()
        .map(|r| (r.class_name.clone(), (r.count, r.shallow_bytes, r.distinct_values, r.duplicates, r.wasted_bytes)))
        .collect();
    prop_assert_eq!(actual_boxed, expected_boxed);
    for r in &w.boxed {
        prop_assert_eq!(r.top_values.iter().map(|v| v.count).sum::<u64>() <= r.count, true);
        prop_assert_eq!(r.top_values.first().map(|v| v.count), by_class[r.class_name.as_str()].values().max().copied());
    }

    // Collections: per class of the kept ones (a set's map counts for the set only).
    #[derive(Debug, Default, PartialEq, Eq, Clone)]
    struct Row {
        total: u64,
        empty: u64,
        wasted: u64,
        unallocated: u64,
        non_empty: u64,
        fill_sum: u64,
        hist: [u64; 5],
        unused: u64,
        shallow: u64,
        backing: u64,
    }
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    let ref_size = 8;
    for (k, c) in colls.iter().enumerate().filter(|(_, c)| c.reachable) {
        let r = rows.entry(COLL_CLASSES[c.kind].1).or_default();
        r.total += 1;
        r.shallow += shallow(ids.colls[k]);
        let cap = c.capacity.unwrap_or(0) as u64;
        if let Some(t) = ids.backing[k] {
            r.backing += shallow(t);
        }
        if c.size == 0 {
            if cap == 0 {
                r.unallocated += 1;
            } else {
                r.empty += 1;
                r.wasted += shallow(ids.backing[k].unwrap());
            }
        } else if let Some(ratio) = (c.size as u64 * 10_000).checked_div(cap) {
            r.non_empty += 1;
            let bp = ratio.min(10_000);
            r.fill_sum += bp;
            r.hist[(((bp.max(1)) - 1) / 2000).min(4) as usize] += 1;
            r.unused += cap.saturating_sub(c.size as u64) * ref_size;
        }
    }
    let actual_rows: BTreeMap<&str, Row> = w
        .empty_collections
        .iter()
        .map(|r| {
            (
                COLL_CLASSES.iter().find(|c| c.1 == r.class_name).map(|c| c.1).unwrap_or("?"),
                Row {
                    total: r.total,
                    empty: r.empty,
                    wasted: r.wasted_bytes,
                    unallocated: r.empty_unallocated,
                    non_empty: r.non_empty,
                    fill_sum: r.fill_ratio_bp as u64 * r.non_empty,
                    hist: r.fill_ratio_histogram.clone().try_into().unwrap(),
                    unused: r.unused_slot_bytes,
                    shallow: r.shallow_bytes,
                    backing: r.backing_bytes,
                },
            )
        })
        .collect();
    // The average is rounded down: compare it as such.
    let expected_rows: BTreeMap<&str, Row> = rows
        .into_iter()
        .map(|(k, mut r)| {
            r.fill_sum = r.fill_sum.checked_div(r.non_empty).unwrap_or(0) * r.non_empty;
            (k, r)
        })
        .collect();
    prop_assert_eq!(actual_rows, expected_rows);
    let coll_wasted: u64 = w.empty_collections.iter().map(|r| r.wasted_bytes).sum();
    prop_assert_eq!(w.total_wasted_bytes, w.duplicate_strings.wasted_bytes + wasted + boxed_wasted + coll_wasted);
    prop_assert!(!a_sites_recorded(&s));
    Ok(())
}

fn a_sites_recorded(s: &Session) -> bool {
    s.features().allocation_sites.recorded
}

fn arrays_strategy() -> impl Strategy<Value = Vec<ArraySpec>> {
    prop::collection::vec(
        (0usize..5, 0u32..4, 0u8..3, prop::bool::weighted(0.8), prop::bool::weighted(0.15)).prop_map(
            |(ty, len, content, reachable, s)| ArraySpec { ty, len, content, reachable, backs_string: s && ty == 0 },
        ),
        0..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn waste_kinds_equal_brute_force(
        arrays in arrays_strategy(),
        boxes in prop::collection::vec((0usize..3, -2i64..3, prop::bool::weighted(0.8)).prop_map(|(which, value, reachable)| BoxSpec { which, value, reachable }), 0..30),
        colls in prop::collection::vec((0usize..5, 0u32..6, prop::option::weighted(0.8, 0u32..9), prop::bool::weighted(0.8)).prop_map(|(kind, size, capacity, reachable)| CollSpec { kind, size, capacity, reachable }), 0..25),
        android in any::<bool>(),
        scrambled in any::<bool>(),
    ) {
        check(&arrays, &boxes, &colls, android, scrambled)?;
    }
}

/// Objects allocated at recorded stacks: the histogram by site equals counting by hand;
/// a trace without frames (HotSpot's) records nothing.
#[test]
fn allocation_sites_by_stack() {
    let mut h = Hprof::new(8);
    for (id, name) in [
        (1, "java/lang/Object"),
        (2, "corpus/Thing"),
        (3, "make"),
        (4, "()V"),
        (5, "Thing.java"),
        (6, "[B"),
        (7, "other"),
        (8, "[Ljava/lang/Object;"),
    ] {
        h.string(id, name);
    }
    for (serial, (class, name)) in [(0x100, 1), (0x200, 2), (0x300, 6), (0x400, 8)].into_iter().enumerate() {
        h.load_class(serial as u32 + 1, class, name);
    }
    // Frames 0xf1 (make, line 12) and 0xf2 (other, line 40) of corpus.Thing (class serial 2).
    for (frame, method, line) in [(0xf1u64, 3u64, 12i32), (0xf2, 7, 40)] {
        let mut body = Vec::new();
        for id in [frame, method, 4, 5] {
            body.extend_from_slice(&id.to_be_bytes());
        }
        body.extend_from_slice(&2u32.to_be_bytes());
        body.extend_from_slice(&line.to_be_bytes());
        h.record(0x04, &body);
    }
    // Trace 1: no frames (as HotSpot writes); 7: make ← other; 8: other alone.
    h.stack_trace(1, 0);
    for (serial, frames) in [(7u32, vec![0xf1u64, 0xf2]), (8, vec![0xf2])] {
        let mut body = serial.to_be_bytes().to_vec();
        body.extend_from_slice(&0u32.to_be_bytes());
        body.extend_from_slice(&(frames.len() as u32).to_be_bytes());
        for f in frames {
            body.extend_from_slice(&f.to_be_bytes());
        }
        h.record(0x05, &body);
    }
    let mut seg = h.segment_builder();
    for c in [
        ClassDef::new(0x100, 0),
        ClassDef::new(0x200, 0x100).field(3, 10),
        ClassDef::new(0x300, 0x100),
        ClassDef::new(0x400, 0x100),
    ] {
        seg.class_dump(&c);
    }
    // (id, serial, instance or byte[] of 100, reachable)
    let objects = [
        (0x1000u64, 7u32, true, true),
        (0x1100, 7, true, true),
        (0x1200, 7, false, true),
        (0x1300, 8, true, true),
        (0x1400, 1, true, true),
        (0x1500, 0, false, true),
        (0x1600, 7, true, false),
    ];
    let instance = |seg: &mut Segment, id: u64, serial: u32| {
        seg.u1(0x21).id(id).u4(serial).id(0x200).u4(4).u4(5);
    };
    for &(id, serial, inst, _) in &objects {
        if inst {
            instance(&mut seg, id, serial);
        } else {
            seg.u1(0x23).id(id).u4(serial).u4(100).u1(8).raw(&[1; 100]);
        }
    }
    let held: Vec<u64> = objects.iter().filter(|o| o.3).map(|o| o.0).collect();
    seg.object_array(0x9000, 0x400, &held).root_jni_global(0x9000, 1);
    h.segment(&seg).heap_dump_end();
    let session = run(h.into_bytes());
    let a = &session.analysis;
    let s = &session.features().allocation_sites;
    let shallow = |id: u64| a.shallow(a.object_at(id).unwrap());
    assert!(s.recorded);
    // Kept objects at serial 7: two instances and the byte[]; at 8: one instance.
    let at7 = shallow(0x1000) + shallow(0x1100) + shallow(0x1200);
    assert_eq!(s.sites.len(), 2);
    assert_eq!(s.distinct_sites, 2);
    let site7 = s.sites.iter().find(|x| x.frames.len() == 2).expect("the two-frame site");
    assert_eq!((site7.objects, site7.shallow_bytes), (3, at7));
    assert_eq!(
        site7.frames,
        vec![
            "at corpus.Thing.make()V (Thing.java:12)".to_string(),
            "at corpus.Thing.other()V (Thing.java:40)".to_string()
        ]
    );
    let mut classes: Vec<(String, u64)> = site7.classes.iter().map(|c| (c.class_name.clone(), c.objects)).collect();
    classes.sort();
    assert_eq!(classes, vec![("byte[]".to_string(), 1), ("corpus.Thing".to_string(), 2)]);
    let site8 = s.sites.iter().find(|x| x.frames.len() == 1).expect("the one-frame site");
    assert_eq!((site8.objects, site8.shallow_bytes), (1, shallow(0x1300)));
    assert_eq!(s.objects, 4);
    assert_eq!(s.shallow_bytes, at7 + shallow(0x1300));
    // Every other kept object (the two without a site, the holder array, classes) has none.
    assert_eq!(s.objects_without_site, a.kept_objects - 4);

    // The same objects without stacks with frames: nothing recorded, and the report says so.
    let md = markdown::render(&support::built_report(&run(hotspot_like()), &Default::default()));
    assert!(md.contains("This dump recorded no allocation sites"), "{md}");
}

/// A dump whose objects all carry serial 1, a trace without frames (HotSpot's way).
fn hotspot_like() -> Vec<u8> {
    let mut h = Hprof::new(8);
    for (id, name) in [(1, "java/lang/Object"), (8, "[Ljava/lang/Object;")] {
        h.string(id, name);
    }
    h.load_class(1, 0x100, 1).load_class(2, 0x400, 8).stack_trace(1, 0);
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(0x100, 0)).class_dump(&ClassDef::new(0x400, 0x100));
    seg.u1(0x21).id(0x1000).u4(1).id(0x100).u4(0);
    seg.object_array(0x9000, 0x400, &[0x1000]).root_jni_global(0x9000, 1);
    h.segment(&seg).heap_dump_end();
    h.into_bytes()
}

/// Everything from the dump in the new sections is escaped in Markdown and HTML: a
/// collection class whose name is markup.
#[test]
fn waste_sections_escape_dump_text() {
    let colls = [CollSpec { kind: 1, size: 0, capacity: Some(4), reachable: true }];
    let (bytes, _) = dump(&[], &[], &colls, false, false);
    // The subclass's name, same length: corpus/MyList -> <i>x</i>&MyL*
    let at = bytes.windows(13).position(|w| w == b"corpus/MyList").expect("name present");
    let mut bytes = bytes;
    bytes[at..at + 13].copy_from_slice(b"<i>x</i>&MyL*");
    let s = run(bytes);
    let r = support::built_report(&s, &Default::default());
    let row = r.waste.empty_collections.iter().find(|c| c.kind == "ArrayList").expect("the subclass's row");
    assert_eq!((row.class_name.as_str(), row.empty), ("<i>x<.i>&MyL*", 1));
    let doc = document::document(&r);
    let has = |b: &Block, s: &str| matches!(b, Block::Heading(_, h) if h == s);
    assert!(doc.blocks.iter().any(|b| has(b, "Wasted Memory")));
    assert!(doc.blocks.iter().any(|b| has(b, "Allocation Sites")));
    let html = html::render(&r);
    assert!(!html.contains("<i>x"), "markup from the dump reached the HTML");
    assert!(html.contains("&lt;i&gt;x&lt;.i&gt;&amp;MyL"), "escaped name missing");
    let md = markdown::render(&r);
    assert!(!md.contains("<i>x"), "markup from the dump reached the Markdown");
}

fn corpus_dump(name: &str) -> Option<std::path::PathBuf> {
    let dir = support::corpus_dir()?;
    Some(dir.join("dumps").join(name))
}

/// s05 (by construction): 1,000 `PendingFinalizable` each with `Dumper.filled(1_000, id)`
/// and 500 `Unfinalized` with `filled(2_000, id)`; `filled(n, seed)[i] = 'a' + (i + seed) %
/// 26`, so the arrays of one size fall into 26 contents, by `id % 26`. Both kinds are kept
/// (the finalizer machinery references them).
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s05_filled_arrays_group_by_seed() {
    let Some(path) = corpus_dump("s05_finalizer_serial_all.hprof.gz") else { return };
    let s = support::session(support::open_dump(&path), &Options { keep_unreachable: true, ..Options::default() })
        .expect("analysis");
    let d = &s.features().waste.duplicate_arrays;
    for (len, objects) in [(1_000u64, 1_000u64), (2_000, 500)] {
        for r in 0..26u64 {
            let count = (0..objects).filter(|id| id % 26 == r).count() as u64;
            // filled(len, seed)[0] = 'a' + seed % 26.
            let first = format!("{}, ", 97 + r);
            let g = d
                .groups
                .iter()
                .find(|g| g.class_name == "byte[]" && g.length == len && g.preview.starts_with(&first))
                .unwrap_or_else(|| panic!("no group of byte[{len}] starting with {first}"));
            assert!(!g.all_zero);
            // Other byte[len] of the JVM could share a content only by chance: at least ours.
            assert!(g.count >= count, "byte[{len}] residue {r}: {} arrays, expected at least {count}", g.count);
            assert_eq!(g.wasted_bytes, (g.count - 1) * g.array_shallow_bytes);
        }
    }
}

/// s03: the 16 buffers are `filled(512 KiB, i)` for i = 0..15, all different (seeds below
/// 26), and the 6 MiB one is single: no duplicate group of either length.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s03_buffers_are_not_duplicates() {
    let Some(path) = corpus_dump("s03_threadlocal_leak_serial.hprof.gz") else { return };
    let s = support::session(support::open_dump(&path), &Options::default()).expect("analysis");
    let d = &s.features().waste.duplicate_arrays;
    assert!(d.arrays >= 17);
    assert!(!d.groups.iter().any(|g| g.length == 512 * 1024 || g.length == 6 * 1024 * 1024), "{:?}", d.groups);
}

/// s11: HOARD holds 489 `long[16_384]` with `chunk[0] = chunk[16_383] = i`: all different,
/// only chunk 0 all zero; HOARD is an ArrayList with 489 elements (non-empty, its
/// capacity 549 after growing by half from 10: fill ratio 89%).
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s11_hoard_chunks_are_distinct() {
    let Some(path) = corpus_dump("s11_oom_serial.hprof.gz") else { return };
    let s = support::session(support::open_dump(&path), &Options::default()).expect("analysis");
    let d = &s.features().waste.duplicate_arrays;
    assert!(!d.groups.iter().any(|g| g.class_name == "long[]" && g.length == 16_384), "{:?}", d.groups);
    // Chunk 0 is all zero: 131,088 bytes (16 + 16,384 × 8) among the all-zero arrays.
    assert!(d.all_zero_arrays >= 1 && d.all_zero_bytes >= 131_088);
    let list = s
        .features()
        .waste
        .empty_collections
        .iter()
        .find(|r| r.class_name == "java.util.ArrayList")
        .expect("ArrayList row");
    assert!(list.non_empty >= 1);
    // 489 / 549 = 89%: band 80–100%.
    assert!(list.fill_ratio_histogram[4] >= 1);
    assert!(!s.features().allocation_sites.recorded, "HotSpot dumps record no allocation sites");
}
