//! Dominators of a heap graph.
//!
//! (Interface fixed by the pipeline; the algorithms live in the submodules.)
//!
//! Nodes are `0..n`. A *virtual root* (not one of the nodes) has an edge to every node
//! listed by [`Graph::for_each_root`]. Node `d` *dominates* `v` when every path from the
//! virtual root to `v` passes through `d`; the *immediate dominator* `idom(v)` is the
//! dominator of `v` closest to it. The result is an array `idom` of length `n`:
//! `idom[v]` is a node index, or [`VIRTUAL_ROOT`] when the virtual root is `v`'s immediate
//! dominator, or [`UNREACHABLE`] when `v` cannot be reached from the virtual root.

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
}
