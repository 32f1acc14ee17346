//! The report's sections beyond MAT's pages, as document blocks (see
//! [`crate::model::sections`]): the OOM triage, the heap composition, the system
//! properties, the top components, and a single suspect's root path and dominator
//! subtree. Each is shown when the report has it, within `--detail`'s caps, with
//! `md-graphs`' pictures when asked for.

use super::document::{columns, object_label};
use super::{graphs, RenderOptions};
use crate::model::document::{Align, Block, Inline};
use crate::model::format::{format_bp, thousands};
use crate::model::*;

fn heading(blocks: &mut Vec<Block>, level: u8, s: impl Into<String>) {
    blocks.push(Block::Heading(level, s.into()));
}

fn labelled(blocks: &mut Vec<Block>, label: &str, text: impl Into<String>) {
    blocks.push(Block::Paragraph(vec![Inline::Strong(label.into()), Inline::Text(format!(" {}", text.into()))]));
}

/// The OOM triage: the heap's shape, one leak or many, and the numbers behind them.
pub fn triage(blocks: &mut Vec<Block>, r: &Report, o: &RenderOptions) {
    let Some(t) = &r.oom_triage else { return };
    use Align::*;
    heading(blocks, 2, "OOM Triage");
    labelled(blocks, "Shape:", t.shape_text.clone());
    labelled(blocks, "Where memory accumulates:", t.verdict_text.clone());
    blocks.push(Block::Table {
        columns: columns(&[("", Left), ("", Right)]),
        rows: vec![
            vec!["Largest top-level dominator".into(), format_bp(t.largest_bp)],
            vec!["Five largest top-level dominators".into(), format_bp(t.top5_bp)],
            vec![
                "Top-level dominators holding half the used heap".into(),
                format!("{} of {}", thousands(t.dominators_for_half), thousands(t.top_level_dominators)),
            ],
            vec![
                "Leak suspects (places they accumulate in)".into(),
                format!("{} ({})", thousands(t.suspects), thousands(t.accumulation_points)),
            ],
            vec!["Retained by the suspects".into(), format_bp(t.suspects_bp)],
        ],
    });
    if o.graphs {
        blocks.extend(graphs::triage(r, t));
    }
}

fn kind_name(k: CompositionKind) -> &'static str {
    match k {
        CompositionKind::Instances => "Instances",
        CompositionKind::ObjectArrays => "Object arrays",
        CompositionKind::PrimitiveArrays => "Primitive arrays",
        CompositionKind::ClassObjects => "Class objects",
    }
}

fn group_table(blocks: &mut Vec<Block>, what: &str, rows: &[GroupCount]) {
    use Align::*;
    blocks.push(Block::Table {
        columns: columns(&[
            (what, Left),
            ("Classes", Right),
            ("Objects", Right),
            ("Shallow Heap", Right),
            ("% of Heap", Right),
        ]),
        rows: rows
            .iter()
            .map(|g| {
                vec![
                    g.name.clone(),
                    thousands(g.classes),
                    thousands(g.objects),
                    thousands(g.shallow_bytes),
                    format_bp(g.shallow_bp),
                ]
            })
            .collect(),
    });
}

/// What the used heap is made of.
pub fn composition(blocks: &mut Vec<Block>, r: &Report, o: &RenderOptions) {
    let Some(c) = &r.heap_composition else { return };
    use Align::*;
    heading(blocks, 3, "Heap Composition");
    blocks.push(Block::Table {
        columns: columns(&[("Kind", Left), ("Objects", Right), ("Shallow Heap", Right), ("% of Heap", Right)]),
        rows: c
            .kinds
            .iter()
            .map(|k| {
                vec![
                    kind_name(k.kind).into(),
                    thousands(k.objects),
                    thousands(k.shallow_bytes),
                    format_bp(k.shallow_bp),
                ]
            })
            .collect(),
    });
    if o.graphs {
        blocks.push(graphs::bars(
            &c.kinds.iter().map(|k| (kind_name(k.kind).to_string(), k.shallow_bp, String::new())).collect::<Vec<_>>(),
        ));
    }
    let shown = |n: usize, total: u64| format!("{} of {}", n.min(o.detail.rows), thousands(total));
    blocks.push(Block::Paragraph(vec![Inline::Text(format!(
        "By package (the {} with the most shallow heap):",
        shown(c.packages.len(), c.package_count)
    ))]));
    group_table(blocks, "Package", &c.packages[..c.packages.len().min(o.detail.rows)]);
    blocks.push(Block::Paragraph(vec![Inline::Text(format!(
        "By class loader (the {}):",
        shown(c.loaders.len(), c.loader_count)
    ))]));
    group_table(blocks, "Class loader", &c.loaders[..c.loaders.len().min(o.detail.rows)]);
}

/// The dump's system properties.
pub fn system_properties(blocks: &mut Vec<Block>, r: &Report, o: &RenderOptions) {
    let Some(props) = &r.system_properties else { return };
    use Align::*;
    heading(blocks, 3, "System Properties");
    if props.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text(
            "java.lang.System's properties map holds no entry that reads as MAT reads it.".into(),
        )]));
        return;
    }
    let n = props.len().min(o.detail.properties);
    if n < props.len() {
        blocks.push(Block::Paragraph(vec![Inline::Text(format!(
            "The first {n} of {} by key (--detail max shows up to {}).",
            props.len(),
            Detail::MAX.properties
        ))]));
    }
    blocks.push(Block::Table {
        columns: columns(&[("Key", Left), ("Value", Left)]),
        rows: props[..n].iter().map(|p| vec![p.key.clone(), p.value.clone()]).collect(),
    });
}

/// MAT's Top Components.
pub fn top_components(blocks: &mut Vec<Block>, r: &Report, o: &RenderOptions) {
    let Some(list) = &r.top_components else { return };
    use Align::*;
    heading(blocks, 2, "Top Components");
    blocks.push(Block::Paragraph(vec![Inline::Text(
        "Class loaders whose top-level dominators retain at least 1% of the used heap, with what their retained set \
         holds and the waste in it."
            .into(),
    )]));
    if list.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text("None above the threshold.".into())]));
    }
    for c in list {
        heading(blocks, 3, format!("{} ({})", c.name, format_bp(c.retained_bp)));
        blocks.push(Block::Paragraph(vec![Inline::Text(format!(
            "{} top-level dominators retain {} bytes ({} objects).",
            thousands(c.top_level_dominators),
            thousands(c.retained_bytes),
            thousands(c.objects)
        ))]));
        blocks.push(Block::Table {
            columns: columns(&[("Class", Left), ("Objects", Right), ("Shallow Heap", Right)]),
            rows: c
                .classes
                .iter()
                .take(o.detail.rows)
                .map(|k| vec![k.class_name.clone(), thousands(k.objects), thousands(k.shallow_bytes)])
                .collect(),
        });
        match &c.waste {
            Some(w) => labelled(
                blocks,
                "Waste:",
                format!(
                    "{} bytes ({} of the component): {} duplicate strings ({} bytes), {} duplicate arrays ({} bytes), \
                     {} empty collections ({} bytes of backing arrays).",
                    thousands(w.wasted_bytes),
                    format_bp(w.wasted_bp),
                    thousands(w.duplicate_strings),
                    thousands(w.duplicate_string_bytes),
                    thousands(w.duplicate_arrays),
                    thousands(w.duplicate_array_bytes),
                    thousands(w.empty_collections),
                    thousands(w.empty_collection_bytes)
                ),
            ),
            None => labelled(blocks, "Waste:", "not known (the waste report was not made)."),
        }
    }
}

/// A single suspect's root path ("why alive") and dominator subtree.
pub fn suspect(blocks: &mut Vec<Block>, s: &Suspect, o: &RenderOptions) {
    use Align::*;
    if let Some(p) = &s.root_path {
        labelled(blocks, "Why alive:", p.why_alive.clone());
        if o.graphs {
            blocks.push(graphs::root_path(p));
        } else {
            let mut rows = Vec::with_capacity(p.steps.len() + 1);
            let head = if p.omitted > 0 { p.steps.len() / 2 } else { p.steps.len() };
            for (k, step) in p.steps.iter().enumerate() {
                if k == head && p.omitted > 0 {
                    rows.push(vec!["…".into(), format!("{} more", thousands(p.omitted)), String::new(), String::new()]);
                }
                let by = if k + 1 == p.steps.len() {
                    format!("GC root: {}", p.root_types.join(", "))
                } else {
                    step.held_by.join(", ")
                };
                let object = match &step.run {
                    Some(r) => format!(
                        "{} × {} linked by {} ({} … {})",
                        thousands(r.nodes),
                        step.object.class_name,
                        r.field,
                        step.object.address,
                        r.last.address
                    ),
                    None => object_label(&step.object),
                };
                rows.push(vec![
                    object,
                    by,
                    thousands(step.object.shallow_bytes),
                    thousands(step.object.retained_bytes),
                ]);
            }
            blocks.push(Block::Paragraph(vec![Inline::Text(
                "Path from the suspect up to its GC root (each object with the field the next one holds it by):".into(),
            )]));
            blocks.push(Block::Table {
                columns: columns(&[
                    ("Object", Left),
                    ("Held by", Left),
                    ("Shallow Heap", Right),
                    ("Retained Heap", Right),
                ]),
                rows,
            });
        }
    }
    if let Some(t) = &s.dominator_subtree {
        let Some(root) = t.nodes.first() else { return };
        blocks.push(Block::Paragraph(vec![Inline::Text(format!(
            "Dominator subtree of {} ({} objects{}):",
            object_label(&root.object),
            thousands(t.nodes.len() as u64),
            if t.truncated { ", within --detail's caps" } else { "" }
        ))]));
        if o.graphs {
            blocks.push(graphs::subtree(t));
        } else {
            blocks.push(Block::Table {
                columns: columns(&[
                    ("Depth", Right),
                    ("Object", Left),
                    ("Retained Heap", Right),
                    ("% of Heap", Right),
                    ("Not listed", Right),
                ]),
                rows: t
                    .nodes
                    .iter()
                    .map(|n| {
                        vec![
                            n.depth.to_string(),
                            object_label(&n.object),
                            thousands(n.object.retained_bytes),
                            format_bp(n.object.retained_bp),
                            if n.omitted_children > 0 {
                                format!(
                                    "{} retaining {}{}",
                                    thousands(n.omitted_children),
                                    thousands(n.omitted_retained_bytes),
                                    n.chain
                                        .as_ref()
                                        .map(|c| format!(
                                            " (of {} nodes of {} linked by {})",
                                            thousands(c.nodes),
                                            c.class_name,
                                            c.field.as_deref().unwrap_or("a field")
                                        ))
                                        .unwrap_or_default()
                                )
                            } else {
                                String::new()
                            },
                        ]
                    })
                    .collect(),
            });
        }
    }
}
