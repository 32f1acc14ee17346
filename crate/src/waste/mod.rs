//! Memory that holds nothing new: duplicate strings (the same value in several
//! `java.lang.String` objects, as Eclipse MAT groups them), duplicate primitive arrays,
//! empty and sparse collections, boxed numbers; and the allocation sites where a dump
//! records them.
//!
//! Computed in the existing passes: pass 1 hashes every primitive array as it streams by
//! ([`prehash`]; pass 2 then skips the arrays' bodies), pass 2 pairs each hash with its
//! object and notes every String's value array, every boxed value, every collection's
//! size and backing array, and the allocation stack of objects whose dump records one
//! ([`collect`]). Once the reachability walk says which objects are kept (before the
//! dominator tree, so nothing of this is alive at the analysis's peak), each kind is
//! grouped ([`strings`], [`arrays`], [`collections`], [`boxed`], [`sites`]) and only
//! the top groups are kept ([`Found`]); at the end the texts of the groups reported are
//! read back from the dump in one forward walk. Extra memory: 8 bytes per primitive array
//! from pass 1 into pass 2 (freed as pass 2 goes), about 12 bytes per primitive array,
//! String, boxed number and collection during pass 2 and until the grouping, nothing per
//! object after that; every list is filtered and sorted in place.

pub mod arrays;
pub mod boxed;
pub mod collect;
pub mod collections;
pub mod counter_cells;
pub mod hash;
pub mod marks;
pub mod members;
pub mod prehash;
pub mod sink;
pub mod sites;
pub mod sort;
pub mod strings;

use crate::analysis::{object_ref, Analysis};
use crate::bits::BitSet;
use crate::error::Result;
use crate::graph::{Heap, NO_CLASS};
use crate::mapping::Mapping;
use crate::model::waste::*;
use crate::model::ClassCount;
use crate::readback::locate::read_arrays_each;
use crate::readback::strings::{text, ByteOrder, Decoding, Display, Fields};
use crate::rules::strength::UNREACHABLE;
pub use sink::WasteSink;

/// Duplicate string groups listed in the report (MAT's report lists 200).
pub const TOP_STRING_GROUPS: usize = 100;

/// Which objects the report counts: kept objects (with a class), known before the
/// dominator tree from the reachability walk. One bit per object.
pub struct Kept {
    bits: BitSet,
}

impl Kept {
    /// The objects kept in the reading: reachable ones, or every object with a class
    /// when unreachable ones are kept (`all`: MAT's keep-unreachable, or the
    /// strength-aware tree, which holds the garbage too).
    pub fn new(
        heap: &Heap,
        strengths: &(impl std::ops::Index<usize, Output = u8> + ?Sized),
        all: bool,
    ) -> Result<Kept> {
        let bits = BitSet::from_fn(heap.object_count(), "the waste report's kept objects", |v| {
            heap.class_of(v) != NO_CLASS && (all || strengths[v as usize] != UNREACHABLE)
        })?;
        Ok(Kept { bits })
    }

    #[inline]
    pub fn has(&self, v: u32) -> bool {
        self.bits.contains(v)
    }

    /// Kept objects.
    pub fn count(&self) -> u64 {
        self.bits.count() as u64
    }
}

/// What the grouping found, before the report describes it (object indices, numbers).
#[derive(Debug, Clone, Default)]
pub struct Found {
    pub strings: strings::Groups,
    pub arrays: arrays::Groups,
    pub collections: Vec<collections::Row>,
    pub boxed: Vec<boxed::Row>,
    pub sites: sites::Sites,
    /// The objects that are waste (see [`marks`]).
    pub marks: marks::Marks,
}

/// Groups everything pass 2 collected, counting the kept objects only; `collected` is
/// emptied (its per-object vectors freed).
pub fn group(heap: &Heap, kept: &Kept, collected: &mut collect::Collected) -> Found {
    let shallow = |v: u32| heap.shallow(v);
    let has = |v: u32| kept.has(v);
    let mut marks = marks::Marks::new(heap.object_count());
    let strings = strings::group(heap, kept, collected, TOP_STRING_GROUPS, &mut marks);
    let arrays = arrays::group(&mut collected.arrays, has, shallow, arrays::TOP_GROUPS, &mut marks);
    let ref_size = heap.index.layout.ref_size as u64;
    let collections = collections::group(
        &mut collected.collections,
        &mut collected.lens,
        &collected.collection_layouts,
        |v| heap.class_of(v),
        shallow,
        has,
        ref_size,
        &mut marks,
    );
    let boxed = boxed::group(&mut collected.boxed, has, shallow);
    // A site is a trace's top frames: traces that share them are one site.
    let traces = &heap.index.stacks.traces;
    let mut canonical: std::collections::HashMap<&[u64], u32> = std::collections::HashMap::new();
    let site_of: Vec<u32> = traces
        .iter()
        .enumerate()
        .map(|(k, t)| *canonical.entry(&t.frames[..t.frames.len().min(sites::FRAMES)]).or_insert(k as u32))
        .collect();
    let sites = sites::group(
        &collected.sites,
        |t| site_of.get(t as usize).copied().unwrap_or(t),
        has,
        |v| heap.class_of(v),
        shallow,
        if collected.sites.is_empty() { 0 } else { kept.count() },
    );
    *collected = Default::default();
    Found { strings, arrays, collections, boxed, sites, marks }
}

/// The waste report and the allocation sites from what [`group`] found (reads the texts
/// of the listed strings and the first elements of the listed arrays back from the dump,
/// in one forward walk); the sites' frames retraced through `mapping` when one was applied.
pub fn build(a: &mut Analysis, found: Found, mapping: Option<&Mapping>) -> Result<(Waste, AllocationSites)> {
    let Found { strings: groups, arrays: array_groups, collections, boxed, sites, .. } = found;
    // Each array once, read up to the end of the characters shown of the group it heads
    // (the furthest, when several groups' first strings share it).
    let fields: Vec<Fields> = groups.top.iter().map(|g| Fields::of_reading(g.reading, g.window)).collect();
    let mut wanted: Vec<(u32, usize)> = groups
        .top
        .iter()
        .zip(&fields)
        .map(|(g, f)| (g.first_array, f.bytes_bound(strings::MAX_VALUE_CHARS)))
        .chain(array_groups.top.iter().map(|g| (g.sample[0], 2 * strings::MAX_VALUE_CHARS)))
        .collect();
    wanted.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
    wanted.dedup_by_key(|w| w.0);
    let (arrays, limits): (Vec<u32>, Vec<usize>) = wanted.into_iter().unzip();
    let data = match a.source.take() {
        Some(source) => {
            let (source, data) = read_arrays_each(&a.heap.index, source, &arrays, &limits)?;
            a.source = Some(source);
            data
        }
        None => vec![None; arrays.len()],
    };
    let read = |obj: u32| arrays.binary_search(&obj).ok().and_then(|k| data[k].as_ref());
    let order = ByteOrder::of(&a.heap.index);
    let max = strings::MAX_VALUE_CHARS;
    // Each group's text as the program holds it, and as MAT shows it (MAT's order breaks
    // ties by its text).
    let mut out = Vec::with_capacity(groups.top.len());
    for (g, f) in groups.top.iter().zip(&fields) {
        let shown =
            |d: Decoding| read(g.first_array).and_then(|x| text(f, x.ty, x.len, &x.data, order, d, Display::Mat, max));
        let group = StringGroup {
            value: shown(Decoding::Runtime).unwrap_or_default(),
            count: g.count,
            wasted_bytes: g.wasted,
            strings_shallow_bytes: g.strings_shallow,
            arrays_shallow_bytes: g.arrays_shallow,
            distinct_arrays: g.distinct_arrays,
            sample: g.sample.iter().map(|&s| object_ref(a, s)).collect(),
        };
        out.push((shown(Decoding::Mat).unwrap_or_default(), group));
    }
    // MAT's order; ties of waste and count by MAT's text.
    out.sort_by(|(mx, x), (my, y)| {
        y.wasted_bytes.cmp(&x.wasted_bytes).then(y.count.cmp(&x.count)).then(mx.cmp(my)).then(x.value.cmp(&y.value))
    });
    let out: Vec<StringGroup> = out.into_iter().map(|(_, g)| g).collect();
    let mut array_out: Vec<ArrayGroup> = array_groups
        .top
        .iter()
        .map(|g| {
            let d = read(g.sample[0]);
            ArrayGroup {
                class_name: a.class_name(a.class_of(g.sample[0])).to_string(),
                length: d.map_or(0, |d| d.len as u64),
                count: g.count,
                wasted_bytes: g.wasted,
                all_zero: g.all_zero,
                array_shallow_bytes: g.array_shallow,
                preview: d.map(arrays::preview).unwrap_or_default(),
                sample: g.sample.iter().map(|&s| object_ref(a, s)).collect(),
            }
        })
        .collect();
    array_out.sort_by(|x, y| {
        y.wasted_bytes
            .cmp(&x.wasted_bytes)
            .then(y.count.cmp(&x.count))
            .then(x.class_name.cmp(&y.class_name))
            .then(x.length.cmp(&y.length))
            .then(x.sample[0].address.cmp(&y.sample[0].address))
    });
    let mut empty_collections: Vec<CollectionWaste> = collections
        .iter()
        .map(|r| CollectionWaste {
            class_name: a.class_name(r.class).to_string(),
            kind: r.kind.map(|k| k.name()).unwrap_or_default().to_string(),
            total: r.total,
            empty: r.empty,
            wasted_bytes: r.wasted,
            empty_unallocated: r.empty_unallocated,
            non_empty: r.non_empty,
            fill_ratio_bp: r.fill_bp_sum.checked_div(r.non_empty).unwrap_or(0) as u32,
            fill_ratio_histogram: r.histogram.to_vec(),
            unused_slot_bytes: r.unused_slot_bytes,
            size_unknown: r.size_unknown,
            shallow_bytes: r.shallow,
            backing_bytes: r.backing,
            sample: r.sample.iter().map(|&s| object_ref(a, s)).collect(),
        })
        .collect();
    empty_collections.sort_by(|x, y| y.wasted_bytes.cmp(&x.wasted_bytes).then(x.class_name.cmp(&y.class_name)));
    let boxed_out: Vec<BoxedNumbers> = boxed
        .iter()
        .map(|r| BoxedNumbers {
            class_name: boxed::CLASSES[r.which as usize].0.to_string(),
            count: r.count,
            shallow_bytes: r.shallow,
            distinct_values: r.distinct,
            duplicates: r.count - r.distinct,
            wasted_bytes: r.wasted,
            top_values: r.top.iter().map(|&(v, n)| BoxedValue { value: boxed::text(r.which, v), count: n }).collect(),
        })
        .collect();
    let total = groups.total_wasted
        + array_groups.wasted
        + collections.iter().map(|r| r.wasted).sum::<u64>()
        + boxed.iter().map(|r| r.wasted).sum::<u64>();
    let traces = &a.heap.index.stacks.traces;
    let site_out: Vec<AllocationSite> = sites
        .top
        .iter()
        .map(|s| AllocationSite {
            frames: traces
                .get(s.trace as usize)
                .map(|t| {
                    t.frames
                        .iter()
                        .take(sites::FRAMES)
                        .flat_map(|f| match a.heap.index.stacks.frames.get(f) {
                            Some(fr) => crate::threads::frame_texts(a, fr, mapping),
                            None => vec![format!("<unknown frame 0x{f:x}>")],
                        })
                        .collect()
                })
                .unwrap_or_default(),
            objects: s.objects,
            shallow_bytes: s.shallow,
            classes: s
                .classes
                .iter()
                .map(|&(c, n, b)| ClassCount { class_name: a.class_name(c).to_string(), objects: n, shallow_bytes: b })
                .collect(),
        })
        .collect();
    let waste = Waste {
        total_wasted_bytes: total,
        duplicate_strings: DuplicateStrings {
            strings: groups.strings,
            unresolved: groups.unresolved,
            distinct_values: groups.distinct_values,
            duplicated_values: groups.duplicated_values,
            wasted_bytes: groups.total_wasted,
            groups: out,
        },
        duplicate_arrays: DuplicateArrays {
            arrays: array_groups.arrays,
            distinct_contents: array_groups.distinct,
            duplicated_contents: array_groups.duplicated,
            wasted_bytes: array_groups.wasted,
            all_zero_arrays: array_groups.all_zero_arrays,
            all_zero_bytes: array_groups.all_zero_bytes,
            groups: array_out,
        },
        empty_collections,
        boxed: boxed_out,
    };
    let allocation_sites = AllocationSites {
        recorded: sites.recorded,
        objects: sites.objects,
        shallow_bytes: sites.shallow,
        objects_without_site: sites.without,
        distinct_sites: sites.distinct,
        sites: site_out,
    };
    Ok((waste, allocation_sites))
}
