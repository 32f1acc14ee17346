//! What a leak suspect holds, as tables of the report for people.

use super::document::{chain_table, columns, object_label};
use crate::model::document::{Align, Block, Inline};
use crate::model::format::{format_bp, thousands};
use crate::model::{MemberGroup, Structure, Suspect};

/// The suspect in one sentence, in the application's terms, as the report has it (see
/// [`Suspect::headline`]); None without one.
pub fn headline(s: &Suspect) -> Option<String> {
    s.headline.clone()
}

/// A chain named: `a chain of 1,560 com.sun.tools.javac.util.List by tail`.
fn chain_words(c: &crate::model::LinkedChain) -> String {
    format!(
        "a chain of {} {}{}",
        thousands(c.nodes),
        c.class_name,
        c.field.as_ref().map(|f| format!(" by {f}")).unwrap_or_default()
    )
}

/// Groups of objects by class, as a table.
fn groups_table(groups: &[MemberGroup]) -> Block {
    use Align::*;
    Block::Table {
        columns: columns(&[
            ("Class Name", Left),
            ("Objects", Right),
            ("Shallow Heap", Right),
            ("Retained Heap", Right),
        ]),
        rows: groups
            .iter()
            .map(|g| {
                vec![
                    g.class_name.clone(),
                    thousands(g.objects),
                    thousands(g.shallow_bytes),
                    thousands(g.retained_bytes),
                ]
            })
            .collect(),
    }
}

/// A single suspect's structure (where its memory accumulates, linked structures read as
/// one), the frame holding it, and Eclipse MAT's accumulation point where it differs.
pub fn structure(blocks: &mut Vec<Block>, s: &Suspect, st: &Structure) {
    let p = &st.point;
    let mut text = format!(
        " {} — retains {} bytes ({}); it holds {} {}",
        object_label(p),
        thousands(p.retained_bytes),
        format_bp(p.retained_bp),
        thousands(st.members),
        if st.members == 1 { "object" } else { "objects" }
    );
    if let Some(c) = st.chains.first() {
        text.push_str(&format!(", {}", chain_words(c)));
        if st.chains.len() > 1 {
            text.push_str(&format!(" and {} more chains", st.chains.len() - 1));
        }
    }
    text.push('.');
    blocks.push(Block::Paragraph(vec![Inline::Strong("Accumulation point:".into()), Inline::Text(text)]));
    if let Some(f) = &s.frame {
        let mut text = format!(
            " {}, in {}, {} {}",
            f.thread_name.as_deref().unwrap_or(&f.thread),
            f.frame.short,
            match f.how.as_str() {
                "local" => "holds it as the local",
                "references" => "references it from the local",
                _ => "reaches the most of it from the local",
            },
            object_label(&f.local)
        );
        if let Some(r) = f.reach_bytes {
            text.push_str(&format!(" (it reaches {} bytes)", thousands(r)));
        }
        match f.also_in.as_slice() {
            [] => {}
            [one] => text.push_str(&format!("; so does its caller {}", one.short)),
            more => {
                let names: Vec<&str> = more.iter().map(|x| x.short.as_str()).collect();
                text.push_str(&format!("; so do its callers {}", names.join(", ")));
            }
        }
        text.push('.');
        blocks.push(Block::Paragraph(vec![Inline::Strong("Held by a running frame:".into()), Inline::Text(text)]));
    }
    // Eclipse MAT's own reading, where it differs.
    let same = s.accumulation_point.as_ref().is_some_and(|ap| ap.address == p.address);
    if !same {
        let mat = match &s.accumulation_point {
            Some(ap) => format!(
                " {} — retains {} bytes ({}).",
                object_label(ap),
                thousands(ap.retained_bytes),
                format_bp(ap.retained_bp)
            ),
            None => format!(
                " none: its walk down the dominator tree stopped after {} steps{}.",
                thousands(s.chain.len() as u64 + s.chain_omitted - 1),
                s.chain.last().map(|o| format!(" at {}", o.class_name)).unwrap_or_default()
            ),
        };
        blocks.push(Block::Paragraph(vec![
            Inline::Text("Eclipse MAT's accumulation point (linked structures step by step):".into()),
            Inline::Text(mat),
        ]));
    }
    if !st.groups.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text(
            "What it holds, by class (a chain's nodes side by side, each without the rest of its chain):".into(),
        )]));
        blocks.push(groups_table(&st.groups));
    }
    if st.path.len() > 1 {
        blocks.push(Block::Paragraph(vec![Inline::Text("Dominator chain from the suspect to it:".into())]));
        blocks.push(chain_table(&st.path, st.path_omitted));
    }
}

/// The suspect's accumulated objects and biggest members, as tables of the report for
/// people.
pub fn blocks(blocks: &mut Vec<Block>, s: &Suspect) {
    use Align::*;
    if !s.accumulated.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text("Accumulated objects by class in the dominator tree:".into())]));
        blocks.push(groups_table(&s.accumulated));
    }
    if !s.biggest_members.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text(format!(
            "Biggest members ({} of {}):",
            s.biggest_members.len(),
            thousands(s.instances)
        ))]));
        // The name column only when some member has one (threads).
        let named = s.biggest_members.iter().any(|m| m.name.is_some());
        let mut cols = vec![("Object", Left)];
        if named {
            cols.push(("Name", Left));
        }
        cols.push(("Retained Heap", Right));
        blocks.push(Block::Table {
            columns: columns(&cols),
            rows: s
                .biggest_members
                .iter()
                .map(|m| {
                    let mut row = vec![object_label(&m.object)];
                    if named {
                        row.push(m.name.clone().unwrap_or_default());
                    }
                    row.push(thousands(m.object.retained_bytes));
                    row
                })
                .collect(),
        });
    }
}
