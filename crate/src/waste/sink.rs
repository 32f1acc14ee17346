//! The waste report's collection during the passes ([`WasteSink`], an analysis' [`Collect`]): pass 1 hashes every
//! primitive array's body ([`super::prehash`]), pass 2 notes strings, arrays, boxed
//! numbers, collections and allocation sites ([`super::collect`]); after pass 2 the
//! windows of old Strings and the counter cells are read back; once the strength walk
//! says which objects are kept, everything is grouped ([`super::group`]) and the
//! per-object lists are freed, before the dominator tree (the analysis's peak).

use super::collect::{Collected, Collector};
use super::prehash::{ArrayHasher, ArrayHashes};
use super::{Found, Kept};
use crate::analysis::Collect;
use crate::error::{Error, Result};
use crate::graph::{Heap, Pass2Sink};
use crate::index::{Index, Pass1Sink};
use crate::source::ByteSource;

/// Collects for the waste report along the analysis; [`WasteSink::found`] gives what it
/// found.
#[derive(Default)]
pub struct WasteSink {
    hasher: ArrayHasher,
    hashes: Option<ArrayHashes>,
    /// Collects nothing until pass 2 starts (no test per call: it is a field, not an
    /// option).
    collector: Collector,
    collected: Collected,
    kept: Option<Kept>,
    found: Found,
}

impl WasteSink {
    /// What the grouping found (empty before the analysis reached it).
    pub fn found(self) -> Found {
        self.found
    }
}

fn out_of_order() -> Error {
    Error::io("the waste report's collection was called out of order")
}

impl Pass1Sink for WasteSink {
    fn wants_primitive_data(&self) -> bool {
        true
    }

    #[inline]
    fn primitive_array(&mut self, ty: u8) -> Result<()> {
        self.hasher.array(ty)
    }

    #[inline]
    fn primitive_array_data(&mut self, data: &[u8]) {
        self.hasher.data(data);
    }

    fn rewind(&mut self) {
        self.hasher = ArrayHasher::default();
        self.hashes = None;
    }

    fn walk_done(&mut self) -> Result<()> {
        self.hashes = Some(std::mem::take(&mut self.hasher).finish()?);
        Ok(())
    }
}

impl Pass2Sink for WasteSink {
    const ALLOCATION_SERIALS: bool = true;

    fn start(&mut self, index: &Index) -> Result<()> {
        let hashes = self.hashes.take().ok_or_else(out_of_order)?;
        self.collector = Collector::new(index, hashes, true)?;
        Ok(())
    }

    #[inline(always)]
    fn allocation_serial(&mut self, serial: u32) {
        self.collector.allocation_serial(serial);
    }

    #[inline(always)]
    fn object(&mut self, obj: Option<u32>) {
        self.collector.allocated(obj.unwrap_or(u32::MAX));
    }

    #[inline(always)]
    fn wants_instance(&self, class: u32) -> bool {
        self.collector.wants(class)
    }

    #[inline(always)]
    fn instance(&mut self, index: &Index, obj: u32, class: u32, fields: &[u8], targets: &[u32]) -> Result<()> {
        self.collector.instance(obj, class, fields, &index.ids, targets)
    }

    #[inline(always)]
    fn object_array(&mut self, obj: u32, class: u32, len: u32) -> Result<()> {
        self.collector.object_array(obj, class, len)
    }

    #[inline(always)]
    fn primitive_array(&mut self, obj: Option<u32>, has_data: bool) -> Result<()> {
        self.collector.array(obj, has_data)
    }

    fn walk_done(&mut self, index: &Index) -> Result<()> {
        let collector = std::mem::take(&mut self.collector);
        // While the arrays' hashes are held (the peak of pass 2): only the strings' keys stay.
        self.collected = collector.finish(&index.ids)?;
        Ok(())
    }
}

impl Collect for WasteSink {
    fn after_pass2(&mut self, heap: &Heap, source: Box<dyn ByteSource>) -> Result<Box<dyn ByteSource>> {
        let source = super::collect::resolve_windows(&mut self.collected, &heap.index, source)?;
        super::counter_cells::resolve(&mut self.collected, heap, source)
    }

    fn strengths_known(&mut self, heap: &Heap, strengths: &[u8], keep_unreachable: bool) -> Result<()> {
        // Grouped over what MAT's reading keeps, in either reading: the strength-aware tree
        // also holds the garbage, which wastes nothing, so switching trees changes no group.
        self.kept = Some(Kept::new(heap, strengths, keep_unreachable)?);
        Ok(())
    }

    fn before_tree(&mut self, heap: &Heap) -> Result<()> {
        // What pass 2 collected is freed before the tree's peak, and the kept bits with it:
        // kept longer, the bitset is an island in the space that data leaves free, and the
        // retained phase's arrays need that space whole (the page's memory only grows).
        let kept = self.kept.take().ok_or_else(out_of_order)?;
        let mut collected = std::mem::take(&mut self.collected);
        self.found = super::group(heap, &kept, &mut collected);
        Ok(())
    }

    fn take_marks(&mut self) -> crate::bits::BitSet {
        std::mem::take(&mut self.found.marks).into_bits()
    }
}
