//! Dominators of a heap graph.
//!
//! Nodes are `0..n`. A *virtual root* (not one of the nodes) has an edge to every node
//! listed by [`Graph::for_each_root`]. Node `d` *dominates* `v` when every path from the
//! virtual root to `v` passes through `d`; the *immediate dominator* `idom(v)` is the
//! dominator of `v` closest to it. The result is an array `idom` of length `n`:
//! `idom[v]` is a node index, or [`VIRTUAL_ROOT`] when the virtual root is `v`'s immediate
//! dominator, or [`UNREACHABLE`] when `v` cannot be reached from the virtual root.
//!
//! Two exact algorithms compute the same array:
//!
//! - [`semi_nca`](mod@semi_nca) (Semi-NCA, Georgiadis 2005): a depth-first search, semidominators by
//!   path compression in reverse preorder, then each `idom` as the nearest common
//!   ancestor of the DFS parent and the semidominator. `O(m log n)` worst case and
//!   near-linear on real graphs. It first sets aside the *private* nodes (owned by one
//!   node and referring only to what they own, to GC roots and to hubs: see [`private`]),
//!   whose immediate dominator is their owner, and searches the rest: about 4 bytes per
//!   node plus 12 per kept node and 4 per back/cross edge at peak. It is the production
//!   default.
//! - [`cooper_harvey_kennedy`] (Cooper, Harvey & Kennedy, "A Simple, Fast Dominance
//!   Algorithm", 2001): iterate `idom(b) = ∩ preds(b)` in reverse postorder to a fixed
//!   point. Simple enough to trust, but `O(n²)` on a long dominator chain whose nodes all
//!   point at one shared node, which heaps do have. Kept to cross-check the default.
//!
//! Both are iterative (no recursion: a heap holds linked lists millions of nodes long),
//! allocate their big arrays fallibly and report [`crate::error::ErrorKind::Memory`]
//! instead of aborting, and are deterministic: the same graph (same root and successor
//! order) gives the same array. Dominators do not depend on that order, so the two always
//! agree.
//!
//! Both use one fact to save work: an edge into a child of the virtual root (a node that
//! is a GC root and also referenced by another object) never changes any dominator,
//! because any path through it can be shortened to start at the virtual root. Such edges
//! are ignored throughout, and the DFS sees each root only as a child of the virtual root.
//!
//! Implementing [`Graph`]: `for_each_successor` must give the same successors on every
//! call (the algorithms scan the graph more than once), and the optional
//! [`Graph::prefetch_successors`] hint is worth implementing for a large CSR graph (see
//! [`crate::alloc::prefetch`]). [`CsrGraph`] is a plain implementation for tests and small callers.
//!
//! Limits: `node_count()` must be below 2³¹ − 64 (preorder numbers carry a flag bit).

pub mod chk;
pub mod lift;
pub mod private;
pub mod semi_nca;

#[doc(hidden)]
pub mod brute;

#[cfg(test)]
mod tests;

pub use chk::{cooper_harvey_kennedy, cooper_harvey_kennedy_bounded};
pub use semi_nca::{semi_nca, semi_nca_tuned, semi_nca_with_stats, Stats};

use crate::error::Error;

/// `idom[v]` for the children of the virtual root.
pub const VIRTUAL_ROOT: u32 = u32::MAX - 1;
/// `idom[v]` for nodes the virtual root does not reach.
pub const UNREACHABLE: u32 = u32::MAX;

/// A directed graph as the dominator algorithms see it: callers supply implicit edges
/// (instance → class, thread → locals) without materialising them.
pub trait Graph {
    /// Number of nodes; every index passed to or returned by the methods is below it.
    fn node_count(&self) -> usize;
    /// The successors of the virtual root (GC roots). Duplicates are allowed.
    fn for_each_root<F: FnMut(u32)>(&self, f: F);
    /// The successors of `v`, in a fixed order. Duplicates and self-loops are allowed.
    fn for_each_successor<F: FnMut(u32)>(&self, v: u32, f: F);
    /// A hint that [`Graph::for_each_successor`] will soon be called for `v`. An
    /// implementation may prefetch the memory that call reads first (such as `v`'s CSR
    /// offset): the depth-first searches call it when they discover a node, which overlaps
    /// the cache miss with other work (measured: the Semi-NCA DFS runs 15–30% faster on
    /// a 20M-node graph). Optional; the default does nothing.
    #[inline]
    fn prefetch_successors(&self, _v: u32) {}
    /// Calls `f(v, x)` for every edge `v → x`: for each node `v` in increasing order, the
    /// successors [`Graph::for_each_successor`] gives, in its order. Scans of the whole
    /// graph use it; an implementation may read its storage sequentially here.
    #[inline]
    fn for_each_edge<F: FnMut(u32, u32)>(&self, mut f: F) {
        for v in 0..self.node_count() as u32 {
            self.for_each_successor(v, |x| f(v, x));
        }
    }
    /// [`Graph::for_each_edge`] for the sources whose bit is set in `from` (bit `v % 64`
    /// of word `v / 64`, `node_count` bits): the edges of the others are skipped. An
    /// implementation may skip them without reading them.
    #[inline]
    fn for_each_edge_from<F: FnMut(u32, u32)>(&self, from: &[u64], mut f: F) {
        self.for_each_edge(|v, x| {
            if from[v as usize / 64] >> (v % 64) & 1 != 0 {
                f(v, x)
            }
        });
    }
}

/// A plain graph in compressed sparse row form: for tests, benchmarks and small callers.
///
/// Successors of `v` are `targets[offsets[v]..offsets[v + 1]]`, in insertion order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CsrGraph {
    offsets: Vec<u64>,
    targets: Vec<u32>,
    roots: Vec<u32>,
}

impl CsrGraph {
    /// A graph with `n` nodes, the given roots and edges `(from, to)`. Each node's
    /// successors keep the order in which its edges appear in `edges`.
    ///
    /// Panics if an index is `n` or more.
    pub fn from_edges(n: usize, roots: &[u32], edges: &[(u32, u32)]) -> CsrGraph {
        let mut offsets = vec![0u64; n + 1];
        for &(from, to) in edges {
            assert!((from as usize) < n && (to as usize) < n, "edge {from}->{to} out of range");
            offsets[from as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut cursor = offsets.clone();
        let mut targets = vec![0u32; edges.len()];
        for &(from, to) in edges {
            let c = &mut cursor[from as usize];
            targets[*c as usize] = to;
            *c += 1;
        }
        for &r in roots {
            assert!((r as usize) < n, "root {r} out of range");
        }
        CsrGraph { offsets, targets, roots: roots.to_vec() }
    }

    /// A graph from finished CSR arrays: `offsets` has `n + 1` non-decreasing entries
    /// starting at 0 and ending at `targets.len()`.
    ///
    /// Panics if the arrays are inconsistent.
    pub fn from_csr(offsets: Vec<u64>, targets: Vec<u32>, roots: Vec<u32>) -> CsrGraph {
        assert!(!offsets.is_empty() && offsets[0] == 0, "offsets must start with 0");
        assert!(offsets.windows(2).all(|w| w[0] <= w[1]), "offsets must not decrease");
        assert_eq!(*offsets.last().unwrap(), targets.len() as u64, "offsets must end at targets.len()");
        let n = offsets.len() - 1;
        assert!(targets.iter().chain(&roots).all(|&t| (t as usize) < n), "index out of range");
        CsrGraph { offsets, targets, roots }
    }

    /// Number of edges (with duplicates and self-loops).
    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }

    /// The successors of `v`.
    pub fn successors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// The roots, as given.
    pub fn roots(&self) -> &[u32] {
        &self.roots
    }
}

impl Graph for CsrGraph {
    fn node_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn for_each_root<F: FnMut(u32)>(&self, f: F) {
        self.roots.iter().copied().for_each(f);
    }

    fn for_each_successor<F: FnMut(u32)>(&self, v: u32, f: F) {
        self.successors(v).iter().copied().for_each(f);
    }
    #[inline]
    fn prefetch_successors(&self, v: u32) {
        crate::alloc::prefetch(self.offsets.as_ptr().wrapping_add(v as usize));
    }
}

/// Largest `node_count()` the algorithms accept: preorder and postorder numbers up to
/// `n` must leave the top bit of a `u32` free for flags, and the values just below 2³¹
/// free for the predecessor states of [`private`].
pub(crate) const MAX_NODES: usize = (1 << 31) - 64;

pub(crate) fn check_node_count(n: usize) -> Result<(), Error> {
    if n > MAX_NODES {
        return Err(Error::memory(format!("dominators: the graph has {n} objects; at most {MAX_NODES} are supported")));
    }
    Ok(())
}
