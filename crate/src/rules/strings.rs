//! How `java.lang.String` keeps its text, across JDKs and Android releases: the fields a
//! String is read by, and how its value array is read (Eclipse MAT's rules).
//!
//! - JDK ≤ 6 and Android before 6.0: `value` (`char[]`), `offset`, `count`: the text is
//!   `count` chars of `value` from `offset` (several Strings may share one array);
//! - JDK 7 and 8: `value` (`char[]`), the whole array;
//! - JDK 9+: `value` (`byte[]`) and `coder`: 0 Latin-1, one byte per char; 1 UTF-16, two
//!   bytes per char (big-endian in the dump);
//! - Android 6.0+: the text written as the String's `value` array by the runtime: a
//!   `char[]`, or a `byte[]` of compressed (Latin-1) strings, which MAT reads two bytes
//!   per char since it has no coder.

use crate::records::basic_type;

/// How a String reads its value array.
pub mod reading {
    /// JDK 9+ `coder` 0: one byte per character.
    pub const LATIN1: u8 = 0;
    /// JDK 9+ `coder` 1: two bytes per character.
    pub const UTF16: u8 = 1;
    /// No `coder` field: a `char[]` (JDK ≤ 8), or an Android `byte[]`, which MAT reads
    /// two bytes per character.
    pub const NO_CODER: u8 = 2;
}

/// The fields of `java.lang.String` a String's text is read from, for
/// `Index::field_offsets`: `value`, `coder`, `offset`, `count`.
pub const STRING_FIELDS: [(u8, &str); 4] = [
    (basic_type::OBJECT, "value"),
    (basic_type::BYTE, "coder"),
    (basic_type::INT, "offset"),
    (basic_type::INT, "count"),
];
