//! ProGuard/R8 deobfuscation on the corpus's R8-obfuscated ahat dump, checked against the
//! dump's own mapping file (`ahat_test_dump_8e3b7d7.map`), read here by a separate,
//! minimal reading of its class and field lines, and the manifest's description
//! (`Main.a` is a `DumpedStuff`, class `o` is `StackSmasher`, DumpedStuff's field `d` is
//! basicString "hello, world").

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use heapscope::analysis::{Analysis, Options};
use heapscope::mapping::Mapping;
use heapscope::query::paths::via;
use heapscope::readback::object::object_details;
use heapscope::render::markdown;
use heapscope::report;
use heapscope::session::Session;

const DUMP: &str = "android/ahat_test_dump_8e3b7d7.hprof.gz";
const MAP: &str = "android/ahat_test_dump_8e3b7d7.map";

fn corpus() -> Option<PathBuf> {
    support::corpus_dir()
}

/// obfuscated class → (original class, obfuscated field → original field), from the
/// file's unindented `a -> b:` lines and indented `type name -> x` lines without `(`.
fn read_map(text: &str) -> BTreeMap<String, (String, BTreeMap<String, String>)> {
    let mut out = BTreeMap::new();
    let mut current = None;
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            let (orig, obf) = line.trim_end_matches(':').split_once(" -> ").unwrap();
            out.insert(obf.to_string(), (orig.to_string(), BTreeMap::new()));
            current = Some(obf.to_string());
        } else if !line.contains('(') {
            let (left, obf) = line.trim().split_once(" -> ").unwrap();
            let orig = left.split(' ').next_back().unwrap();
            out.get_mut(current.as_ref().unwrap()).unwrap().1.insert(obf.to_string(), orig.to_string());
        }
    }
    out
}

fn session(dir: &std::path::Path) -> Session {
    support::session(support::open_dump(&dir.join(DUMP)), &Options::default()).unwrap()
}

fn base(name: &str) -> (&str, usize) {
    let b = name.trim_end_matches("[]");
    (b, (name.len() - b.len()) / 2)
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn histogram_has_the_original_names() {
    let Some(dir) = corpus() else { return };
    let text = std::fs::read_to_string(dir.join(MAP)).unwrap();
    let map = read_map(&text);
    let plain = session(&dir);
    let mut mapped = session(&dir);
    let renamed = mapped.apply_mapping(&Mapping::parse_str(&text).unwrap());
    let info = report::SourceInfo { file_name: None, file_bytes: 0, gzip: true };
    let (before, after) = (support::built_report(&plain, &info), support::built_report(&mapped, &info));
    assert_eq!(before.histogram.len(), after.histogram.len());
    let after_by_address: BTreeMap<_, _> = after.histogram.iter().map(|r| (r.class_address.as_str(), r)).collect();
    let mut seen = 0u64;
    for row in &before.histogram {
        let now = after_by_address[&row.class_address.as_str()];
        assert_eq!((now.instances, now.shallow_bytes), (row.instances, row.shallow_bytes));
        let (b, dims) = base(&row.class_name);
        match map.get(b) {
            Some((orig, _)) => {
                assert_eq!(now.class_name, format!("{orig}{}", "[]".repeat(dims)), "{}", row.class_name);
                seen += 1;
            }
            None => assert_eq!(now.class_name, row.class_name),
        }
    }
    // Every class line of the map whose class is in the dump was applied (the classes
    // table counts classes without instances too, so it is at least the histogram's).
    assert!(renamed >= seen && seen > 10, "renamed {renamed}, in the histogram {seen}");
    // The manifest's facts: `o` is StackSmasher (two 10,000-deep chains), DumpedStuff
    // (kept as is by R8) holds them.
    let smasher =
        after.histogram.iter().find(|r| r.class_name == "DumpedStuff$StackSmasher").expect("StackSmasher row");
    assert!(smasher.instances >= 20_000, "{}", smasher.instances);
    assert!(!after.histogram.iter().any(|r| r.class_name == "o"));
    assert!(after.histogram.iter().any(|r| r.class_name == "DumpedStuff"));
    // The report's renderings carry the names too.
    assert!(markdown::render(&after).contains("DumpedStuff\\$StackSmasher"));
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn inspector_fields_and_path_names_are_original() {
    let Some(dir) = corpus() else { return };
    let text = std::fs::read_to_string(dir.join(MAP)).unwrap();
    let map = read_map(&text);
    let mut s = session(&dir);
    s.apply_mapping(&Mapping::parse_str(&text).unwrap());
    let a = &mut s.analysis;
    let stuff_fields = &map["DumpedStuff"].1;
    let stuff = (0..a.object_count() as u32)
        .find(|&o| a.is_kept(o) && a.class_name(a.class_of(o)) == "DumpedStuff")
        .expect("a DumpedStuff instance");
    let details = object_details(a, stuff).unwrap();
    let names: Vec<&str> = details.fields.iter().map(|f| f.name.as_str()).collect();
    // Every field DumpedStuff declares in the map shows under its original name: instance
    // fields on the instance, static fields on the class object.
    let class_object = a.class_object(a.class_of(stuff)).unwrap();
    let statics = object_details(a, class_object).unwrap().fields;
    for original in stuff_fields.values() {
        assert!(
            names.contains(&original.as_str()) || statics.iter().any(|f| f.is_static && &f.name == original),
            "{original} missing from {names:?}"
        );
    }
    assert!(statics.iter().any(|f| f.name == "modifiedStaticField"));
    let object_of = |a: &Analysis, name: &str| {
        let r = details.fields.iter().find(|f| f.name == name).and_then(|f| f.reference.clone()).expect(name);
        a.object_at(u64::from_str_radix(r.address.trim_start_matches("0x"), 16).unwrap()).unwrap()
    };
    assert_eq!(stuff_fields["d"], "basicString");
    let basic = object_of(a, "basicString");
    assert_eq!(object_details(a, basic).unwrap().text.as_deref(), Some("hello, world"));
    // A path step names the field by its original name: DumpedStuff.stackSmasher (`I`),
    // StackSmasher.child (`o.a`).
    assert_eq!((stuff_fields["I"].as_str(), map["o"].1["a"].as_str()), ("stackSmasher", "child"));
    let smasher = object_of(a, "stackSmasher");
    assert!(via(a, stuff, smasher).unwrap().contains(&"stackSmasher".to_string()));
    let child = object_details(a, smasher)
        .unwrap()
        .fields
        .iter()
        .find(|f| f.name == "child")
        .and_then(|f| f.reference.clone())
        .expect("child");
    let child = a.object_at(u64::from_str_radix(child.address.trim_start_matches("0x"), 16).unwrap()).unwrap();
    assert_eq!(via(a, smasher, child).unwrap(), vec!["child".to_string()]);
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn cli_mapping_flag() {
    let Some(dir) = corpus() else { return };
    let bin = env!("CARGO_BIN_EXE_heapscope");
    let out = Command::new(bin)
        .args(["-q", "analyze", "-f", "json", "--mapping"])
        .arg(dir.join(MAP))
        .arg(dir.join(DUMP))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> =
        json["histogram"].as_array().unwrap().iter().map(|r| r["class_name"].as_str().unwrap()).collect();
    assert!(names.contains(&"DumpedStuff$StackSmasher") && names.contains(&"DumpedStuff$ObjectTree[]"), "{names:?}");
    assert!(!names.contains(&"o") && !names.contains(&"l[]"));
    // A bad mapping: status 1, the message names the file and the line.
    let tmp = support::TempDir::new("mapping");
    let bad = tmp.path().join("bad.txt");
    std::fs::write(&bad, "a -> b:\n    int\n").unwrap();
    let out = Command::new(bin).args(["-q", "analyze", "--mapping"]).arg(&bad).arg(dir.join(DUMP)).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt") && err.contains("line 2"), "{err}");
}
