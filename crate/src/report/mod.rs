//! What the analysis says, in the forms people and tools read: the [`model::Report`]
//! (JSON, with a JSON Schema), the document for people rendered as Markdown or HTML, and
//! the MAT-parity output.

pub mod build;
pub mod document;
pub mod html;
pub mod markdown;
pub mod model;
pub mod parity;
pub mod suspects;

pub use build::{build, SourceInfo};
pub use model::{Report, SCHEMA_VERSION};

/// The JSON Schema of [`Report`], as committed at `schema/report.schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Report);
    let mut s = serde_json::to_string_pretty(&schema).expect("schema serializes");
    s.push('\n');
    s
}

/// The report as JSON text (deterministic: same report, same bytes).
pub fn to_json(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("report serializes");
    s.push('\n');
    s
}
