//! Bars, sparklines and trees drawn with characters, for `-f md-graphs`: Markdown that
//! reads well in a terminal. Each is preformatted text ([`Block::Code`]); the names in it
//! come from the dump and are escaped by the renderer like every other text.

use crate::model::document::Block;
use crate::model::format::{format_bp, thousands};
use crate::model::*;

/// Width of a full bar, in characters.
pub const BAR_WIDTH: usize = 24;

const EIGHTHS: [char; 8] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];
const SPARKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A bar of `bp` basis points of `BAR_WIDTH` characters (eighths of a character at its
/// end), padded with spaces to the full width.
pub fn bar(bp: u32) -> String {
    let eighths = (bp.min(10_000) as usize * BAR_WIDTH * 8 + 5_000) / 10_000;
    let mut s: String = "█".repeat(eighths / 8);
    if eighths % 8 > 0 {
        s.push(EIGHTHS[eighths % 8 - 1]);
    }
    let used = s.chars().count();
    s.push_str(&" ".repeat(BAR_WIDTH - used));
    s
}

/// One character per value, its height relative to the largest.
pub fn sparkline(values: &[u64]) -> String {
    let max = values.iter().copied().max().unwrap_or(0);
    values
        .iter()
        .map(|&v| if max == 0 { SPARKS[0] } else { SPARKS[((v as u128 * 7 + max as u128 / 2) / max as u128) as usize] })
        .collect()
}

/// Labelled bars: `label  ████▌   12.34%  (detail)`, labels padded to the longest.
pub fn bars(rows: &[(String, u32, String)]) -> Block {
    let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0).min(60);
    let mut out = String::new();
    for (label, bp, detail) in rows {
        let label: String = label.chars().take(60).collect();
        let pad = width.saturating_sub(label.chars().count());
        out.push_str(&format!("{label}{}  {} {:>7}  {detail}\n", " ".repeat(pad), bar(*bp), format_bp(*bp)));
    }
    Block::Code(out)
}

fn label(o: &ObjectRef) -> String {
    match &o.class_of_object {
        Some(c) => format!("class {c} @ {}", o.address),
        None => format!("{} @ {}", o.class_name, o.address),
    }
}

/// The OOM triage's picture: the largest top-level dominators as a sparkline, and the
/// shares the triage names as bars.
pub fn triage(r: &Report, t: &OomTriage) -> Vec<Block> {
    let sizes: Vec<u64> = r.top_dominators.iter().take(40).map(|o| o.retained_bytes).collect();
    let mut out = vec![bars(&[
        ("largest top-level dominator".into(), t.largest_bp, String::new()),
        ("five largest".into(), t.top5_bp, String::new()),
        ("leak suspects".into(), t.suspects_bp, format!("{} suspects", t.suspects)),
    ])];
    if !sizes.is_empty() {
        out.push(Block::Code(format!(
            "{}  the {} largest top-level dominators, largest first\n",
            sparkline(&sizes),
            sizes.len()
        )));
    }
    out
}

/// A suspect's root path drawn from the GC root down to the suspect, each step with the
/// field its parent holds it by.
pub fn root_path(p: &RootPath) -> Block {
    let mut out = String::new();
    let types = if p.root_types.is_empty() { "GC root".to_string() } else { p.root_types.join(", ") };
    let listed = p.steps.len();
    // The steps left out sit after the first half (suspect side) of those listed.
    let gap_after = if p.omitted > 0 { Some(listed / 2) } else { None };
    for (depth, k) in (0..listed).rev().enumerate() {
        let step = &p.steps[k];
        let indent = "   ".repeat(depth.min(40));
        let name = match &step.run {
            Some(r) => format!("{} × {} linked by {}", thousands(r.nodes), label(&step.object), r.field),
            None => label(&step.object),
        };
        if depth == 0 {
            out.push_str(&format!("{name}  [GC root: {types}]\n"));
        } else {
            out.push_str(&format!("{indent}└─ {}: {name}\n", step.held_by.join(", ")));
        }
        if gap_after == Some(k) {
            out.push_str(&format!("{}   … {} more\n", "   ".repeat(depth.min(40)), thousands(p.omitted)));
        }
    }
    Block::Code(out)
}

/// A dominator subtree as a tree: `├─`, `└─` and `│` by depth, each object with what it
/// retains.
pub fn subtree(s: &DominatorSubtree) -> Block {
    let nodes = &s.nodes;
    let mut out = String::new();
    // Whether the node at each depth so far has a later sibling (a `│` below it).
    let mut open: Vec<bool> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let d = n.depth as usize;
        let last = !nodes[i + 1..].iter().take_while(|m| m.depth as usize >= d).any(|m| m.depth as usize == d);
        open.truncate(d);
        let mut line = String::new();
        if d > 0 {
            for &o in &open[1..] {
                line.push_str(if o { "│  " } else { "   " });
            }
            line.push_str(if last { "└─ " } else { "├─ " });
        }
        line.push_str(&format!(
            "{}  {} ({})",
            label(&n.object),
            thousands(n.object.retained_bytes),
            format_bp(n.object.retained_bp)
        ));
        if n.omitted_children > 0 {
            line.push_str(&format!(
                "  + {} more retaining {}",
                thousands(n.omitted_children),
                thousands(n.omitted_retained_bytes)
            ));
        }
        out.push_str(&line);
        out.push('\n');
        open.push(!last);
    }
    Block::Code(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_and_sparklines() {
        assert_eq!(bar(10_000), "█".repeat(BAR_WIDTH));
        assert_eq!(bar(0), " ".repeat(BAR_WIDTH));
        // Half: twelve full blocks, then spaces.
        assert_eq!(bar(5_000), format!("{}{}", "█".repeat(12), " ".repeat(12)));
        // One eighth of a character: 10,000 / (24 × 8) ≈ 52 bp.
        assert_eq!(bar(52).chars().next(), Some('▏'));
        assert_eq!(sparkline(&[8, 4, 0]), "█▅▁");
        assert_eq!(sparkline(&[0, 0]), "▁▁");
    }
}
