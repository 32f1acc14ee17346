//! What a report needs from the dump for a comparison, added when it is built from a
//! dump (and saved with it, so a saved report compares as well as the dump):
//! - each single suspect's reference path from a GC root, as classes and field names
//!   (array indexes become `[]`): addresses move between dumps, paths mostly do not;
//! - each accumulation point's element count when it is an array (its length) or a
//!   collection (its `size`-like field; a `HashSet` through its backing map);
//! - the accumulation points of the [`GROWTH_POINTS`] largest top-level dominators (the
//!   suspects' dominator walk) with their element counts;
//! - beyond comparisons: each single suspect's root path (the same search's path, see
//!   [`super::why_alive`]) and the dump's system properties ([`crate::values::properties`]).
//!
//! Cost: one breadth-first search over the graph per single suspect (at most 9: each
//! retains over 10% of the heap), plus reading back a few records per path step and one
//! record per accumulation point; the dominator walks are at most 1,000 steps each; paths
//! longer than [`MAX_PATH`] keep their first and last [`MAX_PATH`]/2 steps, so the dump
//! is read for at most that many steps.

use super::build::{BuildOptions, Sections, SourceInfo};
use super::suspects::single_accumulation_point;
use crate::analysis::{object_ref, Analysis};
use crate::error::Result;
use crate::model::format::parse_address;
use crate::model::{Detail, GrowthPoint, PathKey, Report, SuspectKind};
use crate::query::{self, paths};
use crate::search::levels::shortest_path;
use crate::values::elements::element_count;

/// Top-level dominators whose accumulation point a report keeps.
pub const GROWTH_POINTS: usize = 10;

/// Steps of a reference path kept in a report.
pub const MAX_PATH: usize = 32;

fn label(a: &Analysis, obj: u32) -> String {
    match a.class_represented_by(obj) {
        Some(c) => format!("class {}", a.class_name(c)),
        None => a.class_name(a.class_of(obj)).to_string(),
    }
}

/// A reference path's steps (root first) as [`PathKey`]s, at most [`MAX_PATH`] of them.
fn path_key(a: &mut Analysis, path: &[u32]) -> Result<Vec<PathKey>> {
    let mut path = path.to_vec();
    if path.len() > MAX_PATH {
        path.drain(MAX_PATH / 2..path.len() - MAX_PATH / 2);
    }
    let mut out = Vec::with_capacity(path.len());
    for (i, &x) in path.iter().enumerate() {
        let via = match path.get(i + 1) {
            Some(&next) => paths::via(a, x, next)?
                .into_iter()
                .map(|f| if f.starts_with('[') { "[]".to_string() } else { f })
                .collect(),
            None => Vec::new(),
        };
        out.push(PathKey { class_name: label(a, x), via });
    }
    Ok(out)
}

/// Adds the reference paths and element counts to a report built from `a`, and what else
/// needs the dump read again: each single suspect's root path (within `detail`'s cap), the
/// system properties.
pub fn annotate(report: &mut Report, a: &mut Analysis, detail: &Detail) -> Result<()> {
    for s in &mut report.leak_suspects.suspects {
        if s.kind == SuspectKind::SingleObject {
            if let Some(obj) = parse_address(&s.object.address).and_then(|x| query::find(a, x)) {
                let path = shortest_path(a, obj)?;
                s.reference_path = Some(path_key(a, &path)?);
                s.root_path = super::why_alive::root_path(a, &path, detail)?;
            }
        }
        if let Some(ap) =
            s.accumulation_point.as_ref().and_then(|p| parse_address(&p.address)).and_then(|x| query::find(a, x))
        {
            s.accumulation_point_elements = element_count(a, ap)?;
        }
    }
    report.system_properties = crate::values::properties::system_properties(a)?;
    report.growth_points.clear();
    for top in report.top_dominators.iter().take(GROWTH_POINTS) {
        let Some(obj) = parse_address(&top.address).and_then(|x| query::find(a, x)) else { continue };
        if let (Some(ap), _) = single_accumulation_point(a, obj) {
            let elements = element_count(a, ap)?;
            report.growth_points.push(GrowthPoint {
                address: top.address.clone(),
                accumulation_point: object_ref(a, ap),
                elements,
                held_in: None,
            });
        }
    }
    Ok(())
}

/// The report of `a` as `heapscope analyze` writes it: built, then annotated.
pub fn annotated_report(a: &mut Analysis, sections: &Sections, info: &SourceInfo) -> Result<Report> {
    annotated_report_with(a, sections, info, &BuildOptions::default())
}

/// [`annotated_report`] with `options`.
pub fn annotated_report_with(
    a: &mut Analysis,
    sections: &Sections,
    info: &SourceInfo,
    options: &BuildOptions,
) -> Result<Report> {
    let mut report = super::build_with(a, sections, info, options);
    annotate(&mut report, a, &options.detail)?;
    super::findings::annotate(&mut report, a)?;
    // The triage tells the suspects' story as the dump read again tells it.
    report.oom_triage = Some(super::triage::triage(a, &report));
    Ok(report)
}
