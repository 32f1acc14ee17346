//! How many elements an array or a collection holds, read back from the dump: an
//! array's length; a collection's size (MAT's reading, else its `size`-like field ([`SIZE_FIELDS`]), a `HashSet`'s
//! through its backing map). Whether a class is a collection is decided by its name first
//! ([`is_collection_class`]), so that no record is read for anything else.

use crate::analysis::Analysis;
use crate::error::Result;
use crate::model::format::parse_address;
use crate::model::names::is_collection_class;
use crate::query;
use crate::readback::object::{object_details, FieldValue};

/// Fields that hold a collection's element count, by collection class.
const SIZE_FIELDS: [&str; 5] = ["size", "elementCount", "count", "baseCount", "mSize"];

/// Elements of `obj` when it is an array or a collection: an array's length; a
/// collection's size as MAT's name resolver reads it (`size=…`, see [`crate::values`]),
/// else its `size`-like field (an int, or a long such as a `ConcurrentHashMap`'s
/// `baseCount`, whose counter cells, when in use, make its nodes the count: a hash
/// table's entries, its bucket chains' nodes included), a `HashSet` through its backing
/// map.
pub fn element_count(a: &mut Analysis, obj: u32) -> Result<Option<u64>> {
    // Decide by class name first: reading a record back can mean decompressing up to a
    // gzip checkpoint's distance.
    let class = a.class_name(a.class_of(obj));
    let is_array = class.ends_with("[]");
    if !is_array && !is_collection_class(class) {
        return Ok(None);
    }
    let details = object_details(a, obj)?;
    if is_array {
        return Ok(details.array_length);
    }
    let resolved = crate::values::texts_of(a, &[a.address(obj)])?;
    if let Some(n) = resolved.first().and_then(|t| t.as_deref()).and_then(|t| t.strip_prefix("size=")) {
        if let Ok(n) = n.parse::<u64>() {
            return Ok(Some(n));
        }
    }
    if let Some(n) = size_field(&details.fields) {
        // Counter cells in use: the nodes of its table are the entries.
        let cells = details.fields.iter().any(|f| !f.is_static && f.name == "counterCells" && f.reference.is_some());
        let table = details
            .fields
            .iter()
            .find(|f| !f.is_static && f.name == "table")
            .and_then(|f| f.reference.as_ref())
            .and_then(|r| parse_address(&r.address))
            .and_then(|t| query::find(a, t));
        return Ok(match (cells, table) {
            (true, Some(t)) => Some(query::chains::member_count(a, t)),
            _ => Some(n),
        });
    }
    // HashSet and its kin keep their elements in a map.
    let backing = details
        .fields
        .iter()
        .find(|f| !f.is_static && f.name == "map")
        .and_then(|f| f.reference.as_ref())
        .map(|r| r.address.clone());
    if let Some(map) = backing.and_then(|m| parse_address(&m)).and_then(|m| query::find(a, m)) {
        let map_details = object_details(a, map)?;
        return Ok(size_field(&map_details.fields));
    }
    Ok(None)
}

/// The first `size`-like int or long field of an instance's fields.
fn size_field(fields: &[FieldValue]) -> Option<u64> {
    SIZE_FIELDS.iter().find_map(|name| {
        fields
            .iter()
            .find(|f| !f.is_static && f.name == *name && (f.type_name == "int" || f.type_name == "long"))
            .and_then(|f| f.value.parse::<i64>().ok())
            .map(|v| v.max(0) as u64)
    })
}
