//! Questions asked after the report, lazily: the dominator tree one level at a time, one
//! object's fields (read back from the dump), the reference path from a GC root to an
//! object, the instances of a class.
//!
//! The page's tables and treemap are drawn from these answers, never from a full tree
//! shipped at once. Every answer is bounded (a page of children, the first elements of an
//! array, the first characters of a string). The types derive serde and schemars like the
//! report; their schema is `schema/session.schema.json`.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::error::{Error, ErrorKind, Result};
use crate::graph::roots::name as root_name;
use crate::records::basic_type;
use crate::records::cursor::{be_id, be_u16, be_u32, be_u64, Cursor};
use crate::records::heap::{walk_span, ClassDump, Visitor};
use crate::report::build::{loader_label, object_ref, package_of};
use crate::report::model::ObjectRef;

/// Array elements and string characters shown at most.
pub const MAX_ELEMENTS: usize = 1000;
pub const MAX_STRING_CHARS: usize = 2000;

/// One node of the dominator tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TreeNode {
    pub object: ObjectRef,
    /// Number of objects it immediately dominates (its children).
    pub children: u64,
}

/// A page of a node's children in the dominator tree, largest retained first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Children {
    /// The parent's address, or None for the virtual root (the top-level dominators).
    pub parent: Option<String>,
    /// All children of the parent, and their retained bytes together.
    pub total: u64,
    pub total_retained_bytes: u64,
    pub offset: u64,
    pub nodes: Vec<TreeNode>,
}

/// Children of one node grouped by class (the treemap's "crowd of small children").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClassGroup {
    pub class_name: String,
    pub objects: u64,
    pub retained_bytes: u64,
    /// The biggest members (at most 20).
    pub largest: Vec<TreeNode>,
}

/// The objects that reference one object ("incoming references").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Referrers {
    /// Every kept object with at least one reference to the object (counted once each).
    pub total: u64,
    /// The referrers retaining the most, largest first (at most the limit asked for).
    pub largest: Vec<ObjectRef>,
}

/// What the histogram's classes are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HistogramGrouping {
    /// The package of the class name (arrays count as their element class).
    Package,
    /// The class's loader.
    ClassLoader,
}

/// Classes of the histogram taken together: one package or one class loader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistogramGroup {
    /// The package (`<default package>` for none) or the loader (`<system class loader>`
    /// or `ClassName @ 0x…`), as in the histogram rows.
    pub name: String,
    pub classes: u64,
    pub instances: u64,
    pub shallow_bytes: u64,
    /// MAT's quick retained size for the group: the retained sizes of its objects that
    /// no other object of the group dominates, summed (a lower bound).
    pub retained_bytes_min: u64,
}

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
    /// Byte offset of the object's record in the (decompressed) dump.
    pub record_offset: Option<u64>,
    /// Instance fields (own class first, then super classes), or a class's static
    /// fields, or an array's first elements.
    pub fields: Vec<FieldValue>,
    /// For arrays: the length, and how many elements `fields` shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_length: Option<u64>,
    /// For java.lang.String (and char[]/byte[] values of strings): the text, cut at 2000 chars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One step of a reference path from a GC root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PathStep {
    pub object: ObjectRef,
    /// GC root kinds, for the first step.
    pub gc_root: Vec<String>,
    /// How this object references the next step: field names, `[index]`, `<class>`…
    pub via: Vec<String>,
}

/// A page of a class's instances, largest retained first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Instances {
    pub class_name: String,
    pub total: u64,
    pub offset: u64,
    pub objects: Vec<ObjectRef>,
}

fn node(a: &Analysis, v: u32) -> TreeNode {
    TreeNode { object: object_ref(a, v), children: a.dominated(v).len() as u64 }
}

/// Parses "0x1f00", "1f00" or a decimal address.
pub fn parse_address(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => u64::from_str_radix(s, 16).ok(),
    }
}

/// The kept object at `address`.
pub fn find(a: &Analysis, address: u64) -> Option<u32> {
    a.object_at(address).filter(|&o| a.is_kept(o))
}

/// Children of `parent` (None: the virtual root), `limit` of them from `offset`.
pub fn children(a: &Analysis, parent: Option<u32>, offset: usize, limit: usize) -> Children {
    let kids = match parent {
        Some(p) => a.dominated(p),
        None => a.top_level(),
    };
    let start = offset.min(kids.len());
    let end = start.saturating_add(limit).min(kids.len());
    Children {
        parent: parent.map(|p| format!("0x{:x}", a.address(p))),
        total: kids.len() as u64,
        total_retained_bytes: kids.iter().map(|&k| a.retained(k)).sum(),
        offset: start as u64,
        nodes: kids[start..end].iter().map(|&k| node(a, k)).collect(),
    }
}

/// Children of `parent` grouped by class, largest group first (at most `limit` groups).
pub fn children_by_class(a: &Analysis, parent: Option<u32>, limit: usize) -> Vec<ClassGroup> {
    let kids = match parent {
        Some(p) => a.dominated(p),
        None => a.top_level(),
    };
    let mut groups: std::collections::BTreeMap<u32, (u64, u64, Vec<u32>)> = Default::default();
    for &k in kids {
        let g = groups.entry(a.class_of(k)).or_default();
        g.0 += 1;
        g.1 += a.retained(k);
        if g.2.len() < 20 {
            g.2.push(k);
        }
    }
    let mut out: Vec<ClassGroup> = groups
        .into_iter()
        .map(|(c, (objects, retained_bytes, largest))| ClassGroup {
            class_name: a.class_name(c).to_string(),
            objects,
            retained_bytes,
            largest: largest.into_iter().map(|k| node(a, k)).collect(),
        })
        .collect();
    out.sort_by(|x, y| y.retained_bytes.cmp(&x.retained_bytes).then(x.class_name.cmp(&y.class_name)));
    out.truncate(limit);
    out
}

/// The kept objects that reference `obj`, by the references the dominator tree follows
/// (fields, array elements, statics, and MAT's object → class → loader edges). The graph
/// stores outgoing references only, so this scans all of them: linear in the references,
/// about a second for 20 M objects; nothing is kept between calls.
pub fn referrers(a: &Analysis, obj: u32, limit: usize) -> Referrers {
    let mut total = 0u64;
    // (retained, object), trimmed to the `limit` largest whenever it doubles.
    let mut best: Vec<(u64, u32)> = Vec::new();
    let trim = |best: &mut Vec<(u64, u32)>| {
        best.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        best.truncate(limit);
    };
    for v in 0..a.object_count() as u32 {
        if !a.is_kept(v) {
            continue;
        }
        let mut hit = false;
        a.for_each_reference(v, |x| hit |= x == obj);
        if hit {
            total += 1;
            best.push((a.retained(v), v));
            if best.len() >= 2 * limit.max(1) {
                trim(&mut best);
            }
        }
    }
    trim(&mut best);
    Referrers { total, largest: best.into_iter().map(|(_, v)| object_ref(a, v)).collect() }
}

/// The histogram grouped by package or class loader, over the classes the histogram lists
/// (those whose class object is kept), largest retained first. One walk of the dominator
/// tree: linear in the objects.
pub fn histogram_groups(a: &Analysis, by: HistogramGrouping) -> Vec<HistogramGroup> {
    let classes = a.class_count();
    let mut ids: std::collections::BTreeMap<String, u32> = Default::default();
    // Group of each class; classes without a row stay outside every group.
    let mut group_of = vec![u32::MAX; classes];
    for (c, g) in group_of.iter_mut().enumerate() {
        let c = c as u32;
        if !a.class_object(c).is_some_and(|o| a.is_kept(o)) {
            continue;
        }
        let name = match by {
            HistogramGrouping::Package => match package_of(a.class_name(c)) {
                "" => "<default package>".to_string(),
                p => p.to_string(),
            },
            HistogramGrouping::ClassLoader => loader_label(a, c),
        };
        let next = ids.len() as u32;
        *g = *ids.entry(name).or_insert(next);
    }
    let mut groups: Vec<HistogramGroup> = vec![
        HistogramGroup { name: String::new(), classes: 0, instances: 0, shallow_bytes: 0, retained_bytes_min: 0 };
        ids.len()
    ];
    for (name, &g) in &ids {
        groups[g as usize].name = name.clone();
    }
    for (c, &g) in group_of.iter().enumerate() {
        if let Some(row) = groups.get_mut(g as usize) {
            row.classes += 1;
            row.instances += a.classes[c].instances;
            row.shallow_bytes += a.classes[c].shallow;
        }
    }
    let group_of_object = |v: u32| group_of.get(a.class_of(v) as usize).copied().unwrap_or(u32::MAX);
    let mins = crate::retained::class_min_retained(&a.tree, &a.retained, group_of_object, groups.len());
    for (row, min) in groups.iter_mut().zip(mins) {
        row.retained_bytes_min = min;
    }
    groups.sort_by(|x, y| y.retained_bytes_min.cmp(&x.retained_bytes_min).then(y.shallow_bytes.cmp(&x.shallow_bytes)).then(x.name.cmp(&y.name)));
    groups
}

/// Instances of class `class`, largest retained first.
pub fn instances(a: &Analysis, class: u32, offset: usize, limit: usize) -> Instances {
    let mut all: Vec<u32> = (0..a.object_count() as u32).filter(|&v| a.class_of(v) == class && a.is_kept(v)).collect();
    let total = all.len();
    let want = offset.saturating_add(limit).min(total);
    let by_retained = |x: &u32, y: &u32| a.retained(*y).cmp(&a.retained(*x)).then(x.cmp(y));
    if want < total && want > 0 {
        all.select_nth_unstable_by(want - 1, by_retained);
        all.truncate(want);
    }
    all.sort_by(by_retained);
    let start = offset.min(all.len());
    Instances {
        class_name: a.class_name(class).to_string(),
        total: total as u64,
        offset: start as u64,
        objects: all[start..want.max(start)].iter().map(|&v| object_ref(a, v)).collect(),
    }
}

/// A record read back from the dump.
enum Record {
    Instance { class_id: u64, fields: Vec<u8> },
    ObjectArray { len: u32, elements: Vec<u64> },
    PrimitiveArray { ty: u8, len: u32, data_offset: u64, has_data: bool },
    Class(ClassDump),
}

struct Finder {
    target: u64,
    last_offset: u64,
    id_size: usize,
    found: Option<(u64, Record)>,
    collecting: bool,
}

fn stop() -> Error {
    Error { kind: ErrorKind::Cancelled, offset: None, message: "found".into() }
}

impl Finder {
    fn check(&self, offset: u64) -> Result<()> {
        if offset > self.last_offset {
            Err(stop())
        } else {
            Ok(())
        }
    }
}

impl Visitor for Finder {
    const INSTANCE_FIELDS: bool = true;
    const ARRAY_ELEMENTS: bool = true;

    fn class_dump(&mut self, c: &ClassDump, offset: u64) -> Result<()> {
        self.check(offset)?;
        if c.id == self.target {
            self.found = Some((offset, Record::Class(c.clone())));
            return Err(stop());
        }
        Ok(())
    }
    fn instance(&mut self, id: u64, class_id: u64, _n: u32, fields: &[u8], offset: u64) -> Result<()> {
        self.check(offset)?;
        if id == self.target {
            self.found = Some((offset, Record::Instance { class_id, fields: fields.to_vec() }));
            return Err(stop());
        }
        Ok(())
    }
    fn object_array(&mut self, id: u64, _class_id: u64, len: u32, offset: u64) -> Result<()> {
        self.check(offset)?;
        if id == self.target {
            self.found = Some((offset, Record::ObjectArray { len, elements: Vec::new() }));
            self.collecting = true;
        }
        Ok(())
    }
    fn object_array_elements(&mut self, ids: &[u8]) -> Result<()> {
        if self.collecting {
            if let Some((_, Record::ObjectArray { elements, .. })) = &mut self.found {
                let mut at = 0;
                while at + self.id_size <= ids.len() && elements.len() < MAX_ELEMENTS {
                    elements.push(be_id(ids, at, self.id_size));
                    at += self.id_size;
                }
            }
        }
        Ok(())
    }
    fn object_array_end(&mut self) -> Result<()> {
        if self.collecting {
            return Err(stop());
        }
        Ok(())
    }
    fn primitive_array(&mut self, id: u64, ty: u8, len: u32, has_data: bool, offset: u64) -> Result<()> {
        self.check(offset)?;
        if id == self.target {
            let data_offset = offset + 1 + self.id_size as u64 + 9;
            self.found = Some((offset, Record::PrimitiveArray { ty, len, data_offset, has_data }));
            return Err(stop());
        }
        Ok(())
    }
}

/// Reads the record of `obj` again from the dump.
fn read_record(a: &mut Analysis, obj: u32) -> Result<Option<(u64, Record)>> {
    let id = a.address(obj);
    let id_size = a.heap.index.header.id_size;
    let spans: Vec<_> = a.heap.index.locator.candidates(id).copied().collect();
    let Some(source) = a.source.take() else { return Ok(None) };
    let mut cursor = Cursor::with_window(source, 1 << 20);
    let mut result = Ok(None);
    for span in spans {
        if let Err(e) = cursor.seek(span.start) {
            result = Err(e);
            break;
        }
        let mut f = Finder { target: id, last_offset: span.end, id_size: id_size as usize, found: None, collecting: false };
        let r = walk_span(&mut cursor, id_size, span.segment_end, &mut f);
        if let Some(found) = f.found {
            result = Ok(Some(found));
            break;
        }
        match r {
            Err(e) if e.kind != ErrorKind::Cancelled => {
                result = Err(e);
                break;
            }
            _ => {}
        }
    }
    a.source = Some(cursor.into_source());
    result
}

fn read_primitive(a: &mut Analysis, ty: u8, len: u32, data_offset: u64, max: usize) -> Result<Vec<u8>> {
    let size = basic_type::primitive_size(ty).unwrap_or(1) as usize;
    let n = (len as usize).min(max) * size;
    let mut buf = vec![0u8; n];
    if let Some(src) = a.source.as_mut() {
        let got = src.read_at(data_offset, &mut buf)?;
        buf.truncate(got);
    }
    Ok(buf)
}

fn primitive_text(ty: u8, b: &[u8]) -> String {
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

/// Decodes a string's characters from its value array.
fn decode_text(ty: u8, bytes: &[u8], utf16_bytes: bool) -> String {
    let units: Vec<u16> = if ty == basic_type::CHAR {
        bytes.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect()
    } else if utf16_bytes {
        // JDK 9+ UTF-16 strings store chars in the platform's order (little-endian here).
        bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
    } else {
        bytes.iter().map(|&b| b as u16).collect()
    };
    char::decode_utf16(units).map(|r| r.unwrap_or('\u{fffd}')).collect()
}

/// Fields and values of `obj`, read back from the dump.
pub fn object_details(a: &mut Analysis, obj: u32) -> Result<ObjectDetails> {
    let id_size = a.heap.index.header.id_size as usize;
    let record = read_record(a, obj)?;
    let mut fields = Vec::new();
    let mut array_length = None;
    let mut text = None;
    let record_offset = record.as_ref().map(|(o, _)| *o);
    match record.map(|(_, r)| r) {
        Some(Record::Instance { class_id, fields: data }) => {
            let table = &a.heap.index.classes;
            let mut at = 0usize;
            let mut cur = a.heap.index.class_by_id.get(class_id);
            let mut steps = 0;
            let mut string_parts: (Option<u64>, Option<u8>) = (None, None);
            while let Some(c) = cur {
                let info = &table.classes[c as usize];
                for f in &info.fields {
                    let size = basic_type::value_size(f.ty, id_size as u32).unwrap_or(0) as usize;
                    if at + size > data.len() {
                        break;
                    }
                    let name = a.heap.index.strings.name(f.name_id);
                    if f.ty == basic_type::OBJECT {
                        let v = be_id(&data, at, id_size);
                        if name == "value" {
                            string_parts.0 = Some(v);
                        }
                        fields.push(reference_value(a, name, v, false));
                    } else {
                        if name == "coder" && f.ty == basic_type::BYTE {
                            string_parts.1 = Some(data[at]);
                        }
                        fields.push(FieldValue {
                            type_name: basic_type::primitive_name(f.ty).unwrap_or("?").into(),
                            value: primitive_text(f.ty, &data[at..at + size]),
                            name,
                            reference: None,
                            is_static: false,
                        });
                    }
                    at += size;
                }
                cur = info.super_index;
                steps += 1;
                if steps > table.classes.len() {
                    break;
                }
            }
            let is_string = a.class_name(a.class_of(obj)) == "java.lang.String";
            if let (true, Some(value)) = (is_string, string_parts.0) {
                if let Some(v) = a.object_at(value) {
                    if let Some((_, Record::PrimitiveArray { ty, len, data_offset, has_data: true })) = read_record(a, v)? {
                        let bytes = read_primitive(a, ty, len, data_offset, MAX_STRING_CHARS * 2)?;
                        let utf16 = string_parts.1 == Some(1);
                        let mut s = decode_text(ty, &bytes, utf16);
                        if s.chars().count() > MAX_STRING_CHARS {
                            s = s.chars().take(MAX_STRING_CHARS).collect::<String>() + "…";
                        }
                        text = Some(s);
                    }
                }
            }
        }
        Some(Record::ObjectArray { len, elements }) => {
            array_length = Some(len as u64);
            for (i, &e) in elements.iter().enumerate() {
                fields.push(reference_value(a, format!("[{i}]"), e, false));
            }
        }
        Some(Record::PrimitiveArray { ty, len, data_offset, has_data }) => {
            array_length = Some(len as u64);
            if has_data {
                let size = basic_type::primitive_size(ty).unwrap_or(1) as usize;
                let bytes = read_primitive(a, ty, len, data_offset, MAX_ELEMENTS)?;
                for (i, chunk) in bytes.chunks_exact(size).enumerate() {
                    fields.push(FieldValue {
                        name: format!("[{i}]"),
                        type_name: basic_type::primitive_name(ty).unwrap_or("?").into(),
                        value: primitive_text(ty, chunk),
                        reference: None,
                        is_static: false,
                    });
                }
                if ty == basic_type::CHAR || ty == basic_type::BYTE {
                    let more = read_primitive(a, ty, len, data_offset, MAX_STRING_CHARS)?;
                    text = Some(decode_text(ty, &more, false));
                }
            }
        }
        Some(Record::Class(c)) => {
            let loader = c.loader_id;
            fields.push(reference_value(a, "<super>".into(), c.super_id, true));
            fields.push(reference_value(a, "<classloader>".into(), loader, true));
            for s in &c.statics {
                let name = a.heap.index.strings.name(s.name_id);
                if s.ty == basic_type::OBJECT {
                    fields.push(reference_value(a, name, s.value, true));
                } else {
                    let size = basic_type::primitive_size(s.ty).unwrap_or(0) as usize;
                    let bytes = s.value.to_be_bytes();
                    fields.push(FieldValue {
                        name,
                        type_name: basic_type::primitive_name(s.ty).unwrap_or("?").into(),
                        value: primitive_text(s.ty, &bytes[8 - size..]),
                        reference: None,
                        is_static: true,
                    });
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
    let kinds = a.roots.binary_search_by_key(&obj, |&(o, _)| o).map(|i| a.roots[i].1).unwrap_or_default();
    Ok(ObjectDetails {
        object: object_ref(a, obj),
        loader: loader_label(a, a.class_represented_by(obj).unwrap_or(a.class_of(obj))),
        gc_root: kinds.iter().map(|k| root_name(k).to_string()).collect(),
        dominator: a.immediate_dominator(obj).flatten().map(|d| object_ref(a, d)),
        depth: depth + 1,
        record_offset,
        fields,
        array_length,
        text,
    })
}

/// Names of the ways `from` references `to`.
fn via(a: &mut Analysis, from: u32, to: u32) -> Result<Vec<String>> {
    let mut out = Vec::new();
    if a.class_of(from) != crate::graph::NO_CLASS && a.class_object(a.class_of(from)) == Some(to) {
        out.push("<class>".into());
    }
    if a.heap.roots.thread_locals.iter().any(|&(t, l)| t == from && l == to) {
        out.push("<local variable>".into());
    }
    let target = a.address(to);
    let details = object_details(a, from)?;
    for f in details.fields {
        if f.type_name == "object" && f.value == format!("0x{target:x}") {
            out.push(f.name);
        }
    }
    Ok(out)
}

/// A shortest reference path from a GC root to `obj` (root first), skipping references
/// held only by `Reference.referent` and the finalizer links when another path exists.
pub fn path_to_root(a: &mut Analysis, obj: u32) -> Result<Vec<PathStep>> {
    const NOT_SEEN: u32 = u32::MAX;
    const ROOT: u32 = u32::MAX - 1;
    let n = a.object_count();
    let mut path = Vec::new();
    for excludes in [true, false] {
        let mut parent = vec![NOT_SEEN; n];
        let mut queue = VecDeque::new();
        for &(r, _) in &a.roots {
            parent[r as usize] = ROOT;
            queue.push_back(r);
        }
        while let Some(u) = queue.pop_front() {
            if u == obj {
                break;
            }
            let skip = excludes && a.has_path_excluded_references(u);
            a.for_each_reference(u, |v| {
                if parent[v as usize] == NOT_SEEN && !(skip && a.is_path_excluded_reference(u, v)) {
                    parent[v as usize] = u;
                    queue.push_back(v);
                }
            });
        }
        if parent[obj as usize] != NOT_SEEN {
            let mut x = obj;
            loop {
                path.push(x);
                let p = parent[x as usize];
                if p == ROOT {
                    break;
                }
                x = p;
            }
            path.reverse();
            break;
        }
    }
    let mut steps = Vec::with_capacity(path.len());
    for (i, &x) in path.iter().enumerate() {
        let via = match path.get(i + 1) {
            Some(&next) => via(a, x, next)?,
            None => Vec::new(),
        };
        let kinds = a.roots.binary_search_by_key(&x, |&(o, _)| o).map(|k| a.roots[k].1).unwrap_or_default();
        steps.push(PathStep {
            object: object_ref(a, x),
            gc_root: if i == 0 { kinds.iter().map(|k| root_name(k).to_string()).collect() } else { Vec::new() },
            via,
        });
    }
    Ok(steps)
}

/// All query answer types, for the JSON Schema of the page's queries.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SessionTypes {
    pub children: Children,
    pub class_groups: Vec<ClassGroup>,
    pub histogram_groups: Vec<HistogramGroup>,
    pub referrers: Referrers,
    pub histogram_grouping: HistogramGrouping,
    pub details: ObjectDetails,
    pub path: Vec<PathStep>,
    pub instances: Instances,
}

/// The JSON Schema of the query answers, as committed at `schema/session.schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(SessionTypes);
    let mut s = serde_json::to_string_pretty(&schema).expect("schema serializes");
    s.push('\n');
    s
}
