//! What an object holds, shown where it is referenced: the text of an object as Eclipse
//! MAT's name resolvers give it ([`text`]: a String's value, a boxed number, a class's,
//! thread's or enum's name, a collection's size, a map node's key) and a collection's
//! entries ([`entries`]: key → value, index → element, each with its retained size), and
//! the dump's system properties ([`properties`]).
//!
//! Both read records back from the dump on demand, in batches ([`read::Reader`]: the
//! objects wanted together cost one walk of the parts of the dump holding them), with a
//! budget of records per question, texts cut at [`text::MAX_CHARS`] characters and
//! entries at [`entries::MAX_WALK`]. Nothing is computed during the analysis and nothing
//! is kept per object.

pub mod elements;
pub mod entries;
pub mod properties;
pub mod text;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::error::Result;

/// Objects one `values` question answers at most (the rest of the list is not answered).
pub const MAX_VALUES: usize = 500;
/// Records read at most per object of a `values` question (a node, its key, the key's
/// characters, …).
const RECORDS_PER_VALUE: usize = 4;

/// An object's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ObjectValue {
    pub address: String,
    /// The text shown beside a reference to it (None: it has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The texts of the objects at `addresses` (the first [`MAX_VALUES`]), in order; an
/// address that names no object of the dump has no text.
pub fn values(a: &mut Analysis, addresses: &[u64]) -> Result<Vec<ObjectValue>> {
    let ids = &addresses[..addresses.len().min(MAX_VALUES)];
    let texts = texts_of(a, ids)?;
    Ok(ids.iter().zip(texts).map(|(&id, text)| ObjectValue { address: format!("0x{id:x}"), text }).collect())
}

/// The texts of the objects at `ids` (addresses), read together.
pub fn texts_of(a: &mut Analysis, ids: &[u64]) -> Result<Vec<Option<String>>> {
    let mut reader = crate::readback::reader::Reader::new(RECORDS_PER_VALUE * ids.len() + 16);
    text::texts(a, &mut reader, ids)
}

/// Adds the texts to `heapscope inspect`'s JSON: `object.value` (the object's own) and
/// `value_text` on each field whose reference has one (the first [`MAX_VALUES`]).
pub fn annotate_inspect(a: &mut Analysis, json: &mut serde_json::Value) -> Result<()> {
    let Some(object) = json.get_mut("object") else { return Ok(()) };
    let parse = |v: &serde_json::Value| v.as_str().and_then(crate::model::format::parse_address);
    let own = object.pointer("/object/address").and_then(parse);
    let mut ids: Vec<u64> = own.into_iter().collect();
    if let Some(fields) = object.get("fields").and_then(|f| f.as_array()) {
        ids.extend(fields.iter().filter_map(|f| f.pointer("/reference/address").and_then(parse)).take(MAX_VALUES));
    }
    let texts = texts_of(a, &ids)?;
    let by_id: std::collections::HashMap<u64, Option<String>> = ids.iter().copied().zip(texts).collect();
    if let Some(t) = own.and_then(|id| by_id.get(&id).cloned().flatten()) {
        object["value"] = serde_json::Value::String(t);
    }
    if let Some(fields) = object.get_mut("fields").and_then(|f| f.as_array_mut()) {
        for f in fields.iter_mut() {
            let id = f.pointer("/reference/address").and_then(parse);
            if let Some(t) = id.and_then(|id| by_id.get(&id).cloned().flatten()) {
                f["value_text"] = serde_json::Value::String(t);
            }
        }
    }
    Ok(())
}
