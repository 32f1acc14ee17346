//! The exported `Session`: one dump, analyzed once in a worker, then queried by the page.
//!
//! `Session.open` opens a core [`crate::session::Session`] (the analysis, its features and
//! the report) for the page's queries. Every answer is a JSON string of a core type: the
//! report is exactly `report::to_json` (what `heapscope analyze --format json` writes), the
//! queries and answers are `crate::session::{Query, Answer}` (schema/query.schema.json).
//! Nothing here computes anything the core does not: it parses, calls, serializes.
//!
//! The page runs one worker per dump and one `Session` per worker; dropping the worker is
//! how a dump is closed or a run cancelled (wasm memory never shrinks, so a fresh worker
//! is also how the next dump starts with a clean heap).

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Blob;

use crate::analysis::Options;
use crate::error::Error;
use crate::mapping::Mapping;
use crate::model::Reading;
use crate::render::{html, markdown};
use crate::report::{self, Report, SourceInfo};
use crate::session::protocol::OpenOptions;
use crate::session::{self, Query};
use crate::source::{auto_decompress, looks_gzipped, ByteSource};

use super::blob_source::{BlobSource, DEFAULT_CHUNK_SIZE};
use super::progress::ProgressHandle;

/// wasm32's address space: 65,536 pages of 64 KiB.
pub const WASM_MAX_MEMORY: u64 = 4 << 30;

/// Kept free beyond the analysis' own estimate: the read chunk, gzip windows, the report,
/// its JSON and Markdown, query answers.
pub const MEMORY_MARGIN: u64 = 160 << 20;

/// The page's estimate of how far an analysis grows the wasm memory:
/// [`WASM_FIXED_BYTES`] (less the chunk buffer with read-ahead) + this per object (see
/// [`wasm_peak_estimate`]). The core's [`crate::analysis::PEAK_BYTES_PER_OBJECT`] is what the
/// allocator holds; the linear memory also keeps the holes freed temporaries leave, since
/// it never shrinks. Measured with `tests/bench/browser-bench.mjs` on the 1 GB benchmark
/// dump (22.1 M objects, read ahead, so no chunk buffer): 310 MiB, reached in
/// the strengths phase; `tests/e2e/memory-estimate.test.mjs` keeps the estimate within
/// 10% of the growth measured on mid-size dumps (1.42 M objects, read ahead: 40.4 MiB
/// against 43.8 estimated; 0.36 M, a file too small for read-ahead: 34.8 against 37.4).
/// Above the large dump's peak (14 MiB + 22 B × 22.1 M = 478 MiB): an estimate below the
/// real peak would let a dump start that cannot finish. Not more per object: the 8 GB
/// dump (176.7 M objects, 3.92 GiB measured with the chunk buffer) must still pass the
/// check against what 4 GiB leave.
pub const WASM_PEAK_BYTES_PER_OBJECT: u64 = 22;

/// What the analysis adds to the wasm memory whatever the dump's size: the read chunk
/// ([`DEFAULT_CHUNK_SIZE`]; none with read-ahead), the general allocator's arena
/// (`heap_stats::SMALL_ARENA`), the class table and the like (fitted with the constant
/// above to the three measurements it names).
pub const WASM_FIXED_BYTES: u64 = 30 << 20;

/// The estimated growth of the wasm memory while a dump of `objects` objects is analyzed
/// (the check after pass 1 refuses a dump when this exceeds [`memory_limit`]); with
/// `read_ahead` (the page's read-ahead worker serves the file, see `BlobSource`) the
/// source holds no chunk buffer, and the fixed part is [`DEFAULT_CHUNK_SIZE`] smaller.
pub fn wasm_peak_estimate(objects: u64, read_ahead: bool) -> u64 {
    wasm_fixed_bytes(read_ahead) + objects.saturating_mul(WASM_PEAK_BYTES_PER_OBJECT)
}

/// The fixed part of [`wasm_peak_estimate`].
fn wasm_fixed_bytes(read_ahead: bool) -> u64 {
    WASM_FIXED_BYTES - if read_ahead { DEFAULT_CHUNK_SIZE as u64 } else { 0 }
}

/// Linear memory the module has now (bytes). It only grows.
pub fn memory_bytes() -> u64 {
    core::arch::wasm32::memory_size(0) as u64 * 65_536
}

/// What the analysis may still allocate: 4 GiB minus what this instance already has,
/// minus [`MEMORY_MARGIN`], capped by `requested`.
pub fn memory_limit(requested: Option<u64>) -> u64 {
    let available = WASM_MAX_MEMORY.saturating_sub(memory_bytes()).saturating_sub(MEMORY_MARGIN);
    requested.map_or(available, |r| r.min(available))
}

#[wasm_bindgen]
pub struct Session {
    /// None for a report opened from its JSON, without the dump.
    session: Option<session::Session>,
    report: Report,
    report_json: String,
    /// The phases of the analysis as JSON (see [`super::progress::PhaseRecord`]).
    phases: String,
}

#[wasm_bindgen]
impl Session {
    /// Analyzes `file` (a `File` or any `Blob`, gzip-compressed or not), calling
    /// `on_progress({phase, bytesDone, bytesTotal, objects})` a few times a second.
    /// `options`: `{chunkSize?, keepUnreachable?, memoryLimit?, mapping?, snapshot?,
    /// sizes?}` or undefined. Throws a
    /// `{kind, offset, message, text}` object on failure (kind "memory" when the dump needs
    /// more memory than the tab has, before allocating it). Works only in a Web Worker.
    pub fn open(file: Blob, options: JsValue, on_progress: Option<js_sys::Function>) -> Result<Session, JsValue> {
        let options: OpenOptions = if options.is_undefined() || options.is_null() {
            OpenOptions::default()
        } else {
            serde_wasm_bindgen::from_value(options).map_err(|e| Error::query(format!("invalid options: {e}")))?
        };
        let chunk_size = options.chunk_size.map_or(DEFAULT_CHUNK_SIZE, |c| c.clamp(1, 1 << 30) as usize);
        super::heap_stats::reserve_small_arena();
        let file_name = file.dyn_ref::<web_sys::File>().map(|f| f.name());
        let file_bytes = file.size() as u64;
        let mut progress = ProgressHandle::new(on_progress);
        let mut blob = BlobSource::new(file, chunk_size)?.with_progress(progress.clone());
        let read_ahead = blob.reads_ahead();
        let mut head = [0u8; 2];
        let n = blob.read_at(0, &mut head)?;
        let gzip = looks_gzipped(&head[..n]);
        let source = auto_decompress(Box::new(blob))?;
        let core_options = Options {
            keep_unreachable: options.keep_unreachable,
            // The core compares the whole estimate (fixed part and per object) with the limit.
            memory_limit: Some(memory_limit(options.memory_limit)),
            peak_bytes_per_object: Some(WASM_PEAK_BYTES_PER_OBJECT),
            memory_fixed_bytes: wasm_fixed_bytes(read_ahead),
            snapshot: options.snapshot,
            sizes: options.sizes.unwrap_or_default(),
            ..Options::default()
        };
        // Parsed first: a bad mapping should not cost an analysis.
        let mapping = options.mapping.as_deref().map(Mapping::parse_str).transpose()?;
        let info = SourceInfo { file_name, file_bytes, gzip };
        let mut session = session::Session::open(source, &core_options, &mut progress, info)?;
        if let Some(mapping) = &mapping {
            session.apply_mapping(mapping)?;
        }
        // As the CLI's report: with what a later comparison needs from the dump.
        let report = session.report()?.clone();
        let report_json = report::to_json(&report);
        let phases = serde_json::to_string(&progress.finish()).unwrap_or_default();
        Ok(Session { session: Some(session), report, report_json, phases })
    }

    /// A report saved as JSON (by the page or `heapscope analyze --format json`), opened
    /// without its dump: the report and the Markdown are available, the queries are not.
    /// Throws a `{kind: "format", …}` object when the text is not such a report.
    pub fn from_report_json(json: &str) -> Result<Session, JsValue> {
        let report: Report = serde_json::from_str(json).map_err(|e| {
            Error::format(0, format!("not a heapscope JSON report (schema version {}): {e}", report::SCHEMA_VERSION))
        })?;
        if report.schema_version != report::SCHEMA_VERSION {
            return Err(Error::format(
                0,
                format!(
                    "this report has schema version {}; this page reads version {}",
                    report.schema_version,
                    report::SCHEMA_VERSION
                ),
            )
            .into());
        }
        let report_json = report::to_json(&report);
        Ok(Session { session: None, report, report_json, phases: "[]".into() })
    }

    /// Applies the ProGuard/R8 mapping `text` (replacing one applied before) and returns
    /// the rebuilt report's JSON. Throws `{kind: "format", …}` naming the bad line.
    pub fn apply_mapping(&mut self, text: &str) -> Result<String, JsValue> {
        let mapping = Mapping::parse_str(text)?;
        let s = self.session.as_mut().ok_or_else(no_dump)?;
        s.apply_mapping(&mapping)?;
        self.report = s.report()?.clone();
        self.report_json = report::to_json(&self.report);
        Ok(self.report_json.clone())
    }

    /// This report (the current side) compared with `baseline_json`, a report the page
    /// got from the baseline's own worker (so two dumps are never in memory at once), as
    /// `heapscope compare BASELINE CURRENT --format FORMAT [--sort SORT] [--top TOP]`
    /// writes it: `format` is "json", "md" or "html", `sort` "instances", "shallow" or
    /// "retained". Throws a `{kind: "format", …}` object when the two cannot be compared.
    pub fn compare_with_baseline(
        &self,
        baseline_json: &str,
        format: &str,
        sort: &str,
        top: Option<u32>,
    ) -> Result<String, JsValue> {
        let baseline = crate::compare::read_report_json(baseline_json)?;
        let sort = match sort {
            "instances" => crate::compare::SortKey::Instances,
            "shallow" => crate::compare::SortKey::Shallow,
            "retained" => crate::compare::SortKey::Retained,
            other => return Err(Error::query(format!("cannot sort classes by {other:?}")).into()),
        };
        let top = top.map(|t| t as usize);
        // The documents pick their rows from both ends of the whole list themselves.
        let cut = if format == "json" { top } else { None };
        let comparison = crate::compare::compare(&baseline, &self.report, &crate::compare::Options { sort, top: cut })?;
        match format {
            "json" => Ok(crate::compare::to_json(&comparison)),
            "md" => Ok(crate::compare::document::markdown(&comparison, top)),
            "html" => Ok(crate::compare::document::html(&comparison, top)),
            other => Err(Error::query(format!("cannot write a comparison as {other:?}")).into()),
        }
    }

    /// Checks that `json` is a report this heapscope reads as one side of a comparison,
    /// as `heapscope compare` reads a saved report (same words when it is not: another
    /// schema version, not JSON). Throws `{kind: "format", …}`.
    pub fn check_report_json(json: &str) -> Result<(), JsValue> {
        crate::compare::read_report_json(json)?;
        Ok(())
    }

    /// The comparison's stable name of each class loader of this report (`{report label:
    /// stable name}`, `compare::loaders::stable_names`), so the page can take a class row
    /// of a comparison back to this report's histogram row.
    pub fn stable_loader_names(&self) -> Result<String, JsValue> {
        json(&crate::compare::loaders::stable_names(&self.report.histogram))
    }

    /// Whether the dump is here (false for a report opened from JSON).
    pub fn has_dump(&self) -> bool {
        self.session.is_some()
    }

    /// What each phase of the analysis cost (JSON array: `phase`, `startMs`, `endMs`,
    /// `bytesRead`, `allocated`, `peakAllocated`, `memory`), for the benchmark; `[]`
    /// for a report opened from its JSON.
    pub fn phase_stats(&self) -> String {
        self.phases.clone()
    }

    /// The report as `report::to_json` writes it (byte-identical to the CLI's JSON).
    pub fn report_json(&self) -> String {
        self.report_json.clone()
    }

    /// The report as Markdown (`render::markdown::render`).
    pub fn markdown(&self) -> String {
        markdown::render(&self.report)
    }

    /// The report as Markdown with bars, sparklines and trees (`heapscope analyze -f
    /// md-graphs`).
    pub fn markdown_graphs(&self) -> String {
        markdown::render_with(&self.report, &crate::render::RenderOptions { graphs: true, ..Default::default() })
    }

    /// The report as a self-contained HTML file (`render::html::render`).
    pub fn html(&self) -> String {
        html::render(&self.report)
    }

    /// Answers a query (`crate::session::Query` as JSON: `{"query": "children", "limit":
    /// 50}`) with its answer as JSON (`crate::session::Answer`: `{"query": "children",
    /// "answer": …}`). Throws `{kind, message, …}` for a malformed query, an address that
    /// names no object, or a report opened without its dump.
    pub fn query(&mut self, query: &str) -> Result<String, JsValue> {
        let q: Query = serde_json::from_str(query).map_err(|e| Error::query(format!("not a heapscope query: {e}")))?;
        let s = self.session.as_mut().ok_or_else(no_dump)?;
        json(&s.answer(&q)?)
    }
}

/// Linear memory of this wasm instance now (bytes): the peak, since it never shrinks.
#[wasm_bindgen(js_name = memoryBytes)]
pub fn memory_bytes_js() -> f64 {
    memory_bytes() as f64
}

/// [`wasm_peak_estimate`] (bytes), for the tests and the benchmark.
#[wasm_bindgen(js_name = wasmPeakEstimate)]
pub fn wasm_peak_estimate_js(objects: f64, read_ahead: bool) -> f64 {
    wasm_peak_estimate(objects.max(0.0) as u64, read_ahead) as f64
}

/// The memory limit `open` would give the analysis now (bytes), for the page to show.
#[wasm_bindgen(js_name = memoryLimit)]
pub fn memory_limit_js(requested: Option<f64>) -> f64 {
    memory_limit(requested.filter(|r| *r >= 0.0).map(|r| r as u64)) as f64
}

fn no_dump() -> Error {
    Error::query("this needs the heap dump: the report was opened from its JSON (drop the dump to explore it)")
}

fn json<T: Serialize>(value: &T) -> Result<String, JsValue> {
    serde_json::to_string(value)
        .map_err(|e| JsValue::from(Error::io(format!("cannot hand the result to the page: {e}"))))
}

impl From<Error> for JsValue {
    fn from(e: Error) -> JsValue {
        let js = crate::session::protocol::AnalysisError::from(&e);
        js.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .unwrap_or_else(|_| JsValue::from_str(&e.to_string()))
    }
}

// The strength-aware reading (seed `001_*`): which tree the queries and retained sizes
// answer from, and an object's strength. Kept apart from the query entry point above.
#[wasm_bindgen]
impl Session {
    /// Makes `tree` ("mat" or "strength") the dominator tree every later query and
    /// retained size answers from, and returns the report in that reading as JSON (its
    /// `tree` says which; top consumers and suspects follow the tree): the session's
    /// report from then on, exported as `heapscope analyze --tree TREE --format json`
    /// writes it. The strength-aware tree is computed on the first switch to it (about as
    /// long as the first tree took), then both are kept.
    pub fn set_tree(&mut self, tree: &str) -> Result<String, JsValue> {
        let reading =
            Reading::parse(tree).ok_or_else(|| Error::query(format!("--tree takes mat or strength, not {tree:?}")))?;
        let s = self.session.as_mut().ok_or_else(no_dump)?;
        s.set_reading(reading)?;
        self.report = s.report()?.clone();
        self.report_json = report::to_json(&self.report);
        Ok(self.report_json.clone())
    }

    /// The reachability strength of the object at `address` (`strong`, `weak`, …,
    /// `unreachable`), whichever tree is in use.
    pub fn strength(&self, address: &str) -> Result<String, JsValue> {
        let a = &self.session.as_ref().ok_or_else(no_dump)?.analysis;
        let obj = crate::model::format::parse_address(address)
            .and_then(|addr| a.object_at(addr))
            .ok_or_else(|| Error::query(format!("no object at {}", address.trim())))?;
        Ok(a.strength(obj).name().to_string())
    }
}

impl Session {
    /// The objects the report counts (for the warm-up, which only runs the analysis).
    pub(super) fn objects(&self) -> u64 {
        self.report.overview.objects
    }
}
