//! Replays every input the fuzzers found (`fuzz/regressions/TARGET/*`) through the
//! function the fuzz target runs (`heapscope::fuzzing::TARGET`): a crash fixed once stays
//! fixed. Also runs every target on a few inputs built here (a valid dump, the same
//! gzip'd, cut short, and its JSON report), so the targets themselves are exercised by
//! `cargo test` even when no regression has been found yet.

mod support;

use std::path::Path;

use support::hprof_builder::{ClassDef, Hprof, Value};

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 4] = [
    ("analyze", heapscope::fuzzing::analyze),
    ("records", heapscope::fuzzing::records),
    ("gzip", heapscope::fuzzing::gzip),
    ("report_json", heapscope::fuzzing::report_json),
];

#[test]
fn every_saved_fuzz_finding_is_fixed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions");
    assert!(root.join("README.md").is_file(), "{} is missing", root.display());
    let mut replayed = 0;
    for (name, target) in TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(name)) else { continue };
        let mut files: Vec<_> = entries.filter_map(|e| Some(e.ok()?.path())).filter(|p| p.is_file()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).expect("readable");
            let outcome = std::panic::catch_unwind(|| target(&data));
            assert!(outcome.is_ok(), "fuzz regression {} panics again", file.display());
            replayed += 1;
        }
    }
    eprintln!("{replayed} fuzz findings replayed");
}

/// A small dump: two classes, an instance, an array, roots.
fn dump() -> Vec<u8> {
    let mut h = Hprof::new(8);
    for (i, name) in ["java/lang/Object", "java/lang/Class", "Node", "[Ljava/lang/Object;", "next"].iter().enumerate() {
        h.string(i as u64 + 1, name);
    }
    for (i, id) in [0x1000u64, 0x1008, 0x1010, 0x1018].iter().enumerate() {
        h.load_class(i as u32 + 1, *id, i as u64 + 1);
    }
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(0x1000, 0));
    seg.class_dump(&ClassDef::new(0x1008, 0x1000));
    seg.class_dump(&ClassDef::new(0x1010, 0x1000).field(5, 2));
    seg.class_dump(&ClassDef::new(0x1018, 0x1000));
    for id in [0x1000, 0x1008, 0x1010, 0x1018] {
        seg.root_sticky_class(id);
    }
    seg.root_jni_global(0x2000, 1);
    seg.object_array(0x2000, 0x1018, &[0x2100, 0x2200]);
    seg.instance(0x2100, 0x1010, &[Value::Obj(0x2200)]);
    seg.instance(0x2200, 0x1010, &[Value::Obj(0)]);
    h.segment(&seg).heap_dump_end();
    h.into_bytes()
}

#[test]
fn every_target_runs_on_valid_and_broken_inputs() {
    let dump = dump();
    let gz = support::gzip_stored(&dump);
    let s = support::session_of(dump.clone());
    let a = &s.analysis;
    // MAT's model (DESIGN.md §3) adds the bootstrap loader's pseudo object.
    assert_eq!(a.object_count(), 8, "4 class objects, the array, 2 Nodes, the bootstrap loader");
    let json = heapscope::report::to_json(&support::built_report(&s, &heapscope::report::SourceInfo::default()));
    let inputs: [&[u8]; 6] = [
        &dump,
        &dump[..dump.len() * 2 / 3],
        &gz,
        &gz[..gz.len() / 2],
        json.as_bytes(),
        &json.as_bytes()[..json.len() / 2],
    ];
    for (name, target) in TARGETS {
        for (i, input) in inputs.iter().enumerate() {
            let outcome = std::panic::catch_unwind(|| target(input));
            assert!(outcome.is_ok(), "fuzz target {name} panics on input {i}");
        }
    }
}
