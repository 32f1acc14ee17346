//! `heapscope paths`: the leak trace of an object and the other ways it is held.

use heapscope::analysis::Phase;
use heapscope::error::Error;
use heapscope::holders::text::render_paths;
use heapscope::query::holders::{paths, DEFAULT_MAX_PATHS};

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
    let mut done = common::analyze_in(&args.analysis, global, args.tree.tree().reading())?;
    let object = format!("0x{:x}", args.address);
    let Some(obj) = heapscope::query::find(&done.analysis, args.address) else {
        return Err(Error::io(format!(
            "no object at {object} (or it is unreachable; try --keep-unreachable or --tree strength)"
        ))
        .into());
    };
    let tree = args.tree.tree();
    done.phase(Phase::ReferrerIndex);
    heapscope::holders::ensure_index(&mut done.analysis, tree)?;
    done.phase(Phase::Queries);
    let p = paths(&mut done.analysis, tree, obj, args.max.min(heapscope::query::MAX_PAGE) as usize)?;
    let text = match args.format {
        TextOrJson::Json => to_json(&p),
        TextOrJson::Text => render_paths(&p, tree.name()),
    };
    common::write_stdout(text.as_bytes());
    done.finish()
}
