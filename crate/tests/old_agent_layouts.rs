//! Two layouts written by JVMs and agents other than today's HotSpot, read as Eclipse MAT
//! 1.16.1 reads them (its HPROF parser: `Pass1Parser`, `Pass2Parser`,
//! `HprofParserHandlerImpl`). Every expected value follows from the dump's construction
//! and MAT's rules, stated where used.
//!
//! - A ROOT THREAD OBJECT naming object 0: MAT maps the thread serial to id 0 and files a
//!   thread-local root under a thread only when that id is not 0, so the JAVA FRAME, JNI
//!   LOCAL, NATIVE STACK and THREAD BLOCK roots of that serial stay GC roots, each of its
//!   own kind (and the THREAD OBJECT record makes object 0, the bootstrap loader's
//!   pseudo-object, a Thread root).
//! - A non-segmented file holding several HEAP DUMP (0x0C) records, as the old hprof agent
//!   writes one per dump with no HEAP DUMP END: MAT counts a snapshot after each HEAP DUMP
//!   record (and after each HEAP DUMP END), so each record is a snapshot of its own.

mod support;

use heapscope::analysis::{analyze, Analysis, NoProgress, Options, Sizes};
use heapscope::records::tag;
use heapscope::rules::roots::mat_name;
use heapscope::source::MemorySource;
use std::collections::BTreeMap;
use support::hprof_builder::{ClassDef, Hprof, Value as V};

fn run(bytes: Vec<u8>, snapshot: Option<u32>) -> heapscope::error::Result<Analysis> {
    analyze(
        Box::new(MemorySource::new(bytes)),
        &Options { snapshot, sizes: Sizes::Mat, ..Options::default() },
        &mut NoProgress,
        &mut (),
    )
}

const OBJECT: u64 = 0x100;
const CLASS: u64 = 0x108;
const LOADER: u64 = 0x110;
const NODE: u64 = 0x118;
const THREAD: u64 = 0x120;

// The locals of the thread whose object id is 0, and what they hold.
const A: u64 = 0x1000; // JAVA FRAME, holds E
const E: u64 = 0x1018;
const B: u64 = 0x1030; // JNI LOCAL
const C: u64 = 0x1048; // NATIVE STACK
const D: u64 = 0x1060; // THREAD BLOCK
                       // A thread with an object, and its local.
const T: u64 = 0x1078;
const F: u64 = 0x1088;

/// 8-byte ids, no compressed oops (no object array), every address 8-aligned with some
/// 8 apart: MAT's alignment is 8. A Node (one reference field) is 16 bytes of header + 8
/// = 24; a Thread (no field) and the bootstrap loader's pseudo-object (a ClassLoader, no
/// field) are 16.
fn thread_zero_dump() -> Vec<u8> {
    let mut h = Hprof::new(8);
    let names = ["java/lang/Object", "java/lang/Class", "java/lang/ClassLoader", "Node", "java/lang/Thread", "next"];
    for (i, n) in names.iter().enumerate() {
        h.string(i as u64 + 1, n);
    }
    let classes = [OBJECT, CLASS, LOADER, NODE, THREAD];
    for (i, &c) in classes.iter().enumerate() {
        h.load_class(i as u32 + 1, c, i as u64 + 1);
    }
    h.stack_trace(1, 1).stack_trace(2, 2);
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(OBJECT, 0))
        .class_dump(&ClassDef::new(CLASS, OBJECT))
        .class_dump(&ClassDef::new(LOADER, OBJECT))
        .class_dump(&ClassDef::new(NODE, OBJECT).field(6, 2))
        .class_dump(&ClassDef::new(THREAD, OBJECT));
    for c in classes {
        seg.root_sticky_class(c);
    }
    seg.root_thread_object(0, 1, 1)
        .root_java_frame(A, 1, 0)
        .root_jni_local(B, 1, 0)
        .root_native_stack(C, 1)
        .root_thread_block(D, 1)
        .root_thread_object(T, 2, 2)
        .root_java_frame(F, 2, 0);
    seg.instance(A, NODE, &[V::Obj(E)])
        .instance(E, NODE, &[V::Obj(0)])
        .instance(B, NODE, &[V::Obj(0)])
        .instance(C, NODE, &[V::Obj(0)])
        .instance(D, NODE, &[V::Obj(0)])
        .instance(T, THREAD, &[])
        .instance(F, NODE, &[V::Obj(0)]);
    h.segment(&seg).heap_dump_end();
    h.into_bytes()
}

#[test]
fn locals_of_a_thread_object_zero_stay_roots_of_their_kind() {
    let a = run(thread_zero_dump(), None).expect("analysis");
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);

    let roots: BTreeMap<u64, Vec<&str>> =
        a.roots.iter().map(|&(o, k)| (a.address(o), k.iter().map(mat_name).collect())).collect();
    let mut expected: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    for c in [OBJECT, CLASS, LOADER, NODE, THREAD] {
        expected.insert(c, vec!["System Class"]);
    }
    // The THREAD OBJECT record of id 0 names the pseudo-object 0; the thread with an
    // object is a root, its local F a reference from it.
    expected.insert(0, vec!["Thread"]);
    expected.insert(T, vec!["Thread"]);
    expected.insert(A, vec!["Java Local"]);
    expected.insert(B, vec!["JNI Local"]);
    expected.insert(C, vec!["Native Stack"]);
    expected.insert(D, vec!["Thread Block"]);
    assert_eq!(roots, expected, "GC roots (address → MAT root types)");

    // Every root is a child of the virtual root; E is held by A alone, F by T alone.
    let mut top: Vec<u64> = a.top_level().iter().map(|&o| a.address(o)).collect();
    top.sort_unstable();
    let want: Vec<u64> = expected.keys().copied().collect();
    assert_eq!(top, want, "top-level dominators");
    let obj = |id: u64| a.object_at(id).unwrap_or_else(|| panic!("object 0x{id:x}"));
    assert_eq!(a.immediate_dominator(obj(E)), Some(Some(obj(A))), "E under A");
    assert_eq!(a.immediate_dominator(obj(F)), Some(Some(obj(T))), "F under T");

    for (id, shallow, retained) in
        [(A, 24, 48), (E, 24, 24), (B, 24, 24), (C, 24, 24), (D, 24, 24), (T, 16, 40), (F, 24, 24), (0, 16, 16)]
    {
        assert_eq!((a.shallow(obj(id)), a.retained(obj(id))), (shallow, retained), "0x{id:x}: shallow, retained");
    }
}

/// Instances of the class called `name`, or None when the snapshot has no such class.
fn instances(a: &Analysis, name: &str) -> Option<u64> {
    let class = a.heap.index.classes.classes.iter().position(|c| c.name == name)?;
    Some(a.classes[class].instances)
}

const GONE: u64 = 0x120;
const NODES_1: [u64; 2] = [0x2000, 0x2010];
const GONE_1: u64 = 0x2020;
const NODES_2: [u64; 3] = [0x3000, 0x3010, 0x3020];

/// What the old hprof agent writes for two dumps (`JAVA PROFILE 1.0.1`, 4-byte ids, one
/// HEAP DUMP record per dump, no HEAP DUMP END): the first holds 2 Nodes and a `Gone`,
/// whose class is unloaded (UNLOAD CLASS) before the second, which holds 3 Nodes. Each
/// dump has its own CLASS DUMPs of the same classes. With 4-byte ids a Node (one int) is
/// 8 bytes of header + 4, aligned to 16; a Gone (no field) is the header's 8.
fn two_heap_dumps() -> Vec<u8> {
    let mut h = Hprof::with_header("JAVA PROFILE 1.0.1", 4, 1_700_000_000_000);
    let names = ["java/lang/Object", "java/lang/Class", "java/lang/ClassLoader", "Node", "Gone", "value"];
    for (i, n) in names.iter().enumerate() {
        h.string(i as u64 + 1, n);
    }
    for (i, c) in [OBJECT, CLASS, LOADER, NODE, GONE].into_iter().enumerate() {
        h.load_class(i as u32 + 1, c, i as u64 + 1);
    }
    for (nodes, gone) in [(&NODES_1[..], Some(GONE_1)), (&NODES_2[..], None)] {
        let mut seg = h.segment_builder();
        seg.class_dump(&ClassDef::new(OBJECT, 0))
            .class_dump(&ClassDef::new(CLASS, OBJECT))
            .class_dump(&ClassDef::new(LOADER, OBJECT))
            .class_dump(&ClassDef::new(NODE, OBJECT).field(6, 10));
        if gone.is_some() {
            seg.class_dump(&ClassDef::new(GONE, OBJECT));
        }
        for c in [OBJECT, CLASS, LOADER, NODE] {
            seg.root_sticky_class(c);
        }
        for (k, &id) in nodes.iter().enumerate() {
            seg.root_unknown(id).instance(id, NODE, &[V::Int(k as i32)]);
        }
        if let Some(id) = gone {
            seg.root_sticky_class(GONE).root_unknown(id).instance(id, GONE, &[]);
        }
        h.record(tag::HEAP_DUMP, seg.body());
        if gone.is_some() {
            h.record(tag::UNLOAD_CLASS, &5u32.to_be_bytes());
        }
    }
    h.into_bytes()
}

#[test]
fn each_heap_dump_record_is_a_snapshot() {
    let bytes = two_heap_dumps();
    for (asked, snapshot) in [(None, 2), (Some(2), 2), (Some(1), 1)] {
        let a = run(bytes.clone(), asked).expect("analysis");
        let what = format!("--snapshot {asked:?}");
        assert_eq!((a.snapshots, a.snapshot), (2, snapshot), "{what}: snapshots, snapshot analyzed");
        assert!(a.warnings.is_empty(), "{what}: nothing is merged, no class is dumped twice: {:?}", a.warnings);
        let (mine, other): (&[u64], &[u64]) = if snapshot == 1 {
            (&[NODES_1[0], NODES_1[1], GONE_1], &NODES_2)
        } else {
            (&NODES_2, &[NODES_1[0], NODES_1[1], GONE_1])
        };
        for &id in mine {
            let o = a.object_at(id).unwrap_or_else(|| panic!("{what}: object 0x{id:x} of snapshot {snapshot}"));
            assert_eq!(a.shallow(o), if id == GONE_1 { 8 } else { 16 }, "{what}: 0x{id:x}");
        }
        for &id in other {
            assert_eq!(a.object_at(id), None, "{what}: 0x{id:x} belongs to the other snapshot");
        }
        let nodes = if snapshot == 1 { NODES_1.len() } else { NODES_2.len() } as u64;
        assert_eq!(instances(&a, "Node"), Some(nodes), "{what}: Nodes");
        assert_eq!(instances(&a, "Gone"), (snapshot == 1).then_some(1), "{what}: Gone, dumped in snapshot 1 only");
    }
    let e = run(bytes, Some(3)).err().expect("no snapshot 3");
    assert!(e.to_string().contains("there is no heap-dump snapshot 3: the file holds 2"), "{e}");
}

/// A HEAP DUMP record followed by a HEAP DUMP END is one snapshot, not one and an empty
/// one (MAT numbers an empty second dump there, which it cannot open): the default, the
/// last snapshot, is the one with the heap.
#[test]
fn heap_dump_then_end_is_one_snapshot() {
    let mut h = Hprof::new(8);
    h.string(1, "java/lang/Object").load_class(1, OBJECT, 1);
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(OBJECT, 0)).root_sticky_class(OBJECT).root_unknown(0x2000).instance(
        0x2000,
        OBJECT,
        &[],
    );
    h.record(tag::HEAP_DUMP, seg.body()).heap_dump_end();
    let a = run(h.into_bytes(), None).expect("analysis");
    assert_eq!((a.snapshots, a.snapshot), (1, 1));
    assert!(a.object_at(0x2000).is_some());
}
