//! Placement of the large allocations of a wasm instance, apart from the general
//! allocator (see `wasm::heap_stats`, which routes requests of at least [`BIG`] bytes here).
//!
//! A wasm instance's memory never shrinks, so its size is the high-water mark of where
//! allocations were ever placed. The standard allocator (dlmalloc) grows the memory by a
//! whole request whenever its free top is short of it, even when most of the request
//! would have fitted in that free top, and the analysis' arrays are tens of MiB each: a
//! late array of 84 MiB grew a 460 MiB memory to 545 MiB with 76 MiB free at its top.
//! Here the free space is a sorted list of extents: a request takes the smallest free
//! extent that holds it (the lowest of equal ones), and only when none does, the memory
//! grows, and then only by what the free extent at the end of the memory lacks. A freed
//! block merges with its free neighbours; a block grows in place when the space after it
//! is free (or is the end of the memory).
//!
//! This only pays when nothing else grows the memory meanwhile: pages the general
//! allocator adds land after the free extent at the end and make it a hole (the 84 MiB
//! array then grows the memory by its whole size again). Hence the threshold is low
//! ([`BIG`]), so dlmalloc keeps only small blocks, which the arena it gets up front holds
//! (`wasm::heap_stats::reserve_small_arena`; its growths are logged).
//!
//! Single-threaded (wasm32 without threads); the list has a fixed capacity
//! ([`MAX_EXTENTS`]); if it is ever full, the smallest free extent is forgotten (its bytes
//! are lost, nothing else). Every operation is O(extents).

/// Requests of at least this many bytes are placed here (below it: the general allocator).
pub const BIG: usize = 256 << 10;
/// Free extents tracked at most.
pub const MAX_EXTENTS: usize = 1024;
/// Block sizes and starts are multiples of this.
const GRAIN: usize = 16;

/// The memory the extents come from: its end, and growing it.
pub trait Memory {
    /// The end of the memory (bytes).
    fn end(&self) -> usize;
    /// Grows the memory by at least `bytes`; the old end and the bytes added, or None.
    fn grow(&mut self, bytes: usize) -> Option<(usize, usize)>;
}

/// The free extents `[start, end)`, ascending, never adjacent (they merge).
pub struct Extents {
    free: [(usize, usize); MAX_EXTENTS],
    len: usize,
}

fn round(n: usize) -> Option<usize> {
    n.checked_add(GRAIN - 1).map(|n| n & !(GRAIN - 1))
}

fn align_up(n: usize, align: usize) -> Option<usize> {
    n.checked_add(align - 1).map(|n| n & !(align - 1))
}

impl Default for Extents {
    fn default() -> Self {
        Self::new()
    }
}

impl Extents {
    pub const fn new() -> Extents {
        Extents { free: [(0, 0); MAX_EXTENTS], len: 0 }
    }

    /// The free extents (for tests and diagnostics).
    pub fn free(&self) -> &[(usize, usize)] {
        &self.free[..self.len]
    }

    /// A block of `size` bytes aligned to `align` (a power of two), or None when the
    /// memory cannot grow.
    pub fn alloc(&mut self, size: usize, align: usize, mem: &mut impl Memory) -> Option<usize> {
        let align = align.max(GRAIN);
        let size = round(size.max(1))?;
        if let Some(i) = self.best_fit(size, align) {
            let at = align_up(self.free[i].0, align)?;
            self.take(i, at, at + size);
            return Some(at);
        }
        // Grow: by what the free extent ending at the memory's end lacks, or by the whole.
        let end = mem.end();
        let last = self.len.checked_sub(1).filter(|&i| self.free[i].1 == end);
        let from = match last {
            Some(i) => align_up(self.free[i].0, align)?,
            None => align_up(end, align)?,
        };
        let need = from.checked_add(size)? - end;
        let (old_end, added) = mem.grow(need)?;
        if old_end != end {
            // Someone else grew the memory meanwhile (not in a single-threaded
            // instance): the new bytes are an extent of their own.
            self.insert(old_end, old_end + added);
            return self.alloc(size, align, mem);
        }
        self.insert(old_end, old_end + added);
        let i = self.position(from)?;
        self.take(i, from, from + size);
        Some(from)
    }

    /// The smallest free extent that holds `size` bytes (rounded) aligned to `align`, the
    /// lowest of equal ones.
    fn best_fit(&self, size: usize, align: usize) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        for (i, &(s, e)) in self.free().iter().enumerate() {
            let fits = align_up(s, align).and_then(|at| at.checked_add(size)).is_some_and(|end| end <= e);
            if fits && best.map_or(true, |(_, len)| e - s < len) {
                best = Some((i, e - s));
            }
        }
        best.map(|(i, _)| i)
    }

    /// Frees the block of `size` bytes at `at`.
    pub fn dealloc(&mut self, at: usize, size: usize) {
        if let Some(size) = round(size.max(1)) {
            self.insert(at, at + size);
        }
    }

    /// Resizes the block at `at` from `old` to `new` bytes: in place when it shrinks or
    /// the space after it is free, else moved (`copy(from, to, bytes)` moves the
    /// contents) to a free extent that holds it, or, when none does, grown in place if
    /// it ends the memory (else moved to the memory's end). A block at the end that grew
    /// in place while a hole could take it would grow the memory for good (a vector
    /// doubling there took 1.5 MiB beyond the peak on the 1 GB benchmark dump): a copy
    /// costs less. None when the memory cannot grow.
    pub fn realloc(
        &mut self,
        at: usize,
        old: usize,
        new: usize,
        align: usize,
        mem: &mut impl Memory,
        copy: impl FnOnce(usize, usize, usize),
    ) -> Option<usize> {
        let (old_r, new_r) = (round(old.max(1))?, round(new.max(1))?);
        if new_r <= old_r {
            if new_r < old_r {
                self.insert(at + new_r, at + old_r);
            }
            return Some(at);
        }
        let tail = at + old_r;
        let end = mem.end();
        // The free extent right after the block, if any.
        let next = self.free().iter().position(|&(s, _)| s == tail);
        let room = next.map_or(tail, |i| self.free[i].1);
        if room >= at + new_r {
            let i = next?;
            self.take(i, tail, at + new_r);
            return Some(at);
        }
        if room == end && self.best_fit(new_r, align.max(GRAIN)).is_none() {
            // The block (and the free extent after it) ends the memory and no free extent
            // holds the new size: grow the rest.
            if let Some((old_end, added)) = mem.grow(at + new_r - end) {
                if old_end == end {
                    self.insert(old_end, old_end + added);
                    let i = self.position(tail)?;
                    self.take(i, tail, at + new_r);
                    return Some(at);
                }
                self.insert(old_end, old_end + added);
            }
        }
        let to = self.alloc(new, align, mem)?;
        copy(at, to, old);
        self.dealloc(at, old);
        Some(to)
    }

    /// The index of the free extent holding `at`.
    fn position(&self, at: usize) -> Option<usize> {
        self.free().iter().position(|&(s, e)| s <= at && at < e)
    }

    /// Marks `[from, to)`, inside free extent `i`, as used.
    fn take(&mut self, i: usize, from: usize, to: usize) {
        let (s, e) = self.free[i];
        debug_assert!(s <= from && from < to && to <= e);
        match (s < from, to < e) {
            (false, false) => self.remove(i),
            (true, false) => self.free[i].1 = from,
            (false, true) => self.free[i].0 = to,
            (true, true) => {
                self.free[i].1 = from;
                self.insert_at(i + 1, (to, e));
            }
        }
    }

    fn remove(&mut self, i: usize) {
        self.free.copy_within(i + 1..self.len, i);
        self.len -= 1;
    }

    /// Adds the free extent `[s, e)`, merged with its neighbours.
    fn insert(&mut self, s: usize, e: usize) {
        if s >= e {
            return;
        }
        let i = self.free().partition_point(|&(fs, _)| fs < s);
        let joins_prev = i > 0 && self.free[i - 1].1 == s;
        let joins_next = i < self.len && self.free[i].0 == e;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.free[i - 1].1 = self.free[i].1;
                self.remove(i);
            }
            (true, false) => self.free[i - 1].1 = e,
            (false, true) => self.free[i].0 = s,
            (false, false) => self.insert_at(i, (s, e)),
        }
    }

    fn insert_at(&mut self, i: usize, x: (usize, usize)) {
        if self.len == MAX_EXTENTS {
            // Full: forget the smallest extent (the new one if it is the smallest).
            let Some((k, smallest)) = self.free().iter().map(|&(s, e)| e - s).enumerate().min_by_key(|&(_, len)| len)
            else {
                return;
            };
            if x.1 - x.0 <= smallest {
                return;
            }
            self.remove(k);
            return self.insert_at(if k < i { i - 1 } else { i }, x);
        }
        self.free.copy_within(i..self.len, i + 1);
        self.free[i] = x;
        self.len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memory of 64 KiB pages that only counts (no bytes behind it).
    struct Pages {
        end: usize,
        limit: usize,
    }

    impl Memory for Pages {
        fn end(&self) -> usize {
            self.end
        }
        fn grow(&mut self, bytes: usize) -> Option<(usize, usize)> {
            let added = bytes.div_ceil(65_536) * 65_536;
            if self.end + added > self.limit {
                return None;
            }
            let old = self.end;
            self.end += added;
            Some((old, added))
        }
    }

    const MIB: usize = 1 << 20;

    #[test]
    fn a_late_block_grows_the_memory_only_by_what_the_free_end_lacks() {
        let mut mem = Pages { end: 0, limit: 1 << 32 };
        let mut x = Extents::new();
        let a = x.alloc(100 * MIB, 8, &mut mem).unwrap();
        let b = x.alloc(76 * MIB, 8, &mut mem).unwrap();
        assert_eq!((a, b), (0, 100 * MIB));
        assert_eq!(mem.end, 176 * MIB);
        x.dealloc(b, 76 * MIB);
        // 84 MiB: 76 are free at the end, the memory grows by 8.
        let c = x.alloc(84 * MIB, 8, &mut mem).unwrap();
        assert_eq!(c, b);
        assert_eq!(mem.end, 184 * MIB);
        assert!(x.free().is_empty());
    }

    #[test]
    fn blocks_take_the_smallest_hole_that_holds_them_and_freed_ones_merge() {
        let mut mem = Pages { end: 0, limit: 1 << 32 };
        let mut x = Extents::new();
        let blocks: Vec<usize> = [10, 30, 10, 20, 10].iter().map(|&m| x.alloc(m * MIB, 8, &mut mem).unwrap()).collect();
        assert_eq!(blocks, vec![0, 10 * MIB, 40 * MIB, 50 * MIB, 70 * MIB]);
        x.dealloc(blocks[1], 30 * MIB);
        x.dealloc(blocks[3], 20 * MIB);
        assert_eq!(x.free(), &[(10 * MIB, 40 * MIB), (50 * MIB, 70 * MIB)]);
        // 15 MiB goes in the 20 MiB hole, not the first (30 MiB) one.
        assert_eq!(x.alloc(15 * MIB, 8, &mut mem), Some(50 * MIB));
        x.dealloc(50 * MIB, 15 * MIB);
        // Freeing the block between the two holes makes one hole of 60 MiB.
        x.dealloc(blocks[2], 10 * MIB);
        assert_eq!(x.free(), &[(10 * MIB, 70 * MIB)]);
        assert_eq!(x.alloc(60 * MIB, 8, &mut mem), Some(10 * MIB));
        assert_eq!(mem.end, 80 * MIB, "no growth: the hole held it");
        // Alignment beyond the grain leaves the gap free.
        x.dealloc(blocks[0], 10 * MIB);
        assert_eq!(x.alloc(MIB, 1 << 16, &mut mem), Some(0));
        assert_eq!(x.alloc(MIB + 1, 8, &mut mem), Some(MIB));
        assert_eq!(x.alloc(3 * MIB, 1 << 21, &mut mem), Some(4 * MIB));
        assert_eq!(x.free(), &[(2 * MIB + 16, 4 * MIB), (7 * MIB, 10 * MIB)]);
    }

    #[test]
    fn realloc_grows_in_place_into_free_space_or_the_end_and_moves_otherwise() {
        let mut mem = Pages { end: 0, limit: 1 << 32 };
        let mut x = Extents::new();
        let mut moved = Vec::new();
        let a = x.alloc(8 * MIB, 8, &mut mem).unwrap();
        // At the end of the memory: grows in place by the difference.
        assert_eq!(x.realloc(a, 8 * MIB, 12 * MIB, 8, &mut mem, |f, t, n| moved.push((f, t, n))), Some(a));
        assert_eq!(mem.end, 12 * MIB);
        let b = x.alloc(4 * MIB, 8, &mut mem).unwrap();
        // Shrinking frees the tail; growing again takes it back in place.
        assert_eq!(x.realloc(a, 12 * MIB, 6 * MIB, 8, &mut mem, |f, t, n| moved.push((f, t, n))), Some(a));
        assert_eq!(x.free(), &[(6 * MIB, 12 * MIB)]);
        assert_eq!(x.realloc(a, 6 * MIB, 10 * MIB, 8, &mut mem, |f, t, n| moved.push((f, t, n))), Some(a));
        assert_eq!(x.free(), &[(10 * MIB, 12 * MIB)]);
        // No room after it: moved to the end, the old place freed.
        let c = x.realloc(a, 10 * MIB, 20 * MIB, 8, &mut mem, |f, t, n| moved.push((f, t, n))).unwrap();
        assert_eq!(c, 16 * MIB);
        assert_eq!(moved, vec![(a, c, 10 * MIB)]);
        assert_eq!(x.free(), &[(0, 12 * MIB)]);
        assert_eq!(b, 12 * MIB);
        // The memory's limit: None, nothing changed.
        let mut small = Pages { end: mem.end, limit: mem.end + MIB };
        assert_eq!(x.alloc(20 * MIB, 8, &mut small), None);
        assert_eq!(x.free(), &[(0, 12 * MIB)]);
    }

    #[test]
    fn a_block_ending_the_memory_moves_to_a_hole_that_holds_it_rather_than_grow() {
        let mut mem = Pages { end: 0, limit: 1 << 32 };
        let mut x = Extents::new();
        let mut moved = Vec::new();
        let a = x.alloc(10 * MIB, 8, &mut mem).unwrap();
        let b = x.alloc(MIB, 8, &mut mem).unwrap();
        let c = x.alloc(2 * MIB, 8, &mut mem).unwrap();
        x.dealloc(a, 10 * MIB);
        // 2 -> 4 MiB: the 10 MiB hole holds it; moved there, the memory stays 13 MiB.
        let c2 = x.realloc(c, 2 * MIB, 4 * MIB, 8, &mut mem, |f, t, n| moved.push((f, t, n))).unwrap();
        assert_eq!((c2, mem.end), (0, 13 * MIB));
        assert_eq!(moved, vec![(c, 0, 2 * MIB)]);
        assert_eq!(x.free(), &[(4 * MIB, 10 * MIB), (11 * MIB, 13 * MIB)]);
        // 1 -> 8 MiB: no free extent holds it; b, with the free space after it, ends the
        // memory: grown in place by the 6 MiB it lacks.
        assert_eq!(x.realloc(b, MIB, 8 * MIB, 8, &mut mem, |f, t, n| moved.push((f, t, n))), Some(b));
        assert_eq!(mem.end, 18 * MIB);
        assert_eq!(moved.len(), 1);
    }

    #[test]
    fn a_full_list_forgets_the_smallest_extent_and_stays_sorted() {
        let mut mem = Pages { end: 0, limit: 1 << 40 };
        let mut x = Extents::new();
        let blocks: Vec<usize> =
            (0..2 * MAX_EXTENTS + 2).map(|k| x.alloc(BIG + 16 * (k % 7), 8, &mut mem).unwrap()).collect();
        for (k, &b) in blocks.iter().enumerate().step_by(2) {
            x.dealloc(b, BIG + 16 * (k % 7));
        }
        assert_eq!(x.free().len(), MAX_EXTENTS);
        assert!(x.free().windows(2).all(|w| w[0].1 < w[1].0));
    }

    /// Checks the live blocks and the free extents against each other: the blocks do not
    /// overlap, and blocks and extents together cover the memory exactly once.
    fn check_partition(live: &[(usize, usize)], x: &Extents, end: usize) {
        let mut spans: Vec<(usize, usize, bool)> =
            live.iter().map(|&(a, n)| (a, a + round(n.max(1)).unwrap(), true)).collect();
        spans.extend(x.free().iter().map(|&(s, e)| (s, e, false)));
        spans.sort();
        let mut at = 0;
        for &(s, e, used) in &spans {
            assert!(s < e, "empty span {s}..{e}");
            assert_eq!(s, at, "a gap or an overlap at {at} (next span {s}..{e}, used {used})");
            at = e;
        }
        assert_eq!(at, end, "blocks and free extents end at the memory's end");
        assert!(x.free().windows(2).all(|w| w[0].1 < w[1].0), "free extents sorted and merged");
    }

    #[test]
    fn random_requests_never_overlap_reuse_freed_space_and_grow_by_the_shortfall_only() {
        // A brute-force model: every step, the blocks and free extents must partition the
        // memory; a request that some free extent holds must not grow it; one that none
        // holds grows it by what the free extent at the end lacks, in whole pages.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut mem = Pages { end: 0, limit: 1 << 40 };
        let mut x = Extents::new();
        let mut live: Vec<(usize, usize)> = Vec::new();
        // Which of the model's four kinds of resize the run met (all must be).
        let mut seen = [false; 4];
        for _ in 0..20_000 {
            // Up to 300 live blocks: the free list stays below its capacity (when full it
            // forgets extents, by design; tested above).
            let op = if live.len() >= 300 { 5 + next(5) } else { next(10) };
            match op {
                0..=4 => {
                    let size = BIG + next(64) * (BIG / 4) + next(3) * 16;
                    let align = [8, 16, 4096, 1 << 16][next(4)];
                    let a = align.max(GRAIN);
                    let r = round(size).unwrap();
                    let fits = x.free().iter().any(|&(s, e)| align_up(s, a).unwrap() + r <= e);
                    let end = mem.end;
                    let tail_from = x.free().last().filter(|f| f.1 == end).map_or(end, |f| f.0);
                    let p = x.alloc(size, align, &mut mem).unwrap();
                    assert_eq!(p % a, 0, "aligned");
                    if fits {
                        assert_eq!(mem.end, end, "a block some free extent holds does not grow the memory");
                    } else {
                        let short = align_up(tail_from, a).unwrap() + r - end;
                        assert_eq!(mem.end - end, short.div_ceil(65_536) * 65_536, "growth is the shortfall, in pages");
                    }
                    live.push((p, size));
                }
                5..=7 if !live.is_empty() => {
                    let (p, size) = live.swap_remove(next(live.len()));
                    x.dealloc(p, size);
                    // The freed space is reusable: the same request now needs no growth.
                    let end = mem.end;
                    let q = x.alloc(size, 16, &mut mem).unwrap();
                    assert_eq!(mem.end, end, "a freed block's space takes the same request again");
                    x.dealloc(q, size);
                }
                8..=9 if !live.is_empty() => {
                    // The model of a resize: in place when it shrinks or the free space
                    // after the block holds it; else moved, without growth, when a free
                    // extent holds it; else grown in place when the block (and the free
                    // space after it) ends the memory; else moved to the end.
                    // Some resizes are to more than any free extent holds (while those
                    // stay below 32 MiB), half of them of the block at the highest address
                    // (the one that may end the memory).
                    let largest = x.free().iter().map(|&(s, e)| e - s).max().unwrap_or(0);
                    let huge = largest < 32 * MIB && next(8) == 0;
                    let k = if huge && next(2) == 0 {
                        (0..live.len()).max_by_key(|&k| live[k].0).unwrap()
                    } else {
                        next(live.len())
                    };
                    let (p, size) = live[k];
                    let new = if huge { largest + BIG + next(4) * BIG } else { BIG + next(64) * (BIG / 4) };
                    let (old_r, new_r) = (round(size).unwrap(), round(new).unwrap());
                    let end = mem.end;
                    let after = x.free().iter().find(|f| f.0 == p + old_r).map_or(p + old_r, |f| f.1);
                    let elsewhere = x.free().iter().any(|&(s, e)| align_up(s, GRAIN).unwrap() + new_r <= e);
                    let tail_from = x.free().last().filter(|f| f.1 == end).map_or(end, |f| f.0);
                    let mut copied = None;
                    let q = x.realloc(p, size, new, 16, &mut mem, |f, t, n| copied = Some((f, t, n))).unwrap();
                    if new_r <= old_r || after >= p + new_r {
                        assert_eq!((q, mem.end, copied), (p, end, None), "in place, no growth");
                        seen[0] = true;
                    } else if elsewhere {
                        assert_eq!(mem.end, end, "a resize some free extent holds does not grow the memory");
                        assert_eq!(copied, Some((p, q, size)), "moved with its contents");
                        seen[1] = true;
                    } else if after == end {
                        assert_eq!((q, copied), (p, None), "the block ending the memory grows in place");
                        assert_eq!(
                            mem.end - end,
                            (p + new_r - end).div_ceil(65_536) * 65_536,
                            "by the shortfall, in pages"
                        );
                        seen[2] = true;
                    } else {
                        assert_eq!(copied, Some((p, q, size)), "moved with its contents");
                        let short = align_up(tail_from, GRAIN).unwrap() + new_r - end;
                        assert_eq!(mem.end - end, short.div_ceil(65_536) * 65_536, "growth is the shortfall, in pages");
                        seen[3] = true;
                    }
                    live[k] = (q, new);
                }
                _ => {}
            }
            assert!(x.free().len() < MAX_EXTENTS);
            check_partition(&live, &x, mem.end);
        }
        assert_eq!(seen, [true; 4], "every kind of resize was met");
    }
}
