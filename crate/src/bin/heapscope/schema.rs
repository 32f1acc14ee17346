//! `heapscope schema`: the JSON Schema of the report, or of the page's queries.

use crate::common::{self, Global, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The schema of the page's queries and their answers instead of the report's
    #[arg(long)]
    pub queries: bool,
}

pub fn run(args: &Args, _global: &Global) -> Outcome {
    let schema = if args.queries { heapscope::query::json_schema() } else { heapscope::report::json_schema() };
    common::write_stdout(schema.as_bytes());
    Ok(())
}
