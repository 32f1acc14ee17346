//! How one object references another: the ways `from` holds `to`, each named as a path
//! step names it (a field, an array element, a static field, the links MAT's graph adds).
//!
//! The links and a class object's static fields are known without reading the dump again
//! ([`links`]); an instance's fields ([`fields_holding`]) and an object array's elements
//! ([`elements_holding`]) come from its record, read back by the caller (the path
//! queries read one record at a time, the leak finder from the instances it read for a
//! whole trace in one walk).

use std::ops::ControlFlow;

use crate::analysis::Analysis;
use crate::error::Result;
use crate::graph::NO_CLASS;
use crate::readback::fields::array_elements;
use crate::readback::reader::FieldVal;
use crate::records::basic_type;
use crate::source::ByteSource;

/// One way an object references another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// The edge MAT adds from every object to its class object.
    Class,
    /// A stack slot of the thread (Java frame or JNI local).
    Local,
    /// The strength-aware reading's virtual reference from a `ViewGroup` to a child view
    /// it owns.
    ChildView,
    /// A class object's super class.
    Super,
    /// A class object's class loader (the bootstrap loader is the object at 0x0).
    Loader,
    /// Static field `index` of class `class` (the one the class object stands for).
    Static { class: u32, index: u32, name_id: u64 },
    /// An instance field declared by `class`; `position` counts the instance's reference
    /// fields before it (its own class's first, then each super class's).
    Field { class: u32, name_id: u64, position: u32 },
    /// An object array's element.
    Element(u64),
}

impl Via {
    /// The step's name as a path shows it: `<class>`, `<local variable>`, the field's
    /// name, `[i]`.
    pub fn name(self, a: &Analysis) -> String {
        match self {
            Via::Class => "<class>".into(),
            Via::Local => "<local variable>".into(),
            Via::ChildView => "<child view>".into(),
            Via::Super => "<super>".into(),
            Via::Loader => "<classloader>".into(),
            Via::Static { class, name_id, .. } | Via::Field { class, name_id, .. } => {
                a.heap.index.field_name(Some(class), name_id)
            }
            Via::Element(i) => format!("[{i}]"),
        }
    }
}

/// The ways `from` references `to` that need no record read back, in this order: its
/// class object, a stack slot, an owned child view; for a class object its super class,
/// its loader and its static fields.
pub fn links(a: &Analysis, from: u32, to: u32) -> Vec<Via> {
    let mut out = Vec::new();
    let class = a.class_of(from);
    if class != NO_CLASS && a.class_object(class) == Some(to) {
        out.push(Via::Class);
    }
    if a.heap.roots.thread_locals.iter().any(|&(t, l)| t == from && l == to) {
        out.push(Via::Local);
    }
    if a.owners.virtual_children(from).iter().any(|&(_, c)| c == to) {
        out.push(Via::ChildView);
    }
    if let Some(c) = a.class_represented_by(from) {
        let info = a.heap.class(c);
        let target = a.address(to);
        if info.super_id == target {
            out.push(Via::Super);
        }
        // MAT links a class to its loader; the bootstrap loader is the object 0x0.
        let loader = if a.object_at(info.loader_id).is_some() { info.loader_id } else { 0 };
        if loader == target {
            out.push(Via::Loader);
        }
        for (index, s) in info.statics.iter().enumerate() {
            if s.ty == basic_type::OBJECT && s.value == target {
                out.push(Via::Static { class: c, index: index as u32, name_id: s.name_id });
            }
        }
    }
    out
}

/// The instance fields holding the object at address `target`, from the instance's field
/// values `(declaring class, name string, value)` in record order.
pub fn fields_holding(fields: impl IntoIterator<Item = (u32, u64, FieldVal)>, target: u64) -> Vec<Via> {
    let mut out = Vec::new();
    let mut position = 0u32;
    for (class, name_id, value) in fields {
        if let FieldVal::Ref(id) = value {
            if id == target {
                out.push(Via::Field { class, name_id, position });
            }
            position += 1;
        }
    }
    out
}

/// The first `max` elements holding `target` of the object array of `len` identifiers at
/// byte `elements_at` of the dump (see [`crate::readback::locate::RecordHead::ObjectArray`]).
pub fn elements_holding(
    source: &mut dyn ByteSource,
    elements_at: u64,
    len: u32,
    id_size: u32,
    target: u64,
    max: usize,
) -> Result<Vec<Via>> {
    let mut out = Vec::new();
    if max == 0 {
        return Ok(out);
    }
    array_elements(source, elements_at, len, id_size, 0, |i, id| {
        if id == target {
            out.push(Via::Element(i));
        }
        if out.len() >= max {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    Ok(out)
}
