//! One reading's dominator tree, retained sizes and per-class figures: the same code for
//! both readings, over MAT's graph and roots or the strength-aware ones
//! ([`crate::strength::tree`]); and the roots MAT adds when keeping unreachable objects.

use super::{ClassStats, DominatorAlgorithm, Options, Phase, Reading};
use crate::alloc::try_filled;
use crate::bits::BitSet;
use crate::dominators::{self, Graph, UNREACHABLE, VIRTUAL_ROOT};
use crate::error::Result;
use crate::graph::{Heap, NO_CLASS};
use crate::records::heap::RootKind;
use crate::retained::{self, DomTree, Idom, Retained};
use crate::rules::roots::RootKinds;
use crate::rules::strength::UNREACHABLE as UNREACHABLE_STRENGTH;
use crate::strength::owners::Owners;
use crate::strength::packed::Strengths;
use crate::strength::tree::TreeGraph;
use crate::strength::walk::HeapEdges;

/// What a dominator tree brings to an [`Analysis`] (the fields of the same names).
pub(super) struct TreeParts {
    pub reading: Reading,
    pub idom: Idom,
    pub dominator_stats: dominators::Stats,
    pub tree: DomTree,
    pub retained: Retained,
    pub roots: Vec<(u32, RootKinds)>,
    pub classes: Vec<ClassStats>,
    pub unreachable: Vec<ClassStats>,
    pub kept_objects: u64,
    pub used_heap: u64,
    pub garbage: Vec<u32>,
    pub loader_groups: super::tally::LoaderGroups,
}

pub(super) struct HeapGraph<'a> {
    pub heap: &'a Heap,
    pub roots: &'a [(u32, RootKinds)],
    /// Some objects have no class (unknown class, never defined): edges to them skipped.
    pub filter: bool,
}

impl Graph for HeapGraph<'_> {
    fn node_count(&self) -> usize {
        self.heap.object_count()
    }

    fn for_each_root<F: FnMut(u32)>(&self, mut f: F) {
        for &(o, _) in self.roots {
            if !self.filter || self.heap.class_of(o) != NO_CLASS {
                f(o);
            }
        }
    }

    #[inline]
    fn prefetch_successors(&self, v: u32) {
        self.heap.refs.prefetch(v);
    }

    #[inline]
    fn for_each_successor<F: FnMut(u32)>(&self, v: u32, mut f: F) {
        if self.filter {
            let classes = &self.heap.classes;
            self.heap.for_each_reference(v, |t| {
                if classes.get(t) != NO_CLASS {
                    f(t)
                }
            });
        } else {
            self.heap.for_each_reference(v, f);
        }
    }

    #[inline]
    fn for_each_edge<F: FnMut(u32, u32)>(&self, mut f: F) {
        if self.filter {
            let classes = &self.heap.classes;
            self.heap.for_each_edge(|v, t| {
                if classes.get(t) != NO_CLASS {
                    f(v, t)
                }
            });
        } else {
            self.heap.for_each_edge(f);
        }
    }

    #[inline]
    fn for_each_edge_from<F: FnMut(u32, u32)>(&self, from: &[u64], mut f: F) {
        if self.filter {
            let classes = &self.heap.classes;
            self.heap.for_each_edge_from(from, |v, t| {
                if classes.get(t) != NO_CLASS {
                    f(v, t)
                }
            });
        } else {
            self.heap.for_each_edge_from(from, f);
        }
    }
}

/// One reading's dominator tree, retained sizes and per-class figures: the same code for
/// both, over MAT's graph and roots or the strength-aware ones ([`strength::tree`]).
#[allow(clippy::too_many_arguments)] // the heap results it reads, each its own borrow
pub(super) fn build(
    heap: &Heap,
    strengths: &Strengths,
    owners: &Owners,
    owned: &BitSet,
    marks: &BitSet,
    reading: Reading,
    options: &Options,
    tick: &mut dyn FnMut(Phase) -> Result<()>,
) -> Result<TreeParts> {
    let filter = heap.classes.any_missing();
    let mut roots = heap.roots.objects.clone();
    let n = heap.object_count();
    let mut garbage = Vec::new();
    let (idom, dominator_stats) = match reading {
        Reading::Mat => {
            if options.keep_unreachable {
                let entries = unreachable_roots(heap, &roots, filter);
                for e in entries {
                    roots.push((e, RootKinds::default().with(RootKind::Unreachable)));
                }
                roots.sort_unstable_by_key(|&(o, _)| o);
            }
            dominator_tree(&HeapGraph { heap, roots: &roots, filter }, options)?
        }
        Reading::Strength => {
            garbage = garbage_forest(heap, strengths, filter)?;
            let t = dominator_tree(
                &TreeGraph { edges: HeapEdges::new(heap, owners), strengths, owned, garbage: &garbage },
                options,
            )?;
            roots.extend(garbage.iter().map(|&e| (e, RootKinds::default().with(RootKind::Unreachable))));
            roots.sort_unstable_by_key(|&(o, _)| o);
            t
        }
    };

    let mut unreachable = vec![ClassStats::default(); heap.index.classes.classes.len()];
    for v in 0..n {
        if idom[v] == UNREACHABLE {
            let c = heap.class_of(v as u32);
            if c != NO_CLASS {
                let s = &mut unreachable[c as usize];
                s.instances += 1;
                s.shallow += heap.shallow(v as u32);
            }
        }
    }

    tick(Phase::Retained)?;
    // Packed before the tree is built, so that the phase's peak holds the small form.
    let idom = Idom::compact(idom)?;
    // The per-class figures of the kept objects are totalled in the one call per
    // reachable object `compute` makes for its shallow size.
    let class_count = heap.index.classes.classes.len();
    let mut classes = vec![ClassStats::default(); class_count];
    let mut kept_objects = 0u64;
    let mut used_heap = 0u64;
    let shallow = |v, c| {
        let s = heap.sizes.get(v, c);
        if c != NO_CLASS {
            kept_objects += 1;
            used_heap += s;
            classes[c as usize].instances += 1;
            classes[c as usize].shallow += s;
        }
        s
    };
    // The report's figures that follow the tree are counted in the same walk.
    let mut tally = super::tally::Tally::new(heap, marks)?;
    let retained::Computed { tree, retained, class_min, class_min2 } = retained::compute_with(
        &idom,
        heap.index.size_alignment(),
        shallow,
        |v| heap.class_of(v),
        class_count,
        &mut tally,
    )?;
    let loader_groups = tally.finish();
    for ((c, m), m2) in classes.iter_mut().zip(class_min).zip(class_min2) {
        c.retained_min = m;
        c.retained_min_with_class = m2;
    }
    // Roots that are not kept (cannot happen: roots are reachable) are dropped anyway.
    // (In the strength-aware tree a root whose root edge does not count is not a child
    // of the virtual root, but still a root of the dump.)
    roots.retain(|&(o, _)| idom.get(o) != UNREACHABLE);
    debug_assert!(reading == Reading::Strength || roots.iter().all(|&(o, _)| idom.get(o) == VIRTUAL_ROOT));
    Ok(TreeParts {
        reading,
        idom,
        dominator_stats,
        tree,
        retained,
        roots,
        classes,
        unreachable,
        kept_objects,
        used_heap,
        garbage,
        loader_groups,
    })
}

fn dominator_tree<G: Graph>(graph: &G, options: &Options) -> Result<(Vec<u32>, dominators::Stats)> {
    Ok(match options.dominators {
        DominatorAlgorithm::SemiNca => dominators::semi_nca_with_stats(graph)?,
        DominatorAlgorithm::CooperHarveyKennedy => {
            (dominators::cooper_harvey_kennedy(graph)?, dominators::Stats::default())
        }
    })
}

/// Marks everything reachable from `start` that is not marked yet; returns how many.
fn mark_from(heap: &Heap, start: &[u32], marked: &mut [bool], filter: bool) -> u64 {
    let mut count = 0;
    let mut stack = Vec::new();
    for &s in start {
        if !marked[s as usize] {
            marked[s as usize] = true;
            count += 1;
            stack.push(s);
        }
    }
    while let Some(x) = stack.pop() {
        heap.for_each_reference(x, |t| {
            if !(marked[t as usize] || filter && heap.class_of(t) == NO_CLASS) {
                marked[t as usize] = true;
                count += 1;
                stack.push(t);
            }
        });
    }
    count
}

/// The objects MAT makes "Unreachable" GC roots when keeping unreachable objects
/// (GarbageCleaner's markUnreachableAsGCRoots), in address order:
///
/// 1. every unreachable object that no other unreachable object references, and all it
///    reaches;
/// 2. then ten rounds over what is still unmarked: round 0 takes one object of each
///    two-object cycle (both referenced once, by each other); rounds 1–8 take objects
///    referenced more than once whose unmarked outgoing references outnumber the
///    incoming ones by at least 8 − round; round 9 takes anything with an unmarked
///    outgoing reference. Each object taken is marked with all it reaches at once.
fn unreachable_roots(heap: &Heap, roots: &[(u32, RootKinds)], filter: bool) -> Vec<u32> {
    let n = heap.object_count();
    let mut marked = vec![false; n];
    let starts: Vec<u32> = roots.iter().map(|&(o, _)| o).collect();
    let mut reached = mark_from(heap, &starts, &mut marked, filter);
    let live = |v: usize| !(filter && heap.class_of(v as u32) == NO_CLASS);
    let total = (0..n).filter(|&v| live(v)).count() as u64;
    let refs = |v: u32, f: &mut dyn FnMut(u32)| heap.for_each_reference(v, f);

    let (mut new_roots, inbound, entry_reached) = garbage_entry_points(heap, &mut marked, filter);
    reached += entry_reached;
    let mut unref: Vec<u32> = (0..n).filter(|&v| !marked[v] && live(v)).map(|v| v as u32).collect();
    const PASSES: i32 = 10;
    let mut outbound = vec![0u8; n];
    for pass in 0..PASSES {
        unref.retain(|&v| !marked[v as usize]);
        for &v in &unref {
            outbound[v as usize] = 0;
            refs(v, &mut |t| {
                if t != v && !marked[t as usize] && outbound[v as usize] != 255 {
                    outbound[v as usize] += 1;
                }
            });
        }
        for &v in &unref {
            if reached >= total {
                break;
            }
            let vi = v as usize;
            if marked[vi] {
                continue;
            }
            let take = if pass == 0 {
                let mut cycle = false;
                if inbound[vi] == 1 {
                    refs(v, &mut |o| {
                        if cycle || o == v || marked[o as usize] || inbound[o as usize] != 1 {
                            return;
                        }
                        heap.for_each_reference(o, |back| cycle |= back == v);
                    });
                }
                cycle
            } else {
                let (out, inb) = (outbound[vi] as i32, inbound[vi] as i32);
                out > 0 && (pass == PASSES - 1 || (inb > 1 && out - inb >= PASSES - pass - 2))
            };
            if take {
                new_roots.push(v);
                reached += mark_from(heap, &[v], &mut marked, filter);
            }
        }
    }
    new_roots
}

/// The entry points of the garbage, given `marked` = what the GC roots reach: the
/// unmarked objects that no other unmarked object references (self-references do not
/// count). Marks everything they reach; returns them in address order, the inbound counts
/// among unmarked objects (saturating at 255) and how many objects were marked.
fn garbage_entry_points(heap: &Heap, marked: &mut [bool], filter: bool) -> (Vec<u32>, Vec<u8>, u64) {
    let n = heap.object_count();
    let live = |v: usize| !(filter && heap.class_of(v as u32) == NO_CLASS);
    let mut inbound = vec![0u8; n];
    for v in 0..n {
        if !marked[v] && live(v) {
            heap.for_each_reference(v as u32, |t| {
                if t as usize != v && inbound[t as usize] != 255 {
                    inbound[t as usize] += 1;
                }
            });
        }
    }
    let entries: Vec<u32> = (0..n).filter(|&v| !marked[v] && live(v) && inbound[v] == 0).map(|v| v as u32).collect();
    let reached = mark_from(heap, &entries, marked, filter);
    (entries, inbound, reached)
}

/// The roots of the strength-aware tree's garbage forest (seed `001_*`): the garbage's
/// entry points ([`garbage_entry_points`], shared with MAT's keep-unreachable roots), then,
/// since a garbage cycle has no entry point, the first object still unmarked, over and
/// over, each marked with all it reaches. Every unreachable object is then reached from
/// exactly these. Linear in the garbage.
fn garbage_forest(heap: &Heap, strengths: &Strengths, filter: bool) -> Result<Vec<u32>> {
    let mut marked = try_filled(strengths.len(), false, "the garbage forest's marks")?;
    for (v, m) in marked.iter_mut().enumerate() {
        *m = strengths.get(v as u32) != UNREACHABLE_STRENGTH;
    }
    let (mut roots, _, _) = garbage_entry_points(heap, &mut marked, filter);
    let live = |v: usize| !filter || heap.class_of(v as u32) != NO_CLASS;
    for v in 0..marked.len() {
        if !marked[v] && live(v) {
            roots.push(v as u32);
            mark_from(heap, &[v as u32], &mut marked, filter);
        }
    }
    Ok(roots)
}
