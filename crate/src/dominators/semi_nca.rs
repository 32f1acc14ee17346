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
//! The search runs on the nodes that are not *private* (see [`super::private`]): a
//! first scan over every edge finds the nodes owned by a single other node whose own
//! references stay among what they own, GC roots and hubs; their immediate dominator is
//! their owner, and the search skips them. On heap graphs that is ~98% of the nodes.
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
//! With `n` nodes, `k` of them not private, `r` of those reachable, and `b` back/cross
//! edges among them (edges `(v, w)` with `v > w` in preorder, not counting self-loops and
//! edges into GC roots), the peak is
//!
//! ```text
//! 4n + n/4 + 12k + 4b bytes   (≈ 4.3 bytes per object when few nodes are kept)
//! ```
//!
//! plus the DFS work stack (below), and `n` bytes for the hub check when some hub is not
//! under the virtual root (after the search's arrays are freed). The output is the
//! `4n`-byte array that held the predecessor states, then the preorder index, rewritten
//! in place, so nothing is allocated after the predecessors are freed. Measured on a
//! 22M-object heap dump (`make-big.sh 1`): `k` = 0.42M, `b` = 0.36M, 4.5 bytes per
//! object. Without private nodes (`k = r = n`) it is ≈ 16 bytes per object + 4 per
//! back/cross edge. The arrays and their reuse:
//!
//! | array    | entries | lifetime and reuse |
//! |----------|---------|--------------------|
//! | `roots`  | `n` bits | GC roots, to the end of the search |
//! | `into_hubs` | `n` bits | nodes with an edge into a hub, for the hub check |
//! | `pre`    | `n` | predecessor states → private marks, then node → preorder number for the others; then rewritten into the output |
//! | `parent` | `r` | DFS parent → forest ancestor (semidominators) → parent again → `idom` |
//! | `semi`   | `r` | DFS path bookkeeping → smallest tree/forward predecessor → `sdom` → preorder → node |
//! | `count`  | `r` | back/cross-edge counts → group offsets → min-`sdom` label; freed before the NCA pass |
//! | `preds`  | `b` | back/cross sources grouped by target; freed after the semidominators |
//!
//! (`parent`, `semi` and `count` are allocated for the `k` kept nodes and shrunk to `r`
//! when many of those are unreachable.) All five are alive from the predecessor fill to
//! the end of the semidominator pass; from then on it is `4n + 8r` bytes, including the
//! output.
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
//! The graph is scanned once whole (the private nodes) and three times over the kept
//! nodes: the DFS, the predecessor fill, and the parent recovery. Keeping the parents in
//! a fourth array would save the last scan for 4 bytes per kept node. When some hub is
//! not immediately under the virtual root, the graph is scanned once more to check the
//! hubs (once per 63 distinct hub dominators). A hub that loses its bet is moved in place,
//! with what it reaches, under the nearest common ancestor of its referrers (on heap
//! graphs: the class objects of `char[]` and `int[]` when they are not GC roots, under the
//! virtual root; a class whose instances all sit under one object, under that object),
//! and the move is checked (see [`super::lift`]); when that fails the whole search runs
//! again (twice at most; see [`semi_nca_tuned`]).
//! [`Graph::for_each_successor`] must report the same successors every time.

use super::lift::{self, Lifted};
use super::private::{self, RootSet, PRIVATE};
use super::{check_node_count, Graph, UNREACHABLE, VIRTUAL_ROOT};
use crate::alloc::{try_filled, try_push, try_with_capacity};
use crate::error::Error;

/// Flag bit: in `semi`, "this node has back/cross predecessors"; in `preds`, "first
/// source of its group". (In `pre`, the same bit marks private nodes, [`PRIVATE`].)
const FLAG: u32 = 1 << 31;
/// The number under the flag.
const MASK: u32 = FLAG - 1;
/// `pre` of a GC root not visited yet: flagged like a private node, so that edges into it
/// are skipped like edges into private nodes (its predecessor part is not a node index).
const ROOT_PENDING: u32 = u32::MAX;

/// Immediate dominators of every node of `g` by the Semi-NCA algorithm.
///
/// Returns `idom` indexed by node, as described in the [module docs](super). Fails only
/// when memory runs out (or the graph has more than 2³¹ − 2 nodes).
pub fn semi_nca<G: Graph>(g: &G) -> Result<Vec<u32>, Error> {
    semi_nca_with_stats(g).map(|(idom, _)| idom)
}

/// What [`semi_nca_with_stats`] saw (of its last run, when it ran twice).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub nodes: usize,
    /// Nodes that are not private (see [`super::private`]), reachable or not.
    pub kept: usize,
    /// Of those, the ones the search reached: the size of the per-node arrays.
    pub searched: usize,
    pub back_cross_edges: usize,
    /// Hubs (see [`super::private`]), how many lost their bet, and the runs it took.
    pub hubs: usize,
    pub failed_hubs: usize,
    pub runs: usize,
    /// Of the hubs that lost their bet, those moved in place (see [`super::lift`])
    /// instead of searching again.
    pub lifted_hubs: usize,
    /// Of those, the ones moved under a node rather than the virtual root.
    pub lifted_under_nodes: usize,
}

/// [`semi_nca`], also returning [`Stats`].
pub fn semi_nca_with_stats<G: Graph>(g: &G) -> Result<(Vec<u32>, Stats), Error> {
    semi_nca_tuned(g, private::HUB_PREDS)
}

/// [`semi_nca_with_stats`] with another hub threshold (2 to
/// [`private::MAX_HUB_PREDS`], or 0 for no hubs): the result is the same, only the
/// work differs. Tests use low thresholds to make hubs lose their bet often.
#[doc(hidden)]
pub fn semi_nca_tuned<G: Graph>(g: &G, hub_preds: u32) -> Result<(Vec<u32>, Stats), Error> {
    let n = g.node_count();
    check_node_count(n)?;
    let roots = private::root_set(g)?;
    // Hubs that lose their bet are excluded and the search repeated; after two failed
    // runs (rare: each run excludes every hub that failed) the last one goes without
    // hubs, which needs no check.
    let mut not_hubs: Vec<u32> = Vec::new();
    for attempt in 0..3 {
        let threshold = if attempt < 2 { hub_preds } else { 0 };
        match run(g, &roots, threshold, &not_hubs)? {
            Ok((idom, mut stats)) => {
                stats.failed_hubs = not_hubs.len() + stats.lifted_hubs;
                stats.runs = attempt + 1;
                return Ok((idom, stats));
            }
            Err(failed) => {
                not_hubs.extend(failed);
                not_hubs.sort_unstable();
            }
        }
    }
    unreachable!("the run without hubs is not checked")
}

/// One search over the nodes that are not private, with hubs (see [`super::private`])
/// of `hub_preds` predecessors or more (none if 0) but never `not_hubs`; `Ok(Err(hubs))`
/// when hubs lost their bet and the result is void.
#[allow(clippy::type_complexity)]
fn run<G: Graph>(
    g: &G,
    roots: &RootSet,
    hub_preds: u32,
    not_hubs: &[u32],
) -> Result<Result<(Vec<u32>, Stats), Vec<u32>>, Error> {
    let n = g.node_count();
    let private::Reduced { out: mut pre, kept, hubs, into_hubs } = private::reduce(g, hub_preds, not_hubs)?;
    let mut parent = try_with_capacity(kept + 1, "the DFS parents")?;
    let mut semi = try_with_capacity(kept + 1, "the semidominators")?;
    let mut count = try_with_capacity(kept + 1, "the predecessor counts")?;
    dfs(g, roots, &mut pre, &mut parent, &mut semi, &mut count)?;
    let r = parent.len() - 1;
    if kept - r > kept / 8 {
        // Many unreachable nodes: give back what the DFS did not use.
        for v in [&mut parent, &mut semi, &mut count] {
            v.shrink_to_fit();
        }
    }

    let preds = group_predecessors(g, roots, &pre, &mut semi, &mut count)?;
    let stats = Stats {
        nodes: n,
        kept,
        searched: r,
        back_cross_edges: preds.len(),
        hubs: hubs.len(),
        failed_hubs: 0,
        runs: 0,
        lifted_hubs: 0,
        lifted_under_nodes: 0,
    };
    let (mut ancestor, mut label) = (parent, count);
    semidominators(&mut semi, &mut ancestor, &mut label, &preds);
    drop(preds);
    drop(label);

    let mut idom = ancestor;
    recover_parents(g, roots, &pre, &mut idom);
    nearest_common_ancestors(&semi, &mut idom);

    // `semi` is dead: reuse it as preorder → node to translate the result in place.
    let mut vertex = semi;
    for (v, &p) in pre.iter().enumerate() {
        if p != 0 && p & PRIVATE == 0 {
            vertex[p as usize] = v as u32;
        }
    }
    for p in pre.iter_mut() {
        let w = *p;
        if w & PRIVATE != 0 {
            continue;
        }
        *p = if w == 0 {
            UNREACHABLE
        } else {
            match idom[w as usize] {
                0 => VIRTUAL_ROOT,
                d => vertex[d as usize],
            }
        };
    }
    drop(vertex);
    drop(idom);
    // Hubs under the virtual root need no check (see the private module's docs).
    let suspects: Vec<u32> = hubs.iter().copied().filter(|&h| pre[h as usize] != VIRTUAL_ROOT).collect();
    let mut marks = if suspects.is_empty() { None } else { Some(private::private_marks(&pre)?) };
    private::resolve(&mut pre);
    if let Some(marks) = &mut marks {
        let failed = private::failed_hubs(g, &pre, marks, &suspects, &into_hubs)?;
        if !failed.is_empty() {
            let mut lost: Vec<u32> = failed.iter().map(|&(h, _)| h).collect();
            let moves: Option<Vec<(u32, u32)>> = failed.iter().map(|&(h, c)| c.map(|c| (h, c))).collect();
            if let Some(moves) = moves {
                let under = moves.iter().filter(|&&(_, c)| c != VIRTUAL_ROOT).count();
                let lifted = Stats { lifted_hubs: lost.len(), lifted_under_nodes: under, ..stats };
                match lift::lift_failed_hubs(g, roots, &mut pre, marks, &hubs, &moves)? {
                    Lifted::Done => return Ok(Ok((pre, lifted))),
                    Lifted::Recheck => {
                        for m in marks.iter_mut() {
                            *m &= private::MARK_PRIVATE;
                        }
                        let rest: Vec<u32> =
                            suspects.iter().copied().filter(|&h| pre[h as usize] != VIRTUAL_ROOT).collect();
                        let again = private::failed_hubs(g, &pre, marks, &rest, &into_hubs)?;
                        // A hub moved under a node must have stayed right under it (see
                        // the lift module's docs): then that node is its dominator.
                        if again.is_empty() && moves.iter().all(|&(h, c)| pre[h as usize] == c) {
                            return Ok(Ok((pre, lifted)));
                        }
                        lost.extend(again.iter().map(|&(h, _)| h));
                    }
                    Lifted::No => {}
                }
            }
            return Ok(Err(lost));
        }
    }
    Ok(Ok((pre, stats)))
}

/// Depth-first search from the virtual root (preorder 0) over the nodes that are not
/// private.
///
/// Fills `pre` (node → preorder; 0 = not reached; private entries untouched) and, indexed
/// by preorder, `parent`, `semi` = the smallest tree/forward predecessor (the parent or
/// less), and `count` = the number of back/cross predecessors.
///
/// The work stack holds nodes to visit. Visiting `w` pushes its unvisited successors as
/// one segment; `w` is on the DFS path while its segment is not used up, and meanwhile
/// `semi[w]` holds where the segment starts. A popped node that is already visited was
/// visited by a descendant of the segment's owner since it was pushed: a forward edge.
fn dfs<G: Graph>(
    g: &G,
    roots: &RootSet,
    pre: &mut [u32],
    parent: &mut Vec<u32>,
    semi: &mut Vec<u32>,
    count: &mut Vec<u32>,
) -> Result<(), Error> {
    const WHAT: &str = "the DFS stack";
    let mut stack: Vec<u32> = Vec::new();
    let mut failed = None;
    g.for_each_root(|w| {
        // Roots are never private: pre[w] is 0 until the root is pushed.
        let slot = &mut pre[w as usize];
        if *slot == 0 && failed.is_none() {
            *slot = ROOT_PENDING;
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
            let pw = pre[w as usize];
            if pw != 0 && pw != ROOT_PENDING {
                let s = &mut semi[pw as usize];
                *s = (*s).min(cur);
                continue;
            }
            // Visit `w`. Capacities are kept + 1, so these pushes never reallocate.
            let p = parent.len() as u32;
            pre[w as usize] = p;
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
                } else if px & PRIVATE == 0 && px != p && !roots.contains(x) {
                    // Visited before `w`, so numbered below it: a back or cross edge.
                    count[px as usize] += 1;
                }
                // Edges into private nodes (from their only predecessor) and into GC
                // roots are irrelevant to dominators.
            });
            if let Some(e) = failed {
                return Err(e);
            }
            if stack.len() > base {
                semi[p as usize] = u32::try_from(base)
                    .map_err(|_| crate::alloc::alloc_error(4 * (base), "the DFS stack (over 2³² entries)"))?;
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
    roots: &RootSet,
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
        return Err(Error::memory(format!("dominators: {total} back/cross edges; at most {} are supported", u32::MAX)));
    }
    let b = total as usize;
    let mut preds = try_filled(b, 0, "the back/cross-edge predecessors")?;

    // Fill each group from its end, so count[t] ends at its start.
    for (v, &pv) in pre.iter().enumerate() {
        if pv == 0 || pv & PRIVATE != 0 {
            continue;
        }
        g.for_each_successor(v as u32, |x| {
            let px = pre[x as usize];
            if px < pv && !roots.contains(x) {
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
fn recover_parents<G: Graph>(g: &G, roots: &RootSet, pre: &[u32], parent: &mut [u32]) {
    parent.fill(0);
    for (v, &pv) in pre.iter().enumerate() {
        if pv == 0 || pv & PRIVATE != 0 {
            continue;
        }
        g.for_each_successor(v as u32, |x| {
            let px = pre[x as usize];
            if px & PRIVATE == 0 && px > pv && !roots.contains(x) {
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
