//! Dominators straight from the definition, for tests on small graphs.
//!
//! `d` dominates `v` iff `v` is reachable from the virtual root but not once `d` is
//! removed; `idom(v)` is the strict dominator of `v` that every other strict dominator of
//! `v` dominates. `O(n² · m)` time, `O(n²)` memory: for graphs of a few hundred nodes.

use super::{Graph, UNREACHABLE, VIRTUAL_ROOT};

/// Immediate dominators of every node of `g`, by the definition, in the same format as
/// [`semi_nca`](fn@super::semi_nca).
pub fn brute_force<G: Graph>(g: &G) -> Vec<u32> {
    let n = g.node_count();
    let mut succ = vec![Vec::new(); n];
    for (v, s) in succ.iter_mut().enumerate() {
        g.for_each_successor(v as u32, |x| s.push(x as usize));
    }
    let mut roots = Vec::new();
    g.for_each_root(|r| roots.push(r as usize));

    // Reachable from the virtual root without going through `removed`.
    let reach = |removed: Option<usize>| {
        let mut seen = vec![false; n];
        let mut todo = Vec::new();
        for &r in &roots {
            if Some(r) != removed && !seen[r] {
                seen[r] = true;
                todo.push(r);
            }
        }
        while let Some(v) = todo.pop() {
            for &x in &succ[v] {
                if Some(x) != removed && !seen[x] {
                    seen[x] = true;
                    todo.push(x);
                }
            }
        }
        seen
    };

    let reachable = reach(None);
    // dominates[d][v]: d strictly dominates v.
    let dominates: Vec<Vec<bool>> = (0..n)
        .map(|d| {
            let without = reach(Some(d));
            (0..n).map(|v| v != d && reachable[v] && !without[v]).collect()
        })
        .collect();

    (0..n)
        .map(|v| {
            if !reachable[v] {
                return UNREACHABLE;
            }
            let strict: Vec<usize> = (0..n).filter(|&d| dominates[d][v]).collect();
            let idoms: Vec<usize> =
                strict.iter().copied().filter(|&d| strict.iter().all(|&e| e == d || dominates[e][d])).collect();
            match idoms[..] {
                [] => VIRTUAL_ROOT,
                [d] => d as u32,
                _ => panic!("dominators of {v} are not a chain: {strict:?}"),
            }
        })
        .collect()
}
