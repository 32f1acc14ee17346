//! The report as Markdown, for people: MAT's System Overview, Leak Suspects and Top
//! Consumers on one page.
//!
//! Rendered from the [`Report`] alone, so a saved JSON report renders the same way.
//! Every string from the dump is escaped: class names may contain `|`, `*`, `<script>`
//! and anything else, and must stay text in every Markdown viewer.

use std::fmt::Write;

use super::build::{format_bp, format_bytes};
use super::model::*;

const HISTOGRAM_ROWS: usize = 25;
const UNREACHABLE_ROWS: usize = 20;
const TOP_OBJECTS: usize = 20;

/// Escapes text for Markdown (tables included) so that it renders literally.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // Brackets are escaped, so parentheses cannot form links; `$` would start
            // math on some renderers.
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '$' => {
                out.push('\\');
                out.push(ch);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn mib(n: u64) -> String {
    if n >= 1 << 30 {
        format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64)
    } else if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

fn object_label(o: &ObjectRef) -> String {
    match &o.class_of_object {
        Some(c) => format!("class {} @ {}", escape(c), o.address),
        None => format!("{} @ {}", escape(&o.class_name), o.address),
    }
}

fn object_table(out: &mut String, rows: &[ObjectRef]) {
    out.push_str("| Object | Shallow Heap | Retained Heap | % of Heap |\n|---|--:|--:|--:|\n");
    for o in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            object_label(o),
            format_bytes(o.shallow_bytes),
            format_bytes(o.retained_bytes),
            format_bp(o.retained_bp)
        );
    }
}

fn consumer_table(out: &mut String, title: &str, what: &str, rows: &[Consumer]) {
    let _ = writeln!(out, "### {title}\n");
    if rows.is_empty() {
        out.push_str("None above the threshold.\n\n");
        return;
    }
    let _ = writeln!(out, "| {what} | Objects | Retained Heap | % of Heap |\n|---|--:|--:|--:|");
    for c in rows {
        let _ = writeln!(out, "| {} | {} | {} | {} |", escape(&c.name), format_bytes(c.objects), format_bytes(c.retained_bytes), format_bp(c.retained_bp));
    }
    out.push('\n');
}

pub fn render(r: &Report) -> String {
    let mut out = String::new();
    let title = r.source.file_name.as_deref().map(escape).unwrap_or_else(|| "heap dump".into());
    let _ = writeln!(out, "# Heap dump analysis: {title}\n");
    let _ = writeln!(
        out,
        "{} · {} · {} · {}-byte ids{} · object alignment {}\n",
        escape(&r.tool),
        escape(&r.dump.format),
        r.dump.platform,
        r.dump.id_size,
        if r.dump.compressed_oops { ", compressed oops" } else { "" },
        r.dump.object_alignment
    );
    if let Some(inc) = &r.incomplete {
        let _ = writeln!(
            out,
            "> **Incomplete dump.** Reading stopped at byte {}: {}. Everything below covers the records before that point.\n",
            format_bytes(inc.offset),
            escape(&inc.message)
        );
    }

    let o = &r.overview;
    out.push_str("## System Overview\n\n### Heap Summary\n\n| | |\n|---|--:|\n");
    let _ = writeln!(out, "| Used heap | {} bytes ({}) |", format_bytes(o.used_heap_bytes), mib(o.used_heap_bytes));
    let _ = writeln!(out, "| Objects | {} |", format_bytes(o.objects));
    let _ = writeln!(out, "| Classes | {} |", format_bytes(o.classes));
    let _ = writeln!(out, "| Class loaders | {} |", format_bytes(o.class_loaders));
    let _ = writeln!(out, "| GC roots | {} |", format_bytes(o.gc_roots));
    let _ = writeln!(out, "| Top-level dominators | {} |", format_bytes(o.top_level_dominators));
    let _ = writeln!(
        out,
        "| Unreachable objects ({}) | {} objects, {} bytes |",
        if o.unreachable.discarded { "discarded" } else { "kept" },
        format_bytes(o.unreachable.objects),
        format_bytes(o.unreachable.shallow_bytes)
    );
    let _ = writeln!(out, "| Dump file | {} bytes{} |", format_bytes(r.source.file_bytes), if r.source.gzip { " (gzip)" } else { "" });
    let _ = writeln!(out, "| HPROF data | {} bytes |\n", format_bytes(r.source.hprof_bytes));

    out.push_str("### GC Roots by Type\n\n| Type | Objects |\n|---|--:|\n");
    for t in &o.gc_roots_by_type {
        let name = if t.name == t.mat_name { t.name.clone() } else { format!("{} (MAT: {})", t.name, t.mat_name) };
        let _ = writeln!(out, "| {} | {} |", escape(&name), format_bytes(t.objects));
    }
    out.push('\n');

    if o.unreachable.objects > 0 {
        let _ = writeln!(
            out,
            "### Unreachable Objects\n\n{} objects ({} bytes) are not reachable from any GC root{}.\n",
            format_bytes(o.unreachable.objects),
            format_bytes(o.unreachable.shallow_bytes),
            if o.unreachable.discarded { " and were left out of every number above and below, as in Eclipse MAT" } else { "" }
        );
        out.push_str("| Class | Objects | Shallow Heap |\n|---|--:|--:|\n");
        for c in o.unreachable.classes.iter().take(UNREACHABLE_ROWS) {
            let _ = writeln!(out, "| {} | {} | {} |", escape(&c.class_name), format_bytes(c.objects), format_bytes(c.shallow_bytes));
        }
        out.push('\n');
    }

    let _ = writeln!(out, "### Classes by Retained Heap\n\nTop {} of {} classes. Retained heap is MAT's quick lower bound.\n", HISTOGRAM_ROWS.min(r.histogram.len()), r.histogram.len());
    out.push_str("| # | Class | Instances | Shallow Heap | Retained Heap |\n|--:|---|--:|--:|--:|\n");
    for (i, h) in r.histogram.iter().take(HISTOGRAM_ROWS).enumerate() {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            i + 1,
            escape(&h.class_name),
            format_bytes(h.instances),
            format_bytes(h.shallow_bytes),
            format_bytes(h.retained_bytes_min)
        );
    }
    out.push('\n');

    out.push_str("## Leak Suspects\n\n");
    if r.leak_suspects.suspects.is_empty() {
        let _ = writeln!(out, "No object or group of objects retains more than {} bytes (10% of the used heap).\n", format_bytes(r.leak_suspects.threshold_bytes));
    }
    for (i, s) in r.leak_suspects.suspects.iter().enumerate() {
        let _ = writeln!(out, "### Problem Suspect {}\n\n{}\n", i + 1, escape(&s.description));
        match (&s.kind, &s.accumulation_point) {
            (_, Some(ap)) => {
                let _ = writeln!(out, "**Accumulation point:** {} — retains {} bytes ({}).\n", object_label(ap), format_bytes(ap.retained_bytes), format_bp(ap.retained_bp));
            }
            (SuspectKind::SingleObject, None) => {
                out.push_str("**Accumulation point:** none — no single object below the suspect holds 70% of its memory within 1,000 steps.\n\n");
            }
            (SuspectKind::GroupOfObjects, None) => {
                out.push_str("**Accumulation point:** none — the members are not held by one common object.\n\n");
            }
        }
        if !s.chain.is_empty() {
            let what = match s.kind {
                SuspectKind::SingleObject => "Dominator chain from the suspect to the accumulation point",
                SuspectKind::GroupOfObjects => "Reference path shared by most members, from its GC root",
            };
            let _ = writeln!(out, "{what}:\n");
            out.push_str("| Depth | Object | Shallow Heap | Retained Heap | % of Heap |\n|--:|---|--:|--:|--:|\n");
            let head = if s.chain_omitted > 0 { 20 } else { s.chain.len() };
            for (d, c) in s.chain.iter().enumerate() {
                if d == head && s.chain_omitted > 0 {
                    let _ = writeln!(out, "| … | {} more | | | |", format_bytes(s.chain_omitted));
                }
                let depth = if d < head { d as u64 } else { d as u64 + s.chain_omitted };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    depth,
                    object_label(c),
                    format_bytes(c.shallow_bytes),
                    format_bytes(c.retained_bytes),
                    format_bp(c.retained_bp)
                );
            }
            out.push('\n');
        }
    }

    let t = &r.top_consumers;
    let _ = writeln!(out, "## Top Consumers\n\nTop-level dominators retaining more than {} bytes (1% of the used heap).\n", format_bytes(t.threshold_bytes));
    out.push_str("### Biggest Objects\n\n");
    if t.objects.is_empty() {
        out.push_str("None above the threshold.\n\n");
    } else {
        object_table(&mut out, &t.objects[..t.objects.len().min(TOP_OBJECTS)]);
        out.push('\n');
    }
    consumer_table(&mut out, "Biggest Classes", "Class", &t.classes);
    consumer_table(&mut out, "Biggest Class Loaders", "Class loader", &t.class_loaders);
    consumer_table(&mut out, "Biggest Packages", "Package", &t.packages);

    if !r.warnings.is_empty() {
        out.push_str("## Warnings\n\n");
        for w in &r.warnings {
            let _ = writeln!(out, "- {}", escape(w));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_from_the_dump() {
        assert_eq!(escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(escape("[x](javascript:y)"), "\\[x\\](javascript:y)");
        assert_eq!(escape("a|b"), "a\\|b");
        assert_eq!(escape("java.util.HashMap$Node[]"), "java.util.HashMap\\$Node\\[\\]");
        assert_eq!(escape("x\ny"), "x y");
    }
}
