//! A report cut down to `--detail`'s caps, as if it had been built with them: what
//! `heapscope render --detail LEVEL` does to a saved report, so that it writes what
//! `heapscope analyze --detail LEVEL` writes.
//!
//! Every list the report's build caps is cut by the same rule from the longer list a
//! larger detail kept: the biggest groups and members first (prefixes), a root path's
//! first and last steps, and a dominator subtree chosen again level by level from the
//! subtree kept (each node's children are kept largest first, and a smaller detail never
//! expands a node further than a larger one). A report built with smaller caps than asked
//! for stays as it is: what was left out cannot be added back.

use crate::model::{Detail, DominatorSubtree, Report, RootPath, SubtreeNode};

/// `report` within `detail`'s caps (see the module's documentation).
pub fn within(report: &Report, detail: &Detail) -> Report {
    let mut r = report.clone();
    let children = detail.children;
    for s in &mut r.leak_suspects.suspects {
        s.accumulated.truncate(children);
        s.biggest_members.truncate(children);
        if let Some(st) = s.structure.as_mut() {
            st.groups.truncate(children);
        }
        if let Some(p) = s.root_path.as_mut() {
            cut_path(p, detail.root_path.max(2));
        }
        if let Some(t) = s.dominator_subtree.as_mut() {
            *t = cut_subtree(t, detail);
        }
    }
    if let Some(c) = r.heap_composition.as_mut() {
        c.packages.truncate(detail.rows);
        c.loaders.truncate(detail.rows);
    }
    for c in r.top_components.iter_mut().flatten() {
        c.classes.truncate(detail.rows);
    }
    r
}

/// A root path with at most `cap` steps: the first `cap / 2` and the last of those listed.
fn cut_path(p: &mut RootPath, cap: usize) {
    let total = p.steps.len() + p.omitted as usize;
    if total <= cap || p.steps.len() <= cap {
        return;
    }
    // Listed now: the first `head` and the last `len - head` of `total`.
    let head = if p.omitted > 0 { p.steps.len() / 2 } else { p.steps.len() };
    let (new_head, new_tail) = (cap / 2, cap - cap / 2);
    let tail_listed = p.steps.len() - head;
    if new_head > head || new_tail > tail_listed {
        return;
    }
    let mut steps = p.steps[..new_head].to_vec();
    steps.extend_from_slice(&p.steps[p.steps.len() - new_tail..]);
    p.steps = steps;
    p.omitted = (total - cap) as u64;
    p.why_alive = super::why_alive::why_alive_line(&p.steps, p.omitted, &p.root_types);
}

/// The subtree chosen again within `detail`'s caps from the one kept.
fn cut_subtree(t: &DominatorSubtree, detail: &Detail) -> DominatorSubtree {
    let n = t.nodes.len();
    if n == 0 {
        return t.clone();
    }
    // Each node's listed children (in order, largest first), from depth-first order.
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut stack: Vec<usize> = Vec::new();
    for (i, node) in t.nodes.iter().enumerate() {
        stack.truncate(node.depth as usize);
        if let Some(&p) = stack.last() {
            kids[p].push(i);
        }
        stack.push(i);
    }
    let total = |i: usize| t.nodes[i].omitted_children + kids[i].len() as u64;
    let max_nodes = detail.subtree_nodes.max(1);
    // The same level-by-level choice as the build: (node, its chosen children, expanded).
    let mut chosen: Vec<(usize, Vec<usize>, bool)> = vec![(0, Vec::new(), false)];
    let mut truncated = false;
    let mut next = 0;
    while next < chosen.len() {
        let i = chosen[next].0;
        if total(i) == 0 {
            next += 1;
            continue;
        }
        if t.nodes[i].depth as usize >= detail.subtree_depth || chosen.len() >= max_nodes {
            truncated = true;
            next += 1;
            continue;
        }
        let room = (max_nodes - chosen.len()).min(detail.children.max(1));
        let keep: Vec<usize> = kids[i].iter().copied().take(room).collect();
        if (keep.len() as u64) < total(i) {
            truncated = true;
        }
        let mut ids = Vec::with_capacity(keep.len());
        for k in keep {
            ids.push(k);
            chosen.push((k, Vec::new(), false));
        }
        chosen[next].1 = ids;
        chosen[next].2 = true;
        next += 1;
    }
    let at: std::collections::HashMap<usize, usize> = chosen.iter().enumerate().map(|(c, x)| (x.0, c)).collect();
    let mut nodes = Vec::with_capacity(chosen.len());
    let mut order = vec![0usize];
    while let Some(c) = order.pop() {
        let (i, ref listed, expanded) = chosen[c];
        let old = &t.nodes[i];
        let (omitted, omitted_retained, chain) = if expanded {
            let dropped: u64 =
                kids[i].iter().filter(|k| !listed.contains(k)).map(|&k| t.nodes[k].object.retained_bytes).sum();
            let omitted = total(i) - listed.len() as u64;
            (omitted, old.omitted_retained_bytes + dropped, old.chain.clone())
        } else {
            // Not expanded: every child left out, as the build counts them.
            let all: u64 = kids[i].iter().map(|&k| t.nodes[k].object.retained_bytes).sum();
            (total(i), old.omitted_retained_bytes + all, None)
        };
        nodes.push(SubtreeNode {
            object: old.object.clone(),
            depth: old.depth,
            omitted_children: omitted,
            omitted_retained_bytes: omitted_retained,
            chain,
        });
        order.extend(listed.iter().rev().map(|k| at[k]));
    }
    DominatorSubtree { nodes, truncated }
}
