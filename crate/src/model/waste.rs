//! The waste report, as data (see [`crate::waste`]): duplicate strings and primitive
//! arrays, empty and sparse collections, boxed numbers, and allocation sites. Every list
//! is bounded (top N with totals, or one row per collection/boxed class).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::report::{ClassCount, ObjectRef};

/// The waste report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Waste {
    /// Bytes that could be saved, all kinds together: duplicate strings and arrays (each
    /// value held once), empty collections' backing arrays, duplicate boxed numbers.
    pub total_wasted_bytes: u64,
    pub duplicate_strings: DuplicateStrings,
    #[serde(default)]
    pub duplicate_arrays: DuplicateArrays,
    /// One row per collection class with kept instances, by wasted bytes, then name.
    #[serde(default)]
    pub empty_collections: Vec<CollectionWaste>,
    /// One row per boxed-number class with kept instances, by wasted bytes, then name.
    #[serde(default)]
    pub boxed: Vec<BoxedNumbers>,
}

/// Strings with equal values, grouped as MAT groups them: by the value MAT shows (at most
/// 1024 characters), values held by two or more kept `java.lang.String` objects.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DuplicateStrings {
    /// Kept `java.lang.String` objects.
    pub strings: u64,
    /// Of those, the ones whose value array is missing from the dump (not grouped).
    pub unresolved: u64,
    pub distinct_values: u64,
    /// Values held by two or more strings.
    pub duplicated_values: u64,
    /// Bytes wasted by all duplicated values.
    pub wasted_bytes: u64,
    /// The values wasting the most (at most 100), by wasted bytes, then count, then value.
    pub groups: Vec<StringGroup>,
}

/// One duplicated string value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StringGroup {
    /// The value as MAT shows it: characters outside 32–126 as `\uXXXX`, at most 1024
    /// characters, then "...".
    pub value: String,
    /// Strings holding it (an interned literal counts too).
    pub count: u64,
    /// All the strings and their distinct value arrays but one String and its array.
    pub wasted_bytes: u64,
    pub strings_shallow_bytes: u64,
    /// Shallow sizes of the distinct value arrays (strings sharing one array add it once).
    pub arrays_shallow_bytes: u64,
    pub distinct_arrays: u64,
    /// The first strings by address (at most 3); the first is the one not counted as waste.
    pub sample: Vec<ObjectRef>,
}

/// Primitive arrays with identical contents: kept arrays of one type and length with the
/// same elements, not the value array of a `java.lang.String` (those are duplicate
/// strings). Per group: all the arrays but one are waste.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DuplicateArrays {
    /// Kept primitive arrays whose contents the dump holds, backing no String.
    pub arrays: u64,
    /// Different contents among them.
    pub distinct_contents: u64,
    /// Contents held by two or more arrays (the groups).
    pub duplicated_contents: u64,
    /// Bytes wasted by all groups: every array of a group but one.
    pub wasted_bytes: u64,
    /// Of `arrays`, those with at least one element, every element zero (`0`, `false`,
    /// `'\0'`, `0.0`): allocated and never written, or cleared.
    pub all_zero_arrays: u64,
    /// Their shallow bytes.
    pub all_zero_bytes: u64,
    /// The groups wasting the most (at most 100), by wasted bytes, then count, then
    /// class name and length.
    pub groups: Vec<ArrayGroup>,
}

/// One content held by several primitive arrays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArrayGroup {
    /// The arrays' class, e.g. `byte[]`.
    pub class_name: String,
    /// Elements of each array.
    pub length: u64,
    /// Arrays holding these contents.
    pub count: u64,
    /// All of them but one: (count − 1) × the shallow size of one.
    pub wasted_bytes: u64,
    /// Every element is zero (and there is at least one).
    pub all_zero: bool,
    /// Shallow size of one of the arrays.
    pub array_shallow_bytes: u64,
    /// The first elements as text (at most 16, then "…"): `1, 2, 3`, characters of a
    /// `char[]` as `'a'`.
    pub preview: String,
    /// The first arrays by address (at most 3); the first is the one not counted as waste.
    pub sample: Vec<ObjectRef>,
}

/// One collection class (a JDK collection, or a class extending one, read through the
/// fields of the JDK class it extends): how many of its kept instances hold nothing in
/// an allocated backing array, and how full the others are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CollectionWaste {
    pub class_name: String,
    /// What it is read as: `ArrayList`, `Vector`, `ArrayDeque`, `HashMap`, `HashSet`,
    /// `Hashtable`, `ConcurrentHashMap`, `WeakHashMap`, `IdentityHashMap`.
    pub kind: String,
    /// Kept instances.
    pub total: u64,
    /// Of those, with size 0 and a backing array (table) of at least one slot.
    pub empty: u64,
    /// The backing arrays of the empty ones (shallow bytes): what allocating them only
    /// on the first insertion would save.
    pub wasted_bytes: u64,
    /// With size 0 and no backing array (or one of no slots): already lazy.
    pub empty_unallocated: u64,
    /// With a size above 0 and a backing array: the ones whose fill ratio is counted.
    pub non_empty: u64,
    /// Their fill ratio (size / capacity) on average, in basis points (10,000 = full).
    pub fill_ratio_bp: u32,
    /// MAT's collection fill ratio in five bands: how many of the non-empty ones are
    /// filled up to 20%, over 20% to 40%, …, over 80% to 100% (or more, for a hash table
    /// past its capacity).
    pub fill_ratio_histogram: Vec<u64>,
    /// Unused slots of the non-empty ones' backing arrays, in bytes ((capacity − size) ×
    /// the reference size; for a hash table, slots beyond its size).
    pub unused_slot_bytes: u64,
    /// Instances whose size the dump does not say (a size field out of range, a backing
    /// object that is not an array, a `ConcurrentHashMap` whose counter cells are missing):
    /// in `total` only.
    pub size_unknown: u64,
    /// Shallow bytes of the instances.
    pub shallow_bytes: u64,
    /// Shallow bytes of all their backing arrays.
    pub backing_bytes: u64,
    /// The first empty instances with a backing array, by address (at most 3).
    pub sample: Vec<ObjectRef>,
}

/// Boxed primitives of one class (`java.lang.Integer`, `Long`, `Short`, `Byte`,
/// `Character`, `Double`, `Float`, `Boolean`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoxedNumbers {
    pub class_name: String,
    /// Kept instances and their shallow bytes.
    pub count: u64,
    pub shallow_bytes: u64,
    /// Different values among them.
    pub distinct_values: u64,
    /// Instances beyond one per value (`count − distinct_values`).
    pub duplicates: u64,
    /// Their shallow bytes: what one instance per value would save.
    pub wasted_bytes: u64,
    /// The values held by the most instances (at most 10), most first, then by value.
    pub top_values: Vec<BoxedValue>,
}

/// One boxed value and how many instances hold it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoxedValue {
    /// The value as Java prints it (`42`, `-1.5`, `true`, `'a'`; a character outside
    /// 32–126 as `\uXXXX`).
    pub value: String,
    pub count: u64,
}

/// Where the objects were allocated, for dumps that record it (instances carry the
/// serial number of a STACK TRACE with frames: Android with allocation tracking on, or
/// the old hprof agent with `depth > 0`). HotSpot's heap dumps give every object one
/// empty trace: no sites.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllocationSites {
    /// Whether any object carries an allocation stack with frames. When false the dump
    /// recorded no allocation sites and the rest is empty.
    pub recorded: bool,
    /// Kept objects with a recorded allocation stack, and their shallow bytes.
    pub objects: u64,
    pub shallow_bytes: u64,
    /// Kept objects without one (no trace, or a trace of no frames).
    pub objects_without_site: u64,
    /// Distinct sites (allocation stacks, by their top frames).
    pub distinct_sites: u64,
    /// The sites with the most shallow bytes (at most 100), then most objects, then by
    /// frames.
    pub sites: Vec<AllocationSite>,
}

/// One allocation stack (its top frames) and what was allocated there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllocationSite {
    /// The top frames (at most 8), innermost first, as the thread overview prints frames:
    /// `at pkg.Class.method(Lsig;)V (File.java:12)`.
    pub frames: Vec<String>,
    pub objects: u64,
    pub shallow_bytes: u64,
    /// The classes allocated there with the most shallow bytes (at most 5).
    pub classes: Vec<ClassCount>,
}
