//! The shortest strong path from a GC root to each leaking object, found as Shark's path
//! finder finds it (`PrioritizingShortestPathFinder`), without keeping a parent per object.
//!
//! Shark's search, as facts: a breadth-first search from the GC roots over strong
//! references only (weak, soft, phantom and finalizer references are never followed; nor
//! are the [`super::library::IGNORED_FIELDS`] and the stacks of
//! [`super::library::IGNORED_THREADS`]), with two queues. References matching a known
//! library leak, stack locals (harder to read than fields) and the roots held only that
//! way (a stack-frame root, a JNI global root matching a library leak) go to the
//! *visit-last* queue; everything else to the main queue. The main queue is drained
//! first; an object waiting in the visit-last queue that the main search reaches is moved
//! to the main queue. Once the main queue is empty the search continues from the
//! visit-last queue, in the order it was filled, every object found from then on joining
//! it. A leaking object is a leaf: its references are not followed, so an object held
//! only through another leaking object is not reported on its own. The roots are visited
//! thread objects first, then by root type, then by class name.
//!
//! That makes two breadth-first searches in a row: phase A over the main references from
//! the main roots; phase B from the visit-last queue as phase A left it, over all
//! followed references. Each is searched by levels, as [`crate::query::levels`] does: one
//! bit per object (seen in A; queued in B), the discovered objects in order, where each
//! level starts. The parents of the few objects wanted are recovered afterwards, deepest
//! level first: the parent of an object is the first object, in discovery order, one
//! level up, with a reference to it of the kind that would have queued it; for the first
//! level of phase B, the first object of phase A with a visit-last reference to it (or
//! the root itself). Memory: a quarter byte per object, plus four bytes per object
//! discovered (the search stops when every leaking object is found).

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use super::heap::Heap;
use crate::bits::BitSet;
use crate::error::Result;
use crate::rules::strength::Strength;
use crate::search::order::DiscoveryOrder;

/// How the search takes a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    Skip,
    Main,
    /// Visit last, with the known library leak it matches (index in
    /// [`super::library::KNOWN_LEAKS`]).
    Last(Option<u16>),
}

/// Which references and roots the search takes, and how.
#[derive(Debug, Clone, Default)]
pub struct Priorities {
    /// The roots in visiting order: (object, root kind shown, visit last with which
    /// library leak).
    pub roots: Vec<Root>,
    /// Per-reference rules from the library-leak and ignored-field tables, sorted by
    /// (from, to).
    pub edges: Vec<(u32, u32, Take)>,
    /// Objects with an entry in `edges`, sorted.
    pub sources: Vec<u32>,
    /// Thread objects whose stack locals are not followed, sorted.
    pub ignored_threads: Vec<u32>,
}

/// A GC root as the search enqueues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Root {
    pub obj: u32,
    pub kind: crate::records::heap::RootKind,
    /// Visit last (a stack-frame root, or a JNI global of a known library leak).
    pub last: bool,
    pub library: Option<u16>,
}

impl Priorities {
    /// How the reference `from → to` of strength `strength` is taken.
    #[inline]
    pub fn take(&self, from: u32, to: u32, strength: u8) -> Take {
        match Strength::from_u8(strength) {
            Strength::Soft | Strength::Weak | Strength::Finalizer | Strength::Phantom | Strength::Unreachable => {
                return Take::Skip
            }
            Strength::Local => {
                return if self.ignored_threads.binary_search(&from).is_ok() { Take::Skip } else { Take::Last(None) };
            }
            Strength::Strong | Strength::Cache | Strength::ThreadLocal => {}
        }
        if self.sources.binary_search(&from).is_err() {
            return Take::Main;
        }
        match self.edges.binary_search_by_key(&(from, to), |e| (e.0, e.1)) {
            Ok(k) => self.edges[k].2,
            Err(_) => Take::Main,
        }
    }
}

/// The paths found: for each leaking object a strong path reaches, the path (root first)
/// and, for each step, how the search took the reference into it (the first step: the
/// root's priority).
#[derive(Debug, Default)]
pub struct Paths {
    pub found: Vec<(u32, Vec<u32>)>,
}

/// A parent entry: the object is a root.
const ROOT: u32 = u32::MAX;

/// A node of the recovered paths: an object and the node of its parent ([`ROOT`] at a
/// root, [`UNSET`] while it is looked for).
type Node = (u32, u32);

/// A node not linked yet.
const UNSET: u32 = u32::MAX - 1;

/// Objects waiting for their parent on one level: object → its node.
type Wait = HashMap<u32, u32>;

/// The parent-recovery scans' context.
struct Scan<'h, 'a, 'p> {
    h: &'h Heap<'a>,
    pr: &'p Priorities,
    nodes: Vec<Node>,
    /// One bit per object waiting on some level (tested before the level's map).
    waiting: BitSet,
    hits: Vec<u32>,
}

impl Scan<'_, '_, '_> {
    /// The node of `u` waiting on `level` of `up` (made when it is new).
    fn adopt(&mut self, up: &mut BTreeMap<usize, Wait>, level: usize, u: u32) -> u32 {
        let next = up.entry(level).or_default();
        if let Some(&n) = next.get(&u) {
            return n;
        }
        self.nodes.push((u, UNSET));
        let n = (self.nodes.len() - 1) as u32;
        next.insert(u, n);
        self.waiting.insert(u);
        n
    }

    /// Scans `order[range]` in discovery order (skipping the objects `skip` names): each
    /// object of `wait` gets as parent the first one with a reference to it that `takes`
    /// accepts; the parent then waits in `up`, on the level `level(its position)`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        order: &DiscoveryOrder,
        range: Range<usize>,
        skip: impl Fn(u32) -> bool,
        takes: impl Fn(Take) -> bool,
        wait: &mut Wait,
        up: &mut BTreeMap<usize, Wait>,
        level: impl Fn(usize) -> usize,
    ) {
        for pos in range {
            if wait.is_empty() {
                break;
            }
            let u = order.get(pos);
            if skip(u) {
                continue;
            }
            let (h, pr, waiting, hits) = (self.h, self.pr, &mut self.waiting, &mut self.hits);
            h.for_each_reference(u, |t, s| {
                if waiting.contains(t) && takes(pr.take(u, t, s)) {
                    if let Some(k) = wait.remove(&t) {
                        hits.push(k);
                    }
                }
            });
            if !self.hits.is_empty() {
                let n = self.adopt(up, level(pos), u);
                for k in std::mem::take(&mut self.hits) {
                    self.nodes[k as usize].1 = n;
                }
            }
        }
    }
}

/// The prioritized search from the roots of `pr` to the objects `targets` (sorted).
pub fn shortest_paths(h: &Heap, pr: &Priorities, targets: &[u32]) -> Result<Paths> {
    let n = h.object_count();
    if targets.is_empty() {
        return Ok(Paths::default());
    }
    const WHAT: &str = "the leak path search";
    let is_target = BitSet::of(n, targets.iter().copied(), WHAT)?;
    let mut seen_a = BitSet::new(n, WHAT)?;
    let mut seen_l = BitSet::new(n, WHAT)?;
    let (mut a, mut l) = (DiscoveryOrder::new(WHAT), DiscoveryOrder::new(WHAT));
    let mut remaining = targets.len();
    // (object, phase B?, position)
    let mut found: Vec<(u32, bool, usize)> = Vec::new();
    let mut low_roots: Vec<u32> = Vec::new();
    let mut failed = Ok(());

    // Phase A: the main queue.
    for r in &pr.roots {
        if !r.last {
            if !seen_a.contains(r.obj) {
                seen_a.insert(r.obj);
                if is_target.contains(r.obj) {
                    found.push((r.obj, false, a.len()));
                    remaining -= 1;
                }
                a.push(r.obj)?;
            }
        } else if !seen_a.contains(r.obj) && !seen_l.contains(r.obj) {
            seen_l.insert(r.obj);
            l.push(r.obj)?;
            low_roots.push(r.obj);
        }
    }
    a.end_roots();
    let mut head = 0;
    while remaining > 0 && head < a.len() {
        let u = a.visit(head);
        head += 1;
        if is_target.contains(u) {
            continue;
        }
        h.for_each_reference(u, |t, s| {
            if failed.is_err() {
                return;
            }
            match pr.take(u, t, s) {
                Take::Skip => {}
                Take::Main => {
                    if !seen_a.contains(t) {
                        seen_a.insert(t);
                        if is_target.contains(t) {
                            found.push((t, false, a.len()));
                            remaining = remaining.saturating_sub(1);
                        }
                        h.prefetch(t);
                        failed = a.push(t);
                    }
                }
                Take::Last(_) => {
                    if !seen_a.contains(t) && !seen_l.contains(t) {
                        seen_l.insert(t);
                        failed = l.push(t);
                    }
                }
            }
        });
        std::mem::replace(&mut failed, Ok(()))?;
    }

    // Phase B: the visit-last queue, in the order phase A filled it.
    l.end_roots();
    let mut head = 0;
    while remaining > 0 && head < l.len() {
        let x = l.visit(head);
        let pos = head;
        head += 1;
        if seen_a.contains(x) {
            continue; // moved to the main queue, visited there
        }
        if is_target.contains(x) {
            found.push((x, true, pos));
            remaining -= 1;
            continue;
        }
        h.for_each_reference(x, |t, s| {
            if failed.is_ok() && pr.take(x, t, s) != Take::Skip && !seen_a.contains(t) && !seen_l.contains(t) {
                seen_l.insert(t);
                failed = l.push(t);
            }
        });
        std::mem::replace(&mut failed, Ok(()))?;
    }

    // The parents, deepest level first.
    let mut scan =
        Scan { h, pr, nodes: Vec::with_capacity(found.len()), waiting: BitSet::new(n, WHAT)?, hits: Vec::new() };
    let mut wait_a: BTreeMap<usize, Wait> = BTreeMap::new();
    let mut wait_b: BTreeMap<usize, Wait> = BTreeMap::new();
    found.sort_unstable_by_key(|f| f.0);
    for (k, &(t, in_b, pos)) in found.iter().enumerate() {
        scan.nodes.push((t, UNSET));
        scan.waiting.insert(t);
        let level = if in_b { wait_b.entry(l.level_of(pos)) } else { wait_a.entry(a.level_of(pos)) };
        level.or_default().insert(t, k as u32);
    }
    low_roots.sort_unstable();
    while let Some((m, mut wait)) = wait_b.pop_last() {
        if m == 0 {
            wait.retain(|t, node| {
                let root = low_roots.binary_search(t).is_ok();
                if root {
                    scan.nodes[*node as usize].1 = ROOT;
                }
                !root
            });
            // Queued by phase A: the first object of A with a visit-last reference to it.
            scan.run(
                &a,
                0..a.len(),
                |u| is_target.contains(u),
                |t| matches!(t, Take::Last(_)),
                &mut wait,
                &mut wait_a,
                |pos| a.level_of(pos),
            );
            debug_assert!(wait.is_empty(), "objects of phase B without a parent in phase A");
            continue;
        }
        scan.run(
            &l,
            l.level(m - 1),
            |x| seen_a.contains(x) || is_target.contains(x),
            |t| t != Take::Skip,
            &mut wait,
            &mut wait_b,
            |_| m - 1,
        );
        debug_assert!(wait.is_empty(), "objects of phase B without a parent one level up");
    }
    while let Some((level, mut wait)) = wait_a.pop_last() {
        if level == 0 {
            for (_, node) in wait {
                scan.nodes[node as usize].1 = ROOT;
            }
            continue;
        }
        scan.run(
            &a,
            a.level(level - 1),
            |u| is_target.contains(u),
            |t| t == Take::Main,
            &mut wait,
            &mut wait_a,
            |_| level - 1,
        );
        debug_assert!(wait.is_empty(), "objects of phase A without a parent one level up");
    }

    // The search's lists are done with: freed before the paths are written out.
    drop((a, l, seen_a, seen_l, is_target));
    let mut out = Paths::default();
    let nodes = &scan.nodes;
    for (k, &(t, _, _)) in found.iter().enumerate() {
        let mut path = vec![t];
        let mut node = k;
        // A path has at most as many steps as nodes (guards a broken link).
        while path.len() <= nodes.len() {
            match nodes[node].1 {
                ROOT => {
                    path.reverse();
                    out.found.push((t, path));
                    break;
                }
                UNSET => break,
                p => {
                    node = p as usize;
                    path.push(nodes[node].0);
                }
            }
        }
    }
    Ok(out)
}
