//! The report [document](super::document) as Markdown.
//!
//! Every piece of text is escaped: class names may contain `|`, `*`, `<script>` and
//! anything else, and must stay text in every Markdown viewer.

use std::fmt::Write;

use super::document::document_with;
use super::escape::{escape_with, write_inlines};
use super::RenderOptions;
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
    render_with(r, &RenderOptions::default())
}

/// The report as Markdown with `options` (`--detail`'s caps; `md-graphs`' bars,
/// sparklines and trees).
pub fn render_with(r: &Report, options: &RenderOptions) -> String {
    render_document(&document_with(r, options))
}

/// Preformatted text as a fenced block: its lines as they are (control characters
/// escaped, so nothing can end a line early), inside a fence longer than any run of
/// backticks in it, so that nothing in it can close the block.
fn write_code(out: &mut String, text: &str) {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{fence}text");
    for line in text.lines() {
        out.push_str(&escape_with(line, |_, _| false));
        out.push('\n');
    }
    let _ = writeln!(out, "{fence}\n");
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
            Block::Code(text) => write_code(&mut out, text),
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
        // A line break from the dump shows as its escape (the backslash escaped in turn).
        assert_eq!(escape("x\ny"), "x\\\\ny");
    }
}
