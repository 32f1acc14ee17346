//! Property tests: on random graphs, Semi-NCA, Cooper–Harvey–Kennedy and the brute-force
//! definition give the same `idom` array, and it does not depend on edge order or node
//! numbering.

use heapscope::dominators::brute::brute_force;
use heapscope::dominators::{cooper_harvey_kennedy, semi_nca, semi_nca_tuned, CsrGraph, UNREACHABLE, VIRTUAL_ROOT};
use proptest::prelude::*;

/// A graph as generated: node count, roots, edges.
#[derive(Debug, Clone)]
struct Spec {
    n: usize,
    roots: Vec<u32>,
    edges: Vec<(u32, u32)>,
}

impl Spec {
    fn graph(&self) -> CsrGraph {
        CsrGraph::from_edges(self.n, &self.roots, &self.edges)
    }
}

/// Small graphs with arbitrary edges: cycles, self-loops, duplicates, unreachable parts,
/// zero to four roots (with repeats), roots pointed at.
fn arb_random(max_n: usize, edges_per_node: usize) -> impl Strategy<Value = Spec> {
    (1..=max_n).prop_flat_map(move |n| {
        let node = 0..n as u32;
        (
            Just(n),
            prop::collection::vec(node.clone(), 0..=4),
            prop::collection::vec((node.clone(), node), 0..=edges_per_node * n),
        )
            .prop_map(|(n, roots, edges)| Spec { n, roots, edges })
    })
}

/// Heap-like graphs: a few long chains (linked lists) hanging off the roots, random
/// extra edges (back, cross and forward), and a shared node many chain nodes point at.
fn arb_chains(max_n: usize) -> impl Strategy<Value = Spec> {
    (8..=max_n).prop_flat_map(|n| {
        let node = 0..n as u32;
        (
            Just(n),
            prop::collection::vec(node.clone(), 1..=3),
            // Chain breaks: the chain 0 → 1 → … is cut after these nodes.
            prop::collection::vec(node.clone(), 0..=4),
            prop::collection::vec((node.clone(), node.clone()), 0..=n / 2),
            node,
            1..=5u32,
        )
            .prop_map(|(n, roots, cuts, extra, shared, stride)| {
                let mut edges = Vec::new();
                for i in 0..n as u32 - 1 {
                    if !cuts.contains(&i) {
                        edges.push((i, i + 1));
                    }
                    if i % stride == 0 {
                        edges.push((i, shared));
                    }
                }
                // Each piece of the chain starts at a root or is entered by an extra edge.
                edges.extend(extra);
                Spec { n, roots, edges }
            })
    })
}

/// Heap-like graphs made of ownership trees: most nodes have one owner (a random
/// earlier node, so the trees hang off the roots), a few shared nodes are referenced
/// from many places (like class objects and shared values), and a few random edges
/// add back, cross and forward references, cycles and unreachable pieces. This is the
/// shape the reduction to non-private nodes (and its hubs) is for.
fn arb_trees(max_n: usize) -> impl Strategy<Value = Spec> {
    (12..=max_n).prop_flat_map(|n| {
        let node = 0..n as u32;
        (
            Just(n),
            prop::collection::vec(node.clone(), 1..=3),
            // Owner of each node i (taken modulo i; none for the first few, or when 0).
            prop::collection::vec(0..=n as u32, n),
            // Shared nodes, and for each node the shared node it points at (if any).
            prop::collection::vec(node.clone(), 1..=4),
            prop::collection::vec(0..=6u32, n),
            prop::collection::vec((node.clone(), node), 0..=n / 6),
        )
            .prop_map(|(n, roots, owner, shared, pick, extra)| {
                let mut edges = Vec::new();
                for i in 1..n as u32 {
                    let o = owner[i as usize];
                    if o != 0 {
                        edges.push((o % i, i));
                    }
                }
                for (i, &k) in pick.iter().enumerate() {
                    if let Some(&s) = shared.get(k as usize) {
                        edges.push((i as u32, s));
                    }
                }
                edges.extend(extra);
                Spec { n, roots, edges }
            })
    })
}

/// Heap-like graphs with hubs: `blocks` GC roots (nodes `0..blocks`) each owning a tree
/// (node `i` owned by an earlier node of block `i % blocks`), hub nodes that many tree
/// nodes point at, either from every block (the hub then hangs off the virtual root,
/// like the class object of `char[]`) or from its own block only (it stays under a node
/// of that block), hubs pointing back into the trees (so lifting one moves what it
/// reaches), and a few random edges.
fn arb_hubs(max_n: usize) -> impl Strategy<Value = Spec> {
    (1..=4usize, 24..=max_n).prop_flat_map(|(blocks, n)| {
        let node = 0..n as u32;
        (
            Just((blocks, n)),
            prop::collection::vec(any::<u32>(), n),
            // Hubs (node, shared by every block?), and per node the hub it points at.
            prop::collection::vec((blocks as u32..n as u32, any::<bool>()), 1..=3),
            prop::collection::vec(0..=4usize, n),
            prop::collection::vec((0..3usize, node.clone()), 0..=6),
            prop::collection::vec((node.clone(), node), 0..=n / 12),
        )
            .prop_map(|((blocks, n), owner, hubs, pick, hub_edges, extra)| {
                let b = blocks as u32;
                let mut edges = Vec::new();
                for i in b..n as u32 {
                    edges.push((i - b * (1 + owner[i as usize] % (i / b)), i));
                }
                for (i, &k) in pick.iter().enumerate() {
                    if let Some(&(h, shared)) = hubs.get(k) {
                        if i as u32 != h && (shared || i as u32 % b == h % b) {
                            edges.push((i as u32, h));
                        }
                    }
                }
                for (k, t) in hub_edges {
                    if let Some(&(h, _)) = hubs.get(k) {
                        edges.push((h, t));
                    }
                }
                edges.extend(extra);
                Spec { n, roots: (0..b).collect(), edges }
            })
    })
}

/// Checks that everything agrees with the brute-force definition, Semi-NCA also with
/// low hub thresholds (hubs then lose their bet often) and without hubs.
fn check_agree(spec: &Spec) -> Result<(), TestCaseError> {
    let g = spec.graph();
    let expected = brute_force(&g);
    prop_assert_eq!(&semi_nca(&g).unwrap(), &expected, "semi_nca vs brute force");
    for hubs in [0, 2, 3, 5] {
        prop_assert_eq!(
            &semi_nca_tuned(&g, hubs).unwrap().0,
            &expected,
            "semi_nca with hub threshold {} vs brute force",
            hubs
        );
    }
    prop_assert_eq!(&cooper_harvey_kennedy(&g).unwrap(), &expected, "CHK vs brute force");
    Ok(())
}

/// Checks that shuffling the edge order and renumbering the nodes changes nothing but
/// the numbering of the result.
fn check_invariance(spec: &Spec, perm_seed: u64) -> Result<(), TestCaseError> {
    let base = semi_nca(&spec.graph()).unwrap();
    let n = spec.n;
    // A permutation of the nodes and a rotation of the edge list from the seed.
    let mut perm: Vec<u32> = (0..n as u32).collect();
    let mut s = perm_seed | 1;
    for i in (1..n).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        perm.swap(i, (s % (i as u64 + 1)) as usize);
    }
    let mut edges: Vec<(u32, u32)> = spec.edges.iter().map(|&(a, b)| (perm[a as usize], perm[b as usize])).collect();
    if !edges.is_empty() {
        let k = (perm_seed as usize) % edges.len();
        edges.rotate_left(k);
        edges.reverse();
    }
    let roots: Vec<u32> = spec.roots.iter().rev().map(|&r| perm[r as usize]).collect();
    let g = CsrGraph::from_edges(n, &roots, &edges);
    let mut expected = vec![0u32; n];
    for v in 0..n {
        expected[perm[v] as usize] = match base[v] {
            d @ (VIRTUAL_ROOT | UNREACHABLE) => d,
            d => perm[d as usize],
        };
    }
    prop_assert_eq!(&semi_nca(&g).unwrap(), &expected, "semi_nca after renumbering");
    prop_assert_eq!(&cooper_harvey_kennedy(&g).unwrap(), &expected, "CHK after renumbering");
    Ok(())
}

/// In a module named after the feature, so `cargo test dominators` runs these too.
mod dominators {
    use super::*;

    proptest! {
        // About half a second in the test profile (opt-level 2).
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn sparse_random_graphs_agree(spec in arb_random(40, 2)) {
            check_agree(&spec)?;
        }

        #[test]
        fn dense_random_graphs_agree(spec in arb_random(12, 5)) {
            check_agree(&spec)?;
        }

        #[test]
        fn chain_graphs_agree(spec in arb_chains(160)) {
            check_agree(&spec)?;
        }

        #[test]
        fn ownership_tree_graphs_agree(spec in arb_trees(60)) {
            check_agree(&spec)?;
        }

        #[test]
        fn hub_graphs_agree(spec in arb_hubs(160)) {
            check_agree(&spec)?;
        }

        #[test]
        fn result_ignores_edge_order_and_numbering(spec in arb_random(30, 3), seed in any::<u64>()) {
            check_invariance(&spec, seed)?;
        }

        #[test]
        fn chain_result_ignores_edge_order_and_numbering(spec in arb_chains(300), seed in any::<u64>()) {
            check_invariance(&spec, seed)?;
        }
    }
}

/// The hub graphs reach every way of handling a hub that lost its bet: moved in place
/// (under the virtual root, or under a node), and a second search (so `hub_graphs_agree`
/// tests them all).
#[test]
fn hub_graphs_lift_hubs_and_search_again() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = arb_hubs(160);
    let (mut lifted, mut under, mut again) = (0, 0, 0);
    for _ in 0..2000 {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        for hubs in [3, 5, 32] {
            let (_, stats) = semi_nca_tuned(&spec.graph(), hubs).unwrap();
            lifted += usize::from(stats.lifted_hubs > 0 && stats.runs == 1);
            under += usize::from(stats.lifted_under_nodes > 0 && stats.runs == 1);
            again += usize::from(stats.runs > 1);
        }
    }
    assert!(lifted > 0 && under > 0 && again > 0, "lifted {lifted} (under a node {under}), searched again {again}");
}
