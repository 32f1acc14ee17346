//! What a leak suspect holds, as tables of the report for people.

use super::document::{columns, object_label};
use crate::model::document::{Align, Block, Inline};
use crate::model::format::thousands;
use crate::model::names::simple_name;
use crate::model::Suspect;

/// "a" or "an" before a class name, as it is read out.
fn article(name: &str) -> &'static str {
    match name.chars().next() {
        Some(c) if "aeiouAEIOU".contains(c) => "an",
        _ => "a",
    }
}

/// The suspect in one sentence, in the application's terms, as the page's headline says
/// it: `com.acme.ui.EventBus.INSTANCE.listeners holds 150 × Screen$1; each holds a
/// com.acme.ui.Screen by this$0` (None without a `held_in`).
pub fn headline(s: &Suspect) -> Option<String> {
    let held = s.held_in.as_ref()?;
    let mut text = match s.accumulated.first() {
        Some(g) => format!("{held} holds {} × {}", thousands(g.objects), simple_name(&g.class_name)),
        None => format!("{held} retains {} bytes", thousands(s.retained_bytes)),
    };
    if let Some(e) = &s.each_holds {
        text.push_str(&format!("; each holds {} {} by {}", article(&e.class_name), e.class_name, e.field));
    }
    Some(text)
}

/// The suspect's accumulated objects and biggest members, as tables of the report for
/// people.
pub fn blocks(blocks: &mut Vec<Block>, s: &Suspect) {
    use Align::*;
    if !s.accumulated.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text("Accumulated objects by class in the dominator tree:".into())]));
        blocks.push(Block::Table {
            columns: columns(&[
                ("Class Name", Left),
                ("Objects", Right),
                ("Shallow Heap", Right),
                ("Retained Heap", Right),
            ]),
            rows: s
                .accumulated
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
        });
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
