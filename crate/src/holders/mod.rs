//! Who holds an object, read from one dominator tree and the references it was computed
//! over ("a tree", below: MAT's, or the strength-aware one of [`crate::strength`], whose
//! edge set drops a weakening reference to an object something firmer holds).
//!
//! - [`referrer_index`]: the references reversed (a CSR of referrers per object), built
//!   once per tree and session, on the first question that needs it.
//! - [`ways`]: the leak trace — a shortest path from a GC root, each step marked when it
//!   dominates the object — and, for each stretch of unmarked steps, the independent
//!   (internally vertex-disjoint) paths between its ends, found greedily.
//! - [`classes_up`]: the dominator tree read from the classes up (the reverse dominator
//!   tree): a row per class, above it the classes of the objects dominating its instances.
//!
//! Terms. A step *dominates* the object when every path from the GC roots to the object
//! goes through it (strictly: the object is not its own holder here). All of an object's
//! dominators lie on any path to it, so they are all on the trace, in order; consecutive
//! marked steps are immediate dominators of one another. A *stretch* is a run of unmarked
//! steps between two marked ones (or between the GC roots and the first marked one): the
//! part of the trace that had a choice. Two paths are *independent* when they share only
//! their ends.
//!
//! Every search reads the tree's own edge set through a [`TreeView`], so a path is never
//! drawn through a reference the tree on display does not count.

pub mod classes_up;
pub mod referrer_index;
pub mod ways;

use crate::analysis::Analysis;
use crate::dominators::Graph;
use crate::error::{Error, Result};
use crate::model::Reading;
use crate::retained::IdomRead;
use referrer_index::ReferrerIndex;

/// `asked` (None: the one in use), checked to be the tree `a` reads now: the objects named
/// in an answer carry that tree's retained sizes and GC roots, so a question about the
/// other tree is an error saying to switch first (the page and the CLI always ask in the
/// tree they show).
pub fn resolve(a: &Analysis, asked: Option<Reading>) -> Result<Reading> {
    let current = a.reading;
    match asked {
        Some(t) if t != current => Err(Error::query(format!(
            "this session reads the {} dominator tree; switch to the {} tree before asking about it",
            current.name(),
            t.name()
        ))),
        _ => Ok(current),
    }
}

/// One dominator tree and the edge set it was computed over: what every search here
/// reads. `graph` gives the references and the GC roots the tree counts, `idom` the tree
/// ([`crate::dominators`]' encoding), `avoid(from, to)` the references a leak trace
/// takes only when there is no other path: in MAT's tree `Reference.referent` and the
/// finalizer links; in the strength-aware tree a step from an object held less firmly
/// than the one it references (so the trace follows a firmest path: no step of it is
/// held less firmly than the object).
pub struct TreeView<'a, G: Graph, A: Fn(u32, u32) -> bool> {
    pub tree: Reading,
    pub graph: G,
    pub idom: &'a dyn IdomRead,
    pub avoid: A,
}

/// Either tree's graph, one type for [`view`].
pub enum EitherGraph<M, S> {
    Mat(M),
    Strength(S),
}

impl<M: Graph, S: Graph> Graph for EitherGraph<M, S> {
    fn node_count(&self) -> usize {
        match self {
            EitherGraph::Mat(g) => g.node_count(),
            EitherGraph::Strength(g) => g.node_count(),
        }
    }

    fn for_each_root<F: FnMut(u32)>(&self, f: F) {
        match self {
            EitherGraph::Mat(g) => g.for_each_root(f),
            EitherGraph::Strength(g) => g.for_each_root(f),
        }
    }

    #[inline]
    fn for_each_successor<F: FnMut(u32)>(&self, v: u32, f: F) {
        match self {
            EitherGraph::Mat(g) => g.for_each_successor(v, f),
            EitherGraph::Strength(g) => g.for_each_successor(v, f),
        }
    }

    #[inline]
    fn prefetch_successors(&self, v: u32) {
        match self {
            EitherGraph::Mat(g) => g.prefetch_successors(v),
            EitherGraph::Strength(g) => g.prefetch_successors(v),
        }
    }

    fn for_each_edge<F: FnMut(u32, u32)>(&self, f: F) {
        match self {
            EitherGraph::Mat(g) => g.for_each_edge(f),
            EitherGraph::Strength(g) => g.for_each_edge(f),
        }
    }

    fn for_each_edge_from<F: FnMut(u32, u32)>(&self, from: &[u64], f: F) {
        match self {
            EitherGraph::Mat(g) => g.for_each_edge_from(from, f),
            EitherGraph::Strength(g) => g.for_each_edge_from(from, f),
        }
    }
}

/// The view of the tree `a` reads now (`tree`, checked by [`resolve`] where asked).
#[allow(clippy::type_complexity)]
pub fn view(a: &Analysis, tree: Reading) -> TreeView<'_, impl Graph + '_, Box<dyn Fn(u32, u32) -> bool + '_>> {
    debug_assert_eq!(tree, a.reading, "a view of the tree in use");
    match tree {
        Reading::Mat => TreeView {
            tree,
            graph: EitherGraph::Mat(a.dominator_graph()),
            idom: &a.idom,
            avoid: Box::new(move |from, to| {
                a.has_path_excluded_references(from) && a.is_path_excluded_reference(from, to)
            }),
        },
        Reading::Strength => {
            let s = &a.strengths;
            TreeView {
                tree,
                graph: EitherGraph::Strength(a.strength_graph()),
                idom: &a.idom,
                avoid: Box::new(move |from, to| s.get(from) > s.get(to)),
            }
        }
    }
}

/// What a session keeps for these questions between them: the referrer index of each
/// tree asked about.
#[derive(Default)]
pub struct Cache {
    indexes: Vec<(Reading, ReferrerIndex)>,
}

impl Cache {
    /// The referrer index of `tree`, if built.
    pub fn get(&self, tree: Reading) -> Option<&ReferrerIndex> {
        self.indexes.iter().find(|(t, _)| *t == tree).map(|(_, i)| i)
    }

    /// The referrer index of `tree` (the tree `a` reads now), built on the first question
    /// that needs it (once per session and tree).
    pub fn index(&mut self, a: &Analysis, tree: Reading) -> Result<&ReferrerIndex> {
        let tree = resolve(a, Some(tree))?;
        if self.get(tree).is_none() {
            let index = ReferrerIndex::build(&view(a, tree))?;
            self.indexes.push((tree, index));
        }
        Ok(self.get(tree).expect("just built"))
    }
}
