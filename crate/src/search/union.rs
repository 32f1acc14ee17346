//! The union of the shortest paths from the GC roots to a set of objects, with a tally
//! per object on them: how many objects of the set (and how much of a weight, e.g. their
//! retained sizes) each path node leads to. Eclipse MAT's "merge shortest paths to GC
//! roots", and a group suspect's common path.
//!
//! One breadth-first search from all roots ([`super::levels`]) gives every object one
//! shortest path (its chain of BFS parents); two paths share a prefix exactly when they
//! meet at an object, so the union is the part of the search tree above the set. It is
//! found by marking the set's objects and their ancestors (each once), then the tallies
//! are added up from the deepest node to the roots in reverse discovery order (a node is
//! discovered after its BFS parent). Cost: the search (a bit per object, 4 bytes per
//! object it discovers while it runs), then linear in the union.

use std::collections::HashMap;

use super::levels::{Levels, Refs, ROOT};
use crate::analysis::Analysis;
use crate::bits::BitSet;
use crate::error::Result;

/// One object on the paths.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UnionNode {
    /// Its BFS parent ([`ROOT`] for a GC root).
    pub parent: u32,
    /// Where the search discovered it.
    pub pos: usize,
    /// Objects of the set whose path goes through it (itself included), counted as often
    /// as the set lists them.
    pub members: u64,
    /// Their weights, summed.
    pub weight: u64,
    /// The first of them in the set's order (its index).
    pub first: usize,
}

/// The union of the shortest paths to a set of objects.
#[derive(Debug, Default)]
pub(crate) struct PathUnion {
    pub nodes: HashMap<u32, UnionNode>,
    /// Each node's children on the paths, latest discovered first.
    pub children: HashMap<u32, Vec<u32>>,
    /// The GC roots the paths start from, latest discovered first.
    pub roots: Vec<u32>,
    /// Objects of the set that no path reaches (counted as often as the set lists them).
    pub unreached: u64,
}

impl PathUnion {
    /// The union of the shortest paths from the GC roots of `a` to `set` (without the
    /// references MAT's path queries exclude when `excludes`), each object of the set
    /// tallied with `weight`.
    pub(crate) fn of(a: &Analysis, set: &[u32], excludes: bool, weight: impl Fn(u32) -> u64) -> Result<PathUnion> {
        let n = a.object_count();
        // Breadth first until every object is found, then their BFS parents and their
        // ancestors' (with their search positions), without an array per object.
        let mut want = BitSet::new(n, "the path search")?;
        let mut left = 0usize;
        for &t in set {
            if (t as usize) < n && want.insert_new(t) {
                left += 1;
            }
        }
        let mut found = Vec::new();
        let g = Refs { a, excludes };
        let levels = Levels::search(&g, |v, pos| {
            if want.contains(v) {
                found.push((v, pos));
                left -= 1;
            }
            left == 0
        })?;
        drop(want);
        let parent = levels.parents(&g, &found);
        drop(levels);
        // The set's objects and their ancestors, each once.
        let mut union = PathUnion::default();
        for &t in set {
            if !parent.contains_key(&t) {
                union.unreached += 1;
                continue;
            }
            let mut x = t;
            while let (Some(&(p, pos)), false) = (parent.get(&x), union.nodes.contains_key(&x)) {
                union.nodes.insert(x, UnionNode { parent: p, pos, members: 0, weight: 0, first: usize::MAX });
                if p == ROOT {
                    break;
                }
                x = p;
            }
        }
        for (i, &t) in set.iter().enumerate() {
            if let Some(node) = union.nodes.get_mut(&t) {
                node.members += 1;
                node.weight += weight(t);
                node.first = node.first.min(i);
            }
        }
        // Tallies bottom-up: reverse discovery order puts every node before its parent.
        let mut order: Vec<u32> = union.nodes.keys().copied().collect();
        order.sort_unstable_by_key(|x| std::cmp::Reverse(union.nodes[x].pos));
        for x in order {
            let node = union.nodes[&x];
            if node.parent == ROOT {
                union.roots.push(x);
                continue;
            }
            union.children.entry(node.parent).or_default().push(x);
            let p = union.nodes.get_mut(&node.parent).expect("parents of union nodes are in the union");
            p.members += node.members;
            p.weight += node.weight;
            p.first = p.first.min(node.first);
        }
        Ok(union)
    }
}
