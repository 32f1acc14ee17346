//! Escaping untrusted text for an output format (shared by the renderers).

use crate::model::document::Inline;
use crate::text::clean;

/// Text escaped for an output format: first made printable by the one cleaner of dump
/// text ([`crate::text::clean`]: a line break, a tab or another control character shows
/// as its escape, `\n`, so a name cannot break a table row), then `special` writes the
/// format's escape for a character and says whether it did.
pub fn escape_with(s: &str, special: impl Fn(char, &mut String) -> bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for ch in clean(s).chars() {
        if !special(ch, &mut out) {
            out.push(ch);
        }
    }
    out
}

/// Writes runs of text, escaped, with the format's markers around strong runs.
pub fn write_inlines(out: &mut String, parts: &[Inline], escape: fn(&str) -> String, strong: (&str, &str)) {
    for part in parts {
        match part {
            Inline::Text(s) => out.push_str(&escape(s)),
            Inline::Strong(s) => {
                out.push_str(strong.0);
                out.push_str(&escape(s));
                out.push_str(strong.1);
            }
        }
    }
}
