//! Reading one object's record again, after the passes: the inspector, the names on a
//! reference path, and every check that reads values back use this.
//!
//! [`locate`] walks the few spans of the dump that can hold an address (pass 1's
//! [`crate::index::locate::Locator`]) and returns the record's head: where it is, its
//! class, its length. The values are then streamed, never formatted here:
//!
//! - [`instance_fields`] decodes an instance's field bytes against the field
//!   declarations of its class chain (own class first, then each super class, as HPROF
//!   lays them out), handing each field to a visitor;
//! - [`array_elements`] reads an object array's elements from any index, in bounded
//!   pieces, however long the array is;
//! - [`primitive_bytes`] reads a primitive array's data, bounded.
//!
//! A visitor stops early by returning [`ControlFlow::Break`]. A record shorter than its
//! class says is reported as [`FieldsEnd::Short`] with how far the decoding got: what
//! was read before is still shown, nothing after it is guessed.

use std::ops::ControlFlow;

use super::basic_type;
use super::cursor::{be_id, Cursor};
use super::heap::{walk_span, ClassDump, FieldDecl, Visitor};
use crate::error::{Error, Result};
use crate::index::locate::Span;
use crate::source::ByteSource;

/// What kind of record an object has, and where its values are.
#[derive(Debug, Clone)]
pub enum RecordHead {
    /// An INSTANCE DUMP: its class and its field bytes (at most [`super::cursor::MAX_WINDOW`]).
    Instance { class_id: u64, fields: Vec<u8> },
    /// An OBJECT ARRAY DUMP: `len` identifiers start at byte `elements_at` of the dump.
    ObjectArray { class_id: u64, len: u32, elements_at: u64 },
    /// A PRIMITIVE ARRAY DUMP (`has_data` false for ART's 0xC3 records, which omit it).
    PrimitiveArray { elem_type: u8, len: u32, data_at: u64, has_data: bool },
    /// A CLASS DUMP.
    Class(Box<ClassDump>),
}

/// A record found again.
#[derive(Debug, Clone)]
pub struct Record {
    /// Byte offset of the record in the decoded dump.
    pub offset: u64,
    pub head: RecordHead,
    /// A primitive array's first bytes, when they were asked for ([`locate_many`]'s
    /// `max_data`); empty otherwise.
    pub data: Vec<u8>,
}

/// Finds the record of object `id` in the candidate `spans`. `Ok(None)` when no span
/// holds it (the pseudo object 0x0, or an object whose record is past a break).
pub fn locate<'s>(
    source: Box<dyn ByteSource>,
    spans: impl IntoIterator<Item = &'s Span>,
    id: u64,
    id_size: u32,
) -> (Box<dyn ByteSource>, Result<Option<Record>>) {
    let (source, found) = locate_many(source, spans, &[id], id_size, 0);
    (source, found.map(|mut f| f.pop().flatten()))
}

/// Finds the records of the objects `ids` (ascending, distinct) in the candidate `spans`
/// (of all of them, in the order they are given: ascending offsets make one forward
/// walk, which through a gzip stream inflates each part at most once). Each span is
/// walked once whatever the number of objects it holds; the walk stops once every
/// object is found. `found[i]` is the record of `ids[i]`; a primitive array's comes with
/// its first `max_data` bytes.
pub fn locate_many<'s>(
    source: Box<dyn ByteSource>,
    spans: impl IntoIterator<Item = &'s Span>,
    ids: &[u64],
    id_size: u32,
    max_data: usize,
) -> (Box<dyn ByteSource>, Result<Vec<Option<Record>>>) {
    // One span per read: a span is the unit these walks seek to.
    let mut cursor = Cursor::with_window(source, crate::index::locate::SPAN as usize);
    let mut f = Finder {
        targets: ids,
        last_offset: 0,
        id_size,
        found: vec![None; ids.len()],
        missing: ids.len(),
        past: false,
        max_data,
        data: Vec::new(),
    };
    let mut result = Ok(());
    for span in spans {
        if f.missing == 0 {
            break;
        }
        if let Err(e) = cursor.seek(span.start) {
            result = Err(e);
            break;
        }
        f.last_offset = span.end;
        f.past = false;
        if let Err(e) = walk_span(&mut cursor, id_size, span.segment_end, &mut f) {
            // A damaged part of the dump is an error only when nothing was found before it.
            if f.missing == ids.len() {
                result = Err(e);
            }
            break;
        }
    }
    let found = f.found;
    (cursor.into_source(), result.map(|()| found))
}

struct Finder<'t> {
    /// Identifiers wanted, ascending.
    targets: &'t [u64],
    /// Offset of the last record of the span: the walk of the span ends after it.
    last_offset: u64,
    id_size: u32,
    found: Vec<Option<Record>>,
    missing: usize,
    past: bool,
    /// Bytes of a primitive array's data kept, and those of the array being walked.
    max_data: usize,
    data: Vec<u8>,
}

impl Finder<'_> {
    /// Where `id` goes in `found`, if it is wanted, not found yet, and the record at
    /// `offset` is still in the span.
    fn at(&mut self, offset: u64, id: u64) -> Option<usize> {
        if offset > self.last_offset {
            self.past = true;
        }
        if self.past || self.missing == 0 {
            return None;
        }
        let k = self.targets.binary_search(&id).ok()?;
        self.found[k].is_none().then_some(k)
    }

    fn put(&mut self, k: usize, offset: u64, head: RecordHead) {
        self.found[k] = Some(Record { offset, head, data: Vec::new() });
        self.missing -= 1;
    }
}

impl Visitor for Finder<'_> {
    const INSTANCE_FIELDS: bool = true;
    const ARRAY_ELEMENTS: bool = false;
    const PRIMITIVE_DATA: bool = true;

    fn flow(&self) -> ControlFlow<()> {
        if self.past || self.missing == 0 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
    fn class_dump(&mut self, c: &ClassDump, offset: u64) -> Result<()> {
        if let Some(k) = self.at(offset, c.id) {
            self.put(k, offset, RecordHead::Class(Box::new(c.clone())));
        }
        Ok(())
    }
    fn instance(&mut self, id: u64, class_id: u64, _n: u32, fields: &[u8], offset: u64) -> Result<()> {
        if let Some(k) = self.at(offset, id) {
            self.put(k, offset, RecordHead::Instance { class_id, fields: fields.to_vec() });
        }
        Ok(())
    }
    fn object_array(&mut self, id: u64, class_id: u64, len: u32, offset: u64) -> Result<()> {
        if let Some(k) = self.at(offset, id) {
            // tag, id, u4 stack serial, u4 length, class id, then the elements.
            let elements_at = offset + 1 + 2 * self.id_size as u64 + 8;
            self.put(k, offset, RecordHead::ObjectArray { class_id, len, elements_at });
        }
        Ok(())
    }
    fn primitive_array_data(&mut self, data: &[u8]) -> Result<()> {
        let room = self.max_data.saturating_sub(self.data.len());
        self.data.extend_from_slice(&data[..data.len().min(room)]);
        Ok(())
    }
    fn primitive_array(&mut self, id: u64, elem_type: u8, len: u32, has_data: bool, offset: u64) -> Result<()> {
        let data = std::mem::take(&mut self.data);
        if let Some(k) = self.at(offset, id) {
            // tag, id, u4 stack serial, u4 length, u1 type, then the data.
            let data_at = offset + 1 + self.id_size as u64 + 9;
            self.put(k, offset, RecordHead::PrimitiveArray { elem_type, len, data_at, has_data });
            if let Some(r) = self.found[k].as_mut() {
                r.data = data;
            }
        }
        Ok(())
    }
}

/// One value read back: a reference (0 is null) or a primitive's big-endian bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    Reference(u64),
    Primitive { elem_type: u8, bytes: &'a [u8] },
}

/// One instance field: which declaration (`depth` 0 is the object's own class, 1 its
/// super class, …) and its value.
#[derive(Debug, Clone, Copy)]
pub struct Field<'a> {
    pub depth: usize,
    pub decl: FieldDecl,
    pub value: Value<'a>,
}

/// How decoding an instance's fields ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldsEnd {
    /// Every declared field was read.
    Complete,
    /// The visitor stopped.
    Stopped,
    /// The record holds `have` bytes of fields; the next field needs `need` bytes from
    /// byte `at`. The fields before it were handed over.
    Short { at: usize, need: usize, have: usize },
}

/// Decodes `data` (an instance's field bytes) against `chain`, the field declarations of
/// its class and then of each super class. Unknown field types end the decoding as short
/// (their size is unknown, so nothing after them can be placed).
pub fn instance_fields<'d, 'c>(
    data: &'d [u8],
    chain: impl IntoIterator<Item = &'c [FieldDecl]>,
    id_size: u32,
    mut visit: impl FnMut(Field<'d>) -> ControlFlow<()>,
) -> FieldsEnd {
    let mut at = 0usize;
    for (depth, decls) in chain.into_iter().enumerate() {
        for &decl in decls {
            let Some(size) = basic_type::value_size(decl.ty, id_size).map(|s| s as usize) else {
                return FieldsEnd::Short { at, need: 0, have: data.len() };
            };
            if at + size > data.len() {
                return FieldsEnd::Short { at, need: size, have: data.len() };
            }
            let value = if decl.ty == basic_type::OBJECT {
                Value::Reference(be_id(data, at, id_size as usize))
            } else {
                Value::Primitive { elem_type: decl.ty, bytes: &data[at..at + size] }
            };
            at += size;
            if visit(Field { depth, decl, value }).is_break() {
                return FieldsEnd::Stopped;
            }
        }
    }
    FieldsEnd::Complete
}

/// Identifiers read per piece by [`array_elements`].
const PIECE: usize = 8192;

/// Streams the elements `from..len` of an object array (see [`RecordHead::ObjectArray`])
/// to `visit(index, id)`, reading [`PIECE`] identifiers at a time, until `visit` breaks.
pub fn array_elements(
    source: &mut dyn ByteSource,
    elements_at: u64,
    len: u32,
    id_size: u32,
    from: u64,
    mut visit: impl FnMut(u64, u64) -> ControlFlow<()>,
) -> Result<()> {
    let ids = id_size as usize;
    let mut buf = vec![0u8; PIECE * ids];
    let mut i = from;
    while i < len as u64 {
        let n = ((len as u64 - i) as usize).min(PIECE);
        let want = n * ids;
        let at = elements_at + i * ids as u64;
        let got = source.read_at(at, &mut buf[..want])?;
        if got < want {
            return Err(Error::format(
                at + got as u64,
                format!("the dump ends inside an object array's elements: expected {want} bytes here, found {got}"),
            ));
        }
        for k in 0..n {
            if visit(i + k as u64, be_id(&buf, k * ids, ids)).is_break() {
                return Ok(());
            }
        }
        i += n as u64;
    }
    Ok(())
}

/// The first `max` elements' bytes of a primitive array (see [`RecordHead::PrimitiveArray`]).
pub fn primitive_bytes(
    source: &mut dyn ByteSource,
    elem_type: u8,
    len: u32,
    data_at: u64,
    max: usize,
) -> Result<Vec<u8>> {
    let size = basic_type::primitive_size(elem_type).unwrap_or(1) as usize;
    let n = (len as usize).min(max) * size;
    let mut buf = vec![0u8; n];
    let got = source.read_at(data_at, &mut buf)?;
    buf.truncate(got);
    Ok(buf)
}
