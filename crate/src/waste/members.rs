//! The members of one duplicate-string group and what holds each of them: the page's
//! Waste view opens a group of the report (named by one of its strings) into its strings,
//! each with its referrers.
//!
//! Terms: a *member* is a kept `java.lang.String` whose value reads, as Eclipse MAT shows
//! it ([`crate::readback::strings::mat_value`]: at most 1024 characters, then "..."), the
//! same text as the string asked about; its *holders* are its referrers (the referrer
//! index, [`crate::holders`]), each with the field names it holds the string by.
//!
//! Cost: one scan of the class column for the strings whose value array has the asked
//! string's array size (equal texts read the same way have equal arrays; a value cut at
//! 1024 characters, or a JDK ≤ 6 window of a longer array, can have any array, then every
//! string is a candidate), then one forward walk over the parts of the dump that hold the
//! candidates and their arrays ([`crate::readback::locate::read_fields`]), then the
//! referrer index for the page of members listed. Nothing per object is kept.
//!
//! A duplicate-*array* group ([`array_group_members`]) is named by one of its arrays: its
//! members are the kept primitive arrays of the same class and shallow size whose
//! contents are equal, byte for byte, and that no `java.lang.String` reads (those are
//! duplicate strings), as the report groups them ([`crate::waste::arrays`]). Cost: one
//! scan of the class column, one scan of the strings' references, then forward walks
//! reading the candidates back (at most [`ARRAY_BATCH_BYTES`] of them at a time).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::strings::MAX_VALUE_CHARS;
use crate::analysis::{object_ref, Analysis};
use crate::error::{Error, Result};
use crate::graph::NO_CLASS;
use crate::holders::referrer_index::ReferrerIndex;
use crate::model::ObjectRef;
use crate::query::paths::via;
use crate::query::referrers::referrers;
use crate::readback::locate::{read_fields, ArrayData};
use crate::readback::strings::mat_value;
use crate::records::basic_type;
use crate::rules::strings::{reading, STRING_FIELDS};

/// Holders listed per member at most.
pub const MAX_HOLDERS: u32 = 20;

/// One string of a duplicate group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GroupMember {
    pub object: ObjectRef,
    /// Kept objects referencing the string (each counted once).
    pub holders_total: u64,
    /// The holders retaining the most (at most the number asked for), largest first.
    pub holders: Vec<Holder>,
}

/// An object holding a string, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Holder {
    pub object: ObjectRef,
    /// The fields (or `[index]`, `<class>`…) by which it references the string.
    pub via: Vec<String>,
}

/// A page of the members of the duplicate-string group of one string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GroupMembers {
    /// The group's value as MAT shows it.
    pub value: String,
    /// Every member of the group (the report's `count`).
    pub total: u64,
    pub offset: u64,
    /// Members from `offset`, by address (the first of the group is the one not counted as
    /// waste).
    pub members: Vec<GroupMember>,
}

/// Where a String class keeps its value in an instance's field bytes.
#[derive(Debug, Clone, Copy)]
struct Layout {
    coder: Option<usize>,
    /// `offset` and `count` (JDK ≤ 6, old Android): the value is a window of the array.
    window: Option<(usize, usize)>,
}

fn layout(a: &Analysis, class: u32) -> Option<Layout> {
    if a.class_name(class) != "java.lang.String" {
        return None;
    }
    let [value, coder, offset, count] = a.heap.index.field_offsets(class, STRING_FIELDS);
    value?;
    Some(Layout { coder, window: offset.zip(count) })
}

/// The byte[] or char[] a string references (its value array), found in the graph.
fn value_array(a: &Analysis, s: u32) -> Option<u32> {
    let text_arrays = [basic_type::BYTE, basic_type::CHAR]
        .map(|t| a.heap.index.primitive_array_class[t as usize].unwrap_or(NO_CLASS));
    let mut found = None;
    a.heap.refs.for_each(s, |t| {
        if found.is_none() && text_arrays.contains(&a.class_of(t)) {
            found = Some(t);
        }
    });
    found
}

/// Per object asked: its field bytes (instances) and its first bytes (primitive arrays).
type ReadBack = (Vec<Option<Vec<u8>>>, Vec<Option<ArrayData>>);

/// Reads the records of `objects` (ascending indices) in one forward walk: instances'
/// field bytes and primitive arrays' first `max_bytes` bytes.
fn read_back(a: &mut Analysis, objects: &[u32], max_bytes: usize) -> Result<ReadBack> {
    let Some(source) = a.source.take() else { return Ok((vec![None; objects.len()], vec![None; objects.len()])) };
    let (source, arrays, fields) = read_fields(&a.heap.index, source, objects, max_bytes)?;
    a.source = Some(source);
    Ok((fields, arrays))
}

/// The text MAT shows for a string, from its field bytes and its value array's data
/// (None: MAT shows none, e.g. a byte[] of odd length read two bytes per character).
fn text_of(l: &Layout, fields: &[u8], array: &ArrayData) -> Option<String> {
    let int = |at: usize| fields.get(at..at + 4).map(|b| u32::from_be_bytes(b.try_into().expect("4 bytes")));
    if let Some((offset, count)) = l.window {
        let unit = if array.ty == basic_type::CHAR { 2 } else { 1 };
        let (from, count) = (int(offset)? as usize, int(count)? as usize);
        let window = array.data.get(from * unit..(from + count) * unit)?;
        return Some(mat_value(
            &ArrayData { ty: array.ty, len: count as u32, data: window.to_vec() },
            reading::NO_CODER,
        ));
    }
    let coder = match l.coder {
        Some(at) => fields.get(at).copied().unwrap_or(reading::LATIN1).min(reading::UTF16),
        None => reading::NO_CODER,
    };
    if array.ty == basic_type::BYTE && coder != reading::LATIN1 && array.len % 2 == 1 {
        return None;
    }
    Some(mat_value(array, coder))
}

/// Strings read back per forward walk (bounds the field bytes and array heads held).
const BATCH: usize = 1 << 15;

/// The members of the duplicate-string group of `string` (a kept `java.lang.String`),
/// by address: how many, and from `offset` at most `limit`, each with at most `holders`
/// of its holders (the referrers retaining the most).
pub fn group_members(
    a: &mut Analysis,
    index: &ReferrerIndex,
    string: u32,
    offset: usize,
    limit: usize,
    holders: usize,
) -> Result<GroupMembers> {
    let address = a.address(string);
    let class = a.class_of(string);
    let layout_of = |a: &Analysis, c: u32| if c == NO_CLASS { None } else { layout(a, c) };
    let l = layout_of(a, class)
        .filter(|_| a.is_kept(string))
        .ok_or_else(|| Error::query(format!("0x{address:x} is not a kept java.lang.String")))?;
    let no_value =
        || Error::query(format!("0x{address:x} has no value MAT shows (its value array is missing or unreadable)"));
    let target_array = value_array(a, string).ok_or_else(no_value)?;
    // The whole array for a window (its characters can be anywhere in it); else as much
    // as MAT shows (1024 characters of two bytes, and one more to see the cut).
    let max_bytes = if l.window.is_some() { usize::MAX } else { 2 * MAX_VALUE_CHARS + 2 };
    let mut pair = [string, target_array];
    pair.sort_unstable();
    let (fields, arrays) = read_back(a, &pair, max_bytes)?;
    let (si, ai) = if pair[0] == string { (0, 1) } else { (1, 0) };
    let value = match (&fields[si], &arrays[ai]) {
        (Some(f), Some(arr)) => text_of(&l, f, arr),
        _ => None,
    }
    .ok_or_else(no_value)?;
    // Equal texts of fewer than 1024 characters, read as one String class reads them, have
    // value arrays of one shallow size (the analysis groups by value and reading too).
    let exact_size = l.window.is_none() && !value.ends_with("...");
    let target_size = a.shallow(target_array);
    let layouts: Vec<Option<Layout>> = (0..a.class_count() as u32).map(|c| layout_of(a, c)).collect();
    let mut candidates: Vec<(u32, u32)> = Vec::new();
    let (mut total, mut members) = (0u64, Vec::new());
    let end = offset.saturating_add(limit);
    let mut v = 0u32;
    let n = a.object_count() as u32;
    while v < n || !candidates.is_empty() {
        if v < n {
            let c = a.class_of(v);
            if c != NO_CLASS && layouts.get(c as usize).is_some_and(|x| x.is_some()) && a.is_kept(v) {
                if let Some(arr) = value_array(a, v).filter(|&arr| !exact_size || a.shallow(arr) == target_size) {
                    candidates.push((v, arr));
                }
            }
            v += 1;
            if candidates.len() < BATCH && v < n {
                continue;
            }
        }
        if candidates.is_empty() {
            continue;
        }
        let mut objects: Vec<u32> = candidates.iter().flat_map(|&(s, arr)| [s, arr]).collect();
        objects.sort_unstable();
        objects.dedup();
        let (fields, arrays) = read_back(a, &objects, max_bytes)?;
        for &(s, arr) in &candidates {
            let f = objects.binary_search(&s).ok().and_then(|k| fields[k].as_ref());
            let d = objects.binary_search(&arr).ok().and_then(|k| arrays[k].as_ref());
            let Some(l) = layouts[a.class_of(s) as usize] else { continue };
            let same = match (f, d) {
                (Some(f), Some(d)) => text_of(&l, f, d).as_deref() == Some(value.as_str()),
                _ => false,
            };
            if same {
                if (offset..end).contains(&(total as usize)) {
                    members.push(s);
                }
                total += 1;
            }
        }
        candidates.clear();
    }
    let members = with_holders(a, index, members, holders)?;
    Ok(GroupMembers { value, total, offset: offset as u64, members })
}

/// Each member with at most `holders` of its referrers (those retaining the most) and
/// the fields they hold it by.
fn with_holders(
    a: &mut Analysis,
    index: &ReferrerIndex,
    members: Vec<u32>,
    holders: usize,
) -> Result<Vec<GroupMember>> {
    let mut listed = Vec::with_capacity(members.len());
    for m in members {
        let r = referrers(a, index, m, holders);
        let mut named = Vec::with_capacity(r.largest.len());
        for h in r.largest {
            let holder = crate::query::object(a, &h.address)?;
            named.push(Holder { via: via(a, holder, m)?, object: h });
        }
        listed.push(GroupMember { object: object_ref(a, m), holders_total: r.total, holders: named });
    }
    Ok(listed)
}

/// A page of the members of the duplicate-array group of one primitive array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ArrayGroupMembers {
    /// The arrays' class, e.g. `byte[]`.
    pub class_name: String,
    /// Elements of each array.
    pub length: u64,
    /// Every member of the group (the report's `count`).
    pub total: u64,
    pub offset: u64,
    /// Members from `offset`, by address (the first of the group is the one not counted as
    /// waste).
    pub members: Vec<GroupMember>,
}

/// Bytes of candidate arrays read back per forward walk.
pub const ARRAY_BATCH_BYTES: u64 = 64 << 20;

/// The members of the duplicate-array group of `array` (a kept primitive array that no
/// String reads), by address: how many, and from `offset` at most `limit`, each with at
/// most `holders` of its holders.
pub fn array_group_members(
    a: &mut Analysis,
    index: &ReferrerIndex,
    array: u32,
    offset: usize,
    limit: usize,
    holders: usize,
) -> Result<ArrayGroupMembers> {
    let address = a.address(array);
    let class = a.class_of(array);
    let primitive = a.heap.index.primitive_array_class.contains(&Some(class));
    if class == NO_CLASS || !primitive || !a.is_kept(array) {
        return Err(Error::query(format!("0x{address:x} is not a kept primitive array")));
    }
    let (_, data) = read_back(a, &[array], usize::MAX)?;
    let target = data
        .into_iter()
        .next()
        .flatten()
        .ok_or_else(|| Error::query(format!("0x{address:x} has no contents in the dump")))?;
    let size = a.shallow(array);
    // Kept arrays of the class and size, in object order.
    let mut candidates: Vec<u32> = Vec::new();
    let of_class: Vec<bool> = (0..a.class_count() as u32).map(|c| c == class).collect();
    a.heap.classes.objects_of(&of_class, |v| {
        if a.shallow(v) == size && a.is_kept(v) {
            crate::alloc::try_push(&mut candidates, v, "the duplicate-array candidates")?;
        }
        Ok(())
    })?;
    // Those a String reads (any String of the dump, as pass 2 saw them) are not members.
    let mut backs_string = crate::alloc::try_filled(candidates.len(), false, "the duplicate-array candidates")?;
    let string_class: Vec<bool> = (0..a.class_count() as u32).map(|c| layout(a, c).is_some()).collect();
    a.heap.classes.objects_of(&string_class, |v| {
        if let Some(k) = value_array(a, v).and_then(|arr| candidates.binary_search(&arr).ok()) {
            backs_string[k] = true;
        }
        Ok(())
    })?;
    if candidates.binary_search(&array).is_ok_and(|k| backs_string[k]) {
        return Err(Error::query(format!("0x{address:x} is a String's value: see its duplicate-string group")));
    }
    let mut k = 0;
    candidates.retain(|_| {
        k += 1;
        !backs_string[k - 1]
    });
    drop(backs_string);
    let batch = (ARRAY_BATCH_BYTES / size.max(1)).max(1) as usize;
    let (mut total, mut members) = (0u64, Vec::new());
    let end = offset.saturating_add(limit);
    for chunk in candidates.chunks(batch) {
        let (_, data) = read_back(a, chunk, usize::MAX)?;
        for (&v, d) in chunk.iter().zip(&data) {
            if d.as_ref() == Some(&target) {
                if (offset..end).contains(&(total as usize)) {
                    members.push(v);
                }
                total += 1;
            }
        }
    }
    let members = with_holders(a, index, members, holders)?;
    Ok(ArrayGroupMembers {
        class_name: a.class_name(class).to_string(),
        length: target.len as u64,
        total,
        offset: offset as u64,
        members,
    })
}
