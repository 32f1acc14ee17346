//! The whole pipeline, from a byte source to the numbers MAT computes.
//!
//! `analyze` runs pass 1, pass 2, reachability and dominators, retained sizes and the
//! per-class figures, and keeps what later queries need (the heap graph, the dominator
//! tree). The report and its renderings are built from an [`Analysis`] by
//! [`crate::report`].

use crate::dominators::{self, Graph, UNREACHABLE, VIRTUAL_ROOT};
use crate::error::{Error, Result};
use crate::graph::roots::RootKinds;
use crate::graph::{Heap, NO_CLASS};
use crate::records::heap::{RootKind, WalkEnd};
use crate::records::Cursor;
use crate::retained::{self, DomTree, Idom, Retained};
use crate::source::ByteSource;
use crate::strength::packed::Strengths;
use crate::strength::tree::TreeGraph;
use crate::strength::walk::HeapEdges;
use crate::strength::{self, Strength, MAT_EXCLUDED};

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
    /// For benchmarks only: skip what the default analysis adds to MAT's figures for the
    /// views of other issues (the waste report's collection and grouping, pass 1's array
    /// hashes, the reachability-strength walk), so that the core (passes, MAT's dominator
    /// tree, retained sizes, report) can be timed against its own budget. The report then
    /// has no waste section and every object reads as unreachable in the strength
    /// partition; the strength-aware tree cannot be asked for.
    pub core_only: bool,
}

/// Which reading of the heap a dominator tree (and every retained size from it) is:
/// Eclipse MAT's (the default), or the strength-aware one (see [`crate::strength`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Reading {
    #[default]
    Mat,
    Strength,
}

impl Reading {
    /// The name in reports and on the command line: `mat` or `strength`.
    pub fn name(self) -> &'static str {
        match self {
            Reading::Mat => "mat",
            Reading::Strength => "strength",
        }
    }
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
    /// The referrer indexes built so far (see [`crate::holders`]).
    pub holders: crate::holders::Cache,
    /// The ProGuard/R8 mapping applied to the class and field names, if any.
    pub mapping: Option<crate::mapping::Applied>,
    /// The [`crate::strength::Strength`] of every object, as its byte.
    pub strengths: Strengths,
    /// One bit per object an owner rule gave its owner ([`crate::strength::owners`]).
    pub owned: Vec<u64>,
    /// The reading the tree fields above (`idom`, `tree`, `retained`, `roots`, `classes`,
    /// `unreachable`, `kept_objects`, `used_heap`, `garbage`) are in.
    pub reading: Reading,
    /// The strength-aware tree's garbage forest roots (empty in MAT's reading).
    pub garbage: Vec<u32>,
    /// The other reading's tree, once computed.
    other_tree: Option<Box<TreeParts>>,
    /// The thread overview (see [`crate::threads`]).
    pub threads: Vec<crate::threads::ThreadInfo>,
    /// Duplicate strings and arrays, empty collections, boxed numbers (see [`crate::waste`]).
    pub waste: crate::waste::Waste,
    /// What pass 2 collected for the waste report, grouped: kept to build the waste
    /// report again (its samples' retained sizes) in another tree.
    found: crate::waste::Found,
    /// Objects by allocation stack, where the dump recorded them.
    pub allocation_sites: crate::waste::AllocationSites,
}

/// What a dominator tree brings to an [`Analysis`] (the fields of the same names).
struct TreeParts {
    reading: Reading,
    idom: Idom,
    dominator_stats: dominators::Stats,
    tree: DomTree,
    retained: Retained,
    roots: Vec<(u32, RootKinds)>,
    classes: Vec<ClassStats>,
    unreachable: Vec<ClassStats>,
    kept_objects: u64,
    used_heap: u64,
    garbage: Vec<u32>,
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
        self.retained.get(obj)
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
        let at = largest.partition_point(|&x| key(x) < key(k));
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
            strength::UNREACHABLE
        })
    }

    /// Objects and shallow bytes per strength, firmest first; the rows add up to every
    /// object of the dump, unreachable ones included.
    pub fn reachability(&self) -> [strength::walk::Row; 9] {
        strength::walk::partition(&self.heap, &self.strengths)
    }

    /// Makes `reading`'s dominator tree the one every tree query and retained size
    /// answers from, computing it on first use (the other one is kept).
    pub fn set_reading(&mut self, reading: Reading) -> Result<()> {
        if reading == self.reading {
            return Ok(());
        }
        if self.options.core_only && reading == Reading::Strength {
            return Err(no_strengths());
        }
        let next = match self.other_tree.take() {
            Some(t) if t.reading == reading => *t,
            other => {
                self.other_tree = other;
                build_tree(&self.heap, &self.strengths, &self.owned, reading, &self.options, &mut |_| Ok(()))?
            }
        };
        let previous = self.install(next);
        self.other_tree = Some(Box::new(previous));
        self.tree_sections()
    }

    /// The sections whose sizes come from the tree in use: the threads (with their size
    /// in the strength-aware tree once both trees exist) and the waste report (its
    /// samples' retained sizes), as `analyze` computes them in that tree.
    fn tree_sections(&mut self) -> Result<()> {
        self.threads = crate::threads::collect(self)?;
        crate::threads::refresh_sizes(self);
        (self.waste, self.allocation_sites) = crate::waste::build(self, self.found.clone())?;
        Ok(())
    }

    /// Retained size of `obj` in the tree of `reading`, if that tree was computed (the one
    /// in use, or the other one kept after [`Analysis::set_reading`]).
    pub fn retained_in(&self, reading: Reading, obj: u32) -> Option<u64> {
        if reading == self.reading {
            return Some(self.retained(obj));
        }
        self.other_tree.as_ref().filter(|t| t.reading == reading).map(|t| t.retained.get(obj))
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
    /// [`strength::tree`]); meaningful when that is the reading in use (its garbage roots
    /// are the current tree's).
    pub fn strength_graph(&self) -> impl Graph + '_ {
        TreeGraph {
            edges: HeapEdges::new(&self.heap),
            strengths: &self.strengths,
            owned: &self.owned,
            garbage: &self.garbage,
        }
    }
}

struct HeapGraph<'a> {
    heap: &'a Heap,
    roots: &'a [(u32, RootKinds)],
    /// Some objects have no class (unknown class, never defined): edges to them skipped.
    filter: bool,
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

/// Why a core-only analysis ([`Options::core_only`]) refuses the strength-aware tree.
fn no_strengths() -> Error {
    Error::io("a core-only analysis has no reachability strengths: it cannot build the strength-aware tree".to_string())
}

/// Runs the whole analysis.
pub fn analyze(source: Box<dyn ByteSource>, options: &Options, progress: &mut dyn Progress) -> Result<Analysis> {
    let input_total = source.input_len();
    let mut cursor = Cursor::new(source);

    let tick_phase = |phase: Phase, cursor_pos: u64, objects: u64, progress: &mut dyn Progress| {
        progress.update(&ProgressInfo { phase, bytes_done: cursor_pos, bytes_total: input_total, objects })
    };

    // Pass 1. The callback cannot borrow the cursor it is called from, so it reports
    // objects only and the cursor position is sampled between records by the pass.
    tick_phase(Phase::Pass1, 0, 0, progress)?;
    let index = {
        let progress_ref: &mut dyn Progress = progress;
        let mut tick = |bytes: u64, objects: u64| {
            progress_ref.update(&ProgressInfo {
                phase: Phase::Pass1,
                bytes_done: bytes,
                bytes_total: input_total,
                objects,
            })
        };
        // Every heap record unless a snapshot was asked for: most files hold one, and
        // this pass finds out. With several, pass 1 runs again on the last one alone.
        let mut index = crate::index::pass1(&mut cursor, &mut tick, options.snapshot, !options.core_only)?;
        if options.snapshot.is_none() && index.snapshots > 1 {
            cursor.rewind()?;
            index = crate::index::pass1(&mut cursor, &mut tick, Some(index.snapshots), !options.core_only)?;
        }
        index
    };
    if let Some(n) = options.snapshot {
        if n == 0 || n > index.snapshots {
            return Err(Error::io(format!(
                "there is no heap-dump snapshot {n}: the file holds {} (numbered from 1)",
                index.snapshots
            )));
        }
    }
    let snapshots = index.snapshots;
    let snapshot = index.snapshot.unwrap_or(snapshots.min(1));
    let decoded_bytes = index.counts.bytes;
    let incomplete = match &index.end {
        WalkEnd::Complete { .. } => None,
        WalkEnd::Broken { error, .. } => Some(error.clone()),
    };
    let objects = index.ids.len() as u64;
    check_memory(options, objects)?;

    // Pass 2 allocates its per-object arrays before its first tick: count them in it.
    tick_phase(Phase::Pass2, 0, 0, progress)?;
    let mut heap = {
        let progress_ref: &mut dyn Progress = progress;
        let mut tick = |bytes: u64, done: u64| {
            progress_ref.update(&ProgressInfo {
                phase: Phase::Pass2,
                bytes_done: bytes,
                bytes_total: input_total,
                objects: done,
            })
        };
        crate::graph::pass2(&mut cursor, index, &mut tick)?
    };
    let input_bytes = input_total.unwrap_or(decoded_bytes);
    let source = crate::waste::collect::resolve_windows(&mut heap.waste, &heap.index, cursor.into_source())?;
    let mut collected = std::mem::take(&mut heap.waste);
    let source = Some(crate::waste::counter_cells::resolve(&mut collected, &heap, source)?);
    heap.waste = collected;

    tick_phase(Phase::Strengths, input_bytes, objects, progress)?;
    if options.core_only && options.tree == Reading::Strength {
        return Err(no_strengths());
    }
    let (strengths, owned, found, kept) = if options.core_only {
        (Strengths::compact(Vec::new())?, Vec::new(), Default::default(), None)
    } else {
        let strength::walk::Reach { strengths, owned } = strength::walk::strengths(&HeapEdges::new(&heap))?;

        // The waste report's groups, once the walk says which objects are kept (MAT's tree
        // keeps the same ones): what pass 2 collected for it is freed before the tree's peak.
        // Grouped over what MAT's reading keeps, in either reading: the strength-aware tree
        // also holds the garbage, which wastes nothing, so switching trees changes no group.
        let kept = crate::waste::Kept::new(&heap, &strengths, options.keep_unreachable)?;
        // Packed for the rest of the session (the bytes are the walk's alone).
        let strengths = Strengths::compact(strengths)?;
        let mut collected = std::mem::take(&mut heap.waste);
        let found = crate::waste::group(&heap, &kept, &mut collected);
        drop(collected);
        (strengths, owned, found, Some(kept))
    };
    // Nothing but the debug check below reads the bits again. Freed with the waste data in
    // release builds: kept longer, the bitset is an island in the space that data leaves
    // free, and the retained phase's arrays need that space whole (the page's memory only
    // grows; on the 1 GB benchmark dump the island cost 43 MiB of wasm memory).
    #[cfg(not(debug_assertions))]
    drop(kept);

    tick_phase(Phase::Dominators, input_bytes, objects, progress)?;
    let t = build_tree(&heap, &strengths, &owned, options.tree, options, &mut |phase| {
        tick_phase(phase, input_bytes, objects, progress)
    })?;
    #[cfg(debug_assertions)]
    {
        if let (Some(kept), true) = (&kept, options.tree == Reading::Mat || options.keep_unreachable) {
            for v in 0..heap.object_count() {
                debug_assert_eq!(
                    kept.has(v as u32),
                    t.idom.get(v as u32) != UNREACHABLE && heap.class_of(v as u32) != NO_CLASS,
                    "object {v}: kept by the walk and by the tree differ"
                );
            }
        }
        drop(kept);
    }

    let mut warnings = heap.index.warnings.clone();
    warnings.extend(heap.warnings.iter().cloned());
    if heap.roots.missing > 0 {
        warnings.push(format!(
            "{} GC root records name objects that are not in the dump; they were ignored",
            heap.roots.missing
        ));
    }
    tick_phase(Phase::Report, input_bytes, objects, progress)?;
    let mut analysis = Analysis {
        heap,
        options: options.clone(),
        idom: t.idom,
        dominator_stats: t.dominator_stats,
        tree: t.tree,
        retained: t.retained,
        roots: t.roots,
        classes: t.classes,
        unreachable: t.unreachable,
        kept_objects: t.kept_objects,
        used_heap: t.used_heap,
        input_bytes,
        decoded_bytes,
        warnings,
        incomplete,
        snapshots,
        snapshot,
        source,
        strengths,
        owned,
        reading: t.reading,
        garbage: t.garbage,
        other_tree: None,
        holders: Default::default(),
        mapping: None,
        threads: Vec::new(),
        waste: Default::default(),
        found: Default::default(),
        allocation_sites: Default::default(),
    };
    analysis.found = found;
    analysis.tree_sections()?;
    Ok(analysis)
}

/// One reading's dominator tree, retained sizes and per-class figures: the same code for
/// both, over MAT's graph and roots or the strength-aware ones ([`strength::tree`]).
fn build_tree(
    heap: &Heap,
    strengths: &Strengths,
    owned: &[u64],
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
                &TreeGraph { edges: HeapEdges::new(heap), strengths, owned, garbage: &garbage },
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
    let retained::Computed { tree, retained, class_min } =
        retained::compute(&idom, heap.index.layout.object_alignment, shallow, |v| heap.class_of(v), class_count)?;
    for (c, m) in classes.iter_mut().zip(class_min) {
        c.retained_min = m;
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
    let mut marked = crate::alloc::try_filled(strengths.len(), false, "the garbage forest's marks")?;
    for (v, m) in marked.iter_mut().enumerate() {
        *m = strengths.get(v as u32) != strength::UNREACHABLE;
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

/// Estimated peak of the phases after pass 1, per object, in bytes, as the allocator sees
/// it: measured 20.3 on the `make-big.sh` 1 GB dump (2026-12-01,
/// `examples/memory_profile.rs`; at the retained-size phase, pass 2 a close second at
/// 19.6; since the immediate dominators are packed, 2026-12-02: pass 2 the peak at 19.9,
/// the retained-size phase 17.4); 17.8 on the mid-size dump of `tests/memory_estimate.rs` (2026-12-02, after pass
/// 2 stopped holding the primitive arrays' hashes twice); since classes take a byte per
/// object and pass 2 keeps arrays' sizes for the arrays alone (2026-12-02): 15.5 there,
/// 12.8 at pass 2 on the 1 GB dump, so 16 keeps within 10% of the mid-size dump. A wasm instance needs more than the allocator holds (freed temporaries
/// leave holes in a memory that never shrinks, and the allocator grows it by a whole
/// request when its free top is short): the page estimates with its own figure,
/// `wasm::WASM_PEAK_BYTES_PER_OBJECT`, through [`Options::peak_bytes_per_object`]. The
/// dominator search can need more on
/// a graph where few objects are private (up to ~16 bytes per object on top of the
/// graph).
pub const PEAK_BYTES_PER_OBJECT: u64 = 16;

fn check_memory(options: &Options, objects: u64) -> Result<()> {
    if let Some(limit) = options.memory_limit {
        let per_object = options.peak_bytes_per_object.unwrap_or(PEAK_BYTES_PER_OBJECT);
        let need = options.memory_fixed_bytes.saturating_add(objects.saturating_mul(per_object));
        if need > limit {
            use crate::units::{binary_size, count};
            let fixed = match options.memory_fixed_bytes {
                0 => String::new(),
                f => format!("{} plus ", binary_size(f)),
            };
            return Err(Error::memory(format!(
                "this dump has {} objects: analyzing it needs about {} of memory ({fixed}{per_object} bytes per object), more than the {} available here",
                count(objects),
                binary_size(need),
                binary_size(limit)
            )));
        }
    }
    Ok(())
}
