//! The OOM triage that opens the report, and the heap's composition.
//!
//! **Shape**: how many of the largest top-level dominators (each the root of what it alone
//! keeps alive) it takes to hold half the used heap: one ([`HeapShape::Dominant`]: one
//! dominant accumulation point), two to five ([`HeapShape::Few`]), more
//! ([`HeapShape::Spread`]).
//!
//! **Where memory accumulates**: the leak suspects (MAT's, above 10% of the used heap) and the
//! distinct places they accumulate in (their accumulation points, linked structures read
//! as one; a group suspect without a common holder has none): none, one, or several. A
//! suspect that a running thread holds through its frames' local variables is no leak: its
//! memory is the program's working set ([`LeakVerdict::WorkingSet`] when every suspect is
//! one; otherwise the verdict counts the others and says so). A suspect is where memory
//! accumulates, not a verdict that it leaked (LeakCanary's reading, [`crate::leaks`], says
//! what leaked): the texts say "places", never "leaks".
//!
//! **Composition**: the kept objects by kind (instances, object arrays, primitive arrays,
//! class objects), by package and by class loader, with their shallow sizes; from the
//! histogram (one row per class), so it adds up to the used heap.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::Analysis;
use crate::model::format::{basis_points, format_bp, parse_address, thousands};
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
    // A suspect's place: its accumulation point as the report reads it (linked structures
    // as one; a group's common holder, MAT's); a group without one has no place.
    let place = |s: &Suspect| -> Option<String> {
        match (&s.structure, &s.accumulation_point) {
            (Some(st), _) => Some(st.point.address.clone()),
            (None, Some(ap)) => Some(ap.address.clone()),
            (None, None) => None,
        }
    };
    let places: BTreeSet<String> = suspects.iter().filter_map(place).collect();
    // What running frames hold (a working set), and what else the suspects hold.
    let working: Vec<&Suspect> = suspects.iter().filter(|s| s.frame.is_some()).collect();
    let leaking: Vec<&Suspect> = suspects.iter().filter(|s| s.frame.is_none()).collect();
    let leak_places: BTreeSet<String> = leaking.iter().filter_map(|s| place(s)).collect();
    let bytes = |list: &[&Suspect]| list.iter().map(|s| s.retained_bytes).sum::<u64>();
    let suspects_bytes: u64 = suspects.iter().map(|s| s.retained_bytes).sum();
    let suspects_bp = basis_points(suspects_bytes, used).min(10_000);
    // A suspect with no place of its own (a group held by no single object) is a leak
    // apart.
    let placeless = leaking.iter().filter(|s| place(s).is_none()).count();
    let verdict = match (suspects.len(), leaking.len(), leak_places.len() + placeless) {
        (0, _, _) => LeakVerdict::NoSuspect,
        (_, 0, _) => LeakVerdict::WorkingSet,
        (_, _, 0 | 1) => LeakVerdict::OneLeak,
        _ => LeakVerdict::SeveralLeaks,
    };
    let largest_bp = basis_points(largest, used);
    let top5_bp = basis_points(top5, used);
    // The largest top-level dominator, when a running thread holds it for its frames.
    let largest_thread = top
        .first()
        .and_then(|&v| working.iter().find(|s| parse_address(&s.object.address) == Some(a.address(v))))
        .and_then(|s| s.frame.as_ref());
    let shape_text = match (shape, largest_thread) {
        (HeapShape::Dominant, Some(f)) => format!(
            "One dominant holder: the running thread {} keeps {} of the used heap alive through its stack's local \
             variables.",
            f.thread_name.as_deref().unwrap_or(&f.thread),
            format_bp(largest_bp)
        ),
        (HeapShape::Dominant, None) => format!(
            "One dominant accumulation point: a single object keeps {} of the used heap alive.",
            format_bp(largest_bp)
        ),
        (HeapShape::Few, _) => format!(
            "A few accumulation points: {} objects keep half the used heap alive (the largest {}, the five largest {}).",
            thousands(for_half),
            format_bp(largest_bp),
            format_bp(top5_bp)
        ),
        (HeapShape::Spread, _) => format!(
            "Spread out: half the used heap takes {} of {} top-level dominators (the largest keeps {} alive, the five largest {}).",
            thousands(for_half),
            thousands(top.len() as u64),
            format_bp(largest_bp),
            format_bp(top5_bp)
        ),
    };
    let count = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{} {many}", thousands(n as u64))
        }
    };
    let frames = |list: &[&Suspect]| -> String {
        let named: Vec<String> = list.iter().filter_map(|s| s.frame.as_ref()).map(super::frames::held_in).collect();
        named.join("; ")
    };
    let working_text = || {
        format!(
            "a running frame's working set: {} holds {} of the used heap; the program needed more heap than -Xmx \
             allowed",
            frames(&working),
            format_bp(basis_points(bytes(&working), used))
        )
    };
    let mut verdict_text = match verdict {
        LeakVerdict::NoSuspect => "Nowhere in particular: no leak suspect, nothing retains more than 10% of the used heap. \
                                   If the program ran out of memory, its heap is too small for its load, or what grows is \
                                   spread over many objects (see Top Consumers)."
            .to_string(),
        LeakVerdict::WorkingSet => match working.as_slice() {
            // The answer itself: the frame, the structure, the count and the size.
            [one] if one.headline.is_some() => format!(
                "A running frame's working set: {}. The thread holds {} of the used heap: the program needed more \
                 heap than -Xmx allowed; nothing leaked.",
                one.headline.as_deref().unwrap_or_default(),
                format_bp(basis_points(one.retained_bytes, used))
            ),
            _ => {
                let mut t = working_text();
                t.push_str("; nothing leaked.");
                t[..1].make_ascii_uppercase();
                t
            }
        },
        LeakVerdict::OneLeak => format!(
            "One place: {} accumulating there, retaining {} of the used heap.",
            count(leaking.len(), "leak suspect", "leak suspects"),
            format_bp(basis_points(bytes(&leaking), used).min(10_000))
        ),
        // Decided below, from the cut.
        LeakVerdict::Incomplete => String::new(),
        LeakVerdict::SeveralLeaks => format!(
            "Several places: {} {}, retaining {} of the used heap together.",
            count(leaking.len(), "leak suspect", "leak suspects"),
            match (leak_places.len(), placeless) {
                (k, 0) => format!("accumulating in {}", count(k, "place", "places")),
                (0, _) => "each held by no single object".to_string(),
                (k, p) => format!(
                    "accumulating in {}, {} held by no single object",
                    count(k, "place", "places"),
                    count(p, "other", "others")
                ),
            },
            format_bp(basis_points(bytes(&leaking), used).min(10_000))
        ),
    };
    if !working.is_empty() && !leaking.is_empty() {
        verdict_text.push_str(&format!(" Besides, {}.", working_text()));
    }
    // A dump cut short: what the part read shows, and what the cut leaves unknown.
    let cut = report.incomplete.as_ref().map(|inc| {
        let unrooted = report.reachability.iter().find(|r| r.strength == StrengthName::Unreachable);
        CutUnknown {
            offset: inc.offset,
            unrooted_objects: unrooted.map_or(0, |r| r.objects),
            unrooted_bytes: unrooted.map_or(0, |r| r.shallow_bytes),
        }
    });
    let verdict = match &cut {
        Some(c) => {
            verdict_text = format!(
                "No verdict: the dump ends at byte {}, and the GC roots and references past the cut are unknown. {} \
                 {} ({} bytes, {} of the used heap) have no GC root in the part read: they are kept, since what held \
                 them may be past the cut. What the part read shows: {}",
                thousands(c.offset),
                if c.unrooted_objects == 0 { "No object" } else { "" },
                match c.unrooted_objects {
                    0 => String::new(),
                    1 => "1 object".to_string(),
                    n => format!("{} objects", thousands(n)),
                },
                thousands(c.unrooted_bytes),
                format_bp(basis_points(c.unrooted_bytes, used).min(10_000)),
                verdict_text
            )
            .replace("  ", " ");
            LeakVerdict::Incomplete
        }
        None => verdict,
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
        cut,
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
