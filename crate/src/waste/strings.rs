//! Duplicate strings, as Eclipse MAT groups them: kept `java.lang.String` instances with
//! the same displayed value (at most 1024 characters, then "..."), values with two or
//! more instances. Per value: the strings' shallow sizes, the shallow sizes of their
//! distinct value arrays (strings sharing one array add it once), and the bytes wasted:
//! all of that minus one String and its array (those of the lowest-address instance).
//!
//! The strings arrive in object order ([`super::collect::Collected`]); the kept ones are
//! picked in that order (reading a bitset of the kept objects sequentially), sorted by key
//! ([`super::sort::by_hash`]), and one walk over them groups, keeping the `limit` groups
//! that waste the most: linear in the strings plus the sort and a sort of each group's
//! arrays. Texts are read back from the dump for the kept groups only.

use crate::graph::{Heap, NO_CLASS};
use crate::records::basic_type;

use super::collect::{Collected, LONG, SHARED};
use super::marks::Marks;
use super::Kept;

/// Characters of a value MAT shows (and groups by).
pub const MAX_VALUE_CHARS: usize = crate::readback::strings::MAT_MAX_CHARS;
/// Members of a group remembered as a sample.
pub const SAMPLE: usize = 3;

/// One duplicated value, before its text is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub count: u64,
    pub strings_shallow: u64,
    pub arrays_shallow: u64,
    pub distinct_arrays: u64,
    pub wasted: u64,
    /// The lowest-address instance, its value array and how it reads it: its
    /// [`crate::rules::strings::reading`] and, for a JDK ≤ 6 or old Android String, its
    /// `offset` and `count` in the array.
    pub first: u32,
    pub first_array: u32,
    pub reading: u8,
    pub window: Option<(u32, u32)>,
    /// The first members by address (at most [`SAMPLE`]).
    pub sample: Vec<u32>,
}

/// Duplicate strings before the texts are read.
#[derive(Debug, Clone, Default)]
pub struct Groups {
    /// Kept strings, and those of them whose value could not be read.
    pub strings: u64,
    pub unresolved: u64,
    pub distinct_values: u64,
    pub duplicated_values: u64,
    pub total_wasted: u64,
    /// The groups wasting the most, most first (at most the limit asked for).
    pub top: Vec<Group>,
}

fn order(x: &Group, y: &Group) -> std::cmp::Ordering {
    y.wasted.cmp(&x.wasted).then(y.count.cmp(&x.count)).then(x.first.cmp(&y.first))
}

/// Groups the kept strings by value (sorting `collected.strings` by key, the others
/// dropped).
pub fn group(heap: &Heap, kept: &Kept, collected: &mut Collected, limit: usize, marks: &mut Marks) -> Groups {
    // Entries come in object order: the kept ones are picked sequentially, then sorted by key.
    let kept = |v: u32| kept.has(v);
    collected.strings.retain(|e| kept(e.string()));
    super::sort::by_hash(&mut collected.strings, |e| e.key() & !SHARED);
    let collected: &Collected = collected;
    // With one String class (the usual case) every string has its instance size.
    let string_classes: Vec<&crate::index::classes::ClassInfo> =
        heap.index.classes.classes.iter().filter(|c| c.name == "java.lang.String").collect();
    let one_size = match string_classes[..] {
        [c] => Some(c.instance_size),
        _ => None,
    };
    let shallow_of_string = |s: u32| one_size.unwrap_or_else(|| heap.shallow(s));
    // A string's value array: the byte[] or char[] it references (its only such field).
    let text_arrays =
        [basic_type::BYTE, basic_type::CHAR].map(|t| heap.index.primitive_array_class[t as usize].unwrap_or(NO_CLASS));
    let array_of = |s: u32| {
        let mut found = s;
        heap.refs.for_each(s, |t| {
            if found == s && text_arrays.contains(&heap.class_of(t)) {
                found = t;
            }
        });
        found
    };
    // The array of a string whose entry says other strings share it (few are such).
    let shared_array = |s: u32| collected.shared.binary_search_by_key(&s, |p| p.0).ok().map(|k| collected.shared[k].1);
    let mut g =
        Groups { unresolved: collected.unresolved.iter().filter(|&&s| kept(s)).count() as u64, ..Groups::default() };
    g.strings = g.unresolved;
    let mut arrays: Vec<u32> = Vec::new();
    let entries = &collected.strings;
    let mut i = 0;
    while i < entries.len() {
        let key = entries[i].key() & !SHARED;
        let i_start = i;
        let mut j = i;
        arrays.clear();
        let (mut count, mut strings_shallow) = (0u64, 0u64);
        // The lowest-address member, and whether its array is shared.
        let mut first: Option<(u32, bool)> = None;
        // Kept on the stack: most values have one string, and no group then.
        let mut sample = [u32::MAX; SAMPLE];
        // Members whose array no other string shares: each adds one distinct array. In a
        // group of short values all arrays have one length, hence one shallow size.
        let exact = key & LONG != 0;
        let mut own = 0u64;
        while j < entries.len() && entries[j].key() & !SHARED == key {
            let string = entries[j].string();
            let shared = entries[j].key() & SHARED != 0;
            j += 1;
            count += 1;
            strings_shallow += shallow_of_string(string);
            // The lowest addresses (entries of a group come in no particular order).
            if first.map_or(true, |(f, _)| string < f) {
                first = Some((string, shared));
            }
            if string < sample[SAMPLE - 1] {
                let at = sample.partition_point(|&x| x < string);
                sample.copy_within(at..SAMPLE - 1, at + 1);
                sample[at] = string;
            }
            match shared.then(|| shared_array(string)).flatten() {
                Some(array) => arrays.push(array),
                None if exact => arrays.push(array_of(string)),
                None => own += 1,
            }
        }
        i = j;
        g.strings += count;
        if count >= 1 {
            g.distinct_values += 1;
        }
        let Some((first, first_shared)) = first.filter(|_| count >= 2) else { continue };
        for e in &entries[i_start..i] {
            if e.string() != first {
                marks.set(e.string());
            }
        }
        let first_array = first_shared.then(|| shared_array(first)).flatten().unwrap_or_else(|| array_of(first));
        arrays.sort_unstable();
        arrays.dedup();
        let arrays_shallow: u64 =
            own * heap.shallow(first_array) + arrays.iter().map(|&x| heap.shallow(x)).sum::<u64>();
        let arrays_len = own + arrays.len() as u64;
        let wasted = (strings_shallow + arrays_shallow).saturating_sub(heap.shallow(first) + heap.shallow(first_array));
        g.duplicated_values += 1;
        g.total_wasted += wasted;
        let reading = (key & 3) as u8;
        let window = collected
            .pending
            .binary_search_by_key(&first, |w| w.string)
            .ok()
            .map(|k| (collected.pending[k].offset, collected.pending[k].count));
        let sample = sample.iter().copied().filter(|&x| x != u32::MAX).collect();
        g.top.push(Group {
            count,
            strings_shallow,
            arrays_shallow,
            distinct_arrays: arrays_len,
            wasted,
            first,
            first_array,
            reading,
            window,
            sample,
        });
        if g.top.len() >= 2 * limit.max(1) {
            g.top.sort_by(order);
            g.top.truncate(limit);
        }
    }
    g.top.sort_by(order);
    g.top.truncate(limit);
    g
}
