//! How many elements an array or a collection holds, read back from the dump: an
//! array's length; a collection's `size`-like field ([`SIZE_FIELDS`]), a `HashSet`'s
//! through its backing map. Whether a class is a collection is decided by its name first
//! ([`is_collection_class`]), so that no record is read for anything else.

use crate::analysis::Analysis;
use crate::error::Result;
use crate::model::format::parse_address;
use crate::model::names::is_collection_class;
use crate::query;
use crate::readback::object::object_details;

/// Fields that hold a collection's element count, by collection class.
const SIZE_FIELDS: [&str; 5] = ["size", "elementCount", "count", "baseCount", "mSize"];

/// Elements of `obj` when it is an array (its length) or a collection (its `size`-like
/// field; a `HashSet` through its backing map), as the dump holds it.
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
    for name in SIZE_FIELDS {
        if let Some(f) = details.fields.iter().find(|f| !f.is_static && f.name == name && f.type_name == "int") {
            return Ok(f.value.parse::<i64>().ok().map(|v| v.max(0) as u64));
        }
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
        for name in SIZE_FIELDS {
            if let Some(f) = map_details.fields.iter().find(|f| !f.is_static && f.name == name && f.type_name == "int")
            {
                return Ok(f.value.parse::<i64>().ok().map(|v| v.max(0) as u64));
            }
        }
    }
    Ok(None)
}
