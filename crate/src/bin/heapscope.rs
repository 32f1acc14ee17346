//! The `heapscope` command line: analyze a heap dump natively.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use heapscope::analysis::{self, Analysis, DominatorAlgorithm, Options, Progress, ProgressInfo};
use heapscope::error::{Error, ErrorKind};
use heapscope::source::{auto_decompress, FileSource};

const USAGE: &str = "\
usage:
  heapscope analyze DUMP [-o OUT] [--format md|json|html] [--keep-unreachable] [--timings] [--dominators semi-nca|chk]
  heapscope parity DUMP -o OUT.json [--objects OUT.tsv] [--keep-unreachable] [--dominators semi-nca|chk]
  heapscope inspect DUMP ADDRESS [--keep-unreachable]
  heapscope schema [--queries]

DUMP is an .hprof or .hprof.gz file (HotSpot or Android). `analyze` writes the report
as Markdown (default), JSON or a self-contained HTML page, to OUT (format from its
extension: .json, .html, else Markdown) or to stdout.
`parity` writes the numbers Eclipse MAT computes, in the form of
../shared/corpus/expected/, for compare_expected.py. `inspect` prints one object as
JSON: its fields read back from the dump, its dominator, a shortest reference path
from a GC root and its referrers. `schema` prints the JSON Schema of the report (or of
the queries and their answers). A dump that ends early still gets a report of what it holds, marked
incomplete, and exit status 1.
--timings prints wall time, CPU time and peak memory per phase on stderr.
--dominators semi-nca|chk picks the dominator algorithm (Semi-NCA by default;
Cooper-Harvey-Kennedy gives the same tree, more slowly, for cross-checking).
Exit status: 0 success, 1 bad input, 2 usage error.";

struct Args {
    command: String,
    dump: PathBuf,
    out: Option<PathBuf>,
    objects: Option<PathBuf>,
    format: Option<String>,
    keep_unreachable: bool,
    address: Option<u64>,
    timings: bool,
    dominators: DominatorAlgorithm,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let command = it.next().ok_or("missing command")?;
    if command == "-h" || command == "--help" || command == "help" {
        return Err(String::new());
    }
    if command == "schema" {
        let session = match it.next().as_deref() {
            None => false,
            Some("--queries") => true,
            Some(x) => return Err(format!("unexpected argument {x:?}")),
        };
        return Ok(Args { command, dump: PathBuf::new(), out: None, objects: None, format: None, keep_unreachable: session, address: None, timings: false, dominators: DominatorAlgorithm::SemiNca });
    }
    if command != "analyze" && command != "parity" && command != "inspect" {
        return Err(format!("unknown command {command:?}"));
    }
    let mut dump = None;
    let mut address = None;
    let (mut out, mut objects, mut format, mut keep, mut timings) = (None, None, None, false, false);
    let mut dominators = DominatorAlgorithm::SemiNca;
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" => out = Some(PathBuf::from(it.next().ok_or("-o needs a file name")?)),
            "--objects" => objects = Some(PathBuf::from(it.next().ok_or("--objects needs a file name")?)),
            "--format" | "-f" => {
                let f = it.next().ok_or("--format needs md, json or html")?;
                if f != "md" && f != "json" && f != "html" {
                    return Err(format!("unknown format {f:?}: expected md, json or html"));
                }
                format = Some(f);
            }
            "--keep-unreachable" => keep = true,
            "--timings" => timings = true,
            "--dominators" => {
                dominators = match it.next().as_deref() {
                    Some("semi-nca") => DominatorAlgorithm::SemiNca,
                    Some("chk") => DominatorAlgorithm::CooperHarveyKennedy,
                    other => return Err(format!("--dominators takes semi-nca or chk, not {other:?}")),
                }
            }
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with('-') && s.len() > 1 => return Err(format!("unknown option {s:?}")),
            s => {
                if dump.is_none() {
                    dump = Some(PathBuf::from(s));
                } else if command == "inspect" && address.is_none() {
                    address = Some(heapscope::query::parse_address(s).ok_or_else(|| format!("{s:?} is not an address (hex, e.g. 0x7f3a1000)"))?);
                } else {
                    return Err(format!("unexpected argument {s:?}"));
                }
            }
        }
    }
    let dump = dump.ok_or("missing DUMP")?;
    if command == "inspect" && address.is_none() {
        return Err("inspect needs an ADDRESS".into());
    }
    if command == "parity" && out.is_none() {
        return Err("parity needs -o OUT.json".into());
    }
    if command == "parity" && (format.is_some()) {
        return Err("parity writes JSON; --format does not apply".into());
    }
    Ok(Args { command, dump, out, objects, format, keep_unreachable: keep, address, timings, dominators })
}

/// Progress on stderr when it is a terminal; per-phase timings with `--timings`.
struct Meter {
    start: Instant,
    last: Instant,
    phase: &'static str,
    tty: bool,
    /// (phase, wall seconds, CPU seconds, peak RSS bytes during the phase)
    timings: Option<Vec<(&'static str, f64, f64, u64)>>,
    phase_start: (Instant, f64),
}

/// User + system CPU seconds of this process (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the parenthesised command name: utime is the 12th, stime the 13th.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// Peak resident set size since the last reset (Linux; 0 elsewhere).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

impl Meter {
    fn new(tty: bool, timings: bool) -> Meter {
        let now = Instant::now();
        reset_peak_rss();
        Meter { start: now, last: now, phase: "", tty, timings: timings.then(Vec::new), phase_start: (now, cpu_seconds()) }
    }

    /// Ends the current phase's timing.
    fn close_phase(&mut self) {
        if let (Some(t), false) = (&mut self.timings, self.phase.is_empty()) {
            let now = Instant::now();
            let cpu = cpu_seconds();
            t.push((self.phase, now.duration_since(self.phase_start.0).as_secs_f64(), cpu - self.phase_start.1, peak_rss()));
            reset_peak_rss();
            self.phase_start = (now, cpu);
        }
    }

    fn print_timings(&mut self, objects: u64) {
        let Some(t) = &self.timings else { return };
        eprintln!("{:<28} {:>8} {:>8} {:>10} {:>9}", "phase", "wall s", "cpu s", "peak MiB", "B/object");
        for (name, wall, cpu, rss) in t {
            let per = if objects > 0 { *rss as f64 / objects as f64 } else { 0.0 };
            eprintln!("{name:<28} {wall:>8.2} {cpu:>8.2} {:>10.1} {per:>9.1}", *rss as f64 / (1u64 << 20) as f64);
        }
        let wall: f64 = t.iter().map(|x| x.1).sum();
        let cpu: f64 = t.iter().map(|x| x.2).sum();
        let rss = t.iter().map(|x| x.3).max().unwrap_or(0);
        let per = if objects > 0 { rss as f64 / objects as f64 } else { 0.0 };
        eprintln!("{:<28} {wall:>8.2} {cpu:>8.2} {:>10.1} {per:>9.1}", "total", rss as f64 / (1u64 << 20) as f64);
        eprintln!("objects in the dump: {objects}");
    }
}

impl Progress for Meter {
    fn update(&mut self, p: &ProgressInfo) -> Result<(), Error> {
        let now = Instant::now();
        let changed = p.phase.name() != self.phase;
        if changed {
            self.close_phase();
            self.phase = p.phase.name();
        }
        if !self.tty || (!changed && now.duration_since(self.last).as_millis() < 200) {
            return Ok(());
        }
        self.last = now;
        let secs = now.duration_since(self.start).as_secs_f64().max(1e-3);
        let mb = p.bytes_done as f64 / 1e6;
        let total = p.bytes_total.map(|t| format!(" / {:.0} MB", t as f64 / 1e6)).unwrap_or_default();
        eprint!("\r\x1b[K{}: {:.0} MB{} ({:.0} MB/s), {} objects", p.phase.name(), mb, total, mb / secs, p.objects);
        Ok(())
    }
}

fn run(args: &Args) -> Result<(), Error> {
    if args.command == "schema" {
        if args.keep_unreachable {
            print!("{}", heapscope::query::json_schema());
        } else {
            print!("{}", heapscope::report::json_schema());
        }
        return Ok(());
    }
    let file_bytes = std::fs::metadata(&args.dump).map(|m| m.len()).unwrap_or(0);
    let src = auto_decompress(Box::new(FileSource::open(&args.dump)?))?;
    let gzip = src.len().is_none();
    let options = Options { keep_unreachable: args.keep_unreachable, memory_limit: None, dominators: args.dominators };
    let tty = std::io::stderr().is_terminal();
    let mut meter = Meter::new(tty, args.timings);
    let analysis = analysis::analyze(src, &options, &mut meter);
    if tty {
        eprint!("\r\x1b[K");
    }
    let mut analysis: Analysis = analysis?;
    for w in &analysis.warnings {
        eprintln!("heapscope: warning: {}", one_line(w));
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
        "inspect" => {
            // The same queries the page asks, through the same entry point.
            use heapscope::query::{answer, Answer, Query};
            let object = format!("0x{:x}", args.address.expect("checked"));
            if heapscope::query::object(&analysis, &object).is_err() {
                return Err(Error::io(format!("no object at {object} (or it is unreachable; try --keep-unreachable)")));
            }
            let ask = |analysis: &mut Analysis, q: Query| answer(analysis, &q);
            let Answer::Object(details) = ask(&mut analysis, Query::Object { object: object.clone() })? else { unreachable!("answers match queries") };
            let Answer::PathToRoot(path) = ask(&mut analysis, Query::PathToRoot { object: object.clone() })? else { unreachable!("answers match queries") };
            let Answer::Referrers(referrers) = ask(&mut analysis, Query::Referrers { object, limit: 20 })? else { unreachable!("answers match queries") };
            let json = serde_json::json!({ "object": details, "path_from_gc_root": path, "referrers": referrers });
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{}", serde_json::to_string_pretty(&json).expect("JSON"));
        }
        _ => {
            let info = heapscope::report::SourceInfo {
                file_name: args.dump.file_name().map(|n| n.to_string_lossy().into_owned()),
                file_bytes,
                gzip,
            };
            let report = heapscope::report::build(&analysis, &info);
            let format = match args.format.as_deref() {
                Some(f) => f.to_string(),
                None => match args.out.as_ref().and_then(|o| o.extension()).map(|e| e.to_string_lossy().to_ascii_lowercase()) {
                    Some(e) if e == "json" => "json".into(),
                    Some(e) if e == "html" || e == "htm" => "html".into(),
                    _ => "md".into(),
                },
            };
            let text = match format.as_str() {
                "json" => heapscope::report::to_json(&report),
                "html" => heapscope::report::html::render(&report),
                _ => heapscope::report::markdown::render(&report),
            };
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
    meter.close_phase();
    meter.print_timings(analysis.object_count() as u64);
    if let Some(e) = &analysis.incomplete {
        return Err(Error::format(e.offset.unwrap_or(0), format!("the dump is incomplete ({}); the report covers what comes before", e.message)));
    }
    Ok(())
}

/// `s` with control characters escaped: messages quote class names and strings from the
/// dump, which may hold newlines, yet each message must stay on one line.
fn one_line(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
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
            eprintln!("heapscope: {}", one_line(&what));
            ExitCode::from(1)
        }
    }
}
