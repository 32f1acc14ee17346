//! `heapscope inspect`: one object as JSON.

use heapscope::analysis::Phase;
use heapscope::error::Error;
use heapscope::holders::Tree;
use heapscope::query::{answer, Answer, Query};

use crate::common::{self, AnalysisArgs, Global, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// The object's address, hexadecimal (e.g. 0x7f3a1000)
    #[arg(value_name = "ADDRESS", value_parser = parse_address)]
    pub address: u64,
    #[command(flatten)]
    pub reading: common::ReadingArg,
}

pub fn parse_address(s: &str) -> Result<u64, String> {
    heapscope::query::parse_address(s).ok_or_else(|| format!("{s:?} is not an address (hex, e.g. 0x7f3a1000)"))
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    let mut done = common::analyze(&args.analysis, global)?;
    // The strength-aware tree beside MAT's: the dominator, retained sizes and referrers
    // below are the tree's asked for.
    done.analysis.set_reading(args.reading.reading())?;
    let tree = Tree::of(done.analysis.reading);
    let address = args.address;
    // The same queries the page asks, through the same entry point.
    let object = format!("0x{address:x}");
    if heapscope::query::find(&done.analysis, address).is_none() {
        return Err(Error::io(format!(
            "no object at {object} (or it is unreachable; try --keep-unreachable or --tree strength)"
        ))
        .into());
    }
    done.phase(Phase::ReferrerIndex);
    heapscope::holders::ensure_index(&mut done.analysis, tree)?;
    done.phase(Phase::Queries);
    let analysis = &mut done.analysis;
    let Answer::Object(details) = answer(analysis, &Query::Object { object: object.clone() })? else {
        unreachable!("answers match queries")
    };
    let Answer::PathToRoot(path) = answer(analysis, &Query::PathToRoot { object: object.clone() })? else {
        unreachable!("answers match queries")
    };
    let Answer::Referrers(referrers) = answer(analysis, &Query::Referrers { object, limit: 20, tree: Some(tree) })?
    else {
        unreachable!("answers match queries")
    };
    let mut json = serde_json::json!({ "object": details, "path_from_gc_root": path, "referrers": referrers });
    // The texts MAT shows beside references: the object's own and its fields' targets.
    heapscope::values::annotate_inspect(&mut done.analysis, &mut json)?;
    if let Some(obj) = done.analysis.object_at(address) {
        heapscope::strength::annotate_inspect(&done.analysis, obj, &mut json);
    }
    common::write_stdout(format!("{}\n", serde_json::to_string_pretty(&json).expect("JSON")).as_bytes());
    done.finish()
}
