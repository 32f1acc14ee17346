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
//! # Lifting a hub under a node
//!
//! When that nearest common ancestor `c` is a node (a class whose instances all sit under
//! one object), fact 1 says only that `idom_G(x)` is `c` or above it in `T`. Facts 2 and 3
//! hold for the edge `c → x` too, with "the virtual root" read as "the nearest common
//! ancestor in the tree of `c` and the node's old `idom`", and nodes whose `idom` is `c`
//! or above it keep it. Once every hub is moved, the tree `T''` is exact for `G'` plus the
//! edges `c → x`; if every dropped edge passes the hub check against `T''` (the tree is
//! then exact for `G` plus those edges) and each such hub is still right under its `c`,
//! then `c` dominates `x` in `G` (removing edges only adds dominators), and as
//! `idom_G(x)` is `c` or above, `idom_G(x) = c`: the edge `c → x` changes nothing in `G`
//! (fact 2's argument: every path through it passes `c`), and `T''` is `G`'s tree.
//! The hubs move one after another, each in the graph with the edges `c → x` of those
//! moved before: a later hub may reach such a `c` (never the virtual root), and through
//! the edge what the earlier hub reaches, which its move may lift too.
//!
//! So, for each failed hub in turn: collect `S` in `G'` (bounded: [`MAX_REACH`]); move
//! up each `w ∈ S` reachable before whose `idom` lies outside `S` (no path from `x`
//! passes it) or is avoided by a search from `x` that skips it (one search per distinct
//! such `idom` inside `S`); give the others their dominators in `S` from `x`. The tree is
//! then exact for `G'` plus the lifted edges. Unless every hub went under the virtual
//! root and the only nodes that changed are the hubs with no node below them, the tree
//! changed under the other hubs' dropped edges (or the move must be confirmed), and the
//! caller checks the hubs once more. If that fails, or a bound fails, it searches again.
//!
//! Cost: `O(|S|·(k + 1))` edges per lifted hub, `k` the distinct dominators in `S`, and
//! one pass over `idom`; memory `O(|S| + edges in S)`.

use std::collections::{HashMap, HashSet};

use super::private::{RootSet, SmallFilter, MARK_PRIVATE};
use super::{semi_nca_tuned, CsrGraph, Graph, UNREACHABLE, VIRTUAL_ROOT};
use crate::error::Error;

/// Most nodes a lifted hub may reach (beyond it, the caller searches again).
pub(crate) const MAX_REACH: usize = 1 << 14;
/// Most edges all the avoiding searches of one hub may visit.
const MAX_WORK: usize = 1 << 20;

/// The edges of `G'` (see the module docs): every edge but those into GC roots, self-loops
/// and those from private nodes into `hubs` (ascending); plus the edges `c → x` of the
/// hubs moved under a node so far, as the tree being repaired is that graph's.
struct Reduced<'a, G: Graph> {
    g: &'a G,
    roots: &'a RootSet,
    marks: &'a [u8],
    hubs: &'a [u32],
    /// Per node `c`, the hubs moved under it so far.
    added: HashMap<u32, Vec<u32>>,
}

impl<G: Graph> Reduced<'_, G> {
    fn for_each_successor<F: FnMut(u32)>(&self, v: u32, mut f: F) {
        let private = self.marks[v as usize] & MARK_PRIVATE != 0;
        self.g.for_each_successor(v, |x| {
            if x != v && !self.roots.contains(x) && !(private && self.hubs.binary_search(&x).is_ok()) {
                f(x)
            }
        });
        // A later hub may reach `c`, hence through this edge what the moved hub reaches.
        if let Some(added) = self.added.get(&v) {
            added.iter().copied().for_each(f);
        }
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

/// Moves each failed hub `x` of `failed` under the node `c` it was found to belong under
/// (the virtual root, or a node the caller must confirm: see the module docs), with the
/// nodes that follow. `marks` has [`MARK_PRIVATE`] on the private nodes; `hubs` are the
/// search's hubs, ascending.
pub(crate) fn lift_failed_hubs<G: Graph>(
    g: &G,
    roots: &RootSet,
    idom: &mut [u32],
    marks: &[u8],
    hubs: &[u32],
    failed: &[(u32, u32)],
) -> Result<Lifted, Error> {
    let mut reduced = Reduced { g, roots, marks, hubs, added: HashMap::new() };
    let mut changed = Vec::new();
    for &(x, c) in failed {
        if c == x {
            return Ok(Lifted::No);
        }
        // Moved there with an earlier hub, the edge `c → x` changes nothing.
        if idom[x as usize] != c && !lift(&reduced, idom, x, c, &mut changed)? {
            return Ok(Lifted::No);
        }
        if c != VIRTUAL_ROOT {
            reduced.added.entry(c).or_default().push(x);
        }
    }
    if failed.iter().any(|&(_, c)| c != VIRTUAL_ROOT) {
        return Ok(Lifted::Recheck);
    }
    changed.sort_unstable();
    changed.dedup();
    if changed.iter().any(|v| failed.binary_search_by_key(v, |&(x, _)| x).is_err()) {
        return Ok(Lifted::Recheck);
    }
    // Only the hubs moved; a node below one would have moved with it. (Every node is
    // tested: the filter spares most of them the search.)
    let filter = SmallFilter::new(&changed);
    let below = idom.iter().any(|&d| d < VIRTUAL_ROOT && filter.may_contain(d) && changed.binary_search(&d).is_ok());
    Ok(if below { Lifted::Recheck } else { Lifted::Done })
}

/// The nearest common ancestors in the tree `idom` of `c` and of other nodes, climbing
/// from those nodes to the first ancestor of `c` (bounded by [`MAX_WORK`] steps in all).
struct AboveC {
    /// `c` and its ancestors (the virtual root aside).
    path: HashSet<u32>,
    found: HashMap<u32, u32>,
    steps: usize,
}

impl AboveC {
    fn new(idom: &[u32], c: u32) -> Option<AboveC> {
        let mut path = HashSet::new();
        let mut y = c;
        while y != VIRTUAL_ROOT {
            if path.len() > MAX_WORK {
                return None;
            }
            path.insert(y);
            y = idom[y as usize];
        }
        Some(AboveC { steps: path.len(), path, found: HashMap::new() })
    }

    /// Whether `a` is `c` or one of its ancestors.
    fn holds(&self, a: u32) -> bool {
        a == VIRTUAL_ROOT || self.path.contains(&a)
    }

    /// The nearest common ancestor of `a` (reachable) and `c`; `None` past the bound.
    fn nca(&mut self, idom: &[u32], a: u32) -> Option<u32> {
        if let Some(&m) = self.found.get(&a) {
            return Some(m);
        }
        let mut y = a;
        while !self.holds(y) {
            self.steps += 1;
            if self.steps > MAX_WORK {
                return None;
            }
            y = idom[y as usize];
        }
        self.found.insert(a, y);
        Some(y)
    }
}

/// Adds `c → x` to the graph `idom` is the tree of (module docs, 3), appending the nodes
/// whose `idom` changed to `changed`; `false` if `x` reaches too much.
fn lift<G: Graph>(
    reduced: &Reduced<'_, G>,
    idom: &mut [u32],
    x: u32,
    c: u32,
    changed: &mut Vec<u32>,
) -> Result<bool, Error> {
    let Some(mut above) = AboveC::new(idom, c) else { return Ok(false) };
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
        let edges: Vec<(u32, u32)> = (0..nodes.len())
            .flat_map(|v| targets[offsets[v]..offsets[v + 1]].iter().map(move |&t| (v as u32, t)))
            .collect();
        let inside = semi_nca_tuned(&CsrGraph::from_edges(nodes.len(), &[0], &edges), 0)?.0;
        for (k, &w) in nodes.iter().enumerate() {
            if idom[w as usize] == UNREACHABLE {
                new_idom[k] = match inside[k] {
                    // x itself, now under c.
                    VIRTUAL_ROOT => c,
                    d => nodes[d as usize],
                };
            }
        }
    }

    // The others move up to their `idom`'s nearest common ancestor with c when that
    // `idom` is outside S (or is x's), or is avoided from x; unless it is c or above.
    let mut by_dom: HashMap<u32, Vec<u32>> = HashMap::new();
    for (k, &w) in nodes.iter().enumerate() {
        let a = idom[w as usize];
        if a == UNREACHABLE || a == x || above.holds(a) {
            continue;
        }
        match local.get(&a) {
            Some(&ka) if k != 0 => by_dom.entry(ka).or_default().push(k as u32),
            _ => match above.nca(idom, a) {
                Some(m) => new_idom[k] = m,
                None => return Ok(false),
            },
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
        let a = nodes[ka as usize];
        for k in members {
            if seen[k as usize] == ka {
                match above.nca(idom, a) {
                    Some(m) => new_idom[k as usize] = m,
                    None => return Ok(false),
                }
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
