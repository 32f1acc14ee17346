//! The thread overview against Eclipse MAT's (`threads` in `../shared/corpus/expected/*.json`):
//! every thread object, its retained and shallow size, daemon flag, priority, context class
//! loader, name, whether it has a stack, every frame's text and every frame's locals.
//!
//! Android dumps went through hprof-conv before MAT saw them and MAT shows ART's compressed
//! strings as byte pairs: there our names (the characters the program holds) are turned
//! into MAT's rendering by its rules (`support::mat_strings`) to be compared.

mod support;

use heapscope::analysis::{Options, Sizes};
use serde_json::Value;
use support::mat_strings;

fn check(what: String, e: &Value, a: &Value, out: &mut Vec<String>) {
    if e != a {
        out.push(format!("{what}: expected {e}, got {a}"));
    }
}

#[test]
fn every_thread_matches_mat() {
    let Some(corpus) = support::corpus_dir() else { return };
    let cases = support::expected_cases(&corpus);
    support::check_every_dump_expected(&corpus, "threads");
    assert!(cases.len() >= 20, "expected files with dumps: {}", cases.len());
    let mut failures = Vec::new();
    let (mut threads, mut frames, mut locals, mut names) = (0, 0, 0, 0);
    for (expected, dump, keep, android) in &cases {
        let exp: Value = serde_json::from_slice(&std::fs::read(expected).unwrap()).unwrap();
        let options = Options { keep_unreachable: *keep, sizes: Sizes::Mat, ..Options::default() };
        let mut s = support::session(support::open_dump(dump), &options).expect("analysis");
        let act = serde_json::to_value(&s.features().threads).unwrap();
        let exp_threads = exp["threads"]["threads"].as_array().expect("threads in expected");
        let act_threads = act.as_array().unwrap();
        let name = expected.file_name().unwrap().to_string_lossy().to_string();
        let mut out = Vec::new();
        check("thread count".into(), &exp_threads.len().into(), &act_threads.len().into(), &mut out);
        for (i, e) in exp_threads.iter().enumerate() {
            threads += 1;
            let addr = e["object"].as_str().unwrap();
            let Some(t) = act_threads.iter().find(|t| t["address"] == addr) else {
                out.push(format!("thread {addr} missing"));
                continue;
            };
            check(
                format!("thread {addr} position"),
                &i.into(),
                &act_threads.iter().position(|x| x["address"] == addr).into(),
                &mut out,
            );
            let c = &e["columns"];
            let pairs = [
                ("class", &e["class"], &t["class_name"]),
                ("shallow", &e["shallow"], &t["shallow_bytes"]),
                ("retained", &e["retained"], &t["retained_bytes"]),
                ("daemon", &e["daemon"], &t["daemon"]),
                ("priority", &c["Priority"], &t["priority"]),
                ("context class loader", &c["Context Class Loader"], &t["context_class_loader"]),
                ("has stack", &e["has_stack"], &t["has_stack"]),
            ];
            for (f, ev, av) in pairs {
                check(format!("thread {addr} {f}"), ev, av, &mut out);
            }
            let ours = match (t["name"].as_str(), *android) {
                (Some(n), true) => {
                    let string = mat_strings::thread_name_string(&mut s.analysis, addr).expect("a name String");
                    let bytes = mat_strings::value_is_bytes(&mut s.analysis, &string);
                    let units: Vec<u16> = n.encode_utf16().collect();
                    mat_strings::art(&units, bytes, usize::MAX).map_or(Value::Null, Value::from)
                }
                _ => t["name"].clone(),
            };
            check(format!("thread {addr} name"), &e["name"], &ours, &mut out);
            names += 1;
            let ef = e["frames"].as_array().unwrap();
            let af = t["frames"].as_array().unwrap();
            check(format!("thread {addr} frames"), &ef.len().into(), &af.len().into(), &mut out);
            for (k, (ef, af)) in ef.iter().zip(af).enumerate() {
                frames += 1;
                check(format!("thread {addr} frame {k}"), &ef["text"], &af["frame"], &mut out);
                let al: Vec<Value> = af["locals"].as_array().unwrap().iter().map(|l| l["address"].clone()).collect();
                locals += al.len();
                check(format!("thread {addr} frame {k} locals"), &ef["locals"], &Value::from(al), &mut out);
            }
        }
        eprintln!(
            "{name}: {} threads, names compared{}",
            exp_threads.len(),
            if *android { " as MAT renders ours" } else { "" }
        );
        if !out.is_empty() {
            failures.push(format!(
                "{name}: {} mismatches:\n    {}",
                out.len(),
                out[..out.len().min(15)].join("\n    ")
            ));
        }
    }
    eprintln!(
        "threads: {threads} threads ({names} names), {frames} frames, {locals} locals compared with MAT on {} files",
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `heapscope threads DUMP` prints every thread MAT lists, by name, with its frames.
#[test]
fn cli_prints_every_thread_and_frame() {
    let Some(corpus) = support::corpus_dir() else { return };
    let dump = corpus.join("dumps/s03_threadlocal_leak_serial.hprof.gz");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_heapscope"))
        .arg("threads")
        .arg(&dump)
        .args(["--sizes", "mat"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let exp: Value =
        serde_json::from_slice(&std::fs::read(corpus.join("expected/s03_threadlocal_leak_serial.json")).unwrap())
            .unwrap();
    let mut last = 0;
    for t in exp["threads"]["threads"].as_array().unwrap() {
        // Threads in MAT's order, each followed by its frames in order.
        let head = format!(
            "\"{}\"  {} @ {}",
            t["name"].as_str().unwrap(),
            t["class"].as_str().unwrap(),
            t["object"].as_str().unwrap()
        );
        let at = text[last..].find(&head).unwrap_or_else(|| panic!("{head} missing after byte {last}:\n{text}")) + last;
        last = at;
        if !t["has_stack"].as_bool().unwrap() {
            assert!(text[at..].lines().nth(1).unwrap().contains("no stack recorded"));
        } else if t["frames"].as_array().unwrap().is_empty() {
            // A stack recorded without frames (MAT lists none) says so too.
            assert!(text[at..].lines().nth(1).unwrap().contains("the stack recorded has no frames"), "{head}");
        }
        for f in t["frames"].as_array().unwrap() {
            let line = format!("    {}\n", f["text"].as_str().unwrap());
            last = text[last..].find(&line).unwrap_or_else(|| panic!("{line} missing")) + last;
        }
    }
}

/// Once the strength-aware tree exists beside MAT's (the page switched trees and back),
/// each thread carries its retained size in that tree too, equal to what an analysis
/// run in that reading gives; MAT's stays the thread's `retained_bytes`.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn threads_carry_the_strength_tree_retained_size() {
    use heapscope::analysis::Reading;
    let Some(corpus) = support::corpus_dir() else { return };
    let path = corpus.join("dumps/s03_threadlocal_leak_serial.hprof.gz");
    let mut s = support::session(support::open_dump(&path), &Options::default()).expect("analysis");
    let mat: Vec<(String, u64)> = s.features().threads.iter().map(|t| (t.address.clone(), t.retained_bytes)).collect();
    assert!(s.features().threads.iter().all(|t| t.strength_retained_bytes.is_none()), "no strength tree computed yet");
    let strength =
        support::session(support::open_dump(&path), &Options { tree: Reading::Strength, ..Options::default() })
            .expect("analysis");
    let strength = &strength.analysis;
    s.set_reading(Reading::Strength).unwrap();
    s.set_reading(Reading::Mat).unwrap();
    assert_eq!(s.features().threads.len(), mat.len());
    for t in &s.features().threads {
        let id = u64::from_str_radix(t.address.trim_start_matches("0x"), 16).unwrap();
        let obj = strength.object_at(id).expect("thread in the other analysis");
        assert_eq!(t.strength_retained_bytes, Some(strength.retained(obj)), "thread {}", t.address);
        assert_eq!(Some(&(t.address.clone(), t.retained_bytes)), mat.iter().find(|m| m.0 == t.address));
    }
}
