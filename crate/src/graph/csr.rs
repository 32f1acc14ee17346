//! Outgoing references of every object, compactly.
//!
//! Pass 2 meets objects in file order but the graph is indexed by object index, so each
//! object's list is appended to one byte stream and `start[index]` says where it begins.
//! A list is a LEB128 count followed by the targets as zigzag LEB128 deltas (the first
//! from the object's own index): neighbours in memory are neighbours in index space, so
//! most deltas take one or two bytes instead of four.

use crate::error::{Error, Result};

pub const NO_EDGES: u32 = u32::MAX;

pub struct Csr {
    start: Vec<u32>,
    data: Vec<u8>,
    edges: u64,
}

impl Csr {
    pub fn new(nodes: usize) -> Result<Csr> {
        let mut start = Vec::new();
        start.try_reserve_exact(nodes).map_err(|_| Error::memory(format!("out of memory for the reference index of {nodes} objects")))?;
        start.resize(nodes, NO_EDGES);
        Ok(Csr { start, data: Vec::new(), edges: 0 })
    }

    pub fn node_count(&self) -> usize {
        self.start.len()
    }

    pub fn edge_count(&self) -> u64 {
        self.edges
    }

    /// Stores the references of `node` (once per node).
    pub fn set(&mut self, node: u32, targets: &[u32]) -> Result<()> {
        if targets.is_empty() {
            return Ok(());
        }
        let at = self.data.len();
        if at >= NO_EDGES as usize {
            return Err(Error::memory("more than 4 GiB of compressed references: too large for this build"));
        }
        self.data.try_reserve(targets.len() * 2 + 5).map_err(|_| Error::memory("out of memory while storing references"))?;
        self.start[node as usize] = at as u32;
        put_varint(&mut self.data, targets.len() as u64);
        let mut prev = node as i64;
        for &t in targets {
            let d = t as i64 - prev;
            put_varint(&mut self.data, ((d << 1) ^ (d >> 63)) as u64);
            prev = t as i64;
        }
        self.edges += targets.len() as u64;
        Ok(())
    }

    pub fn has(&self, node: u32) -> bool {
        self.start[node as usize] != NO_EDGES
    }

    /// Calls `f` with each reference of `node`, in the order they were stored.
    #[inline]
    pub fn for_each<F: FnMut(u32)>(&self, node: u32, mut f: F) {
        let at = self.start[node as usize];
        if at == NO_EDGES {
            return;
        }
        let mut p = at as usize;
        let d = &self.data;
        let n = get_varint(d, &mut p);
        let mut prev = node as i64;
        for _ in 0..n {
            let z = get_varint(d, &mut p);
            let delta = ((z >> 1) as i64) ^ -((z & 1) as i64);
            prev += delta;
            f(prev as u32);
        }
    }

    pub fn shrink(&mut self) {
        self.data.shrink_to_fit();
    }

    pub fn memory_bytes(&self) -> usize {
        self.start.capacity() * 4 + self.data.capacity()
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
    fn round_trip() {
        let mut g = Csr::new(10).unwrap();
        g.set(3, &[0, 9, 3, 3, 1]).unwrap();
        g.set(7, &[]).unwrap();
        g.set(9, &[u32::MAX - 5, 0]).unwrap();
        let get = |v| {
            let mut out = vec![];
            g.for_each(v, |t| out.push(t));
            out
        };
        assert_eq!(get(3), vec![0, 9, 3, 3, 1]);
        assert_eq!(get(7), Vec::<u32>::new());
        assert_eq!(get(9), vec![u32::MAX - 5, 0]);
        assert_eq!(g.edge_count(), 7);
    }
}
