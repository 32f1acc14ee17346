//! What holds an object, on corpus dumps whose construction says (MANIFEST.md,
//! `corpus/gen/src`): s07's shared list is held by exactly its two owners; s02's and
//! s03's leaks are held along single chains; s06's million-deep list is traced without
//! recursion. Dominance is checked by its definition (removing the step cuts the object
//! off from the GC roots), referrers against a scan of every reference.

mod support;

use std::collections::HashSet;

use heapscope::analysis::{Analysis, Options};
use heapscope::holders::referrer_index::ReferrerIndex;
use heapscope::holders::Cache;
use heapscope::model::Reading;
use heapscope::query::holders::{classes_up, paths, ClassRow, DEFAULT_MAX_PATHS, WHOLE_HEAP_NAME};
use heapscope::render::holders::render_paths;
use heapscope::session::{Answer, Query, Session};

fn analysis_of(name: &str) -> Option<Analysis> {
    let corpus = support::corpus_dir()?;
    let path = corpus.join("dumps").join(format!("{name}.hprof.gz"));
    Some(support::core(support::open_dump(&path), &Options::default()).unwrap())
}

/// A session (the analysis with its features) over the corpus dump `name`.
fn session_of(name: &str) -> Option<Session> {
    let corpus = support::corpus_dir()?;
    let path = corpus.join("dumps").join(format!("{name}.hprof.gz"));
    Some(support::session(support::open_dump(&path), &Options::default()).unwrap())
}

fn addr(a: &Analysis, v: u32) -> String {
    format!("0x{:x}", a.address(v))
}

fn kept_of_class<'a>(a: &'a Analysis, class: &'a str) -> impl Iterator<Item = u32> + 'a {
    (0..a.object_count() as u32).filter(move |&v| a.is_kept(v) && a.class_name(a.class_of(v)) == class)
}

/// Whether `obj` is still reachable from the GC roots once `removed` is taken out.
fn reachable_without(a: &Analysis, obj: u32, removed: u32) -> bool {
    let mut seen = vec![false; a.object_count()];
    let mut stack: Vec<u32> = a.roots.iter().map(|&(r, _)| r).filter(|&r| r != removed).collect();
    for &r in &stack {
        seen[r as usize] = true;
    }
    while let Some(u) = stack.pop() {
        if u == obj {
            return true;
        }
        a.for_each_reference(u, |t| {
            if t != removed && !seen[t as usize] && a.is_kept(t) {
                seen[t as usize] = true;
                stack.push(t);
            }
        });
    }
    false
}

/// The trace is a real path from a GC root, and each step is marked exactly when
/// removing it cuts the object off.
fn check_trace(a: &mut Analysis, index: &ReferrerIndex, obj: u32) -> heapscope::query::holders::Paths {
    assert_eq!(a.reading, Reading::Mat);
    let p = paths(a, index, obj, DEFAULT_MAX_PATHS as usize).unwrap();
    assert_eq!(p.elided_steps, 0);
    assert!(!p.trace[0].gc_root.is_empty(), "the trace starts at a GC root");
    assert_eq!(p.trace.last().unwrap().object.address, addr(a, obj));
    let steps: Vec<u32> = p
        .trace
        .iter()
        .map(|s| a.object_at(u64::from_str_radix(&s.object.address[2..], 16).unwrap()).unwrap())
        .collect();
    for (i, w) in steps.windows(2).enumerate() {
        let mut hit = false;
        a.for_each_reference(w[0], |t| hit |= t == w[1]);
        assert!(hit, "step {i} does not reference step {}", i + 1);
        assert!(!p.trace[i].via.is_empty(), "step {i} names its reference");
    }
    for (i, &x) in steps.iter().enumerate() {
        let cut = x != obj && !reachable_without(a, obj, x);
        assert_eq!(p.trace[i].dominates, cut, "step {i} ({})", p.trace[i].object.class_name);
    }
    p
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s07_shared_list_is_held_two_independent_ways_by_its_owners() {
    let Some(mut session) = session_of("s07_wide_array_serial") else { return };
    let mut cache = Cache::default();
    let index = cache.index(&session.analysis, Reading::Mat).unwrap();
    let a = &mut session.analysis;
    let owners: Vec<u32> = kept_of_class(a, "corpus.S07WideArray$Owner").collect();
    assert_eq!(owners.len(), 2);
    let mut lists = HashSet::new();
    for &o in &owners {
        a.for_each_reference(o, |t| {
            if a.class_name(a.class_of(t)) == "java.util.ArrayList" {
                lists.insert(t);
            }
        });
    }
    assert_eq!(lists.len(), 1, "both owners hold one list");
    let list = *lists.iter().next().unwrap();
    let p = check_trace(a, index, list);
    assert!(p.trace.iter().all(|s| !s.dominates), "nothing in particular holds the shared list");
    assert_eq!(p.stretches.len(), 1);
    let s = &p.stretches[0];
    assert!(s.from.is_none(), "the stretch hangs off the GC roots");
    assert_eq!(s.to.address, addr(a, list));
    assert_eq!(s.paths.len(), 2, "{:#?}", s.paths);
    assert!(!s.has_more);
    let holders: HashSet<String> = s.paths.iter().map(|p| p[p.len() - 2].object.address.clone()).collect();
    assert_eq!(holders, owners.iter().map(|&o| addr(a, o)).collect::<HashSet<_>>());
    for p in &s.paths {
        assert_eq!(p[p.len() - 2].via, ["shared"]);
        assert!(!p[0].gc_root.is_empty(), "each way starts at a GC root");
    }
    // The CLI's text names both ways and that it is a top-level dominator.
    let text = render_paths(&p, "mat");
    assert!(text.contains("none: it is a top-level dominator") && text.contains("2 independent paths"), "{text}");
    // The query through the one entry point answers the same; max 0: no search.
    let list_addr = addr(a, list);
    let Answer::Paths(q) =
        session.answer(&Query::Paths { object: list_addr.clone(), tree: Some(Reading::Mat), max: 10 }).unwrap()
    else {
        panic!()
    };
    assert_eq!(q, p);
    let Answer::Paths(q) =
        session.answer(&Query::Paths { object: list_addr.clone(), tree: Some(Reading::Mat), max: 0 }).unwrap()
    else {
        panic!()
    };
    assert!(q.stretches[0].paths.is_empty() && q.stretches[0].has_more);
    let Answer::HeldHowElse(h) = session
        .answer(&Query::HeldHowElse { from: None, to: list_addr.clone(), tree: Some(Reading::Mat), max: 1 })
        .unwrap()
    else {
        panic!()
    };
    assert_eq!((h.paths.len(), h.has_more), (1, true));

    // Classes up: above the 500,000 Small is one Object[] (WIDE) holding all of them.
    let a = &session.analysis;
    let small = a.heap.index.classes.classes.iter().position(|c| c.name == "corpus.S07WideArray$Small").unwrap() as u32;
    let small_shallow: u64 = kept_of_class(a, "corpus.S07WideArray$Small").map(|v| a.shallow(v)).sum();
    let up = classes_up(a, Reading::Mat, &[small], 0, 100).unwrap();
    assert_eq!(up.rows.len(), 1);
    assert_eq!(
        (up.rows[0].class_name.as_str(), up.rows[0].objects, up.rows[0].weight_bytes),
        ("java.lang.Object[]", 1, small_shallow)
    );
    assert_eq!(small_shallow, 500_000 * a.shallow(kept_of_class(a, "corpus.S07WideArray$Small").next().unwrap()));
    // Above the shared list's ArrayList row: the whole heap dump holds it (and others).
    let by_class = classes_up(a, Reading::Mat, &[], 1, usize::MAX).unwrap();
    let al = by_class.rows.iter().find(|r| r.class_name == "java.util.ArrayList").unwrap();
    assert!(al.above.iter().any(|r| r.class_name == WHOLE_HEAP_NAME && r.class_address.is_none()));
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s02_cache_value_is_held_along_one_chain() {
    let Some(mut a) = analysis_of("s02_static_map_leak_serial") else { return };
    let mut cache = Cache::default();
    let index = cache.index(&a, Reading::Mat).unwrap();
    // A byte[100,000] value of CACHE.
    let value = kept_of_class(&a, "byte[]").find(|&v| (100_000..100_032).contains(&a.shallow(v))).unwrap();
    let p = check_trace(&mut a, index, value);
    let dominator = p.trace.iter().rev().find(|s| s.dominates).unwrap();
    assert_eq!(Some(dominator.object.address.clone()), a.immediate_dominator(value).flatten().map(|d| addr(&a, d)));
    let vias: Vec<&str> = p.trace.iter().flat_map(|s| s.via.iter().map(String::as_str)).collect();
    assert!(vias.windows(2).any(|w| w == ["CACHE", "table"]), "{vias:?}");
    assert_eq!(*vias.last().unwrap(), "value");
    // The HashMap and its table hold the value: both marked.
    for class in ["java.util.HashMap", "java.util.HashMap$Node[]", "java.util.HashMap$Node"] {
        assert!(p.trace.iter().any(|s| s.object.class_name == class && s.dominates), "{class} dominates the value");
    }
    for s in &p.stretches {
        assert!(!s.paths.is_empty());
    }
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s03_thread_local_value_is_held_by_its_thread() {
    let Some(mut a) = analysis_of("s03_threadlocal_leak_serial") else { return };
    let mut cache = Cache::default();
    let index = cache.index(&a, Reading::Mat).unwrap();
    let value = kept_of_class(&a, "byte[]").find(|&v| (6_291_456..6_291_488).contains(&a.shallow(v))).unwrap();
    let p = check_trace(&mut a, index, value);
    assert_eq!(p.trace[0].object.class_name, "java.lang.Thread");
    assert!(p.trace[0].dominates, "the thread holds it");
    let vias: Vec<&str> = p.trace.iter().flat_map(|s| s.via.iter().map(String::as_str)).collect();
    assert_eq!(vias.first(), Some(&"threadLocals"));
    assert_eq!(vias.last(), Some(&"value"));
    assert!(
        p.trace.iter().all(|s| s.dominates || s.object.address == addr(&a, value)),
        "one chain: every holder dominates"
    );
    assert!(p.stretches.is_empty());
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s06_million_deep_chain_is_traced_without_recursion() {
    let Some(mut a) = analysis_of("s06_linked_list_1m_serial") else { return };
    // The tail: the node that references no other node.
    let node_class = "corpus.S06LinkedList$Node";
    let tail = kept_of_class(&a, node_class)
        .find(|&v| {
            let mut next = false;
            a.for_each_reference(v, |t| next |= a.class_name(a.class_of(t)) == node_class);
            !next
        })
        .unwrap();
    let mut cache = Cache::default();
    let index = cache.index(&a, Reading::Mat).unwrap();
    let p = paths(&mut a, index, tail, 10).unwrap();
    // The nodes above the tail are one step, a run of 999,999 each holding the next by
    // `next` (a linked structure read as one): every node is on the trace, none elided.
    let nodes: u64 = p
        .trace
        .iter()
        .filter(|s| s.object.class_name == node_class)
        .map(|s| s.run.as_ref().map_or(1, |r| r.nodes))
        .sum();
    assert_eq!(nodes, 1_000_000, "every node is on the trace");
    assert_eq!(p.elided_steps, 0);
    let run = p.trace.iter().find_map(|s| s.run.as_ref()).expect("the list as one step");
    assert_eq!((run.nodes, run.field.as_str()), (999_999, "next"));
    assert!(p.trace.len() <= 5, "{}", p.trace.len());
    // Every node above the tail holds it: no stretch has a choice below HEAD.
    assert!(p.trace.iter().filter(|s| s.object.class_name == node_class).rev().skip(1).all(|s| s.dominates));
    assert!(p.stretches.iter().all(|s| s.to.class_name != node_class), "{:?}", p.stretches);
    assert_eq!(p.trace.last().unwrap().object.address, addr(&a, tail));
    // Classes up from the nodes: each node's dominator is the node before it (or the
    // class holding HEAD): 999,999 above on the node row.
    let node = a.heap.index.classes.classes.iter().position(|c| c.name == node_class).unwrap() as u32;
    let up = classes_up(&a, Reading::Mat, &[node], 0, 10).unwrap();
    let row = up.rows.iter().find(|r| r.class_name == node_class).unwrap();
    assert_eq!(row.objects, 999_999);
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn referrer_index_lists_what_a_scan_finds() {
    let Some(a) = analysis_of("s02_static_map_leak_serial") else { return };
    let n = a.object_count();
    let mut expected: Vec<Vec<u32>> = vec![Vec::new(); n];
    for v in 0..n as u32 {
        if a.is_kept(v) {
            a.for_each_reference(v, |t| {
                if expected[t as usize].last() != Some(&v) {
                    expected[t as usize].push(v);
                }
            });
        }
    }
    let mut cache = Cache::default();
    let index = cache.index(&a, Reading::Mat).unwrap();
    for t in 0..n as u32 {
        let mut got = Vec::new();
        index.for_each_referrer(t, |v| got.push(v));
        assert_eq!(got, expected[t as usize], "referrers of {t}");
    }
    assert_eq!(index.reference_count(), expected.iter().map(|e| e.len() as u64).sum::<u64>());
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn classes_up_rows_weigh_what_the_root_retains() {
    let Some(a) = analysis_of("s02_static_map_leak_serial") else { return };
    let up = classes_up(&a, Reading::Mat, &[], 2, usize::MAX).unwrap();
    let root = a.retained(a.tree.root());
    assert_eq!(up.rows.iter().map(|r| r.weight_bytes).sum::<u64>(), root);
    assert_eq!(root, a.used_heap);
    let mut stack: Vec<(&ClassRow, usize)> = up.rows.iter().map(|r| (r, 0)).collect();
    let mut checked = 0;
    while let Some((r, level)) = stack.pop() {
        if level < 2 && r.class_address.is_some() {
            assert_eq!(r.above.iter().map(|x| x.weight_bytes).sum::<u64>(), r.weight_bytes, "{}", r.class_name);
            checked += 1;
        }
        stack.extend(r.above.iter().map(|x| (x, level + 1)));
    }
    assert!(checked > 100);
    // byte[]: the HashMap$Node row above it holds the 300 values.
    let bytes = up.rows.iter().find(|r| r.class_name == "byte[]").unwrap();
    let nodes = bytes.above.iter().find(|r| r.class_name == "java.util.HashMap$Node").unwrap();
    assert!(nodes.objects >= 300 && nodes.weight_bytes >= 30_000_000);
}

fn repo_file(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn committed_paths_and_classes_up_schemas_equal_the_derived_ones() {
    assert!(
        repo_file("schema/paths.schema.json") == heapscope::query::holders::paths_json_schema(),
        "schema/paths.schema.json is stale: regenerate it with `cargo run --release -- schema --paths > schema/paths.schema.json`"
    );
    assert!(
        repo_file("schema/classes-up.schema.json") == heapscope::query::holders::classes_up_json_schema(),
        "schema/classes-up.schema.json is stale: regenerate it with `cargo run --release -- schema --classes-up > schema/classes-up.schema.json`"
    );
}

/// The CLI's JSON has exactly the shapes scripts read (the names).
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn cli_json_shapes() {
    let Some(corpus) = support::corpus_dir() else { return };
    let dump = corpus.join("dumps/s07_wide_array_serial.hprof.gz");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_heapscope")).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    let up = run(&["classes-up", dump.to_str().unwrap(), "--depth", "1", "--format", "json"]);
    assert_eq!(keys(&up), ["rows"]);
    let row = &up["rows"][0];
    for k in ["class_name", "objects", "weight_bytes", "above"] {
        assert!(row.get(k).is_some(), "{k} in {row}");
    }
    assert!(row["above"][0].get("weight_bytes").is_some());
    // The paths of a top-level object: the heaviest byte[]'s holder chain.
    let a = analysis_of("s07_wide_array_serial").unwrap();
    let owner_b = kept_of_class(&a, "corpus.S07WideArray$Owner").max_by_key(|&v| a.retained(v)).unwrap();
    let p = run(&["paths", dump.to_str().unwrap(), &addr(&a, owner_b), "--max", "3", "--format", "json"]);
    for k in ["object", "trace", "stretches"] {
        assert!(p.get(k).is_some(), "{k} in {p}");
    }
    let step = &p["trace"][0];
    for k in ["object", "via", "gc_root", "dominates"] {
        assert!(step.get(k).is_some(), "{k} in {step}");
    }
    for k in ["address", "class_name", "shallow_bytes", "retained_bytes"] {
        assert!(p["object"].get(k).is_some(), "{k} in {}", p["object"]);
    }
}
