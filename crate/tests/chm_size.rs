//! Empty and sparse `ConcurrentHashMap`s count their size as the JDK does (`sumCount()`):
//! `baseCount` plus every `CounterCell.value` in `counterCells`. A dump built with the
//! HPROF builder holds maps whose sizes are known by construction.

mod support;

use support::hprof_builder::{ClassDef, Hprof, Value as V};

const CHM: u64 = 0x500;
const CELL: u64 = 0x600;
const NODES: u64 = 0x700;
const CELLS: u64 = 0x800;

#[test]
fn concurrent_hash_map_size_sums_its_counter_cells() {
    let mut h = Hprof::new(8);
    let names = [
        "java/lang/Object",
        "java/util/concurrent/ConcurrentHashMap",
        "java/util/concurrent/ConcurrentHashMap$CounterCell",
        "[Ljava/util/concurrent/ConcurrentHashMap$Node;",
        "[Ljava/util/concurrent/ConcurrentHashMap$CounterCell;",
        "[Ljava/lang/Object;",
        "table",
        "baseCount",
        "counterCells",
        "value",
    ];
    for (i, n) in names.iter().enumerate() {
        h.string(i as u64 + 1, n);
    }
    let classes = [(0x100u64, 1u64), (CHM, 2), (CELL, 3), (NODES, 4), (CELLS, 5), (0x900, 6)];
    for (serial, &(c, n)) in classes.iter().enumerate() {
        h.load_class(serial as u32 + 1, c, n);
    }
    let mut seg = h.segment_builder();
    for c in [
        ClassDef::new(0x100, 0),
        ClassDef::new(CHM, 0x100).field(7, 2).field(8, 11).field(9, 2),
        ClassDef::new(CELL, 0x100).field(10, 11),
        ClassDef::new(NODES, 0x100),
        ClassDef::new(CELLS, 0x100),
        ClassDef::new(0x900, 0x100),
    ] {
        seg.class_dump(&c);
    }
    // (map id, table length, baseCount, cell values; None: no counterCells). JDK sizes:
    // 1 + 3 + 2 = 6 of 16; 0 + 0 + 0 = 0 (empty, table allocated); 4 of 8, no cells;
    // 2 − 2 = 0 (empty).
    let maps: [(u64, u32, i64, Option<Vec<i64>>); 4] = [
        (0x1000, 16, 1, Some(vec![3, 2])),
        (0x2000, 16, 0, Some(vec![0, 0])),
        (0x3000, 8, 4, None),
        (0x4000, 4, 2, Some(vec![-2])),
    ];
    let mut held = Vec::new();
    for (id, len, base, cells) in &maps {
        let table = id + 0x10;
        seg.object_array(table, NODES, &vec![0; *len as usize]);
        let cells_id = cells.as_ref().map(|values| {
            let array = id + 0x20;
            let mut slots: Vec<u64> = values.iter().enumerate().map(|(k, _)| id + 0x100 + k as u64 * 0x10).collect();
            for (k, v) in values.iter().enumerate() {
                seg.instance(slots[k], CELL, &[V::Long(*v)]);
            }
            // Cells not yet made are null slots.
            slots.extend([0, 0]);
            seg.object_array(array, CELLS, &slots);
            array
        });
        seg.instance(*id, CHM, &[V::Obj(table), V::Long(*base), V::Obj(cells_id.unwrap_or(0))]);
        held.push(*id);
    }
    seg.object_array(0x9000, 0x900, &held).root_jni_global(0x9000, 1);
    h.segment(&seg).heap_dump_end();
    let s = support::session_of(h.into_bytes());
    let a = &s.analysis;

    let shallow = |id: u64| a.shallow(a.object_at(id).unwrap());
    let row = s
        .features()
        .waste
        .empty_collections
        .iter()
        .find(|r| r.class_name == "java.util.concurrent.ConcurrentHashMap")
        .expect("a ConcurrentHashMap row");
    assert_eq!(row.kind, "ConcurrentHashMap");
    assert_eq!((row.total, row.empty, row.empty_unallocated, row.non_empty, row.size_unknown), (4, 2, 0, 2, 0));
    assert_eq!(row.wasted_bytes, shallow(0x2010) + shallow(0x4010), "the empty ones' tables");
    // 6/16 = 37.5% and 4/8 = 50%: average 43.75%, bands "over 20% to 40%" and "over 40% to 60%".
    assert_eq!(row.fill_ratio_bp, 4375);
    assert_eq!(row.fill_ratio_histogram, vec![0, 1, 1, 0, 0]);
    // Slots beyond the size, each a reference of the dump's size (compressed or not).
    let ref_size = a.heap.index.layout.ref_size as u64;
    assert_eq!(row.unused_slot_bytes, ((16 - 6) + (8 - 4)) * ref_size);
    assert_eq!(
        row.sample.iter().map(|o| o.address.clone()).collect::<Vec<_>>(),
        vec!["0x2000".to_string(), "0x4000".to_string()]
    );
}
