//! `heapscope threads`: every thread with its stack and the objects each frame holds.

use crate::common::{self, AnalysisArgs, Global, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    let done = common::analyze(&args.analysis, global)?;
    common::write_stdout(heapscope::render::threads::render_text(&done.session.features().threads).as_bytes());
    done.finish()
}
