//! A browser `Blob` (a dropped `File`) as a [`ByteSource`].
//!
//! Bytes are read with `Blob.slice(start, end)` + `FileReaderSync.readAsArrayBuffer`, which
//! exist only inside a Web Worker (that is where the analysis runs, so the UI thread never
//! blocks). Sequential reads go through one reusable buffer of `chunk_size` bytes: the file
//! is never held whole, in JS or in wasm memory. `skip`, `rewind` and `read_at` are real
//! seeks: they only move the offset the next slice starts at.
//!
//! Read-ahead adapts to the access pattern: a read that lands far from where the last
//! slice ended (a seek, a long skip) takes a slice of [`SEEK_FETCH`] bytes, and each
//! slice that continues the one before doubles, up to `chunk_size`. A pass over the file
//! reads 16 MiB slices after the first few; a walk that reads a span here and there
//! (reading strings back for the waste report) does not read 16 MiB for each span.
//!
//! Read-ahead in another thread: when the worker's global scope has a function
//! `heapscopeReadAhead(start, end)` (set by the page's worker when the page is
//! cross-origin isolated, see `web/src/import/read-ahead.ts`), sequential slices are asked
//! of it first: a second worker reads the file ahead into shared memory while this one
//! parses, so reading and parsing overlap. It returns the bytes (a `Uint8Array`), or
//! `undefined` when it cannot serve them; then the slice is read here as without it.
//! Its ring then serves as the chunk buffer: a pass's reads go straight from it into the
//! parser's window, and the 16 MiB buffer here is never allocated (wasm memory never
//! shrinks, so it would have been part of every phase's peak).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use js_sys::{Function, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, FileReaderSync};

use crate::error::{Error, Result};
use crate::source::ByteSource;

use super::progress::ProgressHandle;

/// Default bytes per `FileReaderSync` call: big enough that the per-call cost vanishes,
/// small enough that the JS `ArrayBuffer` + the wasm copy stay a small part of memory
/// (`tests/bench/read-speed.mjs`: 16 MiB reads were as fast as 32 or 64 MiB, 8 MiB slower).
pub const DEFAULT_CHUNK_SIZE: usize = 16 << 20;

/// Bytes read from blobs so far by this instance (every slice, sequential or not): how
/// much of the file each pass really read (see [`super::progress`]'s phase records).
pub static FETCHED: AtomicU64 = AtomicU64::new(0);

/// The slice read after a seek, before the read-ahead grows again: one span of the
/// locator's ([`crate::index::locate::SPAN`]), what finding one object again reads.
pub const SEEK_FETCH: usize = crate::index::locate::SPAN as usize;

/// A skip forward of at most this much from where the last slice ended still counts as
/// sequential reading (a pass skipping an array's elements).
const NEAR: u64 = 1 << 20;

/// With read-ahead, a sequential read into a buffer of at least this many bytes skips
/// the chunk buffer (smaller reads, a byte here and there, would each cost a call to JS).
const DIRECT_MIN: usize = 64 << 10;

/// Smallest accepted chunk size (tests use odd tiny sizes; the page never goes below 64 KiB).
pub const MIN_CHUNK_SIZE: usize = 1;

pub struct BlobSource {
    blob: Blob,
    reader: FileReaderSync,
    len: u64,
    /// Offset of the next byte `read` hands out.
    pos: u64,
    /// Bytes `buf_start .. buf_start + buf_len` of the blob (reused for every chunk).
    buf: Vec<u8>,
    buf_start: u64,
    buf_len: usize,
    chunk_size: usize,
    /// Where the last slice read for sequential reading ended, and its size: the next
    /// slice's size follows from them (see the module docs).
    last_end: u64,
    last_size: usize,
    /// Told how far the sequential reading got after each chunk.
    progress: Option<ProgressHandle>,
    /// The global `heapscopeReadAhead(start, end)`, if the worker set one (module docs).
    read_ahead: Option<Function>,
}

impl BlobSource {
    /// Wraps `blob`; fails outside a worker (no `FileReaderSync` there).
    pub fn new(blob: Blob, chunk_size: usize) -> Result<BlobSource> {
        let reader = FileReaderSync::new().map_err(|e| {
            Error::io(format!(
                "cannot read the file here (FileReaderSync exists only in a Web Worker): {}",
                js_text(&e)
            ))
        })?;
        let size = blob.size();
        if !(size >= 0.0 && size.is_finite()) {
            return Err(Error::io(format!("the browser reports an impossible file size ({size})")));
        }
        Ok(BlobSource {
            blob,
            reader,
            len: size as u64,
            pos: 0,
            buf: Vec::new(),
            buf_start: 0,
            buf_len: 0,
            chunk_size: chunk_size.max(MIN_CHUNK_SIZE),
            last_end: 0,
            last_size: chunk_size.max(MIN_CHUNK_SIZE),
            progress: None,
            read_ahead: js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("heapscopeReadAhead"))
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok()),
        })
    }

    /// Reports the read position to `progress` after each chunk of sequential reading.
    pub fn with_progress(mut self, progress: ProgressHandle) -> BlobSource {
        self.progress = Some(progress);
        self
    }

    fn report(&self) -> Result<()> {
        match &self.progress {
            Some(p) => p.input_read(self.pos, self.len),
            None => Ok(()),
        }
    }

    /// Whether sequential reading goes through the page's read-ahead worker (then no
    /// chunk buffer is held here for a pass; see the module docs).
    pub fn reads_ahead(&self) -> bool {
        self.read_ahead.is_some()
    }

    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// Sequential reading: [`Self::fetch`], served by the read-ahead worker when there is one
    /// and the reading is `streaming` (a pass reading the file at full chunk size; the short
    /// slices after a seek, e.g. strings read back for the report, would make it read 16 MiB
    /// each) or reaches the end of the file.
    fn fetch_sequential(&self, start: u64, dst: &mut [u8], streaming: bool) -> Result<()> {
        let streaming = streaming || start + dst.len() as u64 == self.len;
        if let (Some(f), true) = (&self.read_ahead, streaming) {
            let end = start + dst.len() as u64;
            // An exception or anything but the exact bytes: read them here instead.
            if let Ok(got) =
                f.call2(&JsValue::UNDEFINED, &JsValue::from_f64(start as f64), &JsValue::from_f64(end as f64))
            {
                if let Some(bytes) = got.dyn_ref::<Uint8Array>() {
                    if bytes.length() as usize == dst.len() {
                        bytes.copy_to(dst);
                        FETCHED.fetch_add(dst.len() as u64, Relaxed);
                        return Ok(());
                    }
                }
            }
        }
        self.fetch(start, dst)
    }

    /// Reads exactly `dst.len()` bytes at `start` (the caller keeps the range inside the blob).
    fn fetch(&self, start: u64, dst: &mut [u8]) -> Result<()> {
        let end = start + dst.len() as u64;
        let part = self.blob.slice_with_f64_and_f64(start as f64, end as f64).map_err(|e| read_error(start, &e))?;
        let buffer = self.reader.read_as_array_buffer(&part).map_err(|e| read_error(start, &e))?;
        let bytes = Uint8Array::new(&buffer);
        if bytes.length() as usize != dst.len() {
            return Err(Error::io(format!(
                "reading bytes {start}..{end} of the file gave {} bytes instead of {} \
                 (was the file changed or deleted while it was being read?)",
                bytes.length(),
                dst.len()
            )));
        }
        bytes.copy_to(dst);
        FETCHED.fetch_add(dst.len() as u64, Relaxed);
        Ok(())
    }

    /// How much to read at `pos` for sequential reading: up to `chunk_size` when it
    /// continues the last slice (doubling), [`SEEK_FETCH`] after a seek.
    fn next_size(&mut self) -> usize {
        let size = if self.pos >= self.last_end && self.pos - self.last_end <= NEAR {
            self.last_size.saturating_mul(2)
        } else {
            SEEK_FETCH
        };
        let size = size.min(self.chunk_size);
        self.last_size = size;
        size
    }

    /// The buffered bytes from `offset` on, if `offset` falls inside the buffer.
    fn buffered(&self, offset: u64) -> Option<&[u8]> {
        if offset >= self.buf_start && offset < self.buf_start + self.buf_len as u64 {
            let from = (offset - self.buf_start) as usize;
            Some(&self.buf[from..self.buf_len])
        } else {
            None
        }
    }
}

impl ByteSource for BlobSource {
    fn len(&self) -> Option<u64> {
        Some(self.len)
    }

    fn input_pos(&self) -> u64 {
        self.pos
    }

    fn read(&mut self, out: &mut [u8]) -> Result<usize> {
        if out.is_empty() || self.pos >= self.len {
            return Ok(0);
        }
        if let Some(avail) = self.buffered(self.pos) {
            let n = avail.len().min(out.len());
            out[..n].copy_from_slice(&avail[..n]);
            self.pos += n as u64;
            return Ok(n);
        }
        let left = self.len - self.pos;
        let size = self.next_size();
        if self.read_ahead.is_some() && out.len() >= DIRECT_MIN {
            // With the read-ahead worker, its ring is the chunk buffer when streaming, so
            // the bytes go straight into the caller's buffer (one copy, and no chunk of
            // wasm memory held for the whole analysis); so do the growing slices after a
            // seek (a pass skipping a large array), capped by the caller's buffer.
            let n = (out.len().min(size) as u64).min(left) as usize;
            self.fetch_sequential(self.pos, &mut out[..n], size == self.chunk_size)?;
            self.pos += n as u64;
            self.last_end = self.pos;
            self.report()?;
            return Ok(n);
        }
        if out.len() >= size {
            // A caller with a big buffer of its own: read straight into it, no second copy.
            let n = (size as u64).min(left) as usize;
            self.fetch_sequential(self.pos, &mut out[..n], n == self.chunk_size)?;
            self.pos += n as u64;
            self.last_end = self.pos;
            self.report()?;
            return Ok(n);
        }
        let n = (size as u64).min(left) as usize;
        if self.buf.len() < n {
            // Allocated once (at most one chunk), then reused for every later chunk.
            self.buf.resize(n, 0);
        }
        let mut buf = std::mem::take(&mut self.buf);
        let fetched = self.fetch_sequential(self.pos, &mut buf[..n], n == self.chunk_size);
        self.buf = buf;
        if let Err(e) = fetched {
            self.buf_len = 0;
            return Err(e);
        }
        self.buf_start = self.pos;
        self.buf_len = n;
        self.last_end = self.pos + n as u64;
        let k = n.min(out.len());
        out[..k].copy_from_slice(&self.buf[..k]);
        self.pos += k as u64;
        self.report()?;
        Ok(k)
    }

    fn skip(&mut self, n: u64) -> Result<u64> {
        let k = n.min(self.len - self.pos);
        self.pos += k;
        Ok(k)
    }

    fn rewind(&mut self) -> Result<()> {
        // A new pass: read ahead at full size from the start.
        self.pos = 0;
        self.last_end = 0;
        self.last_size = self.chunk_size;
        Ok(())
    }

    /// Random access that leaves the sequential position alone: served from the current
    /// chunk when it holds the range, else read as its own small slice.
    fn read_at(&mut self, offset: u64, out: &mut [u8]) -> Result<usize> {
        if offset >= self.len || out.is_empty() {
            return Ok(0);
        }
        let want = (out.len() as u64).min(self.len - offset) as usize;
        if let Some(avail) = self.buffered(offset) {
            if avail.len() >= want {
                out[..want].copy_from_slice(&avail[..want]);
                return Ok(want);
            }
        }
        let mut done = 0;
        while done < want {
            let n = (want - done).min(self.chunk_size.max(1 << 20));
            self.fetch(offset + done as u64, &mut out[done..done + n])?;
            done += n;
        }
        Ok(want)
    }
}

fn read_error(offset: u64, e: &wasm_bindgen::JsValue) -> Error {
    Error::io(format!("the browser could not read the file at byte {offset}: {}", js_text(e)))
}

/// A JS exception as text (its `name: message` when it is an `Error`/`DOMException`).
pub(crate) fn js_text(e: &wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return format!("{}: {}", String::from(err.name()), String::from(err.message()));
    }
    if let Some(s) = e.as_string() {
        return s;
    }
    format!("{e:?}")
}
