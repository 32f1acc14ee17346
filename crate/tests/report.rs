//! The report's contract: the committed JSON Schemas equal the derived ones, the JSON is
//! deterministic and bounded, it round-trips, and the Markdown carries the sections a
//! reader expects.

mod support;

use std::path::Path;

use heapscope::analysis::{analyze, NoProgress, Options};
use heapscope::report::{self, markdown, Report, SourceInfo};

fn repo_file(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn committed_report_schema_equals_the_derived_one() {
    let committed = repo_file("schema/report.schema.json");
    assert!(
        committed == report::json_schema(),
        "schema/report.schema.json is stale: regenerate it with `cargo run --release -- schema > schema/report.schema.json` \
         (and bump SCHEMA_VERSION if a field was removed, renamed, retyped or changed meaning)"
    );
}

#[test]
fn committed_session_schema_equals_the_derived_one() {
    let committed = repo_file("schema/session.schema.json");
    assert!(
        committed == heapscope::session::json_schema(),
        "schema/session.schema.json is stale: regenerate it with `cargo run --release -- schema --session > schema/session.schema.json`"
    );
}

fn report_of(name: &str, dir: &str) -> Option<Report> {
    let corpus = support::corpus_dir()?;
    let path = corpus.join(dir).join(format!("{name}.hprof.gz"));
    let a = analyze(support::open_dump(&path), &Options::default(), &mut NoProgress).unwrap();
    let info = SourceInfo { file_name: Some(format!("{name}.hprof.gz")), file_bytes: std::fs::metadata(&path).unwrap().len(), gzip: true };
    Some(report::build(&a, &info))
}

#[test]
fn json_is_deterministic_and_round_trips() {
    let Some(first) = report_of("s02_static_map_leak_serial", "dumps") else { return };
    let second = report_of("s02_static_map_leak_serial", "dumps").unwrap();
    let (a, b) = (report::to_json(&first), report::to_json(&second));
    assert_eq!(a, b, "two analyses of the same dump gave different JSON");
    let back: Report = serde_json::from_str(&a).expect("the JSON parses back into a Report");
    assert_eq!(back, first);
    assert_eq!(first.schema_version, report::SCHEMA_VERSION);
    // The numbers are MAT's (also checked in parity.rs): spot-check the summary.
    assert_eq!(first.overview.objects, 18_724);
    assert_eq!(first.overview.used_heap_bytes, 30_705_704);
    assert_eq!(first.overview.classes, 813);
    assert_eq!(first.leak_suspects.suspects.len(), 1);
    let s = &first.leak_suspects.suspects[0];
    assert_eq!(s.object.address, "0xfab193e0");
    assert_eq!(s.retained_bytes, 30_084_408);
    assert_eq!(s.accumulation_point.as_ref().unwrap().address, "0xfbda1118");
    assert_eq!(s.object.class_of_object.as_deref(), Some("corpus.S02StaticMapLeak"));
}

#[test]
fn no_list_grows_with_the_object_count() {
    // One million list nodes: the JSON must not hold anything per object.
    let Some(r) = report_of("s06_linked_list_1m_serial", "dumps") else { return };
    let json = report::to_json(&r);
    assert_eq!(r.overview.objects, 1_013_573);
    assert_eq!(r.histogram.len() as u64, r.overview.classes);
    assert!(r.top_dominators.len() <= 100);
    let s = &r.leak_suspects.suspects[0];
    assert!(s.accumulation_point.is_none(), "the 1,000,000-deep chain has no accumulation point within 1000 steps");
    assert_eq!(s.chain.len(), 40, "chain capped at 40 entries");
    assert_eq!(s.chain_omitted, 1001 - 40);
    assert!(json.len() < 400_000, "report JSON is {} bytes for 757 classes", json.len());
}

#[test]
fn markdown_has_the_sections_of_mats_reports() {
    let Some(r) = report_of("s03_threadlocal_leak_serial", "dumps") else { return };
    let md = markdown::render(&r);
    for needle in [
        "# Heap dump analysis: s03\\_threadlocal\\_leak\\_serial.hprof.gz",
        "## System Overview",
        "### Heap Summary",
        "| Used heap | 15,296,832 bytes",
        "### GC Roots by Type",
        "| System Class | 755 |",
        "### Unreachable Objects",
        "### Classes by Retained Heap",
        "## Leak Suspects",
        "### Problem Suspect 1",
        "### Problem Suspect 2",
        "java.lang.Thread @ 0xfd5e09a0",
        "**Accumulation point:** byte\\[\\]\\[\\] @ 0xfd5edd58",
        "## Top Consumers",
        "### Biggest Packages",
    ] {
        assert!(md.contains(needle), "Markdown lacks {needle:?}:\n{md}");
    }
}

#[test]
fn android_roots_keep_their_own_names_with_mats_beside() {
    let Some(r) = report_of("ahat_test_dump_8e3b7d7", "android") else { return };
    assert_eq!(r.dump.platform, "Android");
    assert_eq!(r.dump.format, "JAVA PROFILE 1.0.3");
    let get = |n: &str| r.overview.gc_roots_by_type.iter().find(|t| t.name == n).map(|t| (t.mat_name.clone(), t.objects));
    assert_eq!(get("Interned String"), Some(("Unknown".into(), 246)));
    assert_eq!(get("Debugger"), Some(("Unknown".into(), 107)));
    assert_eq!(get("VM Internal"), Some(("Unknown".into(), 7)));
    assert_eq!(get("System Class"), Some(("System Class".into(), 1106)));
}
