//! The Android owner rules of the strength-aware tree (seed `001_*`, "An owner beats a
//! bystander"), on a small ART dump built here (no corpus dump has a live view
//! hierarchy): a view is owned by the view group whose `mChildren[0 .. mChildrenCount)`
//! holds it and by `Activity.mDecor`; an activity by its `ActivityClientRecord`. The
//! expected dominators are read off the construction below.

mod support;

use heapscope::analysis::{Analysis, Options, Reading};
use heapscope::dominators::{UNREACHABLE, VIRTUAL_ROOT};
use heapscope::rules::strength::Strength;
use heapscope::source::MemorySource;
use support::hprof_builder::{ClassDef, Hprof, Value};

const OBJECT: u64 = 0x1000;
const CLASS: u64 = 0x1010;
const VIEW: u64 = 0x1020;
const GROUP: u64 = 0x1030;
const VIEWS: u64 = 0x1040; // android.view.View[]
const ACTIVITY: u64 = 0x1050;
const RECORD: u64 = 0x1060;
const HOLDER: u64 = 0x1070;

// Objects.
const R: u64 = 0x2000; // ActivityClientRecord, a GC root
const A: u64 = 0x2010; // the activity
const D: u64 = 0x2020; // its decor view (a group)
const ARR1: u64 = 0x2030; // D.mChildren = [C1, C2, C3], mChildrenCount = 2
const C1: u64 = 0x2040; // a group: mChildren = [G1], 1
const C2: u64 = 0x2050;
const C3: u64 = 0x2060; // in a slot past the count: not a child
const ARR2: u64 = 0x2070;
const G1: u64 = 0x2080;
const H1: u64 = 0x2090; // a bystander (GC root): a = C1, b = G1
const H2: u64 = 0x20a0; // a bystander (GC root): a = A
const H3: u64 = 0x20b0; // a bystander (GC root) of a detached hierarchy: a = X
const X: u64 = 0x20c0; // a group held by nothing but H3: mChildren = [Y], 1
const ARR3: u64 = 0x20d0;
const Y: u64 = 0x20e0;

fn dump() -> Vec<u8> {
    let mut h = Hprof::android();
    let names = [
        (1, "java.lang.Object"),
        (2, "java.lang.Class"),
        (3, "android.view.View"),
        (4, "android.view.ViewGroup"),
        (5, "android.view.View[]"),
        (6, "android.app.Activity"),
        (7, "android.app.ActivityThread$ActivityClientRecord"),
        (8, "com.example.Holder"),
        (20, "mChildren"),
        (21, "mChildrenCount"),
        (22, "mDecor"),
        (23, "activity"),
        (24, "a"),
        (25, "b"),
        (26, "mTag"),
    ];
    for (id, s) in names {
        h.string(id, s);
    }
    for (k, (class, name)) in
        [(OBJECT, 1), (CLASS, 2), (VIEW, 3), (GROUP, 4), (VIEWS, 5), (ACTIVITY, 6), (RECORD, 7), (HOLDER, 8)]
            .into_iter()
            .enumerate()
    {
        h.load_class(k as u32 + 1, class, name);
    }
    let obj = heapscope::records::basic_type::OBJECT;
    let int = heapscope::records::basic_type::INT;
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(OBJECT, 0));
    seg.class_dump(&ClassDef::new(CLASS, OBJECT));
    seg.class_dump(&ClassDef::new(VIEW, OBJECT).field(26, obj));
    seg.class_dump(&ClassDef::new(GROUP, VIEW).field(20, obj).field(21, int));
    seg.class_dump(&ClassDef::new(VIEWS, OBJECT));
    seg.class_dump(&ClassDef::new(ACTIVITY, OBJECT).field(22, obj));
    seg.class_dump(&ClassDef::new(RECORD, OBJECT).field(23, obj));
    seg.class_dump(&ClassDef::new(HOLDER, OBJECT).field(24, obj).field(25, obj));
    for c in [OBJECT, CLASS, VIEW, GROUP, VIEWS, ACTIVITY, RECORD, HOLDER] {
        seg.root_sticky_class(c);
    }
    for r in [R, H1, H2, H3] {
        seg.root_jni_global(r, 0);
    }
    // A group's fields: its own (mChildren, mChildrenCount), then View's (mTag).
    let group = |children: u64, count: i32| [Value::Obj(children), Value::Int(count), Value::Obj(0)];
    seg.instance(R, RECORD, &[Value::Obj(A)]);
    seg.instance(A, ACTIVITY, &[Value::Obj(D)]);
    seg.instance(D, GROUP, &group(ARR1, 2));
    seg.object_array(ARR1, VIEWS, &[C1, C2, C3]);
    seg.instance(C1, GROUP, &group(ARR2, 1));
    seg.object_array(ARR2, VIEWS, &[G1]);
    for v in [C2, C3, G1, Y] {
        seg.instance(v, VIEW, &[Value::Obj(0)]);
    }
    seg.instance(H1, HOLDER, &[Value::Obj(C1), Value::Obj(G1)]);
    seg.instance(H2, HOLDER, &[Value::Obj(A), Value::Obj(0)]);
    seg.instance(H3, HOLDER, &[Value::Obj(X), Value::Obj(0)]);
    seg.instance(X, GROUP, &group(ARR3, 1));
    seg.object_array(ARR3, VIEWS, &[Y]);
    h.segment(&seg);
    h.heap_dump_end();
    h.into_bytes()
}

fn idom(a: &Analysis, id: u64) -> Option<u64> {
    match a.idom.get(a.object_at(id).unwrap()) {
        UNREACHABLE => panic!("0x{id:x} not in the tree"),
        VIRTUAL_ROOT => None,
        d => Some(a.address(d)),
    }
}

#[test]
fn owners_beat_bystanders_in_the_strength_tree_only() {
    let mut a = support::core(Box::new(MemorySource::new(dump())), &Options::default()).unwrap();
    for id in [R, A, D, ARR1, C1, C2, C3, ARR2, G1, X, ARR3, Y] {
        assert_eq!(a.strength(a.object_at(id).unwrap()), Strength::Strong, "0x{id:x}");
    }
    // MAT's tree: every reference holds. C1 is held by H1 and through D: the root
    // dominates it; A by R and H2; G1 by H1 and C1's array.
    assert_eq!(idom(&a, C1), None);
    assert_eq!(idom(&a, A), None);
    assert_eq!(idom(&a, G1), None);
    assert_eq!(idom(&a, C2), Some(ARR1));

    a.set_reading(Reading::Strength).unwrap();
    // The activity belongs to its record, its decor view to it, each child to its group.
    assert_eq!(idom(&a, A), Some(R));
    assert_eq!(idom(&a, D), Some(A));
    assert_eq!(idom(&a, C1), Some(D));
    assert_eq!(idom(&a, C2), Some(D));
    assert_eq!(idom(&a, G1), Some(C1));
    // The arrays stay nodes of their own, under their group, retaining no child.
    assert_eq!(idom(&a, ARR1), Some(D));
    assert_eq!(idom(&a, ARR2), Some(C1));
    let arr2 = a.object_at(ARR2).unwrap();
    assert_eq!(a.retained(arr2), a.shallow(arr2));
    // A view in a slot past mChildrenCount is not a child: the array holds it (and only it).
    assert_eq!(idom(&a, C3), Some(ARR1));
    let arr1 = a.object_at(ARR1).unwrap();
    assert_eq!(a.retained(arr1), a.shallow(arr1) + a.shallow(a.object_at(C3).unwrap()));
    // Parked, not dropped: a group nothing owns is held by its bystander, and still owns
    // its own children.
    assert_eq!(idom(&a, X), Some(H3));
    assert_eq!(idom(&a, Y), Some(X));
    // The record retains the whole window.
    let r = a.object_at(R).unwrap();
    let window: u64 = [R, A, D, ARR1, C1, C2, C3, ARR2, G1].iter().map(|&id| a.shallow(a.object_at(id).unwrap())).sum();
    assert_eq!(a.retained(r), window);
}
