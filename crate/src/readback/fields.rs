//! The values of a record found again ([`super::locate`]), streamed, never formatted here:
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

use crate::error::{Error, Result};
use crate::records::basic_type;
use crate::records::cursor::be_id;
use crate::records::heap::FieldDecl;
use crate::source::ByteSource;

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

/// Streams the elements `from..len` of an object array (see [`super::locate::RecordHead::ObjectArray`])
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
