//! The referrer index: for every object, the objects referencing it (by the references
//! its tree counts, from objects the tree keeps), and which objects are GC roots.
//!
//! A heap dump records a reference only in the direction it points, so "who holds this"
//! would otherwise scan every reference per question. The index reverses them once: a
//! [`Csr`] in the forward graph's own compact form (each referrer list ascending, as
//! zigzag LEB128 deltas, one length byte per object, a sampled offset per 16 objects),
//! plus a bit per object for the GC roots.
//!
//! Build: one scan of the references counts each object's referrers (a `u32` per object,
//! temporary); then the objects are cut into ranges of at most [`CHUNK_EDGES`]
//! references (or one object's, if more) and each range is filled by one more scan
//! (sources arrive in index order, so each list comes out sorted) and encoded. Time:
//! `1 + ⌈references / CHUNK_EDGES⌉` scans of the forward graph. Memory: the index, ≈ 1.25
//! bytes per object plus ≈ 2 per reference, and while building 4 bytes per object and
//! 4 per reference of one range on top.

use super::TreeView;
use crate::alloc::{try_filled, try_with_capacity};
use crate::bits::BitSet;
use crate::dominators::{Graph, UNREACHABLE};
use crate::error::{Error, Result};
use crate::graph::csr::{Csr, CsrWriter};

/// References filled per scan while building (4 bytes each: 64 MiB).
pub const CHUNK_EDGES: usize = 16 << 20;

pub struct ReferrerIndex {
    csr: Csr,
    /// One bit per object: a GC root of the tree.
    roots: BitSet,
    /// References counted (each (referrer, object) pair once).
    references: u64,
    /// Scans of the forward graph the build made.
    pub scans: u32,
}

impl ReferrerIndex {
    /// Reverses the references of `view`'s tree (only from objects it keeps).
    pub fn build<G: Graph, A: Fn(u32, u32) -> bool>(view: &TreeView<'_, G, A>) -> Result<ReferrerIndex> {
        let g = &view.graph;
        let idom = view.idom;
        let n = g.node_count();
        let kept = |v: u32| (v as usize) < idom.count() && idom.at(v) != UNREACHABLE;

        let mut roots = BitSet::new(n, "the GC root bits")?;
        g.for_each_root(|r| roots.insert(r));

        // Counts per object (duplicates included: they are dropped while encoding).
        let mut counts: Vec<u32> = try_filled(n, 0, "the referrer counts")?;
        let mut total = 0u64;
        g.for_each_edge(|v, t| {
            if kept(v) {
                counts[t as usize] = counts[t as usize].saturating_add(1);
                total += 1;
            }
        });
        if counts.contains(&u32::MAX) {
            return Err(Error::memory("an object with 4 billion referrers: too large for this build"));
        }

        // About 1.7 bytes per reference: reserve 1.5 and let the last lists grow it.
        let mut writer = CsrWriter::new(n, (total as usize).saturating_add(total as usize / 2).min(1 << 31))?;
        let mut buf: Vec<u32> = Vec::new();
        let mut list: Vec<u32> = Vec::new();
        let mut scans = 1;
        let mut lo = 0usize;
        while lo < n {
            // The range [lo, hi): at most CHUNK_EDGES references, at least one object.
            let mut hi = lo;
            let mut edges = 0usize;
            while hi < n && (hi == lo || edges + counts[hi] as usize <= CHUNK_EDGES) {
                edges += counts[hi] as usize;
                hi += 1;
            }
            if edges == 0 {
                for _ in lo..hi {
                    writer.push(&[])?;
                }
                lo = hi;
                continue;
            }
            // counts[t] becomes where t's referrers start in buf, then (after the fill)
            // where they end.
            let mut at = 0u32;
            for c in &mut counts[lo..hi] {
                let k = *c;
                *c = at;
                at += k;
            }
            if buf.capacity() < edges {
                buf = try_with_capacity(edges, "the referrers being sorted")?;
            }
            buf.clear();
            buf.resize(edges, 0);
            g.for_each_edge(|v, t| {
                let t = t as usize;
                if t >= lo && t < hi && kept(v) {
                    let c = &mut counts[t];
                    buf[*c as usize] = v;
                    *c += 1;
                }
            });
            scans += 1;
            let mut start = 0usize;
            for t in lo..hi {
                let end = counts[t] as usize;
                list.clear();
                for &v in &buf[start..end] {
                    if list.last() != Some(&v) {
                        list.push(v);
                    }
                }
                writer.push(&list)?;
                start = end;
            }
            lo = hi;
        }
        drop((counts, buf));
        let csr = writer.finish()?;
        Ok(ReferrerIndex { references: csr.edge_count(), csr, roots, scans })
    }

    /// Calls `f` with each object referencing `obj`, ascending.
    #[inline]
    pub fn for_each_referrer<F: FnMut(u32)>(&self, obj: u32, f: F) {
        self.csr.for_each(obj, f)
    }

    /// Whether `obj` is a GC root of the tree.
    #[inline]
    pub fn is_root(&self, obj: u32) -> bool {
        self.roots.contains(obj)
    }

    pub fn object_count(&self) -> usize {
        self.csr.node_count()
    }

    /// (referrer, object) pairs stored.
    pub fn reference_count(&self) -> u64 {
        self.references
    }

    pub fn memory_bytes(&self) -> usize {
        self.csr.memory_bytes() + self.roots.capacity() * 8
    }
}
