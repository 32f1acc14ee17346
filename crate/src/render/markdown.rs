//! The report [document](super::document) as Markdown.
//!
//! Every piece of text is escaped: class names may contain `|`, `*`, `<script>` and
//! anything else, and must stay text in every Markdown viewer.

use std::fmt::Write;

use super::document::document;
use super::escape::{escape_with, write_inlines};
use crate::model::document::{Align, Block, Document};
use crate::model::Report;

/// Escapes text for Markdown (tables included) so that it renders literally.
pub fn escape(s: &str) -> String {
    escape_with(s, |ch, out| {
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
            _ => return false,
        }
        true
    })
}

/// The report as Markdown.
pub fn render(r: &Report) -> String {
    render_document(&document(r))
}

/// Any document (the report, a comparison) as Markdown.
pub fn render_document(doc: &Document) -> String {
    let mut out = String::new();
    for block in &doc.blocks {
        match block {
            Block::Heading(level, s) => {
                let _ = writeln!(out, "{} {}\n", "#".repeat(usize::from(*level)), escape(s));
            }
            Block::Paragraph(parts) => {
                write_inlines(&mut out, parts, escape, ("**", "**"));
                out.push_str("\n\n");
            }
            Block::Note(parts) => {
                out.push_str("> ");
                write_inlines(&mut out, parts, escape, ("**", "**"));
                out.push_str("\n\n");
            }
            Block::Table { columns, rows } => {
                out.push('|');
                for (name, _) in columns {
                    let _ = write!(out, " {} |", escape(name));
                }
                out.push_str("\n|");
                for (_, align) in columns {
                    out.push_str(if *align == Align::Right { "--:|" } else { "---|" });
                }
                out.push('\n');
                for row in rows {
                    out.push('|');
                    for cell in row {
                        let _ = write!(out, " {} |", escape(cell));
                    }
                    out.push('\n');
                }
                out.push('\n');
            }
            Block::List(items) => {
                for item in items {
                    let _ = writeln!(out, "- {}", escape(item));
                }
                out.push('\n');
            }
            Block::Code(lines) => {
                // Control characters escaped; a fence longer than any run of backticks in
                // the text, so none closes it.
                let lines: Vec<String> = lines.iter().map(|l| escape_with(l, |_, _| false)).collect();
                let longest = lines.iter().flat_map(|l| l.split(|c| c != '`')).map(str::len).max().unwrap_or(0);
                let fence = "`".repeat(longest.max(2) + 1);
                let _ = writeln!(out, "{fence}text");
                for line in &lines {
                    let _ = writeln!(out, "{line}");
                }
                let _ = writeln!(out, "{fence}\n");
            }
        }
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
