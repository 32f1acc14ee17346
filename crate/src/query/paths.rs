//! A reference path from a GC root to an object, with the name of every step read from
//! the records (field names, array indices), however long the arrays on it are.

use std::ops::ControlFlow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::{object_ref, Analysis};
use crate::error::Result;
use crate::model::{ObjectRef, PathRun};
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
    /// How this object (a run's `last`) references the next step: field names,
    /// `[index]`, `<class>`…
    pub via: Vec<String>,
    /// When the step stands for a run of the path: objects of one class in a row, each
    /// holding the next through one field (a linked structure read as one), from
    /// `object` to `run.last`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<PathRun>,
}

/// Objects of one class in a row that a path reads as one step (see [`runs`]).
pub const MIN_RUN: usize = 3;

/// A run of a path: `len` objects from `start`, each referencing the next through `field`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub start: usize,
    pub len: usize,
    pub field: String,
}

/// The steps of a path of `len` objects with its `runs` folded: (first, last, the run's
/// field) of each step, a run one step, every other object a step of its own.
pub fn folded_steps(runs: &[Run], len: usize) -> Vec<(usize, usize, Option<String>)> {
    let mut folded = Vec::with_capacity(len);
    let mut r = runs.iter().peekable();
    let mut i = 0;
    while i < len {
        match r.next_if(|run| run.start == i) {
            Some(run) => {
                folded.push((i, run.start + run.len - 1, Some(run.field.clone())));
                i = run.start + run.len;
            }
            None => {
                folded.push((i, i, None));
                i += 1;
            }
        }
    }
    folded
}

/// The runs of `path` (a linked structure on the way: at least [`MIN_RUN`] instances of
/// one class in a row, the first and the last of their links through the same one field,
/// read from two records), never including the path's first or last object, and, with
/// `marks`, split where the marks change.
pub fn runs(a: &mut Analysis, path: &[u32], marks: Option<&[bool]>) -> Result<Vec<Run>> {
    let mut out = Vec::new();
    if path.len() < MIN_RUN + 2 {
        return Ok(out);
    }
    let same = |a: &Analysis, x: u32, y: u32| {
        a.class_of(x) == a.class_of(y)
            && a.class_represented_by(x).is_none()
            && !a.class_name(a.class_of(x)).ends_with("[]")
    };
    let mark = |i: usize| marks.is_some_and(|m| m[i]);
    let one_field = |a: &mut Analysis, x: u32, y: u32| -> Result<Option<String>> {
        let mut plain = via(a, x, y)?.into_iter().filter(|f| !f.starts_with('<') && !f.starts_with('['));
        Ok(match (plain.next(), plain.next()) {
            (Some(f), None) => Some(f),
            _ => None,
        })
    };
    let last = path.len() - 1;
    let mut i = 1;
    while i < last {
        let mut j = i + 1;
        while j < last && same(a, path[i], path[j]) && mark(j) == mark(i) {
            j += 1;
        }
        let len = j - i;
        if len >= MIN_RUN {
            let first = one_field(a, path[i], path[i + 1])?;
            let end = one_field(a, path[j - 2], path[j - 1])?;
            if let (Some(f), Some(g)) = (first, end) {
                if f == g {
                    out.push(Run { start: i, len, field: f });
                }
            }
        }
        i = j;
    }
    Ok(out)
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
/// held only by `Reference.referent` and the finalizer links when another path exists;
/// a linked structure on the way is one step (see [`runs`]).
pub fn path_to_root(a: &mut Analysis, obj: u32) -> Result<Vec<PathStep>> {
    let path = shortest_path(a, obj)?;
    let runs = runs(a, &path, None)?;
    let mut steps = Vec::with_capacity(path.len());
    let mut i = 0;
    let mut r = runs.iter().peekable();
    while i < path.len() {
        let run = r.next_if(|run| run.start == i);
        let end = run.map_or(i, |run| run.start + run.len - 1);
        let via = match path.get(end + 1) {
            Some(&next) => via(a, path[end], next)?,
            None => Vec::new(),
        };
        steps.push(PathStep {
            object: object_ref(a, path[i]),
            gc_root: if i == 0 { root_kinds(a, path[i]) } else { Vec::new() },
            via,
            run: run.map(|run| PathRun {
                nodes: run.len as u64,
                field: run.field.clone(),
                last: object_ref(a, path[end]),
            }),
        });
        i = end + 1;
    }
    Ok(steps)
}
