//! Outgoing references of every object, compactly.
//!
//! A list is the targets as zigzag LEB128 deltas (the first from the object's own index):
//! neighbours in memory are neighbours in index space, so most deltas take one or two
//! bytes instead of four. The lists are stored back to back in index order, and an
//! object's list is found from a sampled offset per block of [`BLOCK`] objects plus the
//! byte lengths of the lists before it in its block, kept in one byte per object (255:
//! the list starts with its length as a LEB128 number).
//!
//! Memory: 1 byte per object + 4 bytes per 16 objects + the lists (≈ 1.7 bytes per
//! reference on a large dump): ≈ 3 bytes per object.
//!
//! Pass 2 meets objects in file order, not index order, so it appends each list to a
//! [`CsrBuilder`] stream (in fixed-size chunks, never reallocated) with a 4-byte start per
//! object; [`CsrBuilder::finish`] then copies the lists into index order and drops the
//! builder.

use crate::error::{Error, Result};

/// Objects per sampled offset.
pub const BLOCK: usize = 16;
/// A length byte that means "the length is at the start of the list".
const LONG: u8 = u8::MAX;
const NO_EDGES: u32 = u32::MAX;

pub struct Csr {
    lens: Vec<u8>,
    /// Offset in `data` of the first list of each block, and the end of the data.
    blocks: Vec<u32>,
    data: Vec<u8>,
    edges: u64,
}

/// Collects the lists in any order (once per object).
///
/// The stream is kept in chunks of [`CHUNK`] bytes allocated at their full size, never
/// grown: a growing vector moves when it cannot grow in place, and in a wasm instance
/// (whose memory never shrinks) each move leaves a hole the size of the old vector. A
/// list never straddles two chunks; one longer than a chunk gets a chunk of its own,
/// spanning several chunk numbers.
pub struct CsrBuilder {
    /// Offset of each object's entry in the stream (its byte length, then its list): chunk
    /// number × [`CHUNK`] + offset in the chunk.
    start: Vec<u32>,
    /// Chunk `k` holds stream offsets `k × CHUNK ..`; the chunk numbers an oversized chunk
    /// spans after its own are empty.
    chunks: Vec<Vec<u8>>,
    scratch: Vec<u8>,
    edges: u64,
    /// Bytes the lists will take in the [`Csr`].
    bytes: usize,
}

/// Bytes per chunk of [`CsrBuilder`]'s stream.
const CHUNK: usize = 1 << 20;

fn too_big() -> Error {
    Error::memory("more than 4 GiB of compressed references: too large for this build")
}

impl CsrBuilder {
    pub fn new(nodes: usize) -> Result<CsrBuilder> {
        let mut start = Vec::new();
        start.try_reserve_exact(nodes).map_err(|_| Error::memory(format!("out of memory for the reference index of {nodes} objects")))?;
        start.resize(nodes, NO_EDGES);
        Ok(CsrBuilder { start, chunks: Vec::new(), scratch: Vec::new(), edges: 0, bytes: 0 })
    }

    /// Stores the references of `node` (once per node).
    pub fn set(&mut self, node: u32, targets: &[u32]) -> Result<()> {
        if targets.is_empty() {
            return Ok(());
        }
        // The usual case: the list is encoded straight into the last chunk, which has room
        // for its longest encoding (5 bytes per delta) and length prefix, behind a one-byte
        // length patched after (lists shorter than 128 bytes are the rule).
        let worst = targets.len().saturating_mul(5).saturating_add(10);
        let k = self.chunks.len().wrapping_sub(1);
        if let Some(chunk) = self.chunks.last_mut().filter(|c| c.capacity() == CHUNK && CHUNK - c.len() >= worst) {
            let at = chunk.len();
            chunk.push(0);
            let mut prev = node as i64;
            for &t in targets {
                let d = t as i64 - prev;
                put_varint(chunk, ((d << 1) ^ (d >> 63)) as u64);
                prev = t as i64;
            }
            let len = chunk.len() - at - 1;
            if len < 0x80 {
                chunk[at] = len as u8;
            } else {
                self.scratch.clear();
                put_varint(&mut self.scratch, len as u64);
                // Within the room checked above: the chunk is not reallocated.
                chunk.splice(at..at + 1, self.scratch.iter().copied());
            }
            self.start[node as usize] = (k * CHUNK + at) as u32;
            self.bytes += if len < LONG as usize { len } else { chunk.len() - at };
            self.edges += targets.len() as u64;
            return Ok(());
        }
        // The entry: the list's byte length, then the list.
        self.scratch.clear();
        let mut prev = node as i64;
        for &t in targets {
            let d = t as i64 - prev;
            put_varint(&mut self.scratch, ((d << 1) ^ (d >> 63)) as u64);
            prev = t as i64;
        }
        let len = self.scratch.len();
        let (mut prefix, mut plen, mut rest) = ([0u8; 10], 0, len);
        while rest >= 0x80 {
            prefix[plen] = (rest as u8) | 0x80;
            rest >>= 7;
            plen += 1;
        }
        prefix[plen] = rest as u8;
        plen += 1;
        let need = plen + len;
        // Only a chunk of exactly CHUNK bytes takes several lists, so that every list
        // starts below CHUNK in its chunk (see `finish`'s lookup).
        let fits = self.chunks.last().is_some_and(|c| c.capacity() == CHUNK && c.capacity() - c.len() >= need);
        if !fits {
            // A new chunk after the last one (and the chunk numbers it spans).
            let first = self.chunks.last().map_or(0, |c| self.chunks.len() - 1 + c.capacity().div_ceil(CHUNK));
            let size = need.div_ceil(CHUNK).max(1) * CHUNK;
            if first as u64 * CHUNK as u64 + size as u64 >= NO_EDGES as u64 {
                return Err(too_big());
            }
            let mut chunk = Vec::new();
            chunk.try_reserve_exact(size).map_err(|_| Error::memory("out of memory while storing references"))?;
            self.chunks.resize_with(first, Vec::new);
            self.chunks.push(chunk);
        }
        let k = self.chunks.len() - 1;
        let chunk = &mut self.chunks[k];
        self.start[node as usize] = (k * CHUNK + chunk.len()) as u32;
        chunk.extend_from_slice(&prefix[..plen]);
        chunk.extend_from_slice(&self.scratch);
        // In the final stream a short list loses its length prefix (see `finish`).
        self.bytes += if len < LONG as usize { len } else { need };
        self.edges += targets.len() as u64;
        Ok(())
    }

    pub fn has(&self, node: u32) -> bool {
        self.start[node as usize] != NO_EDGES
    }

    /// The lists in index order.
    pub fn finish(self) -> Result<Csr> {
        let CsrBuilder { start, chunks, bytes, edges, .. } = self;
        let n = start.len();
        let alloc = || Error::memory(format!("out of memory for the references of {n} objects"));
        let mut lens = Vec::new();
        lens.try_reserve_exact(n).map_err(|_| alloc())?;
        let mut blocks = Vec::new();
        blocks.try_reserve_exact(n.div_ceil(BLOCK) + 1).map_err(|_| alloc())?;
        let mut data = Vec::new();
        data.try_reserve_exact(bytes).map_err(|_| alloc())?;
        for (v, &s) in start.iter().enumerate() {
            if v % BLOCK == 0 {
                blocks.push(u32::try_from(data.len()).map_err(|_| too_big())?);
            }
            if s == NO_EDGES {
                lens.push(0);
                continue;
            }
            let old = &chunks[s as usize / CHUNK];
            let mut p = s as usize % CHUNK;
            let len = get_varint(old, &mut p) as usize;
            if len < LONG as usize {
                lens.push(len as u8);
            } else {
                lens.push(LONG);
                put_varint(&mut data, len as u64);
            }
            data.extend_from_slice(&old[p..p + len]);
        }
        blocks.push(u32::try_from(data.len()).map_err(|_| too_big())?);
        drop(chunks);
        drop(start);
        debug_assert_eq!(data.len(), bytes);
        Ok(Csr { lens, blocks, data, edges })
    }
}

/// Builds a [`Csr`] from lists given in index order (node 0 first, each node once), for
/// a graph computed rather than read (the referrer index): no per-node start array and no
/// copy, the lists go straight into their final place.
pub struct CsrWriter {
    lens: Vec<u8>,
    blocks: Vec<u32>,
    data: Vec<u8>,
    scratch: Vec<u8>,
    edges: u64,
    n: usize,
}

impl CsrWriter {
    /// A writer for `nodes` nodes; `bytes_hint` reserves the list data up front.
    pub fn new(nodes: usize, bytes_hint: usize) -> Result<CsrWriter> {
        let alloc = |what: &str| Error::memory(format!("out of memory for {what} of {nodes} objects"));
        let mut lens = Vec::new();
        lens.try_reserve_exact(nodes).map_err(|_| alloc("the list lengths"))?;
        let mut blocks = Vec::new();
        blocks.try_reserve_exact(nodes.div_ceil(BLOCK) + 1).map_err(|_| alloc("the list offsets"))?;
        let mut data = Vec::new();
        data.try_reserve(bytes_hint).map_err(|_| alloc("the lists"))?;
        Ok(CsrWriter { lens, blocks, data, scratch: Vec::new(), edges: 0, n: nodes })
    }

    /// The next node to be given its list.
    pub fn next_node(&self) -> u32 {
        self.lens.len() as u32
    }

    /// Stores the list of the next node ([`CsrWriter::next_node`]).
    pub fn push(&mut self, targets: &[u32]) -> Result<()> {
        let v = self.lens.len();
        if v >= self.n {
            return Err(Error::memory("a list past the last node"));
        }
        if v % BLOCK == 0 {
            self.blocks.push(u32::try_from(self.data.len()).map_err(|_| too_big())?);
        }
        if targets.is_empty() {
            self.lens.push(0);
            return Ok(());
        }
        self.scratch.clear();
        let mut prev = v as i64;
        for &t in targets {
            let d = t as i64 - prev;
            put_varint(&mut self.scratch, ((d << 1) ^ (d >> 63)) as u64);
            prev = t as i64;
        }
        let len = self.scratch.len();
        self.data.try_reserve(len + 5).map_err(|_| Error::memory("out of memory while storing references"))?;
        if len < LONG as usize {
            self.lens.push(len as u8);
        } else {
            self.lens.push(LONG);
            put_varint(&mut self.data, len as u64);
        }
        self.data.extend_from_slice(&self.scratch);
        self.edges += targets.len() as u64;
        Ok(())
    }

    /// The lists; nodes not given one have none.
    pub fn finish(mut self) -> Result<Csr> {
        while self.lens.len() < self.n {
            self.push(&[])?;
        }
        self.blocks.push(u32::try_from(self.data.len()).map_err(|_| too_big())?);
        self.data.shrink_to_fit();
        Ok(Csr { lens: self.lens, blocks: self.blocks, data: self.data, edges: self.edges })
    }
}

impl Csr {
    pub fn node_count(&self) -> usize {
        self.lens.len()
    }

    pub fn edge_count(&self) -> u64 {
        self.edges
    }

    /// Where the list of `node` starts in `data`, and its byte length.
    #[inline]
    fn locate(&self, node: u32) -> (usize, usize) {
        let v = node as usize;
        let first = v & !(BLOCK - 1);
        let mut p = self.blocks[v / BLOCK] as usize;
        for &l in &self.lens[first..v] {
            if l == LONG {
                let len = self.long_len(&mut p);
                p += len;
            } else {
                p += l as usize;
            }
        }
        let len = match self.lens[v] {
            LONG => self.long_len(&mut p),
            l => l as usize,
        };
        (p, len)
    }

    /// Reads the length prefix of a long list at `*p`, moving `*p` past it.
    #[cold]
    fn long_len(&self, p: &mut usize) -> usize {
        get_varint(&self.data, p) as usize
    }

    /// Calls `f` with each reference of `node`, in the order they were stored.
    #[inline]
    pub fn for_each<F: FnMut(u32)>(&self, node: u32, f: F) {
        if self.lens[node as usize] == 0 {
            return;
        }
        let (p, len) = self.locate(node);
        Targets { data: &self.data[..p + len], p, prev: node as i64 }.for_each(f);
    }

    /// Calls `f(v, references of v)` for every node in index order, reading the lists
    /// sequentially (no per-node lookup).
    #[inline]
    pub fn scan<F: FnMut(u32, Targets)>(&self, mut f: F) {
        let mut p = 0usize;
        for (v, &l) in self.lens.iter().enumerate() {
            let len = if l == LONG { self.long_len(&mut p) } else { l as usize };
            let end = p + len;
            f(v as u32, Targets { data: &self.data[..end], p, prev: v as i64 });
            p = end;
        }
    }

    /// A hint that `node`'s references will be read soon (see
    /// [`crate::dominators::prefetch`]).
    #[inline]
    pub fn prefetch(&self, node: u32) {
        crate::dominators::prefetch(self.lens.as_ptr().wrapping_add(node as usize));
        crate::dominators::prefetch(self.blocks.as_ptr().wrapping_add(node as usize / BLOCK));
    }

    pub fn memory_bytes(&self) -> usize {
        self.lens.capacity() + self.blocks.capacity() * 4 + self.data.capacity()
    }
}

/// The references of one node, decoded as they are read.
pub struct Targets<'a> {
    /// The data up to the end of the list.
    data: &'a [u8],
    p: usize,
    prev: i64,
}

impl Iterator for Targets<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.p >= self.data.len() {
            return None;
        }
        let z = get_varint(self.data, &mut self.p);
        self.prev += ((z >> 1) as i64) ^ -((z & 1) as i64);
        Some(self.prev as u32)
    }
}

#[inline]
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
fn get_varint(d: &[u8], p: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = d[*p];
        *p += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_longer_than_a_chunk() {
        // 2.5 M targets 1,000 apart: 2 bytes each, over several chunks; lists before and after it
        // in other chunks, and one given after the long one but numbered before it.
        let long: Vec<u32> = (0..2_500_000u32).map(|k| 10 + k * 1000).collect();
        let mut b = CsrBuilder::new(8).unwrap();
        b.set(2, &[1, 7]).unwrap();
        b.set(5, &long).unwrap();
        b.set(6, &[0]).unwrap();
        b.set(1, &[3, 2, 1]).unwrap();
        let g = b.finish().unwrap();
        let get = |v| {
            let mut out = vec![];
            g.for_each(v, |t| out.push(t));
            out
        };
        assert_eq!((get(1), get(2), get(6), get(0)), (vec![3, 2, 1], vec![1, 7], vec![0], vec![]));
        assert_eq!(get(5), long);
        assert_eq!(g.edge_count(), 2 + 2_500_000 + 1 + 3);
    }

    #[test]
    fn round_trip() {
        let mut b = CsrBuilder::new(40).unwrap();
        b.set(3, &[0, 9, 3, 3, 1]).unwrap();
        b.set(7, &[]).unwrap();
        b.set(9, &[u32::MAX - 5, 0]).unwrap();
        // A list over 255 bytes in the middle of a block, and one in the next block.
        let long: Vec<u32> = (0..300).map(|k| k * 1000).collect();
        b.set(20, &long).unwrap();
        b.set(21, &[5]).unwrap();
        b.set(17, &[16]).unwrap();
        b.set(39, &long).unwrap();
        assert!(b.has(3) && !b.has(7) && !b.has(4));
        let g = b.finish().unwrap();
        let get = |v| {
            let mut out = vec![];
            g.for_each(v, |t| out.push(t));
            out
        };
        assert_eq!(get(3), vec![0, 9, 3, 3, 1]);
        assert_eq!(get(7), Vec::<u32>::new());
        assert_eq!(get(9), vec![u32::MAX - 5, 0]);
        assert_eq!(get(20), long);
        assert_eq!(get(21), vec![5]);
        assert_eq!(get(17), vec![16]);
        assert_eq!(get(39), long);
        assert_eq!(get(38), Vec::<u32>::new());
        let mut all = vec![];
        g.scan(|v, t| all.extend(t.map(|t| (v, t))));
        let mut expected = vec![];
        for v in 0..40 {
            expected.extend(get(v).into_iter().map(|t| (v, t)));
        }
        assert_eq!(all, expected);
        assert_eq!(g.edge_count(), 5 + 2 + 300 + 1 + 1 + 300);
        assert_eq!(g.node_count(), 40);

        // The in-order writer stores the same lists in the same form.
        let mut w = CsrWriter::new(40, 0).unwrap();
        for v in 0..40 {
            w.push(&get(v)).unwrap();
        }
        let h = w.finish().unwrap();
        let mut again = vec![];
        h.scan(|v, t| again.extend(t.map(|t| (v, t))));
        assert_eq!(again, all);
        assert_eq!((h.lens.clone(), h.blocks.clone(), h.data.clone()), (g.lens.clone(), g.blocks.clone(), g.data.clone()));
        assert!(CsrWriter::new(1, 0).and_then(|mut w| w.push(&[]).and_then(|_| w.push(&[]))).is_err());
    }
}
