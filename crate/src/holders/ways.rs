//! The leak trace and the other ways an object is held, as object indices (the query
//! layer names the steps).
//!
//! - [`trace`]: a shortest path from a GC root to the object, found by walking referrers
//!   up from the object (breadth first, so it stops at the nearest root), first without
//!   the references the view avoids, then, if that finds none, with them.
//! - [`marks`]: which steps dominate the object (its strict dominators, found by climbing
//!   `idom`); [`stretches`]: the runs of unmarked steps and their ends.
//! - [`independent_paths`]: the seed's greedy search for internally vertex-disjoint
//!   paths between a stretch's ends: walk referrers up from the lower end breadth first
//!   until the upper end (or, for a stretch hanging off the head, any GC root) is met;
//!   block the path's interior and walk again. A path whose interior is empty (a direct
//!   reference, or a GC root that is the lower end itself) is blocked as that one edge.
//!   The walk never passes through the lower end again: a path looping back through the
//!   object is not a way of holding it. Blocking can cost a path further on (finding a
//!   maximum set is a max-flow problem), so `has_more` means "the search stopped at the
//!   limit", not "there are more".
//!
//! Each walk is breadth first over the referrer index ([`crate::search::up`]: one parent
//! entry per object, allocated once per question, reset through the list of objects
//! touched): `O(objects + references)` per path at worst, no recursion.

use std::collections::{HashMap, HashSet};

use super::referrer_index::ReferrerIndex;
use crate::dominators::{UNREACHABLE, VIRTUAL_ROOT};
use crate::error::Result;
use crate::retained::IdomRead;
use crate::search::up::Walker;

/// A shortest reference path from a GC root to `obj` (root first, `obj` last), avoiding
/// the references `avoid` names when another path exists. None if no root reaches `obj`
/// (it is not kept in this tree).
pub fn trace(index: &ReferrerIndex, avoid: impl Fn(u32, u32) -> bool, obj: u32) -> Result<Option<Vec<u32>>> {
    if index.is_root(obj) {
        return Ok(Some(vec![obj]));
    }
    let mut w = Walker::new(index.object_count())?;
    for avoiding in [true, false] {
        w.reset();
        w.start(obj)?;
        let mut head = 0;
        while let Some(u) = w.queued(head) {
            head += 1;
            let mut found = None;
            let mut err = Ok(());
            index.for_each_referrer(u, |r| {
                if found.is_some() || err.is_err() || w.seen(r) || (avoiding && avoid(r, u)) {
                    return;
                }
                err = w.see(r, u);
                if index.is_root(r) {
                    found = Some(r);
                }
            });
            err?;
            if let Some(r) = found {
                return Ok(Some(w.chain_from(r)));
            }
        }
    }
    Ok(None)
}

/// For each step of `trace` (ending at its object), whether it strictly dominates the
/// object in the tree `idom`.
pub fn marks(idom: &dyn IdomRead, trace: &[u32]) -> Vec<bool> {
    let mut out = vec![false; trace.len()];
    let Some((&obj, _)) = trace.split_last() else { return out };
    let pos: HashMap<u32, usize> = trace.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let mut d = if (obj as usize) < idom.count() { idom.at(obj) } else { UNREACHABLE };
    // The dominators of an object are a chain of at most `n` objects; the bound guards
    // against a corrupt array.
    for _ in 0..idom.count() {
        if d == VIRTUAL_ROOT || d == UNREACHABLE {
            break;
        }
        if let Some(&i) = pos.get(&d) {
            out[i] = true;
        }
        d = idom.at(d);
    }
    out
}

/// A stretch of unmarked steps: the indices in the trace of its upper end (None: the GC
/// roots) and of its lower end (a marked step, or the object).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stretch {
    pub from: Option<usize>,
    pub to: usize,
}

/// The stretches of a trace with `marks` (see [`marks`]), top first.
pub fn stretches(marks: &[bool]) -> Vec<Stretch> {
    let mut out = Vec::new();
    let Some(last) = marks.len().checked_sub(1) else { return out };
    let mut upper: Option<usize> = None;
    for i in 0..=last {
        if marks[i] || i == last {
            let first_inside = upper.map_or(0, |u| u + 1);
            if first_inside < i {
                out.push(Stretch { from: upper, to: i });
            }
            upper = Some(i);
        }
    }
    out
}

/// Paths found between a stretch's ends, each listed top (`from`, or a GC root) to bottom
/// (`to`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ways {
    pub paths: Vec<Vec<u32>>,
    /// The search stopped at the limit (there may or may not be more).
    pub has_more: bool,
}

/// Internally vertex-disjoint paths from `from` (None: any GC root) to `to`, at most
/// `max`, by the greedy search described in the module doc.
pub fn independent_paths(index: &ReferrerIndex, from: Option<u32>, to: u32, max: usize) -> Result<Ways> {
    let mut paths = Vec::new();
    let mut blocked: HashSet<u32> = HashSet::new();
    let mut direct_blocked = false;
    if from == Some(to) || max == 0 {
        return Ok(Ways { paths, has_more: max == 0 });
    }
    let mut w = Walker::new(index.object_count())?;
    loop {
        if paths.len() >= max {
            return Ok(Ways { paths, has_more: true });
        }
        w.reset();
        w.start(to)?;
        // A GC root that is the lower end: the root's own edge is the path.
        let mut found: Option<u32> = (from.is_none() && index.is_root(to) && !direct_blocked).then_some(to);
        let mut head = 0;
        while found.is_none() {
            let Some(u) = w.queued(head) else { break };
            head += 1;
            let mut err = Ok(());
            index.for_each_referrer(u, |r| {
                if found.is_some() || err.is_err() || r == to || w.seen(r) {
                    return;
                }
                if Some(r) == from {
                    if !(u == to && direct_blocked) {
                        // The upper end is not entered in the walk (it may be met again
                        // from another object); remember the step below it.
                        found = Some(u);
                    }
                    return;
                }
                if blocked.contains(&r) {
                    return;
                }
                err = w.see(r, u);
                if from.is_none() && index.is_root(r) {
                    found = Some(r);
                }
            });
            err?;
        }
        let Some(top) = found else { return Ok(Ways { paths, has_more: false }) };
        let mut path = w.chain_from(top);
        let interior: &[u32] = match from {
            Some(f) => {
                path.insert(0, f);
                &path[1..path.len() - 1]
            }
            None => &path[..path.len() - 1],
        };
        if interior.is_empty() {
            direct_blocked = true;
        }
        blocked.extend(interior.iter().copied());
        paths.push(path);
    }
}
