//! The members of one duplicate-string group and what holds each of them: the page's
//! Waste view opens a group of the report (named by one of its strings) into its strings,
//! each with its referrers.
//!
//! Terms: a *member* is a kept `java.lang.String` whose value reads, as Eclipse MAT shows
//! it ([`crate::readback::strings::Decoding::Mat`]: at most 1024 characters, then "..."),
//! the same text as the string asked about (the group's value is then written as the
//! program holds it, as the report writes it); its *holders* are its referrers (the
//! referrer index, [`crate::holders`]), each with the field names it holds the string by.
//!
//! Cost: one scan of the class column for the strings whose value array has the asked
//! string's array size (equal texts read the same way have equal arrays; a value cut at
//! 1024 characters, or a JDK ≤ 6 window of a longer array, can have any array, then every
//! string is a candidate), then one forward walk over the parts of the dump that hold the
//! candidates and their arrays ([`crate::readback::locate::read_fields`]; for windows two,
//! the strings' fields first, then each array up to the window's end), then the referrer
//! index for the page of members listed. Nothing per object is kept.
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
use crate::readback::locate::{read_arrays_each, read_fields, ArrayData};
use crate::readback::strings::{text, ByteOrder, Decoding, Display, Fields, Layout};
use crate::records::basic_type;

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

fn layout(a: &Analysis, class: u32) -> Option<Layout> {
    Layout::of(&a.heap.index, class)
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

/// Reads the primitive arrays `arrays` (ascending, distinct), each with its first
/// `limits[i]` bytes.
fn read_windows(a: &mut Analysis, arrays: &[u32], limits: &[usize]) -> Result<Vec<Option<ArrayData>>> {
    let Some(source) = a.source.take() else { return Ok(vec![None; arrays.len()]) };
    let (source, data) = read_arrays_each(&a.heap.index, source, arrays, limits)?;
    a.source = Some(source);
    Ok(data)
}

/// Bytes of a value array read when the String's fields are not known yet: as much as
/// MAT shows of a String that reads the whole array (1024 characters of two bytes, and
/// one more to see the cut).
const WHOLE_ARRAY_BYTES: usize = 2 * MAX_VALUE_CHARS + 2;

/// The strings `pairs` (string, value array) read back, each with its class's layout
/// (`layouts`, per class): each one's fields and its array. One walk; when a String reads
/// a window of its array, two (the fields say how far into its array each reads).
fn strings_read_back(
    a: &mut Analysis,
    layouts: &[Option<Layout>],
    pairs: &[(u32, u32)],
) -> Result<Vec<Option<(Fields, ArrayData)>>> {
    let id_size = a.heap.index.header.id_size;
    let layout_of = |a: &Analysis, s: u32| layouts.get(a.class_of(s) as usize).copied().flatten();
    let windows = pairs.iter().any(|&(s, _)| layout_of(a, s).is_some_and(|l| l.is_window()));
    let mut objects: Vec<u32> =
        pairs.iter().flat_map(|&(s, arr)| [Some(s), (!windows).then_some(arr)]).flatten().collect();
    objects.sort_unstable();
    objects.dedup();
    let (fields, mut arrays) = read_back(a, &objects, WHOLE_ARRAY_BYTES)?;
    let of: Vec<Option<Fields>> = pairs
        .iter()
        .map(|&(s, _)| {
            let f = objects.binary_search(&s).ok().and_then(|k| fields[k].as_ref())?;
            Some(layout_of(a, s)?.read(f, id_size)?.1)
        })
        .collect();
    if windows {
        let mut wanted: Vec<(u32, usize)> = pairs
            .iter()
            .zip(&of)
            .filter_map(|(&(_, arr), f)| Some((arr, f.as_ref()?.bytes_bound(MAX_VALUE_CHARS))))
            .collect();
        wanted.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
        wanted.dedup_by_key(|w| w.0);
        let (ids, limits): (Vec<u32>, Vec<usize>) = wanted.into_iter().unzip();
        arrays = read_windows(a, &ids, &limits)?;
        objects = ids;
    }
    Ok(pairs
        .iter()
        .zip(of)
        .map(|(&(_, arr), f)| Some((f?, objects.binary_search(&arr).ok().and_then(|k| arrays[k].clone())?)))
        .collect())
}

/// The text of a string with fields `f` and value array `array`, as `decoding` reads it
/// (None: none, e.g. MAT cannot read an ART string of odd length).
fn text_of(f: &Fields, array: &ArrayData, order: ByteOrder, decoding: Decoding) -> Option<String> {
    text(f, array.ty, array.len, &array.data, order, decoding, Display::Mat, MAX_VALUE_CHARS)
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
    let layouts: Vec<Option<Layout>> = (0..a.class_count() as u32).map(|c| layout_of(a, c)).collect();
    let order = ByteOrder::of(&a.heap.index);
    // Members are grouped by MAT's text; the value is written as the program holds it.
    let (value, key) = match strings_read_back(a, &layouts, &[(string, target_array)])?.pop().flatten() {
        Some((f, arr)) => (text_of(&f, &arr, order, Decoding::Runtime), text_of(&f, &arr, order, Decoding::Mat)),
        None => (None, None),
    };
    let (Some(value), Some(key)) = (value, key) else { return Err(no_value()) };
    // Equal texts of fewer than 1024 characters, read as one String class reads them, have
    // value arrays of one shallow size (the analysis groups by value and reading too).
    let exact_size = !l.is_window() && !key.ends_with("...");
    let target_size = a.shallow(target_array);
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
        let read = strings_read_back(a, &layouts, &candidates)?;
        for (&(s, _), r) in candidates.iter().zip(read) {
            let same = r.is_some_and(|(f, d)| text_of(&f, &d, order, Decoding::Mat).as_deref() == Some(key.as_str()));
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
