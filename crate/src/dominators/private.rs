//! Private nodes: the part of a heap graph whose dominators need no search.
//!
//! A node `v` is *private* when it is not a GC root, has exactly one distinct predecessor
//! `p` (self-loops aside), and no node of its *subtree* — `v` and, recursively, the
//! nodes whose only predecessor is in the subtree — has an edge to a node with two or
//! more predecessors, except GC roots and *hubs* (below). Then the subtree's edges lead
//! only into the subtree itself, into GC roots (whose incoming edges never matter, see
//! the [module docs](super)) and into hubs. Without the hubs, no path from the virtual
//! root to a non-private node would pass through a private node, so removing the private
//! nodes would change no other node's dominator; a private node is reachable exactly
//! when `p` is, and then `idom(v) = p`.
//!
//! On heap graphs almost every object is private (strings and their arrays, map
//! nodes, the elements of collections: anything owned by one object that refers only to
//! objects it owns, to classes that are GC roots, and to hubs), so
//! [`semi_nca`](fn@super::semi_nca) runs on the rest only: its per-node arrays are sized
//! by the non-private nodes. Measured on a 22M-object heap dump: 98% private.
//!
//! # Hubs
//!
//! A hub is a node with [`HUB_PREDS`] predecessors or more that is not a GC root: in a
//! heap, the class object of an application class (every instance points at its class
//! object, which is not a GC root) or an object shared by many. Without hubs, an
//! object is private only if its class is a GC root, and most objects of an application
//! are not (measured: 1% private instead of 98%). The edges from private nodes into hubs
//! are dropped too, and that is exact when, for each such edge `(u, x)`, `idom(x)`
//! dominates `u`: adding or removing such an edge changes no dominator (a path through
//! it reaches `u`, hence `idom(x)`, first). The search on the reduced graph gives each
//! hub its dominator there; `failed_hubs` then checks every dropped edge into a hub
//! not immediately under the virtual root (where the condition is trivial) by walking up
//! the dominator tree from its source. Hubs that fail are moved to the virtual root when
//! that is provably where they belong ([`super::lift`]); otherwise they are excluded and
//! the search runs again (the caller bounds the number of runs and finally runs without
//! hubs, which needs no check).
//!
//! # One scan
//!
//! `reduce` reads every edge once, keeping per node (in the `u32` that becomes the
//! output) its predecessor state — none, one (the predecessor itself), a count from 2
//! up to [`HUB_PREDS`] — and a *dirty* flag: "the subtree has an edge to a node with
//! many predecessors that is not a hub". A node is marked dirty when it has an edge to a
//! node that has (or later gets) many predecessors, unless that node is a hub by then,
//! and dirtiness climbs to the single predecessor of a dirty node, at the time either
//! fact becomes known: marking stops at a node already dirty, so each node is climbed
//! through once. Marks are justified by the final predecessor states except the few
//! made before a node became a hub, which only keep a few more nodes than needed.
//!
//! # Encoding shared with Semi-NCA
//!
//! After `reduce`, `out[v]` is `PRIVATE`` | p` for a private node with predecessor
//! `p`, and 0 for the others (Semi-NCA then numbers them). At the end, once Semi-NCA has
//! written the non-private nodes' results, `resolve` turns each private entry into `p`
//! or [`UNREACHABLE`], following chains of private nodes up to a node already resolved;
//! a chain can also close on itself (a cycle nothing else points at), and is then
//! unreachable.

use std::collections::HashSet;

use super::{Graph, UNREACHABLE, VIRTUAL_ROOT};
use crate::alloc::try_filled;
use crate::bits::BitSet;
use crate::error::Error;

/// Flag bit of a private node's entry; the predecessor is under it.
pub(crate) const PRIVATE: u32 = 1 << 31;
const MASK: u32 = PRIVATE - 1;
/// Predecessors a node needs to be a hub (by default; at most [`MAX_HUB_PREDS`]).
pub const HUB_PREDS: u32 = 32;
pub const MAX_HUB_PREDS: u32 = 32;
/// Predecessor states during the scan, above every node index (see
/// [`super::MAX_NODES`]): none yet, `many + c` for `c` predecessors (2 ≤ c < the hub
/// threshold, `many = HUB - threshold`), and [`HUB`].
const NONE: u32 = MASK;
const HUB: u32 = MASK - 1;
/// The state of a GC root: below every `many`, above every node index. Kept in the
/// state itself so that the scan reads one word per edge, not the root set's bit too.
const ROOT: u32 = HUB - MAX_HUB_PREDS - 1;
/// During the scan the top bit is the dirty flag instead.
const DIRTY: u32 = PRIVATE;

/// The GC roots (successors of the virtual root).
pub(crate) type RootSet = BitSet;

/// The GC roots of `g`, as a set.
pub(crate) fn root_set<G: Graph>(g: &G) -> Result<RootSet, Error> {
    let mut set = BitSet::new(g.node_count(), "the GC root set")?;
    g.for_each_root(|r| set.insert(r));
    Ok(set)
}

/// What [`reduce`] found.
pub(crate) struct Reduced {
    /// The array described in the module docs.
    pub out: Vec<u32>,
    /// Nodes that are not private.
    pub kept: usize,
    /// The hubs, ascending.
    pub hubs: Vec<u32>,
    /// The nodes with an edge into a hub: the only ones the hub check looks at.
    pub into_hubs: BitSet,
}

/// Finds the private nodes. Nodes with `hub_preds` predecessors or more are hubs (2 ≤
/// `hub_preds` ≤ [`MAX_HUB_PREDS`]; 0 for none), except `not_hubs` (ascending).
pub(crate) fn reduce<G: Graph>(g: &G, hub_preds: u32, not_hubs: &[u32]) -> Result<Reduced, Error> {
    let n = g.node_count();
    let hubs = hub_preds != 0;
    let hub_preds = hub_preds.clamp(2, MAX_HUB_PREDS);
    let many = HUB - hub_preds;
    debug_assert!(n as u64 <= (HUB - MAX_HUB_PREDS) as u64);
    let mut out = try_filled(n, NONE, "the predecessor states")?;
    g.for_each_root(|r| out[r as usize] = ROOT);
    let mut into_hubs = BitSet::new(n, "the hub check")?;

    // Marks `y` dirty and climbs through single predecessors.
    let mark = |out: &mut [u32], mut y: u32| loop {
        let s = out[y as usize];
        if s & DIRTY != 0 {
            return;
        }
        out[y as usize] = s | DIRTY;
        let p = s & MASK;
        if p >= ROOT {
            return;
        }
        y = p;
    };
    let is_hub = |x: u32| hubs && not_hubs.binary_search(&x).is_err();

    g.for_each_edge(|u, x| {
        if x == u {
            return;
        }
        let s = out[x as usize];
        let (p, dirty) = (s & MASK, s & DIRTY);
        if p < ROOT {
            if p != u {
                out[x as usize] = dirty | (many + 2);
                mark(out.as_mut_slice(), p);
                mark(out.as_mut_slice(), u);
            }
            // else: a duplicate edge.
        } else if p == NONE {
            out[x as usize] = dirty | u;
            if dirty != 0 {
                mark(out.as_mut_slice(), u);
            }
        } else if p == ROOT {
            // Edges into GC roots never matter (see the module docs of `dominators`).
        } else {
            // Counts edges, not distinct sources: duplicate edges can make a hub of
            // a node with fewer predecessors, which is still checked like any other.
            let p = if p < HUB { p + 1 } else { p };
            out[x as usize] = dirty | p;
            if p < HUB || !is_hub(x) {
                mark(out.as_mut_slice(), u);
            } else {
                into_hubs.insert(u);
            }
        }
    });

    let mut kept = 0usize;
    let mut hub_list = Vec::new();
    for (v, s) in out.iter_mut().enumerate() {
        let p = *s & MASK;
        if *s & DIRTY == 0 && p < ROOT {
            *s = PRIVATE | p;
        } else {
            if p == HUB && is_hub(v as u32) {
                if hub_list.len() == hub_list.capacity() {
                    hub_list
                        .try_reserve(hub_list.len().max(64))
                        .map_err(|_| crate::alloc::alloc_error(4 * (hub_list.len()), "the hub list"))?;
                }
                hub_list.push(v as u32);
            }
            *s = 0;
            kept += 1;
        }
    }
    Ok(Reduced { out, kept, hubs: hub_list, into_hubs })
}

/// Before [`resolve`]: one byte per node, [`MARK_PRIVATE`] on the private nodes; the
/// rest of the byte is [`failed_hubs`]'s memo.
pub(crate) fn private_marks(out: &[u32]) -> Result<Vec<u8>, Error> {
    let mut marks = Vec::new();
    marks.try_reserve_exact(out.len()).map_err(|_| crate::alloc::alloc_error(4 * (out.len() / 4), "the hub check"))?;
    marks.extend(out.iter().map(|&s| if unresolved(s) { MARK_PRIVATE } else { 0 }));
    Ok(marks)
}

pub(crate) const MARK_PRIVATE: u8 = 0x40;
const MARK_KNOWN: u8 = 0x80;
/// The memo's value: an index into the scan's list of the suspects' dominators, or
/// [`NO_DOM`].
const MARK_BITS: u8 = 0x3f;
const NO_DOM: u8 = MARK_BITS;
/// Distinct suspect dominators per scan (one memo value each, [`NO_DOM`] aside).
const DOMS_PER_SCAN: usize = NO_DOM as usize;

/// After the search and [`resolve`] (`idom` final for the reduced graph): the hubs
/// among `suspects` (hubs not immediately under the virtual root, ascending) that some
/// reachable private node points at without being dominated by the hub's `idom`, each
/// with the nearest common ancestor of its `idom` (if reachable) and the private nodes
/// pointing at it: its `idom` in the whole graph is that node or above it, and when the
/// tree moved under it says so, that node (see [`super::lift`]). The ancestor is found
/// from the scan's edges from the first failing one on; `None` when that took more than
/// [`PROOF_STEPS`] (or as many as there are nodes) steps up the tree in all.
///
/// One scan of the edges checks up to [`DOMS_PER_SCAN`] distinct dominators (every hub
/// on a heap graph, in practice): the memo in `marks` keeps, per node walked, its
/// nearest dominator-tree ancestor (itself included) among them, and each of them its
/// ancestors among them as a bit mask, so a walk up from a private node stops at the
/// first node walked before, and a scan costs `O(edges + n)`. Its test per edge reads
/// no per-node array at random: the source's bit in `into_hubs` (in order) and the
/// target's in a small filter of the suspects (in cache); the few edges passing both
/// are handled out of line.
pub(crate) fn failed_hubs<G: Graph>(
    g: &G,
    idom: &[u32],
    marks: &mut [u8],
    suspects: &[u32],
    into_hubs: &BitSet,
) -> Result<Vec<(u32, Option<u32>)>, Error> {
    debug_assert!(suspects.windows(2).all(|w| w[0] < w[1]));
    let mut failed = Vec::new();
    let mut rest = suspects;
    let mut first = true;
    // At least linear in the graph, as the rest of the search: deep trees (long linked
    // lists) make each referrer's climb long, and a proof is far cheaper than a search.
    let mut steps = PROOF_STEPS.max(idom.len());
    while !rest.is_empty() {
        // The longest prefix of `rest` with at most DOMS_PER_SCAN distinct dominators. A
        // suspect's dominator may be UNREACHABLE: then no walk ever finds it, as wanted (a
        // reachable private node pointing at it would make it reachable).
        let mut doms: Vec<u32> = Vec::new();
        let mut take = 0;
        for &h in rest {
            let d = idom[h as usize];
            if d != UNREACHABLE && !doms.contains(&d) {
                if doms.len() == DOMS_PER_SCAN {
                    break;
                }
                doms.push(d);
            }
            take += 1;
        }
        let (batch, later) = rest.split_at(take);
        rest = later;
        if !first {
            for m in marks.iter_mut() {
                *m &= MARK_PRIVATE;
            }
        }
        first = false;
        // Each dominator is its own nearest one; then its ancestors among the others.
        for (j, &d) in doms.iter().enumerate() {
            marks[d as usize] = (marks[d as usize] & MARK_PRIVATE) | MARK_KNOWN | j as u8;
        }
        let above: Vec<u8> = doms.iter().map(|&d| nearest_dom(idom, marks, idom[d as usize])).collect();
        let ancestors: Vec<u64> = (0..doms.len())
            .map(|j| {
                let (mut a, mut mask) = (above[j], 0u64);
                while a != NO_DOM {
                    mask |= 1 << a;
                    a = above[a as usize];
                }
                mask
            })
            .collect();
        // Per suspect of the batch, the bit of its dominator (0: unreachable, never found).
        let want: Vec<u64> =
            batch.iter().map(|&h| doms.iter().position(|&d| d == idom[h as usize]).map_or(0, |j| 1 << j)).collect();
        let filter = SmallFilter::new(batch);
        let lost: Vec<Option<Ancestor>> = (0..batch.len()).map(|_| None).collect();
        let mut scan = Scan { idom, marks, batch, ancestors: &ancestors, want: &want, lost, steps };
        // Only the edges of nodes with an edge into a hub (the graph may skip the others
        // unread); the edge test inline, the rest out of line.
        g.for_each_edge_from(into_hubs.words(), |u, x| {
            if filter.may_contain(x) {
                scan.edge(u, x);
            }
        });
        let Scan { lost, steps: left, .. } = scan;
        steps = left;
        failed.extend(batch.iter().zip(lost).filter_map(|(&h, l)| Some((h, l?.top))));
    }
    Ok(failed)
}

/// One scan of [`failed_hubs`]: the suspects of a batch, what is known of their
/// dominators, and per suspect that lost the common ancestor of its witnesses so far.
struct Scan<'a> {
    idom: &'a [u32],
    marks: &'a mut [u8],
    batch: &'a [u32],
    ancestors: &'a [u64],
    want: &'a [u64],
    lost: Vec<Option<Ancestor>>,
    steps: usize,
}

impl Scan<'_> {
    /// The edge `u → x`, where `u` has an edge into a hub and `x` may be a suspect.
    #[inline(never)]
    fn edge(&mut self, u: u32, x: u32) {
        let idom = self.idom;
        if self.marks[u as usize] & MARK_PRIVATE == 0 || idom[u as usize] == UNREACHABLE {
            return;
        }
        let Ok(k) = self.batch.binary_search(&x) else { return };
        if let Some(nca) = &mut self.lost[k] {
            nca.add(idom, u, &mut self.steps);
            return;
        }
        let a = nearest_dom(idom, self.marks, u);
        let mask = if a == NO_DOM { 0 } else { (1u64 << a) | self.ancestors[a as usize] };
        if mask & self.want[k] == 0 {
            // Every non-private referrer is under the hub's idom (if reachable).
            let mut nca = Ancestor::new(idom, u);
            let d = idom[x as usize];
            if d != UNREACHABLE {
                nca.add(idom, d, &mut self.steps);
            }
            self.lost[k] = Some(nca);
        }
    }
}

/// A set of few nodes as 2¹⁶ bits (8 KiB, in cache) indexed by the low bits of a node:
/// a test with false positives that spares the scan a random read per edge.
pub(crate) struct SmallFilter(Vec<u64>);

impl SmallFilter {
    const BITS: u32 = 16;

    pub(crate) fn new(nodes: &[u32]) -> SmallFilter {
        let mut words = vec![0u64; (1 << Self::BITS) / 64];
        for &v in nodes {
            let b = v & ((1 << Self::BITS) - 1);
            words[b as usize / 64] |= 1 << (b % 64);
        }
        SmallFilter(words)
    }

    #[inline(always)]
    pub(crate) fn may_contain(&self, v: u32) -> bool {
        let b = v & ((1 << Self::BITS) - 1);
        self.0[b as usize / 64] & (1 << (b % 64)) != 0
    }
}

/// Steps up the dominator tree [`failed_hubs`] may take to prove lost hubs hang off the
/// virtual root (a few per referrer on heap graphs, where the proof takes a few referrers).
const PROOF_STEPS: usize = 1 << 22;

/// The nearest common ancestor of the nodes added so far (all reachable), with its
/// ancestors; `top` is `None` once the step budget ran out.
struct Ancestor {
    top: Option<u32>,
    above: HashSet<u32>,
}

impl Ancestor {
    fn new(idom: &[u32], v: u32) -> Ancestor {
        let mut a = Ancestor { top: Some(v), above: HashSet::new() };
        a.climb(idom, v);
        a
    }

    /// Records `v` and its ancestors as those of the common ancestor.
    fn climb(&mut self, idom: &[u32], mut v: u32) {
        self.above.clear();
        while v != VIRTUAL_ROOT {
            self.above.insert(v);
            v = idom[v as usize];
        }
    }

    fn add(&mut self, idom: &[u32], v: u32, steps: &mut usize) {
        let Some(top) = self.top else { return };
        if top == VIRTUAL_ROOT {
            return;
        }
        let mut y = v;
        while y != VIRTUAL_ROOT && !self.above.contains(&y) {
            if *steps == 0 {
                self.top = None;
                return;
            }
            *steps -= 1;
            y = idom[y as usize];
        }
        if y != top {
            self.top = Some(y);
            // Climbing again is bounded by the steps of the first climb: the tree's depth.
            self.climb(idom, y);
        }
    }
}

/// The nearest of the scan's dominators on the dominator-tree path from `u` up (`u`
/// included), or [`NO_DOM`]; memoised in `marks`.
fn nearest_dom(idom: &[u32], marks: &mut [u8], u: u32) -> u8 {
    // Up to the first node walked before (or past the top).
    let mut y = u;
    let found = loop {
        if y == VIRTUAL_ROOT || y == UNREACHABLE {
            break NO_DOM;
        }
        let m = marks[y as usize];
        if m & MARK_KNOWN != 0 {
            break m & MARK_BITS;
        }
        y = idom[y as usize];
    };
    // Down again from `u`: no node on the way is one of the dominators (those are known).
    let mut z = u;
    while z != y {
        marks[z as usize] = (marks[z as usize] & MARK_PRIVATE) | MARK_KNOWN | found;
        z = idom[z as usize];
    }
    found
}

/// Whether `s` is a private entry not resolved yet (`VIRTUAL_ROOT` and `UNREACHABLE`
/// also have the top bit, but their payloads are not node indices).
#[inline(always)]
fn unresolved(s: u32) -> bool {
    s & PRIVATE != 0 && s != UNREACHABLE && s != VIRTUAL_ROOT
}

/// Replaces every private entry by its predecessor, or [`UNREACHABLE`] when the chain of
/// private predecessors above it does not end at a reachable node.
pub(crate) fn resolve(out: &mut [u32]) {
    for v in 0..out.len() {
        let s = out[v];
        if !unresolved(s) {
            continue;
        }
        // The usual case first: the predecessor is resolved already (a collector lays an
        // owner out before what it owns, so it has the lower index).
        let p = s & MASK;
        let above = out[p as usize];
        if !unresolved(above) {
            out[v] = if above == UNREACHABLE { UNREACHABLE } else { p };
            continue;
        }
        // Climb to the first resolved node, with Brent's cycle detection: the chain may
        // end in a loop of private nodes.
        let (mut hare, mut tortoise) = (v as u32, v as u32);
        let (mut power, mut steps) = (1u64, 0u64);
        let reachable = loop {
            let s = out[hare as usize];
            if !unresolved(s) {
                break s != UNREACHABLE;
            }
            hare = s & MASK;
            steps += 1;
            if hare == tortoise {
                break false;
            }
            if steps == power {
                tortoise = hare;
                power *= 2;
                steps = 0;
            }
        };
        // Resolve the chain (for a loop, up to where it closes).
        let mut y = v as u32;
        while unresolved(out[y as usize]) {
            let p = out[y as usize] & MASK;
            out[y as usize] = if reachable { p } else { UNREACHABLE };
            y = p;
        }
    }
}
