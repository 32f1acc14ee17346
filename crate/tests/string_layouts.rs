//! Every `java.lang.String` layout, built with the HPROF builder, read back everywhere a
//! String's text is shown: the inspector (`Query::Object`'s `text`), the values beside
//! references (`Query::Values`), the thread overview's names, the duplicate-string groups
//! of the report (value, count, wasted bytes) and their members (`Query::DuplicateStringMembers`).
//! Every expected text is the text the dump was built from.
//!
//! The layouts, as the runtimes write them (`crate::rules::strings`):
//! - JDK ≤ 6: `value` (char[]), `offset`, `count`, `hash`: windows of shared arrays;
//! - JDK 7/8: `value` (char[]), `hash`;
//! - JDK 9+: `value` (byte[]), `coder` (0 Latin-1, 1 UTF-16 in the platform's byte order:
//!   little-endian, or big-endian when `java.lang.StringUTF16.HI_BYTE_SHIFT` is 8);
//! - Android before 6.0: `count`, `hashCode`, `offset`, `value` (char[]): windows, as JDK 6;
//! - Android 6 and 7: `count`, `hashCode`, and the `value` ART adds (a char[] of `count`
//!   characters, written right after the String);
//! - Android 8+: the same, the value a byte[] of one byte per character when every
//!   character is in 1..=127 (ART's compressed strings), else a char[].
//!
//! Eclipse MAT reads ART's byte[] values two bytes per character (it knows no compressed
//! strings), so a compressed String of an odd number of bytes has no value in MAT and is
//! in no duplicate group: heapscope groups as MAT does and says so here.

mod support;

use std::collections::BTreeMap;

use heapscope::session::{Answer, Query, Session};
use support::hprof_builder::{ClassDef, Hprof, Segment, Value as V};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Jdk6,
    Jdk8,
    Jdk9,
    Jdk9BigEndian,
    AndroidOld,
    Android6,
    Android8,
}

const LAYOUTS: [Layout; 7] = [
    Layout::Jdk6,
    Layout::Jdk8,
    Layout::Jdk9,
    Layout::Jdk9BigEndian,
    Layout::AndroidOld,
    Layout::Android6,
    Layout::Android8,
];

/// The texts every dump holds, each in two Strings (so each is a duplicate group).
fn texts() -> Vec<String> {
    let mut t: Vec<String> = [
        "main",
        "",
        "Thread-5",
        "SecretKeyFactory",
        "DES",
        "odd",
        "a\nb\u{7f}\u{1}",
        "h\u{e9}llo",
        "\u{434}\u{443}\u{431}\u{43b}\u{438}\u{43a}\u{430}\u{442}-\u{394}",
        "\u{1f600}x",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    t.push("ab".repeat(700));
    t.push(format!("{}z", "q".repeat(3000)));
    t
}

// String ids of the dump's names.
const N_OBJECT: u64 = 1;
const N_STRING: u64 = 2;
const N_THREAD: u64 = 3;
const N_CHARS: u64 = 4;
const N_BYTES: u64 = 5;
const N_OBJECTS: u64 = 6;
const N_UTF16: u64 = 7;
const N_VALUE: u64 = 10;
const N_OFFSET: u64 = 11;
const N_COUNT: u64 = 12;
const N_HASH: u64 = 13;
const N_CODER: u64 = 14;
const N_NAME: u64 = 15;
const N_SHIFT: u64 = 16;

// Classes.
const OBJECT: u64 = 0x100;
const STRING: u64 = 0x110;
const THREAD: u64 = 0x120;
const CHARS: u64 = 0x130;
const BYTES: u64 = 0x140;
const OBJECTS: u64 = 0x150;
const UTF16: u64 = 0x160;

const CHAR: u8 = 5;
const BYTE: u8 = 8;
const INT: u8 = 10;
const OBJ: u8 = 2;

/// A String built: its address, its text, its value array.
#[derive(Debug, Clone)]
struct Built {
    id: u64,
    text: String,
    array: u64,
}

/// One dump of `layout`: the Strings, the threads (address, name) and the dump.
struct Dump {
    bytes: Vec<u8>,
    strings: Vec<Built>,
    threads: Vec<(u64, String)>,
    /// Whether MAT reads the value two bytes per byte pair (ART's compressed strings).
    pairs: Vec<bool>,
}

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

fn char_bytes(u: &[u16]) -> Vec<u8> {
    u.iter().flat_map(|c| c.to_be_bytes()).collect()
}

/// Writes a String instance of `layout` (its fields in the class's order).
fn string_instance(seg: &mut Segment, layout: Layout, id: u64, array: u64, offset: i32, count: i32, coder: i8) {
    let values: Vec<V> = match layout {
        Layout::Jdk6 => vec![V::Obj(array), V::Int(offset), V::Int(count), V::Int(0)],
        Layout::Jdk8 => vec![V::Obj(array), V::Int(0)],
        Layout::Jdk9 | Layout::Jdk9BigEndian => vec![V::Obj(array), V::Byte(coder), V::Int(0)],
        Layout::AndroidOld => vec![V::Int(count), V::Int(0), V::Int(offset), V::Obj(array)],
        Layout::Android6 | Layout::Android8 => vec![V::Int(count), V::Int(0), V::Obj(array)],
    };
    seg.instance(id, STRING, &values);
}

fn build(layout: Layout) -> Dump {
    let android = matches!(layout, Layout::AndroidOld | Layout::Android6 | Layout::Android8);
    let mut h = if android { Hprof::android() } else { Hprof::new(8) };
    for (id, name) in [
        (N_OBJECT, "java/lang/Object"),
        (N_STRING, "java/lang/String"),
        (N_THREAD, "java/lang/Thread"),
        (N_CHARS, "[C"),
        (N_BYTES, "[B"),
        (N_OBJECTS, "[Ljava/lang/Object;"),
        (N_UTF16, "java/lang/StringUTF16"),
        (N_VALUE, "value"),
        (N_OFFSET, "offset"),
        (N_COUNT, "count"),
        (N_HASH, if android { "hashCode" } else { "hash" }),
        (N_CODER, "coder"),
        (N_NAME, "name"),
        (N_SHIFT, "HI_BYTE_SHIFT"),
    ] {
        h.string(id, name);
    }
    let classes = [
        (OBJECT, N_OBJECT),
        (STRING, N_STRING),
        (THREAD, N_THREAD),
        (CHARS, N_CHARS),
        (BYTES, N_BYTES),
        (OBJECTS, N_OBJECTS),
        (UTF16, N_UTF16),
    ];
    for (serial, &(class, name)) in classes.iter().enumerate() {
        h.load_class(serial as u32 + 1, class, name);
    }
    let mut seg = h.segment_builder();
    let string = match layout {
        Layout::Jdk6 => ClassDef::new(STRING, OBJECT)
            .field(N_VALUE, OBJ)
            .field(N_OFFSET, INT)
            .field(N_COUNT, INT)
            .field(N_HASH, INT),
        Layout::Jdk8 => ClassDef::new(STRING, OBJECT).field(N_VALUE, OBJ).field(N_HASH, INT),
        Layout::Jdk9 | Layout::Jdk9BigEndian => {
            ClassDef::new(STRING, OBJECT).field(N_VALUE, OBJ).field(N_CODER, BYTE).field(N_HASH, INT)
        }
        Layout::AndroidOld => ClassDef::new(STRING, OBJECT)
            .field(N_COUNT, INT)
            .field(N_HASH, INT)
            .field(N_OFFSET, INT)
            .field(N_VALUE, OBJ),
        Layout::Android6 | Layout::Android8 => {
            ClassDef::new(STRING, OBJECT).field(N_COUNT, INT).field(N_HASH, INT).field(N_VALUE, OBJ)
        }
    };
    let shift = if layout == Layout::Jdk9BigEndian { 8 } else { 0 };
    for c in [
        ClassDef::new(OBJECT, 0),
        string,
        ClassDef::new(THREAD, OBJECT).field(N_NAME, OBJ),
        ClassDef::new(CHARS, OBJECT),
        ClassDef::new(BYTES, OBJECT),
        ClassDef::new(OBJECTS, OBJECT),
        ClassDef::new(UTF16, OBJECT).static_field(N_SHIFT, V::Int(shift)),
    ] {
        seg.class_dump(&c);
    }
    let texts = texts();
    let (mut strings, mut pairs) = (Vec::new(), Vec::new());
    let mut next = 0x10_0000u64;
    let mut alloc = |size: u64| {
        let id = next;
        next += size.div_ceil(16) * 16 + 16;
        id
    };
    match layout {
        Layout::Jdk6 | Layout::AndroidOld => {
            // The first copy of each text is a window of one shared char[] holding them all
            // (with a character between them); the second a window of an array of its own,
            // between other characters and trailing NULs (as `Thread-5` followed by NULs).
            let mut shared: Vec<u16> = Vec::new();
            let mut at = Vec::new();
            for t in &texts {
                shared.push('#' as u16);
                at.push(shared.len());
                shared.extend(units(t));
            }
            shared.extend(std::iter::repeat('~' as u16).take(50_000));
            let shared_id = alloc(2 * shared.len() as u64);
            seg.primitive_array_header(shared_id, CHAR, shared.len() as u32).raw(&char_bytes(&shared));
            for (t, &offset) in texts.iter().zip(&at) {
                let id = alloc(32);
                string_instance(&mut seg, layout, id, shared_id, offset as i32, units(t).len() as i32, 0);
                strings.push(Built { id, text: t.clone(), array: shared_id });
                pairs.push(false);
            }
            for t in &texts {
                let mut own: Vec<u16> = units("xy");
                own.extend(units(t));
                own.extend([0u16; 8]);
                let array = alloc(2 * own.len() as u64);
                seg.primitive_array_header(array, CHAR, own.len() as u32).raw(&char_bytes(&own));
                let id = alloc(32);
                string_instance(&mut seg, layout, id, array, 2, units(t).len() as i32, 0);
                strings.push(Built { id, text: t.clone(), array });
                pairs.push(false);
            }
            // A long window far into the shared array (past any fixed first bytes read).
            let id = alloc(32);
            let far = shared.len() as i32 - 1500;
            string_instance(&mut seg, layout, id, shared_id, far, 1200, 0);
            strings.push(Built { id, text: "~".repeat(1200), array: shared_id });
            pairs.push(false);
        }
        _ => {
            for _ in 0..2 {
                for t in &texts {
                    let u = units(t);
                    let (ty, data, coder, pair): (u8, Vec<u8>, i8, bool) = match layout {
                        Layout::Jdk8 | Layout::Android6 => (CHAR, char_bytes(&u), 0, false),
                        Layout::Android8 if u.iter().all(|&c| (1..=0x7f).contains(&c)) => {
                            (BYTE, u.iter().map(|&c| c as u8).collect(), 0, true)
                        }
                        Layout::Android8 => (CHAR, char_bytes(&u), 0, false),
                        _ if u.iter().all(|&c| c < 0x100) => (BYTE, u.iter().map(|&c| c as u8).collect(), 0, false),
                        Layout::Jdk9BigEndian => (BYTE, char_bytes(&u), 1, false),
                        _ => (BYTE, u.iter().flat_map(|c| c.to_le_bytes()).collect(), 1, false),
                    };
                    let n = if ty == CHAR { u.len() } else { data.len() };
                    let id = alloc(32);
                    let array = alloc(data.len() as u64);
                    string_instance(&mut seg, layout, id, array, 0, u.len() as i32, coder);
                    // ART writes the value right after its String.
                    seg.primitive_array_header(array, ty, n as u32).raw(&data);
                    strings.push(Built { id, text: t.clone(), array });
                    pairs.push(pair);
                }
            }
        }
    }
    // Two threads named by Strings of the dump, everything held by a JNI global root.
    let find = |t: &str| strings.iter().find(|s| s.text == t).expect("text built").id;
    let threads = vec![(0x90_0000u64, "Thread-5".to_string()), (0x90_0040u64, "main".to_string())];
    for (id, name) in &threads {
        seg.instance(*id, THREAD, &[V::Obj(find(name))]);
    }
    let mut held: Vec<u64> = strings.iter().map(|s| s.id).collect();
    held.extend(threads.iter().map(|t| t.0));
    seg.object_array(0x80_0000, OBJECTS, &held).root_jni_global(0x80_0000, 1);
    h.segment(&seg).heap_dump_end();
    Dump { bytes: h.into_bytes(), strings, threads, pairs }
}

/// MAT's writing of a value (independent of the crate): 32–126 as is, every other UTF-16
/// unit as `\uXXXX`, at most `max` of them, then "...".
fn escaped(text: &str, max: usize) -> String {
    let u = units(text);
    let mut s: String = u
        .iter()
        .take(max)
        .map(|&c| if (32..127).contains(&c) { (c as u8 as char).to_string() } else { format!("\\u{c:04x}") })
        .collect();
    if u.len() > max {
        s.push_str("...");
    }
    s
}

/// The text as the inspector and the values beside references show it (independent of the
/// crate): the characters, except the C0 and C1 controls (U+0000–U+001F, U+007F–U+009F),
/// the bidi controls and the line and paragraph separators, written `\uXXXX`; at most
/// `max` UTF-16 units, then "…".
fn readable(text: &str, max: usize) -> String {
    let u = units(text);
    let hidden = |c: char| {
        let n = c as u32;
        n < 0x20
            || (0x7f..=0x9f).contains(&n)
            || [0x200e, 0x200f, 0x2028, 0x2029].contains(&n)
            || (0x202a..=0x202e).contains(&n)
            || (0x2066..=0x2069).contains(&n)
    };
    let mut s: String = String::from_utf16_lossy(&u[..u.len().min(max)])
        .chars()
        .map(|c| if hidden(c) { format!("\\u{:04x}", c as u32) } else { c.to_string() })
        .collect();
    if u.len() > max {
        s.push('…');
    }
    s
}

fn addr(id: u64) -> String {
    format!("0x{id:x}")
}

fn check_layout(layout: Layout) -> Vec<String> {
    let dump = build(layout);
    let mut s: Session = support::session_of(dump.bytes.clone());
    let mut out = Vec::new();
    // The inspector: every String's characters, readably, at most 2000.
    for b in &dump.strings {
        let Answer::Object(d) = s.answer(&Query::Object { object: addr(b.id) }).expect("object") else { panic!() };
        let want = readable(&b.text, heapscope::readback::object::MAX_STRING_CHARS);
        if d.text.as_deref() != Some(want.as_str()) {
            out.push(format!("inspector text of {:?}: {:?}", b.text, d.text));
        }
    }
    // Beside references: readably too, at most 100 characters.
    let objects: Vec<String> = dump.strings.iter().map(|b| addr(b.id)).collect();
    let Answer::Values(values) = s.answer(&Query::Values { objects }).expect("values") else { panic!() };
    for (b, v) in dump.strings.iter().zip(&values) {
        let want = readable(&b.text, heapscope::values::text::MAX_CHARS);
        if v.text.as_deref() != Some(want.as_str()) {
            out.push(format!("value of {:?}: {:?}", b.text, v.text));
        }
    }
    // Thread names.
    for (id, name) in &dump.threads {
        let t = s.features().threads.iter().find(|t| t.address == addr(*id)).expect("thread listed");
        if t.name.as_deref() != Some(name.as_str()) {
            out.push(format!("thread {}: name {:?}, built {name:?}", addr(*id), t.name));
        }
    }
    // Duplicate strings: grouped by MAT's text (ART's compressed Strings of an odd number
    // of bytes have none), each group's value written as the program holds it.
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut unresolved = 0;
    for (k, b) in dump.strings.iter().enumerate() {
        let mat_has_none = dump.pairs[k] && b.text.len() % 2 == 1 && b.text.len() <= 2048;
        if mat_has_none {
            unresolved += 1;
        } else {
            groups.entry(escaped(&b.text, 1024)).or_default().push(k);
        }
    }
    let a = &s.analysis;
    let obj = |id: u64| a.object_at(id).expect("object");
    let mut want: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (value, members) in &groups {
        if members.len() < 2 {
            continue;
        }
        let strings: u64 = members.iter().map(|&k| a.shallow(obj(dump.strings[k].id))).sum();
        let mut arrays: Vec<u64> = members.iter().map(|&k| dump.strings[k].array).collect();
        arrays.sort_unstable();
        arrays.dedup();
        let arrays: u64 = arrays.iter().map(|&x| a.shallow(obj(x))).sum();
        let first = members.iter().map(|&k| &dump.strings[k]).min_by_key(|b| b.id).unwrap();
        let wasted = strings + arrays - a.shallow(obj(first.id)) - a.shallow(obj(first.array));
        want.insert(value.clone(), (members.len() as u64, wasted));
    }
    let ds = &s.features().waste.duplicate_strings;
    let got: BTreeMap<String, (u64, u64)> =
        ds.groups.iter().map(|g| (g.value.clone(), (g.count, g.wasted_bytes))).collect();
    if got != want {
        out.push(format!("duplicate groups: built {want:?}, got {got:?}"));
    }
    if ds.unresolved != unresolved {
        out.push(format!("strings without a value MAT shows: built {unresolved}, got {}", ds.unresolved));
    }
    // Each group's members, asked by its first string.
    let firsts: Vec<(String, String, u64)> =
        ds.groups.iter().map(|g| (g.value.clone(), g.sample[0].address.clone(), g.count)).collect();
    for (value, first, count) in firsts {
        let q = Query::DuplicateStringMembers { object: first, offset: 0, limit: 10, holders: 0 };
        match s.answer(&q) {
            Ok(Answer::DuplicateStringMembers(m)) if m.value == value && m.total == count => {}
            other => out.push(format!("members of {value:?} ({count}): {other:?}")),
        }
    }
    out
}

#[test]
fn every_string_layout_reads_its_texts_everywhere() {
    let mut failures = Vec::new();
    for layout in LAYOUTS {
        let out = check_layout(layout);
        if !out.is_empty() {
            failures.push(format!("{layout:?}: {} mismatches:\n    {}", out.len(), out.join("\n    ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The tests' own reading of MAT's ART rendering (`support::mat_strings`), on the texts
/// of MAT's expected files: "main" is `\u616d\u6e69` there.
#[test]
fn mat_reads_art_bytes_as_pairs() {
    use support::mat_strings::{art, unescape};
    assert_eq!(art(&units("main"), true, 1024).as_deref(), Some("\\u616d\\u6e69"));
    assert_eq!(art(&units("odd"), true, 1024), None);
    assert_eq!(art(&units("\u{394}x"), false, 1024).as_deref(), Some("\\u0394x"));
    assert_eq!(art(&units(""), true, 1024).as_deref(), Some(""));
    assert_eq!(unescape("a\\u000ab\\u0394~"), units("a\nb\u{394}~"));
}
