//! `heapscope analyze`: the report as Markdown, JSON or HTML.

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
    let mut done = common::analyze_in(&args.analysis, global, args.reading.reading())?;
    // With the reference paths and growth points a later comparison needs.
    let report = match done.session.report() {
        Ok(r) => r.clone(),
        Err(e) => return Err(done.fail(e)),
    };
    args.output.write(&report)?;
    done.finish()
}
