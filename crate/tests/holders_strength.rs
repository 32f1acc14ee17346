//! What holds an object, in the strength-aware tree, on corpus dumps whose construction
//! says how each object is held (`../shared/corpus/MANIFEST.md`): s04's payloads held
//! strongly by the list `STRONG` and through a weak, soft or phantom reference, or by the
//! reference alone; s10's garbage. Dominance is checked by its definition over the
//! strength-aware edge set, computed here from the references and their strengths:
//! removing the step cuts the object off from the roots the tree counts. The classes-up
//! root weighs MAT's kept plus discarded shallow bytes (`expected/`).

mod support;

use std::collections::HashSet;

use heapscope::analysis::{Analysis, Options, Reading, Sizes};
use heapscope::graph::NO_CLASS;
use heapscope::holders::Cache;
use heapscope::query::holders::{classes_up, paths, Paths};
use heapscope::query::referrers::referrers;
use heapscope::rules::edges::STRENGTH_MASK;
use heapscope::rules::roots::root_strength;
use heapscope::rules::strength::UNREACHABLE;
use heapscope::session::{Answer, Query, Session};

fn corpus() -> Option<std::path::PathBuf> {
    let dir = support::corpus_dir();
    if dir.is_none() && std::env::var_os("CI").is_some() {
        panic!("the shared corpus is missing, and CI needs it");
    }
    dir
}

fn open(name: &str, tree: Reading) -> Option<Analysis> {
    let path = corpus()?.join("dumps").join(format!("{name}.hprof.gz"));
    Some(support::core(support::open_dump(&path), &Options { tree, sizes: Sizes::Mat, ..Options::default() }).unwrap())
}

/// A session (the analysis with its features) over the corpus dump `name`, in `tree`.
fn open_session(name: &str, tree: Reading) -> Option<Session> {
    let path = corpus()?.join("dumps").join(format!("{name}.hprof.gz"));
    Some(
        support::session(support::open_dump(&path), &Options { tree, sizes: Sizes::Mat, ..Options::default() })
            .unwrap(),
    )
}

fn objects_of_class(a: &Analysis, name: &str) -> Vec<u32> {
    (0..a.object_count() as u32).filter(|&o| a.class_of(o) != NO_CLASS && a.class_name(a.class_of(o)) == name).collect()
}

fn the_object(a: &Analysis, class: &str, shallow: u64) -> u32 {
    let found: Vec<u32> = objects_of_class(a, class).into_iter().filter(|&o| a.shallow(o) == shallow).collect();
    assert_eq!(found.len(), 1, "one {class} of {shallow} bytes");
    found[0]
}

/// The definition of the strength-aware edge set (no owner rules on a HotSpot dump): a
/// strong reference counts; a weaker one only into an object held no more firmly than it;
/// nothing from garbage into a live object. Root edges by the same rule.
fn counts(a: &Analysis, from: u32, to: u32) -> bool {
    let s = |v: u32| a.strengths[v as usize];
    let edge = a.heap.edge_flags(from, to) & STRENGTH_MASK;
    !(s(from) == UNREACHABLE && s(to) != UNREACHABLE) && (edge == 0 || s(to) >= edge)
}

/// Whether `obj` is reachable from the live roots the strength-aware tree counts once
/// `removed` is taken out (for live objects: garbage never reaches them).
fn reachable_without(a: &Analysis, obj: u32, removed: u32) -> bool {
    let mut seen = vec![false; a.object_count()];
    let mut stack: Vec<u32> = Vec::new();
    for &(r, kinds) in &a.heap.roots.objects {
        let rs = root_strength(kinds);
        if r != removed && a.class_of(r) != NO_CLASS && (rs == 0 || a.strengths[r as usize] >= rs) && !seen[r as usize]
        {
            seen[r as usize] = true;
            stack.push(r);
        }
    }
    while let Some(u) = stack.pop() {
        if u == obj {
            return true;
        }
        a.for_each_reference(u, |t| {
            if t != removed && !seen[t as usize] && a.class_of(t) != NO_CLASS && counts(a, u, t) {
                seen[t as usize] = true;
                stack.push(t);
            }
        });
    }
    false
}

/// The trace's steps are references of the edge set, and exactly the steps whose removal
/// cuts the object off are marked.
fn check_marks(a: &Analysis, obj: u32, p: &Paths) {
    let steps: Vec<u32> = p
        .trace
        .iter()
        .map(|s| a.object_at(u64::from_str_radix(&s.object.address[2..], 16).unwrap()).unwrap())
        .collect();
    assert_eq!(*steps.last().unwrap(), obj);
    for w in steps.windows(2) {
        let mut refs = false;
        a.for_each_reference(w[0], |t| refs |= t == w[1]);
        assert!(
            refs && counts(a, w[0], w[1]),
            "0x{:x} → 0x{:x} is in the strength-aware edge set",
            a.address(w[0]),
            a.address(w[1])
        );
    }
    for (s, &x) in p.trace.iter().zip(&steps) {
        let cut = x != obj && !reachable_without(a, obj, x);
        assert_eq!(
            s.dominates,
            cut,
            "step {} ({}) of the trace of 0x{:x}",
            s.object.address,
            s.object.class_name,
            a.address(obj)
        );
    }
}

/// s04: a strongly held payload's trace and referrers leave out the weak, soft or phantom
/// reference that also points at it (MAT's keep it), and its lowest dominator is the
/// list's array; a payload held only by its reference hangs under that reference.
#[test]
fn s04_holders_read_the_strength_aware_edges() {
    let Some(mut a) = open("s04_references_serial_all", Reading::Strength) else { return };
    let Some(mat) = open("s04_references_serial_all", Reading::Mat) else { return };
    let (mut strength_cache, mut mat_cache) = (Cache::default(), Cache::default());
    let strength_index = strength_cache.index(&a, Reading::Strength).unwrap();
    let mat_index = mat_cache.index(&mat, Reading::Mat).unwrap();
    // byte[N] is 16 + N bytes here (compressed oops); its only referrer is its Payload.
    let payload = |a: &Analysis, n: u64| {
        let data = the_object(a, "byte[]", 16 + n);
        let mut holder = Vec::new();
        a.heap.for_each_edge(|v, t| {
            if t == data {
                holder.push(v)
            }
        });
        assert_eq!(holder.len(), 1);
        holder[0]
    };
    let cases = [
        (1_000_000, true, "java.lang.ref.WeakReference"),
        (1_100_000, false, "java.lang.ref.WeakReference"),
        (1_200_000, true, "java.lang.ref.SoftReference"),
        (1_300_000, false, "java.lang.ref.SoftReference"),
        (1_400_000, true, "java.lang.ref.PhantomReference"),
        (1_500_000, false, "java.lang.ref.PhantomReference"),
    ];
    for &(n, strongly_held, reference) in &cases {
        let p = payload(&a, n);
        let trace = paths(&mut a, strength_index, p, 10).unwrap();
        check_marks(&a, p, &trace);
        let classes: Vec<&str> = trace.trace.iter().map(|s| s.object.class_name.as_str()).collect();
        let lowest = trace.trace.iter().rev().find(|s| s.dominates).expect("a dominator on the trace");
        let held_by: HashSet<String> =
            referrers(&a, strength_index, p, 100).largest.into_iter().map(|r| r.class_name).collect();
        let pm = payload(&mat, n);
        let held_by_mat: HashSet<String> =
            referrers(&mat, mat_index, pm, 100).largest.into_iter().map(|r| r.class_name).collect();
        // MAT counts every reference: the list's array (when the list holds it) and the
        // reference.
        let mut in_mat = HashSet::from([reference.to_string()]);
        if strongly_held {
            in_mat.insert("java.lang.Object[]".to_string());
        }
        assert_eq!(held_by_mat, in_mat, "MAT: byte[{n}]'s payload");
        if strongly_held {
            assert!(!classes.contains(&reference), "byte[{n}]: {classes:?}");
            assert_eq!(lowest.object.class_name, "java.lang.Object[]", "byte[{n}]");
            assert_eq!(held_by, HashSet::from(["java.lang.Object[]".to_string()]), "byte[{n}]");
        } else {
            assert_eq!(classes[classes.len() - 2], reference, "byte[{n}]: {classes:?}");
            assert_eq!(lowest.object.class_name, reference, "byte[{n}]");
            assert_eq!(held_by, HashSet::from([reference.to_string()]), "byte[{n}]");
            assert!(
                trace.stretches.iter().all(|s| s.to.address != trace.object.address),
                "nothing to choose below the reference"
            );
        }
    }
    // Classes up: the root row weighs every object of the dump, garbage included: MAT's
    // kept plus discarded shallow bytes.
    let e: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(corpus().unwrap().join("expected/s04_references_serial_all.json")).unwrap(),
    )
    .unwrap();
    let total = e["total_shallow_heap"].as_u64().unwrap() + e["unreachable"]["shallow_heap"].as_u64().unwrap();
    let objects = e["total_objects"].as_u64().unwrap() + e["unreachable"]["objects"].as_u64().unwrap();
    let up = classes_up(&a, Reading::Strength, &[], 1, usize::MAX).unwrap();
    assert_eq!(up.rows.iter().map(|r| r.weight_bytes).sum::<u64>(), total);
    assert_eq!(up.rows.iter().map(|r| r.objects).sum::<u64>(), objects);
    for r in &up.rows {
        assert_eq!(r.above.iter().map(|x| x.weight_bytes).sum::<u64>(), r.weight_bytes, "{}", r.class_name);
    }
    let mat_up = classes_up(&mat, Reading::Mat, &[], 0, usize::MAX).unwrap();
    assert_eq!(mat_up.rows.iter().map(|r| r.weight_bytes).sum::<u64>(), e["total_shallow_heap"].as_u64().unwrap());
}

/// A query names the tree it is about; the session answers in the tree it reads and says
/// so when asked about the other one.
#[test]
fn queries_answer_in_the_tree_in_use() {
    let Some(mut a) = open_session("s04_references_serial_all", Reading::Mat) else { return };
    let weak_only = the_object(&a.analysis, "byte[]", 16 + 1_100_000);
    let object = format!("0x{:x}", a.analysis.address(weak_only));
    let ask = |a: &mut Session, tree| a.answer(&Query::Paths { object: object.clone(), tree, max: 1 });
    let Answer::Paths(in_mat) = ask(&mut a, None).unwrap() else { panic!() };
    assert!(ask(&mut a, Some(Reading::Strength)).is_err());
    a.set_reading(Reading::Strength).unwrap();
    let Answer::Paths(in_strength) = ask(&mut a, None).unwrap() else { panic!() };
    let Answer::Paths(named) = ask(&mut a, Some(Reading::Strength)).unwrap() else { panic!() };
    assert_eq!(in_strength, named);
    assert!(ask(&mut a, Some(Reading::Mat)).is_err());
    // The weak-only payload's byte[]: MAT's tree gives it to the reference through its
    // payload as well, but the retained sizes on the steps are each tree's own.
    assert_eq!(in_mat.object.address, in_strength.object.address);
    a.set_reading(Reading::Mat).unwrap();
    let Answer::Paths(again) = ask(&mut a, Some(Reading::Mat)).unwrap() else { panic!() };
    assert_eq!(again, in_mat);
}

/// s10: a garbage object's trace starts at its garbage entry point, marked as the
/// "Unreachable" root it is in this tree.
#[test]
fn s10_garbage_is_traced_from_its_entry_point() {
    let Some(mut a) = open("s10_garbage_cycles_serial_all", Reading::Strength) else { return };
    let selfref = objects_of_class(&a, "corpus.S10GarbageCycles$SelfRef")[0];
    let data = the_object(&a, "byte[]", 300_016);
    let mut cache = Cache::default();
    let index = cache.index(&a, Reading::Strength).unwrap();
    let p = paths(&mut a, index, data, 10).unwrap();
    let classes: Vec<&str> = p.trace.iter().map(|s| s.object.class_name.as_str()).collect();
    assert_eq!(classes, ["corpus.S10GarbageCycles$SelfRef", "byte[]"]);
    assert_eq!(p.trace[0].object.address, format!("0x{:x}", a.address(selfref)));
    assert_eq!(p.trace[0].gc_root, ["Unreachable"]);
    assert!(p.trace[0].dominates);
}

/// The command line: `paths --tree strength` and `classes-up --tree strength` in JSON.
#[test]
fn cli_paths_and_classes_up_in_the_strength_tree() {
    let Some(corpus) = corpus() else { return };
    let dump = corpus.join("dumps/s04_references_serial_all.hprof.gz");
    let a = open("s04_references_serial_all", Reading::Mat).unwrap();
    let weak_only_data = the_object(&a, "byte[]", 16 + 1_100_000);
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_heapscope")).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let path = dump.to_str().unwrap();
    let p =
        run(&["paths", path, &format!("0x{:x}", a.address(weak_only_data)), "--tree", "strength", "--format", "json"]);
    let trace = p["trace"].as_array().unwrap();
    let n = trace.len();
    assert_eq!(trace[n - 3]["object"]["class_name"], "java.lang.ref.WeakReference");
    assert_eq!(trace[n - 3]["dominates"], true);
    assert_eq!(trace[n - 3]["via"], serde_json::json!(["referent"]));
    let e: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("expected/s04_references_serial_all.json")).unwrap())
            .unwrap();
    let up = run(&["classes-up", path, "--tree", "strength", "--format", "json", "--depth", "0", "--sizes", "mat"]);
    let sum: u64 = up["rows"].as_array().unwrap().iter().map(|r| r["weight_bytes"].as_u64().unwrap()).sum();
    assert_eq!(sum, e["total_shallow_heap"].as_u64().unwrap() + e["unreachable"]["shallow_heap"].as_u64().unwrap());
}

/// Switching a session's tree gives the report `analyze` writes in that tree (the page's
/// export after the switch is `analyze --tree strength`'s), and back: threads and
/// duplicate strings included.
#[test]
fn switching_trees_gives_the_report_of_that_tree() {
    use heapscope::report::to_json;
    let Some(mut mat) = open_session("s04_references_serial_all", Reading::Mat) else { return };
    let mut strength = open_session("s04_references_serial_all", Reading::Strength).unwrap();
    let in_mat = to_json(mat.report().unwrap());
    let in_strength = to_json(strength.report().unwrap());
    assert_ne!(in_mat, in_strength);
    mat.set_reading(Reading::Strength).unwrap();
    assert!(to_json(mat.report().unwrap()) == in_strength, "MAT switched to the strength-aware tree");
    strength.set_reading(Reading::Mat).unwrap();
    // Back in MAT's tree with the strength-aware one computed, each thread also carries
    // its retained size in that tree: the strength-aware analysis's own figure.
    let mut expected = open_session("s04_references_serial_all", Reading::Mat).unwrap().report().unwrap().clone();
    let strength_report =
        open_session("s04_references_serial_all", Reading::Strength).unwrap().report().unwrap().clone();
    assert!(!expected.threads.is_empty());
    for t in &mut expected.threads {
        let other =
            strength_report.threads.iter().find(|s| s.address == t.address).expect("the same threads in both trees");
        t.strength_retained_bytes = Some(other.retained_bytes);
    }
    assert!(to_json(strength.report().unwrap()) == to_json(&expected), "the strength-aware tree switched to MAT's");
}
