//! Objects read back from the dump in batches, decoded enough for values and entries.
//!
//! A [`Reader`] keeps what it read (per question, never across questions) and reads the
//! objects asked for together: one forward walk over the parts of the dump that hold
//! them ([`super::locate::records`]), so a HashMap's 300 nodes cost one walk, not 300
//! seeks into a gzip stream. Every reader has a budget of records; past it, objects are
//! left unread and the answer says it stopped.

use std::collections::HashMap;
use std::ops::ControlFlow;

use super::fields::{array_elements, instance_fields, Value};
use super::locate::{records_each, RecordHead};
use super::object::field_chain;
use crate::analysis::Analysis;
use crate::error::Result;
use crate::records::basic_type;

/// Bytes of a primitive array's data read with its record (a string's first characters),
/// unless more are asked for ([`Reader::want_data`]).
pub const MAX_DATA: usize = 4096;

/// An instance field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldVal {
    /// A reference (0 is null).
    Ref(u64),
    /// A primitive: its type and big-endian bytes (the first `primitive_size` count).
    Prim(u8, [u8; 8]),
}

impl FieldVal {
    /// The primitive's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            FieldVal::Prim(ty, b) => &b[..basic_type::primitive_size(*ty).unwrap_or(0) as usize],
            FieldVal::Ref(_) => &[],
        }
    }

    /// An integral primitive's value (boolean, char, byte, short, int, long).
    pub fn int(&self) -> Option<i64> {
        let FieldVal::Prim(ty, b) = *self else { return None };
        Some(match ty {
            basic_type::BOOLEAN => b[0] as i64,
            basic_type::BYTE => b[0] as i8 as i64,
            basic_type::CHAR => u16::from_be_bytes([b[0], b[1]]) as i64,
            basic_type::SHORT => i16::from_be_bytes([b[0], b[1]]) as i64,
            basic_type::INT => i32::from_be_bytes([b[0], b[1], b[2], b[3]]) as i64,
            basic_type::LONG => i64::from_be_bytes(b),
            _ => return None,
        })
    }
}

impl From<Value<'_>> for FieldVal {
    /// A decoded field value (a primitive keeps its first 8 bytes).
    fn from(v: Value<'_>) -> FieldVal {
        match v {
            Value::Reference(id) => FieldVal::Ref(id),
            Value::Primitive { elem_type, bytes } => {
                let mut b = [0u8; 8];
                let n = bytes.len().min(8);
                b[..n].copy_from_slice(&bytes[..n]);
                FieldVal::Prim(elem_type, b)
            }
        }
    }
}

/// An instance's fields by name (its own class's first, then each super class's).
#[derive(Debug, Clone, Default)]
pub struct Instance {
    pub class: Option<u32>,
    pub fields: Vec<(String, FieldVal)>,
}

impl Instance {
    /// The field `name` declared lowest in the class chain.
    pub fn get(&self, name: &str) -> Option<FieldVal> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// Whether the instance has a field `name` holding a reference.
    pub fn has_ref(&self, name: &str) -> bool {
        matches!(self.get(name), Some(FieldVal::Ref(_)))
    }

    /// The non-null reference held by field `name`.
    pub fn reference(&self, name: &str) -> Option<u64> {
        match self.get(name) {
            Some(FieldVal::Ref(id)) if id != 0 => Some(id),
            _ => None,
        }
    }

    /// The integral value of field `name`.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(|v| v.int())
    }
}

/// One object read back.
#[derive(Debug, Clone)]
pub enum Obj {
    Instance(Instance),
    ObjectArray {
        len: u32,
        elements_at: u64,
    },
    /// A primitive array with its first bytes ([`MAX_DATA`], or as many as asked for).
    PrimitiveArray {
        ty: u8,
        len: u32,
        data: Vec<u8>,
        has_data: bool,
    },
    Class,
}

/// Objects read back during one question.
pub struct Reader {
    cache: HashMap<u64, Option<Obj>>,
    /// Bytes asked for of primitive arrays, beyond [`MAX_DATA`] (a String's window far
    /// into a shared `char[]`).
    data_wanted: HashMap<u64, usize>,
    /// Records that may still be read.
    budget: usize,
    /// Whether an object was left unread because the budget ran out.
    pub exhausted: bool,
}

impl Reader {
    pub fn new(budget: usize) -> Reader {
        Reader { cache: HashMap::new(), data_wanted: HashMap::new(), budget, exhausted: false }
    }

    /// Asks for the first `bytes` bytes of the primitive array at `id` when it is read
    /// (again, if it was read with fewer).
    pub fn want_data(&mut self, id: u64, bytes: usize) {
        let w = self.data_wanted.entry(id).or_insert(0);
        *w = (*w).max(bytes);
    }

    /// Bytes of the array at `id` asked for (at least [`MAX_DATA`]).
    pub fn wanted(&self, id: u64) -> usize {
        self.data_wanted.get(&id).copied().unwrap_or(0).max(MAX_DATA)
    }

    /// Whether `id` was read, with as many bytes as asked for (or all of them).
    pub fn ready(&self, id: u64) -> bool {
        match self.cache.get(&id) {
            None => false,
            Some(Some(Obj::PrimitiveArray { data, .. })) => !self.short(id, data),
            Some(_) => true,
        }
    }

    /// Whether the array at `id`, read with `data`, holds fewer bytes than asked for
    /// (and fewer than it has).
    fn short(&self, id: u64, data: &[u8]) -> bool {
        let Some(Obj::PrimitiveArray { ty, len, .. }) = self.get(id) else { return false };
        let all = *len as usize * basic_type::primitive_size(*ty).unwrap_or(1) as usize;
        data.len() < self.wanted(id).min(all)
    }

    /// The object at `id`, once read (None: not read, not an object, or no record).
    pub fn get(&self, id: u64) -> Option<&Obj> {
        self.cache.get(&id).and_then(|o| o.as_ref())
    }

    /// Whether `id` was read (or found to have no record).
    pub fn has(&self, id: u64) -> bool {
        self.cache.contains_key(&id)
    }

    /// The instance at `id`, once read.
    pub fn instance(&self, id: u64) -> Option<&Instance> {
        match self.get(id) {
            Some(Obj::Instance(i)) => Some(i),
            _ => None,
        }
    }

    /// Reads the objects `ids` not read yet, all in one walk (within the budget).
    pub fn fetch(&mut self, a: &mut Analysis, ids: impl IntoIterator<Item = u64>) -> Result<()> {
        let mut want: Vec<u64> = ids.into_iter().filter(|&id| id != 0 && !self.ready(id)).collect();
        want.sort_unstable();
        want.dedup();
        // Objects of the dump only (a dangling reference has no record to look for).
        want.retain(|&id| {
            let known = a.object_at(id).is_some();
            if !known {
                self.cache.insert(id, None);
            }
            known
        });
        if want.len() > self.budget {
            want.truncate(self.budget);
            self.exhausted = true;
        }
        if want.is_empty() {
            return Ok(());
        }
        self.budget -= want.len();
        let Some(source) = a.source.take() else {
            for id in want {
                self.cache.insert(id, None);
            }
            return Ok(());
        };
        let limits: Vec<usize> = want.iter().map(|&id| self.wanted(id)).collect();
        let (source, found) = records_each(&a.heap.index, source, &want, &limits);
        a.source = Some(source);
        for (id, record) in want.into_iter().zip(found?) {
            let obj = record.map(|r| match r.head {
                RecordHead::Instance { class_id, fields } => Obj::Instance(decode(a, class_id, &fields)),
                RecordHead::ObjectArray { len, elements_at, .. } => Obj::ObjectArray { len, elements_at },
                RecordHead::PrimitiveArray { elem_type, len, has_data, .. } => {
                    Obj::PrimitiveArray { ty: elem_type, len, data: r.data, has_data }
                }
                RecordHead::Class(_) => Obj::Class,
            });
            self.cache.insert(id, obj);
        }
        Ok(())
    }

    /// The elements `from..` of the object array at `id` (read), at most `max`, through
    /// `visit(index, id)`, which may stop early.
    pub fn elements(
        &self,
        a: &mut Analysis,
        id: u64,
        from: u64,
        max: u64,
        mut visit: impl FnMut(u64, u64) -> ControlFlow<()>,
    ) -> Result<()> {
        let Some(&Obj::ObjectArray { len, elements_at }) = self.get(id) else { return Ok(()) };
        let id_size = a.heap.index.header.id_size;
        let Some(source) = a.source.as_deref_mut() else { return Ok(()) };
        let end = from.saturating_add(max);
        array_elements(source, elements_at, len, id_size, from, |i, e| {
            if i >= end {
                ControlFlow::Break(())
            } else {
                visit(i, e)
            }
        })
    }
}

fn decode(a: &Analysis, class_id: u64, data: &[u8]) -> Instance {
    let class = a.heap.index.class_by_id.get(class_id);
    let id_size = a.heap.index.header.id_size;
    let mut raw = Vec::new();
    instance_fields(data, field_chain(a, class), id_size, |f| {
        raw.push((f.depth, f.decl.name_id, FieldVal::from(f.value)));
        ControlFlow::Continue(())
    });
    let fields = raw
        .into_iter()
        .map(|(depth, name_id, v)| (a.heap.index.field_name(a.heap.index.declaring_class(class, depth), name_id), v))
        .collect();
    Instance { class, fields }
}

/// Whether class `class` is `name` or a subclass of it.
pub fn is_a(a: &Analysis, class: Option<u32>, name: &str) -> bool {
    class_chain(a, class).any(|n| n == name)
}

/// The names of class `class` and its super classes, lowest first.
pub fn class_chain(a: &Analysis, class: Option<u32>) -> impl Iterator<Item = &str> + '_ {
    a.heap.index.classes.chain(class).map(|c| a.class_name(c))
}
