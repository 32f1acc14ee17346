//! Memory that holds nothing new: duplicate strings (the same value in several
//! `java.lang.String` objects, as Eclipse MAT groups them).
//!
//! Computed in the existing passes: pass 2 hashes every primitive array as it streams by
//! and notes every String's value array ([`collect`]); after the dominator tree (which
//! says what is kept) the strings are grouped by value ([`strings::group`]); at the end
//! the texts of the groups reported are read back from the dump. Extra memory: about 12
//! bytes per primitive array and 13 per String during pass 2, 16 per String until the
//! groups are formed, nothing per object after that.

pub mod collect;
pub mod hash;
pub mod model;
pub mod strings;

pub use model::*;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::error::Result;
use crate::report::build::object_ref;
use crate::report::model::ObjectRef;

/// Duplicate string groups listed in the report (MAT's report lists 200).
pub const TOP_STRING_GROUPS: usize = 100;

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

/// The waste report from the string groups formed during the analysis (reads each
/// listed group's text back from the dump).
pub fn build(a: &mut Analysis, groups: strings::Groups) -> Result<Waste> {
    let mut arrays: Vec<u32> = groups.top.iter().map(|g| g.first_array).collect();
    arrays.sort_unstable();
    arrays.dedup();
    let data = match a.source.take() {
        Some(source) => {
            let (source, data) = collect::read_arrays(&a.heap.index, source, &arrays, 2 * strings::MAX_VALUE_CHARS)?;
            a.source = Some(source);
            data
        }
        None => vec![None; arrays.len()],
    };
    let mut out = Vec::with_capacity(groups.top.len());
    for g in &groups.top {
        let array = arrays.binary_search(&g.first_array).ok().and_then(|k| data[k].as_ref());
        out.push(StringGroup {
            value: array.map(|d| strings::value_text(d, g.reading)).unwrap_or_default(),
            count: g.count,
            wasted_bytes: g.wasted,
            strings_shallow_bytes: g.strings_shallow,
            arrays_shallow_bytes: g.arrays_shallow,
            distinct_arrays: g.distinct_arrays,
            sample: g.sample.iter().map(|&s| object_ref(a, s)).collect(),
        });
    }
    // MAT's order; ties of waste and count by value.
    out.sort_by(|x, y| y.wasted_bytes.cmp(&x.wasted_bytes).then(y.count.cmp(&x.count)).then(x.value.cmp(&y.value)));
    Ok(Waste {
        total_wasted_bytes: groups.total_wasted,
        duplicate_strings: DuplicateStrings {
            strings: groups.strings,
            unresolved: groups.unresolved,
            distinct_values: groups.distinct_values,
            duplicated_values: groups.duplicated_values,
            wasted_bytes: groups.total_wasted,
            groups: out,
        },
        ..Waste::default()
    })
}
