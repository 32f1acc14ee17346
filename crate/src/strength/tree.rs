//! The edge and root set of the strength-aware dominator tree.
//!
//! The tree is MAT's dominator and retained-size code run over another graph: the
//! references [`counts`] selects, from the GC roots whose root edge it selects plus the
//! entry points of the uncollected garbage. Every node of the dump is in it: the walk
//! that gave each node its strength reached it along edges that all count (each edge on
//! a node's firmest path is no weaker than that node), and every unreachable node is
//! reached from the garbage entry points.

use super::walk::Edges;
use crate::bits::BitSet;
use crate::dominators::Graph;
use crate::rules::edges::{OWNER, STRENGTH_MASK};
use crate::rules::strength::{STRONG, UNREACHABLE};
use std::ops::Index;

/// Whether the reference `v → t` of strength `edge` counts in the strength-aware tree,
/// given the strengths of `v` and `t`: a strong reference always does; a weakening one
/// only when nothing holds `t` more firmly than it does (the seed's `isHeldThrough`), so a
/// weak reference never takes an object from its strong holder. By the same rule a
/// reference from uncollected garbage counts only into garbage: the garbage's hold is the
/// weakest there is, and a live object is held more firmly.
#[inline]
pub fn counts(edge: u8, source: u8, target: u8) -> bool {
    (source != UNREACHABLE || target == UNREACHABLE) && (edge == STRONG || target >= edge)
}

/// Whether a GC root edge of strength `root` to an object of strength `target` counts
/// (the same rule: a stack frame holding an object something strong holds adds nothing).
#[inline]
pub fn root_counts(root: u8, target: u8) -> bool {
    root == STRONG || target >= root
}

/// The graph of the strength-aware tree: `edges` filtered by [`counts`] (and, into a node
/// an owner reached, by ownership: only owner references count), rooted at the roots
/// [`root_counts`] keeps plus `garbage` (the garbage forest's entry points).
pub struct TreeGraph<'a, E: Edges, S: Index<usize, Output = u8> + ?Sized = [u8]> {
    /// The references (a reference to an [`Edges`] is one too).
    pub edges: E,
    /// Per node its strength byte (a slice, or the session's [`super::packed::Strengths`]).
    pub strengths: &'a S,
    /// The owned nodes (the walk's [`super::walk::Reach::owned`]).
    pub owned: &'a BitSet,
    pub garbage: &'a [u32],
}

impl<E: Edges, S: Index<usize, Output = u8> + ?Sized> Graph for TreeGraph<'_, E, S> {
    fn node_count(&self) -> usize {
        self.edges.node_count()
    }

    fn for_each_root<F: FnMut(u32)>(&self, mut f: F) {
        let s = self.strengths;
        self.edges.for_each_root(|o, rs| {
            if root_counts(rs, s[o as usize]) {
                f(o)
            }
        });
        self.garbage.iter().copied().for_each(f);
    }

    #[inline]
    fn prefetch_successors(&self, v: u32) {
        self.edges.prefetch(v);
    }

    #[inline]
    fn for_each_successor<F: FnMut(u32)>(&self, v: u32, mut f: F) {
        let sv = self.strengths[v as usize];
        self.edges.for_each_edge_of(v, |t, flags| {
            if self.keeps(sv, t, flags) {
                f(t)
            }
        });
    }

    #[inline]
    fn for_each_edge<F: FnMut(u32, u32)>(&self, mut f: F) {
        let s = self.strengths;
        self.edges.for_each_edge(|v, t, flags| {
            if self.keeps(s[v as usize], t, flags) {
                f(v, t)
            }
        });
    }
}

impl<E: Edges, S: Index<usize, Output = u8> + ?Sized> TreeGraph<'_, E, S> {
    /// Whether the edge to `t` with `flags` from a node of strength `sv` is in the tree.
    #[inline(always)]
    fn keeps(&self, sv: u8, t: u32, flags: u8) -> bool {
        counts(flags & STRENGTH_MASK, sv, self.strengths[t as usize]) && (flags & OWNER != 0 || !self.owned.contains(t))
    }
}
