//! The command line's allocator: the system's, asking Linux to back large blocks with
//! transparent huge pages (2 MiB instead of 4 KiB).
//!
//! The phases after pass 2 read per-object arrays of tens to hundreds of MiB at random
//! (dominators, retained sizes, the strength walk): with 4 KiB pages nearly every such
//! read also misses the TLB, and every fresh block costs a page fault per 4 KiB. Systems
//! whose transparent huge pages are in `madvise` mode (the usual default) give them only
//! to ranges that ask with `MADV_HUGEPAGE`; in `always` mode the advice changes nothing,
//! in `never` mode it is ignored. Advice only: its failure is harmless.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size are advised (smaller ones seldom cover a whole huge page).
const ADVISED: usize = 4 << 20;

pub struct HugePages;

impl HugePages {
    /// Advises the whole pages inside `ptr..ptr + size`.
    #[inline]
    fn advise(ptr: *mut u8, size: usize) {
        // Checked on every platform; only Linux is then advised.
        if ptr.is_null() || size < ADVISED {
            return;
        }
        #[cfg(target_os = "linux")]
        {
            const PAGE: usize = 4096;
            let start = (ptr as usize).next_multiple_of(PAGE);
            let end = (ptr as usize + size) & !(PAGE - 1);
            if start < end {
                // SAFETY: a range of whole pages inside a block this allocator just
                // handed out; MADV_HUGEPAGE changes no content.
                unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
            }
        }
    }
}

// SAFETY: every call is forwarded to `System`; the advice only touches pages of the
// block just returned.
unsafe impl GlobalAlloc for HugePages {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        Self::advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        Self::advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        Self::advise(p, new_size);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(i: usize) -> u8 {
        (i % 251) as u8
    }

    /// Blocks above and below the advised size, at odd sizes and alignments, are zeroed
    /// when asked and keep their contents through growth and shrinking (the advice must
    /// not touch them).
    #[test]
    fn advised_blocks_keep_their_contents() {
        let a = HugePages;
        for (size, align) in [(ADVISED + 13, 8), (ADVISED * 3, 4096), (100, 16), (ADVISED - 1, 1)] {
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
                assert!(std::slice::from_raw_parts(r, smaller).iter().enumerate().all(|(i, &b)| b == pattern(i)), "shrunk to {smaller}");
                a.dealloc(r, Layout::from_size_align(smaller, align).unwrap());
                let p = a.alloc(layout);
                assert!(!p.is_null() && p as usize % align == 0);
                std::slice::from_raw_parts_mut(p, size).fill(7);
                a.dealloc(p, layout);
            }
        }
    }
}
