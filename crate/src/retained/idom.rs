//! Immediate dominators, stored compactly.
//!
//! An object's immediate dominator is usually near it in address order (a collector
//! copies an object graph roughly depth first), so each object stores its dominator as
//! a short difference: in a byte, two bytes, or the plain `u32` when that is smaller for
//! this dump, the width chosen per dump from the exact sizes. A difference that does not
//! fit is marked and kept in a sorted side table (binary search). Measured on the
//! `make-big.sh` 1 GB dump: 98.4% of the differences fit a byte, 99.6% two bytes; on the
//! corpus dumps between 2% (ZGC, which lays objects out by size class: stored as `u32`)
//! and 99.5%. Never more than the plain 4 bytes per object.
//!
//! The values read back are [`crate::dominators`]' encoding: a node index,
//! [`VIRTUAL_ROOT`] or [`UNREACHABLE`].

use crate::dominators::{UNREACHABLE, VIRTUAL_ROOT};
use crate::error::Result;

/// Read access to immediate dominators in [`crate::dominators`]' encoding: a compact
/// [`Idom`] or a plain array (tests, other algorithms).
pub trait IdomRead {
    /// Number of objects.
    fn count(&self) -> usize;
    /// Immediate dominator of `v`: a node, [`VIRTUAL_ROOT`] or [`UNREACHABLE`].
    fn at(&self, v: u32) -> u32;
    /// The immediate dominators of `start..start + out.len()` into `out`: passes over all
    /// objects read them in runs, without decoding each object's position again.
    fn decode(&self, start: u32, out: &mut [u32]) {
        for (k, slot) in out.iter_mut().enumerate() {
            *slot = self.at(start + k as u32);
        }
    }
}

impl IdomRead for [u32] {
    fn count(&self) -> usize {
        self.len()
    }

    #[inline]
    fn at(&self, v: u32) -> u32 {
        self[v as usize]
    }

    fn decode(&self, start: u32, out: &mut [u32]) {
        out.copy_from_slice(&self[start as usize..start as usize + out.len()]);
    }
}

impl IdomRead for Vec<u32> {
    fn count(&self) -> usize {
        self.len()
    }

    #[inline]
    fn at(&self, v: u32) -> u32 {
        self[v as usize]
    }

    fn decode(&self, start: u32, out: &mut [u32]) {
        self[..].decode(start, out)
    }
}

/// Codes below the differences.
const CODE_UNREACHABLE: u32 = 0;
const CODE_ROOT: u32 = 1;
const CODE_FAR: u32 = 2;
const FIRST_DIFFERENCE: i64 = 3;

/// Immediate dominator per object, `width` bits each (8, 16 or 32 = plain), packed in
/// `u32` words.
pub struct Idom {
    n: u32,
    /// Bits per object: 8, 16, or 32 (the plain value).
    width: u32,
    words: Vec<u32>,
    /// (object, dominator) of the objects coded [`CODE_FAR`], by object.
    far: Vec<(u32, u32)>,
    /// Per block of [`FAR_BLOCK`] objects: where its entries start in `far` (and the end).
    far_blocks: Vec<u32>,
}

/// Objects per block of the side table's index: a lookup searches one block's entries.
const FAR_BLOCK: usize = 1024;

/// The code of `p` as the dominator of `v` in `width` bits, if it fits.
#[inline]
fn encode(v: u32, p: u32, width: u32) -> Option<u32> {
    match p {
        UNREACHABLE => Some(CODE_UNREACHABLE),
        VIRTUAL_ROOT => Some(CODE_ROOT),
        p => {
            let c = p as i64 - v as i64 + (1i64 << (width - 1));
            (FIRST_DIFFERENCE..1i64 << width).contains(&c).then_some(c as u32)
        }
    }
}

impl Idom {
    /// Packs `idom` (reusing its buffer: the words are written over the values already
    /// read, then the array is shrunk), with the width that takes the fewest bytes.
    pub fn compact(mut idom: Vec<u32>) -> Result<Idom> {
        let n = idom.len();
        let (mut far8, mut far16) = (0usize, 0usize);
        // `encode`'s test for both widths at once: the two special values always fit, and a
        // difference fits `w` bits when it is in FIRST_DIFFERENCE - 2^(w-1) ..= 2^(w-1) - 1.
        for (v, &p) in idom.iter().enumerate() {
            if p == UNREACHABLE || p == VIRTUAL_ROOT {
                continue;
            }
            let d = p as i64 - v as i64;
            far8 += !(FIRST_DIFFERENCE - 128..=127).contains(&d) as usize;
            far16 += !(FIRST_DIFFERENCE - 32_768..=32_767).contains(&d) as usize;
        }
        debug_assert_eq!(far8, (0..n).filter(|&v| encode(v as u32, idom[v], 8).is_none()).count());
        debug_assert_eq!(far16, (0..n).filter(|&v| encode(v as u32, idom[v], 16).is_none()).count());
        let size = |width: usize, far: usize| n.div_ceil(32 / width) * 4 + far * 8 + (n.div_ceil(FAR_BLOCK) + 1) * 4;
        let (width, far_count) =
            [(8, far8), (16, far16)].into_iter().min_by_key(|&(w, f)| size(w, f)).expect("two widths");
        if size(width, far_count) >= 4 * n {
            return Ok(Idom { n: n as u32, width: 32, words: idom, far: Vec::new(), far_blocks: Vec::new() });
        }
        let mut far = crate::alloc::try_with_capacity(far_count, "the dominator side table")?;
        let mut far_blocks = crate::alloc::try_with_capacity(n.div_ceil(FAR_BLOCK) + 1, "the dominator side table")?;
        let per = 32 / width;
        let words = n.div_ceil(per);
        for k in 0..words {
            if k * per % FAR_BLOCK == 0 {
                far_blocks.push(far.len() as u32);
            }
            let mut word = 0u32;
            // Word k holds objects k·per.. (never before k): they are read before it is written.
            for j in 0..per.min(n - k * per) {
                let v = (k * per + j) as u32;
                let p = idom[v as usize];
                let c = encode(v, p, width as u32).unwrap_or_else(|| {
                    far.push((v, p));
                    CODE_FAR
                });
                word |= c << (j as u32 * width as u32);
            }
            idom[k] = word;
        }
        far_blocks.push(far.len() as u32);
        idom.truncate(words);
        idom.shrink_to_fit();
        Ok(Idom { n: n as u32, width: width as u32, words: idom, far, far_blocks })
    }

    /// Immediate dominator of `v`: a node, [`VIRTUAL_ROOT`] or [`UNREACHABLE`].
    #[inline]
    pub fn get(&self, v: u32) -> u32 {
        if self.width == 32 {
            return self.words[v as usize];
        }
        let shift = if self.width == 8 { 2 } else { 1 };
        let word = self.words[(v >> shift) as usize];
        let c = (word >> ((v & ((1 << shift) - 1)) * self.width)) & ((1u32 << self.width) - 1);
        match c {
            CODE_UNREACHABLE => UNREACHABLE,
            CODE_ROOT => VIRTUAL_ROOT,
            CODE_FAR => self.far_get(v),
            c => (v as i64 + c as i64 - (1i64 << (self.width - 1))) as u32,
        }
    }

    /// [`IdomRead::decode`] word by word.
    fn decode_run(&self, start: u32, out: &mut [u32]) {
        if self.width == 32 {
            return out.copy_from_slice(&self.words[start as usize..start as usize + out.len()]);
        }
        let (width, per) = (self.width, 32 / self.width);
        let mask = (1u32 << width) - 1;
        let half = 1i64 << (width - 1);
        // A 1 in every field of a word, and the fields' top bits: a word none of whose
        // fields holds a code below FIRST_DIFFERENCE (nearly all) is decoded without a
        // branch per field ("has a field less than 3", exact for fields of 8 bits or more).
        let ones: u32 = u32::MAX / mask;
        let tops = ones << (width - 1);
        let below = ones * FIRST_DIFFERENCE as u32;
        let mut v = start;
        let mut k = 0;
        while k < out.len() {
            let whole = self.words[(v / per) as usize];
            if v % per == 0 && out.len() - k >= per as usize && whole.wrapping_sub(below) & !whole & tops == 0 {
                let mut word = whole;
                for slot in &mut out[k..k + per as usize] {
                    *slot = (v as i64 + (word & mask) as i64 - half) as u32;
                    word >>= width;
                    v += 1;
                }
                k += per as usize;
                continue;
            }
            // The rest of the word holding `v`.
            let mut word = whole >> (v % per * width);
            let take = ((per - v % per) as usize).min(out.len() - k);
            for slot in &mut out[k..k + take] {
                *slot = match word & mask {
                    CODE_UNREACHABLE => UNREACHABLE,
                    CODE_ROOT => VIRTUAL_ROOT,
                    CODE_FAR => self.far_get(v),
                    c => (v as i64 + c as i64 - half) as u32,
                };
                word >>= width;
                v += 1;
            }
            k += take;
        }
    }

    #[cold]
    fn far_get(&self, v: u32) -> u32 {
        let b = v as usize / FAR_BLOCK;
        let block = &self.far[self.far_blocks[b] as usize..self.far_blocks[b + 1] as usize];
        block.binary_search_by_key(&v, |e| e.0).map_or(UNREACHABLE, |k| block[k].1)
    }

    pub fn len(&self) -> usize {
        self.n as usize
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Bits per object of the packed values (8, 16, or 32 when stored plain).
    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn memory_bytes(&self) -> usize {
        self.words.capacity() * 4 + self.far.capacity() * 8 + self.far_blocks.capacity() * 4
    }
}

impl IdomRead for Idom {
    fn count(&self) -> usize {
        self.len()
    }

    #[inline]
    fn at(&self, v: u32) -> u32 {
        self.get(v)
    }

    fn decode(&self, start: u32, out: &mut [u32]) {
        self.decode_run(start, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retained::tests::xorshift as rand;

    /// Every value read back equals the array packed, for dominators near, far and at the
    /// limits of each width; the widths chosen are the smallest and never above 4 bytes.
    #[test]
    fn reads_back_what_was_packed() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..60u64 {
            let n = [0usize, 1, 2, 3, 5, 1000, 4097][round as usize % 7] + round as usize * 37;
            // Spread of the differences: within a byte, two bytes, or anywhere.
            let spread = [100u64, 30_000, 1 << 40][round as usize % 3];
            let far_share = [0u64, 1, 10, 100][(round / 3) as usize % 4];
            let idom: Vec<u32> = (0..n as u64)
                .map(|v| match rand(&mut seed, 100) {
                    0..=4 => UNREACHABLE,
                    5..=9 => VIRTUAL_ROOT,
                    r if r < 10 + far_share => rand(&mut seed, n as u64) as u32,
                    _ => {
                        let d = rand(&mut seed, spread.min(2 * n as u64 + 1)) as i64 - spread.min(n as u64) as i64;
                        (v as i64 + d).clamp(0, n as i64 - 1) as u32
                    }
                })
                .collect();
            let packed = Idom::compact(idom.clone()).unwrap();
            assert_eq!(packed.len(), n);
            for v in 0..n as u32 {
                assert_eq!(packed.get(v), idom[v as usize], "round {round}, object {v}");
            }
            // Runs decoded at once: from any object (inside a word or at its start), of
            // any length up to the end, empty ones too.
            for _ in 0..50 {
                let start = rand(&mut seed, n as u64 + 1) as usize;
                let len = rand(&mut seed, (n - start) as u64 + 1) as usize;
                let mut out = vec![0u32; len];
                packed.decode(start as u32, &mut out);
                assert_eq!(out, idom[start..start + len], "round {round}, run {start}+{len}");
            }
            assert!(packed.memory_bytes() <= 4 * n, "round {round}: {} bytes for {n} objects", packed.memory_bytes());
            // The width with the fewest bytes, from the definition of each code's range.
            let bytes = |w: u32| {
                let far = idom.iter().enumerate().filter(|&(v, &p)| {
                    let d = p as i64 - v as i64;
                    p != UNREACHABLE && p != VIRTUAL_ROOT && !(d >= 3 - (1 << (w - 1)) && d < 1 << (w - 1))
                });
                n.div_ceil(32 / w as usize) * 4 + far.count() * 8 + (n.div_ceil(1024) + 1) * 4
            };
            let best = [8, 16].into_iter().map(bytes).min().unwrap();
            if best < 4 * n {
                assert_eq!(bytes(packed.width()), best, "round {round}");
            } else {
                assert_eq!(packed.width(), 32, "round {round}");
            }
        }
    }

    #[test]
    fn differences_at_the_edges_of_a_byte() {
        // v = 200: dominators 200 - 125 (the lowest that fits), 200 + 127 (the highest),
        // and one past each end (side table).
        let n = 400;
        for (p, fits) in [(75u32, true), (327, true), (74, false), (328, false)] {
            let mut idom = vec![VIRTUAL_ROOT; n];
            idom[200] = p;
            let packed = Idom::compact(idom).unwrap();
            assert_eq!(packed.width(), 8);
            assert_eq!(packed.get(200), p);
            assert_eq!(packed.far.len(), (!fits) as usize, "dominator {p}");
            assert_eq!(packed.get(199), VIRTUAL_ROOT);
        }
    }
}
