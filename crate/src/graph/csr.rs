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
//! Pass 2 meets objects in file order, not index order. [`CsrBuilder`] appends each list,
//! already in its final form, to a stream (in fixed-size chunks, never reallocated) and
//! sets its length byte in place. Dumps write objects mostly in address order, which is
//! index order: then the lists of a block lie back to back in the stream and one offset
//! per block finds them. A block whose lists did not arrive that way (class objects
//! come first, heap regions may come out of order) is *scattered*: it gets a slot of one
//! offset per object. [`CsrBuilder::finish`] copies the blocks' bytes into one array in
//! index order, freeing each chunk after its last use.
//!
//! Memory while building: the final length bytes, 4 bytes per block, the lists, and 4
//! bytes per object of a scattered block (none for an address-ordered dump, as much as a
//! start per object when every block is scattered); the copy adds the lists' bytes once
//! more, less the chunks already freed.

use crate::bits::BitSet;
use crate::error::{Error, Result};

/// Objects per sampled offset.
pub const BLOCK: usize = 16;
/// A length byte that means "the length is at the start of the list".
const LONG: u8 = u8::MAX;

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
/// spanning several chunk numbers. A stream offset is chunk number × [`CHUNK`] + offset
/// in the chunk.
pub struct CsrBuilder {
    /// The final length byte of every node (0: no list yet).
    lens: Vec<u8>,
    /// Per block: the stream offset of its first list while its lists lie back to back
    /// in index order ([`UNSET`]: no list yet); for a scattered block, its slot.
    block_start: Vec<u32>,
    /// One bit per block: scattered.
    scattered: BitSet,
    /// Per slot (scattered block), the stream offset of each object's list ([`UNSET`]: none).
    slots: Vec<[u32; BLOCK]>,
    /// Chunk `k` holds stream offsets `k × CHUNK ..`; the chunk numbers an oversized chunk
    /// spans after its own are empty.
    chunks: Vec<Vec<u8>>,
    /// The node of the last list stored, and the stream offset after it.
    last: (u32, u32),
    edges: u64,
    /// Bytes the lists take (in the stream as in the [`Csr`]).
    bytes: usize,
}

/// Bytes per chunk of [`CsrBuilder`]'s stream.
const CHUNK: usize = 1 << 20;
/// [`CsrBuilder`]'s block without a list yet.
const UNSET: u32 = u32::MAX;
/// Largest stream offset + 1.
const STREAM_MAX: u32 = u32::MAX - 1;

fn too_big() -> Error {
    Error::memory("more than 4 GiB of compressed references: too large for this build")
}

fn builder_memory() -> Error {
    Error::memory("out of memory while storing references")
}

impl CsrBuilder {
    pub fn new(nodes: usize) -> Result<CsrBuilder> {
        let alloc = |what: &str| Error::memory(format!("out of memory for {what} of {nodes} objects"));
        let mut lens = Vec::new();
        lens.try_reserve_exact(nodes).map_err(|_| alloc("the reference lengths"))?;
        lens.resize(nodes, 0);
        let mut block_start = Vec::new();
        block_start.try_reserve_exact(nodes.div_ceil(BLOCK)).map_err(|_| alloc("the reference blocks"))?;
        block_start.resize(nodes.div_ceil(BLOCK), UNSET);
        let scattered = BitSet::new(block_start.len(), "the reference blocks")?;
        Ok(CsrBuilder {
            lens,
            block_start,
            scattered,
            slots: Vec::new(),
            chunks: Vec::new(),
            last: (u32::MAX, u32::MAX),
            edges: 0,
            bytes: 0,
        })
    }

    /// Stores the references of `node` (once per node).
    pub fn set(&mut self, node: u32, targets: &[u32]) -> Result<()> {
        if targets.is_empty() {
            return Ok(());
        }
        debug_assert_eq!(self.lens[node as usize], 0, "a node's list is set once");
        // Room for the longest encoding (5 bytes per delta) and a length prefix; only a
        // chunk of exactly CHUNK bytes takes several lists, so that every list starts
        // below CHUNK in its chunk.
        let worst = targets.len().saturating_mul(5).saturating_add(10);
        let fits = self.chunks.last().is_some_and(|c| c.capacity() == CHUNK && CHUNK - c.len() >= worst);
        let mut long = Vec::new();
        if !fits {
            // A list that may not fit a chunk is encoded first, to size its own chunk.
            if worst > CHUNK {
                long.try_reserve_exact(worst).map_err(|_| builder_memory())?;
                encode(&mut long, node, targets);
                let len = long.len();
                if len >= LONG as usize {
                    let mut prefix = Vec::with_capacity(10);
                    put_varint(&mut prefix, len as u64);
                    long.splice(0..0, prefix);
                }
            }
            // A new chunk after the last one (and the chunk numbers it spans).
            let first = self.chunks.last().map_or(0, |c| self.chunks.len() - 1 + c.capacity().div_ceil(CHUNK));
            let size = long.len().div_ceil(CHUNK).max(1) * CHUNK;
            if first as u64 * CHUNK as u64 + size as u64 >= STREAM_MAX as u64 {
                return Err(too_big());
            }
            let mut chunk = Vec::new();
            chunk.try_reserve_exact(size).map_err(|_| builder_memory())?;
            self.chunks.try_reserve(first + 1 - self.chunks.len()).map_err(|_| builder_memory())?;
            self.chunks.resize_with(first, Vec::new);
            self.chunks.push(chunk);
        }
        let k = self.chunks.len() - 1;
        let chunk = &mut self.chunks[k];
        let at = chunk.len();
        if !long.is_empty() {
            chunk.extend_from_slice(&long);
            self.lens[node as usize] = if long.len() < LONG as usize { long.len() as u8 } else { LONG };
        } else if let len @ 0..0xff = encode(chunk, node, targets) {
            self.lens[node as usize] = len as u8;
        } else {
            let len = chunk.len() - at;
            // A long list starts with its length (within the room checked above: the
            // chunk is not reallocated).
            let mut prefix = Vec::with_capacity(10);
            put_varint(&mut prefix, len as u64);
            chunk.splice(at..at, prefix);
            self.lens[node as usize] = LONG;
        }
        let entry = chunk.len() - at;
        let off = (k * CHUNK + at) as u32;
        self.bytes += entry;
        self.edges += targets.len() as u64;
        let b = node as usize / BLOCK;
        if self.scattered.contains(b as u32) {
            self.slots[self.block_start[b] as usize][node as usize % BLOCK] = off;
        } else if self.block_start[b] == UNSET {
            self.block_start[b] = off;
        } else {
            let (prev_node, prev_end) = self.last;
            // Still back to back: the previous list stored was this block's, of a lower
            // node, and ended where this one starts.
            if !(prev_node as usize / BLOCK == b && prev_node < node && prev_end == off) {
                let slot = self.scatter(b, node)?;
                self.slots[slot][node as usize % BLOCK] = off;
            }
        }
        self.last = (node, off + entry as u32);
        Ok(())
    }

    /// Gives block `b` a slot with the offsets of the lists it holds so far (back to
    /// back from its start, in node order, all but `new`'s); returns the slot.
    #[cold]
    fn scatter(&mut self, b: usize, new: u32) -> Result<usize> {
        if self.slots.len() == self.slots.capacity() {
            // By an eighth: many slots only for a dump written out of address order, where
            // doubling would leave up to half of them unused.
            self.slots.try_reserve_exact((self.slots.len() / 8).max(256)).map_err(|_| builder_memory())?;
        }
        let slot = self.slots.len();
        let mut offsets = [UNSET; BLOCK];
        let mut off = self.block_start[b];
        let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(self.lens.len()));
        for v in lo..hi {
            if v == new as usize || self.lens[v] == 0 {
                continue;
            }
            offsets[v % BLOCK] = off;
            off += entry_len(&self.chunks, self.lens[v], off) as u32;
        }
        self.slots.push(offsets);
        self.block_start[b] = slot as u32;
        self.scattered.insert(b as u32);
        Ok(slot)
    }

    pub fn has(&self, node: u32) -> bool {
        self.lens[node as usize] != 0
    }

    /// Heap bytes held (for memory accounting).
    pub fn memory_bytes(&self) -> usize {
        self.lens.capacity()
            + self.block_start.capacity() * 4
            + self.scattered.heap_bytes()
            + self.slots.capacity() * 4 * BLOCK
            + self.chunks.iter().map(|c| c.capacity()).sum::<usize>()
    }

    /// The lists in index order.
    pub fn finish(self) -> Result<Csr> {
        let CsrBuilder { lens, block_start, scattered, slots, mut chunks, bytes, edges, .. } = self;
        let is_scattered = |b: usize| scattered.contains(b as u32);
        let alloc = || Error::memory(format!("out of memory for the references of {} objects", lens.len()));
        let mut blocks = Vec::new();
        blocks.try_reserve_exact(block_start.len() + 1).map_err(|_| alloc())?;
        // The last block that reads each chunk: the chunk is freed after it.
        let mut last_use = crate::alloc::try_filled(chunks.len(), 0usize, "the reference chunks")?;
        for (b, &s) in block_start.iter().enumerate() {
            if is_scattered(b) {
                for &off in slots[s as usize].iter().filter(|&&o| o != UNSET) {
                    last_use[off as usize / CHUNK] = b;
                }
            } else if s != UNSET {
                last_use[s as usize / CHUNK] = b;
            }
        }
        let mut order: Vec<(usize, usize)> = last_use.iter().enumerate().map(|(k, &b)| (b, k)).collect();
        order.sort_unstable();
        drop(last_use);
        let mut free = order.iter().peekable();
        let mut data = Vec::new();
        data.try_reserve_exact(bytes).map_err(|_| alloc())?;
        for (b, &s) in block_start.iter().enumerate() {
            blocks.push(u32::try_from(data.len()).map_err(|_| too_big())?);
            let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(lens.len()));
            if is_scattered(b) {
                for v in lo..hi {
                    let off = slots[s as usize][v % BLOCK];
                    if lens[v] != 0 {
                        let len = entry_len(&chunks, lens[v], off);
                        let p = off as usize % CHUNK;
                        data.extend_from_slice(&chunks[off as usize / CHUNK][p..p + len]);
                    }
                }
            } else if s != UNSET {
                let mut len = 0;
                for v in lo..hi {
                    if lens[v] != 0 {
                        len += entry_len(&chunks, lens[v], s + len as u32);
                    }
                }
                let p = s as usize % CHUNK;
                data.extend_from_slice(&chunks[s as usize / CHUNK][p..p + len]);
            }
            while let Some(&(_, k)) = free.next_if(|e| e.0 <= b) {
                chunks[k] = Vec::new();
            }
        }
        blocks.push(u32::try_from(data.len()).map_err(|_| too_big())?);
        debug_assert_eq!(data.len(), bytes);
        Ok(Csr { lens, blocks, data, edges })
    }
}

/// Appends the list of `node` (zigzag deltas, the first from `node`); returns its bytes.
#[inline]
fn encode(out: &mut Vec<u8>, node: u32, targets: &[u32]) -> usize {
    let at = out.len();
    let mut prev = node as i64;
    for &t in targets {
        let d = t as i64 - prev;
        put_varint(out, ((d << 1) ^ (d >> 63)) as u64);
        prev = t as i64;
    }
    out.len() - at
}

/// Bytes of the stream entry at `off` whose length byte is `len` (its length prefix
/// included when long).
fn entry_len(chunks: &[Vec<u8>], len: u8, off: u32) -> usize {
    if len != LONG {
        return len as usize;
    }
    let mut p = off as usize % CHUNK;
    let n = get_varint(&chunks[off as usize / CHUNK], &mut p) as usize;
    n + (p - off as usize % CHUNK)
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

    /// [`Csr::scan`] restricted to the nodes whose bit is set in `from` (bit `v % 64` of
    /// word `v / 64`): a block of [`BLOCK`] nodes without one is skipped from its sampled
    /// offset, and the other lists of a block are stepped over by their length bytes,
    /// neither decoded.
    #[inline]
    pub fn scan_from<F: FnMut(u32, Targets)>(&self, from: &[u64], mut f: F) {
        const PER_WORD: usize = 64 / BLOCK;
        for (w, &word) in from.iter().enumerate() {
            if word == 0 {
                continue;
            }
            for k in 0..PER_WORD {
                let mut bits = (word >> (k * BLOCK)) & ((1 << BLOCK) - 1);
                if bits == 0 {
                    continue;
                }
                let b = w * PER_WORD + k;
                let first = b * BLOCK;
                if first >= self.lens.len() {
                    return;
                }
                let mut p = self.blocks[b] as usize;
                let mut v = first;
                while bits != 0 && v < self.lens.len() {
                    let l = self.lens[v];
                    let len = if l == LONG { self.long_len(&mut p) } else { l as usize };
                    let end = p + len;
                    if bits & 1 != 0 {
                        f(v as u32, Targets { data: &self.data[..end], p, prev: v as i64 });
                    }
                    bits >>= 1;
                    p = end;
                    v += 1;
                }
            }
        }
    }

    /// A hint that `node`'s references will be read soon (see
    /// [`crate::alloc::prefetch`]).
    #[inline]
    pub fn prefetch(&self, node: u32) {
        crate::alloc::prefetch(self.lens.as_ptr().wrapping_add(node as usize));
        crate::alloc::prefetch(self.blocks.as_ptr().wrapping_add(node as usize / BLOCK));
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
        // The end test and the first byte's bounds check in one; most deltas take a byte.
        let &b = self.data.get(self.p)?;
        let z = if b < 0x80 {
            self.p += 1;
            b as u64
        } else {
            get_varint(self.data, &mut self.p)
        };
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
        // A scan of some nodes only: each subset's lists, as read one by one (long lists
        // skipped over and read, blocks without a node of the subset skipped).
        for from in [0u64, u64::MAX, 1 << 20, 1 << 21 | 1 << 39, 0x5555_5555_5555, 1 << 38 | 1 << 3 | 1 << 16] {
            let mut some = vec![];
            // (A second word of bits past the last node: ignored.)
            g.scan_from(&[from, u64::MAX], |v, t| some.extend(t.map(|t| (v, t))));
            let wanted: Vec<(u32, u32)> = expected.iter().copied().filter(|&(v, _)| from >> v & 1 != 0).collect();
            assert_eq!(some, wanted, "nodes {from:#x}");
        }
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
        assert_eq!(
            (h.lens.clone(), h.blocks.clone(), h.data.clone()),
            (g.lens.clone(), g.blocks.clone(), g.data.clone())
        );
        assert!(CsrWriter::new(1, 0).and_then(|mut w| w.push(&[]).and_then(|_| w.push(&[]))).is_err());
    }

    /// The lists given in several arrival orders (address order, the class objects first,
    /// two heap regions swapped, reversed, shuffled), with lists long enough to fill
    /// several chunks: the result is the one the in-order writer builds from the same
    /// lists, byte for byte.
    #[test]
    fn any_arrival_order_gives_the_in_order_result() {
        let n = 300_000u32;
        let mut seed = 7u64;
        let mut rnd = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        // Most nodes 0-3 nearby targets, some none, a few long lists (over 255 bytes).
        let lists: Vec<Vec<u32>> = (0..n)
            .map(|v| {
                let len = match rnd() % 100 {
                    0 => 200 + rnd() % 400,
                    1..=30 => 0,
                    _ => rnd() % 4,
                };
                (0..len)
                    .map(|_| if rnd() % 8 == 0 { rnd() % n } else { v.saturating_add(rnd() % 64).min(n - 1) })
                    .collect()
            })
            .collect();
        let mut w = CsrWriter::new(n as usize, 0).unwrap();
        for l in &lists {
            w.push(l).unwrap();
        }
        let want = w.finish().unwrap();
        let ascending: Vec<u32> = (0..n).collect();
        let classes_first: Vec<u32> = (0..n).filter(|v| v % 997 == 0).chain((0..n).filter(|v| v % 997 != 0)).collect();
        let regions_swapped: Vec<u32> = (n / 3..n).chain(0..n / 3).collect();
        let reversed: Vec<u32> = (0..n).rev().collect();
        let mut shuffled = ascending.clone();
        for k in (1..shuffled.len()).rev() {
            shuffled.swap(k, rnd() as usize % (k + 1));
        }
        for (name, order) in [
            ("ascending", ascending),
            ("classes first", classes_first),
            ("regions swapped", regions_swapped),
            ("reversed", reversed),
            ("shuffled", shuffled),
        ] {
            let mut b = CsrBuilder::new(n as usize).unwrap();
            for &v in &order {
                b.set(v, &lists[v as usize]).unwrap();
            }
            assert!(b.chunks.len() > 2, "{name}: several chunks");
            let scattered = b.slots.len();
            if name == "ascending" {
                // Only a block whose lists straddle two chunks.
                assert!(scattered < b.chunks.len(), "{name}: {scattered} blocks scattered");
            }
            let g = b.finish().unwrap();
            assert_eq!(
                (&g.lens, &g.blocks, &g.data, g.edges),
                (&want.lens, &want.blocks, &want.data, want.edges),
                "{name}"
            );
        }
    }
}
