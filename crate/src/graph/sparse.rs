//! Per-object values that only some objects need, stored for those alone.
//!
//! - [`RankBits`]: one bit per object and, per block of 64 objects, how many bits are set
//!   before it (12 bytes per 64 objects, 0.19 byte per object). [`RankBits::rank`] answers
//!   "is the bit of `v` set, and how many set bits come before it" in O(1): one block
//!   read and a popcount. A value stored for the objects whose bit is set lives at that
//!   rank in a dense array.
//! - [`ShallowSizes`]: MAT's shallow size of every object. An instance's is its class's
//!   instance size (DESIGN.md §3), so only the other objects (arrays, class objects:
//!   41% of the objects of the 1 GB benchmark dump, 3–46% on the corpus) keep a size, in
//!   a byte of alignment units (99.8% of them below 255 units there); larger ones go to
//!   a side table searched by rank. About 0.6 byte per object instead of 2 on that dump.
//!   While pass 2 fills it, a byte per object ([`SizeBuilder`]), compacted in place.

use crate::error::Result;

/// Bits per block of [`RankBits`].
const BLOCK: usize = 64;

/// One block of [`RankBits`]: its 64 bits (as two halves, so that a block is 12 bytes)
/// and the number of bits set in the blocks before it.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Block {
    lo: u32,
    hi: u32,
    before: u32,
}

/// A bit per object with O(1) rank (see the module docs).
#[derive(Default)]
pub struct RankBits {
    blocks: Vec<Block>,
    len: usize,
    ones: usize,
}

impl RankBits {
    /// The bits of `len` objects, `word(b)` giving those of objects `64b..64b + 64` (bit
    /// `k` for object `64b + k`; called once per block, in order).
    pub fn build(len: usize, what: &str, mut word: impl FnMut(usize) -> u64) -> Result<RankBits> {
        let mut blocks = crate::alloc::try_with_capacity(len.div_ceil(BLOCK), what)?;
        let mut ones = 0usize;
        for b in 0..len.div_ceil(BLOCK) {
            let bits = word(b);
            // Fewer than 2³² objects: the count fits.
            blocks.push(Block { lo: bits as u32, hi: (bits >> 32) as u32, before: ones as u32 });
            ones += bits.count_ones() as usize;
        }
        Ok(RankBits { blocks, len, ones })
    }

    /// The bits of the nonzero bytes of `bytes`.
    pub fn nonzero(bytes: &[u8], what: &str) -> Result<RankBits> {
        RankBits::build(bytes.len(), what, |b| {
            let chunk = &bytes[b * BLOCK..(b * BLOCK + BLOCK).min(bytes.len())];
            chunk.iter().enumerate().fold(0u64, |w, (k, &x)| w | ((x != 0) as u64) << k)
        })
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of bits set.
    pub fn ones(&self) -> usize {
        self.ones
    }

    /// If the bit of `v` is set, how many bits are set before it.
    #[inline(always)]
    pub fn rank(&self, v: u32) -> Option<usize> {
        let b = self.blocks[v as usize / BLOCK];
        let bits = b.lo as u64 | (b.hi as u64) << 32;
        let bit = 1u64 << (v as usize % BLOCK);
        (bits & bit != 0).then(|| b.before as usize + (bits & (bit - 1)).count_ones() as usize)
    }

    pub fn memory_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Block>()
    }
}

/// A stored unit count meaning "in the side table".
const ESCAPE: u8 = u8::MAX;

/// Pass 2's shallow sizes while it runs: per object a byte of alignment units, 0 for an
/// instance (its class says), [`ESCAPE`] for a size listed in `big`.
pub struct SizeBuilder {
    units: Vec<u8>,
    big: Vec<(u32, u64)>,
    align: u64,
}

impl SizeBuilder {
    pub fn new(n: usize, align: u32) -> Result<SizeBuilder> {
        Ok(SizeBuilder { units: crate::alloc::try_filled(n, 0, "sizes")?, big: Vec::new(), align: align.max(1) as u64 })
    }

    /// Sets the size of `obj` (once per object), in bytes (a multiple of the alignment),
    /// when it is not its class's instance size (arrays, class objects).
    #[inline]
    pub fn set(&mut self, obj: u32, bytes: u64) {
        let units = bytes / self.align;
        // 0 would read as "an instance" (a class object without statics is 0 bytes).
        if units != 0 && units < ESCAPE as u64 {
            self.units[obj as usize] = units as u8;
        } else {
            self.units[obj as usize] = ESCAPE;
            self.big.push((obj, units));
        }
    }

    /// The finished column; `instance_size[c]` is the instance size of class `c` in bytes,
    /// `class_of` gives each object's class index (past the table: no class).
    pub fn finish(self, instance_size: &[u64], class_of: impl Fn(u32) -> u32) -> Result<ShallowSizes> {
        let SizeBuilder { mut units, mut big, align } = self;
        big.sort_unstable();
        big.dedup_by_key(|e| e.0);
        let bits = RankBits::nonzero(&units, "sizes")?;
        // Per class its instance size, flagged when some object of it has a stored size.
        let mut classes: Vec<u64> = instance_size.to_vec();
        // In place: a stored value's rank is never above its object's index.
        let mut r = 0;
        for v in 0..units.len() {
            let u = units[v];
            if u != 0 {
                units[r] = u;
                r += 1;
                if let Some(c) = classes.get_mut(class_of(v as u32) as usize) {
                    *c |= STORED;
                }
            }
        }
        units.truncate(r);
        units.shrink_to_fit();
        // The side table by rank: the objects are in index order, so are their ranks.
        for e in &mut big {
            e.0 = bits.rank(e.0).unwrap_or(0) as u32;
        }
        big.shrink_to_fit();
        Ok(ShallowSizes { bits, units, big, align, classes })
    }
}

/// MAT's shallow size of every object (see the module docs).
pub struct ShallowSizes {
    /// Set for the objects whose size is stored.
    bits: RankBits,
    /// By rank: alignment units, [`ESCAPE`] for the ones in `big`.
    units: Vec<u8>,
    /// (rank, units), by rank.
    big: Vec<(u32, u64)>,
    align: u64,
    /// Per class: its instances' size in bytes, plus [`STORED`] when objects of it may
    /// have a stored size (array classes, `java.lang.Class`): the other objects' size is
    /// read here alone.
    classes: Vec<u64>,
}

/// The flag of [`ShallowSizes::classes`].
const STORED: u64 = 1 << 63;

impl ShallowSizes {
    /// Size of `obj` in bytes, given its class index `class` (past the class table: no
    /// class, 0 bytes unless stored).
    #[inline(always)]
    pub fn get(&self, obj: u32, class: u32) -> u64 {
        let c = self.classes.get(class as usize).copied().unwrap_or(STORED);
        if c & STORED == 0 {
            return c;
        }
        match self.bits.rank(obj) {
            None => c & !STORED,
            Some(r) => match self.units[r] {
                ESCAPE => self.big_units(r) * self.align,
                u => u as u64 * self.align,
            },
        }
    }

    #[cold]
    fn big_units(&self, r: usize) -> u64 {
        self.big.binary_search_by_key(&(r as u32), |e| e.0).map_or(0, |k| self.big[k].1)
    }

    /// Objects whose size is stored (not their class's instance size).
    pub fn stored(&self) -> usize {
        self.bits.ones()
    }

    pub fn memory_bytes(&self) -> usize {
        self.bits.memory_bytes() + self.units.capacity() + self.big.capacity() * 16 + self.classes.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a plain bit vector: every object's bit and rank, lengths at and around
        /// the block size included.
        #[test]
        fn rank_matches_a_plain_model(bits in proptest::collection::vec(any::<bool>(), 0..700)) {
            let bytes: Vec<u8> = bits.iter().map(|&b| b as u8 * 7).collect();
            let r = RankBits::nonzero(&bytes, "test").unwrap();
            let mut before = 0;
            for (v, &b) in bits.iter().enumerate() {
                prop_assert_eq!(r.rank(v as u32), b.then_some(before));
                before += b as usize;
            }
            prop_assert_eq!(r.ones(), before);
            prop_assert_eq!(r.len(), bits.len());
        }

        /// Against a plain Vec of sizes: instances (their class's size, or 0 without a
        /// class) and stored sizes at the edges of the byte (0, 1, 254, 255, 256 units,
        /// past u32), objects visited in any order.
        #[test]
        fn sizes_match_a_plain_model(
            objects in proptest::collection::vec((0u32..4, prop_oneof![Just(0u64), Just(1), Just(254), Just(255), Just(256), Just(65_535), Just(1 << 33), 0u64..600]), 0..400),
            align in prop_oneof![Just(8u32), Just(16), Just(256)],
            seed in any::<u64>(),
        ) {
            let class_size = vec![16u64, 24, 0];
            // Class 3 stands for no class; a stored size is kind 0, an instance the others.
            let mut want = Vec::new();
            let mut b = SizeBuilder::new(objects.len(), align).unwrap();
            let mut order: Vec<usize> = (0..objects.len()).collect();
            let mut s = seed | 1;
            for k in (1..order.len()).rev() {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                order.swap(k, (s % (k as u64 + 1)) as usize);
            }
            for &(kind, units) in &objects {
                want.push(if kind == 0 { units * align as u64 } else { class_size.get(kind as usize - 1).copied().unwrap_or(0) });
            }
            for &v in &order {
                if objects[v].0 == 0 {
                    b.set(v as u32, want[v]);
                }
            }
            let class = |v: u32| match objects[v as usize].0 {
                // Stored sizes of objects of class 1 (which also has instances) and of
                // objects without a class.
                0 if v % 2 == 0 => 1,
                0 | 3 => u32::MAX,
                kind => kind - 1,
            };
            let sizes = b.finish(&class_size, class).unwrap();
            for v in 0..objects.len() as u32 {
                prop_assert_eq!(sizes.get(v, class(v)), want[v as usize], "object {}", v);
            }
            prop_assert_eq!(sizes.stored(), objects.iter().filter(|o| o.0 == 0).count());
        }
    }
}
