//! Repairing a search whose hubs lost their bet, without searching again.
//!
//! # Terms
//!
//! Let `G` be the graph and `G'` the graph the search solved: `G` without the *dropped*
//! edges, those from private nodes into hubs (see [`super::private`]). Its dominator tree
//! `T` is exact for `G'`. A hub `x` *fails* when a dropped edge `(u, x)` comes from a node
//! `u` that `idom_T(x)` does not dominate (`u` is its *witness*); then `T` may be wrong
//! for `G`. On heap graphs the failures are class objects that are not GC roots but are
//! pointed at by instances all over the heap (`char[]`, `int[]`): in `G` they hang off
//! the virtual root, in `G'` (which lost the instances' edges) under some node.
//!
//! # Lifting a hub to the virtual root
//!
//! Three facts, for a failed hub `x`:
//!
//! 1. Adding edges only removes dominators, so `dom_G(y) ⊆ dom_G'(y)` for every `y`
//!    reachable in `G'`. Every dominator of `x` other than `x` dominates each of its
//!    predecessors (dominance includes the node itself). So when the nearest common
//!    ancestor in `T` of `idom_T(x)` (if `x` is reachable in `G'`) and of some of its
//!    predecessors reachable in `G'` is the virtual root, `idom_G(x)` is the virtual
//!    root: [`super::private::failed_hubs`] finds that *proof* as it checks the hubs.
//! 2. Adding the edge `virtual root → x` to a graph in which `idom(x)` is the virtual root
//!    changes no dominator: a path through the new edge continues from `x`, and any node
//!    `d` it avoids can be avoided on the way to `x` too. So `G + (root → x)` has the
//!    dominators of `G`, and in it every edge into `x` is an edge into a child of the
//!    virtual root, which never matters (see the [module docs](super)): the dropped edges
//!    into `x` are harmless there.
//! 3. Adding `root → x` to `G'` changes only the nodes `w` reachable from `x` (the set
//!    `S`). A `w` reachable in `G'` either keeps `a = idom_T(w)` or moves to the virtual
//!    root: it moves exactly when `a` is neither the virtual root nor `x` and some path
//!    `x ⇝ w` avoids `a` (then every proper ancestor `b ≠ root` of `a` is avoided by that
//!    path too, or the path's part from `b` would reach `w` around `a` in `G'`). A `w`
//!    reachable only now is reached through `x` alone: its dominators are the virtual
//!    root and its dominators in `S` seen from `x`.
//!
//! So, for each failed hub in turn: collect `S` in `G'` (bounded: [`MAX_REACH`]); move
//! to the virtual root each `w ∈ S` reachable before whose `idom` lies outside `S` (no
//! path from `x` passes it) or is avoided by a search from `x` that skips it (one search
//! per distinct such `idom` inside `S`); give the others their dominators in `S` from `x`.
//! The tree is then exact for `G'` plus the lifted root edges. Unless the only nodes
//! that changed are the hubs and no node hangs below them, the tree changed under the
//! other hubs' dropped edges, and the caller checks those hubs once more. If that fails,
//! or a proof or bound fails, it searches again.
//!
//! Cost: `O(|S|·(k + 1))` edges per lifted hub, `k` the distinct dominators in `S`, and
//! one pass over `idom`; memory `O(|S| + edges in S)`.


use std::collections::HashMap;

use super::private::{RootSet, MARK_PRIVATE};
use super::{semi_nca_tuned, CsrGraph, Graph, UNREACHABLE, VIRTUAL_ROOT};
use crate::error::Error;

/// Most nodes a lifted hub may reach (beyond it, the caller searches again).
pub(crate) const MAX_REACH: usize = 1 << 14;
/// Most edges all the avoiding searches of one hub may visit.
const MAX_WORK: usize = 1 << 20;

/// The edges of `G'` (see the module docs): every edge but those into GC roots, self-loops
/// and those from private nodes into `hubs` (ascending).
struct Reduced<'a, G: Graph> {
    g: &'a G,
    roots: &'a RootSet,
    marks: &'a [u8],
    hubs: &'a [u32],
}

impl<G: Graph> Reduced<'_, G> {
    fn for_each_successor<F: FnMut(u32)>(&self, v: u32, mut f: F) {
        let private = self.marks[v as usize] & MARK_PRIVATE != 0;
        self.g.for_each_successor(v, |x| {
            if x != v && !self.roots.contains(x) && !(private && self.hubs.binary_search(&x).is_ok()) {
                f(x)
            }
        });
    }
}

/// What [`lift_failed_hubs`] did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lifted {
    /// A hub could not be lifted: `idom` is void.
    No,
    /// Lifted; the other hubs must be checked again (see the module docs).
    Recheck,
    /// Lifted, and nothing but the hubs moved.
    Done,
}

/// Moves `failed` (hubs proved to hang off the virtual root, see the module docs) to the
/// virtual root in `idom`, with the nodes that follow. `marks` has [`MARK_PRIVATE`] on
/// the private nodes; `hubs` are the search's hubs, ascending.
pub(crate) fn lift_failed_hubs<G: Graph>(
    g: &G,
    roots: &RootSet,
    idom: &mut [u32],
    marks: &[u8],
    hubs: &[u32],
    failed: &[u32],
) -> Result<Lifted, Error> {
    let reduced = Reduced { g, roots, marks, hubs };
    let mut changed = Vec::new();
    for &x in failed {
        if idom[x as usize] == VIRTUAL_ROOT {
            // Lifted with an earlier hub.
            continue;
        }
        if !lift(&reduced, idom, x, &mut changed)? {
            return Ok(Lifted::No);
        }
    }
    changed.sort_unstable();
    changed.dedup();
    if changed.iter().any(|v| failed.binary_search(v).is_err()) {
        return Ok(Lifted::Recheck);
    }
    // Only the hubs moved; a node below one would have moved with it.
    let below = idom.iter().any(|&d| d < VIRTUAL_ROOT && changed.binary_search(&d).is_ok());
    Ok(if below { Lifted::Recheck } else { Lifted::Done })
}

/// Adds `root → x` to the graph `idom` is the tree of (module docs, 3), appending the
/// nodes whose `idom` changed to `changed`; `false` if `x` reaches too much.
fn lift<G: Graph>(reduced: &Reduced<'_, G>, idom: &mut [u32], x: u32, changed: &mut Vec<u32>) -> Result<bool, Error> {
    // S, numbered in discovery order (x = 0), with its edges in local numbers.
    let mut local: HashMap<u32, u32> = HashMap::new();
    let mut nodes = vec![x];
    local.insert(x, 0);
    let mut offsets = vec![0usize];
    let mut targets: Vec<u32> = Vec::new();
    let mut i = 0;
    while i < nodes.len() {
        let v = nodes[i];
        let mut too_many = false;
        reduced.for_each_successor(v, |t| {
            let next = local.len() as u32;
            let k = *local.entry(t).or_insert_with(|| {
                if nodes.len() < MAX_REACH {
                    nodes.push(t);
                } else {
                    too_many = true;
                }
                next
            });
            targets.push(k);
        });
        if too_many || targets.len() > MAX_WORK {
            return Ok(false);
        }
        offsets.push(targets.len());
        i += 1;
    }

    let mut new_idom = vec![u32::MAX; nodes.len()];
    // Nodes reachable only now: their dominators in S from x.
    if nodes.iter().any(|&w| idom[w as usize] == UNREACHABLE) {
        let edges: Vec<(u32, u32)> =
            (0..nodes.len()).flat_map(|v| targets[offsets[v]..offsets[v + 1]].iter().map(move |&t| (v as u32, t))).collect();
        let inside = semi_nca_tuned(&CsrGraph::from_edges(nodes.len(), &[0], &edges), 0)?.0;
        for (k, &w) in nodes.iter().enumerate() {
            if idom[w as usize] == UNREACHABLE {
                new_idom[k] = match inside[k] {
                    VIRTUAL_ROOT => VIRTUAL_ROOT,
                    d => nodes[d as usize],
                };
            }
        }
    }

    // The others move when their `idom` is outside S (or x's), or avoided from x.
    let mut by_dom: HashMap<u32, Vec<u32>> = HashMap::new();
    for (k, &w) in nodes.iter().enumerate() {
        let a = idom[w as usize];
        if a == UNREACHABLE || a == VIRTUAL_ROOT || a == x {
            continue;
        }
        match local.get(&a) {
            Some(&ka) if k != 0 => by_dom.entry(ka).or_default().push(k as u32),
            _ => new_idom[k] = VIRTUAL_ROOT,
        }
    }
    let mut doms: Vec<(u32, Vec<u32>)> = by_dom.into_iter().collect();
    // Deterministic work (the result does not depend on the order).
    doms.sort_unstable_by_key(|&(a, _)| a);
    let mut seen = vec![u32::MAX; nodes.len()];
    let mut stack = Vec::new();
    let mut work = 0usize;
    for (ka, members) in doms {
        // The nodes x reaches without passing `ka` (never x: see above).
        stack.clear();
        seen[0] = ka;
        stack.push(0u32);
        while let Some(v) = stack.pop() {
            let out = &targets[offsets[v as usize]..offsets[v as usize + 1]];
            work += out.len();
            for &t in out {
                if t != ka && seen[t as usize] != ka {
                    seen[t as usize] = ka;
                    stack.push(t);
                }
            }
        }
        if work > MAX_WORK {
            return Ok(false);
        }
        for k in members {
            if seen[k as usize] == ka {
                new_idom[k as usize] = VIRTUAL_ROOT;
            }
        }
    }
    for (k, &w) in nodes.iter().enumerate() {
        if new_idom[k] != u32::MAX {
            idom[w as usize] = new_idom[k];
            changed.push(w);
        }
    }
    Ok(true)
}
