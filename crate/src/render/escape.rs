//! Escaping untrusted text for an output format (shared by the renderers).

use crate::model::document::Inline;

/// Text escaped for an output format: `special` writes the format's escape for a
/// character and says whether it did; line breaks and tabs become spaces (a name cannot
/// break a table row) and other control characters U+FFFD.
pub fn escape_with(s: &str, special: impl Fn(char, &mut String) -> bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        if special(ch, &mut out) {
            continue;
        }
        match ch {
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
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
