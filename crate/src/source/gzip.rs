//! Streaming gzip decoding (RFC 1952) over any other source.
//!
//! The JDK's `-gz` option writes *many* gzip members back to back (one per chunk), and
//! `gzip -c a b > c` does too, so after a member's trailer another header may follow:
//! the decoded stream is the concatenation of all members. Nothing is buffered beyond one
//! input chunk and miniz_oxide's 32 KiB window; `rewind` restarts decoding from byte 0.

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use super::ByteSource;
use crate::error::{Error, Result};

const INPUT_CHUNK: usize = 256 * 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Expecting a member header (or the end of the input, after at least one member).
    Header,
    Body,
    /// Expecting the 8-byte trailer (CRC-32, size).
    Trailer,
    End,
}

pub struct GzipSource {
    inner: Box<dyn ByteSource>,
    state: Box<InflateState>,
    input: Vec<u8>,
    in_start: usize,
    in_end: usize,
    inner_eof: bool,
    stage: Stage,
    members: u64,
    /// Decoded bytes produced so far (the offset errors refer to).
    out_pos: u64,
    /// Compressed bytes consumed so far.
    in_pos: u64,
    /// An error met after some bytes were decoded in the same `read`: those bytes are
    /// returned first and the error on the next call, so a reader of a truncated or
    /// corrupt stream gets every byte that could be decoded (a dump cut off mid-way
    /// still gets its partial report).
    pending: Option<Error>,
}

impl GzipSource {
    pub fn new(inner: Box<dyn ByteSource>) -> GzipSource {
        GzipSource {
            inner,
            state: InflateState::new_boxed(DataFormat::Raw),
            input: vec![0; INPUT_CHUNK],
            in_start: 0,
            in_end: 0,
            inner_eof: false,
            stage: Stage::Header,
            members: 0,
            out_pos: 0,
            in_pos: 0,
            pending: None,
        }
    }

    fn err(&self, what: &str) -> Error {
        Error::format(
            self.out_pos,
            format!("gzip stream broken at compressed byte {}: {what}", self.in_pos),
        )
    }

    /// Makes at least `n` bytes of input available (fewer only at the end of the input).
    fn fill(&mut self, n: usize) -> Result<usize> {
        if self.in_end - self.in_start >= n || self.inner_eof {
            return Ok(self.in_end - self.in_start);
        }
        self.input.copy_within(self.in_start..self.in_end, 0);
        self.in_end -= self.in_start;
        self.in_start = 0;
        while self.in_end < n.max(1) && !self.inner_eof {
            let got = self.inner.read(&mut self.input[self.in_end..])?;
            if got == 0 {
                self.inner_eof = true;
            }
            self.in_end += got;
        }
        Ok(self.in_end - self.in_start)
    }

    fn consume(&mut self, n: usize) {
        self.in_start += n;
        self.in_pos += n as u64;
    }

    /// Parses one member header; returns false at a clean end of input.
    fn read_header(&mut self) -> Result<bool> {
        let avail = self.fill(10)?;
        if avail == 0 && self.members > 0 {
            return Ok(false);
        }
        if avail < 10 {
            return Err(self.err("truncated gzip header"));
        }
        let h = &self.input[self.in_start..self.in_start + 10];
        if h[0] != 0x1f || h[1] != 0x8b {
            if self.members > 0 {
                // Trailing garbage after complete members: gzip(1) warns and ignores it.
                return Ok(false);
            }
            return Err(self.err("expected gzip magic 1f 8b"));
        }
        if h[2] != 8 {
            return Err(self.err(&format!("unsupported gzip compression method {}", h[2])));
        }
        let flags = h[3];
        self.consume(10);
        if flags & 0x04 != 0 {
            // FEXTRA: 2-byte length, then that many bytes.
            if self.fill(2)? < 2 {
                return Err(self.err("truncated gzip extra field"));
            }
            let xlen = u16::from_le_bytes([self.input[self.in_start], self.input[self.in_start + 1]]) as usize;
            self.consume(2);
            self.skip_input(xlen)?;
        }
        for bit in [0x08u8, 0x10] {
            // FNAME, FCOMMENT: zero-terminated strings.
            if flags & bit != 0 {
                loop {
                    if self.fill(1)? == 0 {
                        return Err(self.err("truncated gzip header string"));
                    }
                    let b = self.input[self.in_start];
                    self.consume(1);
                    if b == 0 {
                        break;
                    }
                }
            }
        }
        if flags & 0x02 != 0 {
            self.skip_input(2)?; // FHCRC
        }
        self.state.reset(DataFormat::Raw);
        self.members += 1;
        Ok(true)
    }

    fn skip_input(&mut self, mut n: usize) -> Result<()> {
        while n > 0 {
            let avail = self.fill(1)?;
            if avail == 0 {
                return Err(self.err("truncated gzip header"));
            }
            let k = avail.min(n);
            self.consume(k);
            n -= k;
        }
        Ok(())
    }
}

impl ByteSource for GzipSource {
    fn len(&self) -> Option<u64> {
        None
    }

    fn input_len(&self) -> Option<u64> {
        self.inner.len()
    }

    fn input_pos(&self) -> u64 {
        self.in_pos
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let mut written = 0;
        match self.read_some(buf, &mut written) {
            Err(e) if written > 0 => {
                self.pending = Some(e);
                Ok(written)
            }
            Err(e) => Err(e),
            Ok(()) => Ok(written),
        }
    }

    fn rewind(&mut self) -> Result<()> {
        self.inner.rewind()?;
        self.state.reset(DataFormat::Raw);
        self.in_start = 0;
        self.in_end = 0;
        self.inner_eof = false;
        self.stage = Stage::Header;
        self.members = 0;
        self.out_pos = 0;
        self.in_pos = 0;
        self.pending = None;
        Ok(())
    }
}

impl GzipSource {
    /// Decodes into `buf[*written..]`, counting in `written` even when it fails.
    fn read_some(&mut self, buf: &mut [u8], written: &mut usize) -> Result<()> {
        while *written < buf.len() {
            match self.stage {
                Stage::End => break,
                Stage::Header => {
                    if self.read_header()? {
                        self.stage = Stage::Body;
                    } else {
                        self.stage = Stage::End;
                    }
                }
                Stage::Trailer => {
                    if self.fill(8)? < 8 {
                        return Err(self.err("truncated gzip trailer"));
                    }
                    self.consume(8);
                    self.stage = Stage::Header;
                }
                Stage::Body => {
                    let avail = self.fill(1)?;
                    let input = &self.input[self.in_start..self.in_end];
                    // Always MZFlush::None, even once the input is exhausted: with Finish,
                    // miniz_oxide's first call on a member decodes straight into `buf` and
                    // fails when the member's output does not fit in it (a small, well
                    // compressed file read through a small buffer). The end of the input
                    // shows up as a call that makes no progress instead.
                    let r = inflate(&mut self.state, input, &mut buf[*written..], MZFlush::None);
                    self.consume(r.bytes_consumed);
                    *written += r.bytes_written;
                    self.out_pos += r.bytes_written as u64;
                    let progress = r.bytes_consumed > 0 || r.bytes_written > 0;
                    match r.status {
                        Ok(MZStatus::StreamEnd) => self.stage = Stage::Trailer,
                        Ok(_) | Err(MZError::Buf) if progress => {}
                        Ok(_) | Err(MZError::Buf) => {
                            // No progress: out of input, or (defensively) a decoder that
                            // will not move; either way stop instead of spinning.
                            return Err(self.err(if avail == 0 {
                                "the gzip data ends before its last deflate block (the file is truncated)"
                            } else {
                                "the deflate decoder makes no progress (corrupt data)"
                            }));
                        }
                        Err(e) => return Err(self.err(&format!("corrupt deflate data ({e:?})"))),
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemorySource;
    use miniz_oxide::deflate::compress_to_vec;

    fn member(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
        out.extend_from_slice(b"name\0");
        out.extend(compress_to_vec(data, 6));
        out.extend_from_slice(&[0; 4]); // CRC is not checked
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    fn decode_all(bytes: Vec<u8>, chunk: usize) -> Result<Vec<u8>> {
        let mut src = GzipSource::new(Box::new(MemorySource::new(bytes)));
        let mut out = Vec::new();
        let mut buf = vec![0; chunk];
        loop {
            let n = src.read(&mut buf)?;
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        Ok(out)
    }

    #[test]
    fn multi_member_streams_concatenate() {
        let a: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let b = b"second member".to_vec();
        let mut gz = member(&a);
        gz.extend(member(&b));
        for chunk in [1, 7, 4096, 1 << 20] {
            let out = decode_all(gz.clone(), chunk).unwrap();
            assert_eq!(out.len(), a.len() + b.len());
            assert_eq!(&out[..a.len()], &a[..]);
            assert_eq!(&out[a.len()..], &b[..]);
        }
    }

    #[test]
    fn truncated_stream_is_an_error_not_a_hang() {
        let a: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 256) as u8).collect();
        let gz = member(&a);
        for cut in [3, 12, gz.len() / 2, gz.len() - 5] {
            let err = decode_all(gz[..cut].to_vec(), 4096).unwrap_err();
            assert_eq!(err.kind, crate::error::ErrorKind::Format, "cut at {cut}: {err}");
        }
    }

    #[test]
    fn rewind_restarts() {
        let gz = member(b"hello hello hello");
        let mut src = GzipSource::new(Box::new(MemorySource::new(gz)));
        let mut buf = [0u8; 5];
        src.read(&mut buf).unwrap();
        src.rewind().unwrap();
        let mut all = [0u8; 17];
        assert_eq!(src.read(&mut all).unwrap(), 17);
        assert_eq!(&all, b"hello hello hello");
    }
}
