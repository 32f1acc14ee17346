//! The OOM triage that opens the report, and the heap's composition.
//!
//! **Shape**: how many of the largest top-level dominators (each the root of what it alone
//! keeps alive) it takes to hold half the used heap: one ([`HeapShape::Dominant`]: one
//! dominant accumulation point), two to five ([`HeapShape::Few`]), more
//! ([`HeapShape::Spread`]).
//!
//! **One leak or many**: the leak suspects (MAT's, above 10% of the used heap) and the
//! distinct places they accumulate in (their accumulation points; a suspect without one is
//! a place of its own): none, one, or several.
//!
//! **Composition**: the kept objects by kind (instances, object arrays, primitive arrays,
//! class objects), by package and by class loader, with their shallow sizes; from the
//! histogram (one row per class), so it adds up to the used heap.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::Analysis;
use crate::model::format::{basis_points, format_bp, thousands};
use crate::model::names::package_of;
use crate::model::*;

/// Top-level dominators a "few" shape has at most.
pub const FEW: u64 = 5;

/// The triage of `report` (built from `a`).
pub fn triage(a: &Analysis, report: &Report) -> OomTriage {
    let used = report.overview.used_heap_bytes;
    let top = a.top_level();
    let largest = top.first().map_or(0, |&v| a.retained(v));
    let top5: u64 = top.iter().take(FEW as usize).map(|&v| a.retained(v)).sum();
    // How many of the largest hold half (all of them when they never do).
    let mut sum = 0u64;
    let mut for_half = top.len() as u64;
    for (i, &v) in top.iter().enumerate() {
        sum += a.retained(v);
        if used > 0 && sum * 2 >= used {
            for_half = i as u64 + 1;
            break;
        }
    }
    let shape = match for_half {
        1 => HeapShape::Dominant,
        n if (2..=FEW).contains(&n) && used > 0 => HeapShape::Few,
        _ => HeapShape::Spread,
    };
    let suspects = &report.leak_suspects.suspects;
    let places: BTreeSet<&str> = suspects
        .iter()
        .map(|s| s.accumulation_point.as_ref().map_or(s.object.address.as_str(), |p| p.address.as_str()))
        .collect();
    let suspects_bytes: u64 = suspects.iter().map(|s| s.retained_bytes).sum();
    let suspects_bp = basis_points(suspects_bytes, used).min(10_000);
    let verdict = match (suspects.len(), places.len()) {
        (0, _) => LeakVerdict::NoSuspect,
        (_, 1) => LeakVerdict::OneLeak,
        _ => LeakVerdict::SeveralLeaks,
    };
    let largest_bp = basis_points(largest, used);
    let top5_bp = basis_points(top5, used);
    let shape_text = match shape {
        HeapShape::Dominant => format!(
            "One dominant accumulation point: a single object keeps {} of the used heap alive.",
            format_bp(largest_bp)
        ),
        HeapShape::Few => format!(
            "A few accumulation points: {} objects keep half the used heap alive (the largest {}, the five largest {}).",
            thousands(for_half),
            format_bp(largest_bp),
            format_bp(top5_bp)
        ),
        HeapShape::Spread => format!(
            "Spread out: half the used heap takes {} of {} top-level dominators (the largest keeps {} alive, the five largest {}).",
            thousands(for_half),
            thousands(top.len() as u64),
            format_bp(largest_bp),
            format_bp(top5_bp)
        ),
    };
    let verdict_text = match verdict {
        LeakVerdict::NoSuspect => "No leak suspect: nothing retains more than 10% of the used heap. If the program ran \
                                   out of memory, its heap is too small for its load, or what grows is spread over many \
                                   objects (see Top Consumers)."
            .to_string(),
        LeakVerdict::OneLeak => format!(
            "One leak: {} accumulating in one place, retaining {} of the used heap.",
            if suspects.len() == 1 { "one suspect".to_string() } else { format!("{} suspects", suspects.len()) },
            format_bp(suspects_bp)
        ),
        LeakVerdict::SeveralLeaks => format!(
            "Several leaks: {} suspects accumulating in {} places, retaining {} of the used heap together.",
            suspects.len(),
            places.len(),
            format_bp(suspects_bp)
        ),
    };
    OomTriage {
        shape,
        verdict,
        largest_bp,
        top5_bp,
        dominators_for_half: for_half,
        top_level_dominators: top.len() as u64,
        suspects: suspects.len() as u64,
        accumulation_points: places.len() as u64,
        suspects_bp,
        shape_text,
        verdict_text,
    }
}

const PRIMITIVE_ARRAYS: [&str; 8] =
    ["boolean[]", "byte[]", "char[]", "short[]", "int[]", "long[]", "float[]", "double[]"];

/// The kind of the objects of a histogram row's class.
pub fn kind_of(class_name: &str) -> CompositionKind {
    if class_name == "java.lang.Class" {
        CompositionKind::ClassObjects
    } else if PRIMITIVE_ARRAYS.contains(&class_name) {
        CompositionKind::PrimitiveArrays
    } else if class_name.ends_with("[]") {
        CompositionKind::ObjectArrays
    } else {
        CompositionKind::Instances
    }
}

/// The composition of the report's kept objects (its histogram), the packages and
/// loaders cut at `detail.rows`.
pub fn composition(report: &Report, detail: &Detail) -> HeapComposition {
    let used = report.overview.used_heap_bytes;
    let order = [
        CompositionKind::Instances,
        CompositionKind::ObjectArrays,
        CompositionKind::PrimitiveArrays,
        CompositionKind::ClassObjects,
    ];
    let mut kinds: Vec<KindCount> =
        order.iter().map(|&kind| KindCount { kind, objects: 0, shallow_bytes: 0, shallow_bp: 0 }).collect();
    // name → (classes, objects, shallow)
    let mut packages: BTreeMap<&str, (u64, u64, u64)> = BTreeMap::new();
    let mut loaders: BTreeMap<&str, (u64, u64, u64)> = BTreeMap::new();
    for row in &report.histogram {
        let k = order.iter().position(|&k| k == kind_of(&row.class_name)).unwrap_or(0);
        kinds[k].objects += row.instances;
        kinds[k].shallow_bytes += row.shallow_bytes;
        let package = match package_of(&row.class_name) {
            "" => "<default package>",
            p => p,
        };
        for (map, key) in [(&mut packages, package), (&mut loaders, row.loader.as_str())] {
            let e = map.entry(key).or_default();
            e.0 += 1;
            e.1 += row.instances;
            e.2 += row.shallow_bytes;
        }
    }
    for k in &mut kinds {
        k.shallow_bp = basis_points(k.shallow_bytes, used);
    }
    let ranked = |map: BTreeMap<&str, (u64, u64, u64)>| -> (Vec<GroupCount>, u64) {
        let total = map.len() as u64;
        let mut v: Vec<GroupCount> = map
            .into_iter()
            .map(|(name, (classes, objects, shallow_bytes))| GroupCount {
                name: name.to_string(),
                classes,
                objects,
                shallow_bytes,
                shallow_bp: basis_points(shallow_bytes, used),
            })
            .collect();
        v.sort_by(|x, y| y.shallow_bytes.cmp(&x.shallow_bytes).then(x.name.cmp(&y.name)));
        v.truncate(detail.rows);
        (v, total)
    };
    let (packages, package_count) = ranked(packages);
    let (loaders, loader_count) = ranked(loaders);
    HeapComposition { kinds, packages, package_count, loaders, loader_count }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_class_name() {
        assert_eq!(kind_of("java.lang.Class"), CompositionKind::ClassObjects);
        assert_eq!(kind_of("byte[]"), CompositionKind::PrimitiveArrays);
        assert_eq!(kind_of("int[][]"), CompositionKind::ObjectArrays);
        assert_eq!(kind_of("java.lang.Object[]"), CompositionKind::ObjectArrays);
        assert_eq!(kind_of("java.lang.String"), CompositionKind::Instances);
    }
}
