//! Top-level dominators by class loader, as MAT groups them (Top Consumers' "Biggest
//! Top-Level Dominator Class Loaders" and the Top Components report), and MAT's Top
//! Components: each loader whose group retains at least 1% of the used heap, with what its
//! retained set is made of and the waste in it.
//!
//! The group of a top-level dominator: a class loader object is in its own loader's group;
//! a class object in the group of the loader of the class it stands for (its statics are
//! that class's data); any other object in the group of its class's loader.
//!
//! Cost: one depth-first walk of the dominator tree under each component's top-level
//! dominators (the components are disjoint: at most one walk of the whole tree), with a
//! shallow sum per class.

use std::collections::BTreeMap;

use crate::alloc::{try_filled, try_push};
use crate::analysis::{loader_label, loader_label_of, Analysis};
use crate::error::Result;
use crate::model::format::basis_points;
use crate::model::{ClassCount, Component, ComponentWaste, Detail};
use crate::waste::marks::Marks;

/// Components are listed from this share of the used heap, in percent (MAT's default).
pub const THRESHOLD_PERCENT: u64 = 1;

/// The loader group of top-level dominator `v` (`is_loader`: per class, whether it extends
/// `java.lang.ClassLoader`).
pub fn loader_group(a: &Analysis, v: u32, is_loader: &[bool]) -> String {
    if let Some(c) = a.class_represented_by(v) {
        return loader_label(a, c);
    }
    let c = a.class_of(v);
    if is_loader.get(c as usize).copied().unwrap_or(false) {
        return loader_label_of(a, a.address(v));
    }
    loader_label(a, c)
}

/// MAT's Top Components, largest first (ties by name); `marks` gives each its waste.
pub fn top_components(a: &Analysis, marks: Option<&Marks>, detail: &Detail) -> Result<Vec<Component>> {
    let used = a.used_heap;
    // MAT: total / 100 * percent, listed while not below it.
    let threshold = used / 100 * THRESHOLD_PERCENT;
    let is_loader = a.heap.index.classes.all_extending("java.lang.ClassLoader");
    let mut groups: BTreeMap<String, (u64, Vec<u32>)> = BTreeMap::new();
    for &v in a.top_level() {
        let g = groups.entry(loader_group(a, v, &is_loader)).or_default();
        g.0 += a.retained(v);
        try_push(&mut g.1, v, "the top components")?;
    }
    let mut groups: Vec<(String, (u64, Vec<u32>))> =
        groups.into_iter().filter(|(_, (retained, _))| *retained >= threshold && *retained > 0).collect();
    groups.sort_by(|x, y| y.1 .0.cmp(&x.1 .0).then(x.0.cmp(&y.0)));

    let marks = marks.filter(|m| m.available());
    let string_class =
        (0..a.class_count() as u32).filter(|&c| a.class_name(c) == "java.lang.String").collect::<Vec<_>>();
    let primitive_arrays: Vec<u32> = a.heap.index.primitive_array_class.iter().flatten().copied().collect();
    let mut shallow_by_class = try_filled(a.class_count(), (0u64, 0u64), "the top components' classes")?;
    let mut touched: Vec<u32> = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    let mut out = Vec::with_capacity(groups.len());
    for (name, (retained, tops)) in groups {
        let mut objects = 0u64;
        let mut waste = ComponentWaste::default();
        stack.clear();
        stack.extend(tops.iter().rev());
        while let Some(v) = stack.pop() {
            objects += 1;
            let c = a.class_of(v);
            if let Some(slot) = shallow_by_class.get_mut(c as usize) {
                if slot.0 == 0 {
                    try_push(&mut touched, c, "the top components' classes")?;
                }
                slot.0 += 1;
                slot.1 += a.shallow(v);
            }
            if marks.is_some_and(|m| m.has(v)) {
                if string_class.contains(&c) {
                    // The string and the value array it alone holds.
                    let own: u64 = a
                        .dominated(v)
                        .filter(|k| primitive_arrays.contains(&a.class_of(*k)))
                        .map(|k| a.shallow(k))
                        .sum();
                    waste.duplicate_strings += 1;
                    waste.duplicate_string_bytes += a.shallow(v) + own;
                } else if primitive_arrays.contains(&c) {
                    waste.duplicate_arrays += 1;
                    waste.duplicate_array_bytes += a.shallow(v);
                } else {
                    waste.empty_collections += 1;
                    waste.empty_collection_bytes += a.shallow(v);
                }
            }
            for k in a.dominated(v) {
                try_push(&mut stack, k, "the top components' walk")?;
            }
        }
        let mut classes: Vec<ClassCount> = touched
            .iter()
            .map(|&c| {
                let (objects, shallow_bytes) = shallow_by_class[c as usize];
                ClassCount { class_name: a.class_name(c).to_string(), objects, shallow_bytes }
            })
            .collect();
        for &c in &touched {
            shallow_by_class[c as usize] = (0, 0);
        }
        touched.clear();
        classes.sort_by(|x, y| {
            y.shallow_bytes.cmp(&x.shallow_bytes).then(x.class_name.cmp(&y.class_name)).then(y.objects.cmp(&x.objects))
        });
        classes.truncate(detail.rows);
        waste.wasted_bytes = waste.duplicate_string_bytes + waste.duplicate_array_bytes + waste.empty_collection_bytes;
        waste.wasted_bp = basis_points(waste.wasted_bytes, retained);
        out.push(Component {
            name,
            top_level_dominators: tops.len() as u64,
            retained_bytes: retained,
            retained_bp: basis_points(retained, used),
            objects,
            classes,
            waste: marks.map(|_| waste),
        });
    }
    Ok(out)
}
