//! The dominator tree grouped by class at every level (MAT's dominator tree with "group by
//! class"): the top level's objects grouped by class; opening a group groups the children
//! of all its objects by class; and so on down.
//!
//! A row is named by its `path`: the class object addresses of the groups opened from the
//! top level down. The objects of path `[c0, c1, …]` are the top-level objects of class
//! c0, then their children of class c1, and so on; objects of one level have distinct
//! dominators' subtrees, so a group's retained sum counts no byte twice.
//!
//! Cost: each question walks the levels of its path again, visiting the children of every
//! object on the way: O(objects under the opened groups), with one list of the current
//! level's objects (no per-object array over the whole dump).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::object_ref;
use crate::analysis::Analysis;
use crate::error::Result;
use crate::model::ObjectRef;

/// Objects listed per group.
pub const GROUP_OBJECTS: usize = 20;

/// The objects of one class at one level of the grouped dominator tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DominatorGroup {
    pub class_name: String,
    /// Address of the class object: the next step of a `path` opening this group.
    pub class_address: String,
    pub objects: u64,
    pub shallow_bytes: u64,
    pub retained_bytes: u64,
    /// Objects the group's objects immediately dominate, together (0: it cannot open).
    pub children: u64,
    /// The biggest objects of the group (at most 20), largest retained first.
    pub biggest: Vec<ObjectRef>,
}

/// The groups below `path` (class object addresses from the top level down; empty: the
/// top level), largest retained first, at most `limit` of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DominatorGroups {
    pub path: Vec<String>,
    /// Groups at this level (all of them; `groups` lists at most `limit`).
    pub total: u64,
    pub groups: Vec<DominatorGroup>,
}

fn class_address(a: &Analysis, c: u32) -> String {
    format!("0x{:x}", a.heap.index.classes.classes[c as usize].id)
}

/// Children of `objects` grouped by class (None: the top-level dominators).
fn group(a: &Analysis, objects: Option<&[u32]>) -> BTreeMap<u32, Vec<u32>> {
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut add = |kids: &mut dyn Iterator<Item = u32>| {
        for k in kids {
            groups.entry(a.class_of(k)).or_default().push(k);
        }
    };
    match objects {
        None => add(&mut a.top_level().iter().copied()),
        Some(list) => {
            for &o in list {
                add(&mut a.dominated(o));
            }
        }
    }
    groups
}

/// The grouped level below `path` (class indices, top level first).
pub fn dominator_groups(a: &Analysis, path: &[u32], path_text: Vec<String>, limit: usize) -> Result<DominatorGroups> {
    let mut level: Option<Vec<u32>> = None;
    for &c in path {
        let mut groups = group(a, level.as_deref());
        level = Some(groups.remove(&c).unwrap_or_default());
    }
    let groups = group(a, level.as_deref());
    let total = groups.len() as u64;
    let mut rows: Vec<(u32, DominatorGroup)> = groups
        .into_iter()
        .map(|(c, mut objects)| {
            objects.sort_by(|&x, &y| a.retained(y).cmp(&a.retained(x)).then(x.cmp(&y)));
            let row = DominatorGroup {
                class_name: a.class_name(c).to_string(),
                class_address: class_address(a, c),
                objects: objects.len() as u64,
                shallow_bytes: objects.iter().map(|&o| a.shallow(o)).sum(),
                retained_bytes: objects.iter().map(|&o| a.retained(o)).sum(),
                children: objects.iter().map(|&o| a.dominated_count(o) as u64).sum(),
                biggest: objects.iter().take(GROUP_OBJECTS).map(|&o| object_ref(a, o)).collect(),
            };
            (c, row)
        })
        .collect();
    rows.sort_by(|(cx, x), (cy, y)| {
        y.retained_bytes.cmp(&x.retained_bytes).then(x.class_name.cmp(&y.class_name)).then(cx.cmp(cy))
    });
    rows.truncate(limit);
    Ok(DominatorGroups { path: path_text, total, groups: rows.into_iter().map(|(_, g)| g).collect() })
}
