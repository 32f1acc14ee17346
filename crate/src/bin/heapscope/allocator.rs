//! The command line's allocator: the system's for small blocks; the large ones (from
//! [`LARGE`] bytes) placed in one reserved range of address space and reused after they
//! are freed.
//!
//! Why reuse: the system allocator maps each large block afresh and unmaps it when it is
//! freed, and the kernel zeroes every page of a fresh mapping when it is first touched.
//! The analysis allocates and frees its per-object arrays phase after phase, so on the
//! 1 GB benchmark dump it had the kernel zero 584 MiB (peak resident
//! 288 MiB); in a virtual machine that was 0.5–1.2 s of system time. Here a freed
//! block's pages stay in the range for the next request that fits
//! ([`heapscope::big_blocks`] places them, as it places the wasm build's large blocks:
//! best fit, neighbours merged). So that the resident set stays near what is allocated,
//! the free pages are handed back (`MADV_DONTNEED`) whenever the range has to grow; until
//! then a phase reuses what the phases before it freed. On the 1 GB dump: 342 MiB zeroed
//! instead of 584, peak resident 14.0 B/object instead of 13.35. (Handing the free pages
//! back at the end of every phase as well gave 13.9 B/object but 548 MiB zeroed.)
//!
//! Why no huge pages: the range once asked for transparent huge pages (`MADV_HUGEPAGE`),
//! so that the random reads of the per-object arrays after pass 2 would miss the TLB
//! less. In a virtual machine whose host takes freed memory back (free page reporting, as
//! on the machine the benchmarks run on), a fresh huge page costs far more than the 512
//! small pages it replaces: touching 500 MiB took 2.4–2.7 s of system time in huge pages
//! and 0.19–0.28 s in small ones (3 runs each, 5 s apart). On the 1 GB dump the core's
//! CPU time went from 3.9–4.5 s to 3.0–3.4 s without the advice (4 alternating pairs),
//! user time included: the TLB gain did not show.
//!
//! Where the range cannot be reserved or grown (an address-space limit, strict
//! overcommit), requests fall back to the system allocator; a block is returned to
//! whichever allocator it came from (told by its address).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use heapscope::big_blocks::{Extents, Memory};

/// Blocks from this size go to the reserved range.
pub const LARGE: usize = 4 << 20;
/// Address space reserved (not memory: untouched pages cost nothing).
const RESERVED: usize = 1 << 40;
/// The range grows in steps of this many bytes (and starts aligned to it).
const STEP: usize = 2 << 20;
/// Free extents smaller than this stay resident when the rest is handed back.
const KEPT: usize = 1 << 20;

/// Start of the reserved range: 0 before the first large request, [`FAILED`] if it
/// could not be reserved.
static BASE: AtomicUsize = AtomicUsize::new(0);
const FAILED: usize = usize::MAX;

/// The placement, the range's usable end, and the end of what was ever handed out
/// (pages beyond it were never written, so they are still zero).
struct Range {
    extents: Extents,
    usable: Usable,
}

struct Usable {
    base: usize,
    end: usize,
    written: usize,
}

static RANGE: Mutex<Range> =
    Mutex::new(Range { extents: Extents::new(), usable: Usable { base: 0, end: 0, written: 0 } });

impl Memory for Usable {
    fn end(&self) -> usize {
        self.end
    }

    fn grow(&mut self, bytes: usize) -> Option<(usize, usize)> {
        let added = bytes.checked_next_multiple_of(STEP)?;
        if self.end.checked_add(added)? > RESERVED {
            return None;
        }
        let at = (self.base + self.end) as *mut libc::c_void;
        // SAFETY: pages of the reserved range, not handed out yet.
        unsafe {
            if libc::mprotect(at, added, libc::PROT_READ | libc::PROT_WRITE) != 0 {
                return None;
            }
        }
        let old = self.end;
        self.end += added;
        Some((old, added))
    }
}

/// The range's start, once reserved.
fn base() -> Option<usize> {
    match BASE.load(Relaxed) {
        0 | FAILED => None,
        b => Some(b),
    }
}

/// Runs `f` on the range (reserving it first if needed); None if there is none. Hands
/// the free pages back when `f` grew the range.
fn with_range<R>(f: impl FnOnce(&mut Range) -> Option<R>) -> Option<R> {
    let mut range = RANGE.lock().ok()?;
    if BASE.load(Relaxed) == 0 {
        // SAFETY: a new private mapping that nothing else uses; no access until grown.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                RESERVED + STEP,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        let b = if p == libc::MAP_FAILED { FAILED } else { (p as usize).next_multiple_of(STEP) };
        range.usable.base = b;
        BASE.store(b, Relaxed);
    }
    if BASE.load(Relaxed) == FAILED {
        return None;
    }
    let before = range.usable.end;
    let out = f(&mut range);
    if range.usable.end != before {
        hand_back(&range);
    }
    out
}

/// Hands the whole pages of the free extents of [`KEPT`] bytes or more back to the
/// system (they read as zero when touched again).
fn hand_back(range: &Range) {
    for &(s, e) in range.extents.free() {
        let (s, e) = (s.next_multiple_of(4096), e & !4095);
        if e > s && e - s >= KEPT {
            // SAFETY: free pages of the range: nothing points into them.
            unsafe { libc::madvise((range.usable.base + s) as *mut libc::c_void, e - s, libc::MADV_DONTNEED) };
        }
    }
}

/// Whether `p` lies in the reserved range.
fn in_range(p: *mut u8) -> bool {
    base().is_some_and(|b| (p as usize).wrapping_sub(b) < RESERVED)
}

/// A block from the range: its address and how many of its first bytes may be non-zero.
fn take(size: usize, align: usize) -> Option<(*mut u8, usize)> {
    with_range(|r| {
        let at = r.extents.alloc(size, align, &mut r.usable)?;
        let dirty = r.usable.written.min(at + size).saturating_sub(at);
        r.usable.written = r.usable.written.max(at + size);
        Some(((r.usable.base + at) as *mut u8, dirty))
    })
}

pub struct Allocator;

// SAFETY: small blocks are the system's; large ones are disjoint pieces of the reserved
// range (the placement never hands out a byte twice), and every block goes back to
// the allocator its address belongs to.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= LARGE {
            if let Some((p, _)) = take(layout.size(), layout.align()) {
                return p;
            }
        }
        System.alloc(layout)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= LARGE {
            if let Some((p, dirty)) = take(layout.size(), layout.align()) {
                // Only what was handed out before can be non-zero (pages handed back
                // read as zero too, but are not told apart).
                std::ptr::write_bytes(p, 0, dirty);
                return p;
            }
        }
        System.alloc_zeroed(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if in_range(ptr) {
            with_range(|r| {
                r.extents.dealloc(ptr as usize - r.usable.base, layout.size());
                Some(())
            });
        } else {
            System.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if in_range(ptr) && new_size >= LARGE {
            // In place when the space after the block is free, else moved within the range.
            let moved = with_range(|r| {
                let base = r.usable.base;
                let at = r.extents.realloc(
                    ptr as usize - base,
                    old,
                    new_size,
                    layout.align(),
                    &mut r.usable,
                    |from, to, n| {
                        // SAFETY: a block and a free extent of the range never overlap.
                        std::ptr::copy_nonoverlapping((base + from) as *const u8, (base + to) as *mut u8, n)
                    },
                )?;
                r.usable.written = r.usable.written.max(at + new_size);
                Some((base + at) as *mut u8)
            });
            if let Some(p) = moved {
                return p;
            }
        } else if !in_range(ptr) && new_size < LARGE {
            return System.realloc(ptr, layout, new_size);
        }
        // Between the two allocators (or the range is full): a new block, the contents,
        // the old block freed.
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let p = self.alloc(new_layout);
        if !p.is_null() {
            std::ptr::copy_nonoverlapping(ptr, p, old.min(new_size));
            self.dealloc(ptr, layout);
        }
        p
    }
}

/// Keeps glibc's threshold for mapping a block on its own at 128 KiB. By default glibc
/// raises it to the size of each mapped block that is freed (up to 32 MiB), so that
/// after a vector of a few hundred KiB has grown once, the blocks of that size are cut
/// from the heap instead, where the holes they leave stay resident. On the 1 GB
/// benchmark dump that was about 10 MiB of pass 2's peak resident set (295 MiB against
/// 285.7 with the threshold fixed).
pub fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        /// glibc's `M_MMAP_THRESHOLD`.
        const M_MMAP_THRESHOLD: i32 = -3;
        // SAFETY: mallopt only sets a tuning parameter; it is called before any thread starts.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 128 << 10);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests of this binary are these: one at a time, the range is theirs alone.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

    fn pattern(i: usize) -> u8 {
        (i % 251) as u8
    }

    /// Blocks above and below the large size, at odd sizes and alignments, are zeroed
    /// when asked (also where a freed block had been written) and keep their contents
    /// through growth and shrinking, across the two allocators.
    #[test]
    fn blocks_keep_their_contents() {
        let _one = ONE_AT_A_TIME.lock();
        let a = Allocator;
        for (size, align) in [(LARGE + 13, 8), (LARGE * 3, 4096), (100, 16), (LARGE - 1, 1), (LARGE / 2 + 5, 8)] {
            let layout = Layout::from_size_align(size, align).unwrap();
            let (bigger, smaller) = (size * 2 + 7, size / 2 + 1);
            // SAFETY: non-zero sizes; each pointer is used within its current size and
            // freed once, with the layout it has then.
            unsafe {
                let p = a.alloc_zeroed(layout);
                assert!(!p.is_null() && p as usize % align == 0);
                let block = std::slice::from_raw_parts_mut(p, size);
                assert!(block.iter().all(|&b| b == 0));
                block.iter_mut().enumerate().for_each(|(i, b)| *b = pattern(i));
                let q = a.realloc(p, layout, bigger);
                assert!(!q.is_null() && q as usize % align == 0);
                let block = std::slice::from_raw_parts_mut(q, bigger);
                assert!(block[..size].iter().enumerate().all(|(i, &b)| b == pattern(i)), "grown from {size}");
                block.iter_mut().enumerate().for_each(|(i, b)| *b = pattern(i));
                let r = a.realloc(q, Layout::from_size_align(bigger, align).unwrap(), smaller);
                assert!(!r.is_null());
                assert!(
                    std::slice::from_raw_parts(r, smaller).iter().enumerate().all(|(i, &b)| b == pattern(i)),
                    "shrunk to {smaller}"
                );
                a.dealloc(r, Layout::from_size_align(smaller, align).unwrap());
                // Written blocks freed, then zeroed ones asked for: wherever they are
                // placed, they read as zero.
                let p = a.alloc(layout);
                assert!(!p.is_null() && p as usize % align == 0);
                std::slice::from_raw_parts_mut(p, size).fill(7);
                a.dealloc(p, layout);
                let z = a.alloc_zeroed(layout);
                assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0), "zeroed after reuse, {size}");
                a.dealloc(z, layout);
            }
        }
    }

    /// A large block freed serves the next request of its size: the range does not grow
    /// for it (unless the range could not be reserved on this system).
    #[test]
    fn freed_large_blocks_are_reused() {
        let _one = ONE_AT_A_TIME.lock();
        let a = Allocator;
        let layout = Layout::from_size_align(LARGE * 2, 8).unwrap();
        let end = || RANGE.lock().unwrap().usable.end;
        // SAFETY: blocks used within their size and freed once.
        unsafe {
            let p = a.alloc(layout);
            if !in_range(p) {
                // No range here: the system allocator served it.
                a.dealloc(p, layout);
                return;
            }
            std::slice::from_raw_parts_mut(p, layout.size()).fill(1);
            let grown = end();
            a.dealloc(p, layout);
            let q = a.alloc_zeroed(layout);
            assert!(in_range(q));
            assert_eq!(end(), grown, "the range grew for a block the size of one just freed");
            assert!(std::slice::from_raw_parts(q, layout.size()).iter().all(|&b| b == 0));
            a.dealloc(q, layout);
        }
    }
}
