//! Leak suspects, as MAT's Leak Suspects report finds them (FindLeaksQuery at 10%).
//!
//! - threshold = 10% of the used heap (integer division);
//! - the leading top-level dominators (children of the virtual root, by retained size)
//!   above the threshold are single-object suspects;
//! - the remaining top-level dominators are grouped by class; a group whose retained sum
//!   is above the threshold is a group suspect.
//!
//! A single suspect's *accumulation point*: from the suspect, step to its largest
//! dominated child while `child / parent ≥ 0.7`; a leaf ends the walk there; after 1000
//! steps with children left there is none.
//!
//! A group's accumulation point comes from shortest reference paths instead: a
//! breadth-first search from all GC roots (skipping references held only by
//! `Reference.referent`, `Finalizer.unfinalized`, `Runtime.<Unfinalized>`) gives each
//! member one path; the paths are grouped by their first object, and the walk descends
//! along the largest group while it holds more than 80% of the members and keeps at
//! least 70% of the parent's retained size.

use crate::analysis::Analysis;
use crate::search::union::PathUnion;

/// Share of the used heap above which something is a suspect, in percent.
pub const THRESHOLD_PERCENT: u64 = 10;
const BIG_DROP_RATIO: f64 = 0.7;
const MAX_DEPTH: usize = 1000;
/// MAT samples at most this many members of a group for the path search. (MAT samples
/// randomly; heapscope takes the largest members, so results are reproducible.)
pub const MAX_GROUP_PATHS: usize = 10_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SuspectKind {
    Single { object: u32 },
    Group { class: u32, members: Vec<u32> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suspect {
    pub kind: SuspectKind,
    pub retained: u64,
    /// Shallow size of the object, or of the group's class object (MAT's sort key).
    pub shallow: u64,
    pub accumulation_point: Option<u32>,
    /// Objects from the suspect (or, for a group, the GC root of the common path) down
    /// to the accumulation point: the dominator chain for a single suspect, the shared
    /// reference path for a group.
    pub chain: Vec<u32>,
}

pub fn threshold(used_heap: u64) -> u64 {
    THRESHOLD_PERCENT * used_heap / 100
}

pub fn find(a: &Analysis) -> Vec<Suspect> {
    let thr = threshold(a.used_heap);
    let top = a.top_level();
    let mut out = Vec::new();
    let mut i = 0;
    while i < top.len() && a.retained(top[i]) > thr {
        let v = top[i];
        let (ap, chain) = single_accumulation_point(a, v);
        out.push(Suspect {
            kind: SuspectKind::Single { object: v },
            retained: a.retained(v),
            shallow: a.shallow(v),
            accumulation_point: ap,
            chain,
        });
        i += 1;
    }
    // Group the rest by class, in order of first appearance (= retained order).
    let classes = a.class_count();
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); classes];
    let mut sums = vec![0u64; classes];
    let mut order = Vec::new();
    for &v in &top[i..] {
        let c = a.class_of(v) as usize;
        if c >= classes {
            continue;
        }
        if members[c].is_empty() {
            order.push(c);
        }
        members[c].push(v);
        sums[c] += a.retained(v);
    }
    order.sort_by(|&x, &y| sums[y].cmp(&sums[x]));
    for c in order {
        if sums[c] <= thr {
            break;
        }
        let m = std::mem::take(&mut members[c]);
        let (ap, chain) = group_accumulation_point(a, &m);
        let class_object = a.class_object(c as u32);
        out.push(Suspect {
            kind: SuspectKind::Group { class: c as u32, members: m },
            retained: sums[c],
            shallow: class_object.map_or(0, |o| a.shallow(o)),
            accumulation_point: ap,
            chain,
        });
    }
    // MAT's order: retained desc, singles first, shallow desc, class name desc, object desc.
    let name = |s: &Suspect| -> &str {
        let c = match s.kind {
            SuspectKind::Single { object } => a.class_of(object),
            SuspectKind::Group { class, .. } => class,
        };
        a.class_name(c)
    };
    let obj = |s: &Suspect| match s.kind {
        SuspectKind::Single { object } => object as i64,
        SuspectKind::Group { .. } => -1,
    };
    out.sort_by(|x, y| {
        y.retained
            .cmp(&x.retained)
            .then(matches!(y.kind, SuspectKind::Single { .. }).cmp(&matches!(x.kind, SuspectKind::Single { .. })))
            .then(y.shallow.cmp(&x.shallow))
            .then(name(y).cmp(name(x)))
            .then(obj(y).cmp(&obj(x)))
    });
    out
}

/// The dominator-tree walk for a single suspect: (accumulation point, chain walked).
pub fn single_accumulation_point(a: &Analysis, v: u32) -> (Option<u32>, Vec<u32>) {
    let mut dom = v;
    let mut dom_retained = a.retained(v) as f64;
    let mut chain = vec![v];
    let mut depth = 0;
    loop {
        let Some(big) = a.largest_dominated(dom) else { return (Some(dom), chain) };
        if depth >= MAX_DEPTH {
            return (None, chain);
        }
        let r = a.retained(big) as f64;
        if r / dom_retained < BIG_DROP_RATIO {
            return (Some(dom), chain);
        }
        dom_retained = r;
        dom = big;
        chain.push(dom);
        depth += 1;
    }
}

/// The shortest-path walk for a group suspect: (accumulation point, common path).
pub fn group_accumulation_point(a: &Analysis, members: &[u32]) -> (Option<u32>, Vec<u32>) {
    let mut sample: Vec<u32> = members.to_vec();
    sample.truncate(MAX_GROUP_PATHS);
    // The members' shortest paths, without the references MAT's path queries exclude
    // (`Reference.referent`, …) when those reach any member; tallied by retained size.
    let paths = |excludes| PathUnion::of(a, &sample, excludes, |m| a.retained(m)).ok().filter(|u| !u.nodes.is_empty());
    match paths(true).or_else(|| paths(false)) {
        Some(union) => descend(&union, members.len().min(MAX_GROUP_PATHS)),
        None => (None, Vec::new()),
    }
}

/// Largest group first; ties keep the order in which the members' paths appear.
fn best(union: &PathUnion, candidates: &[u32]) -> Option<u32> {
    candidates.iter().copied().min_by(|&x, &y| {
        let (tx, ty) = (&union.nodes[&x], &union.nodes[&y]);
        ty.members.cmp(&tx.members).then(tx.first.cmp(&ty.first))
    })
}

/// The common path: down from the biggest root while the node holds more than 80% of the
/// members and its biggest child keeps at least 70% of its retained size.
fn descend(union: &PathUnion, members: usize) -> (Option<u32>, Vec<u32>) {
    let Some(mut pk) = best(union, &union.roots) else { return (None, Vec::new()) };
    let thr = (0.8 * members as f64) as u64;
    let mut common = Vec::new();
    while union.nodes[&pk].members > thr {
        common.push(pk);
        let kids = union.children.get(&pk).map(|v| v.as_slice()).unwrap_or(&[]);
        let Some(k) = best(union, kids) else { return (Some(pk), common) };
        let ratio = union.nodes[&k].weight as f64 / union.nodes[&pk].weight as f64;
        if ratio < BIG_DROP_RATIO {
            return (Some(pk), common);
        }
        pk = k;
    }
    (None, common)
}
