//! `heapscope analyze`: the report as Markdown, JSON or HTML.

use heapscope::report;

use crate::common::{self, AnalysisArgs, Global, Outcome, ReportOutput};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    #[command(flatten)]
    pub output: ReportOutput,
    #[command(flatten)]
    pub reading: common::ReadingArg,
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    let done = common::analyze_in(&args.analysis, global, args.reading.reading())?;
    let report = report::build(&done.analysis, &done.info);
    args.output.write(&report)?;
    done.finish()
}
