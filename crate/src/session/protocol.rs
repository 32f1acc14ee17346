//! What the page and its worker say to each other about a session, as Rust types: the
//! page's TypeScript types are generated from their JSON Schema
//! (`heapscope schema --protocol` → `schema/protocol.schema.json` →
//! `web/src/generated/protocol.ts`), so the worker's messages cannot drift from the core.
//!
//! Answers cross as JSON strings (a report of a big dump is megabytes: parsing it once, on
//! the page, beats a structured clone); [`JsonAnswers`] names the type each string holds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::query::{Answer, Query};
use crate::error::{Error, ErrorKind};
use crate::model::{Reading, Report, Sizes};

/// Options for opening a dump in the page's worker (all optional).
#[derive(Debug, Default, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct OpenOptions {
    /// Bytes per `FileReaderSync` read (default 16 MiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk_size: Option<u64>,
    /// MAT's `keep_unreachable_objects`.
    pub keep_unreachable: bool,
    /// A lower memory limit than the one the wasm memory allows (bytes): lets a user (or a
    /// test) see what a device with less memory would do. Never raises the limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<u64>,
    /// The text of a ProGuard/R8 mapping file to apply (see `crate::mapping`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping: Option<String>,
    /// The heap-dump snapshot to analyze (1-based) when the file holds several; by
    /// default the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<u32>,
    /// Which shallow sizes: `jvm` (the default: what the JVM that wrote the dump uses) or
    /// `mat` (Eclipse MAT's model), as the CLI's `--sizes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Sizes>,
}

/// A progress report, sent a few times a second while a dump is analyzed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// The phase's name (`pass 1: indexing objects`, …).
    pub phase: String,
    /// Input bytes consumed (compressed bytes for gzip).
    pub bytes_done: u64,
    pub bytes_total: Option<u64>,
    pub objects: u64,
    /// The worker's wasm linear memory (bytes) when this was sent.
    pub memory_bytes: u64,
}

/// An error as the page receives it: a plain object (it crosses `postMessage` intact).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AnalysisError {
    pub kind: ErrorKind,
    /// A byte offset in the decoded HPROF stream, when the error is about one.
    pub offset: Option<u64>,
    pub message: String,
    /// The full sentence, with the offset ("at byte 123 (0x7b): …").
    pub text: String,
}

impl From<&Error> for AnalysisError {
    fn from(e: &Error) -> AnalysisError {
        AnalysisError { kind: e.kind, offset: e.offset, message: e.message.clone(), text: e.to_string() }
    }
}

/// How a comparison is written.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompareFormat {
    Json,
    Md,
    Html,
}

/// How a comparison's classes are sorted.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompareSort {
    Instances,
    Shallow,
    Retained,
}

/// A rendering of the report for people.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Rendering {
    Markdown,
    /// Markdown with bars, sparklines and trees drawn with characters (`-f md-graphs`).
    MarkdownGraphs,
    Html,
}

/// A request to the worker holding a dump; the answer is a JSON string (see
/// [`JsonAnswers`] for what each holds).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Request {
    /// A typed query of the core; the answer is an [`Answer`].
    Query { query: Query },
    /// The report rendered for people; the answer is the text.
    Render { format: Rendering },
    /// Applies a ProGuard/R8 mapping's text; the answer is the rebuilt [`Report`].
    Mapping { text: String },
    /// Whether a saved report can be a side of a comparison (answer null; errors in the
    /// CLI's words).
    CheckReport { text: String },
    /// This report compared with a baseline report, as `heapscope compare BASELINE CURRENT
    /// --format FORMAT --sort SORT` writes it; the answer is that text.
    Compare { baseline: String, format: CompareFormat, sort: CompareSort },
    /// `{report loader label: the comparison's stable loader name}` of this report.
    LoaderNames,
    /// Makes `tree` the dominator tree the queries and retained sizes answer from
    /// (computed on the first switch to it); the answer is the [`Report`] in that reading.
    Tree { tree: Reading },
}

/// The types the JSON strings of the answers hold, by request (never sent: it names
/// them for the page's types).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct JsonAnswers {
    pub query: Answer,
    pub mapping: Report,
    pub tree: Report,
    /// The report the worker hands over when a dump is opened (`Opened.reportJson`).
    pub opened: Report,
    pub loader_names: std::collections::BTreeMap<String, String>,
}

/// Every type of the protocol, for its JSON Schema.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ProtocolTypes {
    pub open_options: OpenOptions,
    pub progress: Progress,
    pub error: AnalysisError,
    pub request: Request,
    pub answers: JsonAnswers,
}

/// The JSON Schema of the protocol, as committed at `schema/protocol.schema.json`.
pub fn json_schema() -> String {
    crate::model::json::schema_text::<ProtocolTypes>()
}
