//! Why a single leak suspect is alive, and what it holds, beyond MAT's pages:
//! - its **root path** ([`root_path`]): a shortest reference path from a GC root to the
//!   suspect (the one [`crate::search::levels::shortest_path`] finds), listed from the
//!   suspect up, each object with the fields the next one holds it by, and the root's
//!   types; in one line, the "why alive" line;
//! - its **dominator subtree** ([`subtree`]): several levels of the dominator tree under
//!   its accumulation point (or the suspect, without one), chosen level by level, each
//!   object's largest children first, within `--detail`'s caps.
//!
//! Cost: the path is the breadth-first search the report makes for the suspect's
//! reference path anyway, then one record read back per listed step; the subtree visits
//! the children of at most `subtree_nodes` objects (each child once, keeping the largest).

use crate::analysis::{object_ref, Analysis};
use crate::error::Result;
use crate::model::{Detail, DominatorSubtree, ObjectRef, RootPath, RootStep, SubtreeNode};
use crate::query::paths;
use crate::readback::object::root_kinds;

/// How an object is named in the "why alive" line.
fn label(o: &ObjectRef) -> String {
    match &o.class_of_object {
        Some(c) => format!("class {c} @ {}", o.address),
        None => format!("{} @ {}", o.class_name, o.address),
    }
}

/// The root path of the object at the end of `path` (a reference path from a GC root to
/// it, root first), within `detail.root_path` objects. None for an empty path.
pub fn root_path(a: &mut Analysis, path: &[u32], detail: &Detail) -> Result<Option<RootPath>> {
    let Some(&root) = path.first() else { return Ok(None) };
    // From the suspect up.
    let up: Vec<u32> = path.iter().rev().copied().collect();
    let cap = detail.root_path.max(2);
    let (head, omitted) = if up.len() > cap { (cap / 2, (up.len() - cap) as u64) } else { (up.len(), 0) };
    let listed: Vec<usize> = (0..head).chain(head + omitted as usize..up.len()).collect();
    let mut steps = Vec::with_capacity(listed.len());
    for &i in &listed {
        let held_by = match up.get(i + 1) {
            Some(&next) => paths::via(a, next, up[i])?,
            None => Vec::new(),
        };
        steps.push(RootStep { object: object_ref(a, up[i]), held_by });
    }
    let root_types = root_kinds(a, root);
    let mut line = label(&steps[0].object);
    for (k, step) in steps.iter().enumerate().skip(1) {
        if k == head && omitted > 0 {
            line.push_str(&format!(" ← … ({omitted} more)"));
        }
        let by = &steps[k - 1].held_by;
        let by = if by.is_empty() { "?".to_string() } else { by.join(", ") };
        line.push_str(&format!(" ← {by} of {}", label(&step.object)));
    }
    let types = if root_types.is_empty() { "unknown".to_string() } else { root_types.join(", ") };
    if steps.len() == 1 {
        line.push_str(&format!(" is a GC root ({types})"));
    } else {
        line.push_str(&format!(" (GC root: {types})"));
    }
    Ok(Some(RootPath { steps, omitted, root_types, why_alive: line }))
}

/// One object chosen for the subtree: its parent (an index into the chosen), its depth,
/// its chosen children, and what of its children is left out.
struct Chosen {
    obj: u32,
    depth: u32,
    children: Vec<u32>,
    omitted: u64,
    omitted_retained: u64,
}

/// The dominator subtree under `root`, within `detail`'s caps.
pub fn subtree(a: &Analysis, root: u32, detail: &Detail) -> DominatorSubtree {
    let max_nodes = detail.subtree_nodes.max(1);
    let all_children = |v: u32| (a.dominated_count(v) as u64, a.retained(v).saturating_sub(a.shallow(v)));
    let (n, r) = all_children(root);
    let mut chosen = vec![Chosen { obj: root, depth: 0, children: Vec::new(), omitted: n, omitted_retained: r }];
    let mut truncated = false;
    // Level by level: a node's largest children, while there is room.
    let mut next = 0;
    while next < chosen.len() {
        let (v, depth) = (chosen[next].obj, chosen[next].depth);
        if chosen[next].omitted == 0 {
            next += 1;
            continue;
        }
        if depth as usize >= detail.subtree_depth || chosen.len() >= max_nodes {
            truncated = true;
            next += 1;
            continue;
        }
        let room = (max_nodes - chosen.len()).min(detail.children.max(1));
        let mut largest: Vec<u32> = Vec::with_capacity(room + 1);
        for k in a.dominated(v) {
            a.keep_largest(&mut largest, k, room);
        }
        let kept_retained: u64 = largest.iter().map(|&k| a.retained(k)).sum();
        let node = &mut chosen[next];
        node.omitted -= largest.len() as u64;
        node.omitted_retained = node.omitted_retained.saturating_sub(kept_retained);
        if node.omitted > 0 {
            truncated = true;
        }
        let mut ids = Vec::with_capacity(largest.len());
        for k in largest {
            let (n, r) = all_children(k);
            ids.push(chosen.len() as u32);
            chosen.push(Chosen { obj: k, depth: depth + 1, children: Vec::new(), omitted: n, omitted_retained: r });
        }
        chosen[next].children = ids;
        next += 1;
    }
    // Depth first from the root, each node's children in the order chosen (largest first).
    let mut nodes = Vec::with_capacity(chosen.len());
    let mut stack = vec![0u32];
    while let Some(i) = stack.pop() {
        let c = &chosen[i as usize];
        nodes.push(SubtreeNode {
            object: object_ref(a, c.obj),
            depth: c.depth,
            omitted_children: c.omitted,
            omitted_retained_bytes: c.omitted_retained,
        });
        stack.extend(c.children.iter().rev());
    }
    DominatorSubtree { nodes, truncated }
}
