//! Streaming gzip decoding (RFC 1952) over any other source.
//!
//! The JDK's `-gz` option writes *many* gzip members back to back (one per chunk), and
//! `gzip -c a b > c` does too, so after a member's trailer another header may follow:
//! the decoded stream is the concatenation of all members. Nothing is buffered beyond one
//! input chunk and miniz_oxide's 32 KiB window; `rewind` restarts decoding from byte 0.
//!
//! Gzip has no index, so reaching a decoded offset means decoding everything before it.
//! While decoding, the source keeps a *checkpoint* every 8 MiB of output: a copy of the
//! decoder (its window and tables, about 43 KB) with the input and output positions.
//! `skip` and `read_at` then start from the nearest checkpoint at or before the target
//! instead of from byte 0: reading one object of a 2 GB dump (the inspector, each object
//! a report reads back) decodes at most 8 MiB, and pass 2 jumps over long runs it does
//! not need. At most 256 checkpoints are kept (the spacing doubles when they run out: 32
//! MiB from 4 GB of output on), so they never take more than 11 MB.
//!
//! Each member's trailer is checked: the CRC-32 and the size (ISIZE, mod 2^32) of the
//! data it decoded to. A mismatch means the data is corrupt even though its deflate
//! stream decoded, and is an error (of kind `Io`: the analysis stops rather than report
//! on corrupt bytes) naming the member, where it starts in the compressed file and the
//! offsets of its trailer. A checkpoint carries the running CRC-32 and size of its
//! member, so decoding resumed from one still checks that member's trailer when it gets
//! there; reads through checkpoints rarely reach a trailer, but the sequential passes
//! read every member whole, so every member is checked by pass 1.

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use super::{read_fully, ByteSource};
use crate::error::{Error, ErrorKind, Result};

const INPUT_CHUNK: usize = 256 * 1024;
/// Decoded bytes between checkpoints at first (doubled whenever `MAX_CHECKPOINTS` is hit).
const CHECKPOINT_SPACING: u64 = 8 << 20;
const MAX_CHECKPOINTS: usize = 256;

/// The decoder as it was after producing `out_pos` bytes from `in_pos` compressed bytes,
/// inside a member's deflate data.
struct Checkpoint {
    out_pos: u64,
    in_pos: u64,
    members: u64,
    state: Box<InflateState>,
    member: Member,
}

/// The member being decoded: where it starts, and the CRC-32 and size of what it has
/// decoded to so far (checked against its trailer).
#[derive(Clone)]
struct Member {
    /// Compressed offset of its header.
    start: u64,
    crc: crc32fast::Hasher,
    size: u64,
}

impl Member {
    fn new(start: u64) -> Member {
        Member { start, crc: crc32fast::Hasher::new(), size: 0 }
    }
}

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
    /// In increasing `out_pos`, `spacing` apart or more.
    checkpoints: Vec<Checkpoint>,
    spacing: u64,
    member: Member,
}

impl GzipSource {
    pub fn new(inner: Box<dyn ByteSource>) -> GzipSource {
        GzipSource::with_checkpoint_spacing(inner, CHECKPOINT_SPACING)
    }

    /// With checkpoints every `spacing` decoded bytes (tests use small ones).
    pub(crate) fn with_checkpoint_spacing(inner: Box<dyn ByteSource>, spacing: u64) -> GzipSource {
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
            checkpoints: Vec::new(),
            spacing: spacing.max(1),
            member: Member::new(0),
        }
    }

    /// Keeps a checkpoint when decoding has gone `spacing` past the last one.
    fn maybe_checkpoint(&mut self) {
        let last = self.checkpoints.last().map_or(0, |c| c.out_pos);
        if self.out_pos < last + self.spacing {
            return;
        }
        if self.checkpoints.len() == MAX_CHECKPOINTS {
            // Keep every other one: the spacing doubles, the memory stays bounded.
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                i % 2 == 0
            });
            self.spacing *= 2;
            let last = self.checkpoints.last().map_or(0, |c| c.out_pos);
            if self.out_pos < last + self.spacing {
                return;
            }
        }
        self.checkpoints.push(Checkpoint {
            out_pos: self.out_pos,
            in_pos: self.in_pos,
            members: self.members,
            state: self.state.clone(),
            member: self.member.clone(),
        });
    }

    /// Moves to the latest checkpoint at or before decoded offset `target` when that is
    /// ahead of the current position (or the position is past `target`). Returns whether
    /// it moved.
    fn jump_towards(&mut self, target: u64) -> Result<bool> {
        if self.pending.is_some() {
            return Ok(false);
        }
        let k = self.checkpoints.partition_point(|c| c.out_pos <= target);
        let Some(cp) = k.checked_sub(1).map(|i| &self.checkpoints[i]) else { return Ok(false) };
        if cp.out_pos <= self.out_pos && self.out_pos <= target {
            return Ok(false);
        }
        let (out_pos, in_pos, members) = (cp.out_pos, cp.in_pos, cp.members);
        self.state = cp.state.clone();
        self.member = cp.member.clone();
        self.inner.rewind()?;
        if self.inner.skip(in_pos)? < in_pos {
            // The input changed under us; decode from the start instead.
            self.rewind()?;
            return Ok(false);
        }
        self.in_start = 0;
        self.in_end = 0;
        self.inner_eof = false;
        self.stage = Stage::Body;
        self.members = members;
        self.out_pos = out_pos;
        self.in_pos = in_pos;
        Ok(true)
    }

    fn err(&self, what: &str) -> Error {
        Error::format(self.out_pos, format!("gzip stream broken at compressed byte {}: {what}", self.in_pos))
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
        let start = self.in_pos;
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
        self.member = Member::new(start);
        Ok(true)
    }

    /// Checks the 8-byte trailer (CRC-32, then ISIZE, little-endian) at the input's start
    /// against what the member decoded to.
    fn check_trailer(&self) -> Result<()> {
        let t = &self.input[self.in_start..self.in_start + 8];
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let isize = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        let actual_crc = self.member.crc.clone().finalize();
        let problem = if crc != actual_crc {
            format!("its data has CRC-32 {actual_crc:08x}, its trailer says {crc:08x}")
        } else if isize != self.member.size as u32 {
            format!(
                "it decoded to {} bytes (mod 2^32: {}), its trailer says {isize}",
                self.member.size, self.member.size as u32
            )
        } else {
            return Ok(());
        };
        Err(Error {
            kind: ErrorKind::Io,
            offset: Some(self.out_pos),
            message: format!(
                "gzip member {} (starting at compressed byte {}) is corrupt: {problem} (trailer at compressed byte {}); \
                 the file was damaged after it was written",
                self.members, self.member.start, self.in_pos
            ),
        })
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

    fn skip(&mut self, n: u64) -> Result<u64> {
        let start = self.out_pos;
        let target = start.saturating_add(n);
        self.jump_towards(target)?;
        let mut scratch = [0u8; 32 * 1024];
        while self.out_pos < target {
            let want = (target - self.out_pos).min(scratch.len() as u64) as usize;
            if self.read(&mut scratch[..want])? == 0 {
                break;
            }
        }
        Ok(self.out_pos - start)
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        // Start from the nearest checkpoint, else from here, else from byte 0.
        if !self.jump_towards(offset)? && self.out_pos > offset {
            self.rewind()?;
        }
        let gap = offset - self.out_pos;
        if self.skip(gap)? < gap {
            return Ok(0);
        }
        read_fully(self, buf)
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
                    self.check_trailer()?;
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
                    self.member.crc.update(&buf[*written..*written + r.bytes_written]);
                    self.member.size += r.bytes_written as u64;
                    *written += r.bytes_written;
                    self.out_pos += r.bytes_written as u64;
                    let progress = r.bytes_consumed > 0 || r.bytes_written > 0;
                    match r.status {
                        Ok(MZStatus::StreamEnd) => self.stage = Stage::Trailer,
                        Ok(_) | Err(MZError::Buf) if progress => self.maybe_checkpoint(),
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
        member_at_level(data, 6)
    }

    fn member_at_level(data: &[u8], level: u8) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
        out.extend_from_slice(b"name\0");
        out.extend(compress_to_vec(data, level));
        out.extend_from_slice(&crc32(data).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    /// A member compressed at level 0: stored blocks, so a test can corrupt the data
    /// without breaking the deflate stream; data under 1 KB is one block and appears
    /// verbatim from offset 20 (10-byte header, "name\0", 5-byte block header).
    fn stored_member(data: &[u8]) -> Vec<u8> {
        let m = member_at_level(data, 0);
        assert!(data.len() >= 1000 || m[20..20 + data.len()] == *data, "level 0 stores small data verbatim");
        m
    }

    /// The members' CRC-32 (the integration tests build gzip files with an independent,
    /// bit-by-bit CRC-32; real corpus files come from gzip itself).
    fn crc32(data: &[u8]) -> u32 {
        crc32fast::hash(data)
    }

    /// Two stored members ("first member", 40 bytes of the second) with `corrupt` applied
    /// to the second; the error met after every decodable byte.
    fn second_member_corrupted(corrupt: impl Fn(&mut Vec<u8>)) -> (Vec<u8>, Error, u64) {
        let first = stored_member(b"first member");
        let data: Vec<u8> = (0..40u8).collect();
        let mut second = stored_member(&data);
        corrupt(&mut second);
        let mut gz = first.clone();
        gz.extend(second);
        let mut src = GzipSource::new(Box::new(MemorySource::new(gz)));
        let mut out = Vec::new();
        let mut buf = [0u8; 7];
        let err = loop {
            match src.read(&mut buf) {
                Ok(0) => panic!("a corrupt member decoded without an error"),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => break e,
            }
        };
        (out, err, first.len() as u64)
    }

    #[test]
    fn a_corrupt_byte_that_still_decodes_fails_the_crc() {
        // Byte 25 of the member is data byte 5 of the stored block: still valid deflate.
        let (out, err, start) = second_member_corrupted(|m| m[25] ^= 0x40);
        assert_eq!(out.len(), 12 + 40, "every byte is delivered before the error");
        assert_eq!(err.kind, crate::error::ErrorKind::Io, "{err}");
        assert_eq!(err.offset, Some(52), "{err}");
        let text = err.to_string();
        assert!(text.contains(&format!("gzip member 2 (starting at compressed byte {start}) is corrupt")), "{text}");
        assert!(text.contains(&format!("trailer at compressed byte {}", start + 20 + 40)), "{text}");
        assert!(text.contains("CRC-32"), "{text}");
    }

    #[test]
    fn a_wrong_crc_or_size_in_the_trailer_fails() {
        let (_, err, start) = second_member_corrupted(|m| {
            let at = m.len() - 8;
            m[at] ^= 0xff;
        });
        assert!(
            err.to_string().contains(&format!(
                "gzip member 2 (starting at compressed byte {start}) is corrupt: its data has CRC-32"
            )),
            "{err}"
        );
        let (_, err, _) = second_member_corrupted(|m| {
            let at = m.len() - 4;
            m[at] = 41;
        });
        assert!(err.to_string().contains("it decoded to 40 bytes (mod 2^32: 40), its trailer says 41"), "{err}");
    }

    #[test]
    fn the_crc_is_checked_after_resuming_from_a_checkpoint() {
        // Member 2 corrupt near its end; the checkpoints fall inside it.
        let (data, _) = sample();
        let mut gz = stored_member(b"first");
        let second = &data[..60_000];
        let mut corrupt = stored_member(second);
        let at = corrupt.len() - 8 - 100;
        corrupt[at] ^= 1;
        let member2 = gz.len() as u64;
        gz.extend(corrupt);
        gz.extend(stored_member(b"third"));
        let mut src = GzipSource::with_checkpoint_spacing(Box::new(MemorySource::new(gz)), 10_000);
        // A read that ends before the trailer cannot see it: no error.
        let mut buf = [0u8; 16];
        assert_eq!(src.read_at(20_000, &mut buf).unwrap(), 16);
        assert_eq!(&buf[..], &second[20_000 - 5..20_000 - 5 + 16]);
        // One that resumes from a checkpoint inside member 2 and reaches the trailer
        // checks it (from the start, the checkpoint is the only way to skip ahead).
        assert!(src.checkpoints.iter().any(|c| c.out_pos > 5 && c.members == 2), "no checkpoint inside member 2");
        src.rewind().unwrap();
        let err = src.read_at(59_000, &mut [0u8; 5000]).and_then(|_| src.read(&mut [0u8; 5000])).unwrap_err();
        assert!(
            err.to_string().contains(&format!("gzip member 2 (starting at compressed byte {member2}) is corrupt")),
            "{err}"
        );
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

    /// 3 MB in two members: runs of noise and repeats far back (so decoding after a
    /// checkpoint needs the window it saved).
    fn sample() -> (Vec<u8>, Vec<u8>) {
        let mut data = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        while data.len() < 3_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 3 == 0 && data.len() > 40_000 {
                let from = data.len() - 30_000 + (x % 1000) as usize;
                let run: Vec<u8> = data[from..from + 2000].to_vec();
                data.extend(run);
            } else {
                data.extend((0..1500).map(|i| (x >> (i % 56)) as u8));
            }
        }
        let split = 1_234_567;
        let mut gz = member(&data[..split]);
        gz.extend(member(&data[split..]));
        (data, gz)
    }

    #[test]
    fn reads_at_any_offset_through_checkpoints() {
        let (data, gz) = sample();
        for spacing in [64 * 1024, 1000] {
            let mut src = GzipSource::with_checkpoint_spacing(Box::new(MemorySource::new(gz.clone())), spacing);
            let mut x = 12345u64;
            for k in 0..300 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let offset = if k == 0 { data.len() as u64 - 10 } else { (x >> 20) % data.len() as u64 };
                let mut buf = [0u8; 300];
                let n = src.read_at(offset, &mut buf).unwrap();
                let end = (offset as usize + 300).min(data.len());
                assert_eq!(&buf[..n], &data[offset as usize..end], "spacing {spacing}, offset {offset}");
            }
            // Checkpoints stay bounded (the 1000-byte spacing had to thin them out).
            assert!(!src.checkpoints.is_empty() && src.checkpoints.len() <= MAX_CHECKPOINTS);
            assert!(src.checkpoints.windows(2).all(|w| w[1].out_pos - w[0].out_pos >= src.spacing));
            // A sequential pass after all that still gives every byte.
            src.rewind().unwrap();
            let mut all = Vec::new();
            let mut buf = vec![0u8; 77_777];
            loop {
                let n = src.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                all.extend_from_slice(&buf[..n]);
            }
            assert!(all == data);
        }
    }

    #[test]
    fn skip_jumps_to_checkpoints_and_lands_exactly() {
        let (data, gz) = sample();
        let mut src = GzipSource::with_checkpoint_spacing(Box::new(MemorySource::new(gz)), 100_000);
        assert_eq!(src.skip(data.len() as u64 + 5).unwrap(), data.len() as u64, "skip stops at the end");
        for target in [5u64, 999_999, 1_234_560, 2_500_001, 2_999_000] {
            src.rewind().unwrap();
            assert_eq!(src.skip(target).unwrap(), target);
            assert_eq!(src.out_pos, target);
            let mut buf = [0u8; 100];
            let n = src.read(&mut buf).unwrap();
            assert_eq!(&buf[..n], &data[target as usize..(target as usize + 100).min(data.len())]);
        }
    }

    #[test]
    fn truncated_stream_with_checkpoints_still_fails_cleanly() {
        let (data, gz) = sample();
        let cut = gz[..gz.len() * 2 / 3].to_vec();
        let mut src = GzipSource::with_checkpoint_spacing(Box::new(MemorySource::new(cut)), 50_000);
        let mut buf = [0u8; 64];
        // Past the cut: an error (or a short read), never a panic or a hang.
        match src.read_at(data.len() as u64 - 100, &mut buf) {
            Ok(n) => assert!(n < 64),
            Err(e) => assert_eq!(e.kind, crate::error::ErrorKind::Format),
        }
        // Before the cut, through a checkpoint: the right bytes.
        let n = src.read_at(1_000_000, &mut buf).unwrap();
        assert_eq!(&buf[..n], &data[1_000_000..1_000_064]);
    }
}
