//! Object identifiers → dense indices.
//!
//! Every object gets the index of its identifier (address) in ascending order, the same
//! order MAT uses. Identifiers other than 0 are congruent modulo `2^unit` (objects are
//! aligned), so each is reduced to its *key* `(id - min) >> unit`, and the map is one of:
//!
//! - **Dense** (the address range is at most [`DENSE_UNITS`] keys per object, as in any
//!   dump taken after a full GC): one bit per key, and per 64-bit word of bits the number
//!   of objects before it. A lookup is one cache line: test the bit, count the bits below
//!   it. 2 bits per key (16 bytes per 64 keys): 0.9 bytes per object on a 22M-object
//!   dump, 2 at most. Finding an address from an index uses a word sampled every 64
//!   objects (0.06 bytes per object) and a short scan.
//! - **Sparse** (any other range): the sorted keys as `u32` when they fit (a range
//!   below 2³² alignment units, 32 GiB with 8-byte alignment), else `u64` (a hostile
//!   input), plus a bucket table over the key range, one bucket per ~16 objects, so a
//!   lookup is one bucket read and a short scan: ≈ 4.25 bytes per object.
//!
//! Identifier 0 (MAT's pseudo object for the bootstrap loader, always present after pass
//! 1) is kept apart as index 0: it would otherwise stretch the range down to zero.
//!
//! Collecting the identifiers in pass 1 ([`IdCollector`]) costs 4 bytes per object (8 when
//! the identifiers of a chunk spread over more than 4 GiB), in
//! chunks that are freed one by one while the map is filled, so the peak of the
//! conversion stays near 8 bytes per object.

use crate::error::{Error, Result};

/// The stored keys: `(id - min) >> unit` for each identifier but 0, ascending.
enum Keys {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
    /// One bit per key; `select[k]` is the word holding the key of index `64 k`.
    Dense {
        words: Vec<Word>,
        select: Vec<u32>,
    },
}

/// 64 keys of a dense map and the number of objects in the words before.
#[derive(Clone, Copy, Default)]
struct Word {
    bits: u64,
    rank: u64,
}

/// Largest number of keys per object for the dense map (2 bytes per object).
pub const DENSE_UNITS: u64 = 8;

pub struct IdMap {
    keys: Keys,
    /// Objects other than 0.
    count: usize,
    /// Identifier 0 is an object (index 0); the keys' indices then start at 1.
    zero: bool,
    /// Smallest identifier other than 0.
    min: u64,
    /// log2 of the spacing of the identifiers (3 on a dump with 8-byte alignment).
    unit: u32,
    /// Largest `id - min`.
    max_off: u64,
    /// Bucket of a key: `key >> shift`.
    shift: u32,
    /// `buckets[b]` = first key index whose `key >> shift >= b`; one extra at the end.
    buckets: Vec<u32>,
}

/// Identifiers as pass 1 meets them, in chunks that grow to 4 Mi entries.
#[derive(Default)]
pub struct IdCollector {
    chunks: Vec<Chunk>,
    len: usize,
}

/// Identifiers as 4-byte offsets from `base` (`narrow`: identifiers of one chunk lie
/// within 4 GiB of each other in any dump read in address order), or whole (`wide`).
/// One of the two is empty. Half the bytes of whole identifiers: these chunks are pass
/// 1's largest temporary, and in a wasm instance whatever pass 1 needed at its peak
/// stays part of the linear memory.
struct Chunk {
    base: u64,
    narrow: Vec<u32>,
    wide: Vec<u64>,
}

impl Chunk {
    fn for_each(&self, mut f: impl FnMut(u64)) {
        for &d in &self.narrow {
            f(self.base + d as u64);
        }
        for &id in &self.wide {
            f(id);
        }
    }
}

/// Largest chunk: 4 Mi identifiers (16 MiB narrow). Chunks this big are above glibc's
/// largest mmap threshold, so a freed chunk goes back to the system at once.
const CHUNK_MAX: usize = 1 << 22;
const CHUNK_MIN: usize = 1 << 12;
/// A narrow chunk's base lies this far below its first identifier, so that identifiers
/// going down a little (heap regions dumped out of order) still fit.
const BELOW: u64 = 1 << 31;

impl IdCollector {
    #[inline]
    pub fn push(&mut self, id: u64) -> Result<()> {
        if let Some(c) = self.chunks.last_mut() {
            let d = id.wrapping_sub(c.base);
            if c.narrow.len() < c.narrow.capacity() && d <= u32::MAX as u64 {
                c.narrow.push(d as u32);
                self.len += 1;
                return Ok(());
            }
            if c.wide.len() < c.wide.capacity() {
                c.wide.push(id);
                self.len += 1;
                return Ok(());
            }
        }
        self.push_new_chunk(id)?;
        self.len += 1;
        Ok(())
    }

    /// A new chunk for `id`. After a full chunk: narrow, of half the identifiers so far
    /// (within [`CHUNK_MIN`, `CHUNK_MAX`]). After a jump out of a narrow chunk's 4 GiB:
    /// the chunk left is trimmed, and the next is a small narrow one, or a wide one when
    /// the chunk left held few identifiers (identifiers jumping about: at most 8 bytes
    /// each, as whole identifiers).
    #[cold]
    fn push_new_chunk(&mut self, id: u64) -> Result<()> {
        let memory = |len: usize| Error::memory(format!("out of memory for the object ids after {len} objects"));
        let (size, wide) = match self.chunks.last_mut() {
            Some(c) if c.narrow.len() < c.narrow.capacity() => {
                let few = c.narrow.len() < 64;
                c.narrow.shrink_to_fit();
                if few {
                    ((self.len / 2).clamp(CHUNK_MIN, CHUNK_MAX), true)
                } else {
                    (CHUNK_MIN, false)
                }
            }
            _ => ((self.len / 2).clamp(CHUNK_MIN, CHUNK_MAX), false),
        };
        let mut c = Chunk { base: id.saturating_sub(BELOW), narrow: Vec::new(), wide: Vec::new() };
        if wide {
            c.wide.try_reserve_exact(size).map_err(|_| memory(self.len))?;
            c.wide.push(id);
        } else {
            c.narrow.try_reserve_exact(size).map_err(|_| memory(self.len))?;
            c.narrow.push((id - c.base) as u32);
        }
        self.chunks.try_reserve(1).map_err(|_| memory(self.len))?;
        self.chunks.push(c);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every identifier collected, in the order pushed.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.chunks.iter().flat_map(|c| c.narrow.iter().map(move |&d| c.base + d as u64).chain(c.wide.iter().copied()))
    }

    /// Builds the map; duplicates are collapsed (the second definition of an object is
    /// reported by pass 2, which knows its offset).
    pub fn finish(mut self) -> Result<IdMap> {
        if self.len >= u32::MAX as usize - 2 {
            return Err(Error::memory(format!("{} objects: more than this analyzer indexes (4 billion)", self.len)));
        }
        // One pass for the range and the common alignment: ids congruent modulo 2^k
        // have the same low k bits as any one of them.
        let first = self.iter().find(|&x| x != 0).unwrap_or(0);
        let (mut min, mut max, mut differ, mut nonzero) = (u64::MAX, 0u64, 0u64, 0usize);
        for c in &self.chunks {
            c.for_each(|id| {
                if id != 0 {
                    min = min.min(id);
                    max = max.max(id);
                    differ |= id ^ first;
                    nonzero += 1;
                }
            });
        }
        let zero = nonzero < self.len;
        if nonzero == 0 {
            min = 0;
        }
        let unit = if differ == 0 { 0 } else { differ.trailing_zeros() };
        let max_off = max.saturating_sub(min);
        let alloc = |what: &str| Error::memory(format!("out of memory for the {what} of {} objects", self.len));
        let span = if nonzero == 0 { 0 } else { (max_off >> unit) + 1 };
        if span <= DENSE_UNITS * nonzero as u64 {
            let nw = span.div_ceil(64) as usize;
            let mut words = Vec::new();
            words.try_reserve_exact(nw).map_err(|_| alloc("ids"))?;
            words.resize(nw, Word::default());
            while let Some(c) = self.chunks.pop() {
                c.for_each(|id| {
                    if id != 0 {
                        let key = (id - min) >> unit;
                        words[(key >> 6) as usize].bits |= 1 << (key & 63);
                    }
                });
            }
            let mut select = Vec::new();
            select.try_reserve_exact(nonzero.div_ceil(64) + 1).map_err(|_| alloc("ids"))?;
            let mut rank = 0u64;
            for (k, w) in words.iter_mut().enumerate() {
                w.rank = rank;
                rank += w.bits.count_ones() as u64;
                // Samples for the indices 64 j in this word.
                while (select.len() as u64) * 64 < rank {
                    select.push(k as u32);
                }
            }
            let count = rank as usize;
            return Ok(IdMap {
                keys: Keys::Dense { words, select },
                count,
                zero,
                min,
                unit,
                max_off,
                shift: 0,
                buckets: Vec::new(),
            });
        }
        let mut keys = if max_off >> unit < u32::MAX as u64 {
            let mut k: Vec<u32> = Vec::new();
            k.try_reserve_exact(nonzero).map_err(|_| alloc("ids"))?;
            while let Some(c) = self.chunks.pop() {
                c.for_each(|id| {
                    if id != 0 {
                        k.push(((id - min) >> unit) as u32);
                    }
                });
            }
            Keys::Narrow(k)
        } else {
            let mut k: Vec<u64> = Vec::new();
            k.try_reserve_exact(nonzero).map_err(|_| alloc("ids"))?;
            while let Some(c) = self.chunks.pop() {
                c.for_each(|id| {
                    if id != 0 {
                        k.push((id - min) >> unit);
                    }
                });
            }
            Keys::Wide(k)
        };
        let (n, max_key) = match &mut keys {
            Keys::Narrow(k) => (sort_dedup(k), k.last().map_or(0, |&x| x as u64)),
            Keys::Wide(k) => (sort_dedup(k), k.last().copied().unwrap_or(0)),
            Keys::Dense { .. } => unreachable!(),
        };
        // About one bucket per 16 objects: the smallest shift giving at most n / 16.
        let want_buckets = (n / 16).max(1) as u64;
        let mut shift = 0u32;
        while shift < 63 && (max_key >> shift) >= want_buckets {
            shift += 1;
        }
        let nb = ((max_key >> shift) + 1) as usize;
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(nb + 1).map_err(|_| alloc("id buckets"))?;
        match &keys {
            Keys::Narrow(k) => fill_buckets(k, shift, nb, &mut buckets),
            Keys::Wide(k) => fill_buckets(k, shift, nb, &mut buckets),
            Keys::Dense { .. } => unreachable!(),
        }
        Ok(IdMap { keys, count: n, zero, min, unit, max_off, shift, buckets })
    }
}

/// Sorts and deduplicates; gives memory back only when duplicates freed a lot of it.
fn sort_dedup<T: Ord + Copy>(k: &mut Vec<T>) -> usize {
    k.sort_unstable();
    k.dedup();
    if k.len() < k.capacity() - k.capacity() / 16 {
        k.shrink_to_fit();
    }
    k.len()
}

trait Key: Copy + Ord {
    fn wide(self) -> u64;
}
impl Key for u32 {
    #[inline(always)]
    fn wide(self) -> u64 {
        self as u64
    }
}
impl Key for u64 {
    #[inline(always)]
    fn wide(self) -> u64 {
        self
    }
}

fn fill_buckets<T: Key>(keys: &[T], shift: u32, nb: usize, buckets: &mut Vec<u32>) {
    let mut i = 0usize;
    for b in 0..nb as u64 {
        while i < keys.len() && (keys[i].wide() >> shift) < b {
            i += 1;
        }
        buckets.push(i as u32);
    }
    buckets.push(keys.len() as u32);
}

/// Position of `key` in a short sorted slice.
#[inline(always)]
fn find<T: Key>(slice: &[T], key: T) -> Option<usize> {
    // Buckets are small: counting the smaller keys (branch-free, vectorised) beats a
    // binary search's mispredicted branches.
    let k = if slice.len() <= 32 {
        slice.iter().filter(|&&x| x < key).count()
    } else {
        slice.partition_point(|&x| x < key)
    };
    (slice.get(k) == Some(&key)).then_some(k)
}

impl IdMap {
    /// Builds the map from identifiers in any order; duplicates are collapsed.
    pub fn build(ids: Vec<u64>) -> Result<IdMap> {
        let mut c = IdCollector::default();
        for id in ids {
            c.push(id)?;
        }
        c.finish()
    }

    pub fn len(&self) -> usize {
        self.zero as usize + self.count
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index of `id`, if it is an object of the dump.
    ///
    /// Pass 2 asks once per object and once per reference: the dense map's lookup is
    /// inlined at every call, the other cases are calls.
    #[inline(always)]
    pub fn index_of(&self, id: u64) -> Option<u32> {
        let off = id.wrapping_sub(self.min);
        // Ids below `min` wrap around above `max_off`.
        if off > self.max_off || off & ((1u64 << self.unit) - 1) != 0 || id == 0 {
            return if id == 0 && self.zero { Some(0) } else { None };
        }
        let key = off >> self.unit;
        match &self.keys {
            Keys::Dense { words, .. } => {
                let w = words[(key >> 6) as usize];
                let bit = key & 63;
                if (w.bits >> bit) & 1 == 0 {
                    return None;
                }
                Some((w.rank + (w.bits & ((1 << bit) - 1)).count_ones() as u64) as u32 + self.zero as u32)
            }
            _ => self.sparse_index_of(key),
        }
    }

    #[inline(never)]
    fn sparse_index_of(&self, key: u64) -> Option<u32> {
        let b = (key >> self.shift) as usize;
        let (lo, hi) = (self.buckets[b] as usize, self.buckets[b + 1] as usize);
        let k = match &self.keys {
            Keys::Narrow(k) => find(&k[lo..hi], key as u32),
            Keys::Wide(k) => find(&k[lo..hi], key),
            Keys::Dense { .. } => unreachable!(),
        }?;
        Some((lo + k) as u32 + self.zero as u32)
    }

    /// How far the next object's identifier is above object `index`'s (`id`, not 0): on
    /// a dump whose identifiers are addresses, an upper bound of the object's footprint
    /// (the distance to the next object in memory). None for the last object.
    ///
    /// Cost: on the dense map one word, or the words of the gap after the object (each
    /// gap is scanned from the one object before it only); on the others one key.
    #[inline]
    pub fn gap_after(&self, index: u32, id: u64) -> Option<u64> {
        let key = id.wrapping_sub(self.min) >> self.unit;
        let next = match &self.keys {
            Keys::Dense { words, .. } => {
                let mut w = (key >> 6) as usize;
                // The bits above the object's own.
                let mut bits = words.get(w)?.bits & (!1u64 << (key & 63));
                while bits == 0 {
                    w += 1;
                    bits = words.get(w)?.bits;
                }
                w as u64 * 64 + bits.trailing_zeros() as u64
            }
            Keys::Narrow(k) => *k.get((index as usize + 1).checked_sub(self.zero as usize)?)? as u64,
            Keys::Wide(k) => *k.get((index as usize + 1).checked_sub(self.zero as usize)?)?,
        };
        next.checked_sub(key).map(|d| d << self.unit)
    }

    /// Identifier (address) of object `index`.
    #[inline]
    pub fn id(&self, index: u32) -> u64 {
        let Some(k) = (index as usize).checked_sub(self.zero as usize) else { return 0 };
        let key = match &self.keys {
            Keys::Narrow(keys) => keys[k] as u64,
            Keys::Wide(keys) => keys[k],
            Keys::Dense { words, select } => {
                let k = k as u64;
                let mut w = select[(k / 64) as usize] as usize;
                while words[w].rank + words[w].bits.count_ones() as u64 <= k {
                    w += 1;
                }
                // The (k - rank)-th set bit of the word.
                let mut bits = words[w].bits;
                for _ in 0..k - words[w].rank {
                    bits &= bits - 1;
                }
                w as u64 * 64 + bits.trailing_zeros() as u64
            }
        };
        self.min + (key << self.unit)
    }

    /// Heap bytes held by the map.
    pub fn memory_bytes(&self) -> usize {
        let keys = match &self.keys {
            Keys::Narrow(k) => k.capacity() * 4,
            Keys::Wide(k) => k.capacity() * 8,
            Keys::Dense { words, select } => words.capacity() * 16 + select.capacity() * 4,
        };
        keys + self.buckets.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(ids: Vec<u64>, misses: &[u64]) -> IdMap {
        let map = IdMap::build(ids.clone()).unwrap();
        let mut sorted = ids;
        sorted.sort();
        sorted.dedup();
        assert_eq!(map.len(), sorted.len());
        for (k, &id) in sorted.iter().enumerate() {
            assert_eq!(map.index_of(id), Some(k as u32), "id {id:#x}");
            assert_eq!(map.id(k as u32), id);
            if id != 0 {
                // The distance to the next identifier, by the definition.
                let want = sorted.get(k + 1).map(|&next| next - id);
                assert_eq!(map.gap_after(k as u32, id), want, "gap after {id:#x}");
            }
        }
        for &miss in misses {
            assert_eq!(map.index_of(miss), None, "id {miss:#x}");
        }
        map
    }

    #[test]
    fn lookups_match_sorted_positions() {
        let mut ids: Vec<u64> = (0..10_000u64).map(|i| 0xf000_0000 + i * 24 + (i % 7) * 8).collect();
        ids.extend([0, 0x7fff_ffff_ffff, 0xf000_0000]); // 0x0, an outlier, a duplicate
        let map = check(ids, &[1, 0xf000_0001, 0xf000_0004, 0xefff_ffff, 0x8000_0000_0000, u64::MAX]);
        assert!(matches!(map.keys, Keys::Wide(_)), "2^47 / 8 keys do not fit u32");
    }

    #[test]
    fn narrow_keys_for_a_sparse_heap() {
        // A compressed-oops heap near 32 GiB, plus 0x0: narrow keys despite the zero.
        let mut ids: Vec<u64> = (0..50_000u64).map(|i| 0x7_c000_0000 + i * 160 + (i % 3) * 8).collect();
        ids.push(0);
        let map = check(ids, &[8, 0x7_c000_0004, 0x7_bfff_fff8, 0x8_0000_0000]);
        assert!(matches!(map.keys, Keys::Narrow(_)));
        assert_eq!(map.unit, 3);
    }

    #[test]
    fn dense_bits_for_a_compact_heap() {
        // Objects of 1 to 9 units back to back, in shuffled order with duplicates, plus 0x0.
        let mut ids = Vec::new();
        let mut at = 0x7_c000_0000u64;
        for i in 0..100_000u64 {
            ids.push(at);
            at += 8 * (1 + (i * 7919) % 9);
        }
        let n = ids.len();
        for i in 0..n {
            ids.swap(i, (i * 104_729) % n);
        }
        ids.extend_from_within(..500);
        ids.push(0);
        let map = check(ids, &[8, 0x7_c000_0004, 0x7_bfff_fff8, at, at + 8, u64::MAX]);
        assert!(matches!(map.keys, Keys::Dense { .. }));
        // Without the zero, indices start at the first object.
        let map = check((0..1000u64).map(|i| 4096 + i * 24).collect(), &[0, 4096 + 8, 4096 + 24_000]);
        assert!(matches!(map.keys, Keys::Dense { .. }));
    }

    /// Bytes the collector's chunks hold.
    fn collector_bytes(c: &IdCollector) -> usize {
        c.chunks.iter().map(|k| k.narrow.capacity() * 4 + k.wide.capacity() * 8).sum()
    }

    #[test]
    fn the_collector_keeps_ascending_ids_in_four_bytes_and_jumping_ones_in_at_most_eight() {
        // Address order with a few regions out of order and far apart (> 4 GiB), then
        // class objects elsewhere and 0x0, as pass 1 pushes them.
        let mut ids: Vec<u64> = Vec::new();
        for region in [3u64, 1, 40, 2] {
            ids.extend((0..300_000u64).map(|i| (region << 33) + i * 40));
        }
        ids.extend((0..3000u64).map(|i| 0x7_0000_0000_0000 + i * 512));
        ids.push(0);
        let mut c = IdCollector::default();
        for &id in &ids {
            c.push(id).unwrap();
        }
        assert_eq!(c.iter().collect::<Vec<_>>(), ids, "every id back, in push order");
        let bytes = collector_bytes(&c);
        assert!(bytes <= ids.len() * 4 * 11 / 10 + (1 << 16), "{bytes} bytes for {} ids", ids.len());
        let map = c.finish().unwrap();
        assert_eq!(map.len(), ids.len());
        // Ids jumping back and forth by more than 4 GiB at every step: whole ids, as
        // before, not a chunk each.
        let jumping: Vec<u64> =
            (0..200_000u64).map(|i| if i % 2 == 0 { 0x1000 + i * 16 } else { (1 << 40) + i * 16 }).collect();
        let mut c = IdCollector::default();
        for &id in &jumping {
            c.push(id).unwrap();
        }
        assert_eq!(c.iter().collect::<Vec<_>>(), jumping);
        let bytes = collector_bytes(&c);
        assert!(bytes <= jumping.len() * 8 * 11 / 10 + (1 << 16), "{bytes} bytes for {} ids", jumping.len());
        assert!(c.chunks.len() < 64, "{} chunks", c.chunks.len());
        check(jumping, &[0x1008, 1 << 40]);
    }

    #[test]
    fn odd_addresses_and_big_buckets() {
        // Unaligned (unit 0) ids, clustered so that some buckets are large.
        let mut ids: Vec<u64> = (0..3000u64).map(|i| 1001 + i * 3).collect();
        ids.extend((0..3000u64).map(|i| 1_000_000 + i));
        check(ids, &[0, 1000, 1002, 999_999, 1_003_000, u64::MAX]);
    }

    #[test]
    fn empty_and_single() {
        let m = IdMap::build(vec![]).unwrap();
        assert_eq!(m.index_of(0), None);
        assert_eq!(m.len(), 0);
        let m = IdMap::build(vec![42]).unwrap();
        assert_eq!(m.index_of(42), Some(0));
        assert_eq!(m.index_of(43), None);
        assert_eq!(m.index_of(0), None);
        let m = check(vec![0], &[1, 8]);
        assert_eq!(m.index_of(0), Some(0));
        check(vec![0, 0, u64::MAX, 8], &[16, u64::MAX - 8]);
    }
}
