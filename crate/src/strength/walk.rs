//! The strength of every object (a widest-path walk) and the partition of the dump by it.

use std::collections::VecDeque;

use super::owners::Owners;
use crate::alloc::{try_filled, try_push};
use crate::bits::BitSet;
use crate::error::Result;
use crate::graph::{Heap, NO_CLASS};
use crate::rules::edges::{OWNER, STRENGTH_MASK};
use crate::rules::roots::root_strength;
use crate::rules::strength::{Strength, ALL, STRONG, UNREACHABLE};

/// A graph whose roots and edges carry a strength byte (a [`Strength`] as `u8`).
pub trait Edges {
    fn node_count(&self) -> usize;
    /// The GC roots, each with the strength of its root edge (duplicates allowed).
    fn for_each_root<F: FnMut(u32, u8)>(&self, f: F);
    /// The references of `v` with their flags (the strength, plus [`OWNER`] for an owner
    /// reference), in a fixed order.
    fn for_each_edge_of<F: FnMut(u32, u8)>(&self, v: u32, f: F);
    /// Whether owner rules apply at all (see [`super::owners`]).
    #[inline]
    fn has_owner_rules(&self) -> bool {
        false
    }
    /// Whether `v` is of a class whose instances have owners.
    #[inline]
    fn needs_owner(&self, _v: u32) -> bool {
        false
    }
    /// When every reference of `v` is plain (strong, not an owner's), calls `f` with each
    /// target in [`Edges::for_each_edge_of`]'s order and returns true; otherwise calls
    /// nothing and returns false. Lets the walk take most nodes without reading flags.
    #[inline]
    fn for_each_plain_edge_of<F: FnMut(u32)>(&self, _v: u32, _f: F) -> bool {
        false
    }
    /// A hint that `v`'s edges will be read soon (see [`crate::dominators::Graph`]).
    #[inline]
    fn prefetch(&self, _v: u32) {}
    /// Calls `f(v, t, flags)` for every edge: nodes in increasing order, each one's as
    /// [`Edges::for_each_edge_of`] gives them (an implementation may read sequentially).
    #[inline]
    fn for_each_edge<F: FnMut(u32, u32, u8)>(&self, mut f: F) {
        for v in 0..self.node_count() as u32 {
            self.for_each_edge_of(v, |t, flags| f(v, t, flags));
        }
    }
}

impl<E: Edges> Edges for &E {
    fn node_count(&self) -> usize {
        (**self).node_count()
    }
    fn for_each_root<F: FnMut(u32, u8)>(&self, f: F) {
        (**self).for_each_root(f)
    }
    #[inline]
    fn for_each_edge_of<F: FnMut(u32, u8)>(&self, v: u32, f: F) {
        (**self).for_each_edge_of(v, f)
    }
    #[inline]
    fn has_owner_rules(&self) -> bool {
        (**self).has_owner_rules()
    }
    #[inline]
    fn needs_owner(&self, v: u32) -> bool {
        (**self).needs_owner(v)
    }
    #[inline]
    fn for_each_plain_edge_of<F: FnMut(u32)>(&self, v: u32, f: F) -> bool {
        (**self).for_each_plain_edge_of(v, f)
    }
    #[inline]
    fn prefetch(&self, v: u32) {
        (**self).prefetch(v)
    }
    #[inline]
    fn for_each_edge<F: FnMut(u32, u32, u8)>(&self, f: F) {
        (**self).for_each_edge(f)
    }
}

/// The heap's references with their strengths (from [`Heap::special_edges`]) and the GC
/// roots with theirs ([`root_strength`]). Objects without a class are left out, as in
/// the dominator tree.
pub struct HeapEdges<'a> {
    pub heap: &'a Heap,
    /// The owner rules' data (empty on dumps without Android views and activities).
    pub owners: &'a Owners,
    /// Whether some objects have no class (then edges to them are skipped).
    pub filter: bool,
}

impl<'a> HeapEdges<'a> {
    pub fn new(heap: &'a Heap, owners: &'a Owners) -> HeapEdges<'a> {
        HeapEdges { heap, owners, filter: heap.classes.any_missing() }
    }

    #[inline]
    fn live(&self, t: u32) -> bool {
        !self.filter || self.heap.class_of(t) != NO_CLASS
    }
}

impl Edges for HeapEdges<'_> {
    fn node_count(&self) -> usize {
        self.heap.object_count()
    }

    fn for_each_root<F: FnMut(u32, u8)>(&self, mut f: F) {
        for &(o, kinds) in &self.heap.roots.objects {
            if self.live(o) {
                f(o, root_strength(kinds));
            }
        }
    }

    #[inline]
    fn for_each_edge_of<F: FnMut(u32, u8)>(&self, v: u32, mut f: F) {
        if self.heap.has_special_edges(v) {
            let special = self.heap.special_edges_of(v);
            self.heap.for_each_reference(v, |t| {
                if self.live(t) {
                    let flags = special.binary_search_by_key(&t, |e| e.1).map_or(STRONG, |k| special[k].2);
                    f(t, flags & (STRENGTH_MASK | OWNER));
                }
            });
            for &(_, child) in self.owners.virtual_children(v) {
                if self.live(child) {
                    f(child, STRONG | OWNER);
                }
            }
        } else {
            self.for_each_plain_edge_of(v, |t| f(t, STRONG));
        }
    }

    /// The objects without special references (nearly all).
    #[inline]
    fn for_each_plain_edge_of<F: FnMut(u32)>(&self, v: u32, mut f: F) -> bool {
        if self.heap.has_special_edges(v) {
            return false;
        }
        if self.filter {
            self.heap.for_each_reference(v, |t| {
                if self.live(t) {
                    f(t)
                }
            });
        } else {
            self.heap.for_each_reference(v, f);
        }
        true
    }

    /// The reference list's position and, read first when `v` is expanded, its class.
    #[inline]
    fn prefetch(&self, v: u32) {
        self.heap.refs.prefetch(v);
        self.heap.classes.prefetch(v);
    }

    /// Reads the lists sequentially (the dominator search scans every edge twice or so).
    #[inline]
    fn for_each_edge<F: FnMut(u32, u32, u8)>(&self, mut f: F) {
        let heap = self.heap;
        heap.refs.scan(|v, targets| {
            if heap.has_special_edges(v) {
                return self.for_each_edge_of(v, |t, flags| f(v, t, flags));
            }
            // As Heap::for_each_reference: the class edge first.
            let c = heap.classes.get(v);
            let co = if c == NO_CLASS { NO_CLASS } else { heap.class_object[c as usize] };
            for t in (co != NO_CLASS).then_some(co).into_iter().chain(targets) {
                if self.live(t) {
                    f(v, t, STRONG);
                }
            }
        });
    }

    #[inline]
    fn has_owner_rules(&self) -> bool {
        self.owners.any()
    }

    #[inline]
    fn needs_owner(&self, v: u32) -> bool {
        let c = self.heap.class_of(v);
        c != NO_CLASS && self.owners.owned_class.get(c as usize).copied().unwrap_or(false)
    }
}

/// The walk's result: per node its strength byte, and the nodes an owner reference
/// reached first (see [`super::owners`]; empty when no owner rule applies).
pub struct Reach {
    pub strengths: Vec<u8>,
    pub owned: BitSet,
}

/// What the walk's stacks and queues are called in an allocation error.
const WALK_STACKS: &str = "the reachability walk's stacks";

/// The strength of every node: over all paths from a root, the best of each path's
/// weakest edge (root edge included); [`UNREACHABLE`] where no path arrives.
///
/// One stack per strength, drained firmest first: a node popped at the strength it holds
/// is final (nothing firmer is left to find it), so each node is expanded once and each
/// edge read once; a node is pushed again only when found more firmly (at most once per
/// strength). `O(n + m)`, one byte per node plus the stacks.
///
/// With owner rules, a non-owner reference to a node that needs an owner is parked in a
/// second queue of its strength, taken from (one at a time) only when the main stack is
/// empty; a node an owner reference reaches first is marked owned. Strengths are the same
/// either way: parking only delays a node within its strength.
// Never inlined: in wasm a long loop runs optimized only in a function of its own that V8
// has tiered up (scripts/build-wasm.sh, -ocimfs).
#[inline(never)]
pub fn strengths<E: Edges>(g: &E) -> Result<Reach> {
    let n = g.node_count();
    let mut s = try_filled(n, UNREACHABLE, "the reachability strengths")?;
    let owners = g.has_owner_rules();
    let mut owned = BitSet::new(if owners { n } else { 0 }, "the owner marks")?;
    let mut stacks: [Vec<u32>; UNREACHABLE as usize] = Default::default();
    let mut parked: [VecDeque<u32>; UNREACHABLE as usize] = Default::default();
    // The stacks can grow to the object count: their growth is fallible, the first
    // failure kept here and returned once the edge loop is left.
    let mut failed = Ok(());
    const WHAT: &str = WALK_STACKS;
    g.for_each_root(|o, rs| {
        if rs < s[o as usize] {
            s[o as usize] = rs;
            if let Err(e) = try_push(&mut stacks[rs as usize], o, WHAT) {
                failed = Err(e);
            }
        }
    });
    std::mem::replace(&mut failed, Ok(()))?;
    for level in 0..UNREACHABLE {
        let mut stack = std::mem::take(&mut stacks[level as usize]);
        loop {
            while let Some(x) = stack.pop() {
                if s[x as usize] != level {
                    continue; // found more firmly since, and expanded then
                }
                // The common case, as the general loop below takes a strong edge that
                // owns nothing (`at` is `level`), without reading flags.
                let plain = g.for_each_plain_edge_of(x, |t| {
                    if level >= s[t as usize] {
                        return;
                    }
                    if owners && g.needs_owner(t) {
                        if let Err(e) = park(&mut parked[level as usize], t) {
                            failed = Err(e);
                        }
                        return;
                    }
                    s[t as usize] = level;
                    g.prefetch(t);
                    if let Err(e) = try_push(&mut stack, t, WHAT) {
                        failed = Err(e);
                    }
                });
                if plain {
                    std::mem::replace(&mut failed, Ok(()))?;
                    continue;
                }
                g.for_each_edge_of(x, |t, flags| {
                    let at = (flags & STRENGTH_MASK).max(level);
                    if at >= s[t as usize] {
                        return;
                    }
                    if owners && g.needs_owner(t) {
                        if flags & OWNER == 0 {
                            if let Err(e) = park(&mut parked[at as usize], t) {
                                failed = Err(e);
                            }
                            return;
                        }
                        owned.insert(t);
                    }
                    s[t as usize] = at;
                    let pushed = if at == level {
                        g.prefetch(t);
                        try_push(&mut stack, t, WHAT)
                    } else {
                        try_push(&mut stacks[at as usize], t, WHAT)
                    };
                    if let Err(e) = pushed {
                        failed = Err(e);
                    }
                });
                std::mem::replace(&mut failed, Ok(()))?;
            }
            // No owner is left to reach anything at this strength: a parked bystander
            // holds its node after all.
            let Some(t) = parked[level as usize].pop_front() else { break };
            if level < s[t as usize] {
                s[t as usize] = level;
                if owners {
                    owned.remove(t);
                }
                try_push(&mut stack, t, WHAT)?;
            }
        }
    }
    Ok(Reach { strengths: s, owned })
}

/// Parks `t` in `queue`, growing it fallibly (it can grow to the object count).
fn park(queue: &mut VecDeque<u32>, t: u32) -> Result<()> {
    if queue.len() == queue.capacity() && queue.try_reserve(queue.len().max(1024)).is_err() {
        return Err(crate::alloc::alloc_error(queue.len() * 8, WALK_STACKS));
    }
    queue.push_back(t);
    Ok(())
}

/// One row of the partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub strength: Strength,
    pub objects: u64,
    pub shallow_bytes: u64,
}

/// [`partition`] given the objects of the dump with a class and their shallow bytes
/// (`total`): the objects not held strongly are read one by one, the strong row is the
/// rest. Nearly every object is strong: a pass over the bits instead of over every object.
pub fn partition_from(heap: &Heap, strengths: &super::packed::Strengths, total: (u64, u64)) -> [Row; 9] {
    let mut rows = ALL.map(|strength| Row { strength, objects: 0, shallow_bytes: 0 });
    if strengths.is_empty() {
        return rows;
    }
    let (mut objects, mut shallow) = total;
    strengths.for_each_not_strong(|v, st| {
        if heap.class_of(v) != NO_CLASS {
            let r = &mut rows[(st as usize).min(UNREACHABLE as usize)];
            let s = heap.shallow(v);
            r.objects += 1;
            r.shallow_bytes += s;
            objects -= 1;
            shallow -= s;
        }
    });
    rows[STRONG as usize].objects = objects;
    rows[STRONG as usize].shallow_bytes = shallow;
    rows
}

/// Objects and shallow bytes per strength, firmest first: every object of the dump with a
/// class (unreachable ones included) is in exactly one row.
pub fn partition(heap: &Heap, strengths: &super::packed::Strengths) -> [Row; 9] {
    let mut rows = ALL.map(|strength| Row { strength, objects: 0, shallow_bytes: 0 });
    for v in 0..strengths.len() as u32 {
        if heap.class_of(v) != NO_CLASS {
            let st = strengths.get(v);
            let r = &mut rows[(st as usize).min(UNREACHABLE as usize)];
            r.objects += 1;
            r.shallow_bytes += heap.shallow(v);
        }
    }
    rows
}
