//! Properties of the leak traces, against definitions computed here:
//! - on random heaps (instances with four reference fields, some of them weak references
//!   whose `referent` the trace must not follow, a static class holding a few of them,
//!   some objects watched by LeakCanary): an object is reported exactly when a strong path
//!   reaches it without passing through another watched object, and its trace is a
//!   shortest such path (a brute-force breadth-first search without weak edges), each step
//!   a field of the object before it that holds the next;
//! - on random verdict sequences: after propagation every step above the last "no" is
//!   "no", every step after the first "yes" below it is "yes", and the suspect references
//!   are exactly those from the last "no" (or the root) up to the first "yes".

#[path = "support/scene.rs"]
mod scene;
mod support;

use std::collections::VecDeque;

use heapscope::analysis::{analyze, NoProgress, Options};
use heapscope::model::leaks::{LeakStep, Leaking, ObjectKind};
use heapscope::source::MemorySource;
use proptest::prelude::*;
use scene::{Scene, LONG, OBJECT, V};

const FIELDS: [&str; 4] = ["f0", "f1", "f2", "f3"];

#[derive(Debug, Clone)]
struct Heap {
    /// Per node: its four fields (None: null), and whether it is a weak reference whose
    /// `referent` is the node's fifth entry.
    fields: Vec<[Option<usize>; 4]>,
    weak: Vec<Option<usize>>,
    /// Nodes the static class holds.
    statics: Vec<usize>,
    watched: Vec<usize>,
}

fn heap() -> impl Strategy<Value = Heap> {
    (2usize..24).prop_flat_map(|n| {
        let field = proptest::option::weighted(0.45, 0..n);
        (
            proptest::collection::vec([field.clone(), field.clone(), field.clone(), field.clone()], n),
            proptest::collection::vec(proptest::option::weighted(0.25, 0..n), n),
            proptest::collection::vec(0..n, 1..4),
            proptest::collection::vec(0..n, 1..4),
        )
            .prop_map(|(fields, weak, statics, watched)| Heap { fields, weak, statics, watched })
    })
}

/// Writes the heap; returns the dump and each node's id.
fn build(g: &Heap) -> (Vec<u8>, Vec<u64>) {
    let mut s = Scene::new();
    s.class(
        "com.example.Node",
        Some("java.lang.Object"),
        &[("f0", OBJECT), ("f1", OBJECT), ("f2", OBJECT), ("f3", OBJECT)],
    );
    s.class(
        "com.example.WeakNode",
        Some("java.lang.ref.WeakReference"),
        &[("f0", OBJECT), ("f1", OBJECT), ("f2", OBJECT), ("f3", OBJECT)],
    );
    s.class("com.example.Statics", Some("java.lang.Object"), &[]);
    s.class(
        "leakcanary.KeyedWeakReference",
        Some("java.lang.ref.WeakReference"),
        &[("key", OBJECT), ("description", OBJECT), ("watchUptimeMillis", LONG), ("retainedUptimeMillis", LONG)],
    );
    let n = g.fields.len();
    let ids: Vec<u64> = (0..n)
        .map(|k| s.instance(if g.weak[k].is_some() { "com.example.WeakNode" } else { "com.example.Node" }, &[]))
        .collect();
    for k in 0..n {
        for (f, t) in FIELDS.iter().zip(g.fields[k]) {
            if let Some(t) = t {
                s.set(ids[k], f, V::Ref(ids[t]));
            }
        }
        if let Some(r) = g.weak[k] {
            s.set(ids[k], "referent", V::Ref(ids[r]));
        }
    }
    for (i, &t) in g.statics.iter().enumerate() {
        s.static_field("com.example.Statics", &format!("s{i}"), V::Ref(ids[t]));
    }
    let mut watched = g.watched.clone();
    watched.sort_unstable();
    watched.dedup();
    for (i, &w) in watched.iter().enumerate() {
        let key = s.string(&format!("key-{i}"));
        s.instance("leakcanary.KeyedWeakReference", &[("key", V::Ref(key)), ("referent", V::Ref(ids[w]))]);
    }
    (s.bytes(), ids)
}

/// The definition: breadth-first from the static class over strong fields (never a weak
/// reference's referent), watched objects not expanded. Distances in references.
fn distances(g: &Heap) -> Vec<Option<usize>> {
    let n = g.fields.len();
    let mut dist = vec![None; n];
    let mut queue = VecDeque::new();
    for &t in &g.statics {
        if dist[t].is_none() {
            dist[t] = Some(1);
            queue.push_back(t);
        }
    }
    while let Some(u) = queue.pop_front() {
        if g.watched.contains(&u) {
            continue;
        }
        for t in g.fields[u].iter().flatten().copied() {
            if dist[t].is_none() {
                dist[t] = Some(dist[u].unwrap() + 1);
                queue.push_back(t);
            }
        }
    }
    dist
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn traces_are_shortest_strong_paths(g in heap()) {
        let (bytes, ids) = build(&g);
        let mut a = analyze(Box::new(MemorySource::new(bytes)), &Options::default(), &mut NoProgress, &mut ()).unwrap();
        let l = heapscope::leaks::find(&mut a).unwrap();
        let dist = distances(&g);
        let node_of = |address: &str| ids.iter().position(|&id| format!("0x{id:x}") == address);
        let mut reported: Vec<usize> = l.leaks.iter().flat_map(|x| x.instances.iter().map(|i| node_of(&i.object).unwrap())).collect();
        reported.sort_unstable();
        let mut expected: Vec<usize> = g.watched.iter().copied().filter(|&w| dist[w].is_some()).collect();
        expected.sort_unstable();
        expected.dedup();
        prop_assert_eq!(&reported, &expected);
        for leak in &l.leaks {
            for i in &leak.instances {
                let target = node_of(&i.object).unwrap();
                let t = &i.trace;
                // The static class, then nodes: one reference per step.
                prop_assert_eq!(t[0].object_kind, ObjectKind::Class);
                prop_assert_eq!(t[0].class_name.as_str(), "com.example.Statics");
                prop_assert_eq!(t.len() - 1, dist[target].unwrap(), "a shortest strong path");
                let first = node_of(&t[1].object).unwrap();
                let r0 = t[0].reference.as_ref().unwrap();
                let k: usize = r0.name.strip_prefix('s').unwrap().parse().unwrap();
                prop_assert_eq!(g.statics[k], first);
                for w in t[1..].windows(2) {
                    let (from, to) = (node_of(&w[0].object).unwrap(), node_of(&w[1].object).unwrap());
                    let r = w[0].reference.as_ref().unwrap();
                    let f = FIELDS.iter().position(|&f| f == r.name).expect("a strong field, never the referent");
                    prop_assert_eq!(g.fields[from][f], Some(to));
                    prop_assert!(!g.watched.contains(&from), "no watched object inside a trace");
                }
                prop_assert_eq!(t.last().unwrap().leaking, Leaking::Yes);
                check_suspects(t);
            }
        }
    }

    #[test]
    fn propagation_and_suspects(statuses in proptest::collection::vec(0u8..3, 1..24)) {
        let mut steps: Vec<LeakStep> = statuses.iter().map(|&s| step(match s { 0 => Leaking::No, 1 => Leaking::Unknown, _ => Leaking::Yes })).collect();
        let last = steps.len() - 1;
        steps[last].leaking = Leaking::Yes;
        let original: Vec<Leaking> = steps.iter().map(|s| s.leaking).collect();
        heapscope::leaks::trace::propagate(&mut steps);
        heapscope::leaks::trace::mark_suspects(&mut steps);
        let last_no = (0..last).rev().find(|&i| original[i] == Leaking::No);
        let first_yes = (last_no.map_or(0, |n| n + 1)..=last).find(|&i| original[i] == Leaking::Yes).unwrap();
        for i in 0..=last {
            let want = if last_no.is_some_and(|n| i <= n) { Leaking::No } else if i >= first_yes { Leaking::Yes } else { original[i] };
            prop_assert_eq!(steps[i].leaking, want, "step {}", i);
        }
        check_suspects(&steps);
    }
}

fn step(leaking: Leaking) -> LeakStep {
    LeakStep {
        object: "0x1".into(),
        class_name: "a.B".into(),
        object_kind: ObjectKind::Instance,
        root_type: None,
        reference: None,
        leaking,
        reasons: Vec::new(),
        labels: Vec::new(),
        suspect: false,
        elided_after: None,
    }
}

/// The suspects of a trace whose verdicts are propagated: exactly the references from
/// the last "no" (the root when there is none) up to, not including, the first "yes".
fn check_suspects(t: &[LeakStep]) {
    let last = t.len() - 1;
    let lo = (0..last).rev().find(|&i| t[i].leaking == Leaking::No).unwrap_or(0);
    let first_yes = (lo..=last).find(|&i| t[i].leaking == Leaking::Yes).unwrap();
    for (i, s) in t.iter().enumerate() {
        assert_eq!(
            s.suspect,
            lo <= i && i < first_yes,
            "reference {i} of {:?}",
            t.iter().map(|s| s.leaking).collect::<Vec<_>>()
        );
    }
}
