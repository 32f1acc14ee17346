//! Every object's [`Strength`](crate::rules::strength::Strength), kept for the session in about 0.2 byte per object
//! instead of one.
//!
//! Nearly every object is held strongly (all but 1,120 of the 22.1 M objects of the 1 GB
//! benchmark dump): a [`RankBits`] marks the others, whose strengths are kept by rank, two
//! per byte (a strength fits in 4 bits). At most 0.69 byte per object when none is strong.
//! Reading one is O(1): a block of the bits, a popcount, a nibble.

use crate::error::Result;
use crate::graph::sparse::RankBits;
use crate::rules::strength::STRONG;

pub struct Strengths {
    /// Set for the objects not held strongly.
    bits: RankBits,
    /// Their strengths by rank, the even ranks in the low nibbles.
    nibbles: Vec<u8>,
}

/// Every nibble value, for [`std::ops::Index`] (which must return a reference).
static VALUES: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

impl Strengths {
    /// Packs the walk's strength bytes (each below 16), reusing their memory.
    pub fn compact(mut bytes: Vec<u8>) -> Result<Strengths> {
        debug_assert!(bytes.iter().all(|&s| s < 16));
        debug_assert_eq!(STRONG, 0);
        let bits = RankBits::nonzero(&bytes, "the reachability strengths")?;
        // In place: rank r goes to byte r/2, never past the byte just read.
        let mut r = 0;
        for v in 0..bytes.len() {
            let s = bytes[v];
            if s != STRONG {
                if r % 2 == 0 {
                    bytes[r / 2] = s;
                } else {
                    bytes[r / 2] |= s << 4;
                }
                r += 1;
            }
        }
        bytes.truncate(r.div_ceil(2));
        bytes.shrink_to_fit();
        Ok(Strengths { bits, nibbles: bytes })
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// The strength byte of object `v` (below [`Strengths::len`]).
    #[inline]
    pub fn get(&self, v: u32) -> u8 {
        match self.bits.rank(v) {
            None => STRONG,
            Some(r) => (self.nibbles[r / 2] >> (4 * (r % 2))) & 15,
        }
    }

    /// Calls `f(v, strength)` for every object not held strongly, ascending.
    pub fn for_each_not_strong(&self, mut f: impl FnMut(u32, u8)) {
        let mut r = 0usize;
        self.bits.for_each_one(|v| {
            f(v, (self.nibbles[r / 2] >> (4 * (r % 2))) & 15);
            r += 1;
        });
    }

    pub fn memory_bytes(&self) -> usize {
        self.bits.memory_bytes() + self.nibbles.capacity()
    }
}

impl std::ops::Index<usize> for Strengths {
    type Output = u8;

    #[inline]
    fn index(&self, v: usize) -> &u8 {
        &VALUES[self.get(v as u32) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against the plain bytes: mostly strong, any strength, lengths around the blocks.
        #[test]
        fn packed_matches_the_bytes(bytes in proptest::collection::vec(prop_oneof![3 => Just(0u8), 1 => 0u8..16], 0..600)) {
            let s = Strengths::compact(bytes.clone()).unwrap();
            prop_assert_eq!(s.len(), bytes.len());
            for (v, &b) in bytes.iter().enumerate() {
                prop_assert_eq!(s.get(v as u32), b, "object {}", v);
                prop_assert_eq!(s[v], b);
            }
            let mut others = Vec::new();
            s.for_each_not_strong(|v, b| others.push((v, b)));
            let want: Vec<(u32, u8)> =
                bytes.iter().enumerate().filter(|e| *e.1 != STRONG).map(|(v, &b)| (v as u32, b)).collect();
            prop_assert_eq!(others, want);
        }
    }
}
