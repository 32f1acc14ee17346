//! A reference path from a GC root to an object, with the name of every step read from
//! the records (field names, array indices), however long the arrays on it are.

use std::ops::ControlFlow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::{object_ref, Analysis};
use crate::error::Result;
use crate::model::ObjectRef;
use crate::readback::fields::instance_fields;
use crate::readback::locate::RecordHead;
use crate::readback::object::{field_chain, read_record, root_kinds};
use crate::readback::reader::FieldVal;
use crate::search::levels::shortest_path;
use crate::search::via::{elements_holding, fields_holding, links};

/// One step of a reference path from a GC root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PathStep {
    pub object: ObjectRef,
    /// GC root kinds, for the first step.
    pub gc_root: Vec<String>,
    /// How this object references the next step: field names, `[index]`, `<class>`…
    pub via: Vec<String>,
}

/// Names given at most per step (an array can hold one object in many slots).
const MAX_NAMES: usize = 20;

/// Names of the ways `from` references `to` (see [`crate::search::via`]), the fields and
/// elements read from `from`'s record.
pub fn via(a: &mut Analysis, from: u32, to: u32) -> Result<Vec<String>> {
    let mut ways = links(a, from, to);
    if a.class_represented_by(from).is_some() {
        // A class object's references are all links.
        return Ok(ways.into_iter().map(|w| w.name(a)).collect());
    }
    let target = a.address(to);
    let id_size = a.heap.index.header.id_size;
    match read_record(a, from)?.map(|r| r.head) {
        Some(RecordHead::Instance { class_id, fields }) => {
            let class = a.heap.index.class_by_id.get(class_id);
            let mut values = Vec::new();
            instance_fields(&fields, field_chain(a, class), id_size, |f| {
                if let Some(declared_by) = a.heap.index.declaring_class(class, f.depth) {
                    values.push((declared_by, f.decl.name_id, FieldVal::from(f.value)));
                }
                ControlFlow::Continue(())
            });
            ways.extend(fields_holding(values, target));
        }
        Some(RecordHead::ObjectArray { len, elements_at, .. }) => {
            let max = MAX_NAMES.saturating_sub(ways.len());
            if let Some(source) = a.source.as_deref_mut() {
                ways.extend(elements_holding(source, elements_at, len, id_size, target, max)?);
            }
        }
        Some(RecordHead::Class(_) | RecordHead::PrimitiveArray { .. }) | None => {}
    }
    Ok(ways.into_iter().map(|w| w.name(a)).collect())
}

/// A shortest reference path from a GC root to `obj` (root first), skipping references
/// held only by `Reference.referent` and the finalizer links when another path exists.
pub fn path_to_root(a: &mut Analysis, obj: u32) -> Result<Vec<PathStep>> {
    let path = shortest_path(a, obj)?;
    let mut steps = Vec::with_capacity(path.len());
    for (i, &x) in path.iter().enumerate() {
        let via = match path.get(i + 1) {
            Some(&next) => via(a, x, next)?,
            None => Vec::new(),
        };
        steps.push(PathStep {
            object: object_ref(a, x),
            gc_root: if i == 0 { root_kinds(a, x) } else { Vec::new() },
            via,
        });
    }
    Ok(steps)
}
