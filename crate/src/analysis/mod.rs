//! The core of the pipeline, from a byte source to the numbers MAT computes, and nothing
//! else: [`analyze`] runs pass 1, pass 2, the reachability-strength walk, the dominator
//! tree, retained sizes and the per-class figures, and keeps what later questions need
//! (the heap graph, the dominator tree, the dump's source to read records again) in an
//! [`Analysis`].
//!
//! What the features above need to collect along the passes (the waste report, the
//! Android heaps) they hand in as a [`Collect`]: a pass-1 and a pass-2 sink and a few
//! moments after pass 2, called where the analysis' memory allows. Their results are
//! theirs; the session ([`crate::session`]) keeps them beside the analysis.
//!
//! - [`run`]: the pipeline and its memory estimate;
//! - [`tree`]: one reading's dominator tree, retained sizes and per-class figures;
//! - [`tally`]: what the retained-size walk counts for the report (the histogram's report
//!   value, the class loaders' groups);
//! - [`refs`]: objects as the output names them ([`ObjectRef`](crate::model::ObjectRef)).

mod refs;
mod run;
pub mod tally;
mod tree;

pub use refs::{loader_label, loader_label_of, object_ref, strength_name};
pub use run::{analyze, PEAK_BYTES_PER_OBJECT};

use crate::bits::BitSet;
use crate::dominators::{self, Graph, UNREACHABLE, VIRTUAL_ROOT};
use crate::error::{Error, Result};
use crate::graph::{Heap, Pass2Sink, NO_CLASS};
use crate::index::Pass1Sink;
use crate::retained::{self, DomTree, Idom, Retained};
use crate::rules::edges::MAT_EXCLUDED;
use crate::rules::roots::RootKinds;
use crate::rules::strength::{self as strength_rules, Strength};
use crate::source::ByteSource;
use crate::strength::owners::Owners;
use crate::strength::packed::Strengths;
use crate::strength::tree::TreeGraph;
use crate::strength::walk::HeapEdges;
use tree::{HeapGraph, TreeParts};

pub use crate::model::{Reading, Sizes};

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Keep unreachable objects, as MAT's `keep_unreachable_objects` does: each entry
    /// point of an unreachable subgraph becomes a GC root of kind "Unreachable".
    pub keep_unreachable: bool,
    /// Refuse to start the memory-heavy phases when their estimated peak exceeds this.
    pub memory_limit: Option<u64>,
    /// The peak per object that estimate uses (default [`PEAK_BYTES_PER_OBJECT`], what the
    /// allocator holds; the page gives its own, what the wasm memory grows to).
    pub peak_bytes_per_object: Option<u64>,
    /// What the estimate adds whatever the dump's size (the page's buffers and arenas;
    /// 0 for the CLI): counted in the need that `memory_limit` is compared with.
    pub memory_fixed_bytes: u64,
    /// Which exact algorithm computes the dominator tree (both give the same tree).
    pub dominators: DominatorAlgorithm,
    /// Which dominator tree the analysis computes first (the other on request, see
    /// [`Analysis::set_reading`]).
    pub tree: Reading,
    /// The heap-dump snapshot to analyze, 1-based, when the file holds several (the
    /// JDK's hprof agent writes one per dump request); None: the last.
    pub snapshot: Option<u32>,
    /// Which shallow sizes every number is in: the JVM's (read from the dump's addresses,
    /// the default) or Eclipse MAT's (for parity with MAT).
    pub sizes: Sizes,
    /// For benchmarks only: skip the reachability-strength walk, so that the core (passes,
    /// MAT's dominator tree, retained sizes) can be timed against its own budget (with no
    /// [`Collect`] of features either). Every object then reads as unreachable in the
    /// strength partition; the strength-aware tree cannot be asked for.
    pub core_only: bool,
}

/// The dominator algorithm: Semi-NCA (near-linear, lean, the default) or
/// Cooper–Harvey–Kennedy (the design's iterative algorithm, kept to cross-check).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DominatorAlgorithm {
    #[default]
    SemiNca,
    CooperHarveyKennedy,
}

/// Where the analysis is, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Pass1,
    Pass2,
    Strengths,
    Dominators,
    Retained,
    Report,
    /// After the report, on the first question about what holds an object.
    ReferrerIndex,
    /// Questions asked after the report.
    Queries,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Pass1 => "pass 1: indexing objects",
            Phase::Pass2 => "pass 2: reading references",
            Phase::Strengths => "reachability strengths",
            Phase::Dominators => "dominator tree",
            Phase::Retained => "retained sizes",
            Phase::Report => "report",
            Phase::ReferrerIndex => "referrer index",
            Phase::Queries => "queries",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct ProgressInfo {
    pub phase: Phase,
    /// Input bytes consumed (compressed bytes for gzip).
    pub bytes_done: u64,
    pub bytes_total: Option<u64>,
    pub objects: u64,
}

/// Receives progress; returning an error (e.g. [`Error::cancelled`]) stops the analysis.
pub trait Progress {
    fn update(&mut self, info: &ProgressInfo) -> Result<()>;
}

/// A [`Progress`] that ignores everything.
pub struct NoProgress;

impl Progress for NoProgress {
    fn update(&mut self, _: &ProgressInfo) -> Result<()> {
        Ok(())
    }
}

/// One row of the class histogram (reachable objects of one class).
#[derive(Debug, Clone, Copy, Default)]
pub struct ClassStats {
    pub instances: u64,
    pub shallow: u64,
    /// MAT's quick retained size (lower bound).
    pub retained_min: u64,
    /// The same with each class object counted under the class it stands for (MAT's
    /// report's value before `report::histogram`'s correction of `java.lang.Class`).
    pub retained_min_with_class: u64,
}

/// Everything computed from a dump.
pub struct Analysis {
    pub heap: Heap,
    pub options: Options,
    /// Immediate dominator per object (see [`crate::dominators`]), packed
    /// ([`crate::retained::idom`]).
    pub idom: Idom,
    /// What the dominator search saw (objects searched, hubs, runs).
    pub dominator_stats: dominators::Stats,
    pub tree: DomTree,
    /// Retained size per object; node `n` is the virtual root (everything reachable).
    pub retained: Retained,
    /// GC roots after reachability (with "Unreachable" roots when keeping unreachables).
    pub roots: Vec<(u32, RootKinds)>,
    /// Per class (index into the class table): reachable objects.
    pub classes: Vec<ClassStats>,
    /// Per class: objects discarded as unreachable (all zero when keeping them).
    pub unreachable: Vec<ClassStats>,
    pub kept_objects: u64,
    pub used_heap: u64,
    /// Input size (compressed size for gzip) and decoded size.
    pub input_bytes: u64,
    pub decoded_bytes: u64,
    pub warnings: Vec<String>,
    /// When the dump ended early: the reason (the report covers what came before).
    pub incomplete: Option<Error>,
    /// Heap-dump snapshots in the file (0: none), and the one analyzed (1-based; 0 when
    /// there is none).
    pub snapshots: u32,
    pub snapshot: u32,
    /// The input, kept to read single records again (object fields).
    pub source: Option<Box<dyn ByteSource>>,
    /// The [`Strength`] of every object, as its byte.
    pub strengths: Strengths,
    /// The owner rules' data (Android views and activities; empty elsewhere).
    pub owners: Owners,
    /// One bit per object an owner rule gave its owner ([`crate::strength::owners`]).
    pub owned: BitSet,
    /// The reading the tree fields above (`idom`, `tree`, `retained`, `roots`, `classes`,
    /// `unreachable`, `kept_objects`, `used_heap`, `garbage`) are in.
    pub reading: Reading,
    /// The strength-aware tree's garbage forest roots (empty in MAT's reading).
    pub garbage: Vec<u32>,
    /// The top-level dominators by class loader, with what they retain (see [`tally`]).
    pub loader_groups: tally::LoaderGroups,
    /// One bit per object the features asked to be counted apart in the loader groups
    /// (the waste report's duplicates; empty: none), for the other reading's tree.
    marks: BitSet,
    /// The other reading's tree, once computed.
    other_tree: Option<Box<TreeParts>>,
}

/// Read access to the per-object results. Report code goes through these, so the
/// compact storage behind them can change without touching it.
impl Analysis {
    /// Number of object indices (kept and discarded).
    pub fn object_count(&self) -> usize {
        self.heap.object_count()
    }

    /// Address (HPROF identifier) of object `obj`.
    #[inline]
    pub fn address(&self, obj: u32) -> u64 {
        self.heap.index.ids.id(obj)
    }

    /// Object index of an address, if it is an object of the dump.
    pub fn object_at(&self, address: u64) -> Option<u32> {
        self.heap.index.ids.index_of(address)
    }

    /// Class index of `obj` ([`NO_CLASS`] for objects of unknown class).
    #[inline]
    pub fn class_of(&self, obj: u32) -> u32 {
        self.heap.class_of(obj)
    }

    /// Display name of class `class`.
    pub fn class_name(&self, class: u32) -> &str {
        self.heap.index.classes.classes.get(class as usize).map(|c| c.name.as_str()).unwrap_or("")
    }

    /// If `obj` is a class object, the class it represents.
    pub fn class_represented_by(&self, obj: u32) -> Option<u32> {
        self.heap.class_represented_by(obj)
    }

    #[inline]
    pub fn shallow(&self, obj: u32) -> u64 {
        self.heap.shallow(obj)
    }

    #[inline]
    pub fn retained(&self, obj: u32) -> u64 {
        let in_tree = |v: u32| v == self.tree.root() || self.idom.get(v) != UNREACHABLE;
        self.retained.get(obj, &self.tree, |v| self.heap.shallow(v), in_tree)
    }

    /// Whether `obj` is kept (reachable, or kept because unreachables are kept).
    #[inline]
    pub fn is_kept(&self, obj: u32) -> bool {
        self.idom.get(obj) != UNREACHABLE && self.heap.class_of(obj) != NO_CLASS
    }

    /// Immediate dominator: `None` for unreachable objects, `Some(None)` under the root.
    pub fn immediate_dominator(&self, obj: u32) -> Option<Option<u32>> {
        match self.idom.get(obj) {
            UNREACHABLE => None,
            VIRTUAL_ROOT => Some(None),
            d => Some(Some(d)),
        }
    }

    /// Children in the dominator tree in index (address) order; the virtual root's
    /// ([`DomTree::root`](retained::DomTree::root)) largest retained first.
    pub fn dominated(&self, obj: u32) -> retained::Children<'_> {
        self.tree.children(obj)
    }

    /// The child of `obj` in the dominator tree with the largest retained size (the
    /// lowest address among equals): one pass over its list.
    pub fn largest_dominated(&self, obj: u32) -> Option<u32> {
        self.dominated(obj).min_by_key(|&k| (std::cmp::Reverse(self.retained(k)), k))
    }

    /// Children in the dominator tree, largest retained first (then by address): the
    /// tree keeps them in address order, so this sorts them (`16 × children` bytes,
    /// allocated fallibly).
    pub fn dominated_by_size(&self, obj: u32) -> Result<Vec<u32>> {
        let mut keyed: Vec<(std::cmp::Reverse<u64>, u32)> =
            crate::alloc::try_with_capacity(self.dominated_count(obj), "the dominator tree's children")?;
        keyed.extend(self.dominated(obj).map(|k| (std::cmp::Reverse(self.retained(k)), k)));
        keyed.sort_unstable();
        let mut out = crate::alloc::try_with_capacity(keyed.len(), "the dominator tree's children")?;
        out.extend(keyed.into_iter().map(|(_, k)| k));
        Ok(out)
    }

    /// Adds `k` to `largest` (largest retained first, then by address) if it is among
    /// the `cap` largest seen: the biggest few of a list in one pass, without sorting it.
    pub fn keep_largest(&self, largest: &mut Vec<u32>, k: u32, cap: usize) {
        let key = |x: u32| (std::cmp::Reverse(self.retained(x)), x);
        let kk = key(k);
        // Most candidates are smaller than the smallest kept one: one comparison.
        if largest.len() >= cap && largest.last().is_some_and(|&l| key(l) < kk) {
            return;
        }
        let at = largest.partition_point(|&x| key(x) < kk);
        if at < cap {
            if largest.len() == cap {
                largest.pop();
            }
            largest.insert(at, k);
        }
    }

    /// How many children `obj` has in the dominator tree.
    pub fn dominated_count(&self, obj: u32) -> usize {
        self.tree.child_count(obj)
    }

    /// The top-level dominators (children of the virtual root), largest first.
    pub fn top_level(&self) -> &[u32] {
        self.tree.top_level()
    }

    pub fn class_count(&self) -> usize {
        self.heap.index.classes.classes.len()
    }

    /// The class object of class `class`, if it is an object of the dump.
    pub fn class_object(&self, class: u32) -> Option<u32> {
        self.heap.class_object.get(class as usize).copied().filter(|&o| o != NO_CLASS)
    }

    /// Whether `obj` holds references that leak-suspect paths skip (`Reference.referent`…).
    pub fn has_path_excluded_references(&self, obj: u32) -> bool {
        self.heap.has_special_edges(obj) && self.heap.special_edges_of(obj).iter().any(|e| e.2 & MAT_EXCLUDED != 0)
    }

    /// Whether `from → to` is held only by fields leak-suspect paths skip.
    pub fn is_path_excluded_reference(&self, from: u32, to: u32) -> bool {
        self.heap.edge_flags(from, to) & MAT_EXCLUDED != 0
    }

    /// Calls `f` with the objects `obj` references (class first, then by address).
    pub fn for_each_reference<F: FnMut(u32)>(&self, obj: u32, f: F) {
        self.heap.for_each_reference(obj, f)
    }

    /// How firmly `obj` is held (see [`crate::strength`]); the same in every reading.
    pub fn strength(&self, obj: u32) -> Strength {
        Strength::from_u8(if (obj as usize) < self.strengths.len() {
            self.strengths.get(obj)
        } else {
            strength_rules::UNREACHABLE
        })
    }

    /// Objects and shallow bytes per strength, firmest first; the rows add up to every
    /// object of the dump, unreachable ones included.
    pub fn reachability(&self) -> [crate::strength::walk::Row; 9] {
        // Every object with a class is kept or discarded in either reading.
        let total =
            self.classes.iter().chain(&self.unreachable).fold((0, 0), |t, s| (t.0 + s.instances, t.1 + s.shallow));
        crate::strength::walk::partition_from(&self.heap, &self.strengths, total)
    }

    /// Makes `reading`'s dominator tree the one every tree query and retained size
    /// answers from, computing it on first use (the other one is kept).
    pub fn set_reading(&mut self, reading: Reading) -> Result<()> {
        if reading == self.reading {
            return Ok(());
        }
        if self.options.core_only && reading == Reading::Strength {
            return Err(run::no_strengths());
        }
        let next = match self.other_tree.take() {
            Some(t) if t.reading == reading => *t,
            other => {
                self.other_tree = other;
                tree::build(
                    &self.heap,
                    &self.strengths,
                    &self.owners,
                    &self.owned,
                    &self.marks,
                    reading,
                    &self.options,
                    &mut |_| Ok(()),
                )?
            }
        };
        let previous = self.install(next);
        self.other_tree = Some(Box::new(previous));
        Ok(())
    }

    /// Retained size of `obj` in the tree of `reading`, if that tree was computed (the one
    /// in use, or the other one kept after [`Analysis::set_reading`]).
    pub fn retained_in(&self, reading: Reading, obj: u32) -> Option<u64> {
        if reading == self.reading {
            return Some(self.retained(obj));
        }
        self.other_tree.as_ref().filter(|t| t.reading == reading).map(|t| {
            let in_tree = |v: u32| v == t.tree.root() || t.idom.get(v) != UNREACHABLE;
            t.retained.get(obj, &t.tree, |v| self.heap.shallow(v), in_tree)
        })
    }

    /// Puts `t` in place of the current tree, returning that.
    fn install(&mut self, t: TreeParts) -> TreeParts {
        use std::mem::replace;
        TreeParts {
            reading: replace(&mut self.reading, t.reading),
            idom: replace(&mut self.idom, t.idom),
            dominator_stats: replace(&mut self.dominator_stats, t.dominator_stats),
            tree: replace(&mut self.tree, t.tree),
            retained: replace(&mut self.retained, t.retained),
            roots: replace(&mut self.roots, t.roots),
            classes: replace(&mut self.classes, t.classes),
            unreachable: replace(&mut self.unreachable, t.unreachable),
            kept_objects: replace(&mut self.kept_objects, t.kept_objects),
            used_heap: replace(&mut self.used_heap, t.used_heap),
            garbage: replace(&mut self.garbage, t.garbage),
            loader_groups: replace(&mut self.loader_groups, t.loader_groups),
        }
    }
}

impl Analysis {
    /// The graph the dominator tree was computed on (objects, references MAT follows, the
    /// GC roots including "Unreachable" ones), for running another algorithm on it.
    pub fn dominator_graph(&self) -> impl Graph + '_ {
        HeapGraph { heap: &self.heap, roots: &self.roots, filter: self.heap.classes.any_missing() }
    }

    /// The graph of the strength-aware tree (its edge set and roots, see
    /// [`crate::strength::tree`]); meaningful when that is the reading in use (its garbage
    /// roots are the current tree's).
    pub fn strength_graph(&self) -> impl Graph + '_ {
        TreeGraph {
            edges: HeapEdges::new(&self.heap, &self.owners),
            strengths: &self.strengths,
            owned: &self.owned,
            garbage: &self.garbage,
        }
    }
}

/// What the features above the analysis collect along it: a pass-1 and a pass-2 sink
/// (see [`crate::index::sink`], [`crate::graph::sink`]) and three moments after pass 2,
/// each where the analysis' memory allows what the feature does there. `()` collects
/// nothing.
pub trait Collect: Pass1Sink + Pass2Sink {
    /// After pass 2, with the heap built: records may be read again through `source`
    /// (returned afterwards).
    fn after_pass2(&mut self, _heap: &Heap, source: Box<dyn ByteSource>) -> Result<Box<dyn ByteSource>> {
        Ok(source)
    }

    /// The strength walk is done: `strengths` is one [`Strength`] byte per object, and
    /// with `keep_unreachable` MAT's reading keeps every object with a class.
    fn strengths_known(&mut self, _heap: &Heap, _strengths: &[u8], _keep_unreachable: bool) -> Result<()> {
        Ok(())
    }

    /// The dominator tree (the analysis' peak) is about to be built: whatever is held per
    /// object should be freed now.
    fn before_tree(&mut self, _heap: &Heap) -> Result<()> {
        Ok(())
    }

    /// After [`Collect::before_tree`]: one bit per object to be counted apart in the loader
    /// groups ([`tally`]), handed over (empty: none).
    fn take_marks(&mut self) -> BitSet {
        BitSet::default()
    }
}

impl Collect for () {}

/// Collects for two features, `A` first.
impl<A: Collect, B: Collect> Collect for (A, B) {
    fn after_pass2(&mut self, heap: &Heap, source: Box<dyn ByteSource>) -> Result<Box<dyn ByteSource>> {
        let source = self.0.after_pass2(heap, source)?;
        self.1.after_pass2(heap, source)
    }

    fn strengths_known(&mut self, heap: &Heap, strengths: &[u8], keep_unreachable: bool) -> Result<()> {
        self.0.strengths_known(heap, strengths, keep_unreachable)?;
        self.1.strengths_known(heap, strengths, keep_unreachable)
    }

    fn before_tree(&mut self, heap: &Heap) -> Result<()> {
        self.0.before_tree(heap)?;
        self.1.before_tree(heap)
    }

    fn take_marks(&mut self) -> BitSet {
        let marks = self.0.take_marks();
        if marks.capacity() == 0 {
            self.1.take_marks()
        } else {
            marks
        }
    }
}
