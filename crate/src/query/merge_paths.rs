//! Merged shortest paths from the GC roots to a set of objects (Eclipse MAT's "merge
//! shortest paths to GC roots"): for each object its shortest reference path from a GC
//! root, without the references MAT excludes by default (`Reference.referent` of weak,
//! soft and phantom references, the finalizer links), the paths merged by prefix from the
//! root side, each node counting the objects whose path goes through it.
//!
//! The merged tree is the union of the objects' shortest paths
//! ([`PathUnion`](crate::search::union), which says how it is found and what it costs),
//! each node counting the objects below it. At most
//! [`MAX_OBJECTS`] objects are taken (`capped`), at most `limit` nodes listed, the most
//! counted first (`truncated`), and the field names of the first [`MAX_VIA`] nodes read
//! back from the dump.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::paths::via;
use crate::analysis::object_ref;
use crate::analysis::Analysis;
use crate::error::Result;
use crate::model::ObjectRef;
use crate::readback::object::root_kinds;
use crate::search::union::PathUnion;

/// Objects whose paths are merged at most.
pub const MAX_OBJECTS: usize = 100_000;
/// Nodes whose reference names (`via`) are read back at most.
pub const MAX_VIA: usize = 200;
/// Children listed at most under one node (the most counted).
pub const MAX_CHILDREN: usize = 50;

/// One node of the merged paths: an object on the shortest paths of `count` of the objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MergedNode {
    pub object: ObjectRef,
    /// Index in `nodes` of the node above it (None: a GC root).
    pub parent: Option<u32>,
    /// 0 for a GC root.
    pub depth: u32,
    /// How the node above references it: field names, `[index]`, `<class>`… (empty for
    /// roots and past the first nodes).
    pub via: Vec<String>,
    /// GC root kinds, for roots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gc_root: Vec<String>,
    /// Objects of the set whose shortest path goes through it (itself included).
    pub count: u64,
    /// Nodes directly below it in the merged tree (all, listed or not).
    pub children: u64,
    /// Whether it is one of the objects of the set.
    pub target: bool,
}

/// The merged shortest paths from the GC roots to a set of objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MergedPaths {
    /// Objects in the set asked for.
    pub objects: u64,
    /// Objects whose paths were merged (at most 100,000).
    pub considered: u64,
    /// Whether the set was cut to the objects considered.
    pub capped: bool,
    /// Objects considered that no path reaches without weak, soft or phantom references
    /// or finalizer links (not in the tree).
    pub unreached: u64,
    /// The tree in depth-first order, children by count (then address).
    pub nodes: Vec<MergedNode>,
    /// Whether nodes were left out (beyond `limit`, or beyond 50 children of one node).
    pub truncated: bool,
}

/// The kept instances of class `class` (by address).
pub fn instances_of(a: &Analysis, class: u32) -> Vec<u32> {
    (0..a.object_count() as u32).filter(|&o| a.class_of(o) == class && a.is_kept(o)).collect()
}

/// Merges the shortest paths to `objects` (kept objects), listing at most `limit` nodes.
pub fn merge_paths(a: &mut Analysis, objects: &[u32], limit: usize) -> Result<MergedPaths> {
    let considered = &objects[..objects.len().min(MAX_OBJECTS)];
    let PathUnion { nodes: union, mut children, mut roots, unreached } = PathUnion::of(a, considered, true, |_| 0)?;
    let count = |v: &u32| union[v].members;
    let targets: std::collections::HashSet<u32> =
        considered.iter().copied().filter(|t| union.contains_key(t)).collect();
    let by_count =
        |list: &mut Vec<u32>| list.sort_by(|x, y| count(y).cmp(&count(x)).then(a.address(*x).cmp(&a.address(*y))));
    by_count(&mut roots);
    // Depth first, most counted first, without recursion.
    let mut nodes: Vec<MergedNode> = Vec::new();
    let mut truncated = roots.len() > MAX_CHILDREN;
    let mut stack: Vec<(u32, Option<u32>, u32)> =
        roots.iter().take(MAX_CHILDREN).rev().map(|&r| (r, None, 0)).collect();
    while let Some((v, up, depth)) = stack.pop() {
        if nodes.len() >= limit {
            truncated = true;
            break;
        }
        let index = nodes.len() as u32;
        let mut kids = children.remove(&v).unwrap_or_default();
        by_count(&mut kids);
        if kids.len() > MAX_CHILDREN {
            truncated = true;
        }
        nodes.push(MergedNode {
            object: object_ref(a, v),
            parent: up,
            depth,
            via: Vec::new(),
            gc_root: if up.is_none() { root_kinds(a, v) } else { Vec::new() },
            count: count(&v),
            children: kids.len() as u64,
            target: targets.contains(&v),
        });
        stack.extend(kids.iter().take(MAX_CHILDREN).rev().map(|&k| (k, Some(index), depth + 1)));
    }
    // The reference names of the first nodes, read back from the dump.
    for i in 0..nodes.len().min(MAX_VIA) {
        let Some(up) = nodes[i].parent else { continue };
        let (from, to) = (address_index(a, &nodes[up as usize].object), address_index(a, &nodes[i].object));
        if let (Some(from), Some(to)) = (from, to) {
            nodes[i].via = via(a, from, to)?;
        }
    }
    Ok(MergedPaths {
        objects: objects.len() as u64,
        considered: considered.len() as u64,
        capped: considered.len() < objects.len(),
        unreached,
        nodes,
        truncated,
    })
}

fn address_index(a: &Analysis, o: &ObjectRef) -> Option<u32> {
    super::parse_address(&o.address).and_then(|x| a.object_at(x))
}
