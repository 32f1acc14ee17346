//! Text from the dump made safe to print: the one cleaner every writer puts dump text
//! through (error messages, terminal output, Markdown, HTML).
//!
//! A dump is untrusted input: a class name, a String's text or a thread's name may hold
//! newlines, terminal escape sequences or Unicode line separators. Printed as they are,
//! they could break a line (a table row, a one-line message), move a terminal's cursor or
//! recolour it. [`one_line`] shows each such character as its Rust escape (`\n`,
//! `\u{1b}`, `\u{2028}`), so the text stays on one line, inert, and still says what the
//! dump holds.

use std::borrow::Cow;

/// Whether `c` is shown escaped: control characters and the Unicode line and paragraph
/// separators.
fn is_unsafe(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// `s` with control characters and line separators escaped (`\n`, `\u{1b}`): one line
/// that cannot move a terminal's cursor.
pub fn one_line(s: impl Into<String>) -> String {
    let s = s.into();
    match clean(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(cleaned) => cleaned,
    }
}

/// [`one_line`] without a copy when nothing needs escaping.
pub fn clean(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(one_line("class a\nb\u{1b}[2J\u{2028}c\td"), "class a\\nb\\u{1b}[2J\\u{2028}c\\td");
        assert!(matches!(clean("plain ünïcode $|*"), Cow::Borrowed("plain ünïcode $|*")));
        assert_eq!(clean("\u{0}\u{7f}\u{85}"), "\\u{0}\\u{7f}\\u{85}");
    }
}
