//! `heapscope paths`: the leak trace of an object and the other ways it is held.

use heapscope::analysis::Phase;
use heapscope::error::Error;
use heapscope::query::holders::DEFAULT_MAX_PATHS;
use heapscope::render::holders::render_paths;
use heapscope::session::{Answer, Query};

use crate::common::{self, AnalysisArgs, Global, Outcome};
use crate::holders_args::{to_json, TextOrJson, TreeArg};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// The object's address, hexadecimal (e.g. 0x7f3a1000)
    #[arg(value_name = "ADDRESS", value_parser = crate::inspect::parse_address)]
    pub address: u64,
    /// The dominator tree whose dominators are marked and whose references are followed
    #[arg(long, value_enum, default_value_t = TreeArg::Mat)]
    pub tree: TreeArg,
    /// Independent paths listed at most per stretch of unmarked steps (the search stops
    /// there and says so)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_PATHS)]
    pub max: u32,
    /// text (a leak trace as LeakCanary draws one) or json
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    // Only the tree asked about is computed.
    let mut done = common::analyze_in(&args.analysis, global, args.tree.tree())?;
    let object = format!("0x{:x}", args.address);
    if heapscope::query::find(&done.session.analysis, args.address).is_none() {
        return Err(Error::io(format!(
            "no object at {object} (or it is unreachable; try --keep-unreachable or --tree strength)"
        ))
        .into());
    }
    let tree = args.tree.tree();
    done.phase(Phase::ReferrerIndex);
    done.session.referrer_index(Some(tree))?;
    done.phase(Phase::Queries);
    let Answer::Paths(p) =
        done.session.answer(&Query::Paths { object: object.clone(), tree: Some(tree), max: args.max })?
    else {
        unreachable!("answers match queries")
    };
    let text = match args.format {
        TextOrJson::Json => to_json(&p),
        TextOrJson::Text => render_paths(&p, tree.name()),
    };
    common::write_stdout(text.as_bytes());
    done.finish()
}
