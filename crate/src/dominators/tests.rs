//! Hand-made graphs with known dominators; every case runs all three algorithms.

use super::brute::brute_force;
use super::{cooper_harvey_kennedy, semi_nca, semi_nca_tuned, CsrGraph, Graph, UNREACHABLE, VIRTUAL_ROOT};
use crate::error::ErrorKind;

const VR: u32 = VIRTUAL_ROOT;
const UN: u32 = UNREACHABLE;

/// Runs the three algorithms on the graph and checks each against `expected`.
fn check(n: usize, roots: &[u32], edges: &[(u32, u32)], expected: &[u32]) {
    let g = CsrGraph::from_edges(n, roots, edges);
    assert_eq!(brute_force(&g), expected, "brute force");
    assert_eq!(semi_nca(&g).unwrap(), expected, "semi_nca");
    assert_eq!(cooper_harvey_kennedy(&g).unwrap(), expected, "cooper_harvey_kennedy");
    // Without hubs, and with hubs of 2 or 3 predecessors (bets lost often).
    for hubs in [0, 2, 3] {
        assert_eq!(semi_nca_tuned(&g, hubs).unwrap().0, expected, "semi_nca, hub threshold {hubs}");
    }
    // Dominators do not depend on the order of edges or roots.
    let rev_edges: Vec<_> = edges.iter().rev().copied().collect();
    let rev_roots: Vec<_> = roots.iter().rev().copied().collect();
    let g = CsrGraph::from_edges(n, &rev_roots, &rev_edges);
    assert_eq!(semi_nca(&g).unwrap(), expected, "semi_nca, reversed order");
    assert_eq!(cooper_harvey_kennedy(&g).unwrap(), expected, "cooper_harvey_kennedy, reversed order");
}

#[test]
fn empty_graph() {
    check(0, &[], &[], &[]);
}

#[test]
fn no_roots_means_nothing_is_reachable() {
    check(3, &[], &[(0, 1), (1, 2), (2, 0)], &[UN, UN, UN]);
}

#[test]
fn single_root() {
    check(1, &[0], &[], &[VR]);
}

/// Figure 1 of Lengauer & Tarjan, "A Fast Algorithm for Finding Dominators in a
/// Flowgraph" (1979), with R as the only GC root (the edge K → R points at a root).
#[test]
fn lengauer_tarjan_paper_example() {
    let names = ["R", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"];
    let id = |s: &str| names.iter().position(|&x| x == s).unwrap() as u32;
    let edges: Vec<(u32, u32)> = [
        ("R", "A"),
        ("R", "B"),
        ("R", "C"),
        ("A", "D"),
        ("B", "A"),
        ("B", "D"),
        ("B", "E"),
        ("C", "F"),
        ("C", "G"),
        ("D", "L"),
        ("E", "H"),
        ("F", "I"),
        ("G", "I"),
        ("G", "J"),
        ("H", "E"),
        ("H", "K"),
        ("I", "K"),
        ("J", "I"),
        ("K", "I"),
        ("K", "R"),
        ("L", "H"),
    ]
    .iter()
    .map(|&(a, b)| (id(a), id(b)))
    .collect();
    let idom_of = |s: &str| match s {
        "R" => VR,
        "F" | "G" => id("C"),
        "J" => id("G"),
        "L" => id("D"),
        _ => id("R"),
    };
    let expected: Vec<u32> = names.iter().map(|s| idom_of(s)).collect();
    check(names.len(), &[id("R")], &edges, &expected);
}

/// root→a, root→d, a→b, a→c, d→e, e→b, b→c. A DFS that goes root, a, b, c makes `a`
/// the DFS parent of `c` and reaches `b` again through d, e: idom(c) is root, not a.
#[test]
fn idom_is_not_the_dfs_parent() {
    let (root, a, d, b, c, e) = (0, 1, 2, 3, 4, 5);
    let edges = [(root, a), (root, d), (a, b), (a, c), (d, e), (e, b), (b, c)];
    check(6, &[root], &edges, &[VR, root, root, root, root, d]);
}

/// The NCA step must start from the true DFS parent: here `c` has DFS ancestor `a`
/// dominated by `s`, but its parent `x` is not (the second root y reaches x).
#[test]
fn nca_starts_from_the_dfs_parent() {
    let (s, a, b, x, c, y) = (0, 1, 2, 3, 4, 5);
    let edges = [(s, a), (a, b), (b, x), (x, c), (s, c), (y, x)];
    check(6, &[s, y], &edges, &[VR, s, a, VR, VR, VR]);
}

#[test]
fn forward_edge_sets_the_semidominator() {
    // 0 → 1 → 2 → 3 and 1 → 3: idom(3) = 1.
    check(4, &[0], &[(0, 1), (1, 2), (2, 3), (1, 3)], &[VR, 0, 1, 1]);
}

#[test]
fn diamond_and_loop() {
    // 0 → {1, 2} → 3 → 4 → 3.
    check(5, &[0], &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (4, 3)], &[VR, 0, 0, 0, 3]);
}

#[test]
fn irreducible_loop() {
    // 0 → 1, 0 → 2, 1 ⇄ 2: neither of 1, 2 dominates the other.
    check(3, &[0], &[(0, 1), (0, 2), (1, 2), (2, 1)], &[VR, 0, 0]);
}

#[test]
fn self_loops_and_duplicate_edges() {
    let edges = [(0, 0), (0, 1), (0, 1), (1, 1), (1, 2), (1, 2), (2, 2), (2, 1), (2, 1)];
    check(3, &[0], &edges, &[VR, 0, 1]);
}

#[test]
fn duplicate_roots() {
    check(3, &[0, 0, 2, 0, 2], &[(0, 1), (2, 1)], &[VR, VR, VR]);
    check(2, &[0, 0, 0], &[(0, 1)], &[VR, 0]);
}

#[test]
fn unreachable_nodes_and_cycles() {
    // Reachable: 0 → 1 → 2. Unreachable: 3 ⇄ 4, with 4 → 1 and 4 → 0 (a root), and 5
    // isolated, 6 with a self-loop.
    let edges = [(0, 1), (1, 2), (3, 4), (4, 3), (4, 1), (4, 0), (6, 6)];
    check(7, &[0], &edges, &[VR, 0, 1, UN, UN, UN, UN]);
}

#[test]
fn root_that_is_also_referenced() {
    // 2 is a GC root and also reached through 0 → 1 → 2; 3 hangs off both 2 and 0.
    check(4, &[0, 2], &[(0, 1), (1, 2), (2, 3), (0, 3)], &[VR, 0, VR, VR]);
    // The root is only reached through itself otherwise: its subtree stays its own.
    check(4, &[0, 2], &[(0, 1), (1, 2), (2, 3), (3, 2)], &[VR, 0, VR, 2]);
    // A root pointing at itself and pointed at by its own descendants.
    check(3, &[0], &[(0, 0), (0, 1), (1, 2), (2, 0), (1, 0)], &[VR, 0, 1]);
}

#[test]
fn node_reached_from_two_roots_hangs_off_the_virtual_root() {
    check(4, &[0, 1], &[(0, 2), (1, 2), (2, 3)], &[VR, VR, VR, 2]);
}

/// A cycle of private nodes that nothing else points at is unreachable, and so is what
/// hangs off it.
#[test]
fn closed_cycle_of_single_predecessor_nodes() {
    // 0 root → 1; 2 ⇄ 3 → 4.
    check(5, &[0], &[(0, 1), (2, 3), (3, 2), (3, 4)], &[VR, 0, UN, UN, UN]);
}

/// Private subtrees hanging off a node that dominates their hub: the hub's dominator
/// in the reduced graph dominates every private node pointing at it, so the bet holds.
#[test]
fn hub_under_a_node_that_owns_its_referrers() {
    // 0 root → 1 (owner) → 2, 3, 4 (each owned, each → 5 the shared node); 1 → 6 → 5.
    let edges = [(0, 1), (1, 2), (1, 3), (1, 4), (2, 5), (3, 5), (4, 5), (1, 6), (6, 5)];
    check(7, &[0], &edges, &[VR, 0, 1, 1, 1, 1, 1]);
}

/// A hub whose dominator in the reduced graph does not dominate a private node pointing
/// at it: the bet is lost, and the hub moves under the node above all its referrers.
#[test]
fn hub_that_loses_its_bet() {
    // r=0 → d=1 → h=3, d → e=2 → h; r → p=4 → u=5 → h. Without u, idom(h) would be d.
    let edges = [(0, 1), (1, 3), (1, 2), (2, 3), (0, 4), (4, 5), (5, 3)];
    check(6, &[0], &edges, &[VR, 0, 1, 0, 0, 4]);
    let g = CsrGraph::from_edges(6, &[0], &edges);
    let (_, stats) = semi_nca_tuned(&g, 3).unwrap();
    assert_eq!((stats.failed_hubs, stats.lifted_under_nodes, stats.runs), (1, 1, 1), "{stats:?}");
}

/// More hubs with distinct dominators than one scan of the hub check handles (63): the
/// check runs in several scans, and a hub in each loses its bet.
#[test]
fn hubs_with_many_distinct_dominators() {
    // Group i: root a → e → h, a → h, owner → p → h, where the owner is a, or for every
    // seventh group the next group's root (then p is not under a, and h hangs off the
    // virtual root). h has three predecessors: a hub at thresholds 2 and 3.
    const GROUPS: u32 = 150;
    let (a, h, e, p) = (|i: u32| 4 * i, |i: u32| 4 * i + 1, |i: u32| 4 * i + 2, |i: u32| 4 * i + 3);
    let lost = |i: u32| i % 7 == 3;
    let n = 4 * GROUPS as usize + 4;
    let mut edges = Vec::new();
    let mut expected = vec![UN; n];
    let roots: Vec<u32> = (0..=GROUPS).map(a).collect();
    for &r in &roots {
        expected[r as usize] = VR;
    }
    for i in 0..GROUPS {
        let owner = if lost(i) { a(i + 1) } else { a(i) };
        edges.extend([(a(i), e(i)), (e(i), h(i)), (a(i), h(i)), (owner, p(i)), (p(i), h(i))]);
        expected[e(i) as usize] = a(i);
        expected[p(i) as usize] = owner;
        expected[h(i) as usize] = if lost(i) { VR } else { a(i) };
    }
    check(n, &roots, &edges, &expected);
    // Each lost hub hangs off the virtual root (its referrers sit under two roots): moved
    // there in place, no second search.
    let g = CsrGraph::from_edges(n, &roots, &edges);
    let (_, stats) = semi_nca_tuned(&g, 3).unwrap();
    let lost = (0..GROUPS).filter(|&i| lost(i)).count();
    assert_eq!((stats.failed_hubs, stats.lifted_hubs, stats.runs), (lost, lost, 1), "{stats:?}");
}

/// A hub that loses its bet and belongs under the virtual root (a private referrer under
/// another root), with nodes it reaches: those whose dominator it can avoid follow it
/// there, the others stay.
#[test]
fn lost_hub_lifted_to_the_virtual_root_with_what_it_reaches() {
    // Roots r1=0, r2=1. r1 → c=2 → e=3 → h=4, c → h (h's non-private referrers: c, e);
    // r2 → p=5 → h (p private). h → c, h → w=6, c → w. In the reduced graph c dominates
    // e, h and w; with p's edge, h reaches c and w around r1 and c, but e only via c.
    let edges = [(0, 2), (2, 3), (2, 4), (3, 4), (1, 5), (5, 4), (4, 2), (4, 6), (2, 6)];
    check(7, &[0, 1], &edges, &[VR, VR, VR, 2, VR, 1, VR]);
    let g = CsrGraph::from_edges(7, &[0, 1], &edges);
    let (_, stats) = semi_nca_tuned(&g, 3).unwrap();
    assert_eq!((stats.failed_hubs, stats.lifted_hubs, stats.runs), (1, 1, 1), "{stats:?}");
}

/// A class-like hub whose referrers all sit under one node: the bet is lost, and the hub
/// moves in place under that node (not the virtual root), with a node it shares with its
/// old dominator; a node only it reaches stays under it.
#[test]
fn lost_hub_lifted_under_the_node_above_its_referrers() {
    // 0 (root) → c=1 → loader=2 → h=3, loader → m=4 → h (h's first referrers, not
    // private); c → list=5 → instances 6, 7, 8 (private) → h. h → 9 ← loader, h → 10.
    // In the reduced graph h and 9 are under the loader; in the graph, under c.
    let edges = [
        (0, 1),
        (1, 2),
        (2, 3),
        (2, 4),
        (4, 3),
        (1, 5),
        (5, 6),
        (5, 7),
        (5, 8),
        (6, 3),
        (7, 3),
        (8, 3),
        (3, 9),
        (2, 9),
        (3, 10),
    ];
    check(11, &[0], &edges, &[VR, 0, 1, 1, 2, 1, 5, 5, 5, 1, 3]);
    let g = CsrGraph::from_edges(11, &[0], &edges);
    let (_, stats) = semi_nca_tuned(&g, 3).unwrap();
    assert_eq!((stats.failed_hubs, stats.lifted_hubs, stats.lifted_under_nodes, stats.runs), (1, 1, 1, 1), "{stats:?}");
}

/// A second hub whose check passes before a lift and fails after it: the tree moved under
/// its dropped edge, so the search runs again (and gets both right).
#[test]
fn lifting_a_hub_is_checked_against_the_other_hubs() {
    // Roots 0, 1. 0 → d=2 → h=4, 0 → e=3 → h; 1 → p=5 → h (p private): h is lifted, and
    // y=6 (referred to by h and d) with it; y owns q=7 and s=11. k=10 has referrers z1=8
    // and z2=9 under 0 and s (private, dropped): 0 dominates s until y is lifted.
    let edges = [
        (0, 2),
        (2, 4),
        (0, 3),
        (3, 4),
        (1, 5),
        (5, 4),
        (4, 6),
        (2, 6),
        (6, 7),
        (6, 11),
        (11, 10),
        (0, 8),
        (8, 10),
        (0, 9),
        (9, 10),
    ];
    check(12, &[0, 1], &edges, &[VR, VR, 0, 0, VR, 1, VR, 6, 0, 0, VR, 6]);
    let g = CsrGraph::from_edges(12, &[0, 1], &edges);
    let (_, stats) = semi_nca_tuned(&g, 3).unwrap();
    assert_eq!((stats.failed_hubs, stats.lifted_hubs, stats.runs), (2, 0, 2), "{stats:?}");
}

/// The hub check's scan tests each edge's target against a small filter of the suspect
/// hubs indexed by a node's low 16 bits: a node sharing them with a suspect, pointed at
/// by a private node that has a dropped edge too, must not count as an edge into the
/// suspect (which would lose its bet for nothing).
#[test]
fn hub_check_tells_a_suspect_from_a_node_sharing_its_low_bits() {
    // 0 root → 1 → 2, 3, 4, each → 5 (a hub under 1: checked); 1 → 6 → 5. Roots r2, r3,
    // r4 → H (a hub under the virtual root); r2 → u → H, u → x, where x = 5 + 2¹⁶ and u,
    // x are private.
    let (r2, r3, r4, hub, u, x) = (65536, 65537, 65538, 65539, 65540, 5 + 65536);
    let n = 65542;
    let roots = [0, r2, r3, r4];
    let mut edges = vec![(0, 1), (1, 2), (1, 3), (1, 4), (2, 5), (3, 5), (4, 5), (1, 6), (6, 5)];
    edges.extend([(r2, hub), (r3, hub), (r4, hub), (r2, u), (u, hub), (u, x)]);
    let mut expected = vec![UN; n];
    expected[..7].copy_from_slice(&[VR, 0, 1, 1, 1, 1, 1]);
    for v in [r2, r3, r4, hub] {
        expected[v as usize] = VR;
    }
    expected[u as usize] = r2;
    expected[x as usize] = u;
    let g = CsrGraph::from_edges(n, &roots, &edges);
    assert_eq!(cooper_harvey_kennedy(&g).unwrap(), expected, "cooper_harvey_kennedy");
    for hubs in [0, 3] {
        assert_eq!(semi_nca_tuned(&g, hubs).unwrap().0, expected, "semi_nca, hub threshold {hubs}");
    }
    let (_, stats) = semi_nca_tuned(&g, 3).unwrap();
    assert_eq!((stats.hubs, stats.failed_hubs, stats.runs), (2, 0, 1), "{stats:?}");
}

/// A hub reachable only through private nodes: unreachable in the reduced graph.
#[test]
fn hub_reached_only_through_private_nodes() {
    // Roots 0 and 1; 0 → 2 → 4, 1 → 3 → 4, 0 → 5 → 4: 4 has three owners' worth of
    // private referrers, and two roots above them.
    let edges = [(0, 2), (2, 4), (1, 3), (3, 4), (0, 5), (5, 4)];
    check(6, &[0, 1], &edges, &[VR, VR, 0, 1, VR, 0]);
}

#[test]
fn too_many_nodes_is_a_memory_error() {
    struct Huge;
    impl Graph for Huge {
        fn node_count(&self) -> usize {
            1 << 31
        }
        fn for_each_root<F: FnMut(u32)>(&self, _: F) {}
        fn for_each_successor<F: FnMut(u32)>(&self, _: u32, _: F) {}
    }
    assert_eq!(semi_nca(&Huge).unwrap_err().kind, ErrorKind::Memory);
    assert_eq!(cooper_harvey_kennedy(&Huge).unwrap_err().kind, ErrorKind::Memory);
}

/// A chain 0 → 1 → … → n−1 where every node also points at the shared node n: the
/// dominator tree is the chain with n under 0. Deep enough to overflow any recursion.
fn chain_with_shared_node(n: u32) -> (CsrGraph, Vec<u32>) {
    let shared = n;
    let mut edges = Vec::with_capacity(2 * n as usize);
    for i in 0..n {
        if i + 1 < n {
            edges.push((i, i + 1));
        }
        edges.push((i, shared));
    }
    let g = CsrGraph::from_edges(n as usize + 1, &[0], &edges);
    let mut expected: Vec<u32> = (0..n).map(|i| if i == 0 { VR } else { i - 1 }).collect();
    expected.push(0);
    (g, expected)
}

#[test]
fn million_node_chain_semi_nca() {
    let (g, expected) = chain_with_shared_node(1_000_000);
    assert_eq!(semi_nca(&g).unwrap(), expected);
}

#[test]
fn million_node_chain_chk() {
    let (g, expected) = chain_with_shared_node(1_000_000);
    assert_eq!(cooper_harvey_kennedy(&g).unwrap(), expected);
}

/// The 20M-node chain from the design's budget: run by hand
/// (`cargo test --release -p heapscope twenty_million -- --ignored`), ~0.8 GB.
#[test]
#[ignore]
fn twenty_million_node_chain() {
    let (g, expected) = chain_with_shared_node(20_000_000);
    assert_eq!(semi_nca(&g).unwrap(), expected);
    assert_eq!(cooper_harvey_kennedy(&g).unwrap(), expected);
}

/// The same chain, but the shared node is listed first, so the DFS meets it first and
/// keeps it pending below each chain node: the work stack grows with the depth.
#[test]
fn million_node_chain_shared_first() {
    let n = 1_000_000u32;
    let shared = n;
    let mut edges = Vec::with_capacity(2 * n as usize);
    for i in 0..n {
        edges.push((i, shared));
        if i + 1 < n {
            edges.push((i, i + 1));
        }
    }
    let g = CsrGraph::from_edges(n as usize + 1, &[0], &edges);
    let expected = semi_nca(&g).unwrap();
    assert_eq!(expected[shared as usize], 0);
    assert!((1..n).all(|i| expected[i as usize] == i - 1));
    assert_eq!(cooper_harvey_kennedy(&g).unwrap(), expected);
}

/// A back edge from the bottom of a long chain to its top makes the first `eval` walk
/// the whole chain: the compression must not recurse or keep a stack.
#[test]
fn long_path_compression() {
    let n = 1_000_000u32;
    let mut edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
    edges.push((n - 1, 1));
    edges.push((0, n - 1));
    let g = CsrGraph::from_edges(n as usize, &[0], &edges);
    let expected: Vec<u32> = (0..n)
        .map(|i| match i {
            0 => VR,
            1 => 0,
            i if i == n - 1 => 0,
            i => i - 1,
        })
        .collect();
    assert_eq!(semi_nca(&g).unwrap(), expected);
    assert_eq!(cooper_harvey_kennedy(&g).unwrap(), expected);
}

/// Nodes 0..n in a ring linked both ways, with node 0 the root.
fn ring(n: u32) -> CsrGraph {
    let edges: Vec<(u32, u32)> = (0..n).flat_map(|i| [(i, (i + 1) % n), ((i + 1) % n, i)]).collect();
    CsrGraph::from_edges(n as usize, &[0], &edges)
}

/// A ring linked both ways and entered at node 0, like a garbage `LinkedList` kept with
/// `--keep-unreachable`: every node is reached around both sides, so 0 dominates all.
/// Iterating in reverse postorder only would learn one node per round.
#[test]
fn doubly_linked_ring() {
    let n = 3_000u32;
    let g = ring(n);
    let expected: Vec<u32> = (0..n).map(|i| if i == 0 { VR } else { 0 }).collect();
    assert_eq!(semi_nca(&g).unwrap(), expected);
    assert_eq!(cooper_harvey_kennedy(&g).unwrap(), expected);
    assert_eq!(brute_force(&g), expected);
}

/// The bounded run gives up on the ring when the budget is small, and otherwise returns
/// the same tree as the unbounded one.
#[test]
fn bounded_chk_gives_up_or_agrees() {
    use super::cooper_harvey_kennedy_bounded;
    let g = ring(2_000);
    assert_eq!(cooper_harvey_kennedy_bounded(&g, 10_000).unwrap(), None);
    assert_eq!(cooper_harvey_kennedy_bounded(&g, 100_000_000).unwrap(), Some(cooper_harvey_kennedy(&g).unwrap()));
}
