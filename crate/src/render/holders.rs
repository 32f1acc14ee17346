//! The command line's text for `paths` and `classes-up`: a leak trace drawn the way
//! LeakCanary draws one (a line per step, the reference below it), then the other ways of
//! each stretch; the classes-up rows indented by level. Names from the dump are printed
//! with control characters escaped, so one cannot break a line or drive the terminal.

use std::fmt::Write;

use crate::model::format::thousands;
use crate::model::ObjectRef;
use crate::query::holders::{ClassRow, ClassesUp, Paths, WayStep};
use crate::text::clean;

fn object(o: &ObjectRef) -> String {
    let name = match &o.class_of_object {
        Some(c) => format!("class {}", clean(c)),
        None => clean(&o.class_name).into_owned(),
    };
    format!(
        "{name} @ {} (shallow {} B, retained {} B)",
        o.address,
        thousands(o.shallow_bytes),
        thousands(o.retained_bytes)
    )
}

fn via(v: &[String]) -> String {
    v.iter().map(|x| clean(x)).collect::<Vec<_>>().join(", ")
}

/// The leak trace and the other ways, for a terminal.
pub fn render_paths(p: &Paths, tree: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Leak trace of {} ({tree} dominator tree)", object(&p.object));
    let _ = writeln!(out, "Steps marked ◆ dominate it: every path from the GC roots to it goes through them.\n");
    let last = p.trace.len().saturating_sub(1);
    for (i, s) in p.trace.iter().enumerate() {
        if i == 0 {
            let _ = writeln!(out, "┬───");
            let _ =
                writeln!(out, "│ GC root: {}", if s.gc_root.is_empty() { "-".to_string() } else { via(&s.gc_root) });
            let _ = writeln!(out, "│");
        }
        let mark = if s.dominates { "◆ " } else { "" };
        if i == last {
            let _ = writeln!(out, "╰→ {}", object(&s.object));
        } else {
            match &s.run {
                // A linked structure on the way, as one step.
                Some(r) => {
                    let _ = writeln!(
                        out,
                        "├─ {mark}{} × {} linked by {}",
                        thousands(r.nodes),
                        clean(&s.object.class_name),
                        clean(&r.field)
                    );
                    let _ = writeln!(out, "│    from {} to {}", object(&s.object), object(&r.last));
                }
                None => {
                    let _ = writeln!(out, "├─ {mark}{}", object(&s.object));
                }
            }
            let _ = writeln!(out, "│    ↓ {}", if s.via.is_empty() { "?".to_string() } else { via(&s.via) });
            if i + 1 == crate::query::holders::TRACE_HEAD && p.elided_steps > 0 {
                let _ = writeln!(out, "│  … {} more steps …", thousands(p.elided_steps));
            }
        }
    }
    let dominator = p.trace.iter().rev().find(|s| s.dominates);
    // Garbage (kept by --keep-unreachable, or in the strength-aware tree) is traced from
    // its entry point: nothing holds it, rather than everything.
    let garbage = p.trace.first().is_some_and(|s| s.gc_root.iter().any(|k| k == "Unreachable"));
    let nothing = if garbage {
        "uncollected garbage (nothing holds it)"
    } else {
        // The inspector's and the page's phrase for an object without an immediate dominator.
        "none: it is a top-level dominator (no single object is on every path from the GC roots to it)"
    };
    let _ = writeln!(out, "\nDominator: {}", dominator.map_or(nothing.to_string(), |s| object(&s.object)));
    for s in &p.stretches {
        let from = s.from.as_ref().map_or("the GC roots".to_string(), object);
        let _ = writeln!(
            out,
            "\nHeld how else, from {from}\n  to {}: {} independent path{}{}",
            object(&s.to),
            s.paths.len(),
            if s.paths.len() == 1 { "" } else { "s" },
            if s.has_more { " (the search stopped at the limit; there may be more)" } else { "" }
        );
        for (k, path) in s.paths.iter().enumerate() {
            let _ = writeln!(out, "  {}.", k + 1);
            write_way(&mut out, path);
        }
    }
    out
}

fn write_way(out: &mut String, path: &[WayStep]) {
    for (i, step) in path.iter().enumerate() {
        let root = if step.gc_root.is_empty() { String::new() } else { format!("[GC root: {}] ", via(&step.gc_root)) };
        let _ = writeln!(out, "     {root}{}", object(&step.object));
        if i + 1 < path.len() {
            let _ = writeln!(out, "       ↓ {}", if step.via.is_empty() { "?".to_string() } else { via(&step.via) });
        }
    }
}

/// The classes-up rows, each level indented below the row it stands above. Rows past
/// `per_level` at a level are summarised in one line.
pub fn render_classes_up(c: &ClassesUp, tree: &str, per_level: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Classes up ({tree} dominator tree): each row's weight is the shallow bytes at the bottom of its"
    );
    let _ = writeln!(out, "column; the rows indented under it are the classes of the objects dominating them.\n");
    let _ = writeln!(out, "{:>16} {:>12}  class", "weight B", "objects");
    // (rows of a level, next row, depth)
    let mut stack: Vec<(&[ClassRow], usize, usize)> = vec![(&c.rows, 0, 0)];
    while let Some((rows, k, depth)) = stack.pop() {
        if k >= rows.len() {
            continue;
        }
        let indent = "  ".repeat(depth);
        if k >= per_level {
            let rest = &rows[k..];
            let _ = writeln!(
                out,
                "{:>16} {:>12}  {indent}… {} more rows",
                thousands(rest.iter().map(|r| r.weight_bytes).sum()),
                thousands(rest.iter().map(|r| r.objects).sum()),
                rest.len()
            );
            continue;
        }
        let r = &rows[k];
        let up = if depth > 0 { "↑ " } else { "" };
        let _ = writeln!(
            out,
            "{:>16} {:>12}  {indent}{up}{}",
            thousands(r.weight_bytes),
            thousands(r.objects),
            clean(&r.class_name)
        );
        stack.push((rows, k + 1, depth));
        stack.push((&r.above, 0, depth + 1));
    }
    out
}
