//! The comparison as a short growth report for people — totals, growth leaders, leak
//! suspects, then the classes that changed — as a [document](crate::model::document)
//! that the report's Markdown and HTML renderers write out (and escape: every name comes
//! from a dump).

use super::model::*;
use crate::model::document::{Align, Block, Document, Inline};
use crate::model::format::binary_size;
use crate::model::format::{format_bp, thousands};
use crate::model::PathKey;

/// Class rows shown when `--top` does not say.
pub const DEFAULT_CLASS_ROWS: usize = 50;

/// "+1,024", "-512", "0".
pub fn signed(n: i64) -> String {
    match n {
        0 => "0".into(),
        n if n > 0 => format!("+{}", thousands(n as u64)),
        n => format!("-{}", thousands(n.unsigned_abs())),
    }
}

/// "+12.50%", "-3.00%".
fn signed_percent(bp: i64) -> String {
    let s = format_bp(bp.unsigned_abs().min(u32::MAX as u64) as u32);
    if bp > 0 {
        format!("+{s}")
    } else if bp < 0 {
        format!("-{s}")
    } else {
        s
    }
}

fn columns(spec: &[(&str, Align)]) -> Vec<(String, Align)> {
    spec.iter().map(|&(n, a)| (n.to_string(), a)).collect()
}

fn side_name(s: &Side) -> String {
    s.file_name.clone().unwrap_or_else(|| "heap dump".into())
}

fn status_text(c: &Change) -> String {
    let grown_gone = c.status == ChangeStatus::Gone && c.current.is_some() && c.delta_retained_bytes != 0;
    match c.status {
        ChangeStatus::New => "new".into(),
        ChangeStatus::Unchanged => "unchanged".into(),
        ChangeStatus::Gone if !grown_gone => "no longer a suspect".into(),
        // Still there, but under the suspect threshold: its change is what matters.
        ChangeStatus::Gone | ChangeStatus::Grown | ChangeStatus::Shrunk => {
            let verb = if c.delta_retained_bytes > 0 { "grown" } else { "shrunk" };
            // Said only where the numbers say it.
            let under = match &c.current {
                Some(cur) if grown_gone && cur.retained_bp < 1_000 => "; under 10% of the heap now",
                Some(_) if grown_gone => "; no longer a suspect",
                _ => "",
            };
            match c.growth_bp {
                Some(bp) => format!(
                    "{verb} by {} bytes ({}){under}",
                    thousands(c.delta_retained_bytes.unsigned_abs()),
                    signed_percent(bp)
                ),
                None => format!("{verb} by {} bytes{under}", thousands(c.delta_retained_bytes.unsigned_abs())),
            }
        }
    }
}

fn what(c: &Change) -> String {
    let mut s = match c.kind {
        ChangeKind::GroupOfObjects => {
            let n = c.current.as_ref().or(c.baseline.as_ref()).map_or(0, |s| s.instances);
            // Class objects listed on their own rows (`class X`) are not counted here again.
            let other = if c.class_name == "java.lang.Class" { " other" } else { "" };
            format!("{}{other} instances of {}", thousands(n), c.class_name)
        }
        // Named where the application holds it, as the suspects are.
        _ => match held_in(c) {
            Some(h) => format!("{h} ({})", c.class_name),
            None => c.class_name.clone(),
        },
    };
    if let Some(l) = &c.loader {
        s.push_str(&format!(" (loader {l})"));
    }
    s
}

fn retained(s: &Option<ChangeSide>) -> String {
    s.as_ref().map_or("—".into(), |s| format!("{} ({})", thousands(s.retained_bytes), format_bp(s.retained_bp)))
}

/// Where the memory is held (the current side's name, else the baseline's).
fn held_in(c: &Change) -> Option<&str> {
    c.current.as_ref().and_then(|s| s.held_in.as_deref()).or(c.baseline.as_ref().and_then(|s| s.held_in.as_deref()))
}

fn elements(c: &Change) -> String {
    let e = |s: &Option<ChangeSide>| s.as_ref().and_then(|s| s.accumulation_point_elements);
    // With a `held_in`, the count is of its entries (the What column names it).
    let point = match held_in(c) {
        Some(_) => Some("entries".to_string()),
        None => c.current.as_ref().or(c.baseline.as_ref()).and_then(|s| s.accumulation_point.clone()),
    };
    match (point, e(&c.baseline), e(&c.current)) {
        (Some(p), Some(b), Some(n)) => format!("{p}: {} → {}", thousands(b), thousands(n)),
        (Some(p), None, Some(n)) => format!("{p}: {}", thousands(n)),
        (Some(p), Some(b), None) => format!("{p}: {} before", thousands(b)),
        // No count: "entries" alone would say nothing.
        (Some(p), None, None) if held_in(c).is_none() => p,
        _ => String::new(),
    }
}

fn change_table(rows: &[Change], share: bool) -> Block {
    use Align::*;
    let mut cols = vec![
        ("What", Left),
        ("Status", Left),
        ("Baseline retained", Right),
        ("Current retained", Right),
        ("Change", Right),
    ];
    if share {
        cols.push(("Share of growth", Right));
    }
    cols.push(("Accumulation point or entries", Left));
    Block::Table {
        columns: columns(&cols),
        rows: rows
            .iter()
            .map(|c| {
                let mut row = vec![
                    what(c),
                    status_text(c),
                    retained(&c.baseline),
                    retained(&c.current),
                    signed(c.delta_retained_bytes),
                ];
                if share {
                    row.push(c.share_of_growth_bp.map(format_bp).unwrap_or_default());
                }
                row.push(elements(c));
                row
            })
            .collect(),
    }
}

fn path_text(path: &[PathKey]) -> String {
    let mut s = String::new();
    for (i, step) in path.iter().enumerate() {
        if i > 0 {
            s.push_str(" → ");
        }
        s.push_str(&step.class_name);
        if !step.via.is_empty() {
            s.push_str(&format!(" .{}", step.via.join("/")));
        }
    }
    s
}

/// The document for a comparison; `class_rows` caps the class table (default
/// [`DEFAULT_CLASS_ROWS`]).
pub fn document(c: &Comparison, class_rows: Option<usize>) -> Document {
    use Align::*;
    let title = format!("Heap growth: {} → {}", side_name(&c.baseline), side_name(&c.current));
    let mut blocks = vec![Block::Heading(1, title.clone())];
    let when = |s: &Side| {
        format!(
            "{} ({}, {}, {}-byte ids{})",
            side_name(s),
            s.format,
            s.platform,
            s.id_size,
            if s.complete { "" } else { ", incomplete" }
        )
    };
    blocks.push(Block::Paragraph(vec![
        Inline::Text(format!("{} · ", c.tool)),
        Inline::Strong("Baseline:".into()),
        Inline::Text(format!(" {} · ", when(&c.baseline))),
        Inline::Strong("Current:".into()),
        Inline::Text(format!(" {}", when(&c.current))),
    ]));
    for w in &c.warnings {
        blocks.push(Block::Note(vec![Inline::Strong("Note.".into()), Inline::Text(format!(" {w}"))]));
    }

    let t = &c.totals;
    let (b, n, d) = (&t.baseline, &t.current, &t.delta);
    blocks.push(Block::Heading(2, "Totals".into()));
    let heap = |x: u64| format!("{} bytes ({})", thousands(x), binary_size(x));
    let heap_delta = format!(
        "{} bytes ({})",
        signed(d.used_heap_bytes),
        signed_percent(super::leaders::signed_bp(d.used_heap_bytes, b.used_heap_bytes).unwrap_or(0))
    );
    let mut rows = vec![
        vec!["Used heap".into(), heap(b.used_heap_bytes), heap(n.used_heap_bytes), heap_delta],
        vec!["Objects".into(), thousands(b.objects), thousands(n.objects), signed(d.objects)],
        vec!["Classes".into(), thousands(b.classes), thousands(n.classes), signed(d.classes)],
        vec!["Class loaders".into(), thousands(b.class_loaders), thousands(n.class_loaders), signed(d.class_loaders)],
        vec!["GC roots".into(), thousands(b.gc_roots), thousands(n.gc_roots), signed(d.gc_roots)],
    ];
    for ((x, y), z) in b.gc_roots_by_type.iter().zip(&n.gc_roots_by_type).zip(&d.gc_roots_by_type) {
        rows.push(vec![format!("GC roots: {}", x.name), thousands(x.objects), thousands(y.objects), signed(z.objects)]);
    }
    rows.push(vec![
        "Unreachable objects (discarded)".into(),
        thousands(b.unreachable_objects),
        thousands(n.unreachable_objects),
        signed(d.unreachable_objects),
    ]);
    rows.push(vec![
        "Unreachable bytes (discarded)".into(),
        thousands(b.unreachable_shallow_bytes),
        thousands(n.unreachable_shallow_bytes),
        signed(d.unreachable_shallow_bytes),
    ]);
    blocks.push(Block::Table {
        columns: columns(&[("", Left), ("Baseline", Right), ("Current", Right), ("Change", Right)]),
        rows,
    });

    blocks.push(Block::Heading(2, "Growth Leaders".into()));
    if c.leaders.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text(
            "None of the current dump's top-level objects or leak suspects retains more than in the baseline.".into(),
        )]));
    } else {
        let share: u64 = c.leaders.iter().filter_map(|l| l.share_of_growth_bp).map(u64::from).sum();
        blocks.push(Block::Paragraph(vec![Inline::Text(format!(
            "{} of the current dump's top-level objects and suspects account for {} of their growth in retained size.",
            c.leaders.len(),
            format_bp(share.min(10_000) as u32)
        ))]));
        blocks.push(change_table(&c.leaders, true));
        let paths: Vec<String> = c
            .leaders
            .iter()
            // Named where the application holds it, a leader needs no path to it.
            .filter(|l| held_in(l).is_none())
            .filter_map(|l| l.reference_path.as_ref().map(|p| format!("{}: {}", l.class_name, path_text(p))))
            .collect();
        if !paths.is_empty() {
            blocks.push(Block::Paragraph(vec![Inline::Text(
                "Reference paths from a GC root (matched across the two dumps):".into(),
            )]));
            blocks.push(Block::List(paths));
        }
    }

    blocks.push(Block::Heading(2, "Leak Suspects".into()));
    if c.suspects.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text(
            "Neither dump has a leak suspect (nothing retains more than 10% of its heap).".into(),
        )]));
    } else {
        blocks.push(change_table(&c.suspects, false));
    }

    blocks.push(Block::Heading(2, "Classes".into()));
    let limit = class_rows.unwrap_or(DEFAULT_CLASS_ROWS);
    let (grown, shrunk) = class_directions(c, limit);
    let by = match c.sort {
        SortKey::Instances => "instances",
        SortKey::Shallow => "shallow heap",
        SortKey::Retained => "retained heap (MAT's quick retained size)",
    };
    blocks.push(Block::Paragraph(vec![Inline::Text(format!(
        "{} of {} classes changed; by change in {by}: the {} that grew most, largest growth first, then the {} that shrank most or are gone, largest decrease first.",
        thousands(c.classes_changed),
        thousands(c.classes_total),
        grown.len(),
        shrunk.len()
    ))]));
    for (heading, changed) in [("Grown", grown), ("Shrunk or gone", shrunk)] {
        if changed.is_empty() {
            continue;
        }
        blocks.push(Block::Heading(3, heading.into()));
        blocks.push(Block::Table {
            columns: columns(&[
                ("Class", Left),
                ("Loader", Left),
                ("Status", Left),
                ("Instances", Right),
                ("Change", Right),
                ("Shallow Heap", Right),
                ("Change", Right),
                ("Retained Heap", Right),
                ("Change", Right),
            ]),
            rows: changed
                .iter()
                .map(|r| {
                    vec![
                        r.class_name.clone(),
                        r.loader.clone(),
                        match r.status {
                            ClassStatus::New => "new",
                            ClassStatus::Gone => "gone",
                            ClassStatus::Both => "",
                        }
                        .into(),
                        thousands(r.current.instances),
                        signed(r.delta.instances),
                        thousands(r.current.shallow_bytes),
                        signed(r.delta.shallow_bytes),
                        thousands(r.current.retained_bytes_min),
                        signed(r.delta.retained_bytes_min),
                    ]
                })
                .collect(),
        });
    }
    Document { title, blocks }
}

/// The changed class rows in both directions, at most `limit` each: those whose change
/// in the sort column is positive (or zero: changed in another column), in the
/// comparison's order (largest growth first), and those whose change is negative, largest
/// decrease first.
fn class_directions(c: &Comparison, limit: usize) -> (Vec<&ClassChange>, Vec<&ClassChange>) {
    let delta = |r: &ClassChange| match c.sort {
        SortKey::Instances => r.delta.instances,
        SortKey::Shallow => r.delta.shallow_bytes,
        SortKey::Retained => r.delta.retained_bytes_min,
    };
    let changed = c.classes.iter().filter(|r| r.status != ClassStatus::Both || r.delta != ClassDeltas::default());
    let grown = changed.clone().filter(|r| delta(r) >= 0).take(limit).collect();
    let shrunk = changed.rev().filter(|r| delta(r) < 0).take(limit).collect();
    (grown, shrunk)
}

/// The comparison as Markdown.
pub fn markdown(c: &Comparison, class_rows: Option<usize>) -> String {
    crate::render::markdown::render_document(&document(c, class_rows))
}

/// The comparison as a self-contained HTML file.
pub fn html(c: &Comparison, class_rows: Option<usize>) -> String {
    crate::render::html::render_document(&document(c, class_rows))
}
