//! The `heapscope` command line: analyze a heap dump natively.
//!
//! Parsing is `clap` (derive); each subcommand lives in its own file in this folder
//! with an `Args` struct (its options; each doc comment is the option's `--help` text)
//! and a `run` function. To add a subcommand: write `NAME.rs` here with
//! `pub struct Args` and `pub fn run(args: &Args, global: &Global) -> Outcome`, then
//! add one variant to [`Command`] and one arm to [`Command::run`]. Options shared by
//! every command that analyzes a dump (the dump, `--keep-unreachable`,
//! `--dominators`, `--timings`) are [`common::AnalysisArgs`]: `#[command(flatten)]` it.
//!
//! Exit status: 0 success, 1 bad input (including a dump cut off mid-heap, which still
//! gets its report), 2 usage error (clap's errors included).

#[cfg(unix)]
mod allocator;
mod analyze;
mod classes_up;
mod common;
mod compare;
mod compare_mat;
mod completions;
mod dev;
mod dev_pass1;
mod holders_args;
mod inspect;
mod leaks;
mod parity;
mod paths;
mod progress;
mod render;
mod schema;
mod threads;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use common::{Global, Outcome};

#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

/// Finds where the memory went in a Java or Android heap dump (.hprof, .hprof.gz),
/// with Eclipse MAT's numbers.
#[derive(Parser, Debug)]
#[command(name = "heapscope", version, propagate_version = true)]
#[command(arg_required_else_help = true, after_help = AFTER_HELP)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

const AFTER_HELP: &str = "\
DUMP is an .hprof or .hprof.gz file (HotSpot or Android), or - for standard input.
Exit status: 0 success, 1 bad input (a dump that ends early still gets its report, marked
incomplete, then status 1), 2 usage error.";

#[derive(Subcommand, Debug)]
enum Command {
    /// Write the report: the OOM triage, MAT's System Overview, Leak Suspects and Top
    /// Consumers, and more
    Analyze(analyze::Args),
    /// Write the numbers Eclipse MAT computes, as JSON, for comparing with MAT
    Parity(parity::Args),
    /// Print one object as JSON: its fields, dominator, path from a GC root and referrers
    Inspect(inspect::Args),
    /// Re-render a saved JSON report (as Markdown, Markdown with graphs, HTML or JSON) without its dump
    Render(render::Args),
    /// Print every thread with its stack and the objects each frame holds
    Threads(threads::Args),
    /// Print the leak trace of an object, its dominators marked, and the other ways it is held
    Paths(paths::Args),
    /// Print what leaked, as LeakCanary reads a dump: leaking objects, their traces, signatures
    Leaks(leaks::Args),
    /// Print the dominator tree read from the classes up (the reverse dominator tree)
    ClassesUp(classes_up::Args),
    /// Write what grew from a baseline to the current dump (each a dump or a JSON report)
    Compare(compare::Args),
    /// Print the JSON Schema of the report (or of the page's queries, of paths/classes-up, of the comparison, or of leaks)
    Schema(schema::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(completions::Args),
    /// Developer commands: emit-schema, dump-pass1, sweep-aggregate
    Dev(dev::Args),
}

impl Command {
    fn run(&self, global: &Global) -> Outcome {
        match self {
            Command::Analyze(args) => analyze::run(args, global),
            Command::Parity(args) => parity::run(args, global),
            Command::Inspect(args) => inspect::run(args, global),
            Command::Render(args) => render::run(args, global),
            Command::Threads(args) => threads::run(args, global),
            Command::Paths(args) => paths::run(args, global),
            Command::Leaks(args) => leaks::run(args, global),
            Command::ClassesUp(args) => classes_up::run(args, global),
            Command::Compare(args) => compare::run(args, global),
            Command::Schema(args) => schema::run(args, global),
            Command::Completions(args) => completions::run(args, global),
            Command::Dev(args) => dev::run(args, global),
        }
    }
}

fn main() -> ExitCode {
    allocator::fix_mmap_threshold();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and --version go to stdout with status 0; usage errors to stderr with 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command.run(&cli.global) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("heapscope: {}", heapscope::text::one_line(failure.to_string()));
            ExitCode::from(1)
        }
    }
}
