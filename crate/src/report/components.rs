//! Top-level dominators by class loader, as MAT groups them (Top Consumers' "Biggest
//! Top-Level Dominator Class Loaders" and the Top Components report), and MAT's Top
//! Components: each loader whose group retains at least 1% of the used heap, with what its
//! retained set is made of and the waste in it.
//!
//! The group of a top-level dominator: a class loader object is in its own loader's group;
//! a class object in the group of the loader of the class it stands for (its statics are
//! that class's data); any other object in the group of its class's loader.
//!
//! Cost: none per object here: the retained-size walk counted each group's classes and
//! waste ([`crate::analysis::tally`]).

use crate::analysis::tally::LoaderGroup;
use crate::analysis::{loader_label_of, Analysis};
use crate::model::format::basis_points;
use crate::model::{ClassCount, Component, ComponentWaste, Detail};

/// Components are listed from this share of the used heap, in percent (MAT's default).
pub const THRESHOLD_PERCENT: u64 = 1;

/// The label of a loader group (see [`crate::analysis::tally`]): `<system class loader>`
/// or `ClassName @ 0x…`.
pub fn group_label(a: &Analysis, g: &LoaderGroup) -> String {
    if g.loader == u64::MAX {
        String::new()
    } else {
        loader_label_of(a, g.loader)
    }
}

/// MAT's Top Components, largest first (ties by name), each with its waste when the
/// waste report marked its duplicates: from the loader groups the retained-size walk
/// counted ([`crate::analysis::tally`]).
pub fn top_components(a: &Analysis, detail: &Detail) -> Vec<Component> {
    let used = a.used_heap;
    // MAT: total / 100 * percent, listed while not below it.
    let threshold = used / 100 * THRESHOLD_PERCENT;
    let groups = &a.loader_groups;
    let mut listed: Vec<(String, &LoaderGroup)> = groups
        .groups
        .iter()
        .filter(|g| g.retained >= threshold && g.retained > 0)
        .map(|g| (group_label(a, g), g))
        .collect();
    listed.sort_by(|x, y| y.1.retained.cmp(&x.1.retained).then(x.0.cmp(&y.0)));

    let is_string = |c: u32| a.class_name(c) == "java.lang.String";
    let is_array = |c: u32| a.heap.index.primitive_array_class.contains(&Some(c));
    listed
        .into_iter()
        .map(|(name, g)| {
            let mut waste = ComponentWaste::default();
            for &(c, t) in &g.classes {
                if t.marked == 0 {
                    continue;
                }
                if is_string(c) {
                    // The strings and the value arrays they alone hold.
                    waste.duplicate_strings += t.marked;
                    waste.duplicate_string_bytes += t.marked_shallow + t.marked_arrays;
                } else if is_array(c) {
                    waste.duplicate_arrays += t.marked;
                    waste.duplicate_array_bytes += t.marked_shallow;
                } else {
                    waste.empty_collections += t.marked;
                    waste.empty_collection_bytes += t.marked_shallow;
                }
            }
            let mut classes: Vec<ClassCount> = g
                .classes
                .iter()
                .map(|&(c, t)| ClassCount {
                    class_name: a.class_name(c).to_string(),
                    objects: t.objects,
                    shallow_bytes: t.shallow,
                })
                .collect();
            classes.sort_by(|x, y| {
                y.shallow_bytes
                    .cmp(&x.shallow_bytes)
                    .then(x.class_name.cmp(&y.class_name))
                    .then(y.objects.cmp(&x.objects))
            });
            classes.truncate(detail.rows);
            waste.wasted_bytes =
                waste.duplicate_string_bytes + waste.duplicate_array_bytes + waste.empty_collection_bytes;
            waste.wasted_bp = basis_points(waste.wasted_bytes, g.retained);
            Component {
                name,
                top_level_dominators: g.top_level,
                retained_bytes: g.retained,
                retained_bp: basis_points(g.retained, used),
                objects: g.objects,
                classes,
                waste: groups.marked.then_some(waste),
            }
        })
        .collect()
}
