//! `heapscope parity`: the numbers Eclipse MAT computes, in the form of the corpus's
//! expected files, for comparing heapscope with MAT.

use std::io::Write;
use std::path::PathBuf;

use heapscope::error::Error;

use crate::common::{self, AnalysisArgs, Global, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Write the JSON (object counts, sizes, GC roots, histogram, dominator tree's top,
    /// leak suspects) to OUT.json (- is stdout)
    #[arg(short, long = "output", value_name = "OUT.json", required = true)]
    pub out: PathBuf,
    /// Also write every object (address, class, shallow and retained size) as TSV
    #[arg(long, value_name = "OUT.tsv")]
    pub objects: Option<PathBuf>,
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    // MAT's numbers are in MAT's sizes, whatever --sizes says.
    let analysis = common::AnalysisArgs { sizes: common::SizesArg::Mat, ..args.analysis.clone() };
    let done = common::analyze(&analysis, global)?;
    let json = heapscope::report::parity::json(&done.session.analysis);
    common::write_output(&args.out, serde_json::to_string_pretty(&json).expect("JSON").as_bytes())?;
    if let Some(tsv) = &args.objects {
        let cannot = |e: std::io::Error| Error::io(format!("cannot write {}: {e}", tsv.display()));
        let f = std::fs::File::create(tsv).map_err(cannot)?;
        let mut w = std::io::BufWriter::new(f);
        heapscope::report::parity::write_objects_tsv(&done.session.analysis, &mut w)
            .and_then(|_| w.flush())
            .map_err(cannot)?;
    }
    done.finish()
}
