//! The `heapscope` command line: analyze a heap dump natively.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use heapscope::analysis::{self, Analysis, Options, Progress, ProgressInfo};
use heapscope::error::{Error, ErrorKind};
use heapscope::source::{auto_decompress, FileSource};

const USAGE: &str = "\
usage:
  heapscope analyze DUMP [-o OUT] [--format md|json] [--keep-unreachable]
  heapscope parity DUMP -o OUT.json [--objects OUT.tsv] [--keep-unreachable]
  heapscope schema

DUMP is an .hprof or .hprof.gz file (HotSpot or Android). `analyze` writes the report
as Markdown (default) or JSON, to OUT (format from its extension) or to stdout.
`parity` writes the numbers Eclipse MAT computes, in the form of
../shared/corpus/expected/, for compare_expected.py. `schema` prints the JSON Schema
of the report. A dump that ends early still gets a report of what it holds, marked
incomplete, and exit status 1.
Exit status: 0 success, 1 bad input, 2 usage error.";

struct Args {
    command: String,
    dump: PathBuf,
    out: Option<PathBuf>,
    objects: Option<PathBuf>,
    format: Option<String>,
    keep_unreachable: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let command = it.next().ok_or("missing command")?;
    if command == "-h" || command == "--help" || command == "help" {
        return Err(String::new());
    }
    if command == "schema" {
        return Ok(Args { command, dump: PathBuf::new(), out: None, objects: None, format: None, keep_unreachable: false });
    }
    if command != "analyze" && command != "parity" {
        return Err(format!("unknown command {command:?}"));
    }
    let mut dump = None;
    let (mut out, mut objects, mut format, mut keep) = (None, None, None, false);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" => out = Some(PathBuf::from(it.next().ok_or("-o needs a file name")?)),
            "--objects" => objects = Some(PathBuf::from(it.next().ok_or("--objects needs a file name")?)),
            "--format" | "-f" => {
                let f = it.next().ok_or("--format needs md or json")?;
                if f != "md" && f != "json" {
                    return Err(format!("unknown format {f:?}: expected md or json"));
                }
                format = Some(f);
            }
            "--keep-unreachable" => keep = true,
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with('-') && s.len() > 1 => return Err(format!("unknown option {s:?}")),
            s => {
                if dump.is_some() {
                    return Err(format!("unexpected argument {s:?}"));
                }
                dump = Some(PathBuf::from(s));
            }
        }
    }
    let dump = dump.ok_or("missing DUMP")?;
    if command == "parity" && out.is_none() {
        return Err("parity needs -o OUT.json".into());
    }
    if command == "parity" && (format.is_some()) {
        return Err("parity writes JSON; --format does not apply".into());
    }
    Ok(Args { command, dump, out, objects, format, keep_unreachable: keep })
}

/// Progress on stderr, only when it is a terminal.
struct Meter {
    start: Instant,
    last: Instant,
    phase: &'static str,
}

impl Progress for Meter {
    fn update(&mut self, p: &ProgressInfo) -> Result<(), Error> {
        let now = Instant::now();
        if p.phase.name() == self.phase && now.duration_since(self.last).as_millis() < 200 {
            return Ok(());
        }
        self.last = now;
        self.phase = p.phase.name();
        let secs = now.duration_since(self.start).as_secs_f64().max(1e-3);
        let mb = p.bytes_done as f64 / 1e6;
        let total = p.bytes_total.map(|t| format!(" / {:.0} MB", t as f64 / 1e6)).unwrap_or_default();
        eprint!("\r\x1b[K{}: {:.0} MB{} ({:.0} MB/s), {} objects", p.phase.name(), mb, total, mb / secs, p.objects);
        Ok(())
    }
}

fn run(args: &Args) -> Result<(), Error> {
    if args.command == "schema" {
        print!("{}", heapscope::report::json_schema());
        return Ok(());
    }
    let file_bytes = std::fs::metadata(&args.dump).map(|m| m.len()).unwrap_or(0);
    let src = auto_decompress(Box::new(FileSource::open(&args.dump)?))?;
    let gzip = src.len().is_none();
    let options = Options { keep_unreachable: args.keep_unreachable, memory_limit: None };
    let tty = std::io::stderr().is_terminal();
    let analysis: Analysis = if tty {
        let now = Instant::now();
        let mut meter = Meter { start: now, last: now, phase: "" };
        let r = analysis::analyze(src, &options, &mut meter);
        eprint!("\r\x1b[K");
        r?
    } else {
        analysis::analyze(src, &options, &mut analysis::NoProgress)?
    };
    for w in &analysis.warnings {
        eprintln!("heapscope: warning: {w}");
    }
    match args.command.as_str() {
        "parity" => {
            let out = args.out.as_ref().expect("checked");
            let json = heapscope::report::parity::json(&analysis);
            write_file(out, serde_json::to_string_pretty(&json).expect("JSON").as_bytes())?;
            if let Some(tsv) = &args.objects {
                let f = std::fs::File::create(tsv).map_err(|e| Error::io(format!("cannot write {}: {e}", tsv.display())))?;
                let mut w = std::io::BufWriter::new(f);
                heapscope::report::parity::write_objects_tsv(&analysis, &mut w)
                    .and_then(|_| w.flush())
                    .map_err(|e| Error::io(format!("cannot write {}: {e}", tsv.display())))?;
            }
        }
        _ => {
            let info = heapscope::report::SourceInfo {
                file_name: args.dump.file_name().map(|n| n.to_string_lossy().into_owned()),
                file_bytes,
                gzip,
            };
            let report = heapscope::report::build(&analysis, &info);
            let json = match args.format.as_deref() {
                Some(f) => f == "json",
                None => args.out.as_ref().is_some_and(|o| o.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"))),
            };
            let text = if json { heapscope::report::to_json(&report) } else { heapscope::report::markdown::render(&report) };
            match &args.out {
                Some(out) => write_file(out, text.as_bytes())?,
                None => {
                    let mut stdout = std::io::stdout().lock();
                    // A closed pipe (`| head`) is not an error worth reporting.
                    let _ = stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush());
                }
            }
        }
    }
    if let Some(e) = &analysis.incomplete {
        return Err(Error::format(e.offset.unwrap_or(0), format!("the dump is incomplete ({}); the report covers what comes before", e.message)));
    }
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    std::fs::write(path, bytes).map_err(|e| Error::io(format!("cannot write {}: {e}", path.display())))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            if msg.is_empty() {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            eprintln!("heapscope: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let what = match e.kind {
                ErrorKind::Format => format!("{}: {e}", args.dump.display()),
                _ => e.to_string(),
            };
            eprintln!("heapscope: {what}");
            ExitCode::from(1)
        }
    }
}
