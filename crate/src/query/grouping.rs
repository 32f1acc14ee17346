//! The histogram's classes taken together (by package or class loader) and one class's
//! instances.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::alloc::{try_filled, try_push};
use crate::analysis::Analysis;
use crate::analysis::{loader_label, object_ref};
use crate::error::Result;
use crate::model::names::package_of;
use crate::model::ObjectRef;

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

/// A page of a class's instances, largest retained first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Instances {
    pub class_name: String,
    pub total: u64,
    pub offset: u64,
    pub objects: Vec<ObjectRef>,
}

/// The histogram grouped by package or class loader, over the classes the histogram lists
/// (those whose class object is kept), largest retained first. One walk of the dominator
/// tree: linear in the objects.
pub fn histogram_groups(a: &Analysis, by: HistogramGrouping) -> Result<Vec<HistogramGroup>> {
    let classes = a.class_count();
    let mut ids: BTreeMap<String, u32> = BTreeMap::new();
    // Group of each class; classes without a row stay outside every group.
    let mut group_of = try_filled(classes, u32::MAX, "the class groups")?;
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
    let empty =
        HistogramGroup { name: String::new(), classes: 0, instances: 0, shallow_bytes: 0, retained_bytes_min: 0 };
    let mut groups = try_filled(ids.len(), empty, "the class groups")?;
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
    let mins = crate::retained::class_min_retained(&a.tree, |x| a.retained(x), group_of_object, groups.len())?;
    for (row, min) in groups.iter_mut().zip(mins) {
        row.retained_bytes_min = min;
    }
    groups.sort_by(|x, y| {
        y.retained_bytes_min
            .cmp(&x.retained_bytes_min)
            .then(y.shallow_bytes.cmp(&x.shallow_bytes))
            .then(x.name.cmp(&y.name))
    });
    Ok(groups)
}

/// Instances of class `class`, `limit` of them from `offset`, largest retained first.
/// Scans every object's class (linear, a few ms per million objects); the page asks once
/// per selected class, not per key press.
pub fn instances(a: &Analysis, class: u32, offset: usize, limit: usize) -> Result<Instances> {
    let mut all: Vec<u32> = Vec::new();
    for v in 0..a.object_count() as u32 {
        if a.class_of(v) == class && a.is_kept(v) {
            try_push(&mut all, v, "the instances of a class")?;
        }
    }
    let total = all.len();
    let want = offset.saturating_add(limit).min(total);
    let by_retained = |x: &u32, y: &u32| a.retained(*y).cmp(&a.retained(*x)).then(x.cmp(y));
    if want < total && want > 0 {
        all.select_nth_unstable_by(want - 1, by_retained);
        all.truncate(want);
    }
    all.sort_by(by_retained);
    let start = offset.min(all.len());
    Ok(Instances {
        class_name: a.class_name(class).to_string(),
        total: total as u64,
        offset: start as u64,
        objects: all[start..want.max(start)].iter().map(|&v| object_ref(a, v)).collect(),
    })
}
