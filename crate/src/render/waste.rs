//! The waste and allocation-site sections of the report for people (Markdown and HTML
//! through the shared document model, which escapes every text from the dump).

use crate::model::document::{Align, Block, Inline};
use crate::model::format::{format_bp, thousands};
use crate::model::{ObjectRef, Report};

/// Rows listed per table.
const ROWS: usize = 20;

fn cols(spec: &[(&str, Align)]) -> Vec<(String, Align)> {
    spec.iter().map(|&(n, a)| (n.to_string(), a)).collect()
}

fn text(s: impl Into<String>) -> Block {
    Block::Paragraph(vec![Inline::Text(s.into())])
}

/// A table of the first [`ROWS`] items, one row each (nothing when there are none).
fn table<T>(b: &mut Vec<Block>, columns: &[(&str, Align)], items: &[T], row: impl Fn(&T) -> Vec<String>) {
    if !items.is_empty() {
        b.push(Block::Table { columns: cols(columns), rows: items.iter().take(ROWS).map(row).collect() });
    }
}

fn first(sample: &[ObjectRef]) -> String {
    sample.first().map(|o| format!("{} @ {}", o.class_name, o.address)).unwrap_or_default()
}

/// The "Wasted memory" and "Allocation sites" sections.
pub fn blocks(r: &Report) -> Vec<Block> {
    use Align::*;
    let w = &r.waste;
    let mut b = vec![Block::Heading(2, "Wasted Memory".into())];
    b.push(Block::Paragraph(vec![
        Inline::Strong("Wasted:".into()),
        Inline::Text(format!(
            " {} bytes could be saved: duplicate strings {}, duplicate arrays {}, empty collections {}, duplicate boxed numbers {}.",
            thousands(w.total_wasted_bytes),
            thousands(w.duplicate_strings.wasted_bytes),
            thousands(w.duplicate_arrays.wasted_bytes),
            thousands(w.empty_collections.iter().map(|c| c.wasted_bytes).sum()),
            thousands(w.boxed.iter().map(|c| c.wasted_bytes).sum()),
        )),
    ]));

    let s = &w.duplicate_strings;
    b.push(Block::Heading(3, "Duplicate Strings".into()));
    b.push(text(format!(
        "{} strings, {} distinct values, {} of them held by more than one string, wasting {} bytes.",
        thousands(s.strings),
        thousands(s.distinct_values),
        thousands(s.duplicated_values),
        thousands(s.wasted_bytes)
    )));
    table(&mut b, &[("Value", Left), ("Strings", Right), ("Wasted", Right), ("First", Left)], &s.groups, |g| {
        vec![g.value.chars().take(120).collect(), thousands(g.count), thousands(g.wasted_bytes), first(&g.sample)]
    });

    let d = &w.duplicate_arrays;
    b.push(Block::Heading(3, "Duplicate Arrays".into()));
    b.push(text(format!(
        "{} primitive arrays (not String values), {} distinct contents, {} of them held by more than one array, wasting {} bytes. All-zero arrays: {} ({} bytes).",
        thousands(d.arrays),
        thousands(d.distinct_contents),
        thousands(d.duplicated_contents),
        thousands(d.wasted_bytes),
        thousands(d.all_zero_arrays),
        thousands(d.all_zero_bytes)
    )));
    table(
        &mut b,
        &[
            ("Array", Left),
            ("Length", Right),
            ("Arrays", Right),
            ("Wasted", Right),
            ("Contents", Left),
            ("First", Left),
        ],
        &d.groups,
        |g| {
            let contents = if g.all_zero { format!("all zero ({})", g.preview) } else { g.preview.clone() };
            vec![
                g.class_name.clone(),
                thousands(g.length),
                thousands(g.count),
                thousands(g.wasted_bytes),
                contents,
                first(&g.sample),
            ]
        },
    );

    b.push(Block::Heading(3, "Empty and Sparse Collections".into()));
    b.push(text(if w.empty_collections.is_empty() {
        "No collections of the kinds read (ArrayList, Vector, ArrayDeque, HashMap, HashSet, Hashtable, ConcurrentHashMap, WeakHashMap, IdentityHashMap)."
    } else {
        "Empty: size 0 with an allocated backing array, whose bytes are wasted. Fill ratio: size / capacity of the others, on average."
    }));
    let columns = [
        ("Class", Left),
        ("Instances", Right),
        ("Empty", Right),
        ("Wasted", Right),
        ("Non-empty", Right),
        ("Fill ratio", Right),
        ("Unused slots", Right),
    ];
    table(&mut b, &columns, &w.empty_collections, |c| {
        let fill = if c.non_empty == 0 { String::new() } else { format_bp(c.fill_ratio_bp) };
        vec![
            c.class_name.clone(),
            thousands(c.total),
            thousands(c.empty),
            thousands(c.wasted_bytes),
            thousands(c.non_empty),
            fill,
            thousands(c.unused_slot_bytes),
        ]
    });

    b.push(Block::Heading(3, "Boxed Numbers".into()));
    if w.boxed.is_empty() {
        b.push(text("No boxed numbers."));
    }
    let columns = [
        ("Class", Left),
        ("Instances", Right),
        ("Shallow Heap", Right),
        ("Distinct values", Right),
        ("Duplicates", Right),
        ("Wasted", Right),
        ("Most common", Left),
    ];
    table(&mut b, &columns, &w.boxed, |c| {
        let top = c
            .top_values
            .iter()
            .take(3)
            .map(|v| format!("{} ×{}", v.value, thousands(v.count)))
            .collect::<Vec<_>>()
            .join(", ");
        vec![
            c.class_name.clone(),
            thousands(c.count),
            thousands(c.shallow_bytes),
            thousands(c.distinct_values),
            thousands(c.duplicates),
            thousands(c.wasted_bytes),
            top,
        ]
    });

    let a = &r.allocation_sites;
    b.push(Block::Heading(2, "Allocation Sites".into()));
    if !a.recorded {
        b.push(text("This dump recorded no allocation sites (no object carries an allocation stack with frames)."));
    } else {
        b.push(text(format!(
            "{} objects ({} bytes) with a recorded allocation stack, at {} sites; {} objects without one.",
            thousands(a.objects),
            thousands(a.shallow_bytes),
            thousands(a.distinct_sites),
            thousands(a.objects_without_site)
        )));
        table(
            &mut b,
            &[("Allocated at", Left), ("Objects", Right), ("Shallow Heap", Right), ("Classes", Left)],
            &a.sites,
            |s| {
                let classes = s
                    .classes
                    .iter()
                    .map(|c| format!("{} ({})", c.class_name, thousands(c.shallow_bytes)))
                    .collect::<Vec<_>>()
                    .join(", ");
                vec![
                    s.frames.first().cloned().unwrap_or_else(|| "(no frames)".into()),
                    thousands(s.objects),
                    thousands(s.shallow_bytes),
                    classes,
                ]
            },
        );
    }
    b
}
