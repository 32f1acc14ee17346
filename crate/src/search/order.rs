//! The order in which a breadth-first search discovers objects, level by level, in
//! fixed-size chunks: 4 bytes per object discovered, never an array per object of the
//! dump (a search usually stops long before it has met every object).
//!
//! Terms: the search meets objects in *discovery order*, its roots first; an object's
//! *level* is its distance from the roots; the objects of one level are contiguous in
//! that order, and [`DiscoveryOrder`] keeps where each level starts.

use std::ops::Range;

use crate::alloc::try_with_capacity;
use crate::error::Result;

/// Objects per chunk.
const CHUNK: usize = 1 << 20;

/// The objects a breadth-first search discovered, in order, and where each level starts.
pub struct DiscoveryOrder {
    chunks: Vec<Vec<u32>>,
    len: usize,
    /// Where each level starts; the last entry is where the level being discovered
    /// starts (0 while the roots are pushed).
    starts: Vec<usize>,
    /// What the memory error of a failed chunk names.
    what: &'static str,
}

impl DiscoveryOrder {
    /// An empty order; `what` names it in a memory error.
    pub fn new(what: &'static str) -> DiscoveryOrder {
        DiscoveryOrder { chunks: Vec::new(), len: 0, starts: vec![0], what }
    }

    /// Objects discovered.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a discovered object.
    #[inline]
    pub fn push(&mut self, v: u32) -> Result<()> {
        if self.len % CHUNK == 0 {
            self.chunks.push(try_with_capacity(CHUNK, self.what)?);
        }
        self.chunks[self.len / CHUNK].push(v);
        self.len += 1;
        Ok(())
    }

    /// The object discovered at `pos`.
    #[inline]
    pub fn get(&self, pos: usize) -> u32 {
        self.chunks[pos / CHUNK][pos % CHUNK]
    }

    /// Ends level 0: the roots pushed so far.
    pub fn end_roots(&mut self) {
        self.starts.push(self.len);
    }

    /// The object at `head`, the search's next to visit: a level ends where the visits
    /// reach the objects discovered from it.
    #[inline]
    pub fn visit(&mut self, head: usize) -> u32 {
        if Some(&head) == self.starts.last() {
            self.starts.push(self.len);
        }
        self.get(head)
    }

    /// The level of the object discovered at `pos`.
    pub fn level_of(&self, pos: usize) -> usize {
        self.starts.partition_point(|&s| s <= pos) - 1
    }

    /// The positions of level `level`'s objects.
    pub fn level(&self, level: usize) -> Range<usize> {
        self.starts[level]..self.starts[level + 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_of_a_breadth_first_order() {
        // Roots 7, 8; level 1: 1, 2 (from 7), 3 (from 8); level 2: 4 (from 1).
        let children = |v: u32| -> &'static [u32] {
            match v {
                7 => &[1, 2],
                8 => &[3],
                1 => &[4],
                _ => &[],
            }
        };
        let mut order = DiscoveryOrder::new("a test");
        order.push(7).unwrap();
        order.push(8).unwrap();
        order.end_roots();
        let mut head = 0;
        while head < order.len() {
            let u = order.visit(head);
            head += 1;
            for &c in children(u) {
                order.push(c).unwrap();
            }
        }
        let found: Vec<u32> = (0..order.len()).map(|p| order.get(p)).collect();
        assert_eq!(found, [7, 8, 1, 2, 3, 4]);
        assert_eq!((0..6).map(|p| order.level_of(p)).collect::<Vec<_>>(), [0, 0, 1, 1, 1, 2]);
        assert_eq!(order.level(0), 0..2);
        assert_eq!(order.level(1), 2..5);
    }
}
