//! A forward cursor over a [`ByteSource`] that keeps a window of the stream buffered.
//!
//! Parsers ask for the next `n` bytes with [`Cursor::need`] and then decode them from
//! [`Cursor::window`] without further checks; chunk boundaries of the source are invisible
//! to them. Large payloads the parser does not need (primitive array data) are skipped
//! with [`Cursor::skip`], which seeks in the source instead of reading when it can.
//! The window grows only up to [`MAX_WINDOW`]: a record field that claims more is reported
//! as an error instead of turning into an allocation sized by untrusted input.
//!
//! A source mapped in memory ([`ByteSource::mapped`], a native file) is read in place:
//! the window is then a view of the mapping, as long as the buffer would be (longer
//! only for a request, up to [`MAX_WINDOW`]: both readers accept and refuse the same
//! records), and the pages behind it are handed back as it moves on.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::source::{ByteSource, Mapped};

/// Default window size.
pub const DEFAULT_WINDOW: usize = 4 << 20;
/// Largest single piece a parser may ask for at once.
pub const MAX_WINDOW: usize = 64 << 20;

pub struct Cursor {
    src: Box<dyn ByteSource>,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    eof: bool,
    /// The whole stream, when the source is mapped: `buf` is unused, `base` is 0 and
    /// `start..end` are offsets in the mapping.
    map: Option<Map>,
    /// Whether the source is known to be where `base` and `end` say: a cursor may be
    /// given a source left anywhere, so only after a rewind can a seek use the buffer or
    /// skip ahead instead of restarting.
    anchored: bool,
}

/// A mapped stream's view: the window's size, and how far the pages behind it were
/// handed back (so that the mapping adds no more to the resident set than the buffer
/// it replaces).
struct Map {
    bytes: Arc<Mapped>,
    window: usize,
    released: usize,
}

/// Largest window of a mapped stream (longer only for a request): the pages read are
/// handed back as it moves on, so it bounds the dump's pages in the resident set.
const MAPPED_WINDOW: usize = 1 << 20;

/// Granularity of handing back pages read (a multiple of every page size in use).
const RELEASE: usize = 1 << 16;

impl Cursor {
    pub fn new(src: Box<dyn ByteSource>) -> Cursor {
        Cursor::with_window(src, DEFAULT_WINDOW)
    }

    pub fn with_window(src: Box<dyn ByteSource>, window: usize) -> Cursor {
        let window = window.max(64);
        // A mapped view needs no size to spare copies: a short one keeps few read pages
        // resident before they are handed back.
        let map = src.mapped().map(|bytes| Map { bytes, window: window.min(MAPPED_WINDOW), released: 0 });
        let buf = if map.is_some() { Vec::new() } else { vec![0; window] };
        let mut c = Cursor { src, buf, start: 0, end: 0, base: 0, eof: false, map, anchored: false };
        c.map_at(0, 0);
        c
    }

    /// In a mapped stream, moves to `offset` (at most the end) with a window of at
    /// least `n` bytes where the stream has them, handing back the pages read behind it.
    fn map_at(&mut self, offset: u64, n: usize) {
        if let Some(m) = &mut self.map {
            let len = m.bytes.len();
            let start = offset.min(len as u64) as usize;
            let page = start / RELEASE * RELEASE;
            if start < m.released {
                // Backwards (a seek): every page may have been read again since.
                m.bytes.release(0, len);
                m.released = page;
            } else if page > m.released {
                m.bytes.release(m.released, page);
                m.released = page;
            }
            self.start = start;
            self.end = len.min(start + m.window.max(n));
            self.eof = true;
        }
    }

    /// Bytes of the input consumed so far (for progress).
    pub fn input_pos(&self) -> u64 {
        match self.map {
            Some(_) => self.pos(),
            None => self.src.input_pos(),
        }
    }

    /// Offset in the stream of the next unread byte.
    #[inline]
    pub fn pos(&self) -> u64 {
        self.base + self.start as u64
    }

    /// The buffered, unread bytes.
    #[inline]
    pub fn window(&self) -> &[u8] {
        match &self.map {
            Some(m) => &m.bytes.bytes()[self.start..self.end],
            None => &self.buf[self.start..self.end],
        }
    }

    /// Bytes buffered and unread.
    #[inline]
    pub fn available(&self) -> usize {
        self.end - self.start
    }

    #[inline]
    pub fn advance(&mut self, n: usize) {
        debug_assert!(n <= self.available());
        self.start += n;
    }

    /// Makes `n` bytes available; `Ok(false)` when the stream ends first.
    #[inline]
    pub fn ensure(&mut self, n: usize) -> Result<bool> {
        if self.end - self.start >= n {
            Ok(true)
        } else {
            self.refill(n)
        }
    }

    /// Makes `n` bytes available or fails with "truncated: expected `what`".
    #[inline]
    pub fn need(&mut self, n: usize, what: &str) -> Result<()> {
        if self.end - self.start >= n || self.refill(n)? {
            Ok(())
        } else {
            Err(self.need_error(n, what))
        }
    }

    #[cold]
    fn need_error(&self, n: usize, what: &str) -> Error {
        if n > MAX_WINDOW {
            return Error::format(
                self.pos(),
                format!(
                    "expected {n} bytes of {what}, more than this reader accepts in one piece ({MAX_WINDOW} bytes)"
                ),
            );
        }
        Error::format(
            self.pos(),
            format!("file ends after {} more bytes, expected {n} bytes of {what}", self.available()),
        )
    }

    /// True when no byte is left (reads ahead if needed).
    pub fn at_end(&mut self) -> Result<bool> {
        Ok(!self.ensure(1)?)
    }

    /// Reads until `n` bytes are buffered; `Ok(false)` when the stream ends first or `n`
    /// exceeds [`MAX_WINDOW`].
    ///
    /// `n` usually comes from a length field of the dump, so it is not trusted: the buffer
    /// grows (doubling) only once the bytes already read fill it, never to `n` up front.
    /// A record claiming 60 MB in a 1 kB file costs no more memory than the file.
    #[cold]
    fn refill(&mut self, n: usize) -> Result<bool> {
        if n > MAX_WINDOW {
            return Ok(false);
        }
        if self.map.is_some() {
            self.map_at(self.start as u64, n);
            return Ok(self.end - self.start >= n);
        }
        // Move the unread tail to the front.
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.base += self.start as u64;
            self.end -= self.start;
            self.start = 0;
        }
        while self.end < n && !self.eof {
            if self.end == self.buf.len() {
                // Full, and `n <= MAX_WINDOW` is more than it holds: double.
                let bigger = (self.buf.len() * 2).min(MAX_WINDOW);
                self.buf.resize(bigger, 0);
            }
            let got = self.src.read(&mut self.buf[self.end..])?;
            if got == 0 {
                self.eof = true;
            }
            self.end += got;
        }
        Ok(self.end >= n)
    }

    /// Skips `n` bytes; returns how many were skipped (fewer only at the end of the stream).
    pub fn skip(&mut self, n: u64) -> Result<u64> {
        let buffered = self.available() as u64;
        if n <= buffered {
            self.start += n as usize;
            return Ok(n);
        }
        if self.map.is_some() {
            let from = self.start as u64;
            self.map_at(from.saturating_add(n), 0);
            return Ok(self.start as u64 - from);
        }
        let rest = n - buffered;
        self.base += self.end as u64;
        self.start = 0;
        self.end = 0;
        let skipped = if self.eof { 0 } else { self.src.skip(rest)? };
        self.base += skipped;
        if skipped < rest {
            self.eof = true;
        }
        Ok(buffered + skipped)
    }

    /// Skips `n` bytes or fails with a truncation error naming `what`.
    #[inline(always)]
    pub fn skip_exact(&mut self, n: u64, what: &str) -> Result<()> {
        // Inline for what is buffered (nearly every skip: an object's fields or body):
        // the record walk skips once per object.
        if n <= self.available() as u64 {
            self.start += n as usize;
            return Ok(());
        }
        self.skip_exact_beyond(n, what)
    }

    #[inline(never)]
    fn skip_exact_beyond(&mut self, n: u64, what: &str) -> Result<()> {
        let start = self.pos();
        let got = self.skip(n)?;
        if got < n {
            return Err(Error::format(start, format!("file ends {got} bytes into {what} of {n} bytes")));
        }
        Ok(())
    }

    /// Restarts at offset 0 (the next pass).
    pub fn rewind(&mut self) -> Result<()> {
        self.src.rewind()?;
        self.anchored = true;
        self.start = 0;
        self.end = 0;
        self.base = 0;
        self.eof = false;
        self.map_at(0, 0);
        Ok(())
    }

    /// Moves to `offset`, used for reading records again. Bytes still buffered are not
    /// read again (a walk of one span reads a record or so into the next), and a target
    /// ahead is skipped to, so that a gzip stream decodes on from where it is when that
    /// is nearer than its last checkpoint; only a target behind restarts the source.
    pub fn seek(&mut self, offset: u64) -> Result<()> {
        if self.map.is_none() && self.anchored {
            if offset >= self.base && offset <= self.base + self.end as u64 {
                self.start = (offset - self.base) as usize;
                return Ok(());
            }
            if offset > self.pos() {
                self.skip(offset - self.pos())?;
                return Ok(());
            }
        }
        self.rewind()?;
        if self.map.is_some() {
            self.map_at(offset, 0);
            return Ok(());
        }
        let got = self.src.skip(offset)?;
        self.base = got;
        if got < offset {
            self.eof = true;
        }
        Ok(())
    }

    pub fn source(&self) -> &dyn ByteSource {
        &*self.src
    }

    pub fn into_source(self) -> Box<dyn ByteSource> {
        self.src
    }
}

/// Big-endian decoding of the fixed-size values in a window.
#[inline(always)]
pub fn be_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline(always)]
pub fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
pub fn be_u64(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(b[at..at + 8].try_into().unwrap())
}

/// Wasm has no byte-swap instruction: LLVM expands a 64-bit swap into ~22 shifts, masks
/// and ors (and turns any scalar rewrite back into that swap), which with the register
/// pressure of the passes' loops made every identifier read a long, spilling sequence.
/// One byte shuffle of a SIMD register does the same (a `pshufb` on x86, `tbl` on ARM).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub fn be_u64(b: &[u8], at: usize) -> u64 {
    use core::arch::wasm32::{i8x16_shuffle, u64x2, u64x2_extract_lane};
    let v = u64x2(u64::from_le_bytes(b[at..at + 8].try_into().unwrap()), 0);
    u64x2_extract_lane::<0>(i8x16_shuffle::<7, 6, 5, 4, 3, 2, 1, 0, 8, 9, 10, 11, 12, 13, 14, 15>(v, v))
}

/// An identifier of `id_size` (4 or 8) bytes.
#[inline(always)]
pub fn be_id(b: &[u8], at: usize, id_size: usize) -> u64 {
    if id_size == 8 {
        be_u64(b, at)
    } else {
        be_u32(b, at) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemorySource;

    #[test]
    fn values_spanning_chunk_boundaries() {
        let data: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let mut c = Cursor::with_window(Box::new(MemorySource::new(data.clone())), 64);
        let mut pos = 0usize;
        for step in [1usize, 3, 7, 13, 64, 100, 5] {
            c.need(step, "test").unwrap();
            assert_eq!(&c.window()[..step], &data[pos..pos + step]);
            c.advance(step);
            pos += step;
            assert_eq!(c.pos(), pos as u64);
        }
        assert_eq!(c.skip(5000).unwrap(), 5000);
        pos += 5000;
        c.need(4, "u4").unwrap();
        assert_eq!(be_u32(c.window(), 0), u32::from_be_bytes(data[pos..pos + 4].try_into().unwrap()));
        let err = c.skip_exact(1_000_000, "payload").unwrap_err();
        assert!(err.to_string().contains("payload"), "{err}");
    }

    /// The same moves over a mapped file and over the same bytes in memory see the same
    /// bytes, positions and ends (the mapped reader against the plain one).
    #[cfg(unix)]
    #[test]
    fn a_mapped_file_reads_like_the_bytes_in_memory() {
        use std::io::Write;
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&data).unwrap();
        let file = crate::source::FileSource::from_file(f).unwrap();
        assert!(file.mapped().is_some(), "a regular file is mapped");
        let mut m = Cursor::with_window(Box::new(file), 1 << 16);
        let mut r = Cursor::with_window(Box::new(MemorySource::new(data.clone())), 1 << 16);
        let mut x = 0x9e37_79b9u64;
        for step in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x >> 20) as usize % 200_000;
            match x % 7 {
                0 | 1 => {
                    assert_eq!(m.ensure(n % 70_000).unwrap(), r.ensure(n % 70_000).unwrap(), "ensure, step {step}")
                }
                2 => {
                    let k = n.min(m.available()).min(r.available());
                    m.advance(k);
                    r.advance(k);
                }
                3 => assert_eq!(m.skip(n as u64).unwrap(), r.skip(n as u64).unwrap(), "skip, step {step}"),
                4 if step % 50 == 0 => {
                    m.seek(n as u64 * 15).unwrap();
                    r.seek(n as u64 * 15).unwrap();
                }
                5 if step % 500 == 0 => {
                    m.rewind().unwrap();
                    r.rewind().unwrap();
                }
                _ => assert_eq!(m.need(n % 1000, "x").is_ok(), r.need(n % 1000, "x").is_ok(), "need, step {step}"),
            }
            assert_eq!(m.pos(), r.pos(), "step {step}");
            let k = m.available().min(r.available());
            assert_eq!(&m.window()[..k], &r.window()[..k], "step {step}");
            assert_eq!(&m.window()[..k], &data[m.pos() as usize..m.pos() as usize + k]);
        }
        // A request longer than the longest window is refused by both.
        m.rewind().unwrap();
        r.rewind().unwrap();
        assert!(!m.ensure(MAX_WINDOW + 1).unwrap() && !r.ensure(MAX_WINDOW + 1).unwrap());
        assert_eq!(m.skip(u64::MAX / 2).unwrap(), data.len() as u64);
        assert!(m.at_end().unwrap());
    }

    /// A seek back into what is buffered, or ahead, does not restart the source.
    #[test]
    fn seeks_within_the_buffer_and_ahead_do_not_rewind() {
        struct Counting(MemorySource<Vec<u8>>, std::rc::Rc<std::cell::Cell<u32>>);
        impl ByteSource for Counting {
            fn len(&self) -> Option<u64> {
                self.0.len()
            }
            fn input_pos(&self) -> u64 {
                self.0.input_pos()
            }
            fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
                self.0.read(buf)
            }
            fn skip(&mut self, n: u64) -> Result<u64> {
                self.0.skip(n)
            }
            fn rewind(&mut self) -> Result<()> {
                self.1.set(self.1.get() + 1);
                self.0.rewind()
            }
        }
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let rewinds = std::rc::Rc::new(std::cell::Cell::new(0));
        let mut c = Cursor::with_window(Box::new(Counting(MemorySource::new(data.clone()), rewinds.clone())), 4096);
        // A fresh cursor restarts its source at the first seek (it may have been left anywhere).
        c.seek(0).unwrap();
        assert_eq!(rewinds.get(), 1);
        c.need(1000, "x").unwrap();
        c.advance(900);
        for (to, rewound) in [
            (100u64, false),
            (3000, false),
            (2000, false),
            (50_000, false),
            (49_000, true),
            (99_999, false),
            (100_000, false),
        ] {
            let before = rewinds.get();
            c.seek(to).unwrap();
            assert_eq!(c.pos(), to);
            c.ensure(1).unwrap();
            let k = c.available();
            assert_eq!(&c.window()[..k], &data[to as usize..to as usize + k], "at {to}");
            assert_eq!(rewinds.get() == before + 1, rewound, "seek to {to}");
        }
        c.seek(200_000).unwrap();
        assert!(c.at_end().unwrap());
    }

    #[test]
    fn truncation_names_offset_and_expectation() {
        let mut c = Cursor::new(Box::new(MemorySource::new(vec![1u8, 2, 3])));
        c.advance(0);
        let err = c.need(8, "an identifier").unwrap_err();
        assert_eq!(err.offset, Some(0));
        assert!(err.message.contains("expected 8 bytes of an identifier"), "{err}");
    }
}
