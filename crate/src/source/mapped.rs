//! A whole file mapped read-only into memory (native Unix builds): the records cursor
//! reads it in place, where reading it would copy every byte out of the page cache
//! (about 0.25 CPU-s per pass over 1 GB). Used for regular files only; any failure to
//! map falls back to plain reads.
//!
//! A mapped file that another process truncates while it is read makes the access
//! fault (SIGBUS) instead of failing with "the input changed": the price of reading in
//! place, as for every tool that maps its input.

/// The bytes of a mapping, unmapped when the last holder drops it.
pub struct Mapped {
    ptr: *const u8,
    len: usize,
}

// Read-only memory that nothing writes while it is mapped.
unsafe impl Send for Mapped {}
unsafe impl Sync for Mapped {}

impl Mapped {
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live read-only mapping of `len` bytes until drop.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Hands back the pages of `from..to` (offsets; `from` a multiple of the page size):
    /// they leave the resident set, and are read from the file again if touched again.
    pub fn release(&self, from: usize, to: usize) {
        let to = to.min(self.len);
        // SAFETY: a range inside the mapping. The mapping is private and never written:
        // a page handed back reads the same bytes from the file when touched again.
        #[cfg(unix)]
        if from < to {
            unsafe { libc::madvise(self.ptr.add(from) as *mut libc::c_void, to - from, libc::MADV_DONTNEED) };
        }
        #[cfg(not(unix))]
        let _ = (from, to);
    }

    /// Maps the first `len` bytes of `file` (None: empty, too large for the address
    /// space, or the system refused).
    #[cfg(unix)]
    pub fn map(file: &std::fs::File, len: u64) -> Option<Mapped> {
        use std::os::unix::io::AsRawFd;
        let len = usize::try_from(len).ok().filter(|&l| l > 0)?;
        // SAFETY: a fresh private read-only mapping of an open file descriptor; the
        // result is checked before use.
        let ptr =
            unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0) };
        if ptr == libc::MAP_FAILED || ptr.is_null() {
            return None;
        }
        // Read front to back, twice: ask for read-ahead (advice only, its failure is harmless).
        unsafe { libc::madvise(ptr, len, libc::MADV_SEQUENTIAL) };
        Some(Mapped { ptr: ptr as *const u8, len })
    }
}

#[cfg(unix)]
impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}
