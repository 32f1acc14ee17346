//! `heapscope render`: re-renders a saved JSON report without its dump.

use std::io::Read;
use std::path::PathBuf;

use heapscope::error::Error;

use crate::common::{self, Failure, Global, Outcome, ReportOutput};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A JSON report written by heapscope analyze --format json (or the page's Export
    /// JSON report), or - to read it from standard input
    #[arg(value_name = "REPORT.json")]
    pub report: PathBuf,
    #[command(flatten)]
    pub output: ReportOutput,
}

pub fn run(args: &Args, _global: &Global) -> Outcome {
    let input = common::display_name(&args.report);
    let fail = |error| Failure { input: Some(input.clone()), error };
    let text = read_text(&args.report).map_err(fail)?;
    let report = heapscope::report::from_json(&text).map_err(fail)?;
    args.output.write(&report)?;
    Ok(())
}

fn read_text(path: &std::path::Path) -> Result<String, Error> {
    let mut text = String::new();
    if common::is_stdin(path) {
        std::io::stdin()
            .lock()
            .read_to_string(&mut text)
            .map_err(|e| Error::io(format!("cannot read standard input: {e}")))?;
    } else {
        text = std::fs::read_to_string(path).map_err(|e| Error::io(format!("cannot read {}: {e}", path.display())))?;
    }
    Ok(text)
}
