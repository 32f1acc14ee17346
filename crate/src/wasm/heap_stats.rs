//! What the wasm heap holds, against the linear memory it took: a counting wrapper around
//! the standard allocator (dlmalloc in wasm) for small blocks and [`crate::big_blocks`] for
//! the large ones, and a log of the large allocations.
//!
//! A wasm instance's memory never shrinks, so its size is the peak of what the allocator
//! ever needed, holes included: a temporary freed below a long-lived array is a hole that
//! only a later allocation of at most its size can reuse. Comparing the bytes allocated
//! (and their peak) with the memory size per phase shows where the holes are; the log
//! (every allocation, reallocation and free of at least [`LOGGED`] bytes, with its
//! address) shows which arrays leave them. Both are read by `tests/bench/browser-bench.mjs`
//! through `Session.phase_stats()` and `heapLog()`.
//!
//! Counting costs two additions per allocation; the log only touches large ones, which
//! are rare (a few hundred per analysis).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use crate::big_blocks::{Extents, Memory, BIG};

/// Allocations of at least this many bytes are logged.
pub const LOGGED: usize = 1 << 20;
/// Log entries kept (the first ones; later ones are counted, not kept).
const LOG_LEN: usize = 2048;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LOGGED_COUNT: AtomicUsize = AtomicUsize::new(0);

/// One large allocation event: `op` 0 alloc, 1 free, 2 realloc (from `old` to `ptr`), 3 the
/// general allocator grew the memory (`ptr` the old end, `size` the bytes added).
#[derive(Clone, Copy)]
struct Entry {
    op: u8,
    ptr: u32,
    old: u32,
    size: u32,
    /// Linear memory after the event, in 64 KiB pages.
    pages: u32,
}

struct Log(UnsafeCell<[Entry; LOG_LEN]>);
// wasm32 without threads: one thread touches it.
unsafe impl Sync for Log {}
static LOG: Log = Log(UnsafeCell::new([Entry { op: 0, ptr: 0, old: 0, size: 0, pages: 0 }; LOG_LEN]));

fn log(op: u8, ptr: *mut u8, old: *mut u8, size: usize) {
    let i = LOGGED_COUNT.fetch_add(1, Relaxed);
    if i < LOG_LEN {
        let pages = core::arch::wasm32::memory_size(0) as u32;
        // SAFETY: single-threaded; the slot is written once, read only by `heap_log`.
        unsafe { (*LOG.0.get())[i] = Entry { op, ptr: ptr as u32, old: old as u32, size: size as u32, pages } };
    }
}

fn added(size: usize) {
    let now = ALLOCATED.fetch_add(size, Relaxed) + size;
    if now > PEAK.load(Relaxed) {
        PEAK.store(now, Relaxed);
    }
}

/// Counts (and logs) a new allocation of `size` bytes at `p`, if it succeeded.
fn allocated_at(p: *mut u8, size: usize) -> *mut u8 {
    if !p.is_null() {
        added(size);
        if size >= LOGGED {
            log(0, p, p, size);
        }
    }
    p
}

/// The wasm linear memory, for [`crate::big_blocks`].
struct Linear;

impl Memory for Linear {
    fn end(&self) -> usize {
        core::arch::wasm32::memory_size(0) * 65_536
    }

    fn grow(&mut self, bytes: usize) -> Option<(usize, usize)> {
        let pages = bytes.div_ceil(65_536);
        let old = core::arch::wasm32::memory_grow(0, pages);
        (old != usize::MAX).then(|| (old * 65_536, pages * 65_536))
    }
}

struct Big(UnsafeCell<Extents>);
// wasm32 without threads: one thread touches it.
unsafe impl Sync for Big {}
/// Where the blocks of at least [`BIG`] bytes go (see [`crate::big_blocks`]).
static BIG_BLOCKS: Big = Big(UnsafeCell::new(Extents::new()));

fn big() -> &'static mut Extents {
    // SAFETY: single-threaded, and no caller keeps the reference across another call.
    unsafe { &mut *BIG_BLOCKS.0.get() }
}

fn big_alloc(layout: Layout) -> *mut u8 {
    big().alloc(layout.size(), layout.align(), &mut Linear).map_or(std::ptr::null_mut(), |p| p as *mut u8)
}

/// Runs a request of the general allocator, logging when it grows the memory: its pages
/// land at the memory's end, after the large blocks, and cut the free space there off.
fn small(f: impl FnOnce() -> *mut u8) -> *mut u8 {
    let before = core::arch::wasm32::memory_size(0);
    let p = f();
    let after = core::arch::wasm32::memory_size(0);
    if after != before {
        log(3, (before * 65_536) as *mut u8, p, (after - before) * 65_536);
    }
    p
}

/// The standard allocator (dlmalloc) for small blocks and [`crate::big_blocks`] for the
/// large ones, counted.
pub struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = if layout.size() >= BIG { big_alloc(layout) } else { small(|| System.alloc(layout)) };
        allocated_at(p, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = if layout.size() >= BIG {
            let p = big_alloc(layout);
            if !p.is_null() {
                std::ptr::write_bytes(p, 0, layout.size());
            }
            p
        } else {
            small(|| System.alloc_zeroed(layout))
        };
        allocated_at(p, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() >= BIG {
            big().dealloc(ptr as usize, layout.size());
        } else {
            System.dealloc(ptr, layout);
        }
        ALLOCATED.fetch_sub(layout.size(), Relaxed);
        if layout.size() >= LOGGED {
            log(1, ptr, ptr, layout.size());
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        let p = match (old >= BIG, new_size >= BIG) {
            (false, false) => small(|| System.realloc(ptr, layout, new_size)),
            (true, true) => big()
                .realloc(ptr as usize, old, new_size, layout.align(), &mut Linear, |from, to, n| {
                    // SAFETY: a new block never overlaps the one it replaces.
                    std::ptr::copy_nonoverlapping(from as *const u8, to as *mut u8, n)
                })
                .map_or(std::ptr::null_mut(), |p| p as *mut u8),
            // From one side to the other: a new block, the contents, the old one freed.
            (was_big, _) => {
                let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                let p = if was_big { small(|| System.alloc(new_layout)) } else { big_alloc(new_layout) };
                if !p.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, p, old.min(new_size));
                    if was_big {
                        big().dealloc(ptr as usize, old);
                    } else {
                        System.dealloc(ptr, layout);
                    }
                }
                p
            }
        };
        if !p.is_null() {
            ALLOCATED.fetch_sub(old, Relaxed);
            added(new_size);
            if new_size.max(old) >= LOGGED {
                log(2, p, ptr, new_size);
            }
        }
        p
    }
}

/// What the general allocator gets before the analysis starts (see [`reserve_small_arena`]).
pub const SMALL_ARENA: usize = 8 << 20;

/// Gives dlmalloc [`SMALL_ARENA`] bytes of free space at the bottom of the memory, where
/// the analysis' small allocations then come from. Otherwise dlmalloc grows the memory
/// by a few pages whenever it runs short, between the large blocks: the holes the large
/// temporaries leave are then split by its pages, and the free space at the memory's end
/// (which a large block can extend instead of growing the memory by its whole size) is
/// cut off from the end. On the 1 GB benchmark dump (22.1 M objects) dlmalloc then never
/// grows the memory after the arena (the log's op 3), and the peak fell 546 -> 516 MiB.
pub fn reserve_small_arena() {
    // SAFETY: a valid layout; the block is freed at once (it stays dlmalloc's free space).
    unsafe {
        let layout = Layout::from_size_align_unchecked(SMALL_ARENA, 16);
        let p = System.alloc(layout);
        if !p.is_null() {
            System.dealloc(p, layout);
        }
    }
}

/// Bytes the allocator hands out now.
pub fn allocated() -> usize {
    ALLOCATED.load(Relaxed)
}

/// The most [`allocated`] reached since the last call (the first: since the start).
pub fn take_peak() -> usize {
    let now = allocated();
    PEAK.swap(now, Relaxed).max(now)
}

/// Forgets the log's entries so far (the warm-up's, see [`crate::warm_up`]).
pub fn clear_log() {
    LOGGED_COUNT.store(0, Relaxed);
}

/// The log as JSON: `{"dropped": n, "entries": [[op, ptr, old, size, pages], …]}`.
pub fn heap_log() -> String {
    let n = LOGGED_COUNT.load(Relaxed);
    let kept = n.min(LOG_LEN);
    // SAFETY: single-threaded; entries below `kept` were written.
    let entries: &[Entry; LOG_LEN] = unsafe { &*LOG.0.get() };
    let entries = &entries[..kept];
    let rows: Vec<[u32; 5]> = entries.iter().map(|e| [e.op as u32, e.ptr, e.old, e.size, e.pages]).collect();
    format!("{{\"dropped\":{},\"entries\":{}}}", n - kept, serde_json::to_string(&rows).unwrap_or_default())
}
