//! `heapscope compare`: class deltas against the difference of Eclipse MAT's histograms
//! (`../shared/corpus/expected/`), leaders against the corpus manifest's construction of
//! the ahat pair, self-comparison, input equivalence (dump / saved report) and the CLI's
//! contract (schema, exit codes, clear errors).

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use heapscope::analysis::{NoProgress, Options as AnalysisOptions};
use heapscope::compare::model::*;
use heapscope::compare::{self, loaders, Options};
use heapscope::report::{self, Report};
use heapscope::session::input;
use serde_json::Value;

/// The corpus, or None outside CI (in CI a missing corpus fails the test).
fn corpus() -> Option<PathBuf> {
    let dir = support::corpus_dir();
    assert!(dir.is_some() || std::env::var_os("CI").is_none(), "CI: the corpus is missing");
    dir
}

fn dump_path(corpus: &Path, name: &str) -> PathBuf {
    let dumps = corpus.join("dumps").join(format!("{name}.hprof.gz"));
    if dumps.exists() {
        dumps
    } else {
        corpus.join("android").join(format!("{name}.hprof.gz"))
    }
}

/// A corpus dump's report in Eclipse MAT's sizes (the tests here check MAT's numbers).
fn load(corpus: &Path, name: &str) -> Report {
    let options = AnalysisOptions { sizes: heapscope::analysis::Sizes::Mat, ..AnalysisOptions::default() };
    input::load(&dump_path(corpus, name), &options, &mut NoProgress).expect("dump loads")
}

fn expected(corpus: &Path, name: &str) -> Value {
    let text = std::fs::read_to_string(corpus.join("expected").join(format!("{name}.json"))).expect("expected json");
    serde_json::from_str(&text).expect("expected parses")
}

/// A JVM hidden class's name without the address the JVM appends (`+0x7f…`, `/0x…`), as
/// the corpus's JDK 17 lambdas are named; other names unchanged.
fn without_address(name: &str) -> String {
    match name.rfind("+0x").or_else(|| name.rfind("/0x")) {
        Some(i) if name[i + 3..].chars().all(|c| c.is_ascii_hexdigit()) => name[..i].to_string(),
        _ => name.to_string(),
    }
}

/// MAT's histogram rows summed by (class name without a hidden class's address, stable
/// loader name). The loader of each of
/// MAT's class objects is looked up by address in the dump's own class table (the
/// report's histogram); the numbers are MAT's.
fn mat_rows(exp: &Value, r: &Report) -> BTreeMap<(String, String), ClassCounts> {
    let loader_of: BTreeMap<&str, &str> =
        r.histogram.iter().map(|h| (h.class_address.as_str(), h.loader.as_str())).collect();
    let stable = loaders::stable_names(&r.histogram);
    let mut out: BTreeMap<(String, String), ClassCounts> = BTreeMap::new();
    for row in exp["histogram"].as_array().expect("histogram") {
        let addr = row["class_object"].as_str().unwrap();
        let label =
            loader_of.get(addr).unwrap_or_else(|| panic!("MAT's class object {addr} is not in the dump's class table"));
        let e = out.entry((without_address(row["class"].as_str().unwrap()), stable[*label].clone())).or_default();
        e.instances += row["instances"].as_u64().unwrap();
        e.shallow_bytes += row["shallow_heap"].as_u64().unwrap();
        e.retained_bytes_min += row["retained_heap_min"].as_u64().unwrap();
    }
    out
}

fn check_pair_against_mat(corpus: &Path, base: &str, cur: &str) {
    let (b, c) = (load(corpus, base), load(corpus, cur));
    let cmp = compare::compare(&b, &c, &Options::default()).expect("comparable");
    let (eb, ec) = (mat_rows(&expected(corpus, base), &b), mat_rows(&expected(corpus, cur), &c));
    let mut keys: Vec<&(String, String)> = eb.keys().chain(ec.keys()).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(cmp.classes.len(), keys.len(), "{base} vs {cur}: one row per class of either side");
    assert_eq!(cmp.classes_total as usize, keys.len());
    let rows: BTreeMap<(String, String), &ClassChange> =
        cmp.classes.iter().map(|r| ((r.class_name.clone(), r.loader.clone()), r)).collect();
    let mut changed = 0;
    for key in keys {
        let row = rows.get(key).unwrap_or_else(|| panic!("{base} vs {cur}: no row for {key:?}"));
        let (x, y) = (eb.get(key).copied().unwrap_or_default(), ec.get(key).copied().unwrap_or_default());
        assert_eq!(row.baseline, x, "{key:?} baseline");
        assert_eq!(row.current, y, "{key:?} current");
        let delta = ClassDeltas {
            instances: y.instances as i64 - x.instances as i64,
            shallow_bytes: y.shallow_bytes as i64 - x.shallow_bytes as i64,
            retained_bytes_min: y.retained_bytes_min as i64 - x.retained_bytes_min as i64,
        };
        assert_eq!(row.delta, delta, "{base} vs {cur}: delta of {key:?}");
        let status = match (eb.contains_key(key), ec.contains_key(key)) {
            (true, true) => ClassStatus::Both,
            (false, true) => ClassStatus::New,
            _ => ClassStatus::Gone,
        };
        assert_eq!(row.status, status, "{key:?}");
        if status != ClassStatus::Both || delta != ClassDeltas::default() {
            changed += 1;
        }
    }
    assert_eq!(cmp.classes_changed, changed);
    // Sorted by retained delta, descending.
    assert!(cmp.classes.windows(2).all(|w| w[0].delta.retained_bytes_min >= w[1].delta.retained_bytes_min));
    // Totals are MAT's totals on both sides.
    let (tb, tc) = (expected(corpus, base), expected(corpus, cur));
    assert_eq!(cmp.totals.baseline.objects, tb["total_objects"].as_u64().unwrap());
    assert_eq!(cmp.totals.current.used_heap_bytes, tc["total_shallow_heap"].as_u64().unwrap());
    assert_eq!(
        cmp.totals.delta.used_heap_bytes,
        tc["total_shallow_heap"].as_i64().unwrap() - tb["total_shallow_heap"].as_i64().unwrap()
    );
    assert_eq!(cmp.totals.delta.objects, tc["total_objects"].as_i64().unwrap() - tb["total_objects"].as_i64().unwrap());
    assert_eq!(cmp.totals.delta.classes, tc["classes"].as_i64().unwrap() - tb["classes"].as_i64().unwrap());
    assert_eq!(
        cmp.totals.delta.class_loaders,
        tc["class_loaders"].as_i64().unwrap() - tb["class_loaders"].as_i64().unwrap()
    );
    assert_eq!(
        cmp.totals.delta.unreachable_objects,
        tc["unreachable"]["objects"].as_i64().unwrap() - tb["unreachable"]["objects"].as_i64().unwrap()
    );
}

#[test]
fn class_deltas_are_the_differences_of_mats_histograms_s04_all_vs_live() {
    let Some(c) = corpus() else { return };
    check_pair_against_mat(&c, "s04_references_serial_all", "s04_references_serial_live");
}

#[test]
fn class_deltas_are_the_differences_of_mats_histograms_s01_all_vs_live() {
    let Some(c) = corpus() else { return };
    check_pair_against_mat(&c, "s01_hello_serial_all", "s01_hello_serial_live");
}

#[test]
fn class_deltas_are_the_differences_of_mats_histograms_ahat_base_vs_dump() {
    let Some(c) = corpus() else { return };
    check_pair_against_mat(&c, "ahat_test_dump_base_8e3b7d7", "ahat_test_dump_8e3b7d7");
}

/// The manifest's construction: bigArray (`DumpedStuff.v`, held by `Main.a`) goes from
/// byte[400,000] to byte[1,000,000], and a second 10,000-deep StackSmasher chain appears
/// under DumpedStuff (so under class Main). Retained sizes are MAT's.
#[test]
fn ahat_leaders_are_the_big_array_and_the_second_chain() {
    let Some(c) = corpus() else { return };
    let (base, cur) = ("ahat_test_dump_base_8e3b7d7", "ahat_test_dump_8e3b7d7");
    let cmp = compare::compare(&load(&c, base), &load(&c, cur), &Options::default()).unwrap();
    let mat_retained = |name: &str, class: &str, of: Option<&str>| {
        expected(&c, name)["top_dominators"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["class"] == class && t["class_name_of_class_object"].as_str() == of)
            .map(|t| t["retained"].as_u64().unwrap())
            .unwrap()
    };
    assert_eq!(cmp.leaders.len(), 2, "{:#?}", cmp.leaders);
    let array = &cmp.leaders[0];
    assert_eq!((array.class_name.as_str(), array.status), ("byte[]", ChangeStatus::Grown));
    let (rb, rc) = (mat_retained(base, "byte[]", None), mat_retained(cur, "byte[]", None));
    assert_eq!(array.baseline.as_ref().unwrap().retained_bytes, rb);
    assert_eq!(array.current.as_ref().unwrap().retained_bytes, rc);
    assert_eq!(array.delta_retained_bytes, rc as i64 - rb as i64);
    assert_eq!(array.baseline.as_ref().unwrap().accumulation_point_elements, Some(400_000));
    assert_eq!(array.current.as_ref().unwrap().accumulation_point_elements, Some(1_000_000));
    let path: Vec<(String, Vec<String>)> =
        array.reference_path.clone().unwrap().into_iter().map(|p| (p.class_name, p.via)).collect();
    assert_eq!(
        path,
        vec![
            ("class Main".into(), vec!["a".to_string()]),
            ("DumpedStuff".into(), vec!["v".to_string()]),
            ("byte[]".into(), vec![])
        ]
    );
    let main = &cmp.leaders[1];
    assert_eq!((main.class_name.as_str(), main.status), ("class Main", ChangeStatus::Grown));
    let (mb, mc) =
        (mat_retained(base, "java.lang.Class", Some("Main")), mat_retained(cur, "java.lang.Class", Some("Main")));
    assert_eq!(main.delta_retained_bytes, mc as i64 - mb as i64);
    assert_eq!(main.delta_retained_bytes, 10_000 * 16, "one more chain of 10,000 16-byte StackSmashers");
    let share: u32 = cmp.leaders.iter().map(|l| l.share_of_growth_bp.unwrap()).sum();
    assert_eq!(share, 10_000, "the two account for all the growth");
    // The MAT-side suspects: the same three on both sides, none new.
    assert!(
        cmp.suspects.iter().all(|s| s.status != ChangeStatus::New && s.status != ChangeStatus::Gone),
        "{:#?}",
        cmp.suspects
    );
}

#[test]
fn a_dump_compared_with_itself_changes_nothing() {
    let Some(c) = corpus() else { return };
    for name in ["s02_static_map_leak_serial", "s08_many_classes_serial_all"] {
        let r = load(&c, name);
        let cmp = compare::compare(&r, &r, &Options::default()).unwrap();
        assert!(cmp.leaders.is_empty(), "{name}: {:#?}", cmp.leaders);
        assert_eq!(cmp.classes_changed, 0);
        // One row per class, hidden classes of one name (`LambdaForm$MH+0x…`) as one.
        let keys: std::collections::BTreeSet<(String, &str)> =
            r.histogram.iter().map(|h| (without_address(&h.class_name), h.loader.as_str())).collect();
        assert_eq!(cmp.classes.len(), keys.len());
        assert!(keys.len() < r.overview.classes as usize, "{name} has hidden classes of one name");
        assert!(cmp
            .classes
            .iter()
            .all(|x| x.status == ClassStatus::Both && x.delta == ClassDeltas::default() && x.baseline == x.current));
        let d = &cmp.totals.delta;
        assert_eq!((d.objects, d.used_heap_bytes, d.classes, d.class_loaders, d.gc_roots), (0, 0, 0, 0, 0));
        assert!(d.gc_roots_by_type.iter().all(|t| t.objects == 0));
        assert_eq!(cmp.suspects.len(), r.leak_suspects.suspects.len());
        assert!(cmp.suspects.iter().all(|s| s.status == ChangeStatus::Unchanged && s.delta_retained_bytes == 0));
    }
}

/// s08: three loaders of one class (`corpus.ClassGen$GenLoader`, manifest); after MAT's
/// discarding the garbage one, two remain, named by the first class each defines.
#[test]
fn loaders_of_one_class_get_stable_names() {
    let Some(c) = corpus() else { return };
    let r = load(&c, "s08_many_classes_serial_all");
    let cmp = compare::compare(&r, &r, &Options::default()).unwrap();
    let loader = |class: &str| cmp.classes.iter().find(|x| x.class_name == class).map(|x| x.loader.clone()).unwrap();
    assert_eq!(loader("dyn.kept.KeptGen123"), "corpus.ClassGen$GenLoader defining dyn.kept.KeptGen000");
    assert_eq!(loader("dyn.leaked.LeakedGen150"), "corpus.ClassGen$GenLoader defining dyn.leaked.LeakedGen000");
    assert_eq!(loader("java.lang.String"), "<system class loader>");
    assert_eq!(cmp.classes.iter().filter(|x| x.class_name.starts_with("dyn.kept.")).count(), 200);
    assert_eq!(cmp.classes.iter().filter(|x| x.class_name.starts_with("dyn.leaked.")).count(), 300);
}

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_heapscope"))
}

/// Dump vs dump, report vs report and both mixes give byte-identical JSON, through the CLI.
#[test]
fn dumps_and_saved_reports_compare_the_same() {
    let Some(c) = corpus() else { return };
    let tmp = support::TempDir::new("compare-inputs");
    let (base, cur) = (dump_path(&c, "ahat_test_dump_base_8e3b7d7"), dump_path(&c, "ahat_test_dump_8e3b7d7"));
    let (base_json, cur_json) = (tmp.path().join("base.json"), tmp.path().join("cur.json"));
    for (dump, out) in [(&base, &base_json), (&cur, &cur_json)] {
        let st = exe().arg("analyze").arg(dump).arg("--format").arg("json").arg("-o").arg(out).status().unwrap();
        assert!(st.success());
    }
    let run = |b: &Path, c: &Path| {
        let o = exe().arg("compare").arg(b).arg(c).arg("--format").arg("json").output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let dd = run(&base, &cur);
    assert_eq!(dd, run(&base_json, &cur_json), "report vs report");
    assert_eq!(dd, run(&base, &cur_json), "dump vs report");
    assert_eq!(dd, run(&base_json, &cur), "report vs dump");
    let parsed: Comparison = serde_json::from_str(&dd).expect("the JSON is a Comparison");
    assert_eq!(parsed.schema_version, compare::SCHEMA_VERSION);
    assert_eq!(compare::to_json(&parsed), dd, "round-trips");
    // The JSON shape, by name.
    let v: Value = serde_json::from_str(&dd).unwrap();
    for key in ["classes", "totals", "leaders", "schema_version"] {
        assert!(v.get(key).is_some(), "no {key}");
    }
    let row = &v["classes"][0];
    for key in ["class_name", "loader", "status", "baseline", "current", "delta"] {
        assert!(row.get(key).is_some(), "class row lacks {key}");
    }
    for key in ["instances", "shallow_bytes", "retained_bytes_min"] {
        assert!(row["delta"].get(key).is_some(), "delta lacks {key}");
    }
    for key in ["baseline", "current", "delta"] {
        assert!(v["totals"].get(key).is_some(), "totals lacks {key}");
    }
}

#[test]
fn committed_compare_schema_equals_the_derived_one() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/compare.schema.json");
    let committed = std::fs::read_to_string(&p).unwrap_or_default();
    assert!(
        committed == compare::json_schema(),
        "schema/compare.schema.json is stale: regenerate it with `cargo run --release -- schema --compare > schema/compare.schema.json` \
         (and bump compare::SCHEMA_VERSION if a field was removed, renamed, retyped or changed meaning)"
    );
}

#[test]
fn cli_exit_codes_and_clear_errors() {
    let Some(c) = corpus() else { return };
    let tmp = support::TempDir::new("compare-cli");
    // Usage errors: 2.
    for args in [
        vec!["compare"],
        vec!["compare", "a"],
        vec!["compare", "a", "b", "--sort", "size"],
        vec!["compare", "a", "b", "--top", "x"],
    ] {
        let o = exe().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    // A missing file: 1.
    let o = exe().args(["compare", "/nonexistent/a.hprof", "/nonexistent/b.hprof"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    // HotSpot vs Android: 1, saying why.
    let (hs, art) = (dump_path(&c, "s01_hello_serial_live"), dump_path(&c, "ahat_test_dump_8e3b7d7"));
    let o = exe().arg("compare").arg(&hs).arg(&art).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("HotSpot") && err.contains("Android") && err.contains("same kind of VM"), "{err}");
    // Another id size: 1.
    let r = load(&c, "s01_hello_serial_live");
    let mut other = r.clone();
    other.dump.id_size = 4;
    let e = compare::compare(&r, &other, &Options::default()).unwrap_err();
    assert!(e.message.contains("8-byte ids") && e.message.contains("4-byte ids"), "{}", e.message);
    // A report of another schema version: 1, naming both versions.
    let mut v: Value = serde_json::from_str(&report::to_json(&r)).unwrap();
    v["schema_version"] = Value::from(report::SCHEMA_VERSION + 1);
    let old = tmp.path().join("other-version.json");
    std::fs::write(&old, serde_json::to_string(&v).unwrap()).unwrap();
    let o = exe().arg("compare").arg(&old).arg(&hs).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("schema version {}", report::SCHEMA_VERSION + 1)), "{err}");
    // Success writes to -o in the format of its extension: 0.
    let out = tmp.path().join("growth.html");
    let o = exe().arg("compare").arg(&hs).arg(&hs).arg("-o").arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<h2>Growth Leaders</h2>"));
}

/// A dump of one program with a plugin loaded twice, by two loaders of one class
/// (`p.Gen`): the first defines `p.A` and `a.Z`, the second `p.A` only. `first_a` and
/// `second_a` instances of each `p.A`, each held by a JNI global. `moved` lays the
/// objects out at other addresses, loaders in the other order, as a later dump would.
fn plugin_dump(first_a: u64, second_a: u64, moved: bool) -> Report {
    use support::hprof_builder::{ClassDef, Hprof};
    let base = if moved { 0x9000_0000 } else { 0x1000_0000 };
    let (obj, class, loader_class, a1, z1, a2) =
        (base + 0x100, base + 0x108, base + 0x110, base + 0x200, base + 0x208, base + 0x210);
    let gen = base + 0x118;
    // Loader instances: the first one at the higher address when moved.
    let (l1, l2) = if moved { (base + 0x1000, base + 0x800) } else { (base + 0x800, base + 0x1000) };
    let mut h = Hprof::new(8);
    for (id, text) in [
        (1, "java/lang/Object"),
        (2, "java/lang/Class"),
        (3, "java/lang/ClassLoader"),
        (4, "p/Gen"),
        (5, "p/A"),
        (6, "a/Z"),
    ] {
        h.string(id, text);
    }
    for (serial, (id, name)) in
        [(obj, 1), (class, 2), (loader_class, 3), (gen, 4), (a1, 5), (z1, 6), (a2, 5)].into_iter().enumerate()
    {
        h.load_class(serial as u32 + 1, id, name);
    }
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(obj, 0));
    for id in [class, loader_class] {
        seg.class_dump(&ClassDef::new(id, obj));
    }
    seg.class_dump(&ClassDef::new(gen, loader_class));
    seg.class_dump(&ClassDef::new(a1, obj).loader(l1));
    seg.class_dump(&ClassDef::new(z1, obj).loader(l1));
    seg.class_dump(&ClassDef::new(a2, obj).loader(l2));
    for id in [obj, class, loader_class, gen, a1, z1, a2] {
        seg.root_sticky_class(id);
    }
    for l in [l1, l2] {
        seg.instance(l, gen, &[]);
        seg.root_jni_global(l, l + 1);
    }
    let mut next = base + 0x2000;
    for (count, a) in [(first_a, a1), (second_a, a2)] {
        for _ in 0..count {
            seg.instance(next, a, &[]);
            seg.root_jni_global(next, next + 1);
            next += 0x10;
        }
    }
    h.segment(&seg).heap_dump_end();
    let s = support::session_of(h.into_bytes());
    support::built_report(&s, &report::SourceInfo::default())
}

/// The same class name in two loaders is two rows, matched across dumps although every
/// address moved; the numbers follow from the dumps' construction (an instance without
/// fields is a 16-byte header).
#[test]
fn one_class_name_in_two_loaders_is_two_rows_matched_across_moved_addresses() {
    let (before, after) = (plugin_dump(2, 1, false), plugin_dump(5, 1, true));
    let cmp = compare::compare(&before, &after, &Options::default()).unwrap();
    let rows: Vec<(&str, &str, ClassStatus, i64, i64)> = cmp
        .classes
        .iter()
        .filter(|r| r.class_name == "p.A")
        .map(|r| (r.class_name.as_str(), r.loader.as_str(), r.status, r.delta.instances, r.delta.shallow_bytes))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("p.A", "p.Gen defining a.Z", ClassStatus::Both, 3, 3 * 16),
            ("p.A", "p.Gen defining p.A", ClassStatus::Both, 0, 0)
        ]
    );
    let first = cmp.classes.iter().find(|r| r.loader == "p.Gen defining a.Z" && r.class_name == "p.A").unwrap();
    assert_eq!((first.baseline.instances, first.current.instances), (2, 5));
    assert!(cmp.classes.iter().all(|r| r.status == ClassStatus::Both), "no class is new or gone: {:#?}", cmp.classes);
    assert_eq!(cmp.classes_changed, 1, "only the first loader's p.A changed");
}

/// Names from the dumps stay text in the growth report, in Markdown and in HTML.
#[test]
fn names_from_the_dumps_are_escaped_in_the_growth_report() {
    let (before, mut after) = (plugin_dump(2, 1, false), plugin_dump(3, 1, true));
    let hostile = "<script>alert(1)</script>|*[x](javascript:y)";
    for row in after.histogram.iter_mut().filter(|r| r.class_name == "a.Z") {
        row.class_name = hostile.into();
    }
    after.source.file_name = Some(hostile.into());
    let cmp = compare::compare(&before, &after, &Options::default()).unwrap();
    assert!(cmp.classes.iter().any(|r| r.class_name == hostile && r.status == ClassStatus::New));
    assert!(cmp.classes.iter().any(|r| r.class_name == "a.Z" && r.status == ClassStatus::Gone));
    let html = compare::document::html(&cmp, None);
    assert!(!html.contains("<script>"), "{html}");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;|*[x](javascript:y)"));
    assert!(html.contains("default-src 'none'"), "the report's Content-Security-Policy");
    let md = compare::document::markdown(&cmp, None);
    assert!(
        !md.contains("<script>") && md.contains("&lt;script&gt;alert(1)&lt;/script&gt;\\|\\*\\[x\\](javascript:y)"),
        "{md}"
    );
    // The loader column of the renamed class's row (the rename changes the first class
    // name that loader defines, hence its stable name: documented behaviour).
    assert!(md.contains("p.Gen defining"));
}

/// A dump cut off mid-heap still gets its comparison written, then exit status 1.
#[test]
fn an_incomplete_side_is_compared_and_exits_1() {
    let Some(c) = corpus() else { return };
    let tmp = support::TempDir::new("compare-cut");
    let whole = support::gunzip(&dump_path(&c, "s01_hello_serial_live"));
    let cut = tmp.path().join("cut.hprof");
    std::fs::write(&cut, &whole[..whole.len() * 2 / 3]).unwrap();
    let out = tmp.path().join("growth.json");
    let o = exe()
        .arg("compare")
        .arg(dump_path(&c, "s01_hello_serial_live"))
        .arg(&cut)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("incomplete"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["current"]["complete"], false);
    assert!(v["warnings"][0].as_str().unwrap().contains("current dump is incomplete"));
}

/// A report keeps the accumulation points of its largest top-level dominators: for s02's
/// suspect it is the one MAT names; it is named from the manifest's static field and
/// counted by the map's entries (the manifest's 300).
#[test]
fn reports_keep_growth_points_with_element_counts() {
    let Some(c) = corpus() else { return };
    let r = load(&c, "s02_static_map_leak_serial");
    let exp = expected(&c, "s02_static_map_leak_serial");
    let suspect = &exp["leak_suspects"]["suspects"][0];
    let point = r
        .growth_points
        .iter()
        .find(|p| p.address == suspect["object"].as_str().unwrap())
        .expect("the suspect's growth point");
    assert_eq!(point.accumulation_point.address, suspect["accumulation_point"]["object"].as_str().unwrap());
    assert_eq!(point.accumulation_point.class_name, "java.util.HashMap$Node[]");
    // Named from the static field, with the map's 300 entries (not its table's 512 slots).
    assert_eq!(point.held_in.as_deref(), Some("corpus.S02StaticMapLeak.CACHE"));
    assert_eq!(point.elements, Some(300));
    assert!(r.growth_points.len() <= heapscope::report::annotate::GROWTH_POINTS);
}

/// Two runs of one program name their lambdas' hidden classes with other addresses
/// (`…$$Lambda$14+0x00007f64…` and `…+0x00007f06…` in the s04 pair): each lambda is one
/// row on both sides, neither new nor gone (the row counts are MAT's, summed by name
/// without the address, in `check_pair_against_mat`).
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn lambdas_of_two_runs_are_paired_without_their_addresses() {
    let Some(c) = corpus() else { return };
    let (base, cur) = ("s04_references_serial_all", "s04_references_serial_live");
    let lambdas = |name: &str| -> Vec<String> {
        let exp = expected(&c, name);
        exp["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["class"].as_str().unwrap().to_string())
            .filter(|n| n.contains("$$Lambda"))
            .collect()
    };
    let (lb, lc) = (lambdas(base), lambdas(cur));
    // Lambdas archived with the JDK (CDS) keep their address; the others moved.
    let moved = lb.iter().filter(|n| !lc.contains(n)).count();
    assert!(moved >= 8, "{moved} of the runs' lambda names differ: {lb:?} {lc:?}");
    let cmp = compare::compare(&load(&c, base), &load(&c, cur), &Options::default()).unwrap();
    for name in lb.iter().chain(&lc) {
        let key = without_address(name);
        let rows: Vec<&ClassChange> = cmp.classes.iter().filter(|r| r.class_name == key).collect();
        assert_eq!(rows.len(), 1, "{key}");
        let on_both = lb.iter().any(|n| without_address(n) == key) && lc.iter().any(|n| without_address(n) == key);
        assert_eq!(rows[0].status == ClassStatus::Both, on_both, "{key}");
    }
    check_pair_against_mat(&c, base, cur);
}

/// The Markdown and HTML growth reports list the classes that shrank or are gone, not
/// only those that grew: a class gone with 416,000 bytes is there even when only one row
/// per direction is asked for.
#[test]
fn growth_reports_list_changes_in_both_directions() {
    let (mut before, after) = (plugin_dump(2, 1, false), plugin_dump(5, 1, true));
    let mut gone = before.histogram.iter().find(|r| r.class_name == "p.A").unwrap().clone();
    gone.class_name = "x.Gone".into();
    gone.instances = 1_000;
    gone.shallow_bytes = 416_000;
    gone.retained_bytes_min = 416_000;
    before.histogram.push(gone);
    let cmp = compare::compare(&before, &after, &Options::default()).unwrap();
    let row = cmp.classes.iter().find(|r| r.class_name == "x.Gone").unwrap();
    assert_eq!((row.status, row.delta.retained_bytes_min), (ClassStatus::Gone, -416_000));
    for text in [compare::document::markdown(&cmp, Some(1)), compare::document::html(&cmp, Some(1))] {
        assert!(text.contains("x.Gone") && text.contains("-416,000"), "{text}");
        // The row that grew most: the first loader's p.A, 3 more instances.
        assert!(text.contains("p.A") && text.contains("+3"), "{text}");
    }
}

/// A listener leak grown from 50 to 150 listeners: the growth leader (the class loader
/// that dominates it all) is named where the application holds the listeners, with the
/// list's entries on both sides.
#[test]
fn the_growth_leader_is_named_in_the_applications_terms() {
    let report = |n: u64| {
        let mut s = support::session_of(support::listener_leak::listener_leak(n));
        s.report().unwrap().clone()
    };
    let cmp = compare::compare(&report(50), &report(150), &Options::default()).unwrap();
    let leader = &cmp.leaders[0];
    assert_eq!(leader.class_name, "jdk.internal.loader.ClassLoaders$AppClassLoader");
    let held = |s: &Option<ChangeSide>| s.as_ref().and_then(|s| s.held_in.clone());
    assert_eq!(held(&leader.current).as_deref(), Some("com.acme.ui.EventBus.INSTANCE.listeners"));
    assert_eq!(held(&leader.baseline), held(&leader.current));
    let entries = |s: &Option<ChangeSide>| s.as_ref().and_then(|s| s.accumulation_point_elements);
    assert_eq!((entries(&leader.baseline), entries(&leader.current)), (Some(50), Some(150)));
    // Each listener adds its Screen$1 (16 + 8 bytes), Screen (24), byte[1,000] (1,024)
    // and its 8-byte slot in the list's array.
    assert_eq!(leader.delta_retained_bytes, 100 * (24 + 24 + 1_024 + 8));
    let md = compare::document::markdown(&cmp, None);
    assert!(
        md.contains("com.acme.ui.EventBus.INSTANCE.listeners (jdk.internal.loader.ClassLoaders\\$AppClassLoader)"),
        "{md}"
    );
    assert!(md.contains("entries: 50 → 150"), "{md}");
}
