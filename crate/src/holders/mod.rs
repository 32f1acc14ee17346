//! Who holds an object, read from one dominator tree and the references it was computed
//! over ("a tree", below: MAT's today; the strength-aware one plugs in the same way).
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
pub mod text;
pub mod ways;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::dominators::Graph;
use crate::error::Result;
use referrer_index::ReferrerIndex;

/// Which dominator tree a question is about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tree {
    /// Eclipse MAT's: every reference counts (`Reference.referent` too).
    #[default]
    Mat,
}

impl Tree {
    /// The name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Tree::Mat => "mat",
        }
    }

    /// The tree named `s` (`mat`).
    pub fn parse(s: &str) -> Option<Tree> {
        match s {
            "mat" => Some(Tree::Mat),
            _ => None,
        }
    }
}

/// One dominator tree and the edge set it was computed over: what every search here
/// reads. `graph` gives the references and the GC roots the tree counts, `idom` the tree
/// ([`crate::dominators`]' encoding), `avoid(from, to)` the references a leak trace
/// takes only when there is no other path (`Reference.referent`, the finalizer links).
pub struct TreeView<'a, G: Graph, A: Fn(u32, u32) -> bool> {
    pub tree: Tree,
    pub graph: G,
    pub idom: &'a [u32],
    pub avoid: A,
}

/// The view of `tree` in `a`.
pub fn view(a: &Analysis, tree: Tree) -> TreeView<'_, impl Graph + '_, impl Fn(u32, u32) -> bool + '_> {
    match tree {
        Tree::Mat => TreeView {
            tree,
            graph: a.dominator_graph(),
            idom: a.mat_idom(),
            avoid: move |from, to| a.has_path_excluded_references(from) && a.is_path_excluded_reference(from, to),
        },
    }
}

/// What an analysis keeps for these questions between them: the referrer index of each
/// tree asked about.
#[derive(Default)]
pub struct Cache {
    indexes: Vec<(Tree, ReferrerIndex)>,
}

impl Cache {
    /// The referrer index of `tree`, if built.
    pub fn get(&self, tree: Tree) -> Option<&ReferrerIndex> {
        self.indexes.iter().find(|(t, _)| *t == tree).map(|(_, i)| i)
    }
}

/// Builds the referrer index of `tree` unless it exists (the first question that needs
/// it pays for it, once per session).
pub fn ensure_index(a: &mut Analysis, tree: Tree) -> Result<()> {
    if a.holders.get(tree).is_none() {
        let index = ReferrerIndex::build(&view(a, tree))?;
        a.holders.indexes.push((tree, index));
    }
    Ok(())
}

/// The referrer index of `tree`, built on first use.
pub fn index(a: &mut Analysis, tree: Tree) -> Result<&ReferrerIndex> {
    ensure_index(a, tree)?;
    Ok(a.holders.get(tree).expect("just built"))
}
