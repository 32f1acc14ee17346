//! The thread overview as document blocks (the report's Threads section).

use std::fmt::Write;

use crate::model::format::thousands;
use crate::model::threads::ThreadInfo;
use crate::model::ObjectRef;
use crate::text::clean;

/// The thread overview as blocks of the report document (Markdown and HTML): a table of
/// all threads, then each thread's stack with the objects its frames hold.
pub fn document_blocks(threads: &[ThreadInfo]) -> Vec<crate::model::document::Block> {
    use crate::model::document::{Align::*, Block, Inline};
    let mut blocks = vec![Block::Heading(2, "Threads".into())];
    if threads.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text("No thread objects in this dump.".into())]));
        return blocks;
    }
    let cols = |spec: &[(&str, crate::model::document::Align)]| {
        spec.iter().map(|&(n, a)| (n.to_string(), a)).collect::<Vec<_>>()
    };
    let name_of = |t: &ThreadInfo| t.name.clone().unwrap_or_else(|| "(no name)".into());
    let yes_no = |d: Option<bool>| d.map(|d| if d { "yes" } else { "no" }).unwrap_or("").to_string();
    blocks.push(Block::Table {
        columns: cols(&[
            ("Thread", Left),
            ("Name", Left),
            ("Daemon", Left),
            ("Priority", Right),
            ("Frames", Right),
            ("Shallow Heap", Right),
            ("Retained Heap", Right),
        ]),
        rows: threads
            .iter()
            .map(|t| {
                vec![
                    format!("{} @ {}", t.class_name, t.address),
                    name_of(t),
                    yes_no(t.daemon),
                    t.priority.map(|p| p.to_string()).unwrap_or_default(),
                    if t.has_stack { t.frames.len().to_string() } else { "no stack recorded".into() },
                    thousands(t.shallow_bytes),
                    thousands(t.retained_bytes),
                ]
            })
            .collect(),
    });
    let local_row = |o: &ObjectRef| {
        vec![format!("↳ {} @ {}", o.class_name, o.address), thousands(o.shallow_bytes), thousands(o.retained_bytes)]
    };
    for t in threads {
        if t.frames.is_empty() && t.other_locals.is_empty() {
            continue;
        }
        blocks.push(Block::Heading(3, format!("{} ({} @ {})", name_of(t), t.class_name, t.address)));
        let mut rows = Vec::new();
        for f in &t.frames {
            rows.push(vec![f.frame.clone(), String::new(), String::new()]);
            // A local held in several slots of one frame is listed once, with how many.
            for (i, l) in f.locals.iter().enumerate() {
                if f.locals[..i].iter().any(|x| x.address == l.address) {
                    continue;
                }
                let mut row = local_row(l);
                let n = f.locals.iter().filter(|x| x.address == l.address).count();
                if n > 1 {
                    row[0].push_str(&format!(" ({n} slots)"));
                }
                rows.push(row);
            }
        }
        if !t.other_locals.is_empty() {
            rows.push(vec![
                if t.has_stack { "locals outside the recorded frames" } else { "no stack recorded; locals" }.into(),
                String::new(),
                String::new(),
            ]);
            rows.extend(t.other_locals.iter().map(local_row));
        }
        blocks.push(Block::Table {
            columns: cols(&[("Stack frame / local", Left), ("Shallow Heap", Right), ("Retained Heap", Right)]),
            rows,
        });
    }
    blocks
}

fn local_line(out: &mut String, o: &ObjectRef) {
    let _ = writeln!(
        out,
        "        {} @ {}  shallow {}  retained {}",
        o.class_name,
        o.address,
        thousands(o.shallow_bytes),
        thousands(o.retained_bytes)
    );
}

/// The thread overview for a terminal: one block per thread, its frames, under each
/// frame the objects it holds. Control characters from the dump are escaped.
pub fn render_text(threads: &[ThreadInfo]) -> String {
    let mut out = String::new();
    if threads.is_empty() {
        out.push_str("No thread objects in this dump.\n");
    }
    for t in threads {
        let mut facts = vec![
            format!("retained {} bytes", thousands(t.retained_bytes)),
            format!("shallow {}", thousands(t.shallow_bytes)),
        ];
        if let Some(d) = t.daemon {
            facts.push(if d { "daemon".into() } else { "not daemon".into() });
        }
        if let Some(p) = t.priority {
            facts.push(format!("priority {p}"));
        }
        if let Some(l) = &t.context_class_loader {
            facts.push(format!("context loader {}", clean(l)));
        }
        let name = t.name.as_deref().map(|n| format!("\"{}\"", clean(n))).unwrap_or_else(|| "(no name)".into());
        let _ = writeln!(out, "{name}  {} @ {}  {}", clean(&t.class_name), t.address, facts.join(", "));
        if !t.has_stack {
            out.push_str("    no stack recorded\n");
        } else if t.frames.is_empty() {
            out.push_str("    (the stack recorded has no frames)\n");
        }
        for f in &t.frames {
            let _ = writeln!(out, "    {}", clean(&f.frame));
            for o in &f.locals {
                local_line(&mut out, &printable_ref(o));
            }
        }
        if !t.other_locals.is_empty() {
            out.push_str(if t.has_stack {
                "    locals outside the recorded frames:\n"
            } else {
                "    locals (frames unknown):\n"
            });
            for o in &t.other_locals {
                local_line(&mut out, &printable_ref(o));
            }
        }
        out.push('\n');
    }
    out
}

fn printable_ref(o: &ObjectRef) -> ObjectRef {
    ObjectRef { class_name: clean(&o.class_name).into_owned(), ..o.clone() }
}
