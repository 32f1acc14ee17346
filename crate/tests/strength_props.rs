//! Property tests on random graphs with edge and root strengths:
//!
//! - the widest-path walk gives every node the strength of the definition: the firmest
//!   level `L` such that the node is reachable from the roots of strength ≤ `L` along
//!   edges of strength ≤ `L` (unreachable otherwise);
//! - the strength-aware tree equals the brute-force dominators of the edge set its rule
//!   selects, and holds every node the walk reached.

use heapscope::dominators::brute::brute_force;
use heapscope::dominators::{semi_nca, CsrGraph, UNREACHABLE};
use heapscope::strength::tree::{counts, root_counts, TreeGraph};
use heapscope::strength::owners::OWNER;
use heapscope::strength::walk::{bit, strengths, Edges};
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
}

impl G {
    fn new(s: &Spec) -> G {
        let mut adj = vec![Vec::new(); s.n];
        for &(u, t, es) in &s.edges {
            adj[u as usize].push((t, es));
        }
        G { n: s.n, roots: s.roots.clone(), adj, needs_owner: Vec::new() }
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
        let tree = TreeGraph { edges: &g, strengths: &s, owned: &[], garbage: &garbage };
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
            if bit(&reach.owned, v) {
                prop_assert!(needs[v as usize]);
                // Some owner reference into it lies on a path the walk could take.
                prop_assert!(spec.edges.iter().zip(&owning).any(|(e, &own)| own && e.1 == v && s[e.0 as usize].max(e.2) == s[v as usize]));
            }
        }
    }
}
