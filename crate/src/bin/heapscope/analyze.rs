//! `heapscope analyze`: the report as Markdown, JSON or HTML.

use std::io::IsTerminal;

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
    // One line on what leaked, where the progress shows (a terminal, not --quiet): a
    // script reads the report's `leaks` section instead.
    if let Some(leaks) = &report.leaks {
        if !global.quiet && std::io::stderr().is_terminal() {
            eprintln!("heapscope: {}", common::one_line(&heapscope::render::leaks::summary(leaks)));
        }
    }
    args.output.write(&report)?;
    done.finish()
}
