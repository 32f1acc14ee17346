//! The comparison of two reports, as data: what `heapscope compare --format json` writes.
//!
//! Same rules as the [report](crate::report::model): deterministic (no maps, no floats:
//! percentages are basis points), bounded by the number of classes, versioned by
//! [`SCHEMA_VERSION`], committed as a JSON Schema at `schema/compare.schema.json`. Signed
//! numbers (`delta`) are current minus baseline.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::PathKey;

/// Version of the comparison's own schema (independent of the report's).
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Comparison {
    /// Version of this schema ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The program that wrote the comparison, e.g. "heapscope 0.1.0".
    pub tool: String,
    pub baseline: Side,
    pub current: Side,
    /// The column the classes are sorted by (its delta, descending).
    pub sort: SortKey,
    /// Things worth knowing about the pair (e.g. one side is an incomplete dump).
    pub warnings: Vec<String>,
    pub totals: Totals,
    /// The few current top-level objects and leak suspects that account for most of the
    /// retained growth, largest growth first (at most 10).
    pub leaders: Vec<Change>,
    /// The leak suspects of both sides, set beside each other: every current suspect,
    /// then the baseline suspects that are suspects no more (`gone`).
    pub suspects: Vec<Change>,
    /// Classes that changed in any column, out of all classes of both sides.
    pub classes_changed: u64,
    /// Classes of both sides (rows before `--top` cut the list).
    pub classes_total: u64,
    /// One row per class (name + class loader) present on either side, by `sort`.
    pub classes: Vec<ClassChange>,
}

/// One input of the comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Side {
    /// The dump's file name (as its report records it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    /// The header's format string, e.g. "JAVA PROFILE 1.0.2".
    pub format: String,
    /// "HotSpot" or "Android".
    pub platform: String,
    pub id_size: u32,
    /// When the dump was written (milliseconds since 1970, from its header).
    pub timestamp_ms: u64,
    /// False when the dump ended early.
    pub complete: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    Instances,
    Shallow,
    Retained,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    pub baseline: TotalCounts,
    pub current: TotalCounts,
    pub delta: TotalDeltas,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TotalCounts {
    pub objects: u64,
    pub used_heap_bytes: u64,
    pub classes: u64,
    pub class_loaders: u64,
    pub gc_roots: u64,
    /// Root objects per kind, over the kinds of both sides (0 where a side has none).
    pub gc_roots_by_type: Vec<RootCount>,
    /// Objects left out as unreachable (0 when the side kept them).
    pub unreachable_objects: u64,
    pub unreachable_shallow_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RootCount {
    /// heapscope's root kind name ("System Class", "Thread", …).
    pub name: String,
    pub objects: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TotalDeltas {
    pub objects: i64,
    pub used_heap_bytes: i64,
    pub classes: i64,
    pub class_loaders: i64,
    pub gc_roots: i64,
    pub gc_roots_by_type: Vec<RootDelta>,
    pub unreachable_objects: i64,
    pub unreachable_shallow_bytes: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RootDelta {
    pub name: String,
    pub objects: i64,
}

/// Whether a class is on both sides or one only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClassStatus {
    New,
    Gone,
    Both,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassChange {
    pub class_name: String,
    /// The class loader's display name, stable across dumps: `<system class loader>`, or
    /// the loader's class name, followed, when several loaders of that class define
    /// classes, by `defining ` and the first (lowest) class name it defines.
    pub loader: String,
    pub status: ClassStatus,
    /// Zeros when the class is absent on that side.
    pub baseline: ClassCounts,
    pub current: ClassCounts,
    pub delta: ClassDeltas,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassCounts {
    pub instances: u64,
    pub shallow_bytes: u64,
    /// MAT's quick retained size of the class (a lower bound).
    pub retained_bytes_min: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassDeltas {
    pub instances: i64,
    pub shallow_bytes: i64,
    pub retained_bytes_min: i64,
}

/// What a top-level object or leak suspect is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A single-object leak suspect.
    SingleObject,
    /// A group-of-objects leak suspect (top-level objects of one class).
    GroupOfObjects,
    /// A top-level dominator that is not a suspect.
    Object,
}

/// How a leader or suspect changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    /// Not found on the baseline side.
    New,
    Grown,
    Unchanged,
    Shrunk,
    /// A baseline suspect that is no suspect now.
    Gone,
}

/// A top-level object or suspect on both sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub kind: ChangeKind,
    pub status: ChangeStatus,
    /// Class of the object (`class X` for the class object of X) or of the group.
    pub class_name: String,
    /// Stable loader name (as in `classes`) of a group's class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loader: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<ChangeSide>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<ChangeSide>,
    /// Current retained minus baseline retained (a missing side counts 0).
    pub delta_retained_bytes: i64,
    /// The delta in basis points of the baseline's retained size (absent when new).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub growth_bp: Option<i64>,
    /// The delta in basis points of the growth of all top-level objects (leaders only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share_of_growth_bp: Option<u32>,
    /// The reference path from a GC root that matched the two sides (single objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_path: Option<Vec<PathKey>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeSide {
    /// The object's address (a group's biggest member) in that dump, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Objects (1, or the group's members).
    pub instances: u64,
    pub retained_bytes: u64,
    /// Retained size in basis points of that side's used heap.
    pub retained_bp: u32,
    /// Class of the accumulation point, when the suspect has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accumulation_point: Option<String>,
    /// Entries of what `held_in` names (a collection's size), else elements of the
    /// accumulation point when it is an array or a collection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accumulation_point_elements: Option<u64>,
    /// Where the memory is held, in the application's terms (the report's `held_in`:
    /// `com.acme.OrderService.ORDERS`), when the report has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_in: Option<String>,
}
