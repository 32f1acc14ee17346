//! `heapscope leaks`: LeakCanary's reading of a dump — the objects that should have been
//! collected, each traced from a GC root along its shortest strong path, with verdicts,
//! suspect references and signatures.

use std::path::PathBuf;

use clap::ValueEnum;
use heapscope::analysis::Phase;
use heapscope::render::leaks as render;
use heapscope::render::markdown::render_document;

use crate::common::{self, AnalysisArgs, Global, Outcome};
use crate::holders_args::TreeArg;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Write to OUT instead of stdout (- is stdout)
    #[arg(short, long = "output", value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// The dominator tree the leaks' retained sizes come from
    #[arg(long, value_enum, default_value_t = TreeArg::Mat)]
    pub tree: TreeArg,
    /// text (traces as LeakCanary draws them), json (schema: heapscope schema --leaks) or
    /// md; without it, from OUT's extension (.json, .md), text on stdout
    #[arg(short, long, value_enum)]
    pub format: Option<LeaksFormat>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaksFormat {
    /// For a terminal
    Text,
    /// For scripts
    Json,
    /// Markdown: the report's Leaks section on its own
    Md,
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    let mut done = common::analyze_in(&args.analysis, global, args.tree.tree())?;
    // Timed apart with --timings.
    done.phase(Phase::Queries);
    let file_name = done.session.info.file_name.clone();
    let found = match done.session.leaks() {
        Ok(l) => l.clone(),
        Err(e) => return Err(done.fail(e)),
    };
    let extension = args.out.as_deref().and_then(|o| o.extension()).map(|e| e.to_string_lossy().to_ascii_lowercase());
    let format = args.format.unwrap_or(match extension.as_deref() {
        Some("json") => LeaksFormat::Json,
        Some("md" | "markdown") => LeaksFormat::Md,
        _ => LeaksFormat::Text,
    });
    let text = match format {
        LeaksFormat::Text => render::text(&found),
        LeaksFormat::Json => heapscope::leaks::to_json(&found),
        LeaksFormat::Md => render_document(&render::document(&found, file_name.as_deref())),
    };
    match &args.out {
        Some(out) => common::write_output(out, text.as_bytes())?,
        None => common::write_stdout(text.as_bytes()),
    }
    done.finish()
}
