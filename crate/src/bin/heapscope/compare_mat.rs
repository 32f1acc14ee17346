//! `heapscope compare mat MAT OURS` (heapscope's report checked against MAT's exported
//! Leak Suspects report; the comparison itself is the `heapscope-compare-mat` crate,
//! `compare_mat`) and the subcommands of `heapscope compare`.
//!
//! Exit status: 0 when nothing FAILs, 2 when something does, 1 when an input cannot be read.

use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use compare_mat as mat;
use heapscope::error::{Error, ErrorKind};
use heapscope::session::input;
use heapscope::text::one_line;

use crate::common::{self, AnalysisArgs, Dominators, Failure, Global, Outcome, SizesArg};

#[derive(Subcommand, Debug)]
pub enum Sub {
    /// Check heapscope's numbers against Eclipse MAT's own exported Leak Suspects report
    /// (exit 0: nothing FAILs; 2: something FAILs; 1: unreadable input)
    Mat(MatArgs),
    /// Write what grew from a baseline to the current report (the same as `compare A B`)
    Reports(crate::compare::Growth),
}

#[derive(clap::Args, Debug)]
pub struct MatArgs {
    /// MAT's exported Leak Suspects report: the NAME_Leak_Suspects.zip that
    /// `ParseHeapDump.sh DUMP org.eclipse.mat.api:suspects` writes
    #[arg(value_name = "MAT")]
    pub mat: PathBuf,
    /// heapscope's JSON report of the same dump (`heapscope analyze DUMP --format json`),
    /// or the dump itself (analyzed first, in MAT's sizes); a report in the JVM's sizes
    /// has every difference its object layout explains marked EXPLAINABLE (layout)
    #[arg(value_name = "OURS")]
    pub ours: PathBuf,
    /// Format: md (a readable verdict) or json ({summary, explainable, fail}); without it,
    /// json when OUT ends in .json, else md
    #[arg(short, long, value_enum)]
    pub format: Option<MatFormat>,
    /// Write the verdict to OUT instead of stdout (- is stdout)
    #[arg(short, long = "output", value_name = "OUT")]
    pub out: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatFormat {
    /// Markdown: the verdict, every FAIL, every EXPLAINABLE item with its evidence
    Md,
    /// JSON: {"summary": {match, explainable, fail}, "explainable": [...], "fail": [...]}
    Json,
}

impl MatFormat {
    /// `format` if given, else from `out`'s extension.
    pub fn choose(format: Option<MatFormat>, out: Option<&Path>) -> MatFormat {
        format.unwrap_or(match out.and_then(|o| o.extension()) {
            Some(e) if e.eq_ignore_ascii_case("json") => MatFormat::Json,
            _ => MatFormat::Md,
        })
    }
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path)
        .map_err(|e| Failure { input: None, error: Error::io(format!("cannot read {}: {e}", path.display())) })
}

/// The validator's error as the command line's (messages on one line).
pub fn mat_error(e: mat::Error) -> Error {
    let kind = match e.kind {
        mat::ErrorKind::Format => ErrorKind::Format,
        mat::ErrorKind::Memory => ErrorKind::Memory,
    };
    Error { kind, offset: e.offset, message: one_line(e.message) }
}

/// Our side: a JSON report as written, or a dump analyzed now.
fn ours(path: &Path, global: &Global) -> Result<(mat::ours::Report, serde_json::Value), Failure> {
    let fail = |error: Error| Failure { input: Some(common::display_name(path)), error };
    let read_json =
        |text: &str| mat::read_ours(text, heapscope::model::SCHEMA_VERSION).map_err(mat_error).map_err(fail);
    if !common::is_stdin(path) && input::looks_like_json(path).map_err(fail)? {
        let text = String::from_utf8(read(path)?).map_err(|_| fail(Error::format(0, "a JSON report must be UTF-8")))?;
        return read_json(&text);
    }
    let args = AnalysisArgs {
        dump: path.to_path_buf(),
        keep_unreachable: false,
        dominators: Dominators::SemiNca,
        // Checked against MAT: in MAT's sizes.
        sizes: SizesArg::Mat,
        snapshot: None,
        timings: false,
        verbose: false,
        trace_rss: false,
        mapping: None,
        core_only: false,
    };
    let mut done = common::analyze(&args, global)?;
    let report = match done.session.report() {
        Ok(r) => r.clone(),
        Err(e) => return Err(done.fail(e)),
    };
    done.finish()?;
    read_json(&heapscope::report::to_json(&report))
}

pub fn run(args: &MatArgs, global: &Global) -> Outcome {
    let zip = read(&args.mat)?;
    let report = mat::read_mat(&zip)
        .map_err(|e| Failure { input: Some(common::display_name(&args.mat)), error: mat_error(e) })?;
    let (our_report, raw) = ours(&args.ours, global)?;
    let verdict = mat::compare(&report, &our_report, &raw);
    let comparison = mat::Comparison {
        mat_name: common::display_name(&args.mat),
        ours_name: common::display_name(&args.ours),
        pages: report.pages.clone(),
        verdict,
    };
    let text = match MatFormat::choose(args.format, args.out.as_deref()) {
        MatFormat::Json => mat::to_json(&comparison),
        MatFormat::Md => mat::to_markdown(&comparison, heapscope::render::markdown::escape),
    };
    match &args.out {
        Some(out) => common::write_output(out, text.as_bytes())?,
        None => common::write_stdout(text.as_bytes()),
    }
    if !comparison.passed() {
        eprintln!("heapscope: {} field(s) FAIL against MAT's report", comparison.verdict.fails());
        // Status 2 is the verdict, not an error: the output above is complete.
        std::process::exit(2);
    }
    Ok(())
}
