//! The report: what heapscope says about a dump, as data.
//!
//! Serialized with serde (the JSON export, the page's data) and described by a JSON
//! Schema derived with schemars, committed at `schema/report.schema.json`; the page's
//! TypeScript types are generated from that schema, so page and core cannot drift.
//!
//! Rules that keep it useful and safe:
//! - **Deterministic**: the same dump gives byte-identical JSON. No maps with random
//!   order, no floats (percentages are basis points: 100 bp = 1%), no wall-clock time.
//! - **Bounded**: no list grows with the number of objects. Lists are bounded by the
//!   number of classes (the histogram), by a fixed cap, or by a size threshold.
//! - **Versioned**: [`SCHEMA_VERSION`] changes whenever a field is removed, renamed,
//!   retyped or changes meaning (units, basis). Adding an optional field keeps it.
//!
//! Addresses are strings of lower-case hex with `0x` (JSON numbers lose precision above
//! 2^53). Sizes are bytes. Everything that comes from the dump (class names, strings) is
//! untrusted text.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::leaks::Leaks;
use super::reading::Reading;
use super::sections::{Component, DominatorSubtree, HeapComposition, OomTriage, RootPath, SystemProperty};
use super::threads::ThreadInfo;
use super::waste::{AllocationSites, Waste};

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// Version of this schema ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The program that wrote the report, e.g. "heapscope 0.1.0".
    pub tool: String,
    pub source: Source,
    pub dump: DumpInfo,
    /// False when the dump ended early or broke off: the report covers what came before.
    pub complete: bool,
    /// Why the dump could not be read to its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Incomplete>,
    /// Things worth knowing that did not stop the analysis (at most 50).
    pub warnings: Vec<String>,
    pub overview: Overview,
    /// Which dominator tree every retained size of the report comes from.
    #[serde(default)]
    pub tree: Reading,
    /// How firmly the dump's objects are held: one row per strength, firmest first
    /// (`strong`, `cache`, `thread_local`, `local`, `soft`, `weak`, `finalizer`,
    /// `phantom`, `unreachable`). The rows add up to every object of the dump and its
    /// whole shallow size, unreachable objects included, whichever tree is used.
    #[serde(default)]
    pub reachability: Vec<ReachabilityRow>,
    /// One row per class, by retained size (MAT's quick value), then shallow size.
    pub histogram: Vec<HistogramRow>,
    /// The biggest objects of the dominator tree's first level (at most 100).
    pub top_dominators: Vec<ObjectRef>,
    pub leak_suspects: LeakSuspects,
    pub top_consumers: TopConsumers,
    /// Every thread object with its stack and the objects each frame holds, largest
    /// retained first (all of them: threads are few).
    #[serde(default)]
    pub threads: Vec<ThreadInfo>,
    /// Memory holding nothing new: duplicate strings and arrays, empty collections,
    /// boxed numbers.
    #[serde(default)]
    pub waste: Waste,
    /// Objects and shallow bytes by allocation stack, where the dump recorded them.
    #[serde(default)]
    pub allocation_sites: AllocationSites,
    /// LeakCanary's reading: the objects that should have been collected, each with its
    /// shortest strong path from a GC root, grouped by signature (absent when the leak
    /// finder did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaks: Option<Leaks>,
    /// Where the memory of the largest top-level dominators (at most 10) accumulates, as
    /// for a single suspect, with its element count: what `heapscope compare` shows for a
    /// growing object. Empty when the dump was not read again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub growth_points: Vec<GrowthPoint>,
    /// The OOM triage that opens the report: the heap's shape and one leak or many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oom_triage: Option<OomTriage>,
    /// What the used heap is made of: object kinds, packages, class loaders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_composition: Option<HeapComposition>,
    /// The dump's system properties (`java.lang.System`'s `props`), as MAT's System
    /// Properties page lists them: sorted by key. Absent when the dump has no such map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_properties: Option<Vec<SystemProperty>>,
    /// MAT's Top Components: each class loader whose top-level dominators retain at least
    /// 1% of the used heap, largest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_components: Option<Vec<Component>>,
}

/// A top-level dominator's accumulation point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrowthPoint {
    /// Address of the top-level dominator (as in `top_dominators`).
    pub address: String,
    pub accumulation_point: ObjectRef,
    /// Entries of what `held_in` names (as [`Suspect::accumulation_point_elements`]): a
    /// collection's size, an array's length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elements: Option<u64>,
    /// Where the memory is held, named as a developer names it (as [`Suspect::held_in`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_in: Option<String>,
}

/// Where the report came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// File name of the dump, without directories (may be absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    /// Size of the input file (compressed size for gzip).
    pub file_bytes: u64,
    /// Size of the HPROF data read (after decompression).
    pub hprof_bytes: u64,
    pub gzip: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DumpInfo {
    /// The header's format string, e.g. "JAVA PROFILE 1.0.2".
    pub format: String,
    /// "HotSpot" (1.0.1, 1.0.2) or "Android" (1.0.3, ART).
    pub platform: String,
    pub id_size: u32,
    /// When the dump was written, from its header (milliseconds since 1970).
    pub timestamp_ms: u64,
    /// Whether references are 4 bytes (compressed oops), detected as MAT does.
    pub compressed_oops: bool,
    pub object_alignment: u32,
    /// Heap-dump snapshots the file holds (the JDK's hprof agent writes one per dump
    /// request, each ending with a HEAP DUMP END record); 0 when it holds none.
    #[serde(default)]
    pub snapshots: u32,
    /// The snapshot this report is about, 1-based (the last by default; 0 when there is
    /// none).
    #[serde(default)]
    pub snapshot: u32,
    /// How the JVM laid the objects out and which shallow sizes the report is in (the
    /// JVM's, or Eclipse MAT's with `--sizes mat`). Absent in reports written before
    /// heapscope read the layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<super::sizes::ObjectLayout>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Incomplete {
    /// Byte offset (in the decompressed HPROF data) where reading stopped.
    pub offset: u64,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Overview {
    /// Objects kept for analysis (class objects and the bootstrap loader's pseudo object
    /// at 0x0 included).
    pub objects: u64,
    /// Sum of the shallow sizes of the kept objects.
    pub used_heap_bytes: u64,
    pub classes: u64,
    pub class_loaders: u64,
    /// Distinct GC root objects.
    pub gc_roots: u64,
    /// Root objects per kind (an object with two kinds counts in both), by name.
    pub gc_roots_by_type: Vec<RootTypeCount>,
    pub unreachable: Unreachable,
    pub top_level_dominators: u64,
    /// Objects per HPROF record kind, as read.
    pub records: RecordCounts,
    /// For dumps that name their heaps (Android: app, image, zygote): the kept objects of
    /// each heap and their shallow bytes, in the dump's order. Absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heaps: Vec<HeapCount>,
    /// Classes whose names look like an obfuscator's (R8, ProGuard: a simple name of one or
    /// two lower-case letters, `a`, `a.b`, `Outer$c`): a mapping file would give them their
    /// names back. After a mapping, the classes it did not rename. Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub obfuscated_classes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Kept objects of one heap (see [`Overview::heaps`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeapCount {
    pub name: String,
    pub objects: u64,
    pub shallow_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RootTypeCount {
    /// heapscope's name ("System Class", "Thread", "JNI Global", ...; Android's own kinds
    /// keep their names, e.g. "Interned String").
    pub name: String,
    /// The name Eclipse MAT shows (ART-only kinds are "Unknown" there).
    pub mat_name: String,
    pub objects: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Unreachable {
    /// True when unreachable objects were left out (the default, as in MAT).
    pub discarded: bool,
    pub objects: u64,
    pub shallow_bytes: u64,
    /// The classes with the most unreachable bytes (at most 100).
    pub classes: Vec<ClassCount>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordCounts {
    pub instances: u64,
    pub object_arrays: u64,
    pub primitive_arrays: u64,
    pub classes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassCount {
    pub class_name: String,
    pub objects: u64,
    pub shallow_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistogramRow {
    pub class_name: String,
    /// Address of the class object (several classes may share a name).
    pub class_address: String,
    /// Its class loader: `<system class loader>` or `ClassName @ 0x…`.
    pub loader: String,
    pub instances: u64,
    pub shallow_bytes: u64,
    /// MAT's quick retained size: retained sizes of the instances that no other
    /// instance of the class dominates, summed (a lower bound of the class's retained size).
    pub retained_bytes_min: u64,
    /// The quick retained size MAT's report prints (`>= N`): of the class's instances
    /// together with its class object (the retained sizes of those of them that no other
    /// of them dominates, summed). For `java.lang.Class`, whose instances are the class
    /// objects, `retained_bytes_min`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retained_bytes_with_class: Option<u64>,
    /// For dumps that name their heaps: the class's instances in each heap that has any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heaps: Vec<HeapCount>,
}

/// An object, described for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectRef {
    pub address: String,
    pub class_name: String,
    /// For a class object: the class it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_of_object: Option<String>,
    pub shallow_bytes: u64,
    pub retained_bytes: u64,
    /// Retained size in basis points of the used heap (100 = 1%).
    pub retained_bp: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeakSuspects {
    /// Retained size above which something is a suspect (10% of the used heap).
    pub threshold_bytes: u64,
    pub suspects: Vec<Suspect>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SuspectKind {
    /// One object retains more than the threshold.
    SingleObject,
    /// Many top-level objects of one class together retain more than the threshold.
    GroupOfObjects,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Suspect {
    pub kind: SuspectKind,
    /// The suspect object (single) or one representative, the biggest member (group).
    pub object: ObjectRef,
    /// Class of the suspect (single) or of the group's members.
    pub class_name: String,
    /// Loader of that class, `<system class loader>` or `ClassName @ 0x…`.
    pub loader: String,
    /// Objects in the group (1 for a single suspect).
    pub instances: u64,
    pub retained_bytes: u64,
    pub retained_bp: u32,
    /// Where the memory is accumulated, when one object holds most of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accumulation_point: Option<ObjectRef>,
    /// Single: the dominator chain from the suspect down to the accumulation point.
    /// Group: the reference path shared by most members, from its GC root down.
    /// At most 40 entries; `chain_omitted` says how many were left out in the middle.
    pub chain: Vec<ObjectRef>,
    pub chain_omitted: u64,
    /// One sentence in the manner of MAT's report.
    pub description: String,
    /// Single: a shortest reference path from a GC root to the suspect, as classes and
    /// field names only (no addresses), so the same suspect can be recognized in another
    /// dump of the program (`heapscope compare`). Absent when the dump was not read again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_path: Option<Vec<PathKey>>,
    /// Entries of what `held_in` names: of the collection it ends at (its `size`-like
    /// field) when that is not the accumulation point (whose backing array it is), else of
    /// the accumulation point when it is an array (its length) or a collection (its
    /// `size`-like field), as the dump holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accumulation_point_elements: Option<u64>,
    /// Where the memory is held, named as a developer names it: from the static field
    /// nearest the accumulation point (`com.acme.ui.EventBus.INSTANCE.listeners`: the
    /// class's static `INSTANCE`, its field `listeners`), else from the chain's first
    /// object (`Thread("worker-1").threadLocals…`); each step a field or `[i]`, `…` where
    /// the next object is not referenced directly; a collection's internal array at the
    /// end is left out (the name stops at the collection). Absent when the dump was not
    /// read again or the name would have more than 40 steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_in: Option<String>,
    /// The objects the accumulation point immediately dominates, grouped by class, largest
    /// retained first (at most 20 groups): MAT's "Accumulated Objects by Class in
    /// Dominator Tree".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accumulated: Vec<MemberGroup>,
    /// When every object of the biggest accumulated group (`accumulated[0]`) immediately
    /// dominates exactly one object of one other class, through the same field: that
    /// class and field (`Screen$1.this$0` → `com.acme.ui.Screen`), usually what leaked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub each_holds: Option<EachHolds>,
    /// Group: its biggest members (at most 20), largest retained first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub biggest_members: Vec<Member>,
    /// When the suspect is a class object: the class it stands for (`class_name` and
    /// `loader` are then `java.lang.Class`'s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub represented_class: Option<String>,
    /// The loader of `represented_class`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub represented_loader: Option<String>,
    /// Single: why the suspect is alive, a shortest reference path from it up to a GC
    /// root. Absent when the dump was not read again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_path: Option<RootPath>,
    /// Single: several levels of the dominator tree under its accumulation point (or the
    /// suspect itself, without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dominator_subtree: Option<DominatorSubtree>,
    /// Where the memory accumulates with linked structures read as one (heapscope's
    /// reading; `accumulation_point`, `chain` and `accumulated` are Eclipse MAT's): see
    /// [`Structure`]. Absent for a group suspect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structure: Option<Structure>,
    /// When a running thread's stack holds the memory: the frame and the local variable
    /// (see [`HeldByFrame`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<HeldByFrame>,
    /// The suspect in one sentence, in the application's terms, as every rendering says
    /// it first: where the memory is held (`held_in`), what it holds, how much each and
    /// together, and that part's share of the used heap (`com.acme.ui.EventBus.INSTANCE.
    /// listeners holds 150 × Screen$1, about 1.0 KiB each (150.4 KiB, 95.20% of the heap);
    /// each holds a com.acme.ui.Screen by this$0`). Absent when the dump was not read again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<String>,
}

/// Where a single suspect's memory accumulates, with linked structures read as one.
///
/// The walk is MAT's (from the suspect, step to the largest child while it keeps at least
/// 70% of its parent's retained size), over *members* instead of dominator-tree children:
/// a chain of objects of one class, each holding the next through one field (a cons
/// list, a linked queue, a hash bucket's chain, a program's own nodes), is read as one
/// structure whose nodes are members side by side of what holds it, each with what it
/// retains without the rest of the chain. So a million-node list is one step, not a
/// million, and its nodes are counted as a collection's entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Structure {
    /// Where the walk stops (the suspect itself when no member keeps 70%).
    pub point: ObjectRef,
    /// The walk from the suspect down to `point`, both included (at most 40 steps: the
    /// first and last 20; `path_omitted` left out between).
    pub path: Vec<ObjectRef>,
    #[serde(default)]
    pub path_omitted: u64,
    /// The point's members (chains read as one), how many and what they retain together.
    pub members: u64,
    pub members_retained_bytes: u64,
    /// The members grouped by class, largest retained first (at most `--detail`'s
    /// children); each member's retained size is without the rest of its chain.
    pub groups: Vec<MemberGroup>,
    /// The chains among the members, most nodes first (at most 5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<LinkedChain>,
}

/// A chain of objects of one class, each holding the next through one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkedChain {
    /// The first node (as the dominator tree has it: the one the holder references).
    pub first: ObjectRef,
    pub class_name: String,
    /// The field each node holds the next by (absent when the dump was not read again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Nodes in the chain, the first included.
    pub nodes: u64,
}

/// The running frame whose local variable holds a suspect's memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeldByFrame {
    /// The thread's name (absent when it has none) and object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_name: Option<String>,
    pub thread: String,
    /// The frame named: the innermost of the frames holding the most of the memory.
    pub frame: FrameName,
    /// Its position on the stack, 0 for the innermost frame.
    pub depth: u32,
    /// The local variable (an object the frame holds) through which the memory is held.
    pub local: ObjectRef,
    /// How the local holds what the suspect's memory is in: `local` (it is the object),
    /// `references` (it references it directly), `reaches` (the memory is shared by the
    /// stack's frames: of the locals, this one reaches the most of it).
    pub how: String,
    /// With `reaches`: what the objects the local reaches retain (through the thread's
    /// own objects, not through single-instance services).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach_bytes: Option<u64>,
    /// With `reaches`, when the local is the first node of a chain: the chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<LinkedChain>,
    /// With `reaches`: the objects the local's chain's nodes (or its array's elements)
    /// reference one each, when most of them reference one of one class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elements: Option<Elements>,
    /// The other frames holding the same local, innermost first (the stack holds the
    /// memory when there are any).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_in: Vec<FrameName>,
}

/// The objects a structure's nodes (or an array's slots) reference one each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Elements {
    pub class_name: String,
    pub objects: u64,
    /// The field each node references its element by (absent for an array).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// A stack frame, named as a developer reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrameName {
    /// `pkg.Class.method`.
    pub method: String,
    /// `Class.method (File.java:123)`: the simple class name, the method, the source.
    pub short: String,
    /// The source file and line, when the dump has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// What each object of a suspect's biggest accumulated group holds (see
/// [`Suspect::each_holds`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EachHolds {
    /// The class of the object each one holds.
    pub class_name: String,
    /// The field (of the group's class) each one holds it by.
    pub field: String,
    /// Retained by the held objects together.
    pub retained_bytes: u64,
}

/// Objects of one class among those an accumulation point holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemberGroup {
    pub class_name: String,
    pub objects: u64,
    pub shallow_bytes: u64,
    pub retained_bytes: u64,
    /// The biggest of them (at most 3).
    pub biggest: Vec<ObjectRef>,
}

/// A member of a group suspect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Member {
    pub object: ObjectRef,
    /// A thread's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// One step of a reference path, without addresses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathKey {
    /// Class of the object, or `class X` for the class object of X.
    pub class_name: String,
    /// The fields (`[]` for array elements, `<class>`, `<local variable>`) through which
    /// this object references the next step; empty on the last step.
    pub via: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopConsumers {
    /// Retained size above which something is listed (1% of the used heap).
    pub threshold_bytes: u64,
    /// Top-level dominators above the threshold.
    pub objects: Vec<ObjectRef>,
    /// Top-level dominators grouped by class.
    pub classes: Vec<Consumer>,
    /// Top-level dominators grouped by the class loader of their class.
    pub class_loaders: Vec<Consumer>,
    /// Top-level dominators grouped by package, at every level of the package name
    /// ("java", "java.util", …); class objects count in the package of the class they are.
    pub packages: Vec<Consumer>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Consumer {
    pub name: String,
    pub objects: u64,
    pub retained_bytes: u64,
    pub retained_bp: u32,
}

/// How firmly an object is held: over all paths from the GC roots, the best of each
/// path's weakest reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StrengthName {
    Strong,
    /// Through a curated cache field.
    Cache,
    /// Through a thread's ThreadLocal map.
    ThreadLocal,
    /// By a stack frame or native local.
    Local,
    Soft,
    Weak,
    /// Awaiting finalization.
    Finalizer,
    Phantom,
    /// From no GC root: uncollected garbage.
    Unreachable,
}

/// Objects held at one strength.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReachabilityRow {
    pub strength: StrengthName,
    pub objects: u64,
    pub shallow_bytes: u64,
}
