//! What the wasm heap holds, against the linear memory it took: a counting wrapper around
//! the standard allocator (dlmalloc in wasm), and a log of the large allocations.
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

/// Allocations of at least this many bytes are logged.
pub const LOGGED: usize = 4 << 20;
/// Log entries kept (the first ones; later ones are counted, not kept).
const LOG_LEN: usize = 2048;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LOGGED_COUNT: AtomicUsize = AtomicUsize::new(0);

/// One large allocation event: `op` 0 alloc, 1 free, 2 realloc (from `old` to `ptr`).
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

/// The standard allocator, counted.
pub struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        allocated_at(System.alloc(layout), layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        allocated_at(System.alloc_zeroed(layout), layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        ALLOCATED.fetch_sub(layout.size(), Relaxed);
        if layout.size() >= LOGGED {
            log(1, ptr, ptr, layout.size());
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            ALLOCATED.fetch_sub(layout.size(), Relaxed);
            added(new_size);
            if new_size.max(layout.size()) >= LOGGED {
                log(2, p, ptr, new_size);
            }
        }
        p
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
