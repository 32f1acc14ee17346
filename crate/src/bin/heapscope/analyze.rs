//! `heapscope analyze DUMP [OUTPUT]`: the report as Markdown (with graphs or without),
//! JSON or HTML, at the detail asked for.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::common::{self, AnalysisArgs, Failure, Global, Outcome, ReportOutput};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Write the report to OUTPUT (the same as -o OUTPUT; - is stdout)
    #[arg(value_name = "OUTPUT", conflicts_with = "out")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub report: ReportOutput,
    #[command(flatten)]
    pub reading: common::ReadingArg,
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    let mut done = common::analyze_in(&args.analysis, global, args.reading.reading())?;
    done.session.set_detail(args.report.detail.detail());
    // With the reference paths and growth points a later comparison needs.
    let report = match done.session.report() {
        Ok(r) => r.clone(),
        Err(e) => return Err(done.fail(e)),
    };
    // One line on what leaked, where the progress shows (a terminal, not --quiet): a
    // script reads the report's `leaks` section instead.
    if let Some(leaks) = &report.leaks {
        if !global.quiet && std::io::stderr().is_terminal() {
            eprintln!("heapscope: {}", heapscope::text::one_line(heapscope::render::leaks::summary(leaks)));
        }
    }
    args.report.write_to(&report, args.output.as_deref()).map_err(Failure::from)?;
    done.finish()
}
