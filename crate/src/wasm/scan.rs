//! One streaming pass over a dump that checks its framing and counts what it holds:
//! the HPROF header (`JAVA PROFILE 1.0.x\0`, id size, timestamp) and the top-level records
//! (`[tag u8][time u32][len u32][body]`), reading — and for `.gz`, decoding — every byte.
//!
//! This is what the page shows about a file before (and besides) the full analysis: it
//! proves the worker → `BlobSource` → gzip → progress path on real files, and a truncated
//! or foreign file fails here with the byte offset where it stopped making sense.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::source::ByteSource;

use super::progress::JsProgress;

/// Decoded bytes pulled from the source per read.
const READ_BUF: usize = 1 << 20;

/// The longest header string accepted before its terminating zero byte.
const MAX_HEADER: usize = 32;

/// What one pass over the file found. All numbers are facts of the file, not estimates.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The header string, e.g. `JAVA PROFILE 1.0.2` (1.0.3 for Android ART dumps).
    pub format: String,
    /// Size of object ids in bytes (4 or 8).
    pub id_size: u32,
    /// When the dump was written (ms since the Unix epoch, from the header).
    pub timestamp_ms: u64,
    /// Bytes of HPROF data (after gzip decoding).
    pub decoded_bytes: u64,
    /// Bytes of the file as given (compressed size for `.gz`).
    pub input_bytes: u64,
    /// Whether the file was gzip-compressed.
    pub compressed: bool,
    /// Top-level records.
    pub records: u64,
    /// Records per tag, in tag order: at most 256 rows whatever the file's size.
    pub records_by_tag: Vec<TagCount>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TagCount {
    pub tag: u8,
    pub name: &'static str,
    pub count: u64,
    /// Body bytes of all records with this tag.
    pub bytes: u64,
}

/// The top-level record tags of the HPROF format (HotSpot and ART).
pub fn tag_name(tag: u8) -> Option<&'static str> {
    Some(match tag {
        0x01 => "STRING (UTF8)",
        0x02 => "LOAD CLASS",
        0x03 => "UNLOAD CLASS",
        0x04 => "STACK FRAME",
        0x05 => "STACK TRACE",
        0x06 => "ALLOC SITES",
        0x07 => "HEAP SUMMARY",
        0x0A => "START THREAD",
        0x0B => "END THREAD",
        0x0C => "HEAP DUMP",
        0x0D => "CPU SAMPLES",
        0x0E => "CONTROL SETTINGS",
        0x1C => "HEAP DUMP SEGMENT",
        0x2C => "HEAP DUMP END",
        _ => return None,
    })
}

/// Buffered pull over a source that tracks the decoded offset and reports progress.
struct Pull<'a> {
    src: &'a mut dyn ByteSource,
    progress: &'a mut JsProgress,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Decoded offset of `buf[start]`.
    offset: u64,
    eof: bool,
}

impl Pull<'_> {
    fn refill(&mut self) -> Result<()> {
        if self.start < self.end || self.eof {
            return Ok(());
        }
        self.start = 0;
        self.end = self.src.read(&mut self.buf)?;
        if self.end == 0 {
            self.eof = true;
        }
        let (done, total) = (self.src.input_pos(), self.src.input_len());
        self.progress.report(
            "reading",
            done,
            total,
            Some(self.offset + self.end as u64),
            0,
            false,
        )
    }

    /// One byte, or `None` at the end of the stream.
    fn byte(&mut self) -> Result<Option<u8>> {
        self.refill()?;
        if self.start == self.end {
            return Ok(None);
        }
        let b = self.buf[self.start];
        self.start += 1;
        self.offset += 1;
        Ok(Some(b))
    }

    /// Fills `out`; returns how many bytes there were (fewer only at the end).
    fn fill(&mut self, out: &mut [u8]) -> Result<usize> {
        let mut n = 0;
        while n < out.len() {
            self.refill()?;
            let avail = self.end - self.start;
            if avail == 0 {
                break;
            }
            let k = avail.min(out.len() - n);
            out[n..n + k].copy_from_slice(&self.buf[self.start..self.start + k]);
            self.start += k;
            self.offset += k as u64;
            n += k;
        }
        Ok(n)
    }

    /// Consumes up to `n` bytes (reading them: this pass touches every byte); returns how many.
    fn pass_over(&mut self, n: u64) -> Result<u64> {
        let mut left = n;
        while left > 0 {
            self.refill()?;
            let avail = (self.end - self.start) as u64;
            if avail == 0 {
                break;
            }
            let k = avail.min(left);
            self.start += k as usize;
            self.offset += k;
            left -= k;
        }
        Ok(n - left)
    }
}

/// Reads the whole stream once; `compressed` only labels the summary.
pub fn scan(
    src: &mut dyn ByteSource,
    compressed: bool,
    progress: &mut JsProgress,
) -> Result<Summary> {
    src.rewind()?;
    let mut p = Pull {
        src,
        progress,
        buf: vec![0; READ_BUF],
        start: 0,
        end: 0,
        offset: 0,
        eof: false,
    };

    // Header: "JAVA PROFILE 1.0.x" NUL, u32 id size, u64 timestamp (big-endian).
    let mut head = Vec::with_capacity(MAX_HEADER);
    loop {
        match p.byte()? {
            Some(0) => break,
            Some(b) if head.len() < MAX_HEADER => head.push(b),
            None if head.is_empty() => return Err(Error::format(0, "the file is empty")),
            Some(_) | None => {
                return Err(Error::format(
                    0,
                    format!(
                        "not an HPROF heap dump: it does not start with \"JAVA PROFILE 1.0.x\" \
                         and a zero byte (it starts with {})",
                        printable(&head)
                    ),
                ))
            }
        }
    }
    if !head.starts_with(b"JAVA PROFILE 1.0.") {
        return Err(Error::format(
            0,
            format!(
                "not an HPROF heap dump: header {} is not \"JAVA PROFILE 1.0.x\"",
                printable(&head)
            ),
        ));
    }
    let format = String::from_utf8_lossy(&head).into_owned();
    let mut fixed = [0u8; 12];
    let at = p.offset;
    if p.fill(&mut fixed)? < 12 {
        return Err(Error::format(
            p.offset,
            "the file ends inside the HPROF header (id size, timestamp)",
        ));
    }
    let id_size = u32::from_be_bytes(fixed[0..4].try_into().unwrap());
    if id_size != 4 && id_size != 8 {
        return Err(Error::format(
            at,
            format!("identifier size {id_size} in the header (expected 4 or 8)"),
        ));
    }
    let timestamp_ms = u64::from_be_bytes(fixed[4..12].try_into().unwrap());

    // Top-level records.
    let mut counts = [(0u64, 0u64); 256];
    let mut records = 0u64;
    loop {
        let record_start = p.offset;
        let mut rh = [0u8; 9];
        let got = p.fill(&mut rh)?;
        if got == 0 {
            break;
        }
        if got < 9 {
            return Err(Error::format(
                p.offset,
                format!(
                    "the file ends inside the header of a record that starts at byte {record_start} \
                     ({got} of 9 bytes): truncated file?"
                ),
            ));
        }
        let tag = rh[0];
        let Some(name) = tag_name(tag) else {
            return Err(Error::format(
                record_start,
                format!(
                    "unknown record tag 0x{tag:02x} where a top-level record should start: \
                     the file is corrupt or not an HPROF dump"
                ),
            ));
        };
        let len = u32::from_be_bytes(rh[5..9].try_into().unwrap()) as u64;
        let passed = p.pass_over(len)?;
        if passed < len {
            return Err(Error::format(
                p.offset,
                format!(
                    "the file ends inside a {name} record (tag 0x{tag:02x}) that starts at byte \
                     {record_start} and declares {len} body bytes, of which only {passed} are \
                     present: truncated file?"
                ),
            ));
        }
        records += 1;
        counts[tag as usize].0 += 1;
        counts[tag as usize].1 += len;
    }

    let decoded_bytes = p.offset;
    let total = p.src.input_len();
    let input_bytes = total.unwrap_or_else(|| p.src.input_pos());
    p.progress.report(
        "reading",
        p.src.input_pos(),
        total,
        Some(decoded_bytes),
        0,
        true,
    )?;
    let records_by_tag = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| c.0 > 0)
        .map(|(tag, c)| TagCount {
            tag: tag as u8,
            name: tag_name(tag as u8).unwrap_or("?"),
            count: c.0,
            bytes: c.1,
        })
        .collect();
    Ok(Summary {
        format,
        id_size,
        timestamp_ms,
        decoded_bytes,
        input_bytes,
        compressed,
        records,
        records_by_tag,
    })
}

/// Up to 24 bytes as a quoted string with non-printable bytes as `\xNN` (file bytes are
/// untrusted: the page shows this as text, never as markup).
fn printable(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes.iter().take(24) {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    if bytes.len() > 24 {
        s.push('…');
    }
    s.push('"');
    s
}
