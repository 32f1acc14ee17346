//! `compare mat`: heapscope's report against Eclipse MAT's own exported Leak Suspects
//! report (`../shared/corpus/expected/NAME_Leak_Suspects.zip`) for every corpus dump,
//! the sensitivity of the comparison (one changed number FAILs, exit 2), the CLI's exit
//! codes (0 / 2 / 1 on an unreadable or cut-off archive, never a panic) and the sweep
//! gate of `dev sweep-aggregate`.
//!
//! MAT's numbers come from MAT's pages; heapscope's from analyzing the dump. Where
//! heapscope genuinely differs from MAT today, the difference is named in [`KNOWN`] with
//! its cause: every other FAIL fails the test, and so does a known difference that no
//! longer occurs (so that the list only ever shrinks).

mod support;
#[path = "../../compare-mat/tests/cut/mod.rs"]
mod cut;

use std::path::{Path, PathBuf};
use std::process::Command;

use compare_mat::{self as mat, sweep, Tier};
use heapscope::analysis::{NoProgress, Options, Sizes};
use heapscope::report;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_heapscope");

/// Known differences between heapscope's report and MAT's pages, by the FAIL field they
/// produce: (what, dumps it is limited to (empty: any), field test).
struct Known {
    what: &'static str,
    only: &'static [&'static str],
    field: fn(&str, &Value) -> bool,
}

const KNOWN: &[Known] = &[];

struct Case {
    name: String,
    dump: PathBuf,
    zip: PathBuf,
}

fn cases(corpus: &Path) -> Vec<Case> {
    let mut out: Vec<Case> = std::fs::read_dir(corpus.join("expected"))
        .expect("expected/ is readable")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix("_Leak_Suspects.zip").map(String::from))
        .filter_map(|name| {
            let dump = ["dumps", "android"]
                .iter()
                .map(|d| corpus.join(d).join(format!("{name}.hprof.gz")))
                .find(|p| p.exists())?;
            let zip = corpus.join("expected").join(format!("{name}_Leak_Suspects.zip"));
            Some(Case { name, dump, zip })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// heapscope's JSON report of a dump in Eclipse MAT's sizes, as `analyze --format json
/// --sizes mat` writes it (and `compare mat DUMP` analyzes it).
fn our_json(dump: &Path) -> String {
    our_json_in(dump, Sizes::Mat)
}

fn our_json_in(dump: &Path, sizes: Sizes) -> String {
    let options = Options { sizes, ..Options::default() };
    let r = heapscope::session::input::load(dump, &options, &mut NoProgress).expect("dump analyzes");
    report::to_json(&r)
}

fn verdict(zip: &Path, ours: &str) -> mat::Verdict {
    let m = mat::read_mat(&std::fs::read(zip).unwrap()).expect("MAT report reads");
    let (r, raw) = mat::read_ours(ours, heapscope::model::SCHEMA_VERSION).expect("our report reads");
    mat::compare(&m, &r, &raw)
}

fn tier_of<'a>(v: &'a mat::Verdict, field: &str) -> Option<&'a Tier> {
    v.items.iter().find(|i| i.field == field).map(|i| &i.tier)
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn every_corpus_dump_matches_mats_own_report_but_for_the_known_differences() {
    let Some(corpus) = support::corpus_dir() else { return };
    let cases = cases(&corpus);
    assert!(
        cases.len() >= 23,
        "expected a Leak Suspects zip and a dump for at least 23 corpus dumps, found {}",
        cases.len()
    );
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(case) = cases.get(i) else { break };
                let json = our_json(&case.dump);
                let v = verdict(&case.zip, &json);
                let raw: Value = serde_json::from_str(&json).unwrap();
                results.lock().unwrap().push((case.name.clone(), v, raw));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut unexplained = Vec::new();
    let mut seen = vec![0usize; KNOWN.len()];
    let mut sweep_files = Vec::new();
    let mut props_compared = 0;
    for (name, v, raw) in &results {
        let mut known = 0;
        for item in v.items.iter().filter(|i| i.tier == Tier::Fail) {
            match KNOWN
                .iter()
                .position(|k| (k.only.is_empty() || k.only.contains(&name.as_str())) && (k.field)(&item.field, raw))
            {
                Some(k) => {
                    seen[k] += 1;
                    known += 1;
                }
                None => {
                    unexplained.push(format!("{name}: {} — MAT {:?}, heapscope {:?}", item.field, item.mat, item.ours))
                }
            }
        }
        eprintln!(
            "compare mat {name}: {} MATCH, {} EXPLAINABLE, {} FAIL ({known} known)",
            v.matches(),
            v.explainable(),
            v.fails()
        );
        assert!(v.matches() > 150, "{name}: only {} fields matched", v.matches());
        // Every system property of MAT's System Properties page is one of ours, equal.
        let zip = &cases.iter().find(|c| &c.name == name).unwrap().zip;
        let mat_props = mat::read_mat(&std::fs::read(zip).unwrap()).unwrap().system_properties.map_or(0, |p| p.len());
        let equal_props = v
            .items
            .iter()
            .filter(|i| {
                i.field.starts_with("system_properties[") && matches!(i.tier, Tier::Match | Tier::Explainable { .. })
            })
            .count();
        assert_eq!(equal_props, mat_props, "{name}: system properties equal to MAT's");
        props_compared += mat_props;
        let c = mat::Comparison {
            mat_name: format!("{name}_Leak_Suspects.zip"),
            ours_name: format!("{name}.json"),
            pages: vec![],
            verdict: v.clone(),
        };
        sweep_files.push((format!("{name}.diff.json"), mat::to_json(&c)));
    }
    for (k, n) in KNOWN.iter().zip(&seen) {
        eprintln!("known difference ({n} FAIL fields): {}", k.what);
    }
    assert!(
        unexplained.is_empty(),
        "{} FAIL fields beyond the known differences:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    assert!(props_compared > 100, "only {props_compared} system properties on MAT's pages");
    let gone: Vec<&str> = KNOWN.iter().zip(&seen).filter(|(_, &n)| n == 0).map(|(k, _)| k.what).collect();
    assert!(gone.is_empty(), "known differences that no longer occur (remove them from KNOWN): {gone:?}");
    // The sweep over these comparisons: enough real ones, and FAIL while differences remain.
    let s = sweep::Sweep::from_texts(sweep_files).unwrap();
    assert_eq!(s.real(), results.len());
    assert_eq!(s.passed(), seen.iter().all(|&n| n == 0));
}

/// A table of a corpus dump's MAT report, cut to its first `keep` rows (`of`: the count
/// the totals row then says, else the table's own).
struct CutTable {
    dump: &'static str,
    page: &'static str,
    heading: &'static str,
    keep: usize,
    of: Option<u64>,
}

/// Adds `by` to the number `key` of ours' thread at `address`.
fn add_to_thread(r: &mut Value, address: &str, key: &str, by: u64) {
    let t = r["threads"].as_array_mut().unwrap().iter_mut().find(|t| t["address"] == address).unwrap();
    t[key] = Value::from(t[key].as_u64().unwrap() + by);
}

/// MAT cuts a long table to its first rows (`Total: 3 of 10 entries; 7 more`): the
/// held-out reports' shapes, made from the corpus's own pages — a Thread Overview cut to
/// 3 of 10 threads, a thread's properties cut to 3 of 10 rows (its retained size not on
/// the page: once "(no number)" FAIL), Top Consumers' Biggest Objects cut to 3 of 11 (once
/// "objects count" 3 vs 11 FAIL), a suspect's accumulated objects by class cut to 3 of 10.
/// Each passes against heapscope's analysis of the dump, naming what lies beyond the cut
/// as truncated; a changed number in a row MAT shows still FAILs.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn tables_mat_cut_pass_on_the_rows_shown_and_changed_numbers_still_fail() {
    let Some(corpus) = support::corpus_dir() else { return };
    let cases: [(CutTable, &str, Change); 4] = [
        (
            CutTable {
                dump: "s03_threadlocal_leak_serial",
                page: "pages/Thread_Overview5.html",
                heading: "</a> Thread Overview <",
                keep: 3,
                of: None,
            },
            "threads[0xfd5ed8e8].retained",
            |r| add_to_thread(r, "0xfd5ed8e8", "retained_bytes", 1),
        ),
        (
            CutTable {
                dump: "s07_wide_array_g1",
                page: "pages/35.html",
                heading: "</a> Thread Properties <",
                keep: 3,
                of: Some(10),
            },
            "thread properties[0xf86cbb38] (pages/35.html).shallow",
            |r| add_to_thread(r, "0xf86cbb38", "shallow_bytes", 8),
        ),
        (
            CutTable {
                dump: "s10_garbage_cycles_serial_all",
                page: "pages/Top_Consumers6.html",
                heading: "</a> Biggest Objects <",
                keep: 3,
                of: None,
            },
            "top_consumers.objects#2.retained",
            |r| {
                let o = &mut r["top_consumers"]["objects"][1];
                o["retained_bytes"] = Value::from(o["retained_bytes"].as_u64().unwrap() - 1);
            },
        ),
        (
            CutTable {
                dump: "s04_references_serial_all",
                page: "pages/18.html",
                heading: "</a> Accumulated Objects by Class in Dominator Tree <",
                keep: 3,
                of: None,
            },
            "suspect#1 (pages/18.html).accumulated[java.lang.ref.SoftReference].retained",
            |r| {
                let groups = r["leak_suspects"]["suspects"][0]["accumulated"].as_array_mut().unwrap();
                let g = groups.iter_mut().find(|g| g["class_name"] == "java.lang.ref.SoftReference").unwrap();
                g["retained_bytes"] = Value::from(g["retained_bytes"].as_u64().unwrap() + 1);
            },
        ),
    ];
    for (t, field, change) in cases {
        let (name, heading, keep) = (t.dump, t.heading, t.keep);
        let full = cut::mat_pages(&corpus, name);
        let m = cut::read(&cut::with_page(&full, t.page, |p| cut::cut_table(p, heading, keep, t.of)));
        let dump = corpus.join("dumps").join(format!("{name}.hprof.gz"));
        let json = our_json(&dump);
        let compare = |json: &str| {
            let (r, raw) = mat::read_ours(json, heapscope::model::SCHEMA_VERSION).unwrap();
            mat::compare(&m, &r, &raw)
        };
        let v = compare(&json);
        let fails: Vec<String> = v
            .items
            .iter()
            .filter(|i| i.tier == Tier::Fail)
            .map(|i| format!("{}: {} vs {}", i.field, i.mat, i.ours))
            .collect();
        assert!(fails.is_empty(), "{name} with {heading} cut to {keep}: {fails:?}");
        let cut = v.count(|t| matches!(t, Tier::Explainable { reason: mat::Reason::Truncated, .. }));
        assert!(cut >= 4, "{name}: {cut} items beyond the cut");
        assert_eq!(tier_of(&v, field), Some(&Tier::Match), "{name}: {field}");
        let mut bad: Value = serde_json::from_str(&json).unwrap();
        change(&mut bad);
        assert_eq!(tier_of(&compare(&bad.to_string()), field), Some(&Tier::Fail), "{name}: {field} changed");
    }
}

/// The page's text without the table row holding `needle`.
fn without_row(page: &str, needle: &str) -> String {
    let at = page.find(needle).unwrap_or_else(|| panic!("{needle:?} on the page"));
    let start = page[..at].rfind("<tr").unwrap();
    let end = at + page[at..].find("</tr>").unwrap() + "</tr>".len();
    format!("{}{}", &page[..start], &page[end..])
}

/// A thread's stack with its locals, cut by MAT: s07's owner-b-thread with 7 of its 9
/// frames shown and 2 of the 3 locals of its holding frame. The frames shown compare in
/// order, the count is MAT's 9, the locals shown are ours' (truncated), their count 3; a
/// local of ours gone still FAILs.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn a_stack_mat_cut_is_compared_on_the_frames_and_locals_shown() {
    let Some(corpus) = support::corpus_dir() else { return };
    let name = "s07_wide_array_g1";
    let full = cut::mat_pages(&corpus, name);
    let m = cut::read(&cut::with_page(&full, "pages/32.html", |p| {
        let p = without_row(p, "mat://object/0xf86cbaa0");
        let p = without_row(&p, "S07WideArray$$Lambda$1");
        let p = without_row(&p, "at java.lang.Thread.run()V");
        p.replace("Total: 3 entries", "Total: 2 of 3 entries; 1 more")
            .replace("Total: 9 entries", "Total: 7 of 9 entries; 2 more")
    }));
    let json = our_json(&corpus.join("dumps").join(format!("{name}.hprof.gz")));
    let compare = |json: &str| {
        let (r, raw) = mat::read_ours(json, heapscope::model::SCHEMA_VERSION).unwrap();
        mat::compare(&m, &r, &raw)
    };
    let v = compare(&json);
    let stack: Vec<&mat::Item> =
        v.items.iter().filter(|i| i.field.starts_with("stack locals (pages/32.html")).collect();
    let fails: Vec<&&mat::Item> = stack.iter().filter(|i| i.tier == Tier::Fail).collect();
    assert!(fails.is_empty(), "{fails:?}");
    let frames = stack.iter().find(|i| i.field.ends_with(".frames")).unwrap();
    assert_eq!((frames.mat.as_str(), &frames.tier), ("9", &Tier::Match));
    assert_eq!(stack.iter().filter(|i| i.field.contains(".frame#") && !i.field.contains(".locals")).count(), 7);
    let locals = stack.iter().find(|i| i.field.ends_with(".locals") && i.mat.contains("0xf86cb9f8")).unwrap();
    assert!(matches!(locals.tier, Tier::Explainable { reason: mat::Reason::Truncated, .. }), "{locals:?}");
    let count = stack.iter().find(|i| i.field.ends_with(".locals count")).unwrap();
    assert_eq!((count.mat.as_str(), &count.tier), ("3", &Tier::Match));
    // Ours without the local 0xf86cb9f8: MAT shows it.
    let mut bad: Value = serde_json::from_str(&json).unwrap();
    let thread = bad["threads"].as_array_mut().unwrap().iter_mut().find(|t| t["address"] == "0xf86cbb38").unwrap();
    for f in thread["frames"].as_array_mut().unwrap() {
        f["locals"].as_array_mut().unwrap().retain(|o| o["address"] != "0xf86cb9f8");
    }
    let v = compare(&bad.to_string());
    assert_eq!(tier_of(&v, &locals.field), Some(&Tier::Fail));
}

/// A report in the JVM's sizes (the default) against MAT's pages: every field a size enters
/// and that differs is EXPLAINABLE with reason `layout`, never FAIL; the FAILs are those of
/// MAT's sizes (the known differences), and the counts still match.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn a_report_in_the_jvms_sizes_differs_from_mat_by_the_layout_only() {
    let Some(corpus) = support::corpus_dir() else { return };
    for name in ["s02_static_map_leak_serial", "s07_wide_array_zgc"] {
        let case = cases(&corpus).into_iter().find(|c| c.name == name).expect("in the corpus");
        let in_mat = verdict(&case.zip, &our_json(&case.dump));
        let in_jvm = verdict(&case.zip, &our_json_in(&case.dump, Sizes::Jvm));
        let fails = |v: &mat::Verdict| -> Vec<String> {
            v.items.iter().filter(|i| i.tier == Tier::Fail).map(|i| i.field.clone()).collect()
        };
        let mat_fails = fails(&in_mat);
        let extra: Vec<String> = fails(&in_jvm).into_iter().filter(|f| !mat_fails.contains(f)).collect();
        assert!(extra.is_empty(), "{name}: FAIL in the JVM's sizes only: {extra:?}");
        let layout = in_jvm
            .items
            .iter()
            .filter(|i| matches!(&i.tier, Tier::Explainable { reason: mat::Reason::Layout, .. }))
            .count();
        assert!(layout > 0, "{name}: the JVM's sizes differ from MAT's somewhere (class objects at least)");
        assert_eq!(tier_of(&in_jvm, "histogram[byte[]].instances"), Some(&Tier::Match), "{name}");
        eprintln!("{name} in the JVM's sizes: {} MATCH, {layout} EXPLAINABLE (layout)", in_jvm.matches());
    }
}

fn run_cli(zip: &Path, ours: &Path) -> (Option<i32>, Value) {
    let out = Command::new(BIN)
        .args(["-q", "compare", "mat"])
        .arg(zip)
        .arg(ours)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("compare mat --format json printed no JSON ({e}): {text}"));
    (out.status.code(), v)
}

fn fail_fields(v: &Value) -> Vec<String> {
    v["fail"].as_array().unwrap().iter().map(|f| f["field"].as_str().unwrap().to_string()).collect()
}

/// A change made to a JSON report.
type Change = fn(&mut Value);

/// One histogram count and one suspect's retained size changed by one: each FAILs, and
/// the command's status goes from 0 (the report as analyzed) to 2.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn a_changed_histogram_count_or_suspect_size_fails_with_status_2() {
    let Some(corpus) = support::corpus_dir() else { return };
    let case = cases(&corpus).into_iter().find(|c| c.name == "s02_static_map_leak_serial").expect("s02 in the corpus");
    let json = our_json(&case.dump);
    let count_field = "histogram[byte[]].instances";
    let size_field = "suspect#1 (index.html).retained";
    // As analyzed, both fields match MAT's pages.
    let v = verdict(&case.zip, &json);
    assert_eq!(tier_of(&v, count_field), Some(&Tier::Match));
    assert_eq!(tier_of(&v, size_field), Some(&Tier::Match));

    let tmp = support::TempDir::new("compare-mat");
    let analyzed: Value = serde_json::from_str(&json).unwrap();
    let good = tmp.path().join("ours.json");
    std::fs::write(&good, &json).unwrap();
    let (code, out) = run_cli(&case.zip, &good);
    assert_eq!(fail_fields(&out), Vec::<String>::new());
    assert_eq!(code, Some(0));
    assert!(out["summary"]["match"].as_u64().unwrap() > 300, "{}", out["summary"]);

    let mutations: [(&str, Change); 2] = [
        (count_field, |r| {
            let row = r["histogram"].as_array_mut().unwrap().iter_mut().find(|h| h["class_name"] == "byte[]").unwrap();
            row["instances"] = Value::from(row["instances"].as_u64().unwrap() + 1);
        }),
        (size_field, |r| {
            let s = &mut r["leak_suspects"]["suspects"][0];
            s["retained_bytes"] = Value::from(s["retained_bytes"].as_u64().unwrap() + 1);
        }),
    ];
    for (field, change) in mutations {
        let mut bad = analyzed.clone();
        change(&mut bad);
        let path = tmp.path().join("changed.json");
        std::fs::write(&path, serde_json::to_string(&bad).unwrap()).unwrap();
        let (code, out) = run_cli(&case.zip, &path);
        assert_eq!(code, Some(2), "{field} changed: status");
        assert!(fail_fields(&out).iter().any(|f| f == field), "{field} changed: FAILs {:?}", fail_fields(&out));
        assert!(out["summary"]["fail"].as_u64().unwrap() >= 1);
        // The same change on the report as analyzed is a FAIL of that field too.
        let mut bad = serde_json::from_str::<Value>(&json).unwrap();
        change(&mut bad);
        assert_eq!(tier_of(&verdict(&case.zip, &bad.to_string()), field), Some(&Tier::Fail), "{field}");
    }

    // The dump itself as OURS gives the same verdict as its JSON report.
    let from_json = tmp.path().join("s02.json");
    std::fs::write(&from_json, &json).unwrap();
    let (c1, a) = run_cli(&case.zip, &from_json);
    let (c2, b) = run_cli(&case.zip, &case.dump);
    assert_eq!((c1, &a["summary"], &a["fail"]), (c2, &b["summary"], &b["fail"]));
}

/// A cut-off, corrupt or foreign archive is an error naming what is wrong (status 1),
/// never a panic.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn unreadable_mat_reports_exit_1() {
    let Some(corpus) = support::corpus_dir() else { return };
    let zip = corpus.join("expected").join("s01_hello_serial_live_Leak_Suspects.zip");
    let bytes = std::fs::read(&zip).unwrap();
    let tmp = support::TempDir::new("compare-mat-bad");
    let ours = tmp.path().join("ours.json");
    std::fs::write(&ours, "{\"schema_version\": 1}").unwrap();
    // A byte of index.html's compressed data (after its local header and name).
    let mut corrupt = bytes.clone();
    let at = bytes.windows(10).position(|w| w == b"index.html").expect("index.html in the archive") + 10 + 40;
    corrupt[at] ^= 0xff;
    let cases: [(&str, Vec<u8>); 4] = [
        ("cut", bytes[..bytes.len() / 2].to_vec()),
        ("tail-cut", bytes[..bytes.len() - 5].to_vec()),
        ("corrupt", corrupt),
        ("text", b"this is not a zip archive".to_vec()),
    ];
    for (what, data) in cases {
        let path = tmp.path().join(format!("{what}.zip"));
        std::fs::write(&path, data).unwrap();
        let out = Command::new(BIN).args(["compare", "mat"]).arg(&path).arg(&ours).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert!(err.contains("zip: ") && !err.contains("panicked"), "{what}: {err}");
    }
    // Library level: every prefix of a real archive reads or fails cleanly.
    for len in (0..bytes.len()).step_by(97) {
        let _ = mat::read_mat(&bytes[..len]);
    }
    // Our side unreadable: status 1 too.
    let out =
        Command::new(BIN).args(["compare", "mat"]).arg(&zip).arg(tmp.path().join("missing.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

fn diff_json(real: bool, fail: u64) -> String {
    let fails: Vec<String> = (0..fail)
        .map(|i| format!("{{\"field\": \"histogram[X{i}].instances\", \"mat\": \"1\", \"ours\": \"2\"}}"))
        .collect();
    format!(
        "{{\"real\": {real}, \"summary\": {{\"match\": 100, \"explainable\": 1, \"fail\": {fail}}}, \
         \"explainable\": [{{\"field\": \"overview.Used heap dump\", \"mat\": \"29.3 MB\", \"ours\": \"30705704\", \"reason\": \"rounding\", \"evidence\": \"band\"}}], \
         \"fail\": [{}]}}",
        fails.join(", ")
    )
}

fn sweep_cli(dir: &Path) -> (Option<i32>, String) {
    let out = Command::new(BIN).args(["dev", "sweep-aggregate"]).arg(dir).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `dev sweep-aggregate`: PASS needs no FAIL and at least 15 real comparisons.
#[test]
fn sweep_gate() {
    let tmp = support::TempDir::new("sweep");
    let dir = tmp.path();
    for i in 0..14 {
        std::fs::write(dir.join(format!("d{i:02}.diff.json")), diff_json(true, 0)).unwrap();
    }
    std::fs::write(dir.join("notes.json"), "not a diff file: ignored").unwrap();
    let (code, text) = sweep_cli(dir);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("14 real MAT comparisons") && text.contains("Too few"), "{text}");
    // A comparison without a MAT report does not count.
    std::fs::write(dir.join("x.diff.json"), diff_json(false, 0)).unwrap();
    assert_eq!(sweep_cli(dir).0, Some(2));
    std::fs::write(dir.join("d14.diff.json"), diff_json(true, 0)).unwrap();
    let (code, text) = sweep_cli(dir);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("PASS")
            && text.contains("| d03.diff.json | overview.Used heap dump | 29.3 MB | 30705704 | rounding | band |"),
        "{text}"
    );
    std::fs::write(dir.join("d07.diff.json"), diff_json(true, 2)).unwrap();
    let (code, text) = sweep_cli(dir);
    assert_eq!(code, Some(2), "{text}");
    // Markdown: the field's brackets are escaped (and render as brackets).
    assert!(text.contains("| d07.diff.json | histogram\\[X1\\].instances | 1 | 2 |"), "{text}");
    std::fs::write(dir.join("d08.diff.json"), "{ broken").unwrap();
    assert_eq!(sweep_cli(dir).0, Some(1));
}

/// `compare reports A B` is today's `compare A B`, byte for byte.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn compare_reports_is_the_growth_comparison() {
    let Some(corpus) = support::corpus_dir() else { return };
    let tmp = support::TempDir::new("compare-reports");
    let (a, b) = (tmp.path().join("a.json"), tmp.path().join("b.json"));
    std::fs::write(&a, our_json(&corpus.join("dumps/s01_hello_serial_live.hprof.gz"))).unwrap();
    std::fs::write(&b, our_json(&corpus.join("dumps/s01_hello_serial_all.hprof.gz"))).unwrap();
    let run = |args: &[&str]| Command::new(BIN).args(args).arg(&a).arg(&b).args(["--format", "json"]).output().unwrap();
    let (old, new) = (run(&["compare"]), run(&["compare", "reports"]));
    assert_eq!(old.status.code(), Some(0), "{}", String::from_utf8_lossy(&old.stderr));
    assert_eq!(new.status.code(), Some(0), "{}", String::from_utf8_lossy(&new.stderr));
    assert!(!old.stdout.is_empty());
    assert_eq!(old.stdout, new.stdout);
    // Without both reports it is a usage error.
    let out = Command::new(BIN).args(["compare"]).arg(&a).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
