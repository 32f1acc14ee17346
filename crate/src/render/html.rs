//! The report [document](super::document) as one self-contained HTML file: styles
//! inline, no script, no image, nothing fetched. Its Content-Security-Policy forbids
//! scripts and every request, so even a viewer that mis-parsed it could run nothing
//! from the dump; and every piece of text is escaped anyway.

use std::fmt::Write;

use super::document::document_with;
use super::escape::{escape_with, write_inlines};
use super::RenderOptions;
use crate::model::document::{Align, Block, Document};
use crate::model::Report;

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    escape_with(s, |ch, out| {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => return false,
        }
        true
    })
}

const STYLE: &str = "\
:root{color-scheme:light dark;--line:#8884;--muted:#888}\
body{font:14px/1.45 system-ui,sans-serif;margin:0;padding:2rem;max-width:76rem}\
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line)}\
h3{font-size:1.05rem;margin:1.25rem 0 .4rem}p{margin:.4rem 0 .8rem;overflow-wrap:anywhere}\
table{border-collapse:collapse;margin:.25rem 0 1rem;font-variant-numeric:tabular-nums}\
th,td{padding:.2rem .6rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top;overflow-wrap:anywhere}\
th{font-weight:600}.num{text-align:right;white-space:nowrap}\
.note{border-left:4px solid #d80;padding:.4rem .8rem;background:#d801}\
pre{font:12px/1.35 ui-monospace,monospace;overflow-x:auto;padding:.5rem;border:1px solid var(--line)}\
footer{margin-top:2rem;color:var(--muted);font-size:12px}";

/// The report as an HTML file.
pub fn render(r: &Report) -> String {
    render_with(r, &RenderOptions::default())
}

/// The report as an HTML file with `options`.
pub fn render_with(r: &Report, options: &RenderOptions) -> String {
    render_document(&document_with(r, options))
}

/// Any document (the report, a comparison) as an HTML file.
pub fn render_document(doc: &Document) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"heapscope\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n",
        escape(&doc.title)
    );
    for block in &doc.blocks {
        match block {
            Block::Heading(level, s) => {
                let _ = writeln!(out, "<h{level}>{}</h{level}>", escape(s));
            }
            Block::Paragraph(parts) => {
                out.push_str("<p>");
                write_inlines(&mut out, parts, escape, ("<strong>", "</strong>"));
                out.push_str("</p>\n");
            }
            Block::Note(parts) => {
                out.push_str("<p class=\"note\">");
                write_inlines(&mut out, parts, escape, ("<strong>", "</strong>"));
                out.push_str("</p>\n");
            }
            Block::Table { columns, rows } => {
                out.push_str("<table>\n<thead><tr>");
                for (name, align) in columns {
                    let class = if *align == Align::Right { " class=\"num\"" } else { "" };
                    let _ = write!(out, "<th{class}>{}</th>", escape(name));
                }
                out.push_str("</tr></thead>\n<tbody>\n");
                for row in rows {
                    out.push_str("<tr>");
                    for (i, cell) in row.iter().enumerate() {
                        let class =
                            if columns.get(i).is_some_and(|c| c.1 == Align::Right) { " class=\"num\"" } else { "" };
                        let _ = write!(out, "<td{class}>{}</td>", escape(cell));
                    }
                    out.push_str("</tr>\n");
                }
                out.push_str("</tbody>\n</table>\n");
            }
            Block::List(items) => {
                out.push_str("<ul>\n");
                for item in items {
                    let _ = writeln!(out, "<li>{}</li>", escape(item));
                }
                out.push_str("</ul>\n");
            }
            Block::Code(text) => {
                out.push_str("<pre>");
                for line in text.lines() {
                    out.push_str(&escape(line));
                    out.push('\n');
                }
                out.push_str("</pre>\n");
            }
        }
    }
    out.push_str("</main>\n<footer>Written by heapscope from a heap dump analyzed on the user's machine; the report holds names and sizes from that dump.</footer>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_from_the_dump() {
        assert_eq!(escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(escape("\" onload='x' &"), "&quot; onload=&#39;x&#39; &amp;");
        assert_eq!(escape("a\u{0}b\nc"), "a\\u{0}b\\nc");
    }
}
