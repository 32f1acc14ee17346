//! Linked structures read as one: a cons list, a linked queue, a hash bucket's chain, a
//! program's own nodes — objects of one class, each holding the next.
//!
//! In the dominator tree such a structure is a *chain*: its first node dominates the
//! second, which dominates the third… A million-node list is a million levels deep, and
//! every walk down the tree (an accumulation point searched for, a dominator subtree
//! listed, a tree view opened level by level) meets the nodes one level at a time. Read
//! as one, the nodes are the *members* of what holds the chain, side by side, each with
//! what it holds itself.
//!
//! Terms:
//! - the **link** of a node `v` ([`link`]): the one object of `v`'s class that `v`
//!   references and immediately dominates (none when there is none, or several: a tree
//!   node with two children of its class is no chain node). Class objects and arrays have
//!   no link. A cycle's last node has none (the first is not below it in the tree), so a
//!   chain always ends;
//! - a **chain**: a node and its links, followed to the end: `v, link(v), link(link(v))…`;
//! - a node's **own** retained size, as a member: what it retains without the rest of its
//!   chain (`retained(v) − retained(link(v))`);
//! - the **members** of a node `v` ([`for_each_member`]): the objects it immediately
//!   dominates, where a child heading a chain stands for its whole chain (every node of it
//!   a member of `v`), and where `v` itself is a member of a chain above it (a
//!   *continuation*, or a chain's first node below a node other than the virtual root),
//!   its own link is left out, since that node is listed beside `v`.
//!
//! A chain is a chain of the dominator tree in use, whichever reading: nothing here reads
//! a record (naming the field that links the nodes is [`link_field`]'s single read).
//!
//! Cost: [`link`] looks at one node's references; a chain is followed in time linear in
//! its length, with no recursion and no allocation, so a 1,000,000-node chain is read in
//! one pass.

use crate::analysis::Analysis;
use crate::error::Result;

/// Whether objects of class `c` can be chain nodes: instances only (an array holds
/// elements, not a next node; a class object's statics are no chain).
fn chainable(a: &Analysis, v: u32) -> bool {
    a.class_represented_by(v).is_none() && !a.class_name(a.class_of(v)).ends_with("[]")
}

/// The node after `v` in its chain (see the module's documentation), if any.
pub fn link(a: &Analysis, v: u32) -> Option<u32> {
    if !chainable(a, v) {
        return None;
    }
    let c = a.class_of(v);
    let mut found: Option<u32> = None;
    let mut several = false;
    a.for_each_reference(v, |w| {
        if w != v && found != Some(w) && a.class_of(w) == c && a.immediate_dominator(w) == Some(Some(v)) {
            several |= found.is_some();
            found = Some(w);
        }
    });
    if several {
        None
    } else {
        found
    }
}

/// Whether `v` continues a chain: its immediate dominator is a node whose link it is.
pub fn is_continuation(a: &Analysis, v: u32) -> bool {
    match a.immediate_dominator(v) {
        Some(Some(p)) => a.class_of(p) == a.class_of(v) && link(a, p) == Some(v),
        _ => false,
    }
}

/// Whether `v` is listed as a member beside the rest of its chain: a continuation, or the
/// first node of a chain whose holder is an object (the virtual root's children stay the
/// top-level dominators, one row each).
pub fn is_flattened(a: &Analysis, v: u32) -> bool {
    if is_continuation(a, v) {
        return true;
    }
    matches!(a.immediate_dominator(v), Some(Some(_))) && link(a, v).is_some()
}

/// The first node of the chain through `v`: up from `v` while it continues a chain.
pub fn first_node(a: &Analysis, v: u32) -> u32 {
    let mut x = v;
    while is_continuation(a, x) {
        match a.immediate_dominator(x) {
            Some(Some(p)) => x = p,
            _ => break,
        }
    }
    x
}

/// A chain, summed up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    pub first: u32,
    pub last: u32,
    /// Nodes, the first and last included.
    pub nodes: u64,
}

/// The chain from `v` to its end (a single node when `v` has no link).
pub fn chain_from(a: &Analysis, v: u32) -> Chain {
    let mut last = v;
    let mut nodes = 1u64;
    while let Some(n) = link(a, last) {
        last = n;
        nodes += 1;
    }
    Chain { first: v, last, nodes }
}

/// `v`'s retained size as a member: without the rest of its chain when it is listed
/// beside it (see [`is_flattened`]).
pub fn own_retained(a: &Analysis, v: u32) -> u64 {
    if is_flattened(a, v) {
        own_after_link(a, v, link(a, v))
    } else {
        a.retained(v)
    }
}

fn own_after_link(a: &Analysis, v: u32, next: Option<u32>) -> u64 {
    a.retained(v).saturating_sub(next.map_or(0, |n| a.retained(n)))
}

/// What a member is: an object the node dominates, or a node of a chain it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub object: u32,
    /// Retained without the rest of its chain (see [`own_retained`]).
    pub retained: u64,
    /// Nodes of the chain it belongs to among the members (1: not a chain node), and the
    /// chain's first node.
    pub chain_nodes: u64,
    pub chain_first: u32,
}

/// Calls `f` with every member of `v` (see the module's documentation), in the order of
/// `v`'s children, a chain's nodes in chain order.
pub fn for_each_member<F: FnMut(Member)>(a: &Analysis, v: u32, mut f: F) {
    let own_link = link(a, v);
    let skip = if own_link.is_some() && is_flattened(a, v) { own_link } else { None };
    for c in a.dominated(v) {
        if Some(c) == skip {
            continue;
        }
        let Some(mut next) = link(a, c) else {
            f(Member { object: c, retained: a.retained(c), chain_nodes: 1, chain_first: c });
            continue;
        };
        let nodes = chain_from(a, c).nodes;
        let mut x = c;
        loop {
            f(Member { object: x, retained: own_after_link(a, x, Some(next)), chain_nodes: nodes, chain_first: c });
            x = next;
            match link(a, x) {
                Some(n) => next = n,
                None => {
                    f(Member { object: x, retained: a.retained(x), chain_nodes: nodes, chain_first: c });
                    break;
                }
            }
        }
    }
}

/// How many members `v` has.
pub fn member_count(a: &Analysis, v: u32) -> u64 {
    let mut n = 0u64;
    for_each_member(a, v, |_| n += 1);
    n
}

/// The members of `v`, largest retained first (then by index), allocated fallibly.
pub fn members_by_size(a: &Analysis, v: u32) -> Result<Vec<Member>> {
    let mut out: Vec<Member> = crate::alloc::try_with_capacity(a.dominated_count(v), "the members of a node")?;
    let mut failed = None;
    for_each_member(a, v, |m| {
        if failed.is_none() {
            if let Err(e) = crate::alloc::try_push(&mut out, m, "the members of a node") {
                failed = Some(e);
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    out.sort_unstable_by_key(|m| (std::cmp::Reverse(m.retained), m.object));
    Ok(out)
}

/// Adds `m` to `largest` (largest retained first, then by index) if it is among the `cap`
/// largest seen.
pub fn keep_largest(largest: &mut Vec<Member>, m: Member, cap: usize) {
    let key = |x: &Member| (std::cmp::Reverse(x.retained), x.object);
    let at = largest.partition_point(|x| key(x) < key(&m));
    if at < cap {
        if largest.len() == cap {
            largest.pop();
        }
        largest.insert(at, m);
    }
}

/// The largest member of `v` (the lowest index among equals).
pub fn largest_member(a: &Analysis, v: u32) -> Option<Member> {
    let mut best: Option<Member> = None;
    for_each_member(a, v, |m| {
        if best.map_or(true, |b| (m.retained, std::cmp::Reverse(m.object)) > (b.retained, std::cmp::Reverse(b.object)))
        {
            best = Some(m);
        }
    });
    best
}

/// The name of the field through which a chain's first node holds the second (None for a
/// one-node chain, or when no field of the record names it): one record read back.
pub fn link_field(a: &mut Analysis, first: u32) -> Result<Option<String>> {
    let Some(next) = link(a, first) else { return Ok(None) };
    let names = super::paths::via(a, first, next)?;
    Ok(names.into_iter().find(|n| !n.starts_with('<') && !n.starts_with('[')))
}
