//! Android heaps: ART dumps name the heap (`app`, `image`, `zygote`) that holds the
//! objects of each stretch of the dump with a HEAP DUMP INFO sub-record (0xFE: u4 heap id,
//! id heap name), in force until the next one.
//!
//! Pass 2 notes each object's heap in one byte per object ([`HeapTracker`]), allocated
//! only when the dump has a HEAP DUMP INFO record (HotSpot dumps pay nothing). The byte
//! is needed because the report counts kept objects only, and which objects are kept is
//! known only after reachability: [`summarize`] then counts, per heap and per class and
//! heap, the kept objects and their shallow bytes in one O(objects) scan. At most 255
//! heaps (ART has 4); objects before the first HEAP DUMP INFO, and objects without a
//! record (MAT's pseudo object 0x0), belong to no heap.

use std::collections::BTreeMap;

use crate::alloc::try_filled;
use crate::analysis::{Analysis, Collect};
use crate::error::Result;
use crate::graph::Pass2Sink;
use crate::index::{Index, Pass1Sink};

/// The heap byte of an object of no heap.
pub const NO_HEAP: u8 = u8::MAX;

/// Pass 2's record of the heap each object is in (a [`Pass2Sink`]).
#[derive(Debug, Default)]
pub struct HeapTracker {
    /// Heap id and name string id, by heap number (the byte stored per object).
    heaps_seen: Vec<(u32, u64)>,
    current: u8,
    /// Per object: its heap number (empty until the first HEAP DUMP INFO).
    of: Vec<u8>,
    /// What [`Pass2Sink::walk_done`] made of it.
    heaps: Heaps,
}

impl HeapTracker {
    /// A HEAP DUMP INFO record: the objects that follow are in heap `heap_id`.
    pub fn heap_info(&mut self, heap_id: u32, name_id: u64, objects: usize) -> Result<()> {
        if self.of.is_empty() && objects > 0 {
            self.of = try_filled(objects, NO_HEAP, "the heap of each object")?;
        }
        self.current = match self.heaps_seen.iter().position(|&(id, _)| id == heap_id) {
            Some(k) => k as u8,
            None if self.heaps_seen.len() < NO_HEAP as usize => {
                self.heaps_seen.push((heap_id, name_id));
                (self.heaps_seen.len() - 1) as u8
            }
            // More heaps than a byte can number: the rest count as no heap.
            None => NO_HEAP,
        };
        Ok(())
    }

    /// Object `obj`'s record was read (in the current heap).
    #[inline]
    pub fn object(&mut self, obj: u32) {
        if let Some(h) = self.of.get_mut(obj as usize) {
            *h = self.current;
        }
    }

    /// The heaps found (see [`Pass2Sink::walk_done`]).
    pub fn into_heaps(self) -> Heaps {
        self.heaps
    }
}

impl Pass2Sink for HeapTracker {
    fn heap_info(&mut self, index: &Index, heap_id: u32, name_id: u64) -> Result<()> {
        HeapTracker::heap_info(self, heap_id, name_id, index.ids.len())
    }

    #[inline(always)]
    fn object(&mut self, obj: Option<u32>) {
        if let Some(obj) = obj {
            HeapTracker::object(self, obj);
        }
    }

    fn walk_done(&mut self, index: &Index) -> Result<()> {
        let names = self.heaps_seen.iter().map(|&(_, name)| index.strings.name(name)).collect();
        self.heaps = Heaps { names, of: std::mem::take(&mut self.of) };
        Ok(())
    }
}

impl Pass1Sink for HeapTracker {}

impl Collect for HeapTracker {}

/// The heaps a dump names, and each object's heap.
#[derive(Debug, Default)]
pub struct Heaps {
    /// Heap names by heap number.
    pub names: Vec<String>,
    /// Per object: its heap number, or [`NO_HEAP`]; empty when the dump names no heaps.
    pub of: Vec<u8>,
}

impl Heaps {
    /// The heap of `obj` (None for dumps without heap names, or objects of no heap).
    pub fn of(&self, obj: u32) -> Option<&str> {
        let h = *self.of.get(obj as usize)?;
        self.names.get(h as usize).map(String::as_str)
    }
}

/// Objects and shallow bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count {
    pub objects: u64,
    pub shallow: u64,
}

/// Kept objects per heap, and per class and heap.
#[derive(Debug, Default)]
pub struct Summary {
    /// (heap name, count), in the dump's order of first appearance; heaps with no kept
    /// object are left out, and so are objects of no heap (MAT's pseudo object 0x0, the
    /// bootstrap loader, has no record).
    pub heaps: Vec<(String, Count)>,
    /// Per class index: (position in `heaps`, count), by heap.
    pub by_class: BTreeMap<u32, Vec<(usize, Count)>>,
}

/// Counts the kept objects of `a` per heap; None when the dump names no heaps.
pub fn summarize(a: &Analysis, heaps: &Heaps) -> Option<Summary> {
    if heaps.of.is_empty() {
        return None;
    }
    let slots = heaps.names.len();
    let mut totals = vec![Count::default(); slots];
    let mut by_class: BTreeMap<u32, Vec<Count>> = BTreeMap::new();
    for obj in 0..a.object_count() as u32 {
        if !a.is_kept(obj) {
            continue;
        }
        let h = heaps.of[obj as usize];
        if h == NO_HEAP {
            continue;
        }
        let slot = h as usize;
        let s = a.shallow(obj);
        totals[slot].objects += 1;
        totals[slot].shallow += s;
        let per = by_class.entry(a.class_of(obj)).or_insert_with(|| vec![Count::default(); slots]);
        per[slot].objects += 1;
        per[slot].shallow += s;
    }
    let names = heaps.names.iter().cloned();
    // Position in the summary of each slot that has objects.
    let mut position = vec![usize::MAX; slots];
    let mut out = Summary::default();
    for (slot, (name, count)) in names.zip(totals).enumerate() {
        if count.objects > 0 {
            position[slot] = out.heaps.len();
            out.heaps.push((name, count));
        }
    }
    for (class, per) in by_class {
        let list =
            per.into_iter().enumerate().filter(|(_, c)| c.objects > 0).map(|(slot, c)| (position[slot], c)).collect();
        out.by_class.insert(class, list);
    }
    Some(out)
}
