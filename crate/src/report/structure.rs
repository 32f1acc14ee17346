//! Where a single suspect's memory accumulates, with linked structures read as one (see
//! [`crate::model::Structure`] and [`crate::query::chains`]).
//!
//! MAT's walk (see [`super::suspects`]) steps from a node to its largest child in the
//! dominator tree; down a linked list that is one node per step, so a cons list of 2,000
//! parsed files is 1,000 steps of anonymous list nodes and "no accumulation point". This
//! walk steps to the largest *member* instead: the nodes of a chain are members side by
//! side of what holds the chain, each weighed without the rest of the chain, so the walk
//! stops at the list's holder, whose members are the list's nodes.
//!
//! Cost: per step, one pass over the node's children and the chains they head (each
//! chain followed once, linearly); the walk ends after at most [`MAX_DEPTH`] steps.

use std::collections::BTreeMap;

use crate::analysis::{object_ref, Analysis};
use crate::error::Result;
use crate::model::format::basis_points;
use crate::model::{LinkedChain, MemberGroup, ObjectRef, Structure};
use crate::query::chains::{self, Member};

/// Steps the walk takes at most (as MAT's); the last step reached is then the point.
pub const MAX_DEPTH: usize = 1000;
const BIG_DROP_RATIO: f64 = 0.7;
/// Chains listed per structure.
pub const MAX_CHAINS: usize = 5;
/// Objects listed per group.
pub const GROUP_EXAMPLES: usize = 3;
const PATH_HEAD: usize = 20;
const PATH_TAIL: usize = 20;

/// The walk from `v`: the objects from `v` down to where the memory accumulates (its last).
pub fn walk(a: &Analysis, v: u32) -> Vec<u32> {
    let mut path = vec![v];
    let mut at = chains::own_retained(a, v) as f64;
    while path.len() <= MAX_DEPTH {
        let here = *path.last().expect("the path starts with v");
        let Some(m) = chains::largest_member(a, here) else { break };
        if at <= 0.0 || (m.retained as f64) / at < BIG_DROP_RATIO {
            break;
        }
        at = m.retained as f64;
        path.push(m.object);
    }
    path
}

/// `obj` named, with its retained size as a member (without the rest of its chain).
pub fn member_ref(a: &Analysis, obj: u32) -> ObjectRef {
    let mut r = object_ref(a, obj);
    let own = chains::own_retained(a, obj);
    if own != r.retained_bytes {
        r.retained_bytes = own;
        r.retained_bp = basis_points(own, a.used_heap);
    }
    r
}

/// The members of `point` grouped by class, largest retained first, with the chains
/// among them (most nodes first) and their count and retained sum.
pub struct Members {
    pub groups: Vec<(u32, MemberGroup)>,
    pub chains: Vec<chains::Chain>,
    pub count: u64,
    pub retained: u64,
}

/// The members of `point` (see [`Members`]), `max_groups` groups at most.
pub fn members(a: &Analysis, point: u32, max_groups: usize) -> Members {
    // class → (objects, shallow, retained, the biggest few)
    let mut groups: BTreeMap<u32, (u64, u64, u64, Vec<Member>)> = BTreeMap::new();
    let mut longest: Vec<chains::Chain> = Vec::new();
    let (mut count, mut retained) = (0u64, 0u64);
    chains::for_each_member(a, point, |m| {
        count += 1;
        retained += m.retained;
        let g = groups.entry(a.class_of(m.object)).or_default();
        g.0 += 1;
        g.1 += a.shallow(m.object);
        g.2 += m.retained;
        chains::keep_largest(&mut g.3, m, GROUP_EXAMPLES);
        if m.chain_nodes > 1 && m.object == m.chain_first {
            let c = chains::Chain { first: m.chain_first, last: m.chain_first, nodes: m.chain_nodes };
            let at = longest
                .partition_point(|x| (x.nodes, std::cmp::Reverse(x.first)) >= (c.nodes, std::cmp::Reverse(c.first)));
            if at < MAX_CHAINS {
                longest.insert(at, c);
                longest.truncate(MAX_CHAINS);
            }
        }
    });
    let mut out: Vec<(u32, MemberGroup)> = groups
        .into_iter()
        .map(|(c, (objects, shallow_bytes, retained_bytes, biggest))| {
            let biggest = biggest
                .into_iter()
                .map(|m| {
                    let mut r = object_ref(a, m.object);
                    r.retained_bytes = m.retained;
                    r.retained_bp = basis_points(m.retained, a.used_heap);
                    r
                })
                .collect();
            (
                c,
                MemberGroup {
                    class_name: a.class_name(c).to_string(),
                    objects,
                    shallow_bytes,
                    retained_bytes,
                    biggest,
                },
            )
        })
        .collect();
    out.sort_by(|(cx, x), (cy, y)| {
        y.retained_bytes.cmp(&x.retained_bytes).then(x.class_name.cmp(&y.class_name)).then(cx.cmp(cy))
    });
    out.truncate(max_groups);
    Members { groups: out, chains: longest, count, retained }
}

/// The structure of a single suspect `v` (see [`Structure`]), chains without their field
/// names (read back by [`name_chains`]), and its point.
pub fn structure(a: &Analysis, v: u32, max_groups: usize) -> (u32, Structure) {
    let path = walk(a, v);
    let point = *path.last().expect("the walk starts at v");
    let m = members(a, point, max_groups);
    let refs = |xs: &[u32]| xs.iter().map(|&x| object_ref(a, x)).collect::<Vec<_>>();
    let (listed, path_omitted) = if path.len() > PATH_HEAD + PATH_TAIL {
        let mut l = refs(&path[..PATH_HEAD]);
        l.extend(refs(&path[path.len() - PATH_TAIL..]));
        (l, (path.len() - PATH_HEAD - PATH_TAIL) as u64)
    } else {
        (refs(&path), 0)
    };
    let s = Structure {
        point: object_ref(a, point),
        path: listed,
        path_omitted,
        members: m.count,
        members_retained_bytes: m.retained,
        groups: m.groups.into_iter().map(|(_, g)| g).collect(),
        chains: m
            .chains
            .iter()
            .map(|c| LinkedChain {
                first: object_ref(a, c.first),
                class_name: a.class_name(a.class_of(c.first)).to_string(),
                field: None,
                nodes: c.nodes,
            })
            .collect(),
    };
    (point, s)
}

/// Fills in the field that links each chain's nodes (one record read per chain).
pub fn name_chains(a: &mut Analysis, list: &mut [LinkedChain]) -> Result<()> {
    for c in list {
        if c.field.is_some() {
            continue;
        }
        let Some(first) = crate::model::format::parse_address(&c.first.address).and_then(|x| crate::query::find(a, x))
        else {
            continue;
        };
        c.field = chains::link_field(a, first)?;
    }
    Ok(())
}
