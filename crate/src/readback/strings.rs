//! The one decoder of `java.lang.String` texts, for every layout
//! [`crate::rules::strings`] describes, and of `char[]`/`byte[]` read as text.
//!
//! A String's text is decided in two steps. [`plan`] reads the String's fields
//! ([`Fields`]: its `coder`, `offset` and `count`, as the class declares them, [`Layout`])
//! against its value array's type and length, and says which bytes of the array hold the
//! characters shown and how they are encoded ([`Plan`]); the caller reads those bytes
//! ([`Plan::end`] bounds the read: a window of a long shared `char[]` costs the bytes up
//! to its end, never the array). [`render`] then writes them out.
//!
//! Two decodings ([`Decoding`]):
//! - [`Decoding::Runtime`]: the characters the running program holds. This is what every
//!   reader shows (the inspector, the values beside references, the thread names, the
//!   duplicate-string values, the suspects and the exports).
//! - [`Decoding::Mat`]: what Eclipse MAT 1.16.1's `PrettyPrinter.objectAsString` reads,
//!   quirks included, for grouping duplicate strings exactly as MAT does and for
//!   comparing with MAT. It differs from the runtime's characters in three places: MAT
//!   reads an ART `byte[]` (a compressed string, no `coder`) as little-endian UTF-16
//!   pairs, and shows no value when the bytes it reads are odd in number; it
//!   sign-extends Latin-1 bytes of 0x80 and above (`é` shows as `\uffe9`); with a
//!   `count` field and a two-byte `byte[]` it starts at byte `offset`, not `2 × offset`.
//!
//! Both show at most `max_chars` characters and mark the cut when the String declares
//! more; both show an empty String as "" (MAT: `count` 0, or an empty array).
//!
//! Three displays ([`Display`]): MAT's (characters 32–126 as they are, every other UTF-16
//! unit as `\uXXXX`, "..." after the cut) for the duplicate-string values MAT groups by;
//! the readable characters (printable Unicode as it is, only what would not show as a
//! character escaped, "…" after the cut) for the inspector and the values beside
//! references; the plain characters for texts written out whole (system properties).

use crate::index::Index;
use crate::records::basic_type;
use crate::records::cursor::be_id;
use crate::rules::strings::{reading, STRING_FIELDS};

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
    /// The characters themselves where they can be seen: control characters, the
    /// invisible ones that reorder text (bidi controls, line and paragraph separators) and
    /// lone surrogates as `\uXXXX`; "…" after the cut. Printable Unicode stays as it is.
    Readable,
}

/// Whether `c` is written as `\uXXXX` by [`Display::Readable`]: it would not show as a
/// character (a control), or would change how the text around it shows (bidi controls,
/// line and paragraph separators).
pub fn hidden_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whose reading of a String's array (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoding {
    /// The characters the program holds.
    Runtime,
    /// What MAT 1.16.1 shows, quirks included.
    Mat,
}

/// How the characters sit in the value array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Units {
    /// A `char[]`: UTF-16 units, big-endian as HPROF writes every `char`.
    Char,
    /// A `byte[]`, one byte per character (JDK 9+ coder 0, ART's compressed strings).
    Latin1,
    /// MAT's reading of a Latin-1 `byte[]`: each byte sign-extended to 16 bits.
    Latin1Signed,
    /// A `byte[]`, two bytes per character, low byte first.
    Utf16Le,
    /// A `byte[]`, two bytes per character, high byte first (a big-endian JVM).
    Utf16Be,
}

impl Units {
    /// Bytes per character.
    pub fn width(self) -> u64 {
        match self {
            Units::Latin1 | Units::Latin1Signed => 1,
            _ => 2,
        }
    }
}

/// The fields of a String that say how it reads its value array (None: the class has no
/// such field).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fields {
    /// JDK 9+: 0 Latin-1, 1 UTF-16.
    pub coder: Option<u8>,
    /// JDK ≤ 6, Android before 6.0: the first character's index in a shared `char[]`.
    pub offset: Option<i32>,
    /// JDK ≤ 6, Android: the number of characters.
    pub count: Option<i32>,
}

impl Fields {
    /// The fields of a String read with `reading` (a [`crate::rules::strings::reading`]
    /// code: JDK 9+'s coder, or none) and, for a window, its `offset` and `count`.
    pub fn of_reading(reading: u8, window: Option<(u32, u32)>) -> Fields {
        let coder = match reading {
            reading::LATIN1 | reading::UTF16 => Some(reading),
            _ => None,
        };
        let (offset, count) = window.map_or((None, None), |(o, c)| (Some(o as i32), Some(c as i32)));
        Fields { coder, offset, count }
    }

    /// How grouping keys read the array (a [`crate::rules::strings::reading`] code).
    pub fn reading(&self) -> u8 {
        match self.coder {
            Some(0) => reading::LATIN1,
            Some(_) => reading::UTF16,
            None => reading::NO_CODER,
        }
    }

    /// Bytes of the value array that are enough for any array: from its start to the end
    /// of the characters shown (before the array's type and length are known).
    pub fn bytes_bound(&self, max_chars: usize) -> usize {
        let offset = self.offset.unwrap_or(0).max(0) as u64;
        let shown = match self.count {
            Some(c) => (c.max(0) as u64).min(max_chars as u64),
            None => max_chars as u64,
        };
        // Two bytes per character at most, and one more character to see the cut.
        usize::try_from(2 * (offset + shown + 1)).unwrap_or(usize::MAX)
    }
}

/// Where a String class keeps its value and the fields of [`Fields`]: byte offsets in an
/// instance's field data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub value: usize,
    pub coder: Option<usize>,
    pub offset: Option<usize>,
    pub count: Option<usize>,
}

impl Layout {
    /// The layout of class `class` when it is a `java.lang.String` with a `value` field.
    pub fn of(index: &Index, class: u32) -> Option<Layout> {
        if index.classes.classes.get(class as usize)?.name != "java.lang.String" {
            return None;
        }
        let [value, coder, offset, count] = index.field_offsets(class, STRING_FIELDS);
        Some(Layout { value: value?, coder, offset, count })
    }

    /// Whether the text is a window of the array (`offset` and `count`: JDK ≤ 6, Android
    /// before 6.0), so that Strings sharing one array read different characters.
    pub fn is_window(&self) -> bool {
        self.offset.is_some() && self.count.is_some()
    }

    /// The value array's address and the fields, from an instance's field bytes (None: the
    /// record is too short to hold `value`).
    pub fn read(&self, data: &[u8], id_size: u32) -> Option<(u64, Fields)> {
        let ids = id_size as usize;
        let value = data.get(self.value..self.value + ids).map(|_| be_id(data, self.value, ids))?;
        let int = |at: Option<usize>| {
            at.and_then(|at| data.get(at..at + 4)).map(|b| i32::from_be_bytes(b.try_into().expect("4 bytes")))
        };
        let coder = self.coder.and_then(|at| data.get(at).copied());
        Some((value, Fields { coder, offset: int(self.offset), count: int(self.count) }))
    }
}

/// The byte order of UTF-16 `byte[]` values, as the dump's classes say (MAT reads the
/// static `HI_BYTE_SHIFT`: 8 on a big-endian JVM; without it, little-endian).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ByteOrder {
    /// `java.lang.StringUTF16.HI_BYTE_SHIFT` is 8 (JDK 9+ on a big-endian JVM).
    pub utf16_big: bool,
    /// `java.lang.String.HI_BYTE_SHIFT` is 8 (what MAT reads for a String with `count`).
    pub string_big: bool,
}

impl ByteOrder {
    pub fn of(index: &Index) -> ByteOrder {
        let shift_is_8 = |class: &str| {
            // MAT asks the first class of the name.
            let Some(c) = index.classes.classes.iter().find(|c| c.name == class) else { return false };
            c.statics
                .iter()
                .find(|s| s.ty == basic_type::INT && index.strings.get(s.name_id) == Some("HI_BYTE_SHIFT"))
                .is_some_and(|s| s.value == 8)
        };
        ByteOrder { utf16_big: shift_is_8("java.lang.StringUTF16"), string_big: shift_is_8("java.lang.String") }
    }
}

/// Which bytes of a value array a String's text is, and how to read them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub units: Units,
    /// Byte of the array's data where the characters shown start.
    pub start: u64,
    /// Characters shown.
    pub shown: u64,
    /// Whether the String declares more characters than the most shown (the cut mark).
    pub cut: bool,
}

impl Plan {
    /// The byte of the array's data after the characters shown: the bytes to read.
    pub fn end(&self) -> u64 {
        self.start + self.shown * self.units.width()
    }

    fn empty() -> Plan {
        Plan { units: Units::Char, start: 0, shown: 0, cut: false }
    }
}

/// What a String with fields `f` and a value array of element type `ty` and `len`
/// elements shows, at most `max_chars` characters (None: no text, e.g. a value that is
/// not a `char[]` or `byte[]`, a window outside the array, or a value MAT cannot read).
pub fn plan(f: &Fields, ty: u8, len: u32, order: ByteOrder, decoding: Decoding, max_chars: usize) -> Option<Plan> {
    if ty != basic_type::CHAR && ty != basic_type::BYTE {
        return None;
    }
    let (len, limit) = (len as i64, max_chars as i64);
    match decoding {
        Decoding::Runtime => runtime_plan(f, ty, len, order, limit),
        Decoding::Mat => mat_plan(f, ty, len, order, limit),
    }
}

/// The characters the program holds: the array's units from `offset` (or 0), `count` of
/// them (or all), cut at `limit`.
fn runtime_plan(f: &Fields, ty: u8, len: i64, order: ByteOrder, limit: i64) -> Option<Plan> {
    let units = match (ty, f.coder) {
        (basic_type::CHAR, _) => Units::Char,
        // ART's compressed strings have no coder: one byte per character.
        (_, None | Some(0)) => Units::Latin1,
        _ if order.utf16_big || order.string_big => Units::Utf16Be,
        _ => Units::Utf16Le,
    };
    // `len` counts elements: characters of a char[], bytes of a byte[].
    let chars = if ty == basic_type::CHAR { len } else { len / units.width() as i64 };
    let offset = f.offset.unwrap_or(0) as i64;
    let count = f.count.map_or(chars - offset, |c| c as i64);
    if count == 0 {
        return Some(Plan::empty());
    }
    if offset < 0 || count < 0 || offset > chars {
        return None;
    }
    let shown = count.min(limit).min(chars - offset);
    Some(Plan { units, start: (offset * units.width() as i64) as u64, shown: shown as u64, cut: count > limit })
}

/// MAT 1.16.1's `PrettyPrinter.objectAsString(string, limit)`, step by step.
fn mat_plan(f: &Fields, ty: u8, len: i64, order: ByteOrder, limit: i64) -> Option<Plan> {
    let Some(count) = f.count else {
        // No `count` (JDK 7u6+): the whole array.
        return Some(match (ty, f.coder) {
            (basic_type::CHAR, _) => {
                Plan { units: Units::Char, start: 0, shown: len.min(limit) as u64, cut: limit < len }
            }
            (_, Some(0)) => {
                Plan { units: Units::Latin1Signed, start: 0, shown: len.min(limit) as u64, cut: limit < len }
            }
            _ => {
                let units = if order.utf16_big { Units::Utf16Be } else { Units::Utf16Le };
                let pairs = len / 2;
                Plan { units, start: 0, shown: pairs.min(limit) as u64, cut: limit < pairs }
            }
        });
    };
    let count = count as i64;
    if count == 0 {
        return Some(Plan::empty());
    }
    // IBM's String may have `count` without `offset`.
    let offset = f.offset.unwrap_or(0) as i64;
    let read = count.min(limit);
    let (units, start, bytes) = match (ty, f.coder) {
        (basic_type::CHAR, _) => (Units::Char, offset * 2, 2 * read.min(len - offset)),
        (_, Some(0)) => (Units::Latin1Signed, offset, read.min(len - offset)),
        _ => {
            let units = if order.string_big { Units::Utf16Be } else { Units::Utf16Le };
            // MAT bounds the bytes by 2 × offset but reads from byte `offset`.
            (units, offset, (2 * read).min(len - 2 * offset))
        }
    };
    // A negative range fails in MAT (no value), and so does an odd number of bytes read
    // two by two (its last pair has no second byte).
    if offset < 0 || bytes < 0 || start + bytes > len * (1 + (ty == basic_type::CHAR) as i64) {
        return None;
    }
    if units.width() == 2 && bytes % 2 == 1 {
        return None;
    }
    Some(Plan { units, start: start as u64, shown: (bytes / units.width() as i64) as u64, cut: limit < count })
}

/// The UTF-16 units of `bytes` read as `units`.
fn units_of(units: Units, bytes: &[u8]) -> Box<dyn Iterator<Item = u16> + '_> {
    match units {
        Units::Char | Units::Utf16Be => Box::new(bytes.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]]))),
        Units::Utf16Le => Box::new(bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]))),
        Units::Latin1 => Box::new(bytes.iter().map(|&b| b as u16)),
        Units::Latin1Signed => Box::new(bytes.iter().map(|&b| b as i8 as i16 as u16)),
    }
}

/// `units` written as `display` says, with the cut's mark when `cut`.
fn write(units: impl Iterator<Item = u16>, cut: bool, display: Display) -> String {
    let mut out = String::new();
    match display {
        Display::Mat => {
            for u in units {
                if (32..127).contains(&u) {
                    out.push(u as u8 as char);
                } else {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
        Display::Plain => out.extend(char::decode_utf16(units).map(|r| r.unwrap_or('\u{fffd}'))),
        Display::Readable => {
            for r in char::decode_utf16(units) {
                match r {
                    Ok(c) if !hidden_char(c) => out.push(c),
                    Ok(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
                    Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
                }
            }
        }
    }
    if cut {
        out.push_str(match display {
            Display::Mat => "...",
            Display::Plain | Display::Readable => "…",
        });
    }
    out
}

/// The text `plan` says, from the first bytes of the array (`data`), written as `display`
/// says (None: `data` ends before [`Plan::end`]).
pub fn render(plan: &Plan, data: &[u8], display: Display) -> Option<String> {
    let bytes = data.get(usize::try_from(plan.start).ok()?..usize::try_from(plan.end()).ok()?)?;
    Some(write(units_of(plan.units, bytes), plan.cut, display))
}

/// A String's text in one call: [`plan`], then [`render`] from the array's first bytes.
#[allow(clippy::too_many_arguments)]
pub fn text(
    f: &Fields,
    ty: u8,
    len: u32,
    data: &[u8],
    order: ByteOrder,
    decoding: Decoding,
    display: Display,
    max_chars: usize,
) -> Option<String> {
    render(&plan(f, ty, len, order, decoding, max_chars)?, data, display)
}

/// The characters of a `char[]` or `byte[]` (its first bytes `bytes`) as the inspector
/// shows an array: readably ([`Display::Readable`]), a `byte[]` one byte per character,
/// at most `max_chars`, then "…" when the array holds more.
pub fn array_text(ty: u8, len: u32, bytes: &[u8], max_chars: usize) -> String {
    let units = if ty == basic_type::CHAR { Units::Char } else { Units::Latin1 };
    let chars = len as u64 / units.width();
    let shown = chars.min(max_chars as u64).min(bytes.len() as u64 / units.width());
    let bytes = &bytes[..(shown * units.width()) as usize];
    write(units_of(units, bytes), chars > max_chars as u64, Display::Readable)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(|u| u.to_be_bytes()).collect()
    }

    fn n(s: &str) -> u32 {
        s.encode_utf16().count() as u32
    }

    const LE: ByteOrder = ByteOrder { utf16_big: false, string_big: false };

    fn both(f: Fields, ty: u8, len: u32, data: &[u8], max: usize) -> (Option<String>, Option<String>) {
        let t = |d| text(&f, ty, len, data, LE, d, Display::Mat, max);
        (t(Decoding::Runtime), t(Decoding::Mat))
    }

    #[test]
    fn whole_arrays_read_as_mat_reads_them() {
        let none = Fields::default();
        let a = chars("main");
        assert_eq!(both(none, basic_type::CHAR, 4, &a, 1024), (Some("main".into()), Some("main".into())));
        let a = chars("a\nb");
        assert_eq!(both(none, basic_type::CHAR, 3, &a, 1024).0.as_deref(), Some("a\\u000ab"));
        let a = chars("дΔ~");
        assert_eq!(both(none, basic_type::CHAR, 3, &a, 1024).0.as_deref(), Some("\\u0434\\u0394~"));
        let long = "x".repeat(1500);
        let t = both(none, basic_type::CHAR, 1500, &chars(&long), 1024).1.unwrap();
        assert_eq!(t.len(), 1027);
        assert!(t.ends_with("x..."));
        // JDK 9+ Latin-1: MAT sign-extends bytes from 0x80.
        let latin1 = Fields { coder: Some(0), ..none };
        assert_eq!(
            both(latin1, basic_type::BYTE, 5, b"\xe9t\xe9!x", 1024),
            (Some("\\u00e9t\\u00e9!x".into()), Some("\\uffe9t\\uffe9!x".into()))
        );
        // JDK 9+ UTF-16, little-endian.
        let utf16 = Fields { coder: Some(1), ..none };
        let b: Vec<u8> = "héΔ".encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        let (r, m) = both(utf16, basic_type::BYTE, 6, &b, 1024);
        assert_eq!(r, m);
        assert_eq!(r.as_deref(), Some("h\\u00e9\\u0394"));
    }

    #[test]
    fn windows_read_count_characters_from_offset() {
        let data = chars("SecretKeyFactory.DES");
        let w = |o, c| Fields { coder: None, offset: Some(o), count: Some(c) };
        let (r, m) = both(w(0, 16), basic_type::CHAR, 20, &data, 1024);
        assert_eq!((r.as_deref(), m.as_deref()), (Some("SecretKeyFactory"), Some("SecretKeyFactory")));
        let p = plan(&w(17, 3), basic_type::CHAR, 20, LE, Decoding::Runtime, 1024).unwrap();
        assert_eq!((p.start, p.end()), (34, 40));
        assert_eq!(render(&p, &data, Display::Plain).as_deref(), Some("DES"));
        // Count 0 is "" wherever the window is; a window past the array has no text.
        assert_eq!(both(w(99, 0), basic_type::CHAR, 20, &data, 1024), (Some(String::new()), Some(String::new())));
        assert_eq!(both(w(21, 2), basic_type::CHAR, 20, &data, 1024), (None, None));
        // A count past the array's end shows what is there, cut-marked past the limit.
        assert_eq!(both(w(17, 9), basic_type::CHAR, 20, &data, 4).0.as_deref(), Some("DES..."));
        // Not enough bytes read: no text rather than a wrong one.
        assert_eq!(both(w(17, 3), basic_type::CHAR, 20, &data[..36], 1024), (None, None));
    }

    #[test]
    fn art_compressed_strings_are_bytes_to_the_runtime_and_pairs_to_mat() {
        let art = |c| Fields { coder: None, offset: None, count: Some(c) };
        assert_eq!(
            both(art(4), basic_type::BYTE, 4, b"main", 1024),
            (Some("main".into()), Some("\\u616d\\u6e69".into()))
        );
        // An odd number of bytes: MAT's last pair has no second byte, and MAT shows none.
        assert_eq!(both(art(3), basic_type::BYTE, 3, b"odd", 1024), (Some("odd".into()), None));
        // Past 2048 bytes MAT reads 1024 pairs, whatever the parity.
        let long = "y".repeat(2049);
        let (r, m) = both(art(2049), basic_type::BYTE, 2049, long.as_bytes(), 1024);
        assert_eq!(r.unwrap().len(), 1024 + 3);
        assert_eq!(m.unwrap(), format!("{}...", "\\u7979".repeat(1024)));
        assert_eq!(both(art(0), basic_type::BYTE, 0, b"", 1024), (Some(String::new()), Some(String::new())));
        // Android 6/7 (and uncompressed ones): a char[] of count characters.
        assert_eq!(both(art(2), basic_type::CHAR, 2, &chars("Δx"), 1024).0.as_deref(), Some("\\u0394x"));
    }

    #[test]
    fn big_endian_utf16_follows_hi_byte_shift() {
        let b: Vec<u8> = "hé".encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
        let f = Fields { coder: Some(1), ..Fields::default() };
        let order = ByteOrder { utf16_big: true, string_big: false };
        for d in [Decoding::Runtime, Decoding::Mat] {
            assert_eq!(text(&f, basic_type::BYTE, 4, &b, order, d, Display::Plain, 10).as_deref(), Some("hé"));
        }
    }

    #[test]
    fn arrays_and_bounds() {
        let data = chars("SecretKeyFactory.DES");
        assert_eq!(array_text(basic_type::CHAR, n("SecretKeyFactory.DES"), &data, 6), "Secret…");
        assert_eq!(array_text(basic_type::BYTE, 5, b"hello", 100), "hello");
        let f = Fields { coder: None, offset: Some(10), count: Some(5000) };
        assert_eq!(f.bytes_bound(100), 2 * 111);
        assert_eq!(Fields::default().bytes_bound(1024), 2 * 1025);
    }
}
