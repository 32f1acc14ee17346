//! `heapscope analyze`: the report as Markdown, JSON or HTML.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use heapscope::report::{self, Report};

use crate::common::{self, AnalysisArgs, Global, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Write the report to OUT instead of stdout (- is stdout)
    #[arg(short, long = "output", value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// Report format; without it, from OUT's extension (.json, .html or .htm, anything
    /// else Markdown), Markdown on stdout
    #[arg(short, long, value_enum)]
    pub format: Option<Format>,
}

/// A rendering of the report.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Markdown: MAT's System Overview, Leak Suspects and Top Consumers on one page
    Md,
    /// JSON, following the report's JSON Schema (heapscope schema)
    Json,
    /// One self-contained HTML file (inline styles, no script, fetches nothing)
    Html,
}

impl Format {
    /// `format` if given, else from `out`'s extension, else Markdown.
    pub fn choose(format: Option<Format>, out: Option<&Path>) -> Format {
        if let Some(f) = format {
            return f;
        }
        match out.and_then(|o| o.extension()).map(|e| e.to_string_lossy().to_ascii_lowercase()) {
            Some(e) if e == "json" => Format::Json,
            Some(e) if e == "html" || e == "htm" => Format::Html,
            _ => Format::Md,
        }
    }

    pub fn render(self, report: &Report) -> String {
        match self {
            Format::Json => report::to_json(report),
            Format::Html => report::html::render(report),
            Format::Md => report::markdown::render(report),
        }
    }
}

/// Writes the rendered report to `out`, or stdout.
pub fn write(text: &str, out: Option<&Path>) -> Result<(), heapscope::error::Error> {
    match out {
        Some(out) => common::write_output(out, text.as_bytes()),
        None => {
            common::write_stdout(text.as_bytes());
            Ok(())
        }
    }
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    let done = common::analyze(&args.analysis, global)?;
    let report = report::build(&done.analysis, &done.info);
    let text = Format::choose(args.format, args.out.as_deref()).render(&report);
    write(&text, args.out.as_deref())?;
    done.finish()
}
