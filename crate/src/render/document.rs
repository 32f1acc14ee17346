//! The report as a document for people: MAT's System Overview, Leak Suspects and Top
//! Consumers on one page, as a small tree of headings, paragraphs and tables that the
//! [Markdown](super::markdown) and [HTML](super::html) renderers write out.
//!
//! Built from the [`Report`] alone, so a saved JSON report renders the same way. Text in
//! the tree is plain, unescaped text: each renderer escapes all of it for its format,
//! because class names, strings and loader names come from the dump and may contain any
//! markup.

use crate::model::document::{Align, Block, Document, Inline};
use crate::model::format::{binary_size, format_bp, thousands};
use crate::model::*;

use super::RenderOptions;

pub(super) fn object_label(o: &ObjectRef) -> String {
    match &o.class_of_object {
        Some(c) => format!("class {c} @ {}", o.address),
        None => format!("{} @ {}", o.class_name, o.address),
    }
}

fn text(s: impl Into<String>) -> Vec<Inline> {
    vec![Inline::Text(s.into())]
}

pub(super) fn columns(spec: &[(&str, Align)]) -> Vec<(String, Align)> {
    spec.iter().map(|&(name, align)| (name.to_string(), align)).collect()
}

struct Builder {
    blocks: Vec<Block>,
}

impl Builder {
    fn heading(&mut self, level: u8, s: impl Into<String>) {
        self.blocks.push(Block::Heading(level, s.into()));
    }
    fn paragraph(&mut self, s: impl Into<String>) {
        self.blocks.push(Block::Paragraph(text(s)));
    }
    fn object_table(&mut self, rows: &[ObjectRef]) {
        use Align::*;
        self.blocks.push(Block::Table {
            columns: columns(&[
                ("Object", Left),
                ("Shallow Heap", Right),
                ("Retained Heap", Right),
                ("% of Heap", Right),
            ]),
            rows: rows
                .iter()
                .map(|o| {
                    vec![
                        object_label(o),
                        thousands(o.shallow_bytes),
                        thousands(o.retained_bytes),
                        format_bp(o.retained_bp),
                    ]
                })
                .collect(),
        });
    }
    fn consumer_table(&mut self, title: &str, what: &str, rows: &[Consumer]) {
        use Align::*;
        self.heading(3, title);
        if rows.is_empty() {
            self.paragraph("None above the threshold.");
            return;
        }
        self.blocks.push(Block::Table {
            columns: columns(&[(what, Left), ("Objects", Right), ("Retained Heap", Right), ("% of Heap", Right)]),
            rows: rows
                .iter()
                .map(|c| {
                    vec![c.name.clone(), thousands(c.objects), thousands(c.retained_bytes), format_bp(c.retained_bp)]
                })
                .collect(),
        });
    }
}

/// Bars of the consumers' shares (`md-graphs`).
fn consumer_bars(rows: &[Consumer]) -> Block {
    super::graphs::bars(
        &rows
            .iter()
            .take(20)
            .map(|c| (c.name.clone(), c.retained_bp, format!("{} objects", thousands(c.objects))))
            .collect::<Vec<_>>(),
    )
}

/// How firmly the objects are held, and which tree the retained sizes come from.
fn reachability_section(b: &mut Builder, r: &Report) {
    use Align::*;
    b.heading(3, "Reachability");
    b.paragraph(match r.tree {
        Reading::Mat => "Retained sizes below come from Eclipse MAT's dominator tree (--tree mat).",
        Reading::Strength => {
            "Retained sizes below come from the strength-aware dominator tree (--tree strength): a reference weaker than \
             strong holds an object only when nothing firmer does, and uncollected garbage is part of the tree."
        }
    });
    let name = |s: StrengthName| match s {
        StrengthName::Strong => "Strong",
        StrengthName::Cache => "Cache",
        StrengthName::ThreadLocal => "Thread local",
        StrengthName::Local => "Local",
        StrengthName::Soft => "Soft",
        StrengthName::Weak => "Weak",
        StrengthName::Finalizer => "Finalizer",
        StrengthName::Phantom => "Phantom",
        StrengthName::Unreachable => "Unreachable",
    };
    b.blocks.push(Block::Table {
        columns: columns(&[("Strength", Left), ("Objects", Right), ("Shallow Heap", Right)]),
        rows: r
            .reachability
            .iter()
            .map(|row| vec![name(row.strength).to_string(), thousands(row.objects), thousands(row.shallow_bytes)])
            .collect(),
    });
}

/// A chain of objects (depth, object, sizes), `omitted` left out after the first half.
pub(super) fn chain_table(chain: &[ObjectRef], omitted: u64) -> Block {
    use Align::*;
    let head = if omitted > 0 { chain.len() / 2 } else { chain.len() };
    let mut rows = Vec::with_capacity(chain.len() + 1);
    for (d, c) in chain.iter().enumerate() {
        if d == head && omitted > 0 {
            rows.push(vec![
                "…".into(),
                format!("{} more", thousands(omitted)),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
        let depth = if d < head { d as u64 } else { d as u64 + omitted };
        rows.push(vec![
            depth.to_string(),
            object_label(c),
            thousands(c.shallow_bytes),
            thousands(c.retained_bytes),
            format_bp(c.retained_bp),
        ]);
    }
    Block::Table {
        columns: columns(&[
            ("Depth", Right),
            ("Object", Left),
            ("Shallow Heap", Right),
            ("Retained Heap", Right),
            ("% of Heap", Right),
        ]),
        rows,
    }
}

/// The document for a report, at the default detail, without graphs.
pub fn document(r: &Report) -> Document {
    document_with(r, &RenderOptions::default())
}

/// The document for a report with `o`: `--detail`'s caps on the histogram and the other
/// ranked tables, `md-graphs`' bars, sparklines and trees.
pub fn document_with(r: &Report, o: &RenderOptions) -> Document {
    use Align::*;
    let title = format!("Heap dump analysis: {}", r.source.file_name.as_deref().unwrap_or("heap dump"));
    let mut b = Builder { blocks: Vec::new() };
    b.heading(1, title.clone());
    b.paragraph(format!(
        "{} · {} · {} · {}-byte ids{} · object alignment {}",
        r.tool,
        r.dump.format,
        r.dump.platform,
        r.dump.id_size,
        if r.dump.compressed_oops { ", compressed oops" } else { "" },
        r.dump.object_alignment
    ));
    if let Some(l) = &r.dump.layout {
        let mut text = format!("Object layout: {}.", l.description);
        if let Some(d) = &l.mat_difference {
            text.push_str(&format!(" {d}."));
        }
        if l.classes_sized_by_rule > 0 {
            let names: Vec<String> = l
                .sized_by_rule
                .iter()
                .take(5)
                .map(|c| {
                    format!(
                        "{} ({} {})",
                        c.class_name,
                        thousands(c.objects),
                        if c.objects == 1 { "object" } else { "objects" }
                    )
                })
                .collect();
            let more = l.classes_sized_by_rule.saturating_sub(names.len() as u64);
            text.push_str(&format!(
                " {} sized by the layout's rules, the addresses could not decide: {}{}.",
                if l.classes_sized_by_rule == 1 {
                    "One class was".to_string()
                } else {
                    format!("{} classes were", thousands(l.classes_sized_by_rule))
                },
                names.join(", "),
                if more > 0 { format!(" and {} more", thousands(more)) } else { String::new() }
            ));
        }
        b.paragraph(text);
    }
    if r.dump.snapshots > 1 {
        b.blocks.push(Block::Note(vec![
            Inline::Strong(format!("Heap dump snapshot {} of {}.", r.dump.snapshot, r.dump.snapshots)),
            Inline::Text(" The file holds several heap dumps; this report covers that one alone (the CLI's --snapshot N picks another).".into()),
        ]));
    }
    if let Some(inc) = &r.incomplete {
        b.blocks.push(Block::Note(vec![
            Inline::Strong("Incomplete dump.".into()),
            Inline::Text(format!(
                " Reading stopped at byte {}: {}. Everything below covers the records before that point.",
                thousands(inc.offset),
                inc.message
            )),
        ]));
    }

    super::sections::triage(&mut b.blocks, r, o);
    let opts = o;
    let o = &r.overview;
    b.heading(2, "System Overview");
    b.heading(3, "Heap Summary");
    let mut summary = vec![
        (
            "Used heap".to_string(),
            format!("{} bytes ({})", thousands(o.used_heap_bytes), binary_size(o.used_heap_bytes)),
        ),
        ("Objects".into(), thousands(o.objects)),
        ("Classes".into(), thousands(o.classes)),
        ("Class loaders".into(), thousands(o.class_loaders)),
        ("GC roots".into(), thousands(o.gc_roots)),
        ("Top-level dominators".into(), thousands(o.top_level_dominators)),
        (
            "Wasted".into(),
            format!(
                "{} bytes ({} of the used heap; see Wasted Memory)",
                thousands(r.waste.total_wasted_bytes),
                format_bp(crate::model::format::basis_points(r.waste.total_wasted_bytes, o.used_heap_bytes))
            ),
        ),
        (
            format!("Unreachable objects ({})", if o.unreachable.discarded { "discarded" } else { "kept" }),
            format!("{} objects, {} bytes", thousands(o.unreachable.objects), thousands(o.unreachable.shallow_bytes)),
        ),
        (
            "Dump file".into(),
            format!("{} bytes{}", thousands(r.source.file_bytes), if r.source.gzip { " (gzip)" } else { "" }),
        ),
        ("HPROF data".into(), format!("{} bytes", thousands(r.source.hprof_bytes))),
    ];
    // Android dumps name their heaps: one line for all of them.
    if !o.heaps.is_empty() {
        let mut heaps: Vec<String> = o
            .heaps
            .iter()
            .map(|h| format!("{}: {} objects, {} bytes", h.name, thousands(h.objects), thousands(h.shallow_bytes)))
            .collect();
        // So that they add up to the objects above: MAT's pseudo object 0x0 is in no heap.
        let in_heaps: u64 = o.heaps.iter().map(|h| h.objects).sum();
        if let Some(rest) = o.objects.checked_sub(in_heaps).filter(|&n| n > 0) {
            heaps.push(format!(
                "in no heap: {} object{} (Eclipse MAT's stand-in for the bootstrap class loader at 0x0{})",
                thousands(rest),
                if rest == 1 { "" } else { "s" },
                if rest == 1 { "" } else { " among them" }
            ));
        }
        summary.insert(2, ("Heaps".into(), heaps.join("; ")));
    }
    b.blocks.push(Block::Table {
        columns: columns(&[("", Left), ("", Right)]),
        rows: summary.into_iter().map(|(k, v)| vec![k, v]).collect(),
    });

    b.heading(3, "GC Roots by Type");
    b.blocks.push(Block::Table {
        columns: columns(&[("Type", Left), ("Objects", Right)]),
        rows: o
            .gc_roots_by_type
            .iter()
            .map(|t| {
                let name =
                    if t.name == t.mat_name { t.name.clone() } else { format!("{} (MAT: {})", t.name, t.mat_name) };
                vec![name, thousands(t.objects)]
            })
            .collect(),
    });

    reachability_section(&mut b, r);

    if o.unreachable.objects > 0 {
        b.heading(3, "Unreachable Objects");
        b.paragraph(format!(
            "{} objects ({} bytes) are not reachable from any GC root{}.",
            thousands(o.unreachable.objects),
            thousands(o.unreachable.shallow_bytes),
            if o.unreachable.discarded {
                " and were left out of every number above and below, as in Eclipse MAT"
            } else {
                ""
            }
        ));
        b.blocks.push(Block::Table {
            columns: columns(&[("Class", Left), ("Objects", Right), ("Shallow Heap", Right)]),
            rows: o
                .unreachable
                .classes
                .iter()
                .take(opts.detail.rows)
                .map(|c| vec![c.class_name.clone(), thousands(c.objects), thousands(c.shallow_bytes)])
                .collect(),
        });
    }

    super::sections::composition(&mut b.blocks, r, opts);

    let histogram_rows = opts.detail.histogram;
    b.heading(3, "Classes by Retained Heap");
    b.paragraph(format!(
        "Top {} of {} classes. Retained heap is MAT's quick lower bound.",
        histogram_rows.min(r.histogram.len()),
        r.histogram.len()
    ));
    b.blocks.push(Block::Table {
        columns: columns(&[
            ("#", Right),
            ("Class", Left),
            ("Instances", Right),
            ("Shallow Heap", Right),
            ("Retained Heap", Right),
        ]),
        rows: r
            .histogram
            .iter()
            .take(histogram_rows)
            .enumerate()
            .map(|(i, h)| {
                vec![
                    (i + 1).to_string(),
                    h.class_name.clone(),
                    thousands(h.instances),
                    thousands(h.shallow_bytes),
                    thousands(h.retained_bytes_min),
                ]
            })
            .collect(),
    });

    if opts.graphs {
        let rows: Vec<(String, u32, String)> = r
            .histogram
            .iter()
            .take(histogram_rows.min(20))
            .map(|h| {
                let bp = crate::model::format::basis_points(h.retained_bytes_min, o.used_heap_bytes);
                (h.class_name.clone(), bp, format!("{} instances", thousands(h.instances)))
            })
            .collect();
        b.blocks.push(super::graphs::bars(&rows));
    }
    super::sections::system_properties(&mut b.blocks, r, opts);
    if let Some(leaks) = &r.leaks {
        b.blocks.extend(super::leaks::blocks(leaks));
    }

    b.heading(2, "Leak Suspects");
    if let Some(cut) = r.oom_triage.as_ref().and_then(|t| t.cut.as_ref()) {
        b.blocks.push(Block::Note(vec![
            Inline::Strong("Provisional.".into()),
            Inline::Text(format!(
                " The dump ends at byte {}: these suspects are what the part read shows. {} objects ({} bytes) have \
                 no GC root in it and are kept; the roots and references past the cut may hold more, or less.",
                thousands(cut.offset),
                thousands(cut.unrooted_objects),
                thousands(cut.unrooted_bytes)
            )),
        ]));
    }
    if r.leak_suspects.suspects.is_empty() {
        b.paragraph(format!(
            "No object or group of objects retains more than {} bytes (10% of the used heap).",
            thousands(r.leak_suspects.threshold_bytes)
        ));
    }
    for (i, s) in r.leak_suspects.suspects.iter().enumerate() {
        b.heading(3, format!("Problem Suspect {}", i + 1));
        if let Some(headline) = super::suspects::headline(s) {
            b.blocks.push(Block::Paragraph(vec![Inline::Strong(headline)]));
        }
        b.paragraph(s.description.clone());
        match &s.structure {
            Some(st) => super::suspects::structure(&mut b.blocks, s, st),
            None => {
                let point = match (&s.kind, &s.accumulation_point) {
                    (_, Some(ap)) => format!(
                        " {} — retains {} bytes ({}).",
                        object_label(ap),
                        thousands(ap.retained_bytes),
                        format_bp(ap.retained_bp)
                    ),
                    (SuspectKind::SingleObject, None) => {
                        " none — no single object below the suspect holds 70% of its memory within 1,000 steps.".into()
                    }
                    (SuspectKind::GroupOfObjects, None) => {
                        " none — the members are not held by one common object.".into()
                    }
                };
                b.blocks
                    .push(Block::Paragraph(vec![Inline::Strong("Accumulation point:".into()), Inline::Text(point)]));
                super::suspects::blocks(&mut b.blocks, s);
                if !s.chain.is_empty() {
                    b.paragraph(match s.kind {
                        SuspectKind::SingleObject => "Dominator chain from the suspect to the accumulation point:",
                        SuspectKind::GroupOfObjects => "Reference path shared by most members, from its GC root:",
                    });
                    b.blocks.push(chain_table(&s.chain, s.chain_omitted));
                }
            }
        }
        super::sections::suspect(&mut b.blocks, s, opts);
    }

    let t = &r.top_consumers;
    b.heading(2, "Top Consumers");
    b.paragraph(format!(
        "Top-level dominators retaining more than {} bytes (1% of the used heap).",
        thousands(t.threshold_bytes)
    ));
    b.heading(3, "Biggest Objects");
    if t.objects.is_empty() {
        b.paragraph("None above the threshold.");
    } else {
        b.object_table(&t.objects[..t.objects.len().min(opts.detail.rows)]);
    }
    b.consumer_table("Biggest Classes", "Class", &t.classes);
    if opts.graphs {
        b.blocks.push(consumer_bars(&t.classes));
    }
    b.consumer_table("Biggest Class Loaders", "Class loader", &t.class_loaders);
    if opts.graphs {
        b.blocks.push(consumer_bars(&t.class_loaders));
    }
    b.consumer_table("Biggest Packages", "Package", &t.packages);
    super::sections::top_components(&mut b.blocks, r, opts);

    b.blocks.extend(super::threads::document_blocks(&r.threads));
    b.blocks.extend(super::waste::blocks(r));

    if !r.warnings.is_empty() {
        b.heading(2, "Warnings");
        b.blocks.push(Block::List(r.warnings.clone()));
    }
    Document { title, blocks: b.blocks }
}
