//! What the analysis says, as the [`Report`] (JSON, with a JSON Schema; rendered for
//! people by [`crate::render`]), and the MAT-parity output.
//!
//! - [`build`]: the report from an analysis and its features' sections; [`caps`]: a
//!   report cut down to `--detail`'s caps;
//! - [`suspects`], [`findings`], [`held_in`]: MAT's leak suspects, what each suspect holds,
//!   and where, in the application's terms;
//! - [`annotate`]: what a report built from a dump adds for comparisons (reference paths,
//!   element counts, growth points);
//! - [`parity`]: the numbers Eclipse MAT computes, as JSON, for comparing with MAT;
//! - [`triage`]: the OOM triage that opens the report, the heap's composition;
//! - [`histogram`]: the histogram's retained size as MAT's report prints it;
//! - [`layout`]: the object layout, the sizes' reading, what MAT's model would say;
//! - [`components`]: top-level dominators by class loader, MAT's Top Components;
//! - [`why_alive`]: a single suspect's root path and dominator subtree.

pub mod annotate;
pub mod build;
pub mod caps;
pub mod components;
pub mod findings;
pub mod frames;
pub mod held_in;
pub mod histogram;
pub mod layout;
pub mod parity;
pub mod structure;
pub mod suspects;
pub mod triage;
pub mod why_alive;

pub use crate::model::{Report, SCHEMA_VERSION};
pub use annotate::{annotated_report, annotated_report_with};
pub use build::{build, build_with, BuildOptions, Sections, SourceInfo};

/// The JSON Schema of [`Report`], as committed at `schema/report.schema.json`.
pub fn json_schema() -> String {
    crate::model::json::schema_text::<Report>()
}

/// The report as JSON text (deterministic: same report, same bytes).
pub fn to_json(report: &Report) -> String {
    crate::model::json::to_text(report)
}

/// A report saved as JSON (by `to_json`: the CLI's `--format json`, the page's export),
/// read back. A report of another schema version is refused with a message naming both
/// versions (checked first: its other fields may differ); anything else that is not such
/// a report is a format error (serde's message gives the line and column).
pub fn from_json(text: &str) -> crate::error::Result<Report> {
    use crate::error::Error;
    let error = |message: String| Error::invalid(message);
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| error(format!("not JSON: {e}")))?;
    match value.get("schema_version").and_then(serde_json::Value::as_u64) {
        None => Err(error("not a heapscope JSON report: it has no schema_version".into())),
        Some(v) if v != u64::from(SCHEMA_VERSION) => Err(error(format!(
            "this report has schema version {v}; this heapscope reads version {SCHEMA_VERSION} only: \
             use the heapscope that wrote it, or analyze the dump again"
        ))),
        Some(_) => serde_json::from_value(value)
            .map_err(|e| error(format!("not a heapscope JSON report of schema version {SCHEMA_VERSION}: {e}"))),
    }
}
