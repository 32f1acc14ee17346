//! `heapscope compare`: what grew from a baseline to the current dump. Each side is a
//! dump or a saved JSON report; the comparison itself is `heapscope::compare`.
//! `compare reports A B` is the same; `compare mat MAT OURS` is in `compare_mat.rs`.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use heapscope::compare::{self, SortKey};
use heapscope::error::Error;
use heapscope::report::Report;
use heapscope::session::input;

use crate::common::{self, AnalysisArgs, Dominators, Failure, Format, Global, Outcome, SizesArg};

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    pub sub: Option<crate::compare_mat::Sub>,
    #[command(flatten)]
    pub growth: Growth,
}

/// `compare BASELINE CURRENT` and `compare reports BASELINE CURRENT`.
#[derive(clap::Args, Debug)]
pub struct Growth {
    /// The baseline: a heap dump (.hprof, .hprof.gz, HotSpot or Android; - for standard
    /// input) or a JSON report written by `heapscope analyze --format json`
    #[arg(value_name = "BASELINE", required = true)]
    pub baseline: Option<PathBuf>,
    /// The current dump or JSON report, from the same kind of VM
    #[arg(value_name = "CURRENT", required = true)]
    pub current: Option<PathBuf>,
    /// Write the comparison to OUT instead of stdout (- is stdout)
    #[arg(short, long = "output", value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// Format; without it, from OUT's extension (.json, .html or .htm, anything else
    /// Markdown), Markdown on stdout
    #[arg(short, long, value_enum)]
    pub format: Option<Output>,
    /// The class column whose change orders the classes, largest growth first
    #[arg(long, value_enum, default_value_t = Sort::Retained)]
    pub sort: Sort,
    /// Keep the first N class rows (Markdown and HTML show the N, 50 unless told, that
    /// grew most and the N that shrank most)
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Analyze dumps keeping their unreachable objects (as analyze --keep-unreachable)
    #[arg(long)]
    pub keep_unreachable: bool,
    /// Shallow sizes of the dumps analyzed: jvm (default) or mat (as analyze --sizes)
    #[arg(long, value_enum, value_name = "SIZES", default_value_t = SizesArg::Jvm)]
    pub sizes: SizesArg,
    /// A ProGuard/R8 mapping file (mapping.txt) of the program: both dumps are compared
    /// with its original names (as analyze --mapping; a saved report keeps its own names)
    #[arg(long, value_name = "FILE")]
    pub mapping: Option<PathBuf>,
}

/// A rendering of the comparison.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Markdown: totals, growth leaders, leak suspects, then the classes that changed
    Md,
    /// JSON, following the comparison's JSON Schema (heapscope schema --compare)
    Json,
    /// The Markdown's content as one self-contained HTML file (no script, fetches nothing)
    Html,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// Instances
    Instances,
    /// Shallow heap
    Shallow,
    /// MAT's quick retained size
    Retained,
}

/// One side's report, and whether its dump was incomplete. A dump's graph is dropped
/// before the next side is read: two dumps are never in memory at once.
fn load(path: &Path, args: &Growth, global: &Global) -> Result<Report, Failure> {
    let fail = |error: Error| Failure { input: Some(common::display_name(path)), error };
    if !common::is_stdin(path) && input::looks_like_json(path).map_err(fail)? {
        let text = std::fs::read_to_string(path)
            .map_err(|e| fail(Error::io(format!("cannot read {}: {e}", path.display()))))?;
        return compare::read_report_json(&text).map_err(fail);
    }
    let analysis_args = AnalysisArgs {
        dump: path.to_path_buf(),
        keep_unreachable: args.keep_unreachable,
        dominators: Dominators::SemiNca,
        sizes: args.sizes,
        snapshot: None,
        timings: false,
        verbose: false,
        trace_rss: false,
        mapping: args.mapping.clone(),
        core_only: false,
    };
    let mut done = common::analyze(&analysis_args, global)?;
    let report = match done.session.report() {
        Ok(r) => r.clone(),
        Err(e) => return Err(done.fail(e)),
    };
    Ok(report)
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    match &args.sub {
        Some(crate::compare_mat::Sub::Mat(m)) => crate::compare_mat::run(m, global),
        Some(crate::compare_mat::Sub::Reports(g)) => run_growth(g, global),
        None => run_growth(&args.growth, global),
    }
}

fn run_growth(args: &Growth, global: &Global) -> Outcome {
    let (Some(baseline_path), Some(current_path)) = (&args.baseline, &args.current) else {
        return Err(Error::io("compare needs BASELINE and CURRENT").into());
    };
    let baseline = load(baseline_path, args, global)?;
    let current = load(current_path, args, global)?;
    let sort = match args.sort {
        Sort::Instances => SortKey::Instances,
        Sort::Shallow => SortKey::Shallow,
        Sort::Retained => SortKey::Retained,
    };
    let format = args.format.map(|f| match f {
        Output::Md => Format::Md,
        Output::Json => Format::Json,
        Output::Html => Format::Html,
    });
    let format = Format::choose(format, args.out.as_deref());
    // The documents pick their rows from both ends of the whole list themselves.
    let top = if format == Format::Json { args.top } else { None };
    let comparison = compare::compare(&baseline, &current, &compare::Options { sort, top })?;
    let text = match format {
        Format::Json => compare::to_json(&comparison),
        Format::Html => compare::document::html(&comparison, args.top),
        Format::Md | Format::MdGraphs => compare::document::markdown(&comparison, args.top),
    };
    match &args.out {
        Some(out) => common::write_output(out, text.as_bytes())?,
        None => common::write_stdout(text.as_bytes()),
    }
    // An incomplete side still gets its comparison written, then status 1.
    for (path, r) in [(baseline_path, &baseline), (current_path, &current)] {
        if let Some(inc) = &r.incomplete {
            let error = Error::format(
                inc.offset,
                format!("the dump is incomplete ({}); the comparison covers what comes before", inc.message),
            );
            return Err(Failure { input: Some(common::display_name(path)), error });
        }
    }
    Ok(())
}
