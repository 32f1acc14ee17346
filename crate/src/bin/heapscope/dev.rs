//! `heapscope dev …`: developer commands (not the stable user surface).
//!
//! `dev emit-schema` is `heapscope schema`; `dev dump-pass1 DUMP` prints what pass 1 finds
//! (`dev_pass1.rs`).
//!
//! `dev sweep-aggregate DIR` folds the `*.diff.json` files of DIR (written by
//! `compare mat --format json`) into one gate: PASS only when nothing FAILs and at least
//! `N_MIN` real MAT comparisons ran; exit status 2 otherwise, 1 when a file is unreadable.

use std::path::PathBuf;

use clap::Subcommand;
use compare_mat::sweep::Sweep;
use heapscope::error::Error;

use crate::common::{self, Failure, Global, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: DevCommand,
}

#[derive(Subcommand, Debug)]
pub enum DevCommand {
    /// Print the JSON Schema of the report (the same as `heapscope schema`)
    EmitSchema(crate::schema::Args),
    /// Print what pass 1 finds in DUMP as JSON: header, record counts, GC root records,
    /// warnings, and a class histogram of the heap records as read (reachable or not)
    DumpPass1(crate::dev_pass1::Pass1Args),
    /// Fold the *.diff.json files of DIR (from `compare mat --format json`) into one verdict:
    /// PASS only with no FAIL and at least 15 real MAT comparisons (exit 2 otherwise)
    SweepAggregate(SweepArgs),
}

#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// The folder holding the *.diff.json files
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Write the report to OUT instead of stdout (- is stdout)
    #[arg(short, long = "output", value_name = "OUT")]
    pub out: Option<PathBuf>,
}

pub fn run(args: &Args, global: &Global) -> Outcome {
    match &args.command {
        DevCommand::EmitSchema(a) => crate::schema::run(a, global),
        DevCommand::DumpPass1(a) => crate::dev_pass1::dump_pass1(a),
        DevCommand::SweepAggregate(a) => sweep(a),
    }
}

fn sweep(args: &SweepArgs) -> Outcome {
    let io = |e: std::io::Error| Failure {
        input: None,
        error: Error::io(format!("cannot read {}: {e}", args.dir.display())),
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&args.dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.ends_with(".diff.json") {
            let text = std::fs::read_to_string(&path).map_err(|e| Failure {
                input: None,
                error: Error::io(format!("cannot read {}: {e}", path.display())),
            })?;
            files.push((name, text));
        }
    }
    let sweep = Sweep::from_texts(files).map_err(crate::compare_mat::mat_error)?;
    let text = sweep.render(heapscope::render::markdown::escape);
    match &args.out {
        Some(out) => common::write_output(out, text.as_bytes())?,
        None => common::write_stdout(text.as_bytes()),
    }
    if !sweep.passed() {
        eprintln!("heapscope: sweep gate FAIL ({} real comparisons, {} FAIL)", sweep.real(), sweep.fails());
        std::process::exit(2);
    }
    Ok(())
}
