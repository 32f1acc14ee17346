//! `heapscope inspect`: one object as JSON.

use heapscope::analysis::Phase;
use heapscope::error::Error;
use heapscope::session::{Answer, Query};

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
    heapscope::model::format::parse_address(s).ok_or_else(|| format!("{s:?} is not an address (hex, e.g. 0x7f3a1000)"))
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    let mut done = common::analyze(&args.analysis, global)?;
    // The strength-aware tree beside MAT's: the dominator, retained sizes and referrers
    // below are the tree's asked for.
    done.session.set_reading(args.reading.reading())?;
    let tree = done.session.analysis.reading;
    let address = args.address;
    // The same queries the page asks, through the same entry point.
    let object = format!("0x{address:x}");
    if heapscope::query::find(&done.session.analysis, address).is_none() {
        return Err(Error::io(format!(
            "no object at {object} (or it is unreachable; try --keep-unreachable or --tree strength)"
        ))
        .into());
    }
    done.phase(Phase::ReferrerIndex);
    done.session.referrer_index(Some(tree))?;
    done.phase(Phase::Queries);
    let session = &mut done.session;
    let Answer::Object(details) = session.answer(&Query::Object { object: object.clone() })? else {
        unreachable!("answers match queries")
    };
    let Answer::PathToRoot(path) = session.answer(&Query::PathToRoot { object: object.clone() })? else {
        unreachable!("answers match queries")
    };
    let Answer::Referrers(referrers) = session.answer(&Query::Referrers { object, limit: 20, tree: Some(tree) })?
    else {
        unreachable!("answers match queries")
    };
    let mut json = serde_json::json!({ "object": details, "path_from_gc_root": path, "referrers": referrers });
    // The texts MAT shows beside references: the object's own and its fields' targets.
    let a = &mut done.session.analysis;
    heapscope::values::annotate_inspect(a, &mut json)?;
    if let (Some(obj), Some(map)) = (a.object_at(address), json.as_object_mut()) {
        // The object's strength, and which tree its dominator and retained size come from.
        map.insert("strength".into(), a.strength(obj).name().into());
        map.insert("tree".into(), a.reading.name().into());
    }
    common::write_stdout(heapscope::model::json::to_text(&json).as_bytes());
    done.finish()
}
