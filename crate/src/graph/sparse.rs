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

    /// Calls `f` with every object whose bit is set, ascending.
    pub fn for_each_one(&self, mut f: impl FnMut(u32)) {
        for (k, b) in self.blocks.iter().enumerate() {
            let mut bits = b.lo as u64 | (b.hi as u64) << 32;
            while bits != 0 {
                f((k * BLOCK) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }

    pub fn memory_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Block>()
    }
}

/// A stored unit count meaning "in the side table".
const ESCAPE: u8 = u8::MAX;

/// Pass 2's shallow sizes while it runs, for the objects that are not instances (arrays,
/// class objects): a byte of alignment units each, [`ESCAPE`] for a size listed in `big`.
///
/// Dumps write objects in address order, which is index order: the sizes of the objects
/// met in ascending order are appended to `vals` and marked with a bit per object; the
/// others (class objects, which come first in the file, and objects of regions written
/// out of order) are listed with their object. About half a byte per object on the 1 GB
/// benchmark dump instead of a byte. When the listed ones grow past one object in
/// [`SCATTERED`], a byte per object is used instead (`dense`).
pub struct SizeBuilder {
    n: usize,
    /// A byte per object (0: an instance), once too many objects came out of order;
    /// empty before.
    dense: Vec<u8>,
    /// One bit per object whose size is in `vals`.
    marks: Vec<u64>,
    /// The sizes of the objects met in ascending order.
    vals: Vec<u8>,
    /// The last object appended to `vals`.
    last: Option<u32>,
    /// (object, units) of the others.
    listed: Vec<(u32, u8)>,
    big: Vec<(u32, u64)>,
    align: u64,
}

/// [`SizeBuilder`] turns dense when more than one object in `SCATTERED` is listed.
const SCATTERED: usize = 32;

fn sizes_memory() -> crate::error::Error {
    crate::error::Error::memory("out of memory for the sizes of arrays".to_string())
}

/// Pushes, growing by an eighth when full (the room reserved is exact but for bad input).
#[inline]
fn push_grow<T>(v: &mut Vec<T>, x: T) -> Result<()> {
    if v.len() == v.capacity() {
        v.try_reserve_exact((v.len() / 8).max(1024)).map_err(|_| sizes_memory())?;
    }
    v.push(x);
    Ok(())
}

impl SizeBuilder {
    /// A builder for `n` objects of which about `stored` (arrays) and `listed` (class
    /// objects) get a size.
    pub fn new(n: usize, align: u32, stored: usize, listed: usize) -> Result<SizeBuilder> {
        let marks = crate::alloc::try_filled(n.div_ceil(64), 0u64, "sizes")?;
        let vals = crate::alloc::try_with_capacity(stored.min(n), "sizes")?;
        let listed = crate::alloc::try_with_capacity(listed.min(n), "sizes")?;
        Ok(SizeBuilder {
            n,
            dense: Vec::new(),
            marks,
            vals,
            last: None,
            listed,
            big: Vec::new(),
            align: align.max(1) as u64,
        })
    }

    /// The byte stored for `bytes` (listing the large ones).
    #[inline]
    fn units(&mut self, obj: u32, bytes: u64) -> u8 {
        let units = bytes / self.align;
        // 0 would read as "an instance" (a class object without statics is 0 bytes).
        if units != 0 && units < ESCAPE as u64 {
            units as u8
        } else {
            self.big.push((obj, units));
            ESCAPE
        }
    }

    /// Sets the size of `obj` (once per object), in bytes (a multiple of the alignment),
    /// when it is not its class's instance size (arrays).
    #[inline]
    pub fn set(&mut self, obj: u32, bytes: u64) -> Result<()> {
        let u = self.units(obj, bytes);
        if !self.dense.is_empty() {
            self.dense[obj as usize] = u;
        } else if self.last.map_or(true, |l| obj > l) {
            push_grow(&mut self.vals, u)?;
            self.marks[obj as usize / 64] |= 1 << (obj % 64);
            self.last = Some(obj);
        } else {
            self.list(obj, u)?;
        }
        Ok(())
    }

    /// [`SizeBuilder::set`] for a class object (met before the objects around it).
    pub fn set_listed(&mut self, obj: u32, bytes: u64) -> Result<()> {
        let u = self.units(obj, bytes);
        if !self.dense.is_empty() {
            self.dense[obj as usize] = u;
            return Ok(());
        }
        self.list(obj, u)
    }

    #[cold]
    fn list(&mut self, obj: u32, u: u8) -> Result<()> {
        push_grow(&mut self.listed, (obj, u))?;
        if self.listed.len() > self.n / SCATTERED + 4096 {
            self.densify()?;
        }
        Ok(())
    }

    /// Turns to a byte per object.
    #[cold]
    fn densify(&mut self) -> Result<()> {
        let mut dense = crate::alloc::try_filled(self.n.max(1), 0u8, "sizes")?;
        for_each_marked(&self.marks, std::mem::take(&mut self.vals).into_iter(), |v, u| dense[v as usize] = u);
        for &(v, u) in &std::mem::take(&mut self.listed) {
            dense[v as usize] = u;
        }
        self.marks = Vec::new();
        self.dense = dense;
        Ok(())
    }

    /// The finished column; `instance_size[c]` is the instance size of class `c` in bytes,
    /// `class_of` gives each object's class index (past the table: no class).
    pub fn finish(self, instance_size: &[u64], class_of: impl Fn(u32) -> u32) -> Result<ShallowSizes> {
        let SizeBuilder { n, dense, marks, vals, mut listed, mut big, align, .. } = self;
        big.sort_unstable();
        big.dedup_by_key(|e| e.0);
        // Per class its instance size, flagged when some object of it has a stored size.
        let mut classes: Vec<u64> = instance_size.to_vec();
        let (bits, units) = if !dense.is_empty() {
            let mut units = dense;
            units.truncate(n);
            let bits = RankBits::nonzero(&units, "sizes")?;
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
            (bits, units)
        } else {
            listed.sort_unstable_by_key(|e| e.0);
            // One size per object (a second definition is not read again).
            listed.dedup_by_key(|e| e.0);
            // The listed objects' bits next to the marks, then the sizes merged by object.
            let mut k = 0;
            let bits = RankBits::build(n, "sizes", |b| {
                let mut w = marks[b];
                while k < listed.len() && listed[k].0 as usize / 64 == b {
                    w |= 1 << (listed[k].0 % 64);
                    k += 1;
                }
                w
            })?;
            let mut units = crate::alloc::try_with_capacity(bits.ones(), "sizes")?;
            let mut next = vals.iter().copied();
            let mut k = 0;
            for (b, &m) in marks.iter().enumerate() {
                let mut w = m;
                while k < listed.len() && listed[k].0 as usize / 64 == b {
                    w |= 1 << (listed[k].0 % 64);
                    k += 1;
                }
                let mut j = k - (w & !m).count_ones() as usize;
                while w != 0 {
                    let v = (b * 64) as u32 + w.trailing_zeros();
                    w &= w - 1;
                    let u = if j < k && listed[j].0 == v {
                        j += 1;
                        listed[j - 1].1
                    } else {
                        next.next().unwrap_or(0)
                    };
                    units.push(u);
                    if let Some(c) = classes.get_mut(class_of(v) as usize) {
                        *c |= STORED;
                    }
                }
            }
            (bits, units)
        };
        let mut units = units;
        units.shrink_to_fit();
        // The side table by rank: the objects are in index order, so are their ranks.
        for e in &mut big {
            e.0 = bits.rank(e.0).unwrap_or(0) as u32;
        }
        big.shrink_to_fit();
        Ok(ShallowSizes { bits, units, big, align, classes })
    }
}

/// Calls `f(object, value)` for the objects marked in `marks`, ascending, with the
/// values of `vals` in that order.
fn for_each_marked(marks: &[u64], mut vals: impl Iterator<Item = u8>, mut f: impl FnMut(u32, u8)) {
    for (b, &word) in marks.iter().enumerate() {
        let mut w = word;
        while w != 0 {
            let v = (b * 64) as u32 + w.trailing_zeros();
            w &= w - 1;
            f(v, vals.next().unwrap_or(0));
        }
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
            let mut b = SizeBuilder::new(objects.len(), align, objects.len() / 2, 3).unwrap();
            let mut order: Vec<usize> = (0..objects.len()).collect();
            let mut s = seed | 1;
            for k in (1..order.len()).rev() {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                order.swap(k, (s % (k as u64 + 1)) as usize);
            }
            for &(kind, units) in &objects {
                want.push(if kind == 0 { units * align as u64 } else { class_size.get(kind as usize - 1).copied().unwrap_or(0) });
            }
            // Some objects in order (appended), some listed, the rest shuffled.
            let (sorted, listed) = ((seed >> 8) as usize % (order.len() + 1), (seed >> 20) as usize % 4);
            order[..sorted].sort_unstable();
            for (k, &v) in order.iter().enumerate() {
                if objects[v].0 == 0 {
                    if k < listed { b.set_listed(v as u32, want[v]).unwrap() } else { b.set(v as u32, want[v]).unwrap() }
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

    /// A large dump's arrays out of order: listed until one object in `SCATTERED` is,
    /// then a byte per object; the sizes come out the same (against the plain sizes).
    #[test]
    fn scattered_sizes_turn_dense() {
        let n = 400_000usize;
        let mut b = SizeBuilder::new(n, 8, n, 0).unwrap();
        let size = |v: usize| 8 * (1 + (v as u64 * 7919) % 300);
        // Every other object, descending: the first appended, all others listed.
        for v in (0..n).rev().step_by(2) {
            b.set(v as u32, size(v)).unwrap();
            if n - v == 2 * 1000 {
                assert!(b.dense.is_empty(), "listed while few");
            }
        }
        assert!(!b.dense.is_empty(), "dense once many are listed");
        let sizes = b.finish(&[16], |_| u32::MAX).unwrap();
        for v in 0..n {
            let want = if (n - 1 - v) % 2 == 0 { size(v) } else { 0 };
            assert_eq!(sizes.get(v as u32, u32::MAX), want, "object {v}");
        }
    }
}
