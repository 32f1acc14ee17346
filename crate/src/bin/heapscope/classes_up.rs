//! `heapscope classes-up`: the dominator tree read from the classes up.

use heapscope::analysis::Phase;
use heapscope::error::Error;
use heapscope::query::holders::{classes_up, classes_up_from};
use heapscope::query::MAX_DEPTH;
use heapscope::render::holders::render_classes_up;

use crate::common::{self, AnalysisArgs, Global, Outcome};
use crate::holders_args::{to_json, TextOrJson, TreeArg};

/// Class rows printed as text (JSON has them all), and rows per level above each.
const TEXT_ROWS: usize = 20;
const TEXT_ROWS_ABOVE: usize = 10;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Start from the row of this class (its name as the histogram shows it, e.g.
    /// byte[] or java.util.HashMap$Node) instead of the heaviest rows
    #[arg(value_name = "CLASS")]
    pub class: Option<String>,
    /// Levels of rows shown above each class row (the classes of the objects dominating
    /// its instances, then of theirs…)
    #[arg(long, value_name = "D", default_value_t = 2)]
    pub depth: u32,
    /// The dominator tree read
    #[arg(long, value_enum, default_value_t = TreeArg::Mat)]
    pub tree: TreeArg,
    /// text (the heaviest rows, indented by level) or json (every class row)
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    // Only the tree asked about is computed.
    let mut done = common::analyze_in(&args.analysis, global, args.tree.tree())?;
    done.phase(Phase::Queries);
    let tree = args.tree.tree();
    let depth = args.depth.min(MAX_DEPTH) as usize;
    let json = args.format == TextOrJson::Json;
    let rows = match &args.class {
        Some(c) => {
            let rows = classes_up_from(&done.session.analysis, tree, c, depth)?;
            if rows.rows.is_empty() {
                return Err(Error::io(format!("no kept instances of a class named {c:?}")).into());
            }
            rows
        }
        None => classes_up(&done.session.analysis, tree, &[], depth, if json { usize::MAX } else { TEXT_ROWS })?,
    };
    let text = if json { to_json(&rows) } else { render_classes_up(&rows, tree.name(), TEXT_ROWS_ABOVE) };
    common::write_stdout(text.as_bytes());
    done.finish()
}
