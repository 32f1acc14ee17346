//! The dominator tree, one page of children at a time, and a node's children grouped by
//! class (the treemap's crowd of small children). Linked structures are read as one when
//! asked (the page asks so): an object's children are then its *members* (see
//! [`super::chains`]): a chain's nodes side by side under what holds it, each with what it
//! retains without the rest of the chain; the top level stays the top-level dominators.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chains::{self, Member};
use crate::analysis::Analysis;
use crate::analysis::{object_ref, strength_name};
use crate::error::Result;
use crate::model::format::basis_points;
use crate::model::{ObjectRef, StrengthName};

/// One node of the dominator tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TreeNode {
    /// The object; listed as a chain's node, its retained size is without the rest of
    /// the chain (`chain.retained_bytes` has the whole).
    pub object: ObjectRef,
    /// Number of objects it immediately dominates (its children; its members when linked
    /// structures are read as one).
    pub children: u64,
    /// How firmly it is held (the same in both trees; the page colours by it).
    pub strength: StrengthName,
    /// Listed as a node of a chain (a linked structure read as one): the chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<ChainPlace>,
}

/// Where a node listed beside the rest of its chain is (see [`TreeNode::chain`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChainPlace {
    /// The chain's first node and how many nodes it has.
    pub first: String,
    pub nodes: u64,
    /// What the node retains in the dominator tree, the rest of the chain included.
    pub retained_bytes: u64,
}

/// A page of a node's children in the dominator tree, largest retained first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Children {
    /// The parent's address, or None for the virtual root (the top-level dominators).
    pub parent: Option<String>,
    /// All children of the parent, and their retained bytes together.
    pub total: u64,
    pub total_retained_bytes: u64,
    pub offset: u64,
    pub nodes: Vec<TreeNode>,
}

/// Children of one node grouped by class (the treemap's "crowd of small children").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClassGroup {
    pub class_name: String,
    pub objects: u64,
    pub retained_bytes: u64,
    /// The biggest members (at most 20).
    pub largest: Vec<TreeNode>,
}

pub(crate) fn node(a: &Analysis, v: u32) -> TreeNode {
    TreeNode {
        object: object_ref(a, v),
        children: a.dominated_count(v) as u64,
        strength: strength_name(a.strength(v)),
        chain: None,
    }
}

/// A member of a node, as a tree node (its retained size without the rest of its chain,
/// its members counted).
fn member_node(a: &Analysis, m: Member) -> TreeNode {
    let mut object = object_ref(a, m.object);
    let chain = (m.chain_nodes > 1).then(|| ChainPlace {
        first: format!("0x{:x}", a.address(m.chain_first)),
        nodes: m.chain_nodes,
        retained_bytes: object.retained_bytes,
    });
    object.retained_bytes = m.retained;
    object.retained_bp = basis_points(m.retained, a.used_heap);
    TreeNode {
        object,
        children: chains::member_count(a, m.object),
        strength: strength_name(a.strength(m.object)),
        chain,
    }
}

/// The members of `parent` (None: the top-level dominators, each a member of its own).
fn members(a: &Analysis, parent: Option<u32>) -> Result<Vec<Member>> {
    match parent {
        Some(p) => chains::members_by_size(a, p),
        None => {
            let top = a.top_level();
            let mut out = crate::alloc::try_with_capacity(top.len(), "the top-level dominators")?;
            out.extend(top.iter().map(|&v| Member {
                object: v,
                retained: a.retained(v),
                chain_nodes: 1,
                chain_first: v,
            }));
            Ok(out)
        }
    }
}

fn kids(a: &Analysis, parent: Option<u32>) -> crate::retained::Children<'_> {
    a.dominated(parent.unwrap_or(a.tree.root()))
}

/// Children of `parent` (None: the virtual root), largest retained first, `limit` of
/// them from `offset`; with `folded`, its members (linked structures read as one).
pub fn children(a: &Analysis, parent: Option<u32>, offset: usize, limit: usize) -> Result<Children> {
    children_in(a, parent, offset, limit, false)
}

/// [`children`], linked structures read as one when `folded`.
pub fn children_in(a: &Analysis, parent: Option<u32>, offset: usize, limit: usize, folded: bool) -> Result<Children> {
    let parent_text = parent.map(|p| format!("0x{:x}", a.address(p)));
    if folded {
        let all = members(a, parent)?;
        let total_retained_bytes = all.iter().map(|m| m.retained).sum();
        let page = all.get(offset.min(all.len())..).unwrap_or_default();
        return Ok(Children {
            parent: parent_text,
            total: all.len() as u64,
            total_retained_bytes,
            offset: offset.min(all.len()) as u64,
            nodes: page.iter().take(limit).map(|&m| member_node(a, m)).collect(),
        });
    }
    let all = a.dominated_by_size(parent.unwrap_or(a.tree.root()))?;
    let total_retained_bytes = all.iter().map(|&k| a.retained(k)).sum();
    let page = all.get(offset.min(all.len())..).unwrap_or_default();
    Ok(Children {
        parent: parent_text,
        total: all.len() as u64,
        total_retained_bytes,
        offset: offset.min(all.len()) as u64,
        nodes: page.iter().take(limit).map(|&k| node(a, k)).collect(),
    })
}

/// Children of `parent` grouped by class, largest group first (at most `limit` groups).
pub fn children_by_class(a: &Analysis, parent: Option<u32>, limit: usize) -> Vec<ClassGroup> {
    let mut groups: BTreeMap<u32, (u64, u64, Vec<u32>)> = BTreeMap::new();
    for k in kids(a, parent) {
        let g = groups.entry(a.class_of(k)).or_default();
        g.0 += 1;
        g.1 += a.retained(k);
        a.keep_largest(&mut g.2, k, 20);
    }
    let out: Vec<ClassGroup> = groups
        .into_iter()
        .map(|(c, (objects, retained_bytes, largest))| ClassGroup {
            class_name: a.class_name(c).to_string(),
            objects,
            retained_bytes,
            largest: largest.into_iter().map(|k| node(a, k)).collect(),
        })
        .collect();
    ranked(out, limit)
}

/// [`children_by_class`] of `parent`'s members (linked structures read as one).
pub fn members_by_class(a: &Analysis, parent: Option<u32>, limit: usize) -> Result<Vec<ClassGroup>> {
    let mut groups: BTreeMap<u32, (u64, u64, Vec<Member>)> = BTreeMap::new();
    for m in members(a, parent)? {
        let g = groups.entry(a.class_of(m.object)).or_default();
        g.0 += 1;
        g.1 += m.retained;
        chains::keep_largest(&mut g.2, m, 20);
    }
    let out: Vec<ClassGroup> = groups
        .into_iter()
        .map(|(c, (objects, retained_bytes, largest))| ClassGroup {
            class_name: a.class_name(c).to_string(),
            objects,
            retained_bytes,
            largest: largest.into_iter().map(|m| member_node(a, m)).collect(),
        })
        .collect();
    Ok(ranked(out, limit))
}

fn ranked(mut out: Vec<ClassGroup>, limit: usize) -> Vec<ClassGroup> {
    out.sort_by(|x, y| y.retained_bytes.cmp(&x.retained_bytes).then(x.class_name.cmp(&y.class_name)));
    out.truncate(limit);
    out
}
