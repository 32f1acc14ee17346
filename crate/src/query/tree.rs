//! The dominator tree, one page of children at a time, and a node's children grouped by
//! class (the treemap's crowd of small children).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::analysis::{object_ref, strength_name};
use crate::error::Result;
use crate::model::{ObjectRef, StrengthName};

/// One node of the dominator tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TreeNode {
    pub object: ObjectRef,
    /// Number of objects it immediately dominates (its children).
    pub children: u64,
    /// How firmly it is held (the same in both trees; the page colours by it).
    pub strength: StrengthName,
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
    TreeNode { object: object_ref(a, v), children: a.dominated_count(v) as u64, strength: strength_name(a.strength(v)) }
}

fn kids(a: &Analysis, parent: Option<u32>) -> crate::retained::Children<'_> {
    a.dominated(parent.unwrap_or(a.tree.root()))
}

/// Children of `parent` (None: the virtual root), largest retained first, `limit` of
/// them from `offset`.
pub fn children(a: &Analysis, parent: Option<u32>, offset: usize, limit: usize) -> Result<Children> {
    let all = a.dominated_by_size(parent.unwrap_or(a.tree.root()))?;
    let total_retained_bytes = all.iter().map(|&k| a.retained(k)).sum();
    let page = all.get(offset.min(all.len())..).unwrap_or_default();
    Ok(Children {
        parent: parent.map(|p| format!("0x{:x}", a.address(p))),
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
    let mut out: Vec<ClassGroup> = groups
        .into_iter()
        .map(|(c, (objects, retained_bytes, largest))| ClassGroup {
            class_name: a.class_name(c).to_string(),
            objects,
            retained_bytes,
            largest: largest.into_iter().map(|k| node(a, k)).collect(),
        })
        .collect();
    out.sort_by(|x, y| y.retained_bytes.cmp(&x.retained_bytes).then(x.class_name.cmp(&y.class_name)));
    out.truncate(limit);
    out
}
