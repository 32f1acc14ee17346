//! The one decoder of `java.lang.String` texts (and of `char[]`/`byte[]` read as text),
//! for every layout [`crate::rules::strings`] describes, with the display settings its
//! readers need: Eclipse MAT's (characters 32–126 as they are, every other UTF-16 unit as
//! `\uXXXX`) for the values beside references and the duplicate-string groups, the plain
//! characters for the inspector; each cut at its own length.

use super::locate::ArrayData;
use crate::records::basic_type;
use crate::rules::strings::reading;

/// Characters of a value MAT shows (and groups duplicate strings by).
pub const MAT_MAX_CHARS: usize = 1024;

/// How a text is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    /// As MAT shows it: characters 32–126 as they are, every other UTF-16 unit as
    /// `\uXXXX` (lower-case hex); "..." after the cut.
    Mat,
    /// The characters themselves (a lone surrogate as U+FFFD); "…" after the cut.
    Plain,
}

/// Whether a value array of element type `ty` read as `coder` says holds two bytes per
/// character.
pub fn two_bytes(ty: u8, coder: u8) -> bool {
    ty == basic_type::CHAR || coder == reading::UTF16
}

/// Characters in a value array of `ty` with `len` elements read as `coder` says.
pub fn char_count(ty: u8, coder: u8, len: u64) -> u64 {
    if two_bytes(ty, coder) && ty == basic_type::BYTE {
        len / 2
    } else {
        len
    }
}

/// The UTF-16 units of `bytes`, read as a value array of `ty` with `coder`: a `char[]`
/// big-endian (as HPROF writes it); a JDK 9+ UTF-16 `byte[]` in the platform's order
/// (little-endian on every platform HotSpot dumps come from in practice); any other
/// `byte[]` one byte per character (Latin-1; Android's coder-less `byte[]` values too:
/// ART stores them so).
fn units(ty: u8, coder: u8, bytes: &[u8]) -> Box<dyn Iterator<Item = u16> + '_> {
    match (ty, two_bytes(ty, coder)) {
        (basic_type::CHAR, _) => Box::new(bytes.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]]))),
        (_, true) => Box::new(bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]))),
        _ => Box::new(bytes.iter().map(|&b| b as u16)),
    }
}

/// `units` written as `display` says, at most `max_chars` of them, with the cut's mark
/// when `total` (the characters of the whole value) exceeds `max_chars`.
fn write(units: impl Iterator<Item = u16>, total: u64, display: Display, max_chars: usize) -> String {
    let mut out = String::new();
    match display {
        Display::Mat => {
            for u in units.take(max_chars) {
                if (32..127).contains(&u) {
                    out.push(u as u8 as char);
                } else {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
        Display::Plain => {
            out.extend(char::decode_utf16(units.take(max_chars)).map(|r| r.unwrap_or('\u{fffd}')));
        }
    }
    if total > max_chars as u64 {
        out.push_str(match display {
            Display::Mat => "...",
            Display::Plain => "…",
        });
    }
    out
}

/// The text of a whole value array (its first bytes are `array.data`), as MAT shows it:
/// at most [`MAT_MAX_CHARS`] characters, then "...".
pub fn mat_value(array: &ArrayData, coder: u8) -> String {
    let total = char_count(array.ty, coder, array.len as u64);
    write(units(array.ty, coder, &array.data), total, Display::Mat, MAT_MAX_CHARS)
}

/// `count` characters from character `from` of a value array of `ty` with `len`
/// elements whose first bytes are `data` (a JDK ≤ 6 or old Android String's window; None:
/// the whole array), written as `display` says, at most `max_chars` of them. None when the
/// characters asked for are past the bytes read.
pub fn window_text(
    ty: u8,
    coder: u8,
    len: u64,
    data: &[u8],
    window: Option<(u64, u64)>,
    display: Display,
    max_chars: usize,
) -> Option<String> {
    let total = char_count(ty, coder, len);
    let (from, count) = window.map_or((0, total), |(o, c)| (o.min(total), c.min(total.saturating_sub(o.min(total)))));
    let unit = if two_bytes(ty, coder) { 2 } else { 1 };
    let shown = count.min(max_chars as u64);
    let start = (from * unit) as usize;
    let bytes = data.get(start..start + (shown * unit) as usize)?;
    Some(write(units(ty, coder, bytes), count, display, max_chars))
}

/// The characters of `bytes` (the first bytes of a `char[]` or `byte[]`), plainly: at most
/// `max_chars` of them, then "…" when `bytes` hold more.
pub fn plain_text(ty: u8, coder: u8, bytes: &[u8], max_chars: usize) -> String {
    let mut s: String = char::decode_utf16(units(ty, coder, bytes)).map(|r| r.unwrap_or('\u{fffd}')).collect();
    if s.chars().count() > max_chars {
        s = s.chars().take(max_chars).collect::<String>() + "…";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(|u| u.to_be_bytes()).collect()
    }

    #[test]
    fn text_as_mat_shows_it() {
        let a = |s: &str| ArrayData { ty: basic_type::CHAR, len: s.encode_utf16().count() as u32, data: chars(s) };
        assert_eq!(mat_value(&a("main"), reading::NO_CODER), "main");
        assert_eq!(mat_value(&a("a\nb"), reading::NO_CODER), "a\\u000ab");
        assert_eq!(mat_value(&a("дΔ~"), reading::NO_CODER), "\\u0434\\u0394~");
        let long = "x".repeat(1500);
        let t = mat_value(&a(&long), reading::NO_CODER);
        assert_eq!(t.len(), 1027);
        assert!(t.ends_with("x..."));
    }

    #[test]
    fn every_layout_reads_its_characters() {
        // JDK 9+ Latin-1 and UTF-16 (little-endian bytes), a char[], a window of a char[].
        let latin1 = b"hello".to_vec();
        assert_eq!(plain_text(basic_type::BYTE, reading::LATIN1, &latin1, 100), "hello");
        let utf16: Vec<u8> = "héllo".encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        assert_eq!(plain_text(basic_type::BYTE, reading::UTF16, &utf16, 100), "héllo");
        let data = chars("SecretKeyFactory.DES");
        let w = window_text(basic_type::CHAR, reading::NO_CODER, 20, &data, Some((0, 16)), Display::Mat, 1024);
        assert_eq!(w.as_deref(), Some("SecretKeyFactory"));
        let w = window_text(basic_type::CHAR, reading::NO_CODER, 20, &data, Some((17, 3)), Display::Plain, 1024);
        assert_eq!(w.as_deref(), Some("DES"));
        assert_eq!(plain_text(basic_type::CHAR, reading::NO_CODER, &data, 6), "Secret…");
    }
}
