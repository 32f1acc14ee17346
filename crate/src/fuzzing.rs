//! The fuzz targets' bodies (`fuzz/`), here so that `cargo test` replays every input a
//! fuzzer ever found (`fuzz/regressions/TARGET/*`, `crate/tests/fuzz_regressions.rs`)
//! through exactly the code the fuzzer ran. Each takes arbitrary bytes and must never
//! panic (beyond its own assertions of invariants), hang, or allocate by an unchecked
//! length. Not part of the public API.

use crate::analysis::{NoProgress, Options};
use crate::error::{ErrorKind, Result};
use crate::records::heap::{walk, ClassDump, RootKind, Visitor, WalkEnd};
use crate::records::{Cursor, Header};
use crate::render::{html, markdown};
use crate::report::{self, SourceInfo};
use crate::session::Session;
use crate::source::{auto_decompress, ByteSource, GzipSource, MemorySource};

/// The whole pipeline (gzip-wrapped input too): both passes, roots, dominators,
/// retained sizes, the report in every rendering, with and without unreachable objects
/// kept.
pub fn analyze(data: &[u8]) {
    for keep_unreachable in [false, true] {
        let src = auto_decompress(Box::new(MemorySource::new(data.to_vec()))).expect("a memory source reads");
        let options = Options { keep_unreachable, memory_limit: Some(1 << 30), ..Options::default() };
        match Session::open(src, &options, &mut NoProgress, SourceInfo::default()) {
            Ok(mut s) => {
                if let Some(e) = &s.analysis.incomplete {
                    assert!(e.offset.is_some(), "an incomplete dump names the offset: {e}");
                }
                if let Ok(r) = s.report() {
                    let _ = report::to_json(r);
                    let _ = markdown::render(r);
                }
                let a = &s.analysis;
                let _ = report::parity::json(a);
                let mut tsv = Vec::new();
                report::parity::write_objects_tsv(a, &mut tsv).unwrap();
            }
            Err(e) => {
                if e.kind == ErrorKind::Format {
                    assert!(e.offset.is_some(), "a format error names the offset: {e}");
                }
                assert!(!e.to_string().contains('\n'), "one line: {e}");
            }
        }
    }
}

/// The record walker: header, every top-level record and heap sub-record, with a
/// visitor that asks for instance fields and array elements (as pass 2 does) and a
/// window size picked by the input, so records straddle refills; a second walk stopping
/// where the first broke off sees the same records (what pass 2 relies on).
pub fn records(data: &[u8]) {
    let window = 64 + (data.first().copied().unwrap_or(0) as usize) * 7;
    let mut c = Cursor::with_window(Box::new(MemorySource::new(data.to_vec())), window);
    let Ok(header) = Header::read(&mut c) else { return };
    let mut v = Touch::default();
    let end = walk(&mut c, &header, &mut v, None).expect("only Format errors, as WalkEnd::Broken");
    if let WalkEnd::Broken { error, stop_at } = &end {
        assert!(error.offset.is_some());
        // A second walk stopping there sees the same records and ends cleanly.
        c.rewind().unwrap();
        Header::read(&mut c).unwrap();
        let mut again = Touch::default();
        let end2 = walk(&mut c, &header, &mut again, Some(*stop_at)).unwrap();
        assert!(matches!(end2, WalkEnd::Complete { .. }), "second walk: {end2:?} after {end:?}");
        assert_eq!(again.sum, v.sum, "both walks saw the same records");
    }
}

#[derive(Default)]
struct Touch {
    sum: u64,
    array_open: bool,
}

impl Visitor for Touch {
    const INSTANCE_FIELDS: bool = true;
    const ARRAY_ELEMENTS: bool = true;

    fn string(&mut self, id: u64, utf8: &[u8], _offset: u64) -> Result<()> {
        self.sum = self.sum.wrapping_add(id).wrapping_add(utf8.iter().map(|&b| b as u64).sum::<u64>());
        Ok(())
    }
    fn root(&mut self, _kind: RootKind, id: u64, _thread: Option<u32>, _offset: u64) -> Result<()> {
        self.sum = self.sum.wrapping_add(id);
        Ok(())
    }
    fn class_dump(&mut self, c: &ClassDump, _offset: u64) -> Result<()> {
        self.sum = self.sum.wrapping_add(c.id).wrapping_add(c.statics.len() as u64 + c.fields.len() as u64);
        Ok(())
    }
    fn instance(&mut self, id: u64, _class: u64, n: u32, fields: &[u8], _offset: u64) -> Result<()> {
        assert_eq!(fields.len(), n as usize);
        self.sum = self.sum.wrapping_add(id);
        Ok(())
    }
    fn object_array(&mut self, _id: u64, _class: u64, _len: u32, _offset: u64) -> Result<()> {
        assert!(!self.array_open);
        self.array_open = true;
        Ok(())
    }
    fn object_array_elements(&mut self, ids: &[u8]) -> Result<()> {
        assert!(self.array_open && !ids.is_empty());
        Ok(())
    }
    fn object_array_end(&mut self) -> Result<()> {
        assert!(self.array_open);
        self.array_open = false;
        Ok(())
    }
}

/// The gzip reader: a sequential read in chunks of a size picked by the input, then
/// reads at offsets (through the decoder checkpoints) that must give the same bytes,
/// or the same error. Only the first 1 MiB of output is compared.
pub fn gzip(data: &[u8]) {
    let chunk = 1 + data.last().copied().unwrap_or(0) as usize * 97;
    let mut src = GzipSource::new(Box::new(MemorySource::new(data.to_vec())));
    let mut out = Vec::new();
    let mut buf = vec![0u8; chunk];
    let error = loop {
        match src.read(&mut buf) {
            Ok(0) => break None,
            Ok(n) => {
                assert!(n <= buf.len());
                if out.len() < 1 << 20 {
                    out.extend_from_slice(&buf[..n]);
                }
            }
            Err(e) => break Some(e),
        }
    };
    if let Some(e) = &error {
        assert!(!e.to_string().contains('\n'), "one line: {e}");
        assert!(e.kind == ErrorKind::Format || e.offset.is_some(), "a gzip error names the offset: {e}");
    }
    let len = out.len().min(1 << 20) as u64;
    for offset in [0, len / 3, len / 2, len.saturating_sub(17)] {
        let mut piece = [0u8; 64];
        if let Ok(n) = src.read_at(offset, &mut piece) {
            let end = (offset as usize + n).min(out.len());
            assert_eq!(&piece[..end - offset as usize], &out[offset as usize..end], "read_at({offset}) differs");
        }
    }
}

/// The saved-report reader: arbitrary text either is refused with a one-line message or
/// is a report that renders, and whose JSON reads back to the same JSON.
pub fn report_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match report::from_json(text) {
        Ok(r) => {
            let json = report::to_json(&r);
            let _ = markdown::render(&r);
            let _ = html::render(&r);
            let again = report::from_json(&json).expect("a report's own JSON reads back");
            assert!(report::to_json(&again) == json, "JSON -> report -> JSON is stable");
        }
        Err(e) => assert!(!e.to_string().contains('\n'), "one line: {e}"),
    }
}
