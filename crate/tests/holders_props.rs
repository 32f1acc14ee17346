//! Property tests of what holds an object, on random graphs, against definitions computed
//! here by brute force: the referrer index is the references reversed; the leak trace is
//! a real path from a GC root whose marked steps are exactly the object's dominators
//! ("removing it cuts the object off"); every path of the independent-path search is a
//! real path between the stretch's ends, the paths share nothing but their ends, and when
//! there are two or more no single object inside the stretch separates its ends; the
//! reverse dominator tree's rows split their weight exactly among the rows above.

mod support;

use std::collections::{BTreeSet, HashSet};

use heapscope::dominators::{semi_nca, CsrGraph, Graph, UNREACHABLE, VIRTUAL_ROOT};
use heapscope::holders::classes_up::{Columns, Row, WHOLE_HEAP};
use heapscope::holders::referrer_index::ReferrerIndex;
use heapscope::holders::ways::{independent_paths, stretches, trace};
use heapscope::holders::TreeView;
use heapscope::model::Reading;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Spec {
    n: usize,
    roots: Vec<u32>,
    edges: Vec<(u32, u32)>,
}

fn arb_graph(max_n: usize, edges_per_node: usize) -> impl Strategy<Value = Spec> {
    (2..=max_n).prop_flat_map(move |n| {
        let node = 0..n as u32;
        (
            Just(n),
            prop::collection::vec(node.clone(), 1..=3),
            prop::collection::vec((node.clone(), node), 0..=edges_per_node * n),
        )
            .prop_map(|(n, roots, edges)| Spec { n, roots, edges })
    })
}

fn edge_set(s: &Spec) -> HashSet<(u32, u32)> {
    s.edges.iter().copied().collect()
}

/// Objects reachable from `starts` (or from the roots) without entering `removed`.
fn reach(s: &Spec, starts: &[u32], removed: &HashSet<u32>, skip_edge: Option<(u32, u32)>) -> Vec<bool> {
    let mut seen = vec![false; s.n];
    let mut stack: Vec<u32> = starts.iter().copied().filter(|v| !removed.contains(v)).collect();
    for &v in &stack {
        seen[v as usize] = true;
    }
    while let Some(u) = stack.pop() {
        for &(a, b) in &s.edges {
            if a == u && !seen[b as usize] && !removed.contains(&b) && skip_edge != Some((a, b)) {
                seen[b as usize] = true;
                stack.push(b);
            }
        }
    }
    seen
}

fn setup(s: &Spec) -> (CsrGraph, Vec<u32>) {
    let g = CsrGraph::from_edges(s.n, &s.roots, &s.edges);
    let idom = semi_nca(&g).unwrap();
    (g, idom)
}

fn build(g: &CsrGraph, idom: &Vec<u32>) -> ReferrerIndex {
    let view = TreeView { tree: Reading::Mat, graph: g.clone(), idom, avoid: |_: u32, _: u32| false };
    ReferrerIndex::build(&view).unwrap()
}

/// Checks the search's answer for the stretch (from, to).
fn check_ways(s: &Spec, index: &ReferrerIndex, from: Option<u32>, to: u32, max: usize) -> usize {
    let edges = edge_set(s);
    let w = independent_paths(index, from, to, max).unwrap();
    let mut inner: HashSet<u32> = HashSet::new();
    let mut direct = 0;
    for p in &w.paths {
        assert_eq!(*p.last().unwrap(), to, "{p:?} ends at the lower end");
        match from {
            Some(f) => assert_eq!(p[0], f, "{p:?} starts at the upper end"),
            None => assert!(s.roots.contains(&p[0]), "{p:?} starts at a GC root"),
        }
        for e in p.windows(2) {
            assert!(edges.contains(&(e[0], e[1])), "{p:?}: {} → {} is no reference", e[0], e[1]);
        }
        let interior: Vec<u32> = match from {
            Some(_) => p[1..p.len() - 1].to_vec(),
            None => p[..p.len() - 1].to_vec(),
        };
        if interior.is_empty() {
            direct += 1;
        }
        assert!(
            !interior.contains(&to) && from.map_or(true, |f| !interior.contains(&f)),
            "{p:?} passes through an end"
        );
        for v in interior {
            assert!(inner.insert(v), "{v} is inside two paths: {:?}", w.paths);
        }
    }
    assert!(direct <= 1, "the direct edge is one path");
    assert!(w.paths.len() <= max && (!w.has_more || w.paths.len() == max));
    if w.paths.len() >= 2 {
        // No single object strictly between the ends separates them.
        let start: Vec<u32> = match from {
            Some(f) => vec![f],
            None => s.roots.clone(),
        };
        for x in 0..s.n as u32 {
            if Some(x) == from || x == to {
                continue;
            }
            let removed: HashSet<u32> = [x].into_iter().collect();
            assert!(
                reach(s, &start, &removed, None)[to as usize],
                "{x} separates {from:?} from {to} yet {} paths were found",
                w.paths.len()
            );
        }
    }
    w.paths.len()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn referrer_index_is_the_references_reversed(s in arb_graph(40, 3)) {
        let (g, idom) = setup(&s);
        let index = build(&g, &idom);
        for t in 0..s.n as u32 {
            let mut got = Vec::new();
            index.for_each_referrer(t, |v| got.push(v));
            let expected: Vec<u32> = s.edges.iter().filter(|&&(a, b)| b == t && idom[a as usize] != UNREACHABLE).map(|&(a, _)| a).collect::<BTreeSet<_>>().into_iter().collect();
            prop_assert_eq!(got, expected);
            prop_assert_eq!(index.is_root(t), s.roots.contains(&t));
        }
    }

    #[test]
    fn trace_marks_and_ways(s in arb_graph(24, 3), max in 1usize..6) {
        let (g, idom) = setup(&s);
        let index = build(&g, &idom);
        let edges = edge_set(&s);
        for obj in 0..s.n as u32 {
            let t = trace(&index, |_, _| false, obj).unwrap();
            let Some(t) = t else {
                prop_assert_eq!(idom[obj as usize], UNREACHABLE);
                continue;
            };
            prop_assert!(idom[obj as usize] != UNREACHABLE);
            prop_assert!(s.roots.contains(&t[0]));
            prop_assert_eq!(*t.last().unwrap(), obj);
            for e in t.windows(2) {
                prop_assert!(edges.contains(&(e[0], e[1])));
            }
            // Marked = removing the step cuts the object off from the roots; the lowest
            // marked step is the immediate dominator.
            let m = support::check_trace_marks(&idom, &t, |x| !reach(&s, &s.roots, &[x].into_iter().collect(), None)[obj as usize]);
            for st in stretches(&m) {
                let from = st.from.map(|i| t[i]);
                let found = check_ways(&s, &index, from, t[st.to], max);
                prop_assert!(found >= 1, "a stretch of the trace itself has at least its own path");
            }
        }
    }

    #[test]
    fn ways_between_any_ends(s in arb_graph(20, 3), max in 1usize..5) {
        let (g, idom) = setup(&s);
        let index = build(&g, &idom);
        for to in 0..s.n as u32 {
            if idom[to as usize] == UNREACHABLE {
                continue;
            }
            check_ways(&s, &index, None, to, max);
            for from in 0..s.n as u32 {
                check_ways(&s, &index, Some(from), to, max);
            }
        }
    }

    #[test]
    fn reverse_tree_rows_split_their_weight(s in arb_graph(40, 3), classes in prop::collection::vec(0u32..5, 40), sizes in prop::collection::vec(1u64..100, 40), depth in 1usize..5) {
        let (_, idom) = setup(&s);
        let cols = Columns { idom: &idom, class_of: |v: u32| classes[v as usize], shallow: |v: u32| sizes[v as usize] };
        let rows = cols.class_rows(5).unwrap();
        // The tree's root retains every kept object.
        let root_retained: u64 = (0..s.n).filter(|&v| idom[v] != UNREACHABLE).map(|v| sizes[v]).sum();
        prop_assert_eq!(rows.iter().map(|r| r.weight).sum::<u64>(), root_retained);
        let (offsets, order) = cols.instances_by_class(5).unwrap();
        for r in &rows {
            let c = r.class as usize;
            let members = &order[offsets[c] as usize..offsets[c + 1] as usize];
            prop_assert_eq!(members.len() as u64, r.objects);
            let above = cols.rows_above(cols.class_entries(members).unwrap(), depth).unwrap();
            // Each row's weight is split among the rows above it, level by level.
            let mut stack: Vec<(&Row, &Vec<Row>, usize)> = vec![(r, &above, 1)];
            while let Some((row, up, level)) = stack.pop() {
                if row.class == WHOLE_HEAP || level > depth {
                    prop_assert!(up.is_empty());
                    continue;
                }
                prop_assert_eq!(up.iter().map(|x| x.weight).sum::<u64>(), row.weight);
                for x in up {
                    stack.push((x, &x.above, level + 1));
                }
            }
            // The first level above, by definition: instances grouped by their
            // immediate dominator's class, objects = distinct dominators.
            let mut expected: std::collections::BTreeMap<u32, (BTreeSet<u32>, u64)> = Default::default();
            for &v in members {
                let (key, d) = match idom[v as usize] {
                    VIRTUAL_ROOT => (WHOLE_HEAP, u32::MAX),
                    d => (classes[d as usize], d),
                };
                let e = expected.entry(key).or_default();
                e.0.insert(d);
                e.1 += sizes[v as usize];
            }
            let got: std::collections::BTreeMap<u32, (u64, u64)> = above.iter().map(|x| (x.class, (x.objects, x.weight))).collect();
            let want: std::collections::BTreeMap<u32, (u64, u64)> = expected.into_iter().map(|(k, (d, w))| (k, (d.len() as u64, w))).collect();
            prop_assert_eq!(got, want);
            prop_assert!(above.windows(2).all(|w| w[0].weight >= w[1].weight));
        }
    }
}

/// The entries of a row reached by a path, checked on a hand-made tree: root → a (class
/// 0) → b (class 1) → c, d (class 2); root → e (class 1) → f (class 2).
#[test]
fn entries_follow_a_column() {
    let s = Spec { n: 6, roots: vec![0, 4], edges: vec![(0, 1), (1, 2), (1, 3), (4, 5)] };
    let g = CsrGraph::from_edges(s.n, &s.roots, &s.edges);
    let idom = semi_nca(&g).unwrap();
    let classes = [0u32, 1, 2, 2, 1, 2];
    let cols = Columns { idom: &idom, class_of: |v: u32| classes[v as usize], shallow: |v: u32| 10 * (v as u64 + 1) };
    // Class 2's row: c (30), d (40), f (60); above it class 1: b holds c and d, e holds f.
    let up = cols.above(cols.entries(&[2]).unwrap()).unwrap();
    assert_eq!(up, vec![(1, vec![(1, 70), (4, 60)])]);
    // Above class 2 → class 1: b's column goes to a (class 0), e's to the whole heap dump.
    let rows = cols.rows_above(cols.entries(&[2, 1]).unwrap(), 2).unwrap();
    let summary: Vec<(u32, u64, u64, usize)> =
        rows.iter().map(|r| (r.class, r.objects, r.weight, r.above.len())).collect();
    assert_eq!(summary, vec![(0, 1, 70, 1), (WHOLE_HEAP, 1, 60, 0)]);
    assert_eq!(rows[0].above[0].class, WHOLE_HEAP);
    assert_eq!(rows[0].above[0].weight, 70);
    let _ = g.node_count();
}
