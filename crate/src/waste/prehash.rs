//! The primitive arrays' hashes, computed in pass 1 while the bytes go by (pass 1 reads
//! them anyway), so that pass 2 never needs an array's body: it takes the hashes back in
//! the same record order ([`ArrayHashes::take`]) and skips the bodies unread.
//!
//! Both passes see exactly the same records in the same order (pass 2 stops where pass
//! 1 broke off and keeps the same snapshot), so the k-th primitive array record of pass 2
//! is the k-th of pass 1: no identifier is stored. Per record: one 64-bit hash (8 bytes
//! in pass 1's chunks, then 12 in the waste report's entry, see [`ArrayHashes`]), plus the hashes of the first 1024 and 2048
//! bytes of the rare `byte[]`/`char[]` longer than 1024 bytes (MAT groups strings by at
//! most 1024 characters), in a side list.
//!
//! The hash's three low bits are flags ([`ODD_BYTES`], [`super::arrays::ALL_ZERO`],
//! [`LONG_ARRAY`]); see [`super::collect`] for how they are read.

use std::collections::VecDeque;

use super::hash::{StreamHash, HEAD_LONG, HEAD_SHORT};
use crate::error::{Error, Result};
use crate::records::basic_type;
use super::arrays::Entry;

/// Hash bit: a `byte[]` of odd length (MAT cannot read it two bytes per character).
pub const ODD_BYTES: u64 = 1;
/// Hash bit: longer than 1024 bytes (its heads are in the side list when a `byte[]` or
/// `char[]`).
pub const LONG_ARRAY: u64 = 4;

/// Hashes per chunk (8 MiB): freed one by one as pass 2 takes them.
const CHUNK: usize = 1 << 20;

/// The hashes of pass 1, in record order, taken back by pass 2.
///
/// Pass 1 fills chunks; at its end they are moved into one array of the waste report's
/// entries (hash, object index to come), before pass 1 frees its own temporaries, so
/// that pass 2 fills that array in place ([`ArrayHashes::keep`]) instead of allocating
/// another of the same size while this one is still held. In a wasm instance, whose
/// memory never shrinks, that second array and the holes the freed chunks leave were a
/// large part of the peak.
#[derive(Default)]
pub struct ArrayHashes {
    chunks: VecDeque<Vec<u64>>,
    /// One entry per record, `obj` set by [`ArrayHashes::keep`] (after [`ArrayHasher::finish`]).
    entries: Vec<Entry>,
    /// Entries kept so far (at the front of `entries`).
    kept: usize,
    /// (record number, hash of the first 1024 bytes, of the first 2048 bytes or of all
    /// when shorter) of the `byte[]` and `char[]` longer than 1024 bytes, ascending.
    heads: Vec<(u64, u64, u64)>,
    /// The record number of the next [`ArrayHashes::take`], and where it is in `heads`.
    next: u64,
    head_at: usize,
}

impl ArrayHashes {
    /// The next record's hash, and its heads (1024 and 2048 bytes) when it is a long
    /// `byte[]` or `char[]`; None past the last record of pass 1.
    #[inline]
    pub fn take(&mut self) -> Option<(u64, Option<(u64, u64)>)> {
        let full = self.entries.get(self.next as usize)?.hash;
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

    /// Keeps the record last taken as the waste report's entry for object `obj`.
    #[inline]
    pub fn keep(&mut self, obj: u32) {
        if let Some(last) = (self.next as usize).checked_sub(1) {
            let hash = self.entries[last].hash;
            // `kept` never passes `next`: the entry written is one already taken.
            self.entries[self.kept] = Entry { hash, obj };
            self.kept += 1;
        }
    }

    /// The entries kept, in the order kept.
    pub fn into_kept(mut self) -> Vec<Entry> {
        self.entries.truncate(self.kept);
        self.entries
    }

    /// Heap bytes held (for memory accounting).
    pub fn memory_bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.capacity() * 8).sum::<usize>() + self.entries.capacity() * std::mem::size_of::<Entry>() + self.heads.capacity() * 24
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
        let heads = (bytes > HEAD_SHORT).then(|| (h.head(HEAD_SHORT, ty as u64), (bytes > HEAD_LONG).then(|| h.head(HEAD_LONG, ty as u64))));
        let zero = bytes > 0 && h.all_zero();
        let flags = if ty == basic_type::BYTE && bytes % 2 == 1 { ODD_BYTES } else { 0 } | if zero { super::arrays::ALL_ZERO } else { 0 } | if heads.is_some() { LONG_ARRAY } else { 0 };
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

    /// The hashes, for pass 2, in one array of entries sized to the records (each chunk
    /// freed as soon as it is copied).
    pub fn finish(mut self) -> Result<ArrayHashes> {
        let last = std::mem::take(&mut self.current);
        if !last.is_empty() {
            self.out.chunks.push_back(last);
        }
        let mut entries = Vec::new();
        entries.try_reserve_exact(self.records as usize).map_err(|_| memory(self.records))?;
        while let Some(c) = self.out.chunks.pop_front() {
            entries.extend(c.iter().map(|&hash| Entry { hash, obj: u32::MAX }));
        }
        self.out.entries = entries;
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
        let arrays: Vec<(u8, Vec<u8>)> = (0..(CHUNK as u32 + 10)).map(|i| (basic_type::INT, i.to_le_bytes().to_vec())).chain([(basic_type::BYTE, long.clone()), (basic_type::INT, long.clone()), (basic_type::BYTE, vec![0, 0, 0])]).collect();
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

    #[test]
    fn kept_records_become_entries_in_place_in_record_order() {
        let mut h = ArrayHasher::default();
        let arrays: Vec<Vec<u8>> = (0..(CHUNK as u32 + 300)).map(|i| i.to_be_bytes().to_vec()).collect();
        for data in &arrays {
            h.data(data);
            h.array(basic_type::INT).unwrap();
        }
        let mut out = h.finish().unwrap();
        // Every third record kept, as object 10 × k.
        let mut want = Vec::new();
        for (k, data) in arrays.iter().enumerate() {
            let (full, _) = out.take().unwrap();
            assert_eq!(full & !7, hash_bytes(data, basic_type::INT as u64) & !7, "record {k}");
            if k % 3 == 0 {
                out.keep(10 * k as u32);
                want.push((hash_bytes(data, basic_type::INT as u64) & !7, 10 * k as u32));
            }
        }
        let got: Vec<(u64, u32)> = out.into_kept().iter().map(|e| (e.hash() & !7, e.obj())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn flags_say_odd_byte_arrays_and_all_zero_ones() {
        let mut h = ArrayHasher::default();
        for (ty, data) in [(basic_type::BYTE, vec![1u8, 2, 3]), (basic_type::BYTE, vec![0u8; 4]), (basic_type::CHAR, vec![0u8, 1]), (basic_type::BYTE, vec![])] {
            h.data(&data);
            h.array(ty).unwrap();
        }
        let mut out = h.finish().unwrap();
        let flags: Vec<u64> = std::iter::from_fn(|| out.take()).map(|(f, _)| f & 7).collect();
        assert_eq!(flags, vec![ODD_BYTES, super::super::arrays::ALL_ZERO, 0, 0]);
    }
}
