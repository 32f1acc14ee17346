//! Reachability strengths and the strength-aware dominator tree on the corpus, checked
//! against the manifest's description of each dump (`../shared/corpus/MANIFEST.md`, the
//! scenario sources in `gen/src/corpus/`) and Eclipse MAT's numbers (`expected/`).

mod support;

use std::path::{Path, PathBuf};

use heapscope::analysis::{Analysis, Options, Reading, Sizes};
use heapscope::dominators::{UNREACHABLE, VIRTUAL_ROOT};
use heapscope::graph::NO_CLASS;
use heapscope::rules::strength::Strength;

/// The corpus, or None when absent; in CI (`CI` set) a missing corpus fails the test.
fn corpus() -> Option<PathBuf> {
    let dir = support::corpus_dir();
    if dir.is_none() && std::env::var_os("CI").is_some() {
        panic!("the shared corpus is missing, and CI needs it");
    }
    dir
}

fn analysis(path: &Path) -> Analysis {
    support::core(support::open_dump(path), &Options { sizes: Sizes::Mat, ..Options::default() }).unwrap()
}

fn open(dir: &str, name: &str) -> Option<Analysis> {
    Some(analysis(&corpus()?.join(dir).join(format!("{name}.hprof.gz"))))
}

fn objects_of_class(a: &Analysis, name: &str) -> Vec<u32> {
    (0..a.object_count() as u32).filter(|&o| a.class_of(o) != NO_CLASS && a.class_name(a.class_of(o)) == name).collect()
}

/// Every object with a reference to `obj`.
fn referrers(a: &Analysis, obj: u32) -> Vec<u32> {
    let mut out = Vec::new();
    a.heap.for_each_edge(|v, t| {
        if t == obj && out.last() != Some(&v) {
            out.push(v);
        }
    });
    out
}

/// The one object of the dump with this class and shallow size.
fn the_object(a: &Analysis, class: &str, shallow: u64) -> u32 {
    let found: Vec<u32> = objects_of_class(a, class).into_iter().filter(|&o| a.shallow(o) == shallow).collect();
    assert_eq!(found.len(), 1, "one {class} of {shallow} bytes");
    found[0]
}

fn dominator(a: &Analysis, obj: u32) -> Option<u32> {
    match a.idom.get(obj) {
        UNREACHABLE => panic!("0x{:x} is not in the tree", a.address(obj)),
        VIRTUAL_ROOT => None,
        d => Some(d),
    }
}

fn dominator_class(a: &Analysis, obj: u32) -> String {
    dominator(a, obj).map_or("<root>".into(), |d| a.class_name(a.class_of(d)).to_string())
}

/// The dumps of the corpus: (file, name of MAT's expected JSON).
fn corpus_dumps(corpus: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in ["dumps", "android"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            if let Some(stem) = name.strip_suffix(".hprof.gz") {
                out.push((f.clone(), corpus.join("expected").join(format!("{stem}.json"))));
            }
        }
    }
    out
}

/// On every dump the nine rows add up to MAT's kept plus discarded objects and bytes,
/// the unreachable row is exactly what MAT discards, and the strength-aware tree holds
/// every object once, its root retaining the whole dump, its garbage forest exactly the
/// unreachable bytes.
#[test]
fn partition_adds_up_and_the_strength_tree_holds_every_object_on_every_dump() {
    let Some(corpus) = corpus() else { return };
    let dumps = corpus_dumps(&corpus);
    assert!(dumps.len() >= 23, "the corpus has its 23 dumps");
    for (dump, expected) in dumps {
        let name = dump.display().to_string();
        let e: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&expected).unwrap()).unwrap();
        let (kept, kept_bytes) = (e["total_objects"].as_u64().unwrap(), e["total_shallow_heap"].as_u64().unwrap());
        let (gone, gone_bytes) =
            (e["unreachable"]["objects"].as_u64().unwrap(), e["unreachable"]["shallow_heap"].as_u64().unwrap());
        let mut a = analysis(&dump);
        let rows = a.reachability();
        // Read from the objects not held strongly: the same rows as a pass over every object.
        assert_eq!(rows, heapscope::strength::walk::partition(&a.heap, &a.strengths), "{name}: rows");
        let names: Vec<&str> = rows.iter().map(|r| r.strength.name()).collect();
        assert_eq!(
            names,
            ["strong", "cache", "thread_local", "local", "soft", "weak", "finalizer", "phantom", "unreachable"]
        );
        assert_eq!(rows.iter().map(|r| r.objects).sum::<u64>(), kept + gone, "{name}: objects");
        assert_eq!(rows.iter().map(|r| r.shallow_bytes).sum::<u64>(), kept_bytes + gone_bytes, "{name}: bytes");
        assert_eq!((rows[8].objects, rows[8].shallow_bytes), (gone, gone_bytes), "{name}: unreachable");
        // The report carries the same rows, MAT's tree by default.
        let report = support::core_report(&a);
        assert_eq!(report.tree, Reading::Mat);
        assert_eq!(report.reachability.len(), 9);
        assert_eq!(report.reachability[8].objects, gone);

        a.set_reading(Reading::Strength).unwrap();
        assert_eq!(a.reachability(), rows, "{name}: the partition does not depend on the tree");
        let n = a.object_count() as u32;
        let with_class = (0..n).filter(|&o| a.class_of(o) != NO_CLASS).count() as u64;
        assert_eq!(with_class, kept + gone, "{name}");
        for o in 0..n {
            assert_eq!(
                a.idom.get(o) != UNREACHABLE,
                a.class_of(o) != NO_CLASS,
                "{name}: 0x{:x} in the tree",
                a.address(o)
            );
        }
        assert_eq!(a.retained(a.tree.root()), kept_bytes + gone_bytes, "{name}: the root retains the whole dump");
        assert_eq!((a.kept_objects, a.used_heap), (kept + gone, kept_bytes + gone_bytes), "{name}");
        let garbage: u64 =
            a.top_level().iter().filter(|&&o| a.strength(o) == Strength::Unreachable).map(|&o| a.retained(o)).sum();
        assert_eq!(garbage, gone_bytes, "{name}: the garbage forest retains the garbage");
        let report = support::core_report(&a);
        assert_eq!(report.tree, Reading::Strength);
        assert!(!report.overview.unreachable.discarded);
        // And back: MAT's numbers are untouched.
        a.set_reading(Reading::Mat).unwrap();
        assert_eq!((a.kept_objects, a.used_heap), (kept, kept_bytes), "{name}: MAT's tree again");
    }
}

/// s04 (live=false): the three *-only payloads are held only by their reference, the
/// three *-but-strongly-held ones by `STRONG` (an ArrayList) as well.
#[test]
fn s04_payloads_have_their_reference_strength() {
    let Some(mut a) = open("dumps", "s04_references_serial_all") else { return };
    // byte[N] is 16 + N bytes here (compressed oops), each N distinct.
    let data = |a: &Analysis, n: u64| the_object(a, "byte[]", 16 + n);
    let payload = |a: &Analysis, n: u64| {
        let r = referrers(a, data(a, n));
        assert_eq!(r.len(), 1, "only its Payload holds byte[{n}]");
        assert_eq!(a.class_name(a.class_of(r[0])), "corpus.S04References$Payload");
        r[0]
    };
    let cases = [
        (1_000_000, Strength::Strong, "java.lang.ref.WeakReference"),
        (1_100_000, Strength::Weak, "java.lang.ref.WeakReference"),
        (1_200_000, Strength::Strong, "java.lang.ref.SoftReference"),
        (1_300_000, Strength::Soft, "java.lang.ref.SoftReference"),
        (1_400_000, Strength::Strong, "java.lang.ref.PhantomReference"),
        (1_500_000, Strength::Phantom, "java.lang.ref.PhantomReference"),
    ];
    for &(n, strength, reference) in &cases {
        let (p, d) = (payload(&a, n), data(&a, n));
        assert_eq!((a.strength(p), a.strength(d)), (strength, strength), "payload of byte[{n}]");
        let holders: Vec<String> = referrers(&a, p).iter().map(|&r| a.class_name(a.class_of(r)).to_string()).collect();
        assert!(
            holders.iter().any(|h| h == reference),
            "byte[{n}]'s payload is referenced by a {reference}: {holders:?}"
        );
    }
    // MAT: the strongly held ones are reached through the reference and through the list,
    // two statics of class S04References, whose class object dominates them; the *-only
    // ones belong to their reference (MAT follows referents).
    for &(n, strength, reference) in &cases {
        let p = payload(&a, n);
        let expect = if strength == Strength::Strong { "java.lang.Class" } else { reference };
        assert_eq!(dominator_class(&a, p), expect, "MAT's dominator of byte[{n}]'s payload");
    }
    // WeakHashMap: the 10 `weak-i` keys are weakly held, the 10 `strong-i` keys are in
    // STRONG; all 20 values are held by their entries.
    let keys = objects_of_class(&a, "corpus.S04References$Key");
    assert_eq!(keys.len(), 20);
    assert_eq!(keys.iter().filter(|&&k| a.strength(k) == Strength::Weak).count(), 10);
    assert_eq!(keys.iter().filter(|&&k| a.strength(k) == Strength::Strong).count(), 10);
    for n in [10_000u64, 20_000] {
        let values: Vec<u32> = objects_of_class(&a, "byte[]").into_iter().filter(|&o| a.shallow(o) == 16 + n).collect();
        assert_eq!(values.len(), 10);
        assert!(values.iter().all(|&v| a.strength(v) == Strength::Strong), "WeakHashMap values byte[{n}]");
    }

    // The strength-aware tree: a strongly held payload is dominated by the list's array,
    // not the root; a weakly held one by the reference that alone holds it.
    a.set_reading(Reading::Strength).unwrap();
    for &(n, strength, reference) in &cases {
        let p = payload(&a, n);
        let d = dominator(&a, p).expect("not under the root");
        if strength == Strength::Strong {
            assert_eq!(a.class_name(a.class_of(d)), "java.lang.Object[]", "byte[{n}]");
            assert!(referrers(&a, d).iter().any(|&l| a.class_name(a.class_of(l)) == "java.util.ArrayList"));
        } else {
            assert_eq!(a.class_name(a.class_of(d)), reference, "byte[{n}]");
        }
        assert_eq!(dominator(&a, data(&a, n)), Some(p), "byte[{n}] under its payload");
    }
}

/// s05: the 1,000 queued and 500 unfinalized objects are held only by the finalizer
/// machinery; the Blocker only by the Finalizer thread's stack.
#[test]
fn s05_finalizable_objects_are_finalizer_reachable() {
    let Some(mut a) = open("dumps", "s05_finalizer_serial_all") else { return };
    let pending = objects_of_class(&a, "corpus.S05Finalizer$PendingFinalizable");
    let unfinalized = objects_of_class(&a, "corpus.S05Finalizer$Unfinalized");
    assert_eq!((pending.len(), unfinalized.len()), (1000, 500));
    for &o in pending.iter().chain(&unfinalized) {
        assert_eq!(a.strength(o), Strength::Finalizer, "0x{:x}", a.address(o));
    }
    let blocker = objects_of_class(&a, "corpus.S05Finalizer$Blocker");
    assert_eq!(blocker.len(), 1);
    assert_eq!(a.strength(blocker[0]), Strength::Local);
    // In the strength-aware tree each is dominated by its own Finalizer (the reference
    // that alone holds it), in MAT's by something else than the one Finalizer too.
    a.set_reading(Reading::Strength).unwrap();
    for &o in pending.iter().chain(&unfinalized) {
        assert_eq!(dominator_class(&a, o), "java.lang.ref.Finalizer");
    }
}

/// s03: both pool threads hold their payload only through `Thread.threadLocals →
/// ThreadLocalMap.table → Entry.value` (a static `ThreadLocal` is the map's key, which
/// does not reference the value; the other entry's key is cleared), so both payloads are
/// THREAD_LOCAL, and each thread still retains its own in the strength-aware tree.
#[test]
fn s03_thread_local_values() {
    let Some(mut a) = open("dumps", "s03_threadlocal_leak_serial") else { return };
    let big = the_object(&a, "byte[]", 16 + 6_291_456);
    let bufs: Vec<u32> = objects_of_class(&a, "byte[]").into_iter().filter(|&o| a.shallow(o) == 16 + 524_288).collect();
    assert_eq!(bufs.len(), 16);
    assert_eq!(a.strength(big), Strength::ThreadLocal);
    assert!(bufs.iter().all(|&b| a.strength(b) == Strength::ThreadLocal));
    a.set_reading(Reading::Strength).unwrap();
    assert_eq!(dominator_class(&a, big), "java.lang.ThreadLocal$ThreadLocalMap$Entry");
    let holder = dominator(&a, bufs[0]).unwrap();
    assert_eq!(a.class_name(a.class_of(holder)), "byte[][]");
    assert_eq!(dominator_class(&a, holder), "java.lang.ThreadLocal$ThreadLocalMap$Entry");
    // Up the tree from each payload: a thread (the pool thread holding it).
    for obj in [big, holder] {
        let mut at = obj;
        while let Some(d) = dominator(&a, at) {
            at = d;
            if a.class_name(a.class_of(at)) == "java.lang.Thread" {
                break;
            }
        }
        assert_eq!(a.class_name(a.class_of(at)), "java.lang.Thread");
        assert!(a.retained(at) > a.retained(obj));
    }
}

/// s10: the garbage is UNREACHABLE, exactly as much of it as MAT discards; the
/// 100,000-node ring, which has no entry point, is one tree of the garbage forest.
#[test]
fn s10_garbage_cycles_are_in_the_garbage_forest() {
    let Some(corpus) = corpus() else { return };
    for name in ["s10_garbage_cycles_serial_all", "s10_garbage_cycles_g1_all"] {
        let mut a = analysis(&corpus.join("dumps").join(format!("{name}.hprof.gz")));
        let nodes = objects_of_class(&a, "corpus.S10GarbageCycles$DNode");
        assert_eq!(nodes.len(), 101_000);
        let dead: Vec<u32> = nodes.iter().copied().filter(|&o| a.strength(o) == Strength::Unreachable).collect();
        assert_eq!(dead.len(), 100_000, "{name}: the garbage ring");
        assert!(nodes.iter().all(|&o| a.strength(o) == Strength::Unreachable || a.strength(o) == Strength::Strong));
        for class in ["corpus.S10GarbageCycles$Pair", "corpus.S10GarbageCycles$SelfRef"] {
            assert!(objects_of_class(&a, class).iter().all(|&o| a.strength(o) == Strength::Unreachable), "{class}");
        }
        a.set_reading(Reading::Strength).unwrap();
        // One ring node was chosen as an entry point; it dominates the rest of the ring.
        let entries: Vec<u32> = a.top_level().iter().copied().filter(|o| dead.binary_search(o).is_ok()).collect();
        assert_eq!(entries.len(), 1, "{name}: one entry point for the ring");
        let ring_bytes: u64 = dead.iter().map(|&o| a.shallow(o)).sum();
        assert!(a.retained(entries[0]) >= ring_bytes, "{name}: the entry retains the ring");
        assert!(dead.iter().all(|&o| a.idom.get(o) != UNREACHABLE));
        let selfref = objects_of_class(&a, "corpus.S10GarbageCycles$SelfRef")[0];
        assert_eq!(dominator(&a, selfref), None, "{name}: SelfRef is its own entry point");
        assert!(a.retained(selfref) >= 300_016);
    }
}

/// ART dumps: every root kind reaches its objects, and the `$classOverhead` /
/// `$staticOverhead` arrays ART hangs off class objects are held by their class (a static
/// reference), not garbage; in the strength-aware tree their class dominates them.
#[test]
fn android_class_overhead_arrays_belong_to_their_class() {
    let Some(corpus) = corpus() else { return };
    for name in ["ahat_test_dump_8e3b7d7", "leakcanary_leak_service_binder", "ahat_test_dump_base_8e3b7d7"] {
        let mut a = analysis(&corpus.join("android").join(format!("{name}.hprof.gz")));
        for &(o, kinds) in &a.heap.roots.objects {
            if a.class_of(o) != NO_CLASS {
                assert_ne!(a.strength(o), Strength::Unreachable, "{name}: root {kinds:?}");
            }
        }
        let mut overhead = Vec::new();
        for (c, info) in a.heap.index.classes.classes.iter().enumerate() {
            for s in &info.statics {
                let field = a.heap.index.strings.name(s.name_id);
                if (field == "$classOverhead" || field == "$staticOverhead") && s.value != 0 {
                    if let Some(arr) = a.object_at(s.value) {
                        overhead.push((a.class_object(c as u32).unwrap(), arr));
                    }
                }
            }
        }
        assert!(overhead.len() > 100, "{name}: ART's overhead arrays ({})", overhead.len());
        for &(class, arr) in &overhead {
            assert_eq!(a.class_name(a.class_of(arr)), "byte[]");
            assert_ne!(a.strength(arr), Strength::Unreachable, "{name}");
            assert!(a.strength(arr) <= a.strength(class).max(Strength::Strong));
        }
        a.set_reading(Reading::Strength).unwrap();
        for &(class, arr) in &overhead {
            assert_eq!(dominator(&a, arr), Some(class), "{name}: 0x{:x}", a.address(arr));
        }
    }
}

/// The command line: `analyze --tree strength` writes the strength-aware report (JSON,
/// Markdown, HTML with the reachability rows), and `inspect --tree strength` addresses an
/// unreachable object (MAT's reading discards it) and prints its strength and dominator.
#[test]
fn cli_tree_flag_and_inspect_strength() {
    let Some(corpus) = corpus() else { return };
    let dump = corpus.join("dumps/s10_garbage_cycles_serial_all.hprof.gz");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_heapscope")).args(args).output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let path = dump.to_str().unwrap();
    let (code, json) = run(&["analyze", path, "--format", "json", "--tree", "strength"]);
    assert_eq!(code, Some(0));
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["tree"], "strength");
    let e: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(corpus.join("expected/s10_garbage_cycles_serial_all.json")).unwrap(),
    )
    .unwrap();
    let unreachable = &r["reachability"][8];
    assert_eq!(unreachable["strength"], "unreachable");
    assert_eq!(unreachable["objects"], e["unreachable"]["objects"]);
    // Every object is in the strength-aware tree.
    let total = e["total_objects"].as_u64().unwrap() + e["unreachable"]["objects"].as_u64().unwrap();
    assert_eq!(r["overview"]["objects"].as_u64(), Some(total));
    let (_, md) = run(&["analyze", path, "--format", "md"]);
    assert!(md.contains("### Reachability") && md.contains("Eclipse MAT's dominator tree (--tree mat)"), "{md}");
    for name in ["Strong", "Cache", "Thread local", "Local", "Soft", "Weak", "Finalizer", "Phantom", "Unreachable"] {
        assert!(md.lines().any(|l| l.starts_with(&format!("| {name} |"))), "Markdown row {name}");
    }
    let (_, html) = run(&["analyze", path, "--format", "html", "--tree", "strength"]);
    assert!(html.contains("Reachability") && html.contains("strength-aware dominator tree (--tree strength)"));

    // The SelfRef object: garbage, so absent from MAT's reading.
    let a = analysis(&dump);
    let selfref = objects_of_class(&a, "corpus.S10GarbageCycles$SelfRef")[0];
    let address = format!("0x{:x}", a.address(selfref));
    let (code, _) = run(&["inspect", path, &address]);
    assert_eq!(code, Some(1), "MAT's reading discards it");
    let (code, out) = run(&["inspect", path, &address, "--tree", "strength"]);
    assert_eq!(code, Some(0));
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((j["strength"].as_str(), j["tree"].as_str()), (Some("unreachable"), Some("strength")));
    assert!(j["object"]["dominator"].is_null(), "an entry point of the garbage forest hangs under the root");
    assert!(j["object"]["object"]["retained_bytes"].as_u64().unwrap() >= 300_016);
    // A node of the live ring (LIVE_HEAD, a static): strong, in MAT's tree.
    let live = objects_of_class(&a, "corpus.S10GarbageCycles$DNode").into_iter().find(|&o| a.is_kept(o)).unwrap();
    let (_, out) = run(&["inspect", path, &format!("0x{:x}", a.address(live))]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((j["strength"].as_str(), j["tree"].as_str()), (Some("strong"), Some("mat")));
}
