//! Duplicate primitive arrays: kept arrays with data whose type, length and elements are
//! equal, except the value arrays of Strings (duplicate strings count those). A group's
//! arrays all have one shallow size; all but one are waste. All-zero arrays (at least
//! one element, every one zero) are counted apart as well.
//!
//! Pass 1 hashes every primitive array as it streams by ([`super::prehash`],
//! [`super::hash`]; the hash covers the type and the byte length), pass 2 keeps the
//! (hash, object) of those no String reads: 12 bytes per such array. Grouping filters the kept ones in object order, sorts them by
//! hash ([`super::sort::by_hash`]) and walks the runs, keeping the top groups: linear
//! plus the sort.

use crate::readback::locate::ArrayData;
use crate::records::basic_type;

/// Duplicate array groups listed in the report.
pub const TOP_GROUPS: usize = 100;
/// Elements shown in a group's preview.
pub const PREVIEW: usize = 16;

/// Hash bit: every byte of the array is zero (and it has at least one).
pub const ALL_ZERO: u64 = 2;

/// A primitive array backing no String: its contents' hash and its object. 12 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct Entry {
    pub hash: u64,
    pub obj: u32,
}

impl Entry {
    pub fn hash(&self) -> u64 {
        self.hash
    }
    pub fn obj(&self) -> u32 {
        self.obj
    }
}

/// One group before its first array is read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub count: u64,
    pub wasted: u64,
    pub all_zero: bool,
    pub array_shallow: u64,
    /// The first members by address (at most [`super::strings::SAMPLE`]).
    pub sample: Vec<u32>,
}

/// The figures of all groups and the top ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Groups {
    pub arrays: u64,
    pub distinct: u64,
    pub duplicated: u64,
    pub wasted: u64,
    pub all_zero_arrays: u64,
    pub all_zero_bytes: u64,
    pub top: Vec<Group>,
}

fn order(x: &Group, y: &Group) -> std::cmp::Ordering {
    y.wasted.cmp(&x.wasted).then(y.count.cmp(&x.count)).then(x.sample[0].cmp(&y.sample[0]))
}

/// Groups the kept arrays of `entries` (in object order) by contents.
pub fn group(
    entries: &mut Vec<Entry>,
    kept: impl Fn(u32) -> bool,
    shallow: impl Fn(u32) -> u64,
    limit: usize,
    marks: &mut super::marks::Marks,
) -> Groups {
    entries.retain(|e| kept(e.obj()));
    let mut g = Groups { arrays: entries.len() as u64, ..Groups::default() };
    for e in entries.iter() {
        if e.hash() & ALL_ZERO != 0 {
            g.all_zero_arrays += 1;
            g.all_zero_bytes += shallow(e.obj());
        }
    }
    super::sort::by_hash(entries, |e| e.hash());
    let mut i = 0;
    while i < entries.len() {
        let h = entries[i].hash();
        let mut j = i;
        let mut sample: Vec<u32> = Vec::new();
        while j < entries.len() && entries[j].hash() == h {
            let o = entries[j].obj();
            // The lowest addresses (a run comes in no particular order).
            if sample.len() < super::strings::SAMPLE || sample.last().is_some_and(|&l| o < l) {
                let at = sample.partition_point(|&x| x < o);
                sample.insert(at, o);
                sample.truncate(super::strings::SAMPLE);
            }
            j += 1;
        }
        let count = (j - i) as u64;
        let run = i..j;
        i = j;
        g.distinct += 1;
        if count < 2 {
            continue;
        }
        for e in &entries[run] {
            if e.obj() != sample[0] {
                marks.set(e.obj());
            }
        }
        let array_shallow = shallow(sample[0]);
        let wasted = (count - 1) * array_shallow;
        g.duplicated += 1;
        g.wasted += wasted;
        g.top.push(Group { count, wasted, all_zero: h & ALL_ZERO != 0, array_shallow, sample });
        if g.top.len() >= 2 * limit.max(1) {
            g.top.sort_by(order);
            g.top.truncate(limit);
        }
    }
    g.top.sort_by(order);
    g.top.truncate(limit);
    g
}

/// The first elements of an array read back, as text: `1, 2, 3`, chars as `'a'`, then
/// `, …` when there are more.
pub fn preview(a: &ArrayData) -> String {
    let Some(size) = basic_type::primitive_size(a.ty) else { return String::new() };
    let size = size as usize;
    let mut parts: Vec<String> = Vec::new();
    for chunk in a.data.chunks_exact(size).take(PREVIEW) {
        let bits = chunk.iter().fold(0u64, |v, &b| v << 8 | b as u64);
        parts.push(match a.ty {
            basic_type::BOOLEAN => (bits != 0).to_string(),
            basic_type::BYTE => (bits as u8 as i8).to_string(),
            basic_type::SHORT => (bits as u16 as i16).to_string(),
            basic_type::INT => (bits as u32 as i32).to_string(),
            basic_type::LONG => (bits as i64).to_string(),
            basic_type::CHAR => super::boxed::text(4, bits),
            basic_type::FLOAT => super::boxed::text(6, bits),
            _ => super::boxed::text(5, bits),
        });
    }
    let mut s = parts.join(", ");
    if a.len as usize > PREVIEW.min(parts.len()) {
        s.push_str(", …");
    }
    s
}
