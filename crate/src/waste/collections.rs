//! Empty and sparse collections: instances of the JDK's array-backed collections (or of
//! classes extending them, read through the fields of the JDK class they extend) whose
//! size is 0 while they hold an allocated backing array, and the fill ratio (size /
//! capacity) of the others, per class, as MAT's collection fill ratio reads them.
//!
//! Field layouts differ by JDK and by Android release; each kind accepts the names they
//! use: `ArrayList` `size` + `elementData` (Android before 7: `array`); `Vector`
//! `elementCount` + `elementData`; `ArrayDeque` `elements` + `head` + `tail`; `HashMap`,
//! `WeakHashMap`, `IdentityHashMap` `size` + `table`; `Hashtable` `count` (old Android:
//! `size`) + `table`; `ConcurrentHashMap` (JDK 8+) `baseCount` + `table` (with
//! `counterCells` set the size is `baseCount` plus the cells' values, as the JDK sums it:
//! [`super::counter_cells`]); `HashSet` `map` (old
//! Android: `backingMap`), read through its map. A class whose base lacks those fields
//! (e.g. JDK 7's segmented `ConcurrentHashMap`) is not reported.
//!
//! Pass 2 notes per collection instance its object, its size and its backing array (12
//! bytes), and the length of every object array of a `java.*` class or `Object[]` (8
//! bytes): capacities are those lengths. Grouping is linear plus a sort of those lengths
//! when the dump is not in address order.

use crate::index::layout::own_fields;
use crate::index::Index;
use crate::records::basic_type;
use crate::records::cursor::be_id;

/// What a collection class is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    ArrayList,
    Vector,
    ArrayDeque,
    HashMap,
    WeakHashMap,
    IdentityHashMap,
    Hashtable,
    ConcurrentHashMap,
    HashSet,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::ArrayList => "ArrayList",
            Kind::Vector => "Vector",
            Kind::ArrayDeque => "ArrayDeque",
            Kind::HashMap => "HashMap",
            Kind::WeakHashMap => "WeakHashMap",
            Kind::IdentityHashMap => "IdentityHashMap",
            Kind::Hashtable => "Hashtable",
            Kind::ConcurrentHashMap => "ConcurrentHashMap",
            Kind::HashSet => "HashSet",
        }
    }
}

const BASES: [(&str, Kind); 9] = [
    ("java.util.ArrayList", Kind::ArrayList),
    ("java.util.Vector", Kind::Vector),
    ("java.util.ArrayDeque", Kind::ArrayDeque),
    ("java.util.HashMap", Kind::HashMap),
    ("java.util.WeakHashMap", Kind::WeakHashMap),
    ("java.util.IdentityHashMap", Kind::IdentityHashMap),
    ("java.util.Hashtable", Kind::Hashtable),
    ("java.util.concurrent.ConcurrentHashMap", Kind::ConcurrentHashMap),
    ("java.util.HashSet", Kind::HashSet),
];

/// How an instance's field data gives its size and backing array (byte offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub kind: Kind,
    /// `size`-like int field (`baseCount`, a long, for `ConcurrentHashMap`).
    size: Option<usize>,
    /// The backing array (for `HashSet`: the map).
    array: usize,
    /// `ArrayDeque`'s `head` and `tail`.
    head_tail: Option<(usize, usize)>,
    /// `ConcurrentHashMap.counterCells`.
    cells: Option<usize>,
}

impl Layout {
    /// A `ConcurrentHashMap`'s `baseCount` and `counterCells` offsets.
    pub fn counter_fields(&self) -> Option<(usize, usize)> {
        match (self.kind, self.size, self.cells) {
            (Kind::ConcurrentHashMap, Some(base), Some(cells)) => Some((base, cells)),
            _ => None,
        }
    }
}

/// Size meaning "not read from the instance" ([`Entry::size`]).
pub const SIZE_UNKNOWN: u32 = u32::MAX;

/// One collection instance as pass 2 saw it. 12 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct Entry {
    pub obj: u32,
    /// Its size; [`SIZE_UNKNOWN`]; for an `ArrayDeque` `tail − head` (wrapping), for a
    /// `HashSet` unused (its map's is used).
    pub size: u32,
    /// Object index of the backing array (for a `HashSet`, of its map), or `u32::MAX`.
    pub array: u32,
}

/// Per class: its collection layout, if it is one.
pub fn layouts(index: &Index) -> Vec<Option<Layout>> {
    let table = &index.classes;
    let id_size = index.header.id_size;
    (0..table.classes.len() as u32)
        .map(|c| {
            // The first class of the chain that is a known collection, and where its fields begin.
            for (k, depth, at) in table.chain_starts(c, id_size) {
                let k_info = &table.classes[k as usize];
                if let Some(&(_, kind)) = BASES.iter().find(|b| b.0 == k_info.name) {
                    let field = |names: &[&str], ty: u8| {
                        own_fields(k_info, k, depth, at, id_size)
                            .find(|f| index.field_is(f.decl, ty, names))
                            .map(|f| f.offset)
                    };
                    let (o, i, l) = (basic_type::OBJECT, basic_type::INT, basic_type::LONG);
                    let layout = match kind {
                        Kind::ArrayList => Layout {
                            kind,
                            size: field(&["size"], i),
                            array: field(&["elementData", "array"], o)?,
                            head_tail: None,
                            cells: None,
                        },
                        Kind::Vector => Layout {
                            kind,
                            size: field(&["elementCount"], i),
                            array: field(&["elementData"], o)?,
                            head_tail: None,
                            cells: None,
                        },
                        Kind::ArrayDeque => Layout {
                            kind,
                            size: None,
                            array: field(&["elements"], o)?,
                            head_tail: Some((field(&["head"], i)?, field(&["tail"], i)?)),
                            cells: None,
                        },
                        Kind::HashMap | Kind::WeakHashMap | Kind::IdentityHashMap => Layout {
                            kind,
                            size: field(&["size"], i),
                            array: field(&["table"], o)?,
                            head_tail: None,
                            cells: None,
                        },
                        Kind::Hashtable => Layout {
                            kind,
                            size: field(&["count", "size"], i),
                            array: field(&["table"], o)?,
                            head_tail: None,
                            cells: None,
                        },
                        Kind::ConcurrentHashMap => Layout {
                            kind,
                            size: field(&["baseCount"], l),
                            array: field(&["table"], o)?,
                            head_tail: None,
                            cells: field(&["counterCells"], o),
                        },
                        Kind::HashSet => Layout {
                            kind,
                            size: None,
                            array: field(&["map", "backingMap"], o)?,
                            head_tail: None,
                            cells: None,
                        },
                    };
                    // A list or map must have its size (a deque has head and tail).
                    return (layout.size.is_some() || matches!(kind, Kind::ArrayDeque | Kind::HashSet))
                        .then_some(layout);
                }
            }
            None
        })
        .collect()
}

/// Per class: whether its object arrays may back a collection (their lengths are kept):
/// `Object[]` and arrays of `java.*` classes.
pub fn backing_array_classes(index: &Index) -> Vec<bool> {
    index
        .classes
        .classes
        .iter()
        .map(|c| c.name.ends_with("[]") && (c.name.starts_with("java.") || c.name == "java.lang.Object[]"))
        .collect()
}

/// The entry of an instance with layout `l`, from its field data.
pub fn entry(l: &Layout, obj: u32, fields: &[u8], ids: &crate::index::ids::IdMap, id_size: usize) -> Entry {
    let int = |at: usize| fields.get(at..at + 4).map(|b| u32::from_be_bytes(b.try_into().expect("4 bytes")));
    let reference = |at: usize| {
        let id = if at + id_size <= fields.len() { be_id(fields, at, id_size) } else { 0 };
        if id == 0 {
            u32::MAX
        } else {
            ids.index_of(id).unwrap_or(u32::MAX)
        }
    };
    let array = reference(l.array);
    let size = match (l.kind, l.size, l.head_tail) {
        (Kind::ArrayDeque, _, Some((h, t))) => match (int(h), int(t)) {
            (Some(h), Some(t)) => t.wrapping_sub(h),
            _ => SIZE_UNKNOWN,
        },
        (Kind::HashSet, _, _) => SIZE_UNKNOWN,
        (Kind::ConcurrentHashMap, Some(at), _) => {
            let cells = l.cells.map_or(u32::MAX, reference);
            match fields.get(at..at + 8) {
                Some(b) if cells == u32::MAX => {
                    u32::try_from(i64::from_be_bytes(b.try_into().expect("8 bytes")).max(0)).unwrap_or(SIZE_UNKNOWN - 1)
                }
                _ => SIZE_UNKNOWN,
            }
        }
        (_, Some(at), _) => match int(at) {
            Some(s) if (s as i32) >= 0 => s,
            _ => SIZE_UNKNOWN,
        },
        _ => SIZE_UNKNOWN,
    };
    Entry { obj, size, array }
}

/// One class's figures before its sample is described.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    pub class: u32,
    pub kind: Option<Kind>,
    pub total: u64,
    pub empty: u64,
    pub wasted: u64,
    pub empty_unallocated: u64,
    pub non_empty: u64,
    /// Sum of the non-empty ones' fill ratios in basis points (for the average).
    pub fill_bp_sum: u64,
    pub histogram: [u64; 5],
    pub unused_slot_bytes: u64,
    pub size_unknown: u64,
    pub shallow: u64,
    pub backing: u64,
    pub sample: Vec<u32>,
}

/// Per class with kept instances: the rows, by wasted bytes, then class index. `lens` is
/// (object array, length), any order; `kept` says which objects count; a map that a
/// kept `HashSet` reads through counts for the set only. `marks` gets the empty
/// collections' backing arrays (for the top components' waste).
#[allow(clippy::too_many_arguments)]
pub fn group(
    entries: &mut [Entry],
    lens: &mut Vec<(u32, u32)>,
    layouts: &[Option<Layout>],
    class_of: impl Fn(u32) -> u32,
    shallow: impl Fn(u32) -> u64,
    kept: impl Fn(u32) -> bool,
    ref_size: u64,
    marks: &mut super::marks::Marks,
) -> Vec<Row> {
    if !lens.windows(2).all(|w| w[0].0 < w[1].0) {
        lens.sort_unstable();
        lens.dedup_by_key(|p| p.0);
    }
    let len_of = |a: u32| lens.binary_search_by_key(&a, |p| p.0).ok().map(|k| lens[k].1);
    // Entries by object (already so in address-ordered dumps): a set finds its map.
    if !entries.windows(2).all(|w| w[0].obj < w[1].obj) {
        entries.sort_unstable_by_key(|e| e.obj);
    }
    let entries: &[Entry] = entries;
    let find = |obj: u32| entries.binary_search_by_key(&obj, |e| e.obj).ok().map(|k| entries[k]);
    let layout_of = |obj: u32| layouts.get(class_of(obj) as usize).copied().flatten();
    // Maps read through a kept set (each counts for its set, not as a map of its own).
    let mut owned_maps: Vec<u32> = Vec::new();
    for e in entries {
        if kept(e.obj) && layout_of(e.obj).is_some_and(|l| l.kind == Kind::HashSet) && e.array != u32::MAX {
            owned_maps.push(e.array);
        }
    }
    owned_maps.sort_unstable();
    let mut rows: Vec<Row> = Vec::new();
    for e in entries {
        let (obj, array) = (e.obj, e.array);
        if !kept(obj) || owned_maps.binary_search(&obj).is_ok() {
            continue;
        }
        let Some(layout) = layout_of(obj) else { continue };
        let class = class_of(obj);
        let k = match rows.binary_search_by_key(&class, |r| r.class) {
            Ok(k) => k,
            Err(k) => {
                rows.insert(k, Row { class, kind: Some(layout.kind), ..Row::default() });
                k
            }
        };
        let row = &mut rows[k];
        row.total += 1;
        row.shallow += shallow(obj);
        // A set: its map's size and table (a map of an unknown layout: size unknown).
        let (size, array, kind) = if layout.kind == Kind::HashSet {
            match find(array).and_then(|m| layout_of(m.obj).filter(|l| l.kind != Kind::HashSet).map(|l| (m, l))) {
                Some((m, l)) => (m.size, m.array, l.kind),
                None if array == u32::MAX => (0, u32::MAX, Kind::HashMap),
                None => (SIZE_UNKNOWN, u32::MAX, Kind::HashMap),
            }
        } else {
            (e.size, array, layout.kind)
        };
        let capacity = if array == u32::MAX { Some(0) } else { len_of(array) };
        let Some(capacity) = capacity else {
            // A backing object that is not an array of the dump.
            row.size_unknown += 1;
            continue;
        };
        if array != u32::MAX {
            row.backing += shallow(array);
        }
        // Slots a table has per element: IdentityHashMap keeps keys and values in it.
        let (slots, per) = if kind == Kind::IdentityHashMap { (capacity as u64 / 2, 2) } else { (capacity as u64, 1) };
        let size = match (kind, size) {
            (_, SIZE_UNKNOWN) => {
                row.size_unknown += 1;
                continue;
            }
            (Kind::ArrayDeque, d) if (d as i32) < 0 => (d as i32 as i64 + capacity as i64).max(0) as u64,
            (_, s) => s as u64,
        };
        if size == 0 {
            if slots == 0 {
                row.empty_unallocated += 1;
            } else {
                row.empty += 1;
                row.wasted += shallow(array);
                marks.set(array);
                if row.sample.len() < super::strings::SAMPLE {
                    row.sample.push(obj);
                }
            }
            continue;
        }
        if slots == 0 {
            // A size without a table (a map being built, an odd layout): no ratio.
            row.size_unknown += 1;
            continue;
        }
        row.non_empty += 1;
        let bp = (size * 10_000 / slots).min(10_000);
        row.fill_bp_sum += bp;
        // Bands up to 20%, 40%, …: (bp − 1) / 2000, so exactly 20% is in the first.
        row.histogram[((bp.max(1) - 1) / 2000).min(4) as usize] += 1;
        row.unused_slot_bytes += slots.saturating_sub(size) * per * ref_size;
    }
    rows.sort_by(|x, y| y.wasted.cmp(&x.wasted).then(x.class.cmp(&y.class)));
    rows
}
