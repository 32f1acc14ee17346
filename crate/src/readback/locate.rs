//! Finding object records again, after the passes: the one walker every read-back goes
//! through (the inspector, the names on a reference path, the values beside references,
//! the waste report's texts, the thread overview, the duplicates query).
//!
//! Pass 1's [`Locator`](crate::index::locate::Locator) knows the few spans of the dump
//! that can hold an address. [`records`] reads the records of many objects in two forward
//! walks: each object's likeliest span first, then the other candidate spans of the
//! objects not found yet (a span holding a few far-off objects is a candidate for most
//! addresses; walking it for every object that might be there would cost a seek each,
//! and in a gzip stream a decompression from a checkpoint). A span's walk stops as soon
//! as it is past the span or every object is found ([`ControlFlow::Break`] from the
//! visitor). Each record comes back with its head (where it is, its class, its length)
//! and, for a primitive array, its first bytes; [`read_arrays`] and [`read_fields`] are
//! the two common cases.

use std::ops::ControlFlow;

use crate::error::Result;
use crate::index::locate::{Span, SPAN};
use crate::index::Index;
use crate::records::heap::{walk_span, ClassDump, Visitor};
use crate::records::Cursor;
use crate::source::ByteSource;

/// What kind of record an object has, and where its values are.
#[derive(Debug, Clone)]
pub enum RecordHead {
    /// An INSTANCE DUMP: its class and its field bytes (at most [`crate::records::cursor::MAX_WINDOW`]).
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

/// A primitive array read back from the dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayData {
    pub ty: u8,
    pub len: u32,
    /// Its first bytes (at most the number asked for).
    pub data: Vec<u8>,
}

/// The source given back, and what was read.
pub type ReadBack<T> = (Box<dyn ByteSource>, Result<T>);

/// The source given back, and each array read (None: not found).
pub type Arrays = (Box<dyn ByteSource>, Vec<Option<ArrayData>>);

/// The source given back, each array read and each instance's field bytes.
pub type ArraysAndFields = (Box<dyn ByteSource>, Vec<Option<ArrayData>>, Vec<Option<Vec<u8>>>);

/// Reads the records of the objects `ids` (addresses, ascending, distinct), each
/// primitive array with its first `max_data` bytes. `found[i]` is the record of `ids[i]`
/// (None: no span holds it, e.g. MAT's pseudo object 0x0, or an object whose record is
/// past a break). A damaged part of the dump is an error only when nothing was found
/// before it; otherwise what was found is returned.
pub fn records(
    index: &Index,
    source: Box<dyn ByteSource>,
    ids: &[u64],
    max_data: usize,
) -> ReadBack<Vec<Option<Record>>> {
    records_with::<true>(index, source, ids, Limits::All(max_data))
}

/// [`records`], each primitive array `ids[i]` with its first `max_data[i]` bytes (a
/// String's window needs the bytes up to its end, no more).
pub fn records_each(
    index: &Index,
    source: Box<dyn ByteSource>,
    ids: &[u64],
    max_data: &[usize],
) -> ReadBack<Vec<Option<Record>>> {
    assert_eq!(ids.len(), max_data.len(), "one byte limit per object");
    records_with::<true>(index, source, ids, Limits::Each(max_data))
}

/// Bytes of a primitive array's data kept: the same for every array, or one per object.
#[derive(Clone, Copy)]
enum Limits<'t> {
    All(usize),
    Each(&'t [usize]),
}

/// [`records`]; with `FIELDS` false, instances come without their field bytes (the walk
/// then skips every instance's body: reading arrays back needs none).
fn records_with<const FIELDS: bool>(
    index: &Index,
    source: Box<dyn ByteSource>,
    ids: &[u64],
    limits: Limits,
) -> ReadBack<Vec<Option<Record>>> {
    let mut f = Finder::<FIELDS> {
        targets: ids,
        last_offset: 0,
        id_size: index.header.id_size,
        found: vec![None; ids.len()],
        missing: ids.len(),
        past: false,
        limits,
        max_data: 0,
        data: Vec::new(),
    };
    // One span per read: a span is the unit these walks seek to.
    let mut cursor = Cursor::with_window(source, SPAN as usize);
    let result = walk(index, &mut cursor, &mut f);
    (cursor.into_source(), result.map(|()| f.found))
}

/// The two rounds of walks (see the module's documentation).
fn walk<const FIELDS: bool>(index: &Index, cursor: &mut Cursor, f: &mut Finder<FIELDS>) -> Result<()> {
    if f.missing == 0 {
        return Ok(());
    }
    cursor.rewind()?;
    let likeliest = index.locator.likeliest_spans(f.targets.iter().copied());
    for round in 0..2 {
        let others;
        let spans: &[Span] = if round == 0 {
            &likeliest
        } else {
            let missing = (0..f.targets.len()).filter(|&k| f.found[k].is_none()).map(|k| f.targets[k]);
            others = index.locator.other_spans(missing.collect::<Vec<_>>(), &likeliest);
            &others
        };
        for &span in spans {
            if f.missing == 0 {
                return Ok(());
            }
            if span.start >= cursor.pos() {
                let gap = span.start - cursor.pos();
                cursor.skip_exact(gap, "the dump read again")?;
            } else {
                cursor.seek(span.start)?;
            }
            f.last_offset = span.end;
            f.past = false;
            if let Err(e) = walk_span(cursor, index.header.id_size, span.segment_end, f) {
                if f.missing == f.targets.len() {
                    return Err(e);
                }
                return Ok(());
            }
        }
    }
    Ok(())
}

/// The record of one object (see [`records`]).
pub fn record(index: &Index, source: Box<dyn ByteSource>, id: u64) -> ReadBack<Option<Record>> {
    let (source, found) = records(index, source, &[id], 0);
    (source, found.map(|mut f| f.pop().flatten()))
}

/// The primitive arrays `objects` (ascending object indices), each with its first
/// `max_bytes` bytes (None: not found, or a record without its data).
pub fn read_arrays(index: &Index, source: Box<dyn ByteSource>, objects: &[u32], max_bytes: usize) -> Result<Arrays> {
    let ids: Vec<u64> = objects.iter().map(|&o| index.ids.id(o)).collect();
    let (source, found) = records_with::<false>(index, source, &ids, Limits::All(max_bytes));
    Ok((source, arrays_of(found?)))
}

/// [`read_arrays`], the array `objects[i]` with its first `max_bytes[i]` bytes.
pub fn read_arrays_each(
    index: &Index,
    source: Box<dyn ByteSource>,
    objects: &[u32],
    max_bytes: &[usize],
) -> Result<Arrays> {
    assert_eq!(objects.len(), max_bytes.len(), "one byte limit per array");
    let ids: Vec<u64> = objects.iter().map(|&o| index.ids.id(o)).collect();
    let (source, found) = records_with::<false>(index, source, &ids, Limits::Each(max_bytes));
    Ok((source, arrays_of(found?)))
}

fn arrays_of(found: Vec<Option<Record>>) -> Vec<Option<ArrayData>> {
    found
        .into_iter()
        .map(|r| match r {
            Some(Record { head: RecordHead::PrimitiveArray { elem_type, len, has_data: true, .. }, data, .. }) => {
                Some(ArrayData { ty: elem_type, len, data })
            }
            _ => None,
        })
        .collect()
}

/// The objects `objects` (ascending object indices): each primitive array's first
/// `max_bytes` bytes and each instance's field bytes.
pub fn read_fields(
    index: &Index,
    source: Box<dyn ByteSource>,
    objects: &[u32],
    max_bytes: usize,
) -> Result<ArraysAndFields> {
    let ids: Vec<u64> = objects.iter().map(|&o| index.ids.id(o)).collect();
    let (source, found) = records(index, source, &ids, max_bytes);
    let (mut arrays, mut fields) = (Vec::with_capacity(ids.len()), Vec::with_capacity(ids.len()));
    for r in found? {
        match r {
            Some(Record { head: RecordHead::PrimitiveArray { elem_type, len, has_data: true, .. }, data, .. }) => {
                arrays.push(Some(ArrayData { ty: elem_type, len, data }));
                fields.push(None);
            }
            Some(Record { head: RecordHead::Instance { fields: f, .. }, .. }) => {
                arrays.push(None);
                fields.push(Some(f));
            }
            _ => {
                arrays.push(None);
                fields.push(None);
            }
        }
    }
    Ok((source, arrays, fields))
}

struct Finder<'t, const FIELDS: bool> {
    /// Identifiers wanted, ascending.
    targets: &'t [u64],
    /// Offset of the last record of the span: the walk of the span ends after it.
    last_offset: u64,
    id_size: u32,
    found: Vec<Option<Record>>,
    missing: usize,
    past: bool,
    /// Bytes of a primitive array's data kept; those kept of the array being walked (0:
    /// not one wanted), and its data.
    limits: Limits<'t>,
    max_data: usize,
    data: Vec<u8>,
}

impl<const FIELDS: bool> Finder<'_, FIELDS> {
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

impl<const FIELDS: bool> Visitor for Finder<'_, FIELDS> {
    const INSTANCE_FIELDS: bool = FIELDS;
    const ARRAY_ELEMENTS: bool = false;
    const PRIMITIVE_DATA: bool = true;

    fn primitive_data(&mut self, id: u64) -> bool {
        // Only the arrays wanted (and not found yet) are copied; the others are skipped.
        self.max_data = match self.targets.binary_search(&id) {
            Ok(k) if self.found[k].is_none() && !self.past => match self.limits {
                Limits::All(n) => n,
                Limits::Each(each) => each[k],
            },
            _ => 0,
        };
        self.max_data > 0
    }
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
