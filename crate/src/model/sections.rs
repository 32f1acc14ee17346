//! The report's sections beyond MAT's three pages (see [`crate::report`]): the OOM
//! triage that opens the report, the heap's composition, the dump's system properties,
//! MAT's top components, and a single suspect's root path and dominator subtree. Each is
//! an optional field of the [`Report`](super::Report) (a report saved before them still
//! reads), and every list is bounded (a cap of [`Detail`](super::detail::Detail), a
//! threshold, or the classes).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::report::{ClassCount, ObjectRef};

/// The shape of the heap: how many of the largest top-level dominators hold half of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HeapShape {
    /// One object holds half the used heap or more: one dominant accumulation point.
    Dominant,
    /// Two to five objects together hold half of it.
    Few,
    /// Half the heap takes more than five objects (or the heap is empty): spread out.
    Spread,
}

/// Where memory accumulates: how many different places the leak suspects accumulate in,
/// a running program's working set, or no verdict for a dump cut short (the variants keep
/// their names: scripts read them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LeakVerdict {
    /// No leak suspect: nothing retains more than 10% of the used heap.
    NoSuspect,
    /// The suspects (one or more) accumulate in one place.
    OneLeak,
    /// The suspects accumulate in two or more places.
    SeveralLeaks,
    /// Every suspect is a running thread's working set (its frames' local variables hold
    /// it): the program needed more heap than it had; nothing leaked.
    WorkingSet,
    /// The dump ends early: its roots and references past the cut are unknown, so no
    /// verdict is given (`verdict_text` says what the part read shows).
    Incomplete,
}

/// The OOM triage: the first thing the report says, with the numbers behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OomTriage {
    pub shape: HeapShape,
    pub verdict: LeakVerdict,
    /// The largest top-level dominator's retained size, in basis points of the used heap.
    pub largest_bp: u32,
    /// The five largest top-level dominators together, in basis points.
    pub top5_bp: u32,
    /// How many of the largest top-level dominators it takes to hold half the used heap
    /// (all of them when they never do).
    pub dominators_for_half: u64,
    pub top_level_dominators: u64,
    /// Leak suspects (MAT's, above 10% of the used heap).
    pub suspects: u64,
    /// Different places they accumulate in: the suspects' distinct accumulation points (a
    /// single suspect's as its `structure` reads it, linked structures as one; a group
    /// suspect without a common holder has none).
    pub accumulation_points: u64,
    /// The suspects' retained sizes together, in basis points of the used heap.
    pub suspects_bp: u32,
    /// When the dump ends early: the objects no GC root of the part read reaches (kept,
    /// each entry point a root of its own, since what held them may be past the cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutUnknown>,
    /// The shape as a sentence.
    pub shape_text: String,
    /// The verdict as a sentence.
    pub verdict_text: String,
}

/// What a dump's cut leaves unknown (see [`OomTriage::cut`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CutUnknown {
    /// Byte offset where the dump ends (in the decompressed HPROF data).
    pub offset: u64,
    /// Objects no GC root in the part read reaches, and their shallow bytes.
    pub unrooted_objects: u64,
    pub unrooted_bytes: u64,
}

/// What kind of object a heap object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompositionKind {
    Instances,
    ObjectArrays,
    PrimitiveArrays,
    /// `java.lang.Class` objects (their size is their static fields).
    ClassObjects,
}

/// Objects of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KindCount {
    pub kind: CompositionKind,
    pub objects: u64,
    pub shallow_bytes: u64,
    /// Shallow bytes in basis points of the used heap.
    pub shallow_bp: u32,
}

/// Objects of the classes of one package or one class loader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GroupCount {
    pub name: String,
    pub classes: u64,
    pub objects: u64,
    pub shallow_bytes: u64,
    pub shallow_bp: u32,
}

/// What the used heap is made of (kept objects, by shallow size): by object kind, by the
/// package of their class (an array by its element class's; primitive arrays and classes
/// without a package in `<default package>`), by their class's loader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeapComposition {
    /// The four kinds, in this order: instances, object arrays, primitive arrays, class
    /// objects. They add up to the used heap.
    pub kinds: Vec<KindCount>,
    /// The packages with the most shallow bytes (at most `--detail`'s rows), then by name.
    pub packages: Vec<GroupCount>,
    /// Packages in all.
    pub package_count: u64,
    /// The class loaders whose classes' objects take the most shallow bytes (as many).
    pub loaders: Vec<GroupCount>,
    pub loader_count: u64,
}

/// One system property, as MAT's System Properties page lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SystemProperty {
    /// The key's text (at most 1024 characters, then "...", as MAT reads strings).
    pub key: String,
    /// The value's text; "" when the value is null or has no text.
    pub value: String,
}

/// MAT's Top Components report: one class loader whose top-level dominators (grouped as
/// Top Consumers groups them) retain at least 1% of the used heap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Component {
    /// The loader: `<system class loader>` or `ClassName @ 0x…`.
    pub name: String,
    pub top_level_dominators: u64,
    /// What they retain together (the component's size).
    pub retained_bytes: u64,
    pub retained_bp: u32,
    /// Objects in the component's retained set.
    pub objects: u64,
    /// The classes of the retained set with the most shallow bytes (at most `--detail`'s
    /// rows), then by name.
    pub classes: Vec<ClassCount>,
    /// Waste found within the retained set (absent when the waste report was not made).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waste: Option<ComponentWaste>,
}

/// The waste report's findings that lie in one component's retained set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComponentWaste {
    /// Strings of the component whose value another kept string holds too (the duplicate
    /// string groups' members, each group's first aside), and their shallow bytes with
    /// their value arrays'.
    pub duplicate_strings: u64,
    pub duplicate_string_bytes: u64,
    /// Primitive arrays of the component equal to another kept array (each group's first
    /// aside), and their shallow bytes.
    pub duplicate_arrays: u64,
    pub duplicate_array_bytes: u64,
    /// Empty collections of the component with an allocated backing array, and those
    /// arrays' shallow bytes.
    pub empty_collections: u64,
    pub empty_collection_bytes: u64,
    /// The three together.
    pub wasted_bytes: u64,
    /// In basis points of the component's retained size.
    pub wasted_bp: u32,
}

/// One object of a root path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RootStep {
    pub object: ObjectRef,
    /// How the next step (the one nearer the GC root) references this object: its field
    /// names, `[index]`, `<class>`, `<local variable>`…; empty on the GC root. For a run
    /// (`run`), how the next step references the run's `last`.
    pub held_by: Vec<String>,
    /// When the step stands for a run of the path: objects of one class in a row, each
    /// holding the next through one field (a linked structure read as one), from
    /// `object` to `run.last`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<PathRun>,
}

/// A run of a reference path read as one step: `nodes` objects of one class in a row,
/// each holding the next through `field` (a linked list's nodes on the way to an object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathRun {
    /// Objects in the run, both ends included.
    pub nodes: u64,
    /// The field each holds the next by.
    pub field: String,
    /// The run's other end (the step's `object` is the first in the path's order).
    pub last: ObjectRef,
}

/// Why a single suspect is alive: a shortest reference path from the suspect up to a GC
/// root, and the root's type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RootPath {
    /// From the suspect (first) up to the GC root (last); steps beyond `--detail`'s cap
    /// are left out in the middle.
    pub steps: Vec<RootStep>,
    /// Steps left out after the first half of `steps`.
    pub omitted: u64,
    /// The GC root's types (heapscope's names, as in `gc_roots_by_type`).
    pub root_types: Vec<String>,
    /// The path in one line: `A ← field of B ← … (GC root: System Class)`.
    pub why_alive: String,
}

/// One object of a dominator subtree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubtreeNode {
    pub object: ObjectRef,
    /// 0 for the subtree's root; a node's children follow it with one more.
    pub depth: u32,
    /// The objects it immediately dominates that are not listed, and what they retain.
    pub omitted_children: u64,
    pub omitted_retained_bytes: u64,
    /// The longest chain among its children, when its children were chosen (a linked
    /// structure's nodes are listed side by side as children of what holds it, see
    /// [`Structure`](super::report::Structure)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<super::report::LinkedChain>,
}

/// Several levels of the dominator tree under where a single suspect's memory accumulates
/// (its [`Structure`](super::report::Structure)'s point), biggest first, depth first, with
/// linked structures read as one: a chain's nodes are children side by side of what holds
/// it, each with what it retains without the rest of the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DominatorSubtree {
    /// In depth-first order, each node's children largest retained first; chosen level by
    /// level within `--detail`'s caps (objects, levels, children per object).
    pub nodes: Vec<SubtreeNode>,
    /// Whether the caps left objects out.
    pub truncated: bool,
}
