//! One object's fields, read back from the dump ([`super::locate`]) and shown as text: the
//! inspector.

use std::ops::ControlFlow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fields::{array_elements, instance_fields, primitive_bytes, FieldsEnd, Value};
use super::locate::{self, Record, RecordHead};
use super::strings::{array_text, plan, render, ByteOrder, Decoding, Display, Fields};
use crate::analysis::{loader_label, object_ref, strength_name, Analysis};
use crate::error::Result;
use crate::model::{ObjectRef, StrengthName};
use crate::records::basic_type;
use crate::records::cursor::{be_u16, be_u32, be_u64};
use crate::records::heap::FieldDecl;
use crate::rules::roots::name as root_name;

/// Array elements shown at most.
pub const MAX_ELEMENTS: usize = 1000;
/// String characters shown at most.
pub const MAX_STRING_CHARS: usize = 2000;

/// A field (or static field, or array element) and its value, for display.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FieldValue {
    pub name: String,
    /// "int", "boolean", …, or "object".
    pub type_name: String,
    /// The value as text: "42", "true", "'x'", "null", or the address of the reference.
    pub value: String,
    /// The referenced object, when the value is a reference to an object of the dump.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ObjectRef>,
    pub is_static: bool,
}

/// Everything about one object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ObjectDetails {
    pub object: ObjectRef,
    /// Loader of the object's class.
    pub loader: String,
    /// GC root kinds of the object (empty if it is not a root).
    pub gc_root: Vec<String>,
    /// Immediate dominator, or None under the virtual root.
    pub dominator: Option<ObjectRef>,
    /// Depth in the dominator tree (1 for top-level dominators).
    pub depth: u64,
    /// How firmly it is held: over all paths from the GC roots, the best of each path's
    /// weakest reference (the same in both trees).
    pub strength: StrengthName,
    /// Byte offset of the object's record in the (decompressed) dump.
    pub record_offset: Option<u64>,
    /// Instance fields (own class first, then super classes), or a class's static
    /// fields, or an array's first elements.
    pub fields: Vec<FieldValue>,
    /// For arrays: the length, and how many elements `fields` shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_length: Option<u64>,
    /// For a java.lang.String, the characters it holds, in every layout ("" when empty);
    /// for a char[] or byte[], its characters; at most 2000, then "…".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// What could not be read as the class says (a record shorter than its fields): the
    /// fields before that point are shown, none after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Reads the record of `obj` again from the dump (None: it has none, e.g. MAT's pseudo
/// object 0x0, or the dump is not at hand).
pub fn read_record(a: &mut Analysis, obj: u32) -> Result<Option<Record>> {
    let id = a.address(obj);
    let Some(source) = a.source.take() else { return Ok(None) };
    let (source, found) = locate::record(&a.heap.index, source, id);
    a.source = Some(source);
    found
}

/// The field declarations of class index `class` and then of each super class: the order
/// of an instance's field bytes.
pub fn field_chain(a: &Analysis, class: Option<u32>) -> impl Iterator<Item = &[FieldDecl]> + '_ {
    let table = &a.heap.index.classes;
    table.chain(class).map(|c| table.classes[c as usize].fields.as_slice())
}

pub fn primitive_text(ty: u8, b: &[u8]) -> String {
    match ty {
        basic_type::BOOLEAN => (b[0] != 0).to_string(),
        basic_type::BYTE => (b[0] as i8).to_string(),
        basic_type::CHAR => {
            let c = be_u16(b, 0);
            match char::from_u32(c as u32) {
                Some(ch) if !ch.is_control() => format!("'{ch}'"),
                _ => format!("'\\u{c:04x}'"),
            }
        }
        basic_type::SHORT => (be_u16(b, 0) as i16).to_string(),
        basic_type::INT => (be_u32(b, 0) as i32).to_string(),
        basic_type::FLOAT => f32::from_bits(be_u32(b, 0)).to_string(),
        basic_type::LONG => (be_u64(b, 0) as i64).to_string(),
        basic_type::DOUBLE => f64::from_bits(be_u64(b, 0)).to_string(),
        _ => "?".into(),
    }
}

fn primitive_value(name: String, ty: u8, bytes: &[u8], is_static: bool) -> FieldValue {
    FieldValue {
        name,
        type_name: basic_type::primitive_name(ty).unwrap_or("?").into(),
        value: primitive_text(ty, bytes),
        reference: None,
        is_static,
    }
}

fn reference_value(a: &Analysis, name: String, id: u64, is_static: bool) -> FieldValue {
    let reference = if id == 0 { None } else { a.object_at(id).filter(|&o| a.is_kept(o)).map(|o| object_ref(a, o)) };
    FieldValue {
        name,
        type_name: "object".into(),
        value: if id == 0 { "null".into() } else { format!("0x{id:x}") },
        reference,
        is_static,
    }
}

/// The text of a String whose value array is `value` and whose fields are `f`: the
/// characters the program holds, plainly, the bytes read bounded by the characters shown.
fn string_text(a: &mut Analysis, value: u64, f: &Fields) -> Result<Option<String>> {
    let Some(v) = a.object_at(value) else { return Ok(None) };
    let Some(Record { head: RecordHead::PrimitiveArray { elem_type, len, data_at, has_data: true }, .. }) =
        read_record(a, v)?
    else {
        return Ok(None);
    };
    let order = ByteOrder::of(&a.heap.index);
    let Some(plan) = plan(f, elem_type, len, order, Decoding::Runtime, MAX_STRING_CHARS) else { return Ok(None) };
    let Some(source) = a.source.as_deref_mut() else { return Ok(None) };
    let size = basic_type::primitive_size(elem_type).unwrap_or(1) as u64;
    let bytes = primitive_bytes(source, elem_type, len, data_at, plan.end().div_ceil(size) as usize)?;
    Ok(render(&plan, &bytes, Display::Readable))
}

/// Fields and values of `obj`, read back from the dump.
pub fn object_details(a: &mut Analysis, obj: u32) -> Result<ObjectDetails> {
    let id_size = a.heap.index.header.id_size;
    let record = read_record(a, obj)?;
    let mut fields = Vec::new();
    let mut array_length = None;
    let mut text = None;
    let mut problem = None;
    let record_offset = record.as_ref().map(|r| r.offset);
    match record.map(|r| r.head) {
        Some(RecordHead::Instance { class_id, fields: data }) => {
            let class = a.heap.index.class_by_id.get(class_id);
            // A String's value array and the fields saying how it reads it (the most
            // derived field of each name, as Java resolves them).
            let (mut value, mut string) = (None, Fields::default());
            let mut names = Vec::new();
            let end = instance_fields(&data, field_chain(a, class), id_size, |f| {
                names.push((f.depth, f.decl.name_id, f.value.to_owned_value()));
                ControlFlow::Continue(())
            });
            for (depth, name_id, v) in names {
                let index = &a.heap.index;
                let name = index.field_name(index.declaring_class(class, depth), name_id);
                match v {
                    OwnedValue::Reference(id) => {
                        if name == "value" {
                            value.get_or_insert(id);
                        }
                        fields.push(reference_value(a, name, id, false));
                    }
                    OwnedValue::Primitive(ty, bytes, n) => {
                        let int = || i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                        match (name.as_str(), ty) {
                            ("coder", basic_type::BYTE) => _ = string.coder.get_or_insert(bytes[0]),
                            ("offset", basic_type::INT) => _ = string.offset.get_or_insert(int()),
                            ("count", basic_type::INT) => _ = string.count.get_or_insert(int()),
                            _ => {}
                        }
                        fields.push(primitive_value(name, ty, &bytes[..n], false));
                    }
                }
            }
            if let FieldsEnd::Short { at, need, have } = end {
                problem = Some(if need == 0 {
                    format!("the class declares a field of an unknown type at byte {at} of the record's {have} bytes of fields; the fields after it cannot be placed")
                } else {
                    format!("the record is short: it holds {have} bytes of fields, but the next field needs {need} bytes at byte {at}; the fields after it are not shown")
                });
            }
            if a.class_name(a.class_of(obj)) == "java.lang.String" {
                if let Some(v) = value {
                    text = string_text(a, v, &string)?;
                }
            }
        }
        Some(RecordHead::ObjectArray { len, elements_at, .. }) => {
            array_length = Some(len as u64);
            let mut ids = Vec::new();
            if let Some(source) = a.source.as_deref_mut() {
                array_elements(source, elements_at, len, id_size, 0, |i, id| {
                    ids.push(id);
                    if i + 1 >= MAX_ELEMENTS as u64 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                })?;
            }
            for (i, id) in ids.into_iter().enumerate() {
                fields.push(reference_value(a, format!("[{i}]"), id, false));
            }
        }
        Some(RecordHead::PrimitiveArray { elem_type, len, data_at, has_data }) => {
            array_length = Some(len as u64);
            if let (true, Some(source)) = (has_data, a.source.as_deref_mut()) {
                let size = basic_type::primitive_size(elem_type).unwrap_or(1) as usize;
                let bytes = primitive_bytes(source, elem_type, len, data_at, MAX_ELEMENTS)?;
                for (i, chunk) in bytes.chunks_exact(size).enumerate() {
                    fields.push(primitive_value(format!("[{i}]"), elem_type, chunk, false));
                }
                if elem_type == basic_type::CHAR || elem_type == basic_type::BYTE {
                    let more = primitive_bytes(source, elem_type, len, data_at, MAX_STRING_CHARS)?;
                    text = Some(array_text(elem_type, len, &more, MAX_STRING_CHARS));
                }
            }
        }
        Some(RecordHead::Class(c)) => {
            fields.push(reference_value(a, "<super>".into(), c.super_id, true));
            fields.push(reference_value(a, "<classloader>".into(), c.loader_id, true));
            let represented = a.class_represented_by(obj);
            for s in &c.statics {
                let name = a.heap.index.field_name(represented, s.name_id);
                if s.ty == basic_type::OBJECT {
                    fields.push(reference_value(a, name, s.value, true));
                } else {
                    let size = basic_type::primitive_size(s.ty).unwrap_or(0) as usize;
                    let bytes = s.value.to_be_bytes();
                    fields.push(primitive_value(name, s.ty, &bytes[8 - size..], true));
                }
            }
        }
        None => {}
    }
    let mut depth = 0u64;
    let mut x = obj;
    while let Some(Some(d)) = a.immediate_dominator(x) {
        depth += 1;
        x = d;
    }
    Ok(ObjectDetails {
        object: object_ref(a, obj),
        loader: loader_label(a, a.class_represented_by(obj).unwrap_or(a.class_of(obj))),
        gc_root: root_kinds(a, obj),
        dominator: a.immediate_dominator(obj).flatten().map(|d| object_ref(a, d)),
        depth: depth + 1,
        strength: strength_name(a.strength(obj)),
        record_offset,
        fields,
        array_length,
        text,
        problem,
    })
}

/// The GC root kinds of `obj`, by name.
pub fn root_kinds(a: &Analysis, obj: u32) -> Vec<String> {
    let kinds = a.roots.binary_search_by_key(&obj, |&(o, _)| o).map(|i| a.roots[i].1).unwrap_or_default();
    kinds.iter().map(|k| root_name(k).to_string()).collect()
}

/// A field value copied out of the record (a primitive is at most 8 bytes).
enum OwnedValue {
    Reference(u64),
    Primitive(u8, [u8; 8], usize),
}

impl Value<'_> {
    fn to_owned_value(self) -> OwnedValue {
        match self {
            Value::Reference(id) => OwnedValue::Reference(id),
            Value::Primitive { elem_type, bytes } => {
                let mut b = [0u8; 8];
                let n = bytes.len().min(8);
                b[..n].copy_from_slice(&bytes[..n]);
                OwnedValue::Primitive(elem_type, b, n)
            }
        }
    }
}
