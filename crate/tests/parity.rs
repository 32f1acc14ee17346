//! MAT parity on the shared corpus: for every dump with `expected/NAME.json`, heapscope's
//! numbers must equal Eclipse MAT 1.16.1's exactly — the same checks as
//! `../shared/corpus/compare_expected.py`, plus every line of `NAME.objects.tsv.gz` and
//! `NAME.keep.json` with unreachable objects kept.
//!
//! The corpus lives beside the repository (`../shared/corpus`); when it is absent the
//! tests say so and pass without checking anything.

mod support;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use heapscope::analysis::{Options, Sizes};
use heapscope::report::parity;
use serde_json::Value;
use support::corpus_dir;

/// Eclipse MAT's sizes: every number here is checked against MAT's (the default, the
/// JVM's sizes, differs where the JVM's layout is not MAT's model; see tests/jvm_sizes.rs).
fn mat() -> Options {
    Options { sizes: Sizes::Mat, ..Options::default() }
}

struct Case {
    name: String,
    dump: PathBuf,
    expected: PathBuf,
    objects: Option<PathBuf>,
    keep: bool,
}

fn cases(corpus: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(corpus.join("expected"))
        .expect("expected/ is readable")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    for file in names {
        let stem = file.trim_end_matches(".json");
        let (base, keep) = match stem.strip_suffix(".keep") {
            Some(b) => (b, true),
            None => (stem, false),
        };
        let dump =
            ["dumps", "android"].iter().map(|d| corpus.join(d).join(format!("{base}.hprof.gz"))).find(|p| p.exists());
        let Some(dump) = dump else { continue };
        let objects = corpus.join("expected").join(format!("{stem}.objects.tsv.gz"));
        out.push(Case {
            name: stem.to_string(),
            dump,
            expected: corpus.join("expected").join(&file),
            objects: objects.exists().then_some(objects),
            keep,
        });
    }
    out
}

/// Mismatches, described; empty when everything matched. Mirrors compare_expected.py.
fn compare(exp: &Value, act: &Value, out: &mut Vec<String>) -> usize {
    let mut compared = 0;
    let mut check = |what: String, e: &Value, a: &Value, out: &mut Vec<String>| {
        compared += 1;
        if e != a {
            out.push(format!("{what}: expected {e}, got {a}"));
        }
    };
    let get = |v: &Value, path: &str| path.split('.').try_fold(v, |v, k| v.get(k)).cloned().unwrap_or(Value::Null);
    for path in [
        "id_size",
        "total_objects",
        "total_shallow_heap",
        "classes",
        "gc_roots.objects",
        "gc_roots.objects_by_type",
        "top_level_dominators_count",
        "top_level_dominators_retained_sum",
    ] {
        check(path.into(), &get(exp, path), &get(act, path), out);
    }
    for key in ["objects", "shallow_heap"] {
        let p = format!("unreachable.{key}");
        check(p.clone(), &get(exp, &p), &get(act, &p), out);
    }
    let rows = |v: &Value| {
        let mut r: Vec<String> = get(v, "unreachable.histogram")
            .as_array()
            .map(|a| a.iter().map(|x| format!("{}|{}|{}", x["class"], x["instances"], x["shallow_heap"])).collect())
            .unwrap_or_default();
        r.sort();
        Value::from(r)
    };
    check("unreachable.histogram".into(), &rows(exp), &rows(act), out);

    let mut actual: BTreeMap<String, Value> = BTreeMap::new();
    for row in act["histogram"].as_array().into_iter().flatten() {
        actual.insert(row["class_object"].as_str().unwrap_or_default().to_string(), row.clone());
    }
    for row in exp["histogram"].as_array().into_iter().flatten() {
        let key = row["class_object"].as_str().unwrap_or_default();
        match actual.remove(key) {
            None => check(format!("histogram {key}"), &"present".into(), &"missing".into(), out),
            Some(got) => {
                for f in ["class", "instances", "shallow_heap", "retained_heap_min"] {
                    check(format!("histogram {} ({key}) {f}", row["class"]), &row[f], &got[f], out);
                }
            }
        }
    }
    for (key, _) in actual {
        check(format!("histogram {key}"), &"absent".into(), &"extra row".into(), out);
    }

    let top = |v: &Value| -> Vec<Value> {
        v["top_dominators"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| {
                        Value::from(vec![
                            x["object"].clone(),
                            x["class"].clone(),
                            x["shallow"].clone(),
                            x["retained"].clone(),
                        ])
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (et, at) = (top(exp), top(act));
    for (i, e) in et.iter().enumerate() {
        check(format!("top_dominators #{}", i + 1), e, at.get(i).unwrap_or(&Value::Null), out);
    }

    let suspects = |v: &Value| -> Vec<Value> {
        get(v, "leak_suspects.suspects")
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| {
                        let id = if s["object"].is_null() { s["class"].clone() } else { s["object"].clone() };
                        let ap = s.get("accumulation_point").map(|p| p["object"].clone()).unwrap_or(Value::Null);
                        Value::from(vec![s["kind"].clone(), id, s["retained"].clone(), ap])
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (es, as_) = (suspects(exp), suspects(act));
    check("leak_suspects count".into(), &es.len().into(), &as_.len().into(), out);
    for (i, e) in es.iter().enumerate() {
        check(format!("leak_suspects #{}", i + 1), e, as_.get(i).unwrap_or(&Value::Null), out);
    }
    compared
}

/// Compares the objects TSV line by line (keyed by address); returns values compared.
fn compare_objects(expected_gz: &Path, actual_tsv: &str, out: &mut Vec<String>) -> usize {
    let expected = support::gunzip(expected_gz);
    let expected = String::from_utf8(expected).expect("TSV is UTF-8");
    let parse = |text: &str| -> (Vec<String>, HashMap<String, Vec<String>>) {
        let mut lines = text.lines();
        let header: Vec<String> = lines.next().unwrap_or_default().split('\t').map(String::from).collect();
        let rows =
            lines.map(|l| l.split('\t').map(String::from).collect::<Vec<_>>()).map(|r| (r[0].clone(), r)).collect();
        (header, rows)
    };
    let (eh, erows) = parse(&expected);
    let (ah, arows) = parse(actual_tsv);
    let mut compared = 1;
    if erows.len() != arows.len() {
        out.push(format!("objects: expected {} rows, got {}", erows.len(), arows.len()));
    }
    for (addr, row) in &erows {
        let Some(got) = arows.get(addr) else {
            out.push(format!("objects {addr}: missing"));
            continue;
        };
        for field in ["class", "shallow", "retained", "immediate_dominator", "gc_root"] {
            compared += 1;
            let (ei, ai) = (eh.iter().position(|h| h == field), ah.iter().position(|h| h == field));
            let (e, a) = (ei.map(|i| &row[i]), ai.and_then(|i| got.get(i)));
            if e != a {
                out.push(format!("objects {addr} {field}: expected {e:?}, got {a:?}"));
            }
        }
    }
    compared
}

fn run_case(case: &Case) -> Result<usize, String> {
    let src = support::open_dump(&case.dump);
    let options = Options { keep_unreachable: case.keep, ..mat() };
    let session = support::session(src, &options).map_err(|e| format!("analysis failed: {e}"))?;
    let analysis = &session.analysis;
    let actual = parity::json(analysis);
    let expected: Value = serde_json::from_slice(&std::fs::read(&case.expected).unwrap()).unwrap();
    let mut mismatches = Vec::new();
    let mut compared = compare(&expected, &actual, &mut mismatches);
    if let (Some(objects), false) = (&case.objects, case.keep) {
        let mut tsv = Vec::new();
        parity::write_objects_tsv(analysis, &mut tsv).unwrap();
        compared += compare_objects(objects, &String::from_utf8(tsv).unwrap(), &mut mismatches);
    }
    if mismatches.is_empty() {
        Ok(compared)
    } else {
        let n = mismatches.len();
        mismatches.truncate(20);
        Err(format!("{n} mismatches:\n    {}", mismatches.join("\n    ")))
    }
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn every_expected_file_matches_mat_exactly() {
    let Some(corpus) = corpus_dir() else { return };
    let cases = cases(&corpus);
    assert!(cases.len() >= 29, "expected at least 29 expected/*.json with their dumps, found {}", cases.len());
    // Two workers: the machine has two cores.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(case) = cases.get(i) else { break };
                let r = run_case(case);
                results.lock().unwrap().push((case.name.clone(), r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut failed = Vec::new();
    for (name, r) in &results {
        match r {
            Ok(n) => eprintln!("parity {name}: {n} values, 0 mismatches"),
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failed.is_empty(),
        "MAT parity failed for {} of {} files:\n{}",
        failed.len(),
        results.len(),
        failed.join("\n")
    );
}

/// The CLI's `parity` output is what compare_expected.py reads: run the real script.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn cli_parity_output_passes_compare_expected_py() {
    let Some(corpus) = corpus_dir() else { return };
    if Command::new("python3").arg("--version").output().is_err() {
        panic!("python3 is needed to run compare_expected.py (install it; CI does)");
    }
    let tmp = support::TempDir::new("parity-cli");
    for (name, dir, keep) in [
        ("s07_wide_array_zgc", "dumps", false),
        ("ahat_test_dump_8e3b7d7", "android", false),
        ("s10_garbage_cycles_serial_all", "dumps", true),
    ] {
        let dump = corpus.join(dir).join(format!("{name}.hprof.gz"));
        let stem = if keep { format!("{name}.keep") } else { name.to_string() };
        let json = tmp.path().join(format!("{stem}.json"));
        let tsv = tmp.path().join(format!("{stem}.tsv"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_heapscope"));
        cmd.arg("parity").arg(&dump).arg("-o").arg(&json);
        if keep {
            cmd.arg("--keep-unreachable");
        } else {
            cmd.arg("--objects").arg(&tsv);
        }
        let st = cmd.status().unwrap();
        assert_eq!(st.code(), Some(0), "heapscope parity {name}");
        let mut py = Command::new("python3");
        py.arg(corpus.join("compare_expected.py")).arg(corpus.join("expected").join(format!("{stem}.json"))).arg(&json);
        if !keep {
            py.arg(corpus.join("expected").join(format!("{stem}.objects.tsv.gz"))).arg(&tsv);
        }
        let out = py.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "compare_expected.py {stem}:\n{text}");
        assert!(text.contains(" 0 mismatches"), "{text}");
    }
}

/// A test of the comparison itself: a one-byte difference anywhere is a mismatch.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn comparison_catches_a_one_byte_difference() {
    let Some(corpus) = corpus_dir() else { return };
    let case = cases(&corpus).into_iter().find(|c| c.name == "s02_static_map_leak_serial").expect("s02 in corpus");
    let src = support::open_dump(&case.dump);
    let session = support::session(src, &mat()).unwrap();
    let analysis = &session.analysis;
    let expected: Value = serde_json::from_slice(&std::fs::read(&case.expected).unwrap()).unwrap();
    let good = parity::json(analysis);
    let mut none = Vec::new();
    compare(&expected, &good, &mut none);
    assert!(none.is_empty(), "{none:?}");
    for path in [
        &["total_shallow_heap"][..],
        &["histogram", "0", "retained_heap_min"],
        &["top_dominators", "3", "retained"],
        &["leak_suspects", "suspects", "0", "retained"],
    ] {
        let mut bad = good.clone();
        let mut v = &mut bad;
        for k in path {
            v = match k.parse::<usize>() {
                Ok(i) => &mut v[i],
                Err(_) => &mut v[*k],
            };
        }
        *v = Value::from(v.as_u64().unwrap() + 1);
        let mut found = Vec::new();
        compare(&expected, &bad, &mut found);
        assert!(!found.is_empty(), "changing {path:?} by one byte went unnoticed");
    }
}

/// Steps allowed to Cooper–Harvey–Kennedy per dump below (a minute or two): it is
/// quadratic on some heaps. The corpus's 100,000-object garbage ring kept with
/// `--keep-unreachable` takes between 1.2·10¹⁰ and 4·10¹⁰ steps (about 24 s); a ring ten
/// times longer would take an hour, and is reported instead.
const CHK_STEP_LIMIT: u64 = 40_000_000_000;

/// Both dominator algorithms give the same immediate dominator for every object of every
/// corpus dump (with and without unreachable objects kept). A dump on which CHK would
/// exceed [`CHK_STEP_LIMIT`] is reported by name and fails the test if it is all of them.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn semi_nca_and_cooper_harvey_kennedy_agree_on_every_corpus_dump() {
    use heapscope::dominators::cooper_harvey_kennedy_bounded;
    let Some(corpus) = corpus_dir() else { return };
    let dumps = support::corpus_dumps(&corpus);
    let (mut compared, mut too_slow) = (0, Vec::new());
    for dump in &dumps {
        for keep in [false, true] {
            let options = Options { keep_unreachable: keep, ..Options::default() };
            let a = support::core(support::open_dump(dump), &options).unwrap();
            let Some(chk) = cooper_harvey_kennedy_bounded(&a.dominator_graph(), CHK_STEP_LIMIT).unwrap() else {
                too_slow.push(format!("{} (keep={keep})", dump.display()));
                continue;
            };
            assert_eq!(chk.len(), a.idom.len());
            if let Some(v) = (0..chk.len()).find(|&v| chk[v] != a.idom.get(v as u32)) {
                panic!(
                    "{} (keep={keep}): object 0x{:x}: Semi-NCA says {}, CHK says {}",
                    dump.display(),
                    a.address(v as u32),
                    a.idom.get(v as u32),
                    chk[v]
                );
            }
            assert!(a.kept_objects > 0, "{}: no object kept", dump.display());
            compared += 1;
        }
    }
    if !too_slow.is_empty() {
        eprintln!("NOT COMPARED (CHK over {CHK_STEP_LIMIT} steps): {}", too_slow.join(", "));
    }
    assert!(compared > too_slow.len(), "compared {compared}, too slow for CHK: {too_slow:?}");
}

/// `--dominators chk` goes through the whole analysis and gives MAT's numbers too.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn analysis_with_cooper_harvey_kennedy_matches_mat() {
    use heapscope::analysis::DominatorAlgorithm;
    let Some(corpus) = corpus_dir() else { return };
    for name in ["s03_threadlocal_leak_serial", "s06_linked_list_1m_serial"] {
        let dump = corpus.join("dumps").join(format!("{name}.hprof.gz"));
        let options = Options { dominators: DominatorAlgorithm::CooperHarveyKennedy, ..mat() };
        let s = support::session(support::open_dump(&dump), &options).unwrap();
        let actual = parity::json(&s.analysis);
        let expected: Value =
            serde_json::from_slice(&std::fs::read(corpus.join("expected").join(format!("{name}.json"))).unwrap())
                .unwrap();
        let mut out = Vec::new();
        let compared = compare(&expected, &actual, &mut out);
        assert!(compared > 10, "{name}: only {compared} values compared");
        assert!(out.is_empty(), "{name} with CHK: {} mismatches, first: {:?}", out.len(), out.first());
    }
}

/// `--core-only` (the benchmarks' switch that skips the strength walk and the waste
/// report's collection) leaves every MAT figure as it is: the whole expected file but
/// its duplicate strings (the waste report's, skipped by design) matches, per-object
/// retained sizes and dominators included.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn core_only_analysis_matches_mat() {
    let Some(corpus) = corpus_dir() else { return };
    for name in ["s02_static_map_leak_serial", "s04_references_serial_all", "s09_duplicate_strings_serial"] {
        let dump = corpus.join("dumps").join(format!("{name}.hprof.gz"));
        let options = Options { core_only: true, ..mat() };
        let s = support::session(support::open_dump(&dump), &options).unwrap();
        assert_eq!(s.features().waste.duplicate_strings.strings, 0, "{name}: the waste report was collected");
        let a = &s.analysis;
        let actual = parity::json(a);
        let mut expected: Value =
            serde_json::from_slice(&std::fs::read(corpus.join("expected").join(format!("{name}.json"))).unwrap())
                .unwrap();
        let had = expected.as_object_mut().unwrap().remove("duplicate_strings");
        assert!(had.is_some(), "{name}: the expected file has no duplicate strings to leave out");
        let mut out = Vec::new();
        let mut compared = compare(&expected, &actual, &mut out);
        let objects = corpus.join("expected").join(format!("{name}.objects.tsv.gz"));
        let mut tsv = Vec::new();
        parity::write_objects_tsv(a, &mut tsv).unwrap();
        compared += compare_objects(&objects, &String::from_utf8(tsv).unwrap(), &mut out);
        assert!(compared > 1000, "{name}: only {compared} values compared");
        assert!(out.is_empty(), "{name} core-only: {} mismatches, first: {:?}", out.len(), out.first());
    }
}
