//! `heapscope inspect`: one object as JSON.

use heapscope::error::Error;

use crate::common::{self, AnalysisArgs, Global, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// The object's address, hexadecimal (e.g. 0x7f3a1000)
    #[arg(value_name = "ADDRESS", value_parser = parse_address)]
    pub address: u64,
}

fn parse_address(s: &str) -> Result<u64, String> {
    heapscope::session::parse_address(s).ok_or_else(|| format!("{s:?} is not an address (hex, e.g. 0x7f3a1000)"))
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    let mut done = common::analyze(&args.analysis, global)?;
    let address = args.address;
    let Some(obj) = heapscope::session::find(&done.analysis, address) else {
        return Err(Error::io(format!("no object at 0x{address:x} (or it is unreachable; try --keep-unreachable)")).into());
    };
    let analysis = &mut done.analysis;
    let details = heapscope::session::object_details(analysis, obj)?;
    let path = heapscope::session::path_to_root(analysis, obj)?;
    let referrers = heapscope::session::referrers(analysis, obj, 20);
    let json = serde_json::json!({ "object": details, "path_from_gc_root": path, "referrers": referrers });
    common::write_stdout(format!("{}\n", serde_json::to_string_pretty(&json).expect("JSON")).as_bytes());
    done.finish()
}
