//! Semi-NCA: exact immediate dominators in near-linear time and little memory.
//!
//! # Terms
//!
//! Number the reachable nodes in the preorder of a depth-first search from the virtual
//! root (which gets 0) and identify each node with its number. For a node `w`, its
//! *semidominator* `sdom(w)` is the smallest `u` from which some path `u → … → w` runs
//! only through nodes numbered above `w` (apart from its ends). It is an ancestor of `w`
//! in the DFS tree and is computed, in reverse preorder, as the minimum over the edges
//! `(v, w)` of
//!
//! - `v` itself, when `v < w` (tree and forward edges), and
//! - the smallest `sdom(u)` among the DFS-tree ancestors `u` of `v` with `u > w`, when
//!   `v > w` (back and cross edges): `eval(v)` on a forest that links each node to its
//!   DFS parent once it has been processed, with path compression.
//!
//! Then, in preorder, `idom(w)` is the *nearest common ancestor* in the dominator tree
//! of `parent(w)` and `sdom(w)`: climb from `parent(w)` through the `idom`s already known
//! until reaching a node `≤ sdom(w)` (Georgiadis, "Linear-Time Algorithms for Dominators
//! and Related Problems", 2005).
//!
//! # Complexity
//!
//! `O(m log n)` time in the worst case (path compression without balancing); the NCA
//! climbs are short on real graphs, and the whole is close to linear on heap graphs. Every
//! loop is iterative, with `O(1)` extra memory for path compression, so chains of any
//! length work.
//!
//! # Memory
//!
//! With `n` nodes, `r` of them reachable, and `b` back/cross edges (edges `(v, w)` with
//! `v > w` in preorder, not counting self-loops and edges into GC roots), the peak is
//!
//! ```text
//! 4n + 12r + 4b bytes   (≈ 16 bytes per object + 4 per back/cross edge)
//! ```
//!
//! plus the DFS work stack (below). The output is the `4n`-byte preorder index,
//! rewritten in place, so nothing is allocated after the predecessors are freed.
//! Measured on a synthetic 20M-node heap graph with 1.5 edges per node: 17.2 bytes per
//! node above the graph (see `examples/dominators_bench.rs`). The arrays and their reuse:
//!
//! | array    | entries | lifetime and reuse |
//! |----------|---------|--------------------|
//! | `pre`    | `n` | node → preorder number, from the DFS to the end; then rewritten into the output |
//! | `parent` | `r` | DFS parent → forest ancestor (semidominators) → parent again → `idom` |
//! | `semi`   | `r` | DFS path bookkeeping → smallest tree/forward predecessor → `sdom` → preorder → node |
//! | `count`  | `r` | back/cross-edge counts → group offsets → min-`sdom` label; freed before the NCA pass |
//! | `preds`  | `b` | back/cross sources grouped by target; freed after the semidominators |
//!
//! All five are alive from the predecessor fill to the end of the semidominator pass;
//! from then on it is `4n + 8r` bytes (≈ 12 per object), including the output.
//!
//! The tricks that keep it there:
//!
//! - Everything after the DFS works on preorder numbers in `u32` arrays.
//! - Only back/cross edges are stored as predecessors. A tree or forward edge `(v, w)`
//!   has `v < w` and contributes `v` directly: the DFS folds the smallest such `v` into
//!   `semi[w]` as it meets the edge, so those edges are never stored.
//! - Edges into GC roots are ignored (see the [module docs](super)), so a root's
//!   `sdom` and `idom` are the virtual root without looking at its predecessors.
//! - The predecessors are grouped by target with a counting sort and no offsets array
//!   survives it: groups are laid out by increasing target and consumed from the end in
//!   reverse preorder; a flag bit marks the first source of each group, another the
//!   targets that have a group.
//! - Labels hold the minimum semidominator *value* on the compressed path, not a vertex.
//! - The forest's ancestor links start as the DFS parents, in the same array: a node
//!   counts as linked exactly when it has been processed (it is numbered above the
//!   current node), so linking is free. Compression overwrites parents, so afterwards one
//!   pass over the edges recovers them: a node's DFS parent is its largest-numbered
//!   predecessor below it (every such predecessor is a DFS ancestor).
//! - The DFS needs no frames: while a node is on the DFS path, its `semi` slot holds the
//!   stack height at which its pending successors start, and the path itself is walked
//!   back through `parent`.
//!
//! # The DFS stack
//!
//! [`Graph::for_each_successor`] cannot be paused, so the DFS does not keep a
//! (node, next-successor) frame per level, which would need indexable successor lists
//! and 8 bytes per level of depth (160 MB for a 20M-node list). Visiting a node calls
//! it once and pushes the successors not yet visited; a successor visited meanwhile is
//! skipped when popped (and recorded as a forward edge). The stack is then as deep as
//! the discovered-but-unvisited frontier, at most one entry per edge: 0.8M entries
//! (3 MB) for the 20M-node synthetic heap graph, and one per level on a list whose
//! nodes all point at a shared node met after the next node. It is freed before the
//! predecessors are built, so it adds to the peak only if it outgrows them.
//! Successors are visited in reverse order, which is deterministic. Each discovered node
//! gets a [`Graph::prefetch_successors`] hint.
//!
//! # Passes
//!
//! The graph is scanned three times: the DFS, the predecessor fill, and the parent
//! recovery. Keeping the parents in a fourth array would save the last scan (about 15% of
//! the time) for 4 bytes per node; memory is the scarcer resource.
//! [`Graph::for_each_successor`] must report the same successors every time.

use super::{
    alloc_error, check_node_count, try_filled, try_push, try_with_capacity, Graph, UNREACHABLE,
    VIRTUAL_ROOT,
};
use crate::error::Error;

/// Flag bit: in `pre`, "this node is a GC root"; in `semi`, "this node has back/cross
/// predecessors"; in `preds`, "first source of its group".
const FLAG: u32 = 1 << 31;
/// The number under the flag.
const MASK: u32 = FLAG - 1;

/// Immediate dominators of every node of `g` by the Semi-NCA algorithm.
///
/// Returns `idom` indexed by node, as described in the [module docs](super). Fails only
/// when memory runs out (or the graph has more than 2³¹ − 2 nodes).
pub fn semi_nca<G: Graph>(g: &G) -> Result<Vec<u32>, Error> {
    let n = g.node_count();
    check_node_count(n)?;

    let mut pre = try_filled(n, 0, "the preorder index")?;
    let mut parent = try_with_capacity(n + 1, "the DFS parents")?;
    let mut semi = try_with_capacity(n + 1, "the semidominators")?;
    let mut count = try_with_capacity(n + 1, "the predecessor counts")?;
    dfs(g, &mut pre, &mut parent, &mut semi, &mut count)?;
    let r = parent.len() - 1;
    if n - r > n / 8 {
        // Many unreachable nodes: give back what the DFS did not use.
        for v in [&mut parent, &mut semi, &mut count] {
            v.shrink_to_fit();
        }
    }

    let preds = group_predecessors(g, &pre, &mut semi, &mut count)?;
    let (mut ancestor, mut label) = (parent, count);
    semidominators(&mut semi, &mut ancestor, &mut label, &preds);
    drop(preds);
    drop(label);

    let mut idom = ancestor;
    recover_parents(g, &pre, &mut idom);
    nearest_common_ancestors(&semi, &mut idom);

    // `semi` is dead: reuse it as preorder → node to translate the result in place.
    let mut vertex = semi;
    for (v, &p) in pre.iter().enumerate() {
        let p = p & MASK;
        if p != 0 {
            vertex[p as usize] = v as u32;
        }
    }
    for p in pre.iter_mut() {
        let w = *p & MASK;
        *p = if w == 0 {
            UNREACHABLE
        } else {
            match idom[w as usize] {
                0 => VIRTUAL_ROOT,
                d => vertex[d as usize],
            }
        };
    }
    Ok(pre)
}

/// Depth-first search from the virtual root (preorder 0).
///
/// Fills `pre` (node → preorder, with [`FLAG`] on roots; 0 = not reached) and, indexed by
/// preorder, `parent`, `semi` = the smallest tree/forward predecessor (the parent or
/// less), and `count` = the number of back/cross predecessors.
///
/// The work stack holds nodes to visit. Visiting `w` pushes its unvisited successors as
/// one segment; `w` is on the DFS path while its segment is not used up, and meanwhile
/// `semi[w]` holds where the segment starts. A popped node that is already visited was
/// visited by a descendant of the segment's owner since it was pushed: a forward edge.
fn dfs<G: Graph>(
    g: &G,
    pre: &mut [u32],
    parent: &mut Vec<u32>,
    semi: &mut Vec<u32>,
    count: &mut Vec<u32>,
) -> Result<(), Error> {
    const WHAT: &str = "the DFS stack";
    let mut stack: Vec<u32> = Vec::new();
    let mut failed = None;
    g.for_each_root(|w| {
        let slot = &mut pre[w as usize];
        if *slot == 0 && failed.is_none() {
            *slot = FLAG;
            failed = try_push(&mut stack, w, WHAT).err();
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }

    // The virtual root: its segment (the roots) starts at 0.
    parent.push(0);
    semi.push(0);
    count.push(0);
    let mut cur = 0u32;
    loop {
        if stack.len() > semi[cur as usize] as usize {
            let w = stack.pop().unwrap();
            let pw = pre[w as usize] & MASK;
            if pw != 0 {
                let s = &mut semi[pw as usize];
                *s = (*s).min(cur);
                continue;
            }
            // Visit `w`. Capacities are n + 1, so these pushes never reallocate.
            let p = parent.len() as u32;
            pre[w as usize] |= p;
            parent.push(cur);
            semi.push(cur);
            count.push(0);
            let base = stack.len();
            g.for_each_successor(w, |x| {
                // Issued before the test so that both cache misses overlap.
                g.prefetch_successors(x);
                let px = pre[x as usize];
                if px == 0 {
                    if failed.is_none() {
                        failed = try_push(&mut stack, x, WHAT).err();
                    }
                } else if px & FLAG == 0 && px != p {
                    // Visited before `w`, so numbered below it: a back or cross edge.
                    count[px as usize] += 1;
                }
                // px & FLAG: an edge into a GC root, irrelevant to dominators.
            });
            if let Some(e) = failed {
                return Err(e);
            }
            if stack.len() > base {
                semi[p as usize] =
                    u32::try_from(base).map_err(|_| alloc_error(base, "the DFS stack (over 2³² entries)"))?;
                cur = p;
            }
        } else {
            if cur == 0 {
                return Ok(());
            }
            // `cur` is finished: its semi slot becomes the smallest lower predecessor so far.
            let p = parent[cur as usize];
            semi[cur as usize] = p;
            cur = p;
        }
    }
}

/// Groups the back/cross edges by target (a counting sort on `count`), returning the
/// sources. Groups are in increasing target order; the first source of each group and
/// the `semi` of each target that has a group carry [`FLAG`]. `count` is garbage after.
fn group_predecessors<G: Graph>(
    g: &G,
    pre: &[u32],
    semi: &mut [u32],
    count: &mut [u32],
) -> Result<Vec<u32>, Error> {
    // count[t] becomes the end of t's group.
    let mut total = 0u64;
    for c in count.iter_mut() {
        total += u64::from(*c);
        *c = total as u32;
    }
    if total > u64::from(u32::MAX) {
        return Err(Error::memory(format!(
            "dominators: {total} back/cross edges; at most {} are supported",
            u32::MAX
        )));
    }
    let b = total as usize;
    let mut preds = try_filled(b, 0, "the back/cross-edge predecessors")?;

    // Fill each group from its end, so count[t] ends at its start.
    for (v, &pv) in pre.iter().enumerate() {
        let pv = pv & MASK;
        if pv == 0 {
            continue;
        }
        g.for_each_successor(v as u32, |x| {
            let px = pre[x as usize];
            if px & FLAG == 0 && px < pv {
                let c = &mut count[px as usize];
                *c -= 1;
                preds[*c as usize] = pv;
            }
        });
    }

    let r = count.len() - 1;
    for t in 1..=r {
        let start = count[t] as usize;
        let end = if t == r { b } else { count[t + 1] as usize };
        if start < end {
            preds[start] |= FLAG;
            semi[t] |= FLAG;
        }
    }
    Ok(preds)
}

/// Semidominators, in reverse preorder. On entry `semi[w]` is the smallest tree/forward
/// predecessor (flagged if `w` has a group in `preds`) and `ancestor` the DFS parents; on
/// exit `semi` holds `sdom` and `ancestor`/`label` are garbage.
fn semidominators(semi: &mut [u32], ancestor: &mut [u32], label: &mut [u32], preds: &[u32]) {
    let r = semi.len() - 1;
    let mut cursor = preds.len();
    for w in (1..=r as u32).rev() {
        let sw = semi[w as usize];
        let mut s = sw & MASK;
        if sw & FLAG != 0 {
            loop {
                cursor -= 1;
                let e = preds[cursor];
                if s != 0 {
                    s = s.min(eval(ancestor, label, e & MASK, w));
                }
                if e & FLAG != 0 {
                    break;
                }
            }
        }
        semi[w as usize] = s;
        label[w as usize] = s;
        // Linking w to its parent is implicit: from now on w < current, so w is linked.
    }
    debug_assert_eq!(cursor, 0);
}

/// The smallest `sdom` on the forest path from `v` (processed: `v > w`) up to, not
/// including, the first unprocessed node (`≤ w`), compressing the path on the way.
///
/// Compression without recursion or a stack: reverse the links on the way up, then walk
/// back down, giving each node the running minimum and a link to the unprocessed node.
#[inline]
fn eval(ancestor: &mut [u32], label: &mut [u32], v: u32, w: u32) -> u32 {
    let a = ancestor[v as usize];
    if a <= w {
        return label[v as usize];
    }
    let mut x = v;
    let mut below = 0u32;
    let mut len = 0usize;
    let root = loop {
        let ax = ancestor[x as usize];
        if ax <= w {
            break ax;
        }
        ancestor[x as usize] = below;
        below = x;
        x = ax;
        len += 1;
    };
    let mut m = label[x as usize];
    let mut y = below;
    for _ in 0..len {
        let next = ancestor[y as usize];
        m = m.min(label[y as usize]);
        label[y as usize] = m;
        ancestor[y as usize] = root;
        y = next;
    }
    m
}

/// Restores the DFS parents into `parent`: for a node reached from a non-root, its parent
/// is its largest-numbered predecessor below it, since every predecessor numbered below
/// it is one of its DFS ancestors (the DFS would otherwise have visited it from there).
/// GC roots keep 0, the virtual root.
fn recover_parents<G: Graph>(g: &G, pre: &[u32], parent: &mut [u32]) {
    parent.fill(0);
    for (v, &pv) in pre.iter().enumerate() {
        let pv = pv & MASK;
        if pv == 0 {
            continue;
        }
        g.for_each_successor(v as u32, |x| {
            let px = pre[x as usize];
            if px & FLAG == 0 && px > pv {
                let p = &mut parent[px as usize];
                *p = (*p).max(pv);
            }
        });
    }
}

/// `idom(w)` = the nearest common dominator-tree ancestor of `parent(w)` and `sdom(w)`,
/// in preorder, overwriting `parent` with `idom`.
fn nearest_common_ancestors(semi: &[u32], idom: &mut [u32]) {
    for w in 1..idom.len() {
        let s = semi[w];
        let mut x = idom[w];
        while x > s {
            x = idom[x as usize];
        }
        idom[w] = x;
    }
}
