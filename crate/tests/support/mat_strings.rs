//! How Eclipse MAT 1.16.1 shows the Strings of an Android (ART) dump, from the text the
//! program holds, for comparing heapscope's texts with MAT's expected files.
//!
//! MAT cannot read ART dumps: the corpus's expected files come from a copy converted by
//! `hprof-conv`, which leaves the Strings as ART wrote them (`art/runtime/hprof/hprof.cc`):
//! a `count` (the length) and a `value` array, a `byte[]` of one byte per character when
//! the String is compressed (every character in 1..=127), else a `char[]`. MAT's
//! `PrettyPrinter.objectAsString` knows no compressed strings: a `byte[]` without `coder`
//! is read as UTF-16, little-endian pairs, `min(2 × min(count, limit), length)` bytes of
//! it, and when that is odd its last pair has no second byte and MAT shows no value
//! ("main" shows as `\u616d\u6e69`, "odd" as nothing). A `char[]` reads as on a JVM.
//!
//! Nothing here comes from the crate: the rules are MAT's and ART's.

use heapscope::analysis::Analysis;
use heapscope::readback::object::object_details;

/// MAT's writing of UTF-16 units: 32–126 as they are, every other unit as `\uXXXX`.
pub fn escape(units: &[u16]) -> String {
    units
        .iter()
        .map(|&c| if (32..127).contains(&c) { (c as u8 as char).to_string() } else { format!("\\u{c:04x}") })
        .collect()
}

/// The UTF-16 units of a text written as MAT writes a value ([`escape`]).
pub fn unescape(s: &str) -> Vec<u16> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(hex) = rest.strip_prefix("\\u").and_then(|r| r.get(..4)) {
            if let Ok(u) = u16::from_str_radix(hex, 16) {
                out.push(u);
                rest = &rest[6..];
                continue;
            }
        }
        let c = rest.chars().next().expect("not empty");
        let mut buf = [0u16; 2];
        out.extend_from_slice(c.encode_utf16(&mut buf));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// What MAT shows for an ART String holding `units`, written by ART as a `byte[]`
/// (`bytes` true) or a `char[]`, at most `limit` characters ("..." when it has more).
pub fn art(units: &[u16], bytes: bool, limit: usize) -> Option<String> {
    let cut = if units.len() > limit { "..." } else { "" };
    if !bytes {
        return Some(escape(&units[..units.len().min(limit)]) + cut);
    }
    let data: Vec<u8> = units.iter().map(|&u| u as u8).collect();
    let read = (2 * data.len().min(limit)).min(data.len());
    if read % 2 == 1 {
        return None;
    }
    let pairs: Vec<u16> = data[..read].chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
    Some(escape(&pairs) + cut)
}

/// Whether the String at `address` has a `byte[]` value (as its fields say).
pub fn value_is_bytes(a: &mut Analysis, address: &str) -> bool {
    let id = u64::from_str_radix(address.trim_start_matches("0x"), 16).expect("an address");
    let obj = a.object_at(id).expect("a String of the dump");
    let d = object_details(a, obj).expect("readable");
    d.fields
        .iter()
        .find(|f| f.name == "value")
        .and_then(|f| f.reference.as_ref())
        .is_some_and(|r| r.class_name == "byte[]")
}

/// The String a thread's `name` field holds (its address).
pub fn thread_name_string(a: &mut Analysis, thread: &str) -> Option<String> {
    let id = u64::from_str_radix(thread.trim_start_matches("0x"), 16).expect("an address");
    let obj = a.object_at(id)?;
    let d = object_details(a, obj).expect("readable");
    d.fields.iter().rev().find(|f| f.name == "name" && !f.is_static)?.reference.as_ref().map(|r| r.address.clone())
}
