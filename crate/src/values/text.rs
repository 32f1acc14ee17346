//! The text an object shows beside its reference, chosen as Eclipse MAT's name resolvers
//! choose it (written readably: printable Unicode as characters): a String's value, a boxed number's value, a class's name, a thread's or an enum's
//! name, a collection's size, a map node's key.
//!
//! Texts are resolved in rounds: each round resolves what the objects read so far allow
//! and names the objects still missing (a String's value array, a node's key), which the
//! next round reads together ([`Reader::fetch`]). A text needs at most [`ROUNDS`] rounds
//! (a node → its key, an enum → its name → the name's characters), so a batch of objects
//! costs a few walks of the dump, whatever its size.

use crate::analysis::Analysis;
use crate::error::Result;
use crate::readback::object::primitive_text;
use crate::readback::reader::{class_chain, FieldVal, Instance, Obj, Reader};
use crate::readback::strings::{plan, render, ByteOrder, Decoding, Display, Fields};
use crate::records::basic_type;

/// Characters of a text shown at most (then "...").
pub const MAX_CHARS: usize = 100;
/// Reading rounds per batch.
pub const ROUNDS: usize = 6;

/// What resolving a text found: the text (None: the object has none), the objects to read
/// first, or a primitive array to read with (at least) its first bytes.
enum Step {
    Done(Option<String>),
    Need(Vec<u64>),
    NeedData(u64, usize),
}

use Step::{Done, Need, NeedData};

/// Nesting followed at most (a node's key's name's characters).
const MAX_NESTING: u8 = 4;

/// How texts are written (readable characters beside references, plain ones for texts
/// written out whole) and where they are cut.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub display: Display,
    pub max_chars: usize,
}

/// Beside a reference: the characters as the program holds them, only those that would not
/// show escaped ([`Display::Readable`]), at most [`MAX_CHARS`] characters.
pub const BESIDE: Style = Style { display: Display::Readable, max_chars: MAX_CHARS };

/// The texts of the objects `ids` (addresses), read with `reader`: None for an object
/// without one, or when the reader's budget ran out first.
pub fn texts(a: &mut Analysis, reader: &mut Reader, ids: &[u64]) -> Result<Vec<Option<String>>> {
    texts_in(a, reader, ids, BESIDE)
}

/// [`texts`] written in `style`.
pub fn texts_in(a: &mut Analysis, reader: &mut Reader, ids: &[u64], style: Style) -> Result<Vec<Option<String>>> {
    let mut out: Vec<Option<Option<String>>> = vec![None; ids.len()];
    let order = ByteOrder::of(&a.heap.index);
    for _ in 0..ROUNDS {
        let mut need = Vec::new();
        for (i, &id) in ids.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            match resolve(a, reader, order, id, 0, style) {
                Done(t) => out[i] = Some(t),
                Need(ids) => need.extend(ids),
                NeedData(id, bytes) => {
                    reader.want_data(id, bytes);
                    need.push(id);
                }
            }
        }
        if need.is_empty() {
            break;
        }
        need.retain(|&n| !reader.ready(n));
        if need.is_empty() || reader.exhausted {
            // Nothing more can be read: the rest have no text.
            break;
        }
        reader.fetch(a, need)?;
    }
    Ok(out.into_iter().map(|t| t.flatten()).collect())
}

/// The text of the object at `id` from what `reader` holds.
fn resolve(a: &Analysis, reader: &Reader, order: ByteOrder, id: u64, nesting: u8, style: Style) -> Step {
    if id == 0 {
        return Done(Some("null".into()));
    }
    let Some(obj) = a.object_at(id) else { return Done(None) };
    if let Some(c) = a.class_represented_by(obj) {
        return Done(Some(a.class_name(c).to_string()));
    }
    if nesting > MAX_NESTING {
        return Done(None);
    }
    if !reader.has(id) {
        return Need(vec![id]);
    }
    match reader.get(id) {
        Some(Obj::Instance(inst)) => instance_text(a, reader, order, inst, nesting, style),
        // A thread's or an enum's name before JDK 5 was a char[] (the inspector's reading).
        Some(Obj::PrimitiveArray { ty: basic_type::CHAR, len, data, has_data: true }) => {
            let p = plan(&Fields::default(), basic_type::CHAR, *len, order, Decoding::Runtime, style.max_chars);
            Done(p.and_then(|p| render(&p, data, style.display)))
        }
        _ => Done(None),
    }
}

/// Boxed values and atomics: their `value` field as Java prints it.
const BOXED: [&str; 11] = [
    "java.lang.Integer",
    "java.lang.Long",
    "java.lang.Short",
    "java.lang.Byte",
    "java.lang.Character",
    "java.lang.Boolean",
    "java.lang.Float",
    "java.lang.Double",
    "java.util.concurrent.atomic.AtomicInteger",
    "java.util.concurrent.atomic.AtomicLong",
    "java.util.concurrent.atomic.AtomicBoolean",
];

/// Collections and the field holding their size (`None`: a wrapper, whose size is the
/// size of the collection in the field named second).
const SIZES: [(&str, &str, bool); 22] = [
    ("java.util.HashMap", "size", true),
    ("java.util.Hashtable", "count", true),
    ("java.util.TreeMap", "size", true),
    ("java.util.WeakHashMap", "size", true),
    ("java.util.IdentityHashMap", "size", true),
    ("java.util.ArrayList", "size", true),
    ("java.util.LinkedList", "size", true),
    ("java.util.Vector", "elementCount", true),
    ("java.util.PriorityQueue", "size", true),
    ("java.util.concurrent.ArrayBlockingQueue", "count", true),
    ("java.util.concurrent.LinkedBlockingQueue", "count", false),
    ("java.util.HashSet", "map", false),
    ("java.util.TreeSet", "m", false),
    ("java.util.concurrent.CopyOnWriteArraySet", "al", false),
    ("java.util.Collections$SetFromMap", "m", false),
    ("java.util.Collections$SynchronizedMap", "m", false),
    ("java.util.Collections$UnmodifiableMap", "m", false),
    ("java.util.Collections$SynchronizedCollection", "c", false),
    ("java.util.Collections$UnmodifiableCollection", "c", false),
    ("android.util.ArrayMap", "mSize", true),
    ("android.util.SparseArray", "mSize", true),
    ("androidx.collection.SimpleArrayMap", "mSize", true),
];

/// Map nodes, whose text is their key's.
const NODES: [&str; 8] = [
    "java.util.HashMap$Node",
    "java.util.HashMap$HashMapEntry",
    "java.util.Hashtable$Entry",
    "java.util.Hashtable$HashtableEntry",
    "java.util.concurrent.ConcurrentHashMap$Node",
    "java.util.TreeMap$Entry",
    "java.util.TreeMap$TreeMapEntry",
    "java.util.WeakHashMap$Entry",
];

fn instance_text(a: &Analysis, reader: &Reader, order: ByteOrder, inst: &Instance, nesting: u8, style: Style) -> Step {
    for name in class_chain(a, inst.class) {
        match name {
            "java.lang.String" => return string_text(reader, order, inst, style),
            "java.lang.AbstractStringBuilder" => return builder_text(reader, order, inst, style),
            "java.lang.Thread" | "java.lang.Enum" => {
                return match inst.get("name") {
                    Some(FieldVal::Ref(0)) | None => Done(None),
                    Some(FieldVal::Ref(n)) => resolve(a, reader, order, n, nesting + 1, style),
                    Some(_) => Done(None),
                };
            }
            _ => {}
        }
        if BOXED.contains(&name) {
            return Done(inst.get("value").and_then(|v| match v {
                FieldVal::Prim(..) if name.ends_with("AtomicBoolean") => Some((v.int() != Some(0)).to_string()),
                FieldVal::Prim(basic_type::CHAR, _) => {
                    Some(primitive_text(basic_type::CHAR, v.bytes()).trim_matches('\'').to_string())
                }
                FieldVal::Prim(ty, _) => Some(primitive_text(ty, v.bytes())),
                FieldVal::Ref(_) => None,
            }));
        }
        if let Some(&(_, field, direct)) = SIZES.iter().find(|s| s.0 == name) {
            return match (direct, inst.get(field)) {
                (true, Some(v)) => Done(v.int().map(|n| format!("size={n}"))),
                (false, Some(FieldVal::Ref(inner))) if inner != 0 => {
                    if nesting >= MAX_NESTING {
                        return Done(None);
                    }
                    // The inner collection's size, or an AtomicInteger's value.
                    match resolve(a, reader, order, inner, nesting + 1, style) {
                        Done(Some(t)) if t.starts_with("size=") => Done(Some(t)),
                        Done(Some(t)) if t.parse::<i64>().is_ok() => Done(Some(format!("size={t}"))),
                        Done(_) => Done(None),
                        need => need,
                    }
                }
                _ => Done(None),
            };
        }
        if name == "java.util.concurrent.CopyOnWriteArrayList"
            || name == "java.util.ArrayDeque"
            || name == "java.util.concurrent.ConcurrentHashMap"
        {
            return array_backed_size(reader, inst, name);
        }
        if NODES.contains(&name) {
            let key = if name == "java.util.WeakHashMap$Entry" { inst.get("referent") } else { inst.get("key") };
            return match key {
                Some(FieldVal::Ref(0)) => Done(Some("null".into())),
                Some(FieldVal::Ref(k)) => match resolve(a, reader, order, k, nesting + 1, style) {
                    Done(None) => Done(a.object_at(k).map(|o| format!("{} @ 0x{k:x}", a.class_name(a.class_of(o))))),
                    step => step,
                },
                _ => Done(None),
            };
        }
    }
    Done(None)
}

/// Sizes read from a backing array: CopyOnWriteArrayList (its array's length),
/// ArrayDeque (`tail - head` around the array), ConcurrentHashMap (`baseCount` when no
/// counter cells are in use; else none: the cells are summed only when entries are listed).
fn array_backed_size(reader: &Reader, inst: &Instance, name: &str) -> Step {
    if name == "java.util.concurrent.ConcurrentHashMap" {
        return Done(match (inst.get("counterCells"), inst.int("baseCount")) {
            (Some(FieldVal::Ref(0)), Some(n)) => Some(format!("size={n}")),
            _ => None,
        });
    }
    let field = if name == "java.util.ArrayDeque" { "elements" } else { "array" };
    let Some(array) = inst.reference(field) else { return Done(None) };
    if !reader.has(array) {
        return Need(vec![array]);
    }
    let Some(&Obj::ObjectArray { len, .. }) = reader.get(array) else { return Done(None) };
    if name == "java.util.ArrayDeque" {
        let (Some(head), Some(tail)) = (inst.int("head"), inst.int("tail")) else { return Done(None) };
        if len == 0 {
            return Done(Some("size=0".into()));
        }
        return Done(Some(format!("size={}", (tail - head).rem_euclid(len as i64))));
    }
    Done(Some(format!("size={len}")))
}

/// A String's value, in every layout ([`crate::readback::strings`]): the characters the
/// program holds, as MAT writes a value.
fn string_text(reader: &Reader, order: ByteOrder, inst: &Instance, style: Style) -> Step {
    let Some(array) = inst.reference("value") else { return Done(None) };
    let int = |name| inst.get(name).filter(|v| matches!(v, FieldVal::Prim(basic_type::INT, _))).and_then(|v| v.int());
    let f = Fields {
        coder: inst.get("coder").filter(|v| matches!(v, FieldVal::Prim(basic_type::BYTE, _))).map(|v| v.bytes()[0]),
        offset: int("offset").map(|o| o as i32),
        count: int("count").map(|c| c as i32),
    };
    array_text_of(reader, order, array, &f, style)
}

/// StringBuilder/StringBuffer: the first `count` characters of `value`.
fn builder_text(reader: &Reader, order: ByteOrder, inst: &Instance, style: Style) -> Step {
    let Some(array) = inst.reference("value") else { return Done(None) };
    let coder = inst.get("coder").filter(|v| matches!(v, FieldVal::Prim(basic_type::BYTE, _))).map(|v| v.bytes()[0]);
    let count = inst.int("count").unwrap_or(0).clamp(0, i32::MAX as i64) as i32;
    array_text_of(reader, order, array, &Fields { coder, offset: None, count: Some(count) }, style)
}

/// The text of the value array `array` read as the fields `f` say, once its bytes up to
/// the end of the characters shown are read.
fn array_text_of(reader: &Reader, order: ByteOrder, array: u64, f: &Fields, style: Style) -> Step {
    if !reader.has(array) {
        return NeedData(array, f.bytes_bound(style.max_chars));
    }
    let Some(Obj::PrimitiveArray { ty, len, data, has_data: true }) = reader.get(array) else { return Done(None) };
    let Some(p) = plan(f, *ty, *len, order, Decoding::Runtime, style.max_chars) else { return Done(None) };
    let end = p.end() as usize;
    if data.len() < end && reader.wanted(array) < end {
        // Read before with fewer bytes (for another String sharing the array).
        return NeedData(array, end);
    }
    Done(render(&p, data, style.display))
}
