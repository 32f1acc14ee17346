//! Property tests on random graphs with edge and root strengths:
//!
//! - the widest-path walk gives every node the strength of the definition: the firmest
//!   level `L` such that the node is reachable from the roots of strength ≤ `L` along
//!   edges of strength ≤ `L` (unreachable otherwise);
//! - the strength-aware tree equals the brute-force dominators of the edge set its rule
//!   selects, and holds every node the walk reached;
//! - what holds an object, read in that tree, reads that same edge set: the referrer
//!   index is the selected edges reversed, the leak trace a path of selected edges from a
//!   root the tree counts, along a firmest path, whose marked steps are exactly those whose
//!   removal cuts the object off from those roots, and the independent paths real,
//!   internally disjoint paths of selected edges.

use heapscope::dominators::brute::brute_force;
mod support;

use std::collections::HashSet;

use heapscope::bits::BitSet;
use heapscope::dominators::{semi_nca, CsrGraph, UNREACHABLE};
use heapscope::holders::referrer_index::ReferrerIndex;
use heapscope::holders::ways::{independent_paths, stretches, trace};
use heapscope::holders::TreeView;
use heapscope::model::Reading;
use heapscope::rules::edges::OWNER;
use heapscope::strength::tree::{counts, root_counts, TreeGraph};
use heapscope::strength::walk::{strengths, Edges};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Spec {
    n: usize,
    roots: Vec<(u32, u8)>,
    edges: Vec<(u32, u32, u8)>,
}

struct G {
    n: usize,
    roots: Vec<(u32, u8)>,
    adj: Vec<Vec<(u32, u8)>>,
    /// Nodes that need an owner (owner rules on), else empty.
    needs_owner: Vec<bool>,
    /// Whether nodes whose edges are all strong and own nothing are offered to the walk
    /// as plain ([`Edges::for_each_plain_edge_of`]), as the heap's are.
    plain: bool,
}

impl G {
    fn new(s: &Spec) -> G {
        let mut adj = vec![Vec::new(); s.n];
        for &(u, t, es) in &s.edges {
            adj[u as usize].push((t, es));
        }
        G { n: s.n, roots: s.roots.clone(), adj, needs_owner: Vec::new(), plain: false }
    }
}

impl Edges for G {
    fn node_count(&self) -> usize {
        self.n
    }
    fn for_each_root<F: FnMut(u32, u8)>(&self, mut f: F) {
        self.roots.iter().for_each(|&(o, s)| f(o, s));
    }
    fn for_each_edge_of<F: FnMut(u32, u8)>(&self, v: u32, mut f: F) {
        self.adj[v as usize].iter().for_each(|&(t, s)| f(t, s));
    }
    fn for_each_plain_edge_of<F: FnMut(u32)>(&self, v: u32, mut f: F) -> bool {
        let edges = &self.adj[v as usize];
        if !self.plain || edges.iter().any(|&(_, flags)| flags != 0) {
            return false;
        }
        edges.iter().for_each(|&(t, _)| f(t));
        true
    }
    fn has_owner_rules(&self) -> bool {
        !self.needs_owner.is_empty()
    }
    fn needs_owner(&self, v: u32) -> bool {
        self.needs_owner[v as usize]
    }
}

/// Strength 0..=7 (STRONG..PHANTOM), weighted towards strong as in real heaps.
fn arb_strength() -> impl Strategy<Value = u8> {
    prop_oneof![3 => Just(0u8), 2 => 0u8..8]
}

fn arb_spec(max_n: usize) -> impl Strategy<Value = Spec> {
    (1..=max_n).prop_flat_map(|n| {
        let node = 0..n as u32;
        (
            Just(n),
            prop::collection::vec((node.clone(), arb_strength()), 0..=4),
            prop::collection::vec((node.clone(), node, arb_strength()), 0..=3 * n),
        )
            .prop_map(|(n, roots, edges)| Spec { n, roots, edges })
    })
}

/// The definition: the firmest level at which the node is reachable using only roots and
/// edges no weaker than that level.
fn brute_strengths(s: &Spec) -> Vec<u8> {
    let mut out = vec![8u8; s.n];
    for level in (0..8u8).rev() {
        let mut seen = vec![false; s.n];
        let mut todo: Vec<u32> = s.roots.iter().filter(|r| r.1 <= level).map(|r| r.0).collect();
        while let Some(v) = todo.pop() {
            if std::mem::replace(&mut seen[v as usize], true) {
                continue;
            }
            out[v as usize] = level;
            todo.extend(s.edges.iter().filter(|e| e.0 == v && e.2 <= level).map(|e| e.1));
        }
    }
    out
}

/// Owner rules on random graphs: some nodes need an owner, some edges own.
fn arb_owned(max_n: usize) -> impl Strategy<Value = (Spec, Vec<bool>, Vec<bool>)> {
    arb_spec(max_n).prop_flat_map(|spec| {
        let (n, m) = (spec.n, spec.edges.len());
        (Just(spec), prop::collection::vec(any::<bool>(), n), prop::collection::vec(any::<bool>(), m))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn strengths_are_the_max_min_definition(spec in arb_spec(40)) {
        let got = strengths(&G::new(&spec)).unwrap().strengths;
        prop_assert_eq!(got, brute_strengths(&spec));
    }

    #[test]
    fn strength_tree_is_the_dominator_tree_of_the_selected_edges(spec in arb_spec(30)) {
        let g = G::new(&spec);
        let s = strengths(&g).unwrap().strengths;
        // Garbage entry points: here every unreachable node (the forest's own choice is
        // checked on the corpus); edges from garbage into live nodes must not count.
        let garbage: Vec<u32> = (0..spec.n as u32).filter(|&v| s[v as usize] == 8).collect();
        let tree = TreeGraph { edges: &g, strengths: &s, owned: &BitSet::default(), garbage: &garbage };
        // The rule, from its definition: a strong reference (0) always counts, a weakening
        // one only into a node held no more firmly than it; nothing from garbage (8) into
        // a live node. The same for root edges.
        let rule = |es: u8, su: u8, st: u8| !(su == 8 && st != 8) && (es == 0 || st >= es);
        let mut selected = Vec::new();
        for &(u, t, es) in &spec.edges {
            let (su, st) = (s[u as usize], s[t as usize]);
            prop_assert_eq!(counts(es, su, st), rule(es, su, st));
            if rule(es, su, st) {
                selected.push((u, t));
            }
        }
        let mut roots = Vec::new();
        for &(o, rs) in &spec.roots {
            let keep = rs == 0 || s[o as usize] >= rs;
            prop_assert_eq!(root_counts(rs, s[o as usize]), keep);
            if keep {
                roots.push(o);
            }
        }
        roots.extend(&garbage);
        let plain = CsrGraph::from_edges(spec.n, &roots, &selected);
        let idom = semi_nca(&tree).unwrap();
        prop_assert_eq!(&idom, &brute_force(&plain));
        // Every node is in the tree.
        prop_assert!(idom.iter().all(|&d| d != UNREACHABLE));
        // A node held strongly is never dominated through a weakening edge: its dominator
        // chain only passes nodes held at least as firmly.
        for v in 0..spec.n {
            let d = idom[v];
            if (d as usize) < spec.n {
                prop_assert!(s[d as usize] <= s[v], "node {} ({}) under {} ({})", v, s[v], d, s[d as usize]);
            }
        }
    }

    /// Parking bystanders changes no strength, and the tree still holds every node; an
    /// owned node is entered only through owner references.
    #[test]
    fn owner_rules_keep_strengths_and_every_node((spec, needs, owning) in arb_owned(30)) {
        let mut g = G::new(&spec);
        g.adj = vec![Vec::new(); spec.n];
        for (e, &own) in spec.edges.iter().zip(&owning) {
            g.adj[e.0 as usize].push((e.1, e.2 | if own { OWNER } else { 0 }));
        }
        g.needs_owner = needs.clone();
        let reach = strengths(&g).unwrap();
        prop_assert_eq!(&reach.strengths, &brute_strengths(&spec));
        let s = &reach.strengths;
        let garbage: Vec<u32> = (0..spec.n as u32).filter(|&v| s[v as usize] == 8).collect();
        let tree = TreeGraph { edges: &g, strengths: s, owned: &reach.owned, garbage: &garbage };
        let idom = semi_nca(&tree).unwrap();
        prop_assert!(idom.iter().all(|&d| d != UNREACHABLE));
        for v in 0..spec.n as u32 {
            if reach.owned.contains(v) {
                prop_assert!(needs[v as usize]);
                // Some owner reference into it lies on a path the walk could take.
                prop_assert!(spec.edges.iter().zip(&owning).any(|(e, &own)| own && e.1 == v && s[e.0 as usize].max(e.2) == s[v as usize]));
            }
        }
    }

    /// The walk's loop for plain nodes (all edges strong, none an owner's) gives what
    /// the general loop gives: the same strengths (the definition's) and, with owner
    /// rules, the same owned marks, on graphs mixing plain and special nodes, with
    /// unreachable parts.
    #[test]
    fn plain_nodes_walk_as_the_general_loop((spec, needs, owning) in arb_owned(40), owners in any::<bool>()) {
        let mut general = G::new(&spec);
        general.adj = vec![Vec::new(); spec.n];
        for (e, &own) in spec.edges.iter().zip(&owning) {
            general.adj[e.0 as usize].push((e.1, e.2 | if own && owners { OWNER } else { 0 }));
        }
        if owners {
            general.needs_owner = needs;
        }
        let mut plain = G { plain: true, ..G::new(&spec) };
        plain.adj = general.adj.clone();
        plain.needs_owner = general.needs_owner.clone();
        // Some nodes do take the plain loop, and some do not.
        let plain_nodes = (0..spec.n as u32).filter(|&v| plain.for_each_plain_edge_of(v, |_| ())).count();
        prop_assume!(plain_nodes > 0 && plain_nodes < spec.n);
        let (a, b) = (strengths(&general).unwrap(), strengths(&plain).unwrap());
        prop_assert_eq!(&b.strengths, &brute_strengths(&spec));
        prop_assert_eq!(&a.strengths, &b.strengths);
        prop_assert_eq!(&a.owned, &b.owned);
    }

    /// The holder searches in the strength-aware tree, against the edge set its rule
    /// selects (computed here from the definition) and brute-force domination.
    #[test]
    fn holders_read_the_strength_tree_edge_set(spec in arb_spec(22), max in 1usize..5) {
        let g = G::new(&spec);
        let s = strengths(&g).unwrap().strengths;
        prop_assert_eq!(&s, &brute_strengths(&spec));
        let garbage: Vec<u32> = (0..spec.n as u32).filter(|&v| s[v as usize] == 8).collect();
        let idom = semi_nca(&TreeGraph { edges: &g, strengths: &s, owned: &BitSet::default(), garbage: &garbage }).unwrap();
        // The definition of the edge set and of the roots.
        let rule = |es: u8, su: u8, st: u8| !(su == 8 && st != 8) && (es == 0 || st >= es);
        let selected: Vec<(u32, u32, u8)> = spec.edges.iter().copied().filter(|&(u, t, es)| rule(es, s[u as usize], s[t as usize])).collect();
        let edge_set: HashSet<(u32, u32)> = selected.iter().map(|e| (e.0, e.1)).collect();
        let mut roots: Vec<u32> = spec.roots.iter().filter(|&&(o, rs)| rs == 0 || s[o as usize] >= rs).map(|r| r.0).collect();
        roots.extend(&garbage);
        let reach = |removed: Option<u32>, starts: &[u32]| {
            let mut seen = vec![false; spec.n];
            let mut todo: Vec<u32> = starts.iter().copied().filter(|&r| Some(r) != removed).collect();
            while let Some(v) = todo.pop() {
                if std::mem::replace(&mut seen[v as usize], true) {
                    continue;
                }
                todo.extend(selected.iter().filter(|e| e.0 == v && Some(e.1) != removed).map(|e| e.1));
            }
            seen
        };

        let view = TreeView { tree: Reading::Strength, graph: TreeGraph { edges: &g, strengths: &s, owned: &BitSet::default(), garbage: &garbage }, idom: &idom, avoid: |f: u32, t: u32| s[f as usize] > s[t as usize] };
        let index = ReferrerIndex::build(&view).unwrap();
        for t in 0..spec.n as u32 {
            let mut got = Vec::new();
            index.for_each_referrer(t, |v| got.push(v));
            let mut expected: Vec<u32> = selected.iter().filter(|e| e.1 == t).map(|e| e.0).collect();
            expected.sort_unstable();
            expected.dedup();
            prop_assert_eq!(got, expected, "referrers of {}", t);
            prop_assert_eq!(index.is_root(t), roots.contains(&t));
        }
        for obj in 0..spec.n as u32 {
            let t = trace(&index, view.avoid, obj).unwrap().expect("every node is in the tree");
            prop_assert!(roots.contains(&t[0]));
            prop_assert_eq!(*t.last().unwrap(), obj);
            for e in t.windows(2) {
                prop_assert!(edge_set.contains(&(e[0], e[1])), "{:?}: {} → {} is not in the edge set", t, e[0], e[1]);
            }
            // A firmest path: no step held less firmly than the object, no reference on it
            // weaker than the object is held (the root edge included).
            let so = s[obj as usize];
            prop_assert!(t.iter().all(|&x| s[x as usize] <= so), "{:?} with strengths {:?}", t, s);
            for e in t.windows(2) {
                prop_assert!(selected.iter().any(|&(u, v, es)| (u, v) == (e[0], e[1]) && es <= so));
            }
            if so < 8 {
                prop_assert!(spec.roots.iter().any(|&(r, rs)| r == t[0] && rs <= so));
            }
            let m = support::check_trace_marks(&idom, &t, |x| !reach(Some(x), &roots)[obj as usize]);
            for st in stretches(&m) {
                let from = st.from.map(|i| t[i]);
                let to = t[st.to];
                let w = independent_paths(&index, from, to, max).unwrap();
                prop_assert!(!w.paths.is_empty());
                let mut inner = HashSet::new();
                for p in &w.paths {
                    prop_assert_eq!(*p.last().unwrap(), to);
                    match from {
                        Some(f) => prop_assert_eq!(p[0], f),
                        None => prop_assert!(roots.contains(&p[0])),
                    }
                    for e in p.windows(2) {
                        prop_assert!(edge_set.contains(&(e[0], e[1])), "way {:?} leaves the edge set", p);
                    }
                    let interior = if from.is_some() { &p[1..p.len() - 1] } else { &p[..p.len() - 1] };
                    for &v in interior {
                        prop_assert!(inner.insert(v), "{} inside two ways", v);
                    }
                }
            }
        }
    }
}
