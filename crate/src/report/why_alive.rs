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
use crate::model::{Detail, DominatorSubtree, LinkedChain, ObjectRef, PathRun, RootPath, RootStep, SubtreeNode};
use crate::query::chains;
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
    // Root first, a linked structure on the way as one step: (first, last) of each step.
    let runs = paths::runs(a, path, None)?;
    let mut folded = paths::folded_steps(&runs, path.len());
    // From the suspect up: each step's `object` is its end nearest the suspect.
    folded.reverse();
    let cap = detail.root_path.max(2);
    let (head, omitted) = if folded.len() > cap { (cap / 2, (folded.len() - cap) as u64) } else { (folded.len(), 0) };
    let listed: Vec<usize> = (0..head).chain(head + omitted as usize..folded.len()).collect();
    let mut steps = Vec::with_capacity(listed.len());
    for &k in &listed {
        let (root_side, suspect_side, field) = &folded[k];
        // How the step nearer the root holds this one's root end.
        let held_by = match *root_side {
            0 => Vec::new(),
            j => paths::via(a, path[j - 1], path[j])?,
        };
        steps.push(RootStep {
            object: object_ref(a, path[*suspect_side]),
            held_by,
            run: field.as_ref().map(|f| PathRun {
                nodes: (suspect_side - root_side + 1) as u64,
                field: f.clone(),
                last: object_ref(a, path[*root_side]),
            }),
        });
    }
    let root_types = root_kinds(a, root);
    let why_alive = why_alive_line(&steps, omitted, &root_types);
    Ok(Some(RootPath { steps, omitted, root_types, why_alive }))
}

/// The path in one line (see [`RootPath::why_alive`]): `omitted` steps left out after the
/// first half of `steps`.
pub fn why_alive_line(steps: &[RootStep], omitted: u64, root_types: &[String]) -> String {
    let Some(first) = steps.first() else { return String::new() };
    let head = if omitted > 0 { steps.len() / 2 } else { steps.len() };
    // A run: `A ← next of 40 × c.Link linked by next`.
    let name = |step: &RootStep| match &step.run {
        Some(r) => format!("{} × {} linked by {}", r.nodes, step.object.class_name, r.field),
        None => label(&step.object),
    };
    let mut line = name(first);
    for (k, step) in steps.iter().enumerate().skip(1) {
        if k == head && omitted > 0 {
            line.push_str(&format!(" ← … ({omitted} more)"));
        }
        let by = &steps[k - 1].held_by;
        let by = if by.is_empty() { "?".to_string() } else { by.join(", ") };
        line.push_str(&format!(" ← {by} of {}", name(step)));
    }
    let types = if root_types.is_empty() { "unknown".to_string() } else { root_types.join(", ") };
    if steps.len() == 1 {
        line.push_str(&format!(" is a GC root ({types})"));
    } else {
        line.push_str(&format!(" (GC root: {types})"));
    }
    line
}

/// One object chosen for the subtree: its depth, its chosen children, and what of its
/// children is left out.
struct Chosen {
    obj: u32,
    depth: u32,
    children: Vec<u32>,
    omitted: u64,
    omitted_retained: u64,
    chain: Option<chains::Chain>,
}

/// The dominator subtree under `root`, within `detail`'s caps, linked structures read as
/// one (see [`chains`]).
pub fn subtree(a: &Analysis, root: u32, detail: &Detail) -> DominatorSubtree {
    let max_nodes = detail.subtree_nodes.max(1);
    let all_children = |v: u32| (chains::member_count(a, v), chains::own_retained(a, v).saturating_sub(a.shallow(v)));
    let (n, r) = all_children(root);
    let mut chosen =
        vec![Chosen { obj: root, depth: 0, children: Vec::new(), omitted: n, omitted_retained: r, chain: None }];
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
        let mut largest: Vec<chains::Member> = Vec::with_capacity(room + 1);
        let mut longest: Option<chains::Chain> = None;
        chains::for_each_member(a, v, |m| {
            chains::keep_largest(&mut largest, m, room);
            if m.chain_nodes > 1 && longest.map_or(true, |c| m.chain_nodes > c.nodes) {
                longest = Some(chains::Chain { first: m.chain_first, last: m.chain_first, nodes: m.chain_nodes });
            }
        });
        let kept_retained: u64 = largest.iter().map(|m| m.retained).sum();
        let node = &mut chosen[next];
        node.omitted -= largest.len() as u64;
        node.omitted_retained = node.omitted_retained.saturating_sub(kept_retained);
        if node.omitted > 0 {
            truncated = true;
        }
        node.chain = longest;
        let mut ids = Vec::with_capacity(largest.len());
        for m in largest {
            let (n, r) = all_children(m.object);
            ids.push(chosen.len() as u32);
            chosen.push(Chosen {
                obj: m.object,
                depth: depth + 1,
                children: Vec::new(),
                omitted: n,
                omitted_retained: r,
                chain: None,
            });
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
            object: super::structure::member_ref(a, c.obj),
            depth: c.depth,
            omitted_children: c.omitted,
            omitted_retained_bytes: c.omitted_retained,
            chain: c.chain.map(|ch| LinkedChain {
                first: object_ref(a, ch.first),
                class_name: a.class_name(a.class_of(ch.first)).to_string(),
                field: None,
                nodes: ch.nodes,
            }),
        });
        stack.extend(c.children.iter().rev());
    }
    DominatorSubtree { nodes, truncated }
}
