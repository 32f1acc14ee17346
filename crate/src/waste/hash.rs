//! A streaming 64-bit hash of an array's bytes, fed in pieces as the dump is read, with
//! the state kept after the first 1024 and 2048 bytes: MAT shows (and groups strings
//! by) at most 1024 characters, which is 1024 bytes of a Latin-1 `byte[]` and 2048
//! bytes of a `char[]` or UTF-16 `byte[]`.
//!
//! Each 8-byte word is folded in with a 64×64→128-bit multiply (high and low halves
//! xored), a mixing step that spreads every input bit over the state. Two different
//! contents collide with probability about 2⁻⁶⁴ per pair: among 10⁷ strings, about one
//! chance in 10⁵ that any two distinct values merge.

const K0: u64 = 0xa076_1d64_78bd_642f;
const K1: u64 = 0xe703_7ed1_a0b4_28db;
const K2: u64 = 0x8ebc_6af0_9c88_c6e3;

#[inline]
fn mum(a: u64, b: u64) -> u64 {
    let (lo, hi) = wide_mul(a, b);
    lo ^ hi
}

/// The 128-bit product of `a` and `b` as (low, high) halves.
#[cfg(not(target_arch = "wasm32"))]
#[inline]
fn wide_mul(a: u64, b: u64) -> (u64, u64) {
    let r = a as u128 * b as u128;
    (r as u64, (r >> 64) as u64)
}

/// The 128-bit product of `a` and `b` as (low, high) halves. Wasm has no 64×64→128
/// multiply: `u128` arithmetic there calls `__multi3` (a full 128×128 product) for every
/// word hashed, a seventh of pass 1 in the page; four 32×32→64 products inline are the same
/// value for a fraction of the cost. LLVM recognizes them written as scalar code and
/// turns them back into the `__multi3` call, so with wasm SIMD (the page's build) two
/// extending multiplies compute the four.
#[cfg(target_arch = "wasm32")]
#[inline]
pub fn wide_mul(a: u64, b: u64) -> (u64, u64) {
    #[cfg(target_feature = "simd128")]
    {
        use core::arch::wasm32::{u64x2, u64x2_extmul_high_u32x4, u64x2_extmul_low_u32x4, u64x2_extract_lane};
        const LOW: u64 = 0xffff_ffff;
        // As 32-bit lanes: a = [a0, a1, a0, a1], b = [b0, b1, b1, b0].
        let (va, vb) = (u64x2(a, a), u64x2(b, b.rotate_left(32)));
        let (low, high) = (u64x2_extmul_low_u32x4(va, vb), u64x2_extmul_high_u32x4(va, vb));
        let (ll, hh) = (u64x2_extract_lane::<0>(low), u64x2_extract_lane::<1>(low));
        let (lh, hl) = (u64x2_extract_lane::<0>(high), u64x2_extract_lane::<1>(high));
        // At most (2³²-1)² + 2(2³²-1) = 2⁶⁴-1: no overflow.
        let mid = (ll >> 32) + (lh & LOW) + hl;
        (a.wrapping_mul(b), hh + (lh >> 32) + (mid >> 32))
    }
    #[cfg(not(target_feature = "simd128"))]
    wide_mul_halves(a, b)
}

#[cfg_attr(not(any(test, all(target_arch = "wasm32", not(target_feature = "simd128")))), allow(dead_code))]
#[inline]
fn wide_mul_halves(a: u64, b: u64) -> (u64, u64) {
    const LOW: u64 = 0xffff_ffff;
    let (a0, a1, b0, b1) = (a & LOW, a >> 32, b & LOW, b >> 32);
    let ll = a0 * b0;
    let lh = a0 * b1;
    let hl = a1 * b0;
    // At most (2³²-1)² + 2(2³²-1) = 2⁶⁴-1: no overflow.
    let mid = (ll >> 32) + (lh & LOW) + hl;
    (a.wrapping_mul(b), a1 * b1 + (lh >> 32) + (mid >> 32))
}

/// The hash of `len` bytes whose words left the state `h`; `tag` separates kinds of
/// contents (element types, truncated prefixes).
#[inline]
pub fn finish(h: u64, len: u64, tag: u64) -> u64 {
    mum(mum(h ^ len.wrapping_mul(K2), K0 ^ tag) ^ K1, K2 ^ tag.rotate_left(17))
}

/// Combines a hash with a small discriminant (e.g. how a string reads its array).
#[inline]
pub fn mix(h: u64, tag: u64) -> u64 {
    mum(h ^ K1, K0 ^ tag.wrapping_mul(K2).wrapping_add(1))
}

/// Prefix lengths whose states are kept.
pub const HEAD_SHORT: u64 = 1024;
pub const HEAD_LONG: u64 = 2048;

#[derive(Debug, Clone, Default)]
pub struct StreamHash {
    h: u64,
    tail: [u8; 8],
    tail_len: usize,
    len: u64,
    /// States after exactly [`HEAD_SHORT`] and [`HEAD_LONG`] bytes (when reached).
    short: u64,
    long: u64,
    /// The words fed, or'ed together (all zero: every byte was zero).
    ored: u64,
}

impl StreamHash {
    pub fn new() -> StreamHash {
        StreamHash::default()
    }

    #[inline]
    fn word(&mut self, w: u64) {
        self.ored |= w;
        self.h = mum(self.h ^ w, K1);
        self.len += 8;
        // Both heads are multiples of 8, so they fall between words.
        if self.len == HEAD_SHORT {
            self.short = self.h;
        } else if self.len == HEAD_LONG {
            self.long = self.h;
        }
    }

    /// Feeds the next bytes.
    pub fn update(&mut self, mut data: &[u8]) {
        if self.tail_len > 0 {
            let take = (8 - self.tail_len).min(data.len());
            self.tail[self.tail_len..self.tail_len + take].copy_from_slice(&data[..take]);
            self.tail_len += take;
            data = &data[take..];
            if self.tail_len < 8 {
                return;
            }
            self.tail_len = 0;
            self.word(u64::from_le_bytes(self.tail));
        }
        let mut words = data.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        self.tail[..rest.len()].copy_from_slice(rest);
        self.tail_len = rest.len();
    }

    /// Bytes fed so far.
    pub fn len(&self) -> u64 {
        self.len + self.tail_len as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every byte fed so far is zero (true when none was fed).
    pub fn all_zero(&self) -> bool {
        self.ored == 0 && self.tail[..self.tail_len].iter().all(|&b| b == 0)
    }

    /// The hash of everything fed, tagged; the hasher is reset for the next array.
    pub fn finish_all(&mut self, tag: u64) -> u64 {
        let mut h = self.h;
        if self.tail_len > 0 {
            let mut last = [0u8; 8];
            last[..self.tail_len].copy_from_slice(&self.tail[..self.tail_len]);
            h = mum(h ^ u64::from_le_bytes(last), K1);
        }
        let out = finish(h, self.len(), tag);
        *self = StreamHash::default();
        out
    }

    /// The hash of the first `head` bytes ([`HEAD_SHORT`] or [`HEAD_LONG`]) of a longer
    /// content, tagged; only meaningful when more than `head` bytes were fed. Call
    /// before [`StreamHash::finish_all`].
    pub fn head(&self, head: u64, tag: u64) -> u64 {
        let state = if head == HEAD_SHORT { self.short } else { self.long };
        finish(state, head, tag ^ TRUNCATED)
    }
}

/// Tag bit of a hash of a prefix cut short ("..." in MAT's text).
pub const TRUNCATED: u64 = 1 << 40;

/// The hash of `bytes` in one piece (tests and callers with the whole content).
pub fn hash_bytes(bytes: &[u8], tag: u64) -> u64 {
    let mut h = StreamHash::new();
    h.update(bytes);
    h.finish_all(tag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn wide_mul_halves_is_the_128_bit_product(a in any::<u64>(), b in any::<u64>()) {
            let r = a as u128 * b as u128;
            prop_assert_eq!(wide_mul_halves(a, b), (r as u64, (r >> 64) as u64));
        }
    }

    #[test]
    fn wide_mul_halves_at_the_extremes() {
        for a in [0, 1, u32::MAX as u64, 1 << 32, u64::MAX - 1, u64::MAX] {
            for b in [0, 1, u32::MAX as u64, 1 << 32, u64::MAX - 1, u64::MAX] {
                let r = a as u128 * b as u128;
                assert_eq!(wide_mul_halves(a, b), (r as u64, (r >> 64) as u64), "{a:#x} * {b:#x}");
            }
        }
    }

    #[test]
    fn pieces_do_not_change_the_hash() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = hash_bytes(&data, 3);
        for cut in [1, 3, 8, 13, 1024, 1500, 4999] {
            let mut h = StreamHash::new();
            for piece in data.chunks(cut) {
                h.update(piece);
            }
            assert_eq!(h.finish_all(3), whole, "pieces of {cut}");
        }
    }

    #[test]
    fn heads_equal_hashes_of_prefixes_cut_short() {
        let data: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
        let mut h = StreamHash::new();
        h.update(&data);
        let mut other = data[..2048].to_vec();
        other.extend_from_slice(b"a different tail");
        let mut g = StreamHash::new();
        g.update(&other);
        assert_eq!(h.head(HEAD_SHORT, 1), g.head(HEAD_SHORT, 1));
        assert_eq!(h.head(HEAD_LONG, 1), g.head(HEAD_LONG, 1));
        assert_ne!(h.head(HEAD_SHORT, 1), h.head(HEAD_LONG, 1));
        assert_ne!(h.finish_all(1), g.finish_all(1));
    }

    #[test]
    fn lengths_tags_and_zero_bytes_matter() {
        assert_ne!(hash_bytes(b"", 0), hash_bytes(b"\0", 0));
        assert_ne!(hash_bytes(b"\0", 0), hash_bytes(b"\0\0", 0));
        assert_ne!(hash_bytes(&[0; 8], 0), hash_bytes(&[0; 16], 0));
        assert_ne!(hash_bytes(b"abc", 0), hash_bytes(b"abc", 1));
        assert_eq!(hash_bytes(b"abc", 4), hash_bytes(b"abc", 4));
    }
}
