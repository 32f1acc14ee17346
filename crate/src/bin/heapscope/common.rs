//! What the subcommands share: global options, the options of every command that
//! analyzes a dump, opening a dump (a file or standard input), running the analysis with
//! progress, writing output, and the error type a subcommand returns.

use std::fmt;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use heapscope::analysis::{DominatorAlgorithm, Options, Phase, Progress, ProgressInfo, Reading, Sizes};
use heapscope::error::{Error, ErrorKind};
use heapscope::model::{Detail, DetailLevel};
use heapscope::render::{html, markdown, RenderOptions};
use heapscope::report::{self, Report, SourceInfo};
use heapscope::session::Session;
use heapscope::source::{auto_decompress, ByteSource, FileSource};

use crate::progress::Meter;

/// Options every subcommand accepts.
#[derive(clap::Args, Debug)]
pub struct Global {
    /// Print no progress on stderr (errors and warnings are still printed)
    #[arg(short, long, global = true, display_order = 100)]
    pub quiet: bool,
}

/// The options of every command that analyzes a dump.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// The heap dump: an .hprof or .hprof.gz file (HotSpot or Android), or - to read it
    /// from standard input (copied to a temporary file first, because the analysis
    /// reads the dump twice and later reads objects back)
    #[arg(value_name = "DUMP")]
    pub dump: PathBuf,
    /// Keep unreachable objects, as MAT's keep_unreachable_objects does: each entry
    /// point of unreachable garbage becomes a GC root "Unreachable" (by default they
    /// are discarded and listed separately, as MAT does)
    #[arg(long)]
    pub keep_unreachable: bool,
    /// The dominator-tree algorithm: semi-nca (default), or chk (Cooper-Harvey-Kennedy:
    /// the same tree, more slowly, as an independent cross-check)
    #[arg(long, value_enum, value_name = "ALGORITHM", default_value_t = Dominators::SemiNca)]
    pub dominators: Dominators,
    /// Shallow sizes: jvm (default: what the JVM that wrote the dump uses for each object,
    /// read from the dump's addresses: its object header, the fields it injects, fields
    /// packed into gaps, class objects as mirrors with their statics) or mat (Eclipse
    /// MAT's model: a 12-byte header with compressed oops, the fields the dump lists, for
    /// checking numbers against MAT)
    #[arg(long, value_enum, value_name = "SIZES", default_value_t = SizesArg::Jvm)]
    pub sizes: SizesArg,
    /// Which heap dump to analyze when the file holds several (1 is the first; by default
    /// the last); the report says how many there are
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub snapshot: Option<u32>,
    /// Print wall time, CPU time and peak memory of each phase on stderr
    #[arg(long)]
    pub timings: bool,
    /// The same as --timings: each phase's time and peak memory (RSS) on stderr
    #[arg(short, long)]
    pub verbose: bool,
    /// Print the process's memory (current and peak RSS) on stderr as each phase starts
    /// and ends, and every few seconds within a phase
    #[arg(long)]
    pub trace_rss: bool,
    /// A ProGuard/R8 mapping file (mapping.txt): class and field names are shown with
    /// their original (deobfuscated) names
    #[arg(long, value_name = "FILE")]
    pub mapping: Option<PathBuf>,
    /// Benchmarks only (scripts/bench.sh): skip the waste report's collection and the
    /// reachability-strength walk, to time the core on its own (the report then lacks
    /// those sections)
    #[arg(long, hide = true)]
    pub core_only: bool,
}

/// `--tree` of `analyze` and `inspect`.
#[derive(clap::Args, Debug)]
pub struct ReadingArg {
    /// The dominator tree retained sizes come from: mat (Eclipse MAT's, default) or
    /// strength (the strength-aware one: a weak, soft, phantom, finalizer, cache,
    /// thread-local or stack reference holds an object only when nothing firmer does,
    /// and uncollected garbage is part of the tree)
    #[arg(long, value_enum, value_name = "TREE", default_value_t = Tree::Mat)]
    pub tree: Tree,
}

impl ReadingArg {
    pub fn reading(&self) -> Reading {
        match self.tree {
            Tree::Mat => Reading::Mat,
            Tree::Strength => Reading::Strength,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tree {
    /// Eclipse MAT's dominator tree
    Mat,
    /// The strength-aware dominator tree
    Strength,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizesArg {
    /// The JVM's own sizes, read from the dump
    Jvm,
    /// Eclipse MAT's model
    Mat,
}

impl SizesArg {
    pub fn sizes(self) -> Sizes {
        match self {
            SizesArg::Jvm => Sizes::Jvm,
            SizesArg::Mat => Sizes::Mat,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dominators {
    /// Semi-NCA: near-linear, lean
    SemiNca,
    /// Cooper-Harvey-Kennedy: iterative, slower, same tree
    Chk,
}

/// A subcommand's result: `Err` is printed as one line and exits with status 1.
pub type Outcome = Result<(), Failure>;

/// A failed run: the error, and the input it is about (named before a format error's
/// offset, so the message says which file broke where).
#[derive(Debug)]
pub struct Failure {
    pub input: Option<String>,
    pub error: Error,
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure { input: None, error }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // An error at an offset of the input (a format error, a corrupt gzip member)
        // names the input; the others (cannot open ...) already do.
        match &self.input {
            Some(input) if self.error.kind == ErrorKind::Format || self.error.offset.is_some() => {
                write!(f, "{input}: {}", self.error)
            }
            _ => write!(f, "{}", self.error),
        }
    }
}

/// `-` (standard input) or a path.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How an input is named in messages.
pub fn display_name(path: &Path) -> String {
    if is_stdin(path) {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}

/// An opened dump: the (decompressing) source and what the report says about the file.
pub struct Dump {
    pub source: Box<dyn ByteSource>,
    pub info: SourceInfo,
}

/// Opens `path`, or standard input for `-`. Standard input is copied to an anonymous
/// temporary file (deleted when the process ends) because the analysis reads the dump
/// from the start twice and then reads single objects back at their offsets; a pipe can
/// be read only once.
pub fn open_dump(path: &Path) -> Result<Dump, Error> {
    let (file, file_name) = if is_stdin(path) {
        let mut stdin = std::io::stdin().lock();
        if stdin.is_terminal() {
            return Err(Error::io("refusing to read a heap dump from a terminal: pipe one into - or name the file"));
        }
        let mut tmp = tempfile::tempfile()
            .map_err(|e| Error::io(format!("cannot create a temporary file for standard input: {e}")))?;
        copy(&mut stdin, &mut tmp)
            .map_err(|e| Error::io(format!("cannot copy standard input to a temporary file: {e}")))?;
        (FileSource::from_file(tmp)?, None)
    } else {
        (FileSource::open(path)?, path.file_name().map(|n| n.to_string_lossy().into_owned()))
    };
    let file_bytes = file.len().unwrap_or(0);
    let source = auto_decompress(Box::new(file))?;
    let gzip = source.len().is_none();
    Ok(Dump { source, info: SourceInfo { file_name, file_bytes, gzip } })
}

fn copy(from: &mut impl Read, to: &mut std::fs::File) -> std::io::Result<()> {
    std::io::copy(from, to)?;
    to.flush()
}

/// A finished analysis, with its progress meter (whose timings are printed at the end).
pub struct Analyzed {
    pub session: Session,
    meter: Meter,
    input: String,
}

impl Analyzed {
    /// Wraps an error about this dump so that the message names it.
    pub fn fail(&self, error: Error) -> Failure {
        Failure { input: Some(self.input.clone()), error }
    }

    /// Starts a phase after the analysis (the referrer index, the queries), timed like
    /// the analysis's own with `--timings`.
    pub fn phase(&mut self, phase: Phase) {
        let _ = self.meter.update(&ProgressInfo { phase, bytes_done: 0, bytes_total: None, objects: 0 });
        self.meter.clear();
    }

    /// Prints the timings (with `--timings`) and turns an incomplete dump into the
    /// failure that gives exit status 1, after the output was written.
    pub fn finish(mut self) -> Outcome {
        self.meter.close_phase();
        self.meter.print_timings(self.session.analysis.object_count() as u64);
        if let Some(e) = &self.session.analysis.incomplete {
            let error = Error::format(
                e.offset.unwrap_or(0),
                format!("the dump is incomplete ({}); the report covers what comes before", e.message),
            );
            return Err(self.fail(error));
        }
        Ok(())
    }
}

/// Opens and analyzes the dump of `args`, with progress on stderr; prints the warnings.
pub fn analyze(args: &AnalysisArgs, global: &Global) -> Result<Analyzed, Failure> {
    analyze_in(args, global, Reading::Mat)
}

/// [`analyze`], computing `tree`'s dominator tree (and not MAT's, for the strength-aware one).
pub fn analyze_in(args: &AnalysisArgs, global: &Global, tree: Reading) -> Result<Analyzed, Failure> {
    let input = display_name(&args.dump);
    let fail = |error| Failure { input: Some(input.clone()), error };
    // Read first: a bad mapping file should not cost an analysis.
    let mapping = args.mapping.as_deref().map(read_mapping).transpose()?;
    let dump = open_dump(&args.dump).map_err(fail)?;
    let dominators = match args.dominators {
        Dominators::SemiNca => DominatorAlgorithm::SemiNca,
        Dominators::Chk => DominatorAlgorithm::CooperHarveyKennedy,
    };
    let options = Options {
        keep_unreachable: args.keep_unreachable,
        memory_limit: None,
        dominators,
        tree,
        snapshot: args.snapshot,
        core_only: args.core_only,
        sizes: args.sizes.sizes(),
        ..Options::default()
    };
    let mut meter =
        Meter::new(!global.quiet && std::io::stderr().is_terminal(), args.timings || args.verbose, args.trace_rss);
    let session = Session::open(dump.source, &options, &mut meter, dump.info);
    meter.clear();
    let mut session = session.map_err(fail)?;
    if let Some(mapping) = &mapping {
        session.apply_mapping(mapping).map_err(fail)?;
    }
    for w in &session.analysis.warnings {
        eprintln!("heapscope: warning: {}", heapscope::text::one_line(w.as_str()));
    }
    Ok(Analyzed { session, meter, input })
}

/// Reads and parses a ProGuard/R8 mapping file.
fn read_mapping(path: &Path) -> Result<heapscope::mapping::Mapping, Failure> {
    let fail = |error| Failure { input: Some(path.display().to_string()), error };
    let file =
        std::fs::File::open(path).map_err(|e| fail(Error::io(format!("cannot open {}: {e}", path.display()))))?;
    heapscope::mapping::Mapping::parse(std::io::BufReader::new(file)).map_err(fail)
}

/// A rendering of the report.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Markdown: the OOM triage, MAT's System Overview, Leak Suspects and Top Consumers on
    /// one page, then the other sections
    Md,
    /// The Markdown with bars, sparklines and trees drawn with characters (for a terminal)
    MdGraphs,
    /// JSON, following the report's JSON Schema (heapscope schema)
    Json,
    /// One self-contained HTML file (inline styles, no script, fetches nothing)
    Html,
}

impl Format {
    /// `format` if given, else from `out`'s extension, else Markdown.
    pub fn choose(format: Option<Format>, out: Option<&Path>) -> Format {
        if let Some(f) = format {
            return f;
        }
        match out.and_then(|o| o.extension()).map(|e| e.to_string_lossy().to_ascii_lowercase()) {
            Some(e) if e == "json" => Format::Json,
            Some(e) if e == "html" || e == "htm" => Format::Html,
            _ => Format::Md,
        }
    }

    /// `report` in this format within `detail`'s caps (a saved report of a larger detail
    /// is cut down as if built with them).
    pub fn render(self, report: &Report, detail: Detail) -> String {
        let report = &report::caps::within(report, &detail);
        let options = RenderOptions { detail, graphs: self == Format::MdGraphs };
        match self {
            Format::Json => report::to_json(report),
            Format::Html => html::render_with(report, &options),
            Format::Md | Format::MdGraphs => markdown::render_with(report, &options),
        }
    }
}

/// `--detail`: how much the report lists.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DetailArg {
    /// The smallest lists (see --help for each cap)
    Minimal,
    /// The usual lists
    #[default]
    Default,
    /// The longest lists (a dominator subtree of up to 100,000 objects per suspect)
    Max,
}

impl DetailArg {
    pub fn detail(self) -> Detail {
        Detail::of(match self {
            DetailArg::Minimal => DetailLevel::Minimal,
            DetailArg::Default => DetailLevel::Default,
            DetailArg::Max => DetailLevel::Max,
        })
    }
}

/// The seven caps `--detail` scales, for `--help`.
pub const DETAIL_HELP: &str = "How much the report lists: minimal, default or max, seven caps at once (minimal / default / max): root-path: objects of a suspect's path to its GC root (10 / 30 / 200); histogram: class histogram rows in Markdown and HTML (15 / 50 / 500); rows: rows of the other ranked tables (Biggest Objects, unreachable classes, heap composition's packages and loaders, a component's classes: 5 / 20 / 100); subtree-nodes: objects of a suspect's dominator subtree (20 / 40 / 100,000); subtree-depth: its levels (5 / 10 / 50); properties: system properties in Markdown and HTML (15 / 50 / 500); children: children per object in the subtree, accumulated groups and biggest members per suspect (10 / 20 / 100)";

/// Where and how a command writes a report.
#[derive(clap::Args, Debug)]
pub struct ReportOutput {
    /// Write the report to OUT instead of stdout (- is stdout)
    #[arg(short, long = "output", value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// Report format; without it, from OUT's extension (.json, .html or .htm, anything
    /// else Markdown), Markdown on stdout
    #[arg(short, long, value_enum)]
    pub format: Option<Format>,
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = DetailArg::Default, help = DETAIL_HELP)]
    pub detail: DetailArg,
}

impl ReportOutput {
    /// Renders `report` in the chosen format and writes it (to OUT, or to `output` given
    /// as a positional argument, or stdout).
    pub fn write(&self, report: &Report) -> Result<(), Error> {
        self.write_to(report, None)
    }

    /// [`ReportOutput::write`], to `output` when given (the positional OUTPUT of `analyze`).
    pub fn write_to(&self, report: &Report, output: Option<&Path>) -> Result<(), Error> {
        let out = output.or(self.out.as_deref());
        let text = Format::choose(self.format, out).render(report, self.detail.detail());
        match out {
            Some(out) => write_output(out, text.as_bytes()),
            None => {
                write_stdout(text.as_bytes());
                Ok(())
            }
        }
    }
}

/// Writes `bytes` to `path`, or to stdout for `-`.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if is_stdin(path) {
        write_stdout(bytes);
        return Ok(());
    }
    std::fs::write(path, bytes).map_err(|e| Error::io(format!("cannot write {}: {e}", path.display())))
}

/// Writes `bytes` to stdout; a closed pipe (`| head`) is not an error worth reporting.
pub fn write_stdout(bytes: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes).and_then(|_| stdout.flush());
}
