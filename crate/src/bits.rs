//! A set of object indices as one bit each: the "seen", "marked", "waiting" sets of the
//! walks over the heap graph (searches, the strength walk, the dominator and retained
//! phases, waste grouping). `n` objects cost `n / 8` bytes, allocated fallibly.

use crate::alloc::try_filled;
use crate::error::Result;

/// One bit per index `0..len`, all clear at first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// A set for indices below `len`, or a memory error naming `what`.
    pub fn new(len: usize, what: &str) -> Result<BitSet> {
        Ok(BitSet { words: try_filled(len.div_ceil(64), 0u64, what)? })
    }

    /// A set of the indices in `members` (each below `len`).
    pub fn of(len: usize, members: impl IntoIterator<Item = u32>, what: &str) -> Result<BitSet> {
        let mut set = BitSet::new(len, what)?;
        for v in members {
            set.insert(v);
        }
        Ok(set)
    }

    /// The set of the indices `v < len` for which `member(v)` holds.
    pub fn from_fn(len: usize, what: &str, mut member: impl FnMut(u32) -> bool) -> Result<BitSet> {
        let mut set = BitSet::new(len, what)?;
        for (w, word) in set.words.iter_mut().enumerate() {
            let base = w * 64;
            for b in 0..64.min(len - base) {
                *word |= u64::from(member((base + b) as u32)) << b;
            }
        }
        Ok(set)
    }

    /// Whether `v` is in the set (false for an index beyond it: an empty set holds none).
    #[inline(always)]
    pub fn contains(&self, v: u32) -> bool {
        self.words.get(v as usize / 64).is_some_and(|w| w & (1 << (v % 64)) != 0)
    }

    /// How many indices the set has room for (a multiple of 64, at least its `len`).
    pub fn capacity(&self) -> usize {
        self.words.len() * 64
    }

    #[inline(always)]
    pub fn insert(&mut self, v: u32) {
        self.words[v as usize / 64] |= 1 << (v % 64);
    }

    /// Inserts `v`; true when it was not in the set.
    #[inline(always)]
    pub fn insert_new(&mut self, v: u32) -> bool {
        let (w, b) = (v as usize / 64, 1u64 << (v % 64));
        let new = self.words[w] & b == 0;
        self.words[w] |= b;
        new
    }

    #[inline(always)]
    pub fn remove(&mut self, v: u32) {
        self.words[v as usize / 64] &= !(1 << (v % 64));
    }

    /// The bits, 64 indices a word (index `v` is bit `v % 64` of word `v / 64`), for walks
    /// that skip empty words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// How many indices are in the set.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Bytes the set holds.
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_contains_remove() {
        let mut s = BitSet::of(130, [0, 63, 64, 129], "a test").unwrap();
        for v in 0..130 {
            assert_eq!(s.contains(v), [0, 63, 64, 129].contains(&v), "{v}");
        }
        assert!(!s.insert_new(63));
        assert!(s.insert_new(65));
        s.remove(64);
        assert!(!s.contains(64) && s.contains(65));
        assert_eq!(s.words().len(), 3);
        assert!(!s.contains(1000) && !BitSet::default().contains(0));
        let odd = BitSet::from_fn(70, "a test", |v| v % 2 == 1).unwrap();
        assert!((0..70).all(|v| odd.contains(v) == (v % 2 == 1)));
        assert_eq!(odd.capacity(), 128);
        assert_eq!(odd.count(), 35);
    }
}
