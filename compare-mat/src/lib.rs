//! `heapscope compare mat`: heapscope's report checked against Eclipse MAT's own exported
//! Leak Suspects report of the same dump, field by field.
//!
//! A crate of its own beside the analyzer: the validator reads both reports as files
//! (MAT's zip, heapscope's JSON), so neither the library nor the page carries it. The
//! `heapscope` command line runs it (`compare mat`, `dev sweep-aggregate`).
//!
//! MAT's report is the zip its `ParseHeapDump.sh DUMP org.eclipse.mat.api:suspects`
//! writes: HTML pages (System Overview, Class Histogram, Top Consumers, Thread Overview,
//! System Properties, each suspect with its details, thread stacks). The pipeline:
//! [`zip`] reads the archive, [`html`] each page, [`pages`] turns the pages into a typed
//! [`MatReport`], [`check`] compares it with our [`ours::Report`] into a [`Verdict`] whose items
//! are each MATCH, EXPLAINABLE (with an enumerated [`Reason`] and its evidence) or FAIL
//! ([`classify`]). [`sweep`] folds many comparisons into one gate.
//!
//! Our side is the JSON report (`heapscope analyze --format json`), read as an
//! [`ours::Report`] (the fields compared, nothing else) and also as raw JSON, for the
//! sections compared only when present (`system_properties`, `top_components`).

pub mod check;
pub mod classify;
pub mod html;
pub mod ours;
pub mod pages;
pub mod sweep;
pub mod zip;

use std::fmt;

use serde_json::{json, Value};

pub use classify::{Item, Reason, Tier, Verdict};
pub use pages::MatReport;

use ours::Report;

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// An input is not what it should be (not a zip, not MAT's report, not heapscope's JSON).
    Format,
    /// A list the input asks for could not be allocated.
    Memory,
}

/// Why an input could not be read: what was expected, and where in the archive when
/// that is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// Byte offset in the zip archive.
    pub offset: Option<u64>,
    pub message: String,
}

impl Error {
    /// A format error at `offset` of the archive.
    pub fn format(offset: u64, message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::Format, offset: Some(offset), message: message.into() }
    }

    pub fn memory(message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::Memory, offset: None, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(offset) => write!(f, "at byte {offset} (0x{offset:x}): {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// The outcome of one comparison, with what it was made from.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// How the MAT report and our report are named in the output (file names).
    pub mat_name: String,
    pub ours_name: String,
    /// The HTML pages read from the archive.
    pub pages: Vec<String>,
    pub verdict: Verdict,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.verdict.fails() == 0
    }
}

fn format_error(message: String) -> Error {
    Error { kind: ErrorKind::Format, offset: None, message }
}

/// Reads MAT's report from the bytes of its zip.
pub fn read_mat(zip_bytes: &[u8]) -> Result<MatReport> {
    let archive = zip::Archive::parse(zip_bytes)?;
    if archive.entry("index.html").is_none() {
        return Err(format_error("not a MAT report archive: it has no index.html".into()));
    }
    let texts = archive.read_texts(|n| n == "index.html" || (n.starts_with("pages/") && n.ends_with(".html")))?;
    let pages: Vec<(String, html::Page)> = texts.into_iter().map(|(name, text)| (name, html::parse(&text))).collect();
    let report = pages::read(&pages);
    if report.histogram.is_none() && report.overview.is_empty() && report.descriptions.is_empty() {
        return Err(format_error(
            "not a MAT Leak Suspects report: no System Overview, Class Histogram or suspect found".into(),
        ));
    }
    Ok(report)
}

/// Reads our JSON report (the text of `heapscope analyze --format json`) of
/// `schema_version`, the version the calling heapscope writes: the fields compared as an
/// [`ours::Report`], and the raw JSON.
pub fn read_ours(text: &str, schema_version: u32) -> Result<(Report, Value)> {
    let raw: Value = serde_json::from_str(text).map_err(|e| format_error(format!("not JSON: {e}")))?;
    match raw.get("schema_version").and_then(Value::as_u64) {
        None => return Err(format_error("not a heapscope JSON report: it has no schema_version".into())),
        Some(v) if v != u64::from(schema_version) => {
            return Err(format_error(format!(
                "this report has schema version {v}; this heapscope reads version {schema_version} only"
            )));
        }
        Some(_) => {}
    }
    let report: Report =
        serde_json::from_value(raw.clone()).map_err(|e| format_error(format!("not a heapscope JSON report: {e}")))?;
    Ok((report, raw))
}

/// Compares MAT's report with ours. A report in the JVM's sizes differs from MAT's
/// wherever a size enters: each such FAIL is the layout's doing ([`explain_layout`]).
pub fn compare(mat: &MatReport, report: &Report, raw: &Value) -> Verdict {
    let art_strings = check::art_strings(mat, report);
    let mut verdict = check::compare(mat, &check::Ours { report, raw, art_strings });
    if let Some(layout) = report.dump.layout.as_ref().filter(|l| l.sizes == "jvm") {
        explain_layout(&mut verdict, layout);
    }
    verdict
}

/// Turns each FAIL of a field that sizes decide into EXPLAINABLE (`layout`): every
/// field but the counts, names and dump facts no size enters ([`size_free`]).
fn explain_layout(v: &mut Verdict, layout: &ours::Layout) {
    let evidence = format!(
        "ours is in the JVM's sizes ({}){}; MAT assumes its own model (heapscope analyze --sizes mat reproduces MAT's numbers)",
        layout.description,
        layout.mat_difference.as_deref().map(|d| format!("; {d}")).unwrap_or_default()
    );
    for item in &mut v.items {
        if item.tier == Tier::Fail && !size_free(&item.field) {
            item.tier = Tier::Explainable { reason: Reason::Layout, evidence: evidence.clone() };
        }
    }
}

/// Whether no shallow size enters field `field` of the comparison (a count, a name, a
/// fact of the dump file): its differences are never the layout's.
fn size_free(field: &str) -> bool {
    const FIELDS: [&str; 10] = [
        "overview.Number of objects",
        "overview.Number of classes",
        "overview.Number of class loaders",
        "overview.Number of GC roots",
        "overview.Identifier size",
        "overview.Compressed object pointers",
        "overview.File length",
        "overview.Date",
        "overview.Time",
        "histogram.total entries",
    ];
    FIELDS.contains(&field)
        || field.ends_with(".class")
        || field.ends_with(".instances")
        || field.starts_with("system_properties")
        || field.starts_with("stack (")
}

/// The comparison as JSON: `summary` {match, explainable, fail}, `explainable` [{field,
/// mat, ours, reason, evidence}], `fail` [{field, mat, ours}], and what was compared.
pub fn to_json(c: &Comparison) -> String {
    let v = &c.verdict;
    let mut explainable = Vec::new();
    let mut fail = Vec::new();
    for i in &v.items {
        match &i.tier {
            Tier::Match => {}
            Tier::Explainable { reason, evidence } => explainable.push(
                json!({"field": i.field, "mat": i.mat, "ours": i.ours, "reason": reason.name(), "evidence": evidence}),
            ),
            Tier::Fail => fail.push(json!({"field": i.field, "mat": i.mat, "ours": i.ours})),
        }
    }
    let reasons: serde_json::Map<String, Value> = Reason::ALL
        .iter()
        .map(|r| {
            (r.name().to_string(), json!(v.count(|t| matches!(t, Tier::Explainable { reason, .. } if reason == r))))
        })
        .collect();
    let doc = json!({
        "kind": "heapscope compare mat",
        "real": true,
        "mat": c.mat_name,
        "ours": c.ours_name,
        "pages": c.pages,
        "verdict": if c.passed() { "PASS" } else { "FAIL" },
        "summary": {"match": v.matches(), "explainable": v.explainable(), "fail": v.fails()},
        "explainable_by_reason": reasons,
        "explainable": explainable,
        "fail": fail,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// Escapes text for Markdown so that it renders literally (table cells included): the
/// caller's escaper, for these writers have none of their own (the `heapscope` command
/// line passes its report's, `heapscope::render::markdown::escape`).
pub type MarkdownEscape = fn(&str) -> String;

/// A Markdown table cell: at most 300 characters (then `…`), escaped.
pub(crate) fn md_cell(s: &str, escape: MarkdownEscape) -> String {
    if s.chars().count() > 300 {
        escape(&s.chars().take(300).chain("…".chars()).collect::<String>())
    } else {
        escape(s)
    }
}

/// The comparison as a Markdown verdict, its text escaped by `escape`.
pub fn to_markdown(c: &Comparison, escape: MarkdownEscape) -> String {
    use std::fmt::Write;
    let md_cell = |s: &str| md_cell(s, escape);
    let v = &c.verdict;
    let mut s = String::new();
    let _ = writeln!(s, "# heapscope vs Eclipse MAT: {}\n", if c.passed() { "PASS" } else { "FAIL" });
    // Escaped text, not code spans: a code span shows its text as it is, escapes included.
    let _ = writeln!(s, "MAT report: {}  \nheapscope report: {}\n", md_cell(&c.mat_name), md_cell(&c.ours_name));
    let _ = writeln!(
        s,
        "| MATCH | EXPLAINABLE | FAIL |\n|---:|---:|---:|\n| {} | {} | {} |\n",
        v.matches(),
        v.explainable(),
        v.fails()
    );
    let fails: Vec<&Item> = v.items.iter().filter(|i| i.tier == Tier::Fail).collect();
    let _ = writeln!(s, "## FAIL ({})\n", fails.len());
    if fails.is_empty() {
        let _ = writeln!(s, "None.\n");
    } else {
        let _ = writeln!(s, "| field | MAT | heapscope |\n|---|---|---|");
        for i in fails {
            let _ = writeln!(s, "| {} | {} | {} |", md_cell(&i.field), md_cell(&i.mat), md_cell(&i.ours));
        }
        s.push('\n');
    }
    let _ = writeln!(s, "## EXPLAINABLE ({})\n", v.explainable());
    for r in Reason::ALL {
        let items: Vec<(&Item, &String)> = v
            .items
            .iter()
            .filter_map(|i| match &i.tier {
                Tier::Explainable { reason, evidence } if *reason == r => Some((i, evidence)),
                _ => None,
            })
            .collect();
        if items.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            "### {} ({})\n\n| field | MAT | heapscope | evidence |\n|---|---|---|---|",
            r.name(),
            items.len()
        );
        for (i, e) in items {
            let _ =
                writeln!(s, "| {} | {} | {} | {} |", md_cell(&i.field), md_cell(&i.mat), md_cell(&i.ours), md_cell(e));
        }
        s.push('\n');
    }
    let _ = writeln!(s, "## Pages read ({})\n", c.pages.len());
    for p in &c.pages {
        let _ = writeln!(s, "- {}", md_cell(p));
    }
    s
}
