//! The primitive arrays' hashes, computed in pass 1 while the bytes go by (pass 1 reads
//! them anyway), so that pass 2 never needs an array's body: it takes the hashes back in
//! the same record order ([`ArrayHashes::take`]) and skips the bodies unread.
//!
//! Both passes see exactly the same records in the same order (pass 2 stops where pass
//! 1 broke off and keeps the same snapshot), so the k-th primitive array record of pass 2
//! is the k-th of pass 1: no identifier is stored. Per record: one 64-bit hash (8 bytes
//! in pass 1's chunks, then in place for pass 2, see [`ArrayHashes`]), plus the hashes of the first 1024 and 2048
//! bytes of the rare `byte[]`/`char[]` longer than 1024 bytes (MAT groups strings by at
//! most 1024 characters), in a side list.
//!
//! The hash's three low bits are flags ([`ODD_BYTES`], [`super::arrays::ALL_ZERO`],
//! [`LONG_ARRAY`]); see [`super::collect`] for how they are read.

use std::collections::VecDeque;

use super::arrays::Entry;
use super::hash::{StreamHash, HEAD_LONG, HEAD_SHORT};
use crate::error::{Error, Result};
use crate::records::basic_type;

/// Hash bit: a `byte[]` of odd length of at most 2048 bytes: MAT cannot read it two bytes
/// per character (its last pair has no second byte); a longer one MAT cuts at 1024 pairs.
pub const ODD_BYTES: u64 = 1;
/// Hash bit: longer than 1024 bytes (its heads are in the side list when a `byte[]` or
/// `char[]`).
pub const LONG_ARRAY: u64 = 4;

/// Hashes per chunk (8 MiB): freed one by one as pass 2 takes them.
const CHUNK: usize = 1 << 20;

/// The hashes of pass 1, in record order, taken back by pass 2.
///
/// Pass 1 fills chunks; at its end they are moved into one array of hashes, one per
/// record, before pass 1 frees its own temporaries. Pass 2 keeps the hashes of the arrays
/// it keeps in place, at the front of that array ([`ArrayHashes::keep`]), 8 bytes each,
/// and says which objects they are with one bit per object: arrays come in object order
/// in address-ordered dumps, so the k-th kept hash is the k-th object marked. Only when
/// an array comes below the last one kept are the objects listed too (4 bytes each), and
/// [`ArrayHashes::into_kept`] then puts the hashes in object order in place. In a wasm
/// instance, whose memory never shrinks, a second array of the same size would stay part
/// of the peak.
#[derive(Default)]
pub struct ArrayHashes {
    chunks: VecDeque<Vec<u64>>,
    /// One hash per record; the first `kept` are those kept, in the order kept.
    hashes: Vec<u64>,
    kept: usize,
    /// One bit per object: an array kept (allocated by [`ArrayHashes::start`]).
    marks: Vec<u64>,
    /// The last object kept, while they come in ascending order.
    last: Option<u32>,
    /// The objects kept, in the order kept, once one came out of order (empty before).
    listed: Vec<u32>,
    ascending: bool,
    /// (record number, hash of the first 1024 bytes, of the first 2048 bytes or of all
    /// when shorter) of the `byte[]` and `char[]` longer than 1024 bytes, ascending.
    heads: Vec<(u64, u64, u64)>,
    /// The record number of the next [`ArrayHashes::take`], and where it is in `heads`.
    next: u64,
    head_at: usize,
}

/// The kept arrays in object order: which objects (one bit each, with the number of
/// arrays in the words before each word), and their hashes by rank.
pub struct KeptArrays {
    marks: Vec<u64>,
    ranks: Vec<u32>,
    hashes: Vec<u64>,
}

impl KeptArrays {
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The rank (position in object order) of the kept array `obj`, if it is one.
    #[inline]
    pub fn position(&self, obj: u32) -> Option<usize> {
        let (w, b) = (obj as usize / 64, obj % 64);
        let word = *self.marks.get(w)?;
        if word >> b & 1 == 0 {
            return None;
        }
        Some(self.ranks[w] as usize + (word & ((1u64 << b) - 1)).count_ones() as usize)
    }

    /// The hash of the array at rank `k`.
    #[inline]
    pub fn hash(&self, k: usize) -> u64 {
        self.hashes[k]
    }

    /// The kept arrays for which `keep(rank, obj)` holds, as the waste report's entries
    /// in object order. The others' hashes are dropped in place first, so that the
    /// entries are allocated next to the hashes of those only.
    pub fn into_entries(mut self, mut keep: impl FnMut(usize, u32) -> bool) -> Result<Vec<Entry>> {
        let mut n = 0usize;
        let mut k = 0usize;
        for (w, word) in self.marks.iter_mut().enumerate() {
            let mut bits = *word;
            while bits != 0 {
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                if keep(k, (w * 64) as u32 + b) {
                    self.hashes[n] = self.hashes[k];
                    n += 1;
                } else {
                    *word &= !(1u64 << b);
                }
                k += 1;
            }
        }
        self.hashes.truncate(n);
        self.hashes.shrink_to_fit();
        drop(self.ranks);
        let mut out = Vec::new();
        out.try_reserve_exact(n).map_err(|_| memory(n as u64))?;
        let mut k = 0usize;
        for (w, &word) in self.marks.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                out.push(Entry { hash: self.hashes[k], obj: (w * 64) as u32 + b });
                k += 1;
            }
        }
        Ok(out)
    }
}

impl ArrayHashes {
    /// Readies [`ArrayHashes::keep`] for a dump of `objects` objects.
    pub fn start(&mut self, objects: usize) -> Result<()> {
        self.marks = crate::alloc::try_filled(objects.div_ceil(64), 0u64, "the waste report's array marks")?;
        self.ascending = true;
        Ok(())
    }

    /// The next record's hash, and its heads (1024 and 2048 bytes) when it is a long
    /// `byte[]` or `char[]`; None past the last record of pass 1.
    #[inline]
    pub fn take(&mut self) -> Option<(u64, Option<(u64, u64)>)> {
        let full = *self.hashes.get(self.next as usize)?;
        let n = self.next;
        self.next += 1;
        let heads = match self.heads.get(self.head_at) {
            Some(&(k, short, long)) if k == n => {
                self.head_at += 1;
                Some((short, long))
            }
            _ => None,
        };
        Some((full, heads))
    }

    /// Keeps the record last taken as the waste report's entry for object `obj` (each
    /// object once: a second keep of one is ignored).
    #[inline]
    pub fn keep(&mut self, obj: u32) -> Result<()> {
        let Some(last) = (self.next as usize).checked_sub(1) else { return Ok(()) };
        let (w, b) = (obj as usize / 64, 1u64 << (obj % 64));
        match self.marks.get(w) {
            Some(&word) if word & b == 0 => {}
            _ => return Ok(()),
        }
        if self.ascending && self.last.is_some_and(|l| obj < l) {
            self.list()?;
        }
        self.marks[w] |= b;
        self.last = Some(obj);
        if !self.ascending {
            self.listed.push(obj);
        }
        // `kept` never passes `next`: the hash written is one already taken.
        self.hashes[self.kept] = self.hashes[last];
        self.kept += 1;
        Ok(())
    }

    /// An array came below the last one kept: lists the objects kept so far (in
    /// ascending order, the marks' order) and from now on every one.
    #[cold]
    fn list(&mut self) -> Result<()> {
        let mut listed = Vec::new();
        listed.try_reserve_exact(self.hashes.len()).map_err(|_| memory(self.next))?;
        for (w, &word) in self.marks.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                listed.push((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        self.listed = listed;
        self.ascending = false;
        Ok(())
    }

    /// The arrays kept, in object order (the hashes reordered in place when they came
    /// out of order).
    pub fn into_kept(self) -> Result<KeptArrays> {
        let ArrayHashes { mut hashes, kept, marks, mut listed, ascending, .. } = self;
        hashes.truncate(kept);
        let mut ranks = crate::alloc::try_filled(marks.len(), 0u32, "the waste report's array marks")?;
        let mut r = 0u32;
        for (rank, &w) in ranks.iter_mut().zip(&marks) {
            *rank = r;
            r += w.count_ones();
        }
        let sorted = KeptArrays { marks, ranks, hashes: Vec::new() };
        if !ascending {
            // Each listed object's rank is where its hash goes: a permutation of
            // 0..kept (the marks are distinct), applied by following its cycles.
            for o in listed.iter_mut() {
                *o = sorted.position(*o).map_or(0, |k| k as u32);
            }
            for i in 0..listed.len() {
                while listed[i] as usize != i {
                    let d = listed[i] as usize;
                    hashes.swap(i, d);
                    listed.swap(i, d);
                }
            }
        }
        Ok(KeptArrays { hashes, ..sorted })
    }

    /// Heap bytes held (for memory accounting).
    pub fn memory_bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.capacity() * 8).sum::<usize>()
            + self.hashes.capacity() * 8
            + self.marks.capacity() * 8
            + self.listed.capacity() * 4
            + self.heads.capacity() * 24
    }
}

/// Pass 1's side: the bytes of each primitive array record, then the record's end.
#[derive(Default)]
pub struct ArrayHasher {
    hash: StreamHash,
    /// The chunk being filled (moved to `out` when full).
    current: Vec<u64>,
    out: ArrayHashes,
    records: u64,
}

impl ArrayHasher {
    /// The next bytes of the array whose record comes next.
    #[inline]
    pub fn data(&mut self, data: &[u8]) {
        self.hash.update(data);
    }

    /// The end of a primitive array record of element type `ty` (with or without data).
    pub fn array(&mut self, ty: u8) -> Result<()> {
        let h = &mut self.hash;
        let bytes = h.len();
        let heads = (bytes > HEAD_SHORT)
            .then(|| (h.head(HEAD_SHORT, ty as u64), (bytes > HEAD_LONG).then(|| h.head(HEAD_LONG, ty as u64))));
        let zero = bytes > 0 && h.all_zero();
        let flags = if ty == basic_type::BYTE && bytes % 2 == 1 && bytes <= HEAD_LONG { ODD_BYTES } else { 0 }
            | if zero { super::arrays::ALL_ZERO } else { 0 }
            | if heads.is_some() { LONG_ARRAY } else { 0 };
        let full = (h.finish_all(ty as u64) & !7) | flags;
        if self.current.len() == self.current.capacity() {
            self.next_chunk()?;
        }
        self.current.push(full);
        let out = &mut self.out;
        // Only byte[] and char[] back strings; two-byte readings are cut at 2048 bytes:
        // up to there the whole content counts.
        if let (Some((short, long)), true) = (heads, ty == basic_type::BYTE || ty == basic_type::CHAR) {
            if out.heads.len() == out.heads.capacity() {
                out.heads.try_reserve(out.heads.len().max(256)).map_err(|_| memory(self.records))?;
            }
            out.heads.push((self.records, short, long.unwrap_or(full)));
        }
        self.records += 1;
        Ok(())
    }

    #[cold]
    fn next_chunk(&mut self) -> Result<()> {
        let mut c = Vec::new();
        c.try_reserve_exact(CHUNK).map_err(|_| memory(self.records))?;
        self.out.chunks.try_reserve(1).map_err(|_| memory(self.records))?;
        let full = std::mem::replace(&mut self.current, c);
        if !full.is_empty() {
            self.out.chunks.push_back(full);
        }
        Ok(())
    }

    /// The hashes, for pass 2, in one array sized to the records (each chunk freed as
    /// soon as it is copied).
    pub fn finish(mut self) -> Result<ArrayHashes> {
        let last = std::mem::take(&mut self.current);
        if !last.is_empty() {
            self.out.chunks.push_back(last);
        }
        let mut hashes = Vec::new();
        hashes.try_reserve_exact(self.records as usize).map_err(|_| memory(self.records))?;
        while let Some(c) = self.out.chunks.pop_front() {
            hashes.extend_from_slice(&c);
        }
        self.out.hashes = hashes;
        Ok(self.out)
    }
}

fn memory(records: u64) -> Error {
    Error::memory(format!("out of memory hashing primitive arrays for the waste report after {records} arrays"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::waste::hash::hash_bytes;

    #[test]
    fn hashes_come_back_in_record_order_with_heads_of_long_text_arrays() {
        let mut h = ArrayHasher::default();
        let long: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
        let arrays: Vec<(u8, Vec<u8>)> = (0..(CHUNK as u32 + 10))
            .map(|i| (basic_type::INT, i.to_le_bytes().to_vec()))
            .chain([
                (basic_type::BYTE, long.clone()),
                (basic_type::INT, long.clone()),
                (basic_type::BYTE, vec![0, 0, 0]),
            ])
            .collect();
        for (ty, data) in &arrays {
            // In pieces, as the walk hands them over.
            for piece in data.chunks(7) {
                h.data(piece);
            }
            h.array(*ty).unwrap();
        }
        let mut out = h.finish().unwrap();
        for (k, (ty, data)) in arrays.iter().enumerate() {
            let (full, heads) = out.take().expect("a hash per record");
            assert_eq!(full & !7, hash_bytes(data, *ty as u64) & !7, "record {k}");
            let is_long = data.len() > 1024;
            assert_eq!(full & LONG_ARRAY != 0, is_long);
            // Heads only for the long byte[] (not the int[] of the same bytes).
            assert_eq!(heads.is_some(), is_long && *ty == basic_type::BYTE, "record {k}");
        }
        let last = arrays.last().unwrap();
        assert_eq!(last.1, vec![0, 0, 0]);
        assert!(out.take().is_none());
    }

    /// Hashes of the records kept, as objects given in record order: ascending (the
    /// bits alone say which), or out of order from some record on (listed, then put in
    /// object order in place); against the records' own hashes sorted by object.
    #[test]
    fn kept_records_come_back_in_object_order() {
        let n = CHUNK as u32 + 300;
        let arrays: Vec<Vec<u8>> = (0..n).map(|i| i.to_be_bytes().to_vec()).collect();
        let hash = |k: usize| hash_bytes(&arrays[k], basic_type::INT as u64);
        // (name, object of record k or None when not kept)
        let ascending = |k: u32| (k % 3 == 0).then_some(10 * k);
        let swapped = |k: u32| (k % 3 == 0).then_some(if k < n / 2 { 10 * (k + n / 2) } else { 10 * (k - n / 2) + 1 });
        let scrambled = |k: u32| (k % 2 == 1).then_some(k.wrapping_mul(2_654_435_761) % (11 * n));
        for (name, obj_of) in [
            ("ascending", &ascending as &dyn Fn(u32) -> Option<u32>),
            ("regions swapped", &swapped),
            ("scrambled", &scrambled),
        ] {
            let mut h = ArrayHasher::default();
            for data in &arrays {
                h.data(data);
                h.array(basic_type::INT).unwrap();
            }
            let mut out = h.finish().unwrap();
            out.start(11 * n as usize).unwrap();
            let mut want = Vec::new();
            for k in 0..n {
                let (full, _) = out.take().unwrap();
                assert_eq!(full & !7, hash(k as usize) & !7, "{name}: record {k}");
                if let Some(obj) = obj_of(k) {
                    out.keep(obj).unwrap();
                    // A second keep of the same object is ignored.
                    out.keep(obj).unwrap();
                    want.push((obj, hash(k as usize) & !7));
                }
            }
            want.sort_unstable();
            want.dedup_by_key(|e| e.0);
            let kept = out.into_kept().unwrap();
            assert_eq!(kept.len(), want.len(), "{name}");
            for (rank, &(obj, h)) in want.iter().enumerate() {
                assert_eq!(kept.position(obj), Some(rank), "{name}: object {obj}");
                assert_eq!(kept.hash(rank) & !7, h, "{name}: object {obj}");
            }
            assert_eq!(kept.position(want[0].0 + 1).filter(|_| !want.iter().any(|e| e.0 == want[0].0 + 1)), None);
            // Every fifth one by rank, as the report's entries in object order.
            let entries = kept.into_entries(|rank, _| rank % 5 == 0).unwrap();
            let got: Vec<(u32, u64)> = entries.iter().map(|e| (e.obj(), e.hash() & !7)).collect();
            let want5: Vec<(u32, u64)> = want.iter().copied().step_by(5).collect();
            assert_eq!(got, want5, "{name}");
        }
    }

    #[test]
    fn flags_say_odd_byte_arrays_and_all_zero_ones() {
        let mut h = ArrayHasher::default();
        for (ty, data) in [
            (basic_type::BYTE, vec![1u8, 2, 3]),
            (basic_type::BYTE, vec![0u8; 4]),
            (basic_type::CHAR, vec![0u8, 1]),
            (basic_type::BYTE, vec![]),
        ] {
            h.data(&data);
            h.array(ty).unwrap();
        }
        let mut out = h.finish().unwrap();
        let flags: Vec<u64> = std::iter::from_fn(|| out.take()).map(|(f, _)| f & 7).collect();
        assert_eq!(flags, vec![ODD_BYTES, super::super::arrays::ALL_ZERO, 0, 0]);
    }
}
