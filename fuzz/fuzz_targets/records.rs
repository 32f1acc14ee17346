//! The record walker on arbitrary bytes: header, every top-level record and heap
//! sub-record, with a visitor that asks for instance fields and array elements (as pass 2
//! does) and a window size picked by the input, so records straddle refills.
//! Must never panic, hang or allocate by an unchecked length.
#![no_main]

use heapscope::error::Result;
use heapscope::records::heap::{walk, ClassDump, RootKind, Visitor, WalkEnd};
use heapscope::records::{Cursor, Header};
use heapscope::source::MemorySource;
use libfuzzer_sys::fuzz_target;

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

fuzz_target!(|data: &[u8]| {
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
});
