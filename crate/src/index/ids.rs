//! Object identifiers → dense indices.
//!
//! Every object gets the index of its identifier (address) in ascending order, the same
//! order MAT uses. The map is the sorted identifier array itself plus a bucket table over
//! the address range, so a lookup is one bucket read and a binary search over a handful
//! of neighbouring identifiers. Memory: 8 bytes per object plus 4 bytes per bucket
//! (one bucket per ~8 objects).

use crate::error::{Error, Result};

pub struct IdMap {
    ids: Vec<u64>,
    min: u64,
    shift: u32,
    /// `buckets[b]` = first index whose `(id - min) >> shift >= b`; one extra at the end.
    buckets: Vec<u32>,
}

impl IdMap {
    /// Builds the map from identifiers in any order; duplicates are collapsed (the second
    /// definition of an object is reported by pass 2, which knows its offset).
    pub fn build(mut ids: Vec<u64>) -> Result<IdMap> {
        if ids.len() >= u32::MAX as usize - 2 {
            return Err(Error::memory(format!("{} objects: more than this analyzer indexes (4 billion)", ids.len())));
        }
        ids.sort_unstable();
        ids.dedup();
        ids.shrink_to_fit();
        let n = ids.len();
        let (min, max) = match (ids.first(), ids.last()) {
            (Some(&a), Some(&b)) => (a, b),
            _ => (0, 0),
        };
        let span = max - min;
        let want_buckets = (n / 8).max(1) as u64;
        // Smallest shift giving at most want_buckets buckets.
        let mut shift = 0u32;
        while shift < 63 && (span >> shift) >= want_buckets {
            shift += 1;
        }
        let nb = ((span >> shift) + 1) as usize;
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(nb + 1).map_err(|_| Error::memory("out of memory for the object id table"))?;
        let mut i = 0usize;
        for b in 0..nb {
            while i < n && ((ids[i] - min) >> shift) < b as u64 {
                i += 1;
            }
            buckets.push(i as u32);
        }
        buckets.push(n as u32);
        Ok(IdMap { ids, min, shift, buckets })
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Index of `id`, if it is an object of the dump.
    #[inline]
    pub fn index_of(&self, id: u64) -> Option<u32> {
        let off = id.wrapping_sub(self.min);
        if id < self.min {
            return None;
        }
        let b = (off >> self.shift) as usize;
        if b + 1 >= self.buckets.len() {
            return None;
        }
        let (lo, hi) = (self.buckets[b] as usize, self.buckets[b + 1] as usize);
        let slice = &self.ids[lo..hi];
        // Buckets are small: a linear scan beats binary search's branch misses.
        if slice.len() <= 16 {
            for (k, &x) in slice.iter().enumerate() {
                if x >= id {
                    return if x == id { Some((lo + k) as u32) } else { None };
                }
            }
            None
        } else {
            slice.binary_search(&id).ok().map(|k| (lo + k) as u32)
        }
    }

    /// Identifier (address) of object `index`.
    #[inline]
    pub fn id(&self, index: u32) -> u64 {
        self.ids[index as usize]
    }

    pub fn ids(&self) -> &[u64] {
        &self.ids
    }

    /// Heap bytes held by the map.
    pub fn memory_bytes(&self) -> usize {
        self.ids.capacity() * 8 + self.buckets.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_match_sorted_positions() {
        let mut ids: Vec<u64> = (0..10_000u64).map(|i| 0xf000_0000 + i * 24 + (i % 7) * 8).collect();
        ids.extend([0, 0x7fff_ffff_ffff, 0xf000_0000]); // 0x0, an outlier, a duplicate
        let map = IdMap::build(ids.clone()).unwrap();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(map.len(), sorted.len());
        for (k, &id) in sorted.iter().enumerate() {
            assert_eq!(map.index_of(id), Some(k as u32), "id {id:#x}");
            assert_eq!(map.id(k as u32), id);
        }
        for miss in [1u64, 0xf000_0001, 0xefff_ffff, 0x8000_0000_0000, u64::MAX] {
            assert_eq!(map.index_of(miss), None, "id {miss:#x}");
        }
    }

    #[test]
    fn empty_and_single() {
        let m = IdMap::build(vec![]).unwrap();
        assert_eq!(m.index_of(0), None);
        let m = IdMap::build(vec![42]).unwrap();
        assert_eq!(m.index_of(42), Some(0));
        assert_eq!(m.index_of(43), None);
    }
}
