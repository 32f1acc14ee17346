//! Comparing two heap dumps: what grew between a *baseline* and the *current* dump.
//!
//! Everything works from two [`Report`]s, so a dump and the JSON report saved from it
//! (`heapscope analyze --format json`) are interchangeable inputs and give the same
//! comparison by construction. What the class-level comparison needs is all in a
//! report; the dump-only extras (a single suspect's reference path from its GC root, the
//! element count of an accumulation point) are added to a report by [`crate::report::annotate`]
//! when it is built from a dump, and saved with it.
//!
//! Terms:
//! - a *class row* is a class name plus its loader's [stable name](loaders): the same
//!   name in two loaders is two rows; a row on one side only is `new` or `gone`; a hidden
//!   class (a lambda's) or a proxy is named without the address or counter that changes
//!   from run to run ([`hidden`]);
//! - *totals* are the overview's counts on both sides with their deltas;
//! - *leaders* and *suspects* are described in [`leaders`].
//!
//! Cost: linear in the classes of both sides (with ordered maps: n log n), no object
//! data at all; comparing never needs either dump's graph.

pub mod document;
pub mod hidden;
pub mod leaders;
pub mod loaders;
pub mod model;

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::error::Error;
use crate::model::{HistogramRow, Report};
use model::*;
pub use model::{Comparison, SortKey, SCHEMA_VERSION};

/// How the comparison is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The class column sorted by (its delta, descending).
    pub sort: SortKey,
    /// Keep only the first `top` class rows.
    pub top: Option<usize>,
}

impl Default for Options {
    fn default() -> Options {
        Options { sort: SortKey::Retained, top: None }
    }
}

fn mismatch(message: String) -> Error {
    Error::invalid(message)
}

/// A report read back from JSON, refusing other schema versions before reading the rest
/// (`report::from_json`).
pub fn read_report_json(text: &str) -> Result<Report, Error> {
    crate::report::from_json(text)
}

fn side(r: &Report) -> Side {
    Side {
        file_name: r.source.file_name.clone(),
        format: r.dump.format.clone(),
        platform: r.dump.platform.clone(),
        id_size: r.dump.id_size,
        timestamp_ms: r.dump.timestamp_ms,
        complete: r.complete,
    }
}

fn counts(r: &Report, root_names: &[String]) -> TotalCounts {
    let o = &r.overview;
    TotalCounts {
        objects: o.objects,
        used_heap_bytes: o.used_heap_bytes,
        classes: o.classes,
        class_loaders: o.class_loaders,
        gc_roots: o.gc_roots,
        gc_roots_by_type: root_names
            .iter()
            .map(|n| RootCount {
                name: n.clone(),
                objects: o.gc_roots_by_type.iter().filter(|t| &t.name == n).map(|t| t.objects).sum(),
            })
            .collect(),
        unreachable_objects: if o.unreachable.discarded { o.unreachable.objects } else { 0 },
        unreachable_shallow_bytes: if o.unreachable.discarded { o.unreachable.shallow_bytes } else { 0 },
    }
}

fn d(b: u64, c: u64) -> i64 {
    (c as i128 - b as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

fn totals(baseline: &Report, current: &Report) -> Totals {
    let mut names: Vec<String> = baseline
        .overview
        .gc_roots_by_type
        .iter()
        .chain(&current.overview.gc_roots_by_type)
        .map(|t| t.name.clone())
        .collect();
    names.sort();
    names.dedup();
    let (b, c) = (counts(baseline, &names), counts(current, &names));
    let delta = TotalDeltas {
        objects: d(b.objects, c.objects),
        used_heap_bytes: d(b.used_heap_bytes, c.used_heap_bytes),
        classes: d(b.classes, c.classes),
        class_loaders: d(b.class_loaders, c.class_loaders),
        gc_roots: d(b.gc_roots, c.gc_roots),
        gc_roots_by_type: b
            .gc_roots_by_type
            .iter()
            .zip(&c.gc_roots_by_type)
            .map(|(x, y)| RootDelta { name: x.name.clone(), objects: d(x.objects, y.objects) })
            .collect(),
        unreachable_objects: d(b.unreachable_objects, c.unreachable_objects),
        unreachable_shallow_bytes: d(b.unreachable_shallow_bytes, c.unreachable_shallow_bytes),
    };
    Totals { baseline: b, current: c, delta }
}

fn add(into: &mut ClassCounts, row: &HistogramRow) {
    into.instances += row.instances;
    into.shallow_bytes += row.shallow_bytes;
    into.retained_bytes_min += row.retained_bytes_min;
}

/// A class's numbers on the baseline and the current side (None: absent there).
type BothSides = (Option<ClassCounts>, Option<ClassCounts>);

/// The class rows of the pair, unsorted, keyed by (class name, stable loader name).
fn class_rows(
    baseline: &Report,
    current: &Report,
    base_loaders: &BTreeMap<String, String>,
    cur_loaders: &BTreeMap<String, String>,
) -> Vec<ClassChange> {
    let mut rows: BTreeMap<(Cow<str>, &str), BothSides> = BTreeMap::new();
    for (report, loaders, is_current) in [(baseline, base_loaders, false), (current, cur_loaders, true)] {
        for h in &report.histogram {
            let loader = loaders.get(&h.loader).map_or(h.loader.as_str(), |s| s.as_str());
            let e = rows.entry((hidden::class_key(&h.class_name), loader)).or_default();
            let side = if is_current { &mut e.1 } else { &mut e.0 };
            add(side.get_or_insert_with(ClassCounts::default), h);
        }
    }
    rows.into_iter()
        .map(|((class_name, loader), (b, c))| {
            let status = match (b, c) {
                (Some(_), Some(_)) => ClassStatus::Both,
                (None, _) => ClassStatus::New,
                (_, None) => ClassStatus::Gone,
            };
            let (b, c) = (b.unwrap_or_default(), c.unwrap_or_default());
            ClassChange {
                class_name: class_name.to_string(),
                loader: loader.to_string(),
                status,
                baseline: b,
                current: c,
                delta: ClassDeltas {
                    instances: d(b.instances, c.instances),
                    shallow_bytes: d(b.shallow_bytes, c.shallow_bytes),
                    retained_bytes_min: d(b.retained_bytes_min, c.retained_bytes_min),
                },
            }
        })
        .collect()
}

fn sort_value(row: &ClassChange, key: SortKey) -> (i64, u64) {
    match key {
        SortKey::Instances => (row.delta.instances, row.current.instances),
        SortKey::Shallow => (row.delta.shallow_bytes, row.current.shallow_bytes),
        SortKey::Retained => (row.delta.retained_bytes_min, row.current.retained_bytes_min),
    }
}

fn warnings(baseline: &Report, current: &Report) -> Vec<String> {
    let mut w = Vec::new();
    for (name, r) in [("baseline", baseline), ("current", current)] {
        if let Some(inc) = &r.incomplete {
            w.push(format!(
                "The {name} dump is incomplete ({}): its numbers cover what comes before byte {}.",
                inc.message, inc.offset
            ));
        }
        let singles = r.leak_suspects.suspects.iter().filter(|s| s.kind == crate::model::SuspectKind::SingleObject);
        if singles.clone().any(|s| s.reference_path.is_none()) {
            w.push(format!(
                "The {name} report has no reference paths for its suspects: single suspects are matched by class only."
            ));
        }
    }
    if baseline.overview.unreachable.discarded != current.overview.unreachable.discarded {
        w.push("One side kept its unreachable objects (--keep-unreachable) and the other did not: their numbers do not compare like for like.".into());
    }
    let (bl, cl) = (baseline.dump.layout.as_ref(), current.dump.layout.as_ref());
    if let (Some(b), Some(c)) = (bl, cl) {
        if b.sizes != c.sizes {
            w.push(format!(
                "The baseline is in {} sizes and the current dump in {} (analyze --sizes): their sizes do not compare like for like.",
                sizes_owner(b.sizes),
                sizes_owner(c.sizes)
            ));
        } else if (b.header_bytes, b.reference_bytes, b.alignment_bytes)
            != (c.header_bytes, c.reference_bytes, c.alignment_bytes)
        {
            w.push(format!(
                "The two dumps have different object layouts (baseline: {}; current: {}): shallow sizes differ for that reason alone.",
                b.description, c.description
            ));
        }
    }
    let layouts_said = w.iter().any(|m| m.contains("object layouts"));
    if !layouts_said
        && (baseline.dump.compressed_oops != current.dump.compressed_oops
            || baseline.dump.object_alignment != current.dump.object_alignment)
    {
        w.push("The two dumps have different object layouts (compressed oops or alignment): shallow sizes differ for that reason alone.".into());
    }
    w
}

/// Whose sizes: "the JVM's" or "Eclipse MAT's".
fn sizes_owner(s: crate::model::Sizes) -> &'static str {
    match s {
        crate::model::Sizes::Jvm => "the JVM's",
        crate::model::Sizes::Mat => "Eclipse MAT's",
    }
}

/// Compares `current` with `baseline`. Fails when the two cannot be compared (different
/// VM kinds or identifier sizes).
pub fn compare(baseline: &Report, current: &Report, options: &Options) -> Result<Comparison, Error> {
    if baseline.dump.platform != current.dump.platform {
        return Err(mismatch(format!(
            "cannot compare a {} dump with a {} dump: both sides must come from the same kind of VM",
            baseline.dump.platform, current.dump.platform
        )));
    }
    if baseline.dump.id_size != current.dump.id_size {
        return Err(mismatch(format!(
            "cannot compare a dump with {}-byte ids with one with {}-byte ids: both sides must come from the same kind of VM",
            baseline.dump.id_size, current.dump.id_size
        )));
    }
    let base_loaders = loaders::stable_names(&baseline.histogram);
    let cur_loaders = loaders::stable_names(&current.histogram);
    let mut classes = class_rows(baseline, current, &base_loaders, &cur_loaders);
    classes.sort_by(|x, y| {
        let (kx, ky) = (sort_value(x, options.sort), sort_value(y, options.sort));
        ky.cmp(&kx).then_with(|| x.class_name.cmp(&y.class_name)).then_with(|| x.loader.cmp(&y.loader))
    });
    let classes_total = classes.len() as u64;
    let classes_changed =
        classes.iter().filter(|c| c.status != ClassStatus::Both || c.delta != ClassDeltas::default()).count() as u64;
    if let Some(top) = options.top {
        classes.truncate(top);
    }
    let (leaders, suspects) = leaders::leaders_and_suspects(baseline, current, &base_loaders, &cur_loaders);
    Ok(Comparison {
        schema_version: SCHEMA_VERSION,
        tool: format!("heapscope {}", env!("CARGO_PKG_VERSION")),
        baseline: side(baseline),
        current: side(current),
        sort: options.sort,
        warnings: warnings(baseline, current),
        totals: totals(baseline, current),
        leaders,
        suspects,
        classes_changed,
        classes_total,
        classes,
    })
}

/// The JSON Schema of [`Comparison`], as committed at `schema/compare.schema.json`.
pub fn json_schema() -> String {
    crate::model::json::schema_text::<Comparison>()
}

/// The comparison as JSON text (deterministic).
pub fn to_json(c: &Comparison) -> String {
    crate::model::json::to_text(c)
}
