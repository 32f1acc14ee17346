//! `heapscope schema`: the JSON Schema of the report, of the page's queries, or of the
//! JSON `paths` and `classes-up` print, of the comparison, or of `leaks`.

use crate::common::{self, Global, Outcome};

#[derive(clap::Args, Debug)]
#[group(multiple = false)]
pub struct Args {
    /// The schema of the page's queries and their answers instead of the report's
    #[arg(long)]
    pub queries: bool,
    /// The schema of `heapscope paths --format json`
    #[arg(long)]
    pub paths: bool,
    /// The schema of `heapscope classes-up --format json`
    #[arg(long)]
    pub classes_up: bool,
    /// The schema of `heapscope compare --format json` instead of the report's
    #[arg(long)]
    pub compare: bool,
    /// The schema of what the page and its worker say to each other
    #[arg(long)]
    pub protocol: bool,
    /// The schema of `heapscope leaks --format json`
    #[arg(long)]
    pub leaks: bool,
}

pub fn run(args: &Args, _global: &Global) -> Outcome {
    let schema = if args.queries {
        heapscope::session::query::json_schema()
    } else if args.paths {
        heapscope::query::holders::paths_json_schema()
    } else if args.classes_up {
        heapscope::query::holders::classes_up_json_schema()
    } else if args.compare {
        heapscope::compare::json_schema()
    } else if args.leaks {
        heapscope::leaks::json_schema()
    } else if args.protocol {
        heapscope::session::protocol::json_schema()
    } else {
        heapscope::report::json_schema()
    };
    common::write_stdout(schema.as_bytes());
    Ok(())
}
