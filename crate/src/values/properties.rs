//! The dump's system properties, as Eclipse MAT's System Properties page lists them: the
//! map in the static field `props` of `java.lang.System` (else `systemProperties`, as MAT
//! looks), read as a collection's entries ([`super::entries`]), each key and value by its
//! text (at most 1024 characters, as MAT reads strings, in plain characters), sorted by
//! key.
//!
//! A `Properties` is read as MAT reads it: through its `ConcurrentHashMap` (`map`, JDK 9+)
//! when the dump has the class `java.lang.VersionProps`, which is how MAT tells a JDK 9+;
//! else as the `Hashtable` it extends (JDK 8, old Android). A recent Android dump keeps its
//! properties in such a `map` without that class: MAT lists none, and so does this.
//!
//! Cost: the map's internal objects and its keys' and values' strings read back in a few
//! walks of the dump (a system properties map has a few dozen entries).

use super::entries::{pairs_of, MAX_WALK};
use super::text::{texts_in, Style};
use crate::analysis::Analysis;
use crate::error::Result;
use crate::model::SystemProperty;
use crate::readback::reader::{FieldVal, Reader};
use crate::readback::strings::{Display, MAT_MAX_CHARS};
use crate::records::basic_type;

/// The static fields of `java.lang.System` MAT looks in, in order.
const FIELDS: [&str; 2] = ["props", "systemProperties"];

/// The system properties map of the dump: the object a static field of the first
/// `java.lang.System` class holds (None: no such class, or the fields are null).
pub fn properties_map(a: &Analysis) -> Option<u32> {
    let table = &a.heap.index.classes;
    let c = (0..table.classes.len() as u32).find(|&c| a.class_name(c) == "java.lang.System")?;
    FIELDS.iter().find_map(|&name| {
        table.classes[c as usize]
            .statics
            .iter()
            .find(|s| s.ty == basic_type::OBJECT && s.value != 0 && a.heap.index.field_name(Some(c), s.name_id) == name)
            .and_then(|s| a.object_at(s.value))
    })
}

/// The system properties, sorted by key (None: the dump has no system properties map, or
/// it does not read as a map).
pub fn system_properties(a: &mut Analysis) -> Result<Option<Vec<SystemProperty>>> {
    let Some(map) = properties_map(a) else { return Ok(None) };
    let mut reader = Reader::new(4 * MAX_WALK);
    let jdk9 = (0..a.class_count() as u32).any(|c| a.class_name(c) == "java.lang.VersionProps");
    let Some((pairs, _)) = pairs_of(a, &mut reader, map, jdk9)? else { return Ok(None) };
    let id = |v: &FieldVal| match v {
        FieldVal::Ref(id) => *id,
        FieldVal::Prim(..) => 0,
    };
    let ids: Vec<u64> = pairs.iter().flat_map(|(k, v)| [id(k), id(v)]).collect();
    let style = Style { display: Display::Plain, max_chars: MAT_MAX_CHARS };
    let texts = texts_in(a, &mut reader, &ids, style)?;
    let text = |a: &Analysis, id: u64, t: &Option<String>| -> String {
        match (id, t) {
            (0, _) => String::new(),
            (_, Some(t)) => t.clone(),
            (id, None) => match a.object_at(id) {
                Some(o) => format!("{} @ 0x{id:x}", a.class_name(a.class_of(o))),
                None => format!("0x{id:x}"),
            },
        }
    };
    let mut out: Vec<SystemProperty> = ids
        .chunks(2)
        .zip(texts.chunks(2))
        .map(|(i, t)| SystemProperty { key: text(a, i[0], &t[0]), value: text(a, i[1], &t[1]) })
        .collect();
    out.sort_by(|x, y| x.key.encode_utf16().cmp(y.key.encode_utf16()).then_with(|| x.value.cmp(&y.value)));
    Ok(Some(out))
}
