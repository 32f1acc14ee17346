//! Byte sources: where the HPROF bytes come from.
//!
//! The analysis reads its input twice from start to end (pass 1 and pass 2) and, later,
//! a few small ranges at known offsets (to show one object's fields). Every input — a
//! file on disk, a gzip stream, a browser `Blob` read through `FileReaderSync`, a byte
//! slice in a test — is one [`ByteSource`], so the parser never knows or cares which.
//!
//! Sources hand out bytes in whatever chunk sizes suit them; records may span chunks
//! (the [`crate::records`] cursor handles that). Offsets are always positions in the
//! *decoded* HPROF stream.

#[cfg(not(target_arch = "wasm32"))]
mod file;
mod gzip;
mod mapped;
mod memory;

pub use mapped::Mapped;

#[cfg(not(target_arch = "wasm32"))]
pub use file::FileSource;
pub use gzip::GzipSource;
pub use memory::MemorySource;

use crate::error::Result;

/// A restartable, sequential stream of bytes with optional random access.
// `len` is the stream's length when known up front; there is no meaningful `is_empty`.
#[allow(clippy::len_without_is_empty)]
pub trait ByteSource {
    /// Length of the decoded stream, when known before reading it (not for gzip).
    fn len(&self) -> Option<u64>;

    /// Length of the underlying input (the compressed size for gzip), for progress.
    fn input_len(&self) -> Option<u64> {
        self.len()
    }

    /// Bytes of the underlying input consumed so far (compressed bytes for gzip).
    fn input_pos(&self) -> u64;

    /// Fills `buf` with the next bytes; returns how many were read, 0 only at the end.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize>;

    /// Skips `n` bytes forward. Seekable sources do it without reading; returns how many
    /// were skipped (fewer only at the end).
    fn skip(&mut self, n: u64) -> Result<u64> {
        let mut scratch = [0u8; 8192];
        let mut left = n;
        while left > 0 {
            let want = left.min(scratch.len() as u64) as usize;
            let got = self.read(&mut scratch[..want])?;
            if got == 0 {
                break;
            }
            left -= got as u64;
        }
        Ok(n - left)
    }

    /// Starts again from offset 0.
    fn rewind(&mut self) -> Result<()>;

    /// The whole stream in memory, when the source can map it (a native file): the
    /// cursor then reads it in place instead of calling [`ByteSource::read`].
    fn mapped(&self) -> Option<std::sync::Arc<Mapped>> {
        None
    }

    /// Reads bytes at an absolute offset without disturbing the sequential position's
    /// meaning for the caller (the caller rewinds before any new sequential pass).
    /// Sources that cannot seek (gzip) decode from the start.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        self.rewind()?;
        let skipped = self.skip(offset)?;
        if skipped < offset {
            return Ok(0);
        }
        read_fully(self, buf)
    }
}

/// Reads until `buf` is full or the source ends; returns how many bytes were read.
pub(crate) fn read_fully<S: ByteSource + ?Sized>(src: &mut S, buf: &mut [u8]) -> Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        let got = src.read(&mut buf[filled..])?;
        if got == 0 {
            break;
        }
        filled += got;
    }
    Ok(filled)
}

/// True when the first bytes look like a gzip member (magic 1f 8b).
pub fn looks_gzipped(head: &[u8]) -> bool {
    head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b
}

/// Wraps `inner` in a [`GzipSource`] when its first bytes are a gzip header.
pub fn auto_decompress(mut inner: Box<dyn ByteSource>) -> Result<Box<dyn ByteSource>> {
    let mut head = [0u8; 2];
    let n = inner.read_at(0, &mut head)?;
    inner.rewind()?;
    if looks_gzipped(&head[..n]) {
        Ok(Box::new(GzipSource::new(inner)))
    } else {
        Ok(inner)
    }
}
