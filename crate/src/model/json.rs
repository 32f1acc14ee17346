//! JSON text as every output writes it: pretty-printed, one trailing newline,
//! deterministic (the same value gives the same bytes); and JSON Schemas the same way.

use schemars::JsonSchema;
use serde::Serialize;

/// `value` as pretty-printed JSON text ending in a newline.
pub fn to_text<T: Serialize + ?Sized>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("output types serialize to JSON");
    s.push('\n');
    s
}

/// The JSON Schema of `T`, as text ([`to_text`]).
pub fn schema_text<T: JsonSchema>() -> String {
    to_text(&schemars::schema_for!(T))
}
