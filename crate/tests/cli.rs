//! The command line as a user meets it: `--version`, `help`, each subcommand's `--help`,
//! usage errors (exit status 2, the closest option suggested), `-` for standard input,
//! shell completions, `render` of a saved report, the progress bar on a terminal only.
//! Every case spawns the real binary.

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use support::hprof_builder::{ClassDef, Hprof, Value};
use support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_heapscope");

/// Every subcommand with the long options its `--help` must explain.
const SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "analyze",
        &[
            "--output",
            "--format",
            "--keep-unreachable",
            "--dominators",
            "--snapshot",
            "--timings",
            "--verbose",
            "--trace-rss",
            "--detail",
            "--mapping",
            "--quiet",
        ],
    ),
    ("parity", &["--output", "--objects", "--keep-unreachable", "--dominators", "--timings", "--mapping", "--quiet"]),
    ("inspect", &["--keep-unreachable", "--dominators", "--timings", "--mapping", "--quiet"]),
    ("render", &["--output", "--format", "--detail", "--quiet"]),
    ("schema", &["--queries", "--quiet"]),
    ("completions", &["--quiet"]),
];

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).stdin(Stdio::null()).output().expect("heapscope starts")
}

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("heapscope starts");
    let mut pipe = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("heapscope ends");
    writer.join().expect("stdin written");
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A usage error: status 2, a message on stderr, nothing on stdout.
fn assert_usage_error(o: &Output, what: &str) {
    assert_eq!(o.status.code(), Some(2), "{what}: expected exit status 2; stderr:\n{}", stderr(o));
    assert!(stderr(o).contains("error:"), "{what}: no error message:\n{}", stderr(o));
    assert!(o.stdout.is_empty(), "{what}: wrote to stdout:\n{}", stdout(o));
}

/// Help text must not send a user to this repository's files.
fn assert_no_repository_paths(text: &str, what: &str) {
    for needle in ["../", "shared/", "corpus", "schema/", "crate/", "www/", ".py"] {
        assert!(!text.contains(needle), "{what}: help mentions {needle:?}:\n{text}");
    }
}

/// One object of class Node (two int fields: 16 bytes of header + 8 = 24 on an 8-byte-id
/// dump) at 0x20000, held by a JNI global root; the classes are system classes.
fn small_dump() -> Vec<u8> {
    let mut h = Hprof::new(8);
    let classes = [
        (0x10000, "java/lang/Object"),
        (0x10008, "java/lang/Class"),
        (0x10010, "java/lang/ClassLoader"),
        (0x10018, "Node"),
    ];
    for (i, (_, name)) in classes.iter().enumerate() {
        h.string(i as u64 + 1, name);
    }
    h.string(10, "a").string(11, "b");
    for (i, (id, _)) in classes.iter().enumerate() {
        h.load_class(i as u32 + 1, *id, i as u64 + 1);
    }
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(0x10000, 0));
    seg.class_dump(&ClassDef::new(0x10008, 0x10000));
    seg.class_dump(&ClassDef::new(0x10010, 0x10000));
    seg.class_dump(&ClassDef::new(0x10018, 0x10000).field(10, 10).field(11, 10));
    for (id, _) in classes {
        seg.root_sticky_class(id);
    }
    seg.root_jni_global(0x20000, 1);
    seg.instance(0x20000, 0x10018, &[Value::Int(1), Value::Int(2)]);
    h.segment(&seg).heap_dump_end();
    h.into_bytes()
}

#[test]
fn version_is_the_package_version() {
    let o = run(&["--version"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), format!("heapscope {}", env!("CARGO_PKG_VERSION")));
    // Each subcommand answers --version too.
    let o = run(&["analyze", "--version"]);
    assert_eq!(stdout(&o).trim(), format!("heapscope-analyze {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn help_lists_every_subcommand() {
    for args in [&["help"][..], &["--help"], &["-h"]] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "heapscope {args:?}: {}", stderr(&o));
        let text = stdout(&o);
        for (name, _) in SUBCOMMANDS {
            assert!(
                text.lines().any(|l| l.trim_start().starts_with(name)),
                "heapscope {args:?} does not list {name}:\n{text}"
            );
        }
        assert!(text.contains("Exit status"), "heapscope {args:?} does not explain the exit status:\n{text}");
        assert_no_repository_paths(&text, &format!("heapscope {args:?}"));
    }
}

#[test]
fn each_subcommand_explains_each_option() {
    for (name, options) in SUBCOMMANDS {
        for help in [vec![*name, "--help"], vec!["help", name]] {
            let o = run(&help);
            assert_eq!(o.status.code(), Some(0), "heapscope {help:?}: {}", stderr(&o));
            let text = stdout(&o);
            assert_no_repository_paths(&text, &format!("heapscope {help:?}"));
            for option in *options {
                // The option's line, then its explanation (on the same line or the next).
                let lines: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("Options:")).collect();
                let at = lines
                    .iter()
                    .position(|l| l.trim_start().split([' ', ',']).any(|w| w == *option))
                    .unwrap_or_else(|| panic!("heapscope {help:?} does not list {option}:\n{text}"));
                let rest = lines[at].trim_start().split_once("  ").map_or("", |x| x.1).trim();
                let next = lines.get(at + 1).map_or("", |l| l.trim());
                let explanation = if rest.is_empty() { next } else { rest };
                assert!(
                    explanation.split_whitespace().count() >= 3,
                    "heapscope {help:?}: {option} is not explained:\n{text}"
                );
            }
        }
    }
}

#[test]
fn unknown_option_names_the_closest_one() {
    for (args, closest) in [
        (&["analyze", "x.hprof", "--keep-unreachabl"][..], "--keep-unreachable"),
        (&["analyze", "x.hprof", "--timing"], "--timings"),
        (&["parity", "x.hprof", "-o", "x.json", "--object", "x.tsv"], "--objects"),
        (&["schema", "--querys"], "--queries"),
    ] {
        let o = run(args);
        assert_usage_error(&o, &format!("{args:?}"));
        let err = stderr(&o);
        assert!(err.contains(&format!("'{closest}'")), "{args:?} does not suggest {closest}:\n{err}");
    }
    // A mistyped subcommand is named too.
    let o = run(&["analyse", "x.hprof"]);
    assert_usage_error(&o, "analyse");
    assert!(stderr(&o).contains("'analyze'"), "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["analyze"],
        &["analyze", "x.hprof", "--format", "pdf"],
        &["analyze", "x.hprof", "--dominators", "lengauer"],
        &["parity", "x.hprof"],
        &["parity", "x.hprof", "-o", "x.json", "--format", "json"],
        &["inspect", "x.hprof"],
        &["inspect", "x.hprof", "not-hex"],
        &["schema", "extra"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "heapscope {args:?}: expected exit status 2; stderr:\n{}", stderr(&o));
    }
}

#[test]
fn missing_file_is_bad_input() {
    let dir = TempDir::new("cli-missing");
    let missing = dir.path().join("no-such.hprof");
    let o = run(&["analyze", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("heapscope: cannot open"), "{}", stderr(&o));
}

fn json_report(o: &Output, what: &str) -> serde_json::Value {
    assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{what}: not JSON ({e}):\n{}", stdout(o)))
}

#[test]
fn dump_from_standard_input() {
    let dir = TempDir::new("cli-stdin");
    let bytes = small_dump();
    let file = dir.path().join("small.hprof");
    std::fs::write(&file, &bytes).unwrap();
    let from_stdin = json_report(&run_with_stdin(&["analyze", "-", "--format", "json"], &bytes), "analyze -");
    // The construction: 1 instance of Node (24 bytes) plus the two class objects.
    let node = from_stdin["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["class_name"] == "Node")
        .unwrap_or_else(|| panic!("no Node row: {from_stdin}"));
    assert_eq!(node["instances"], 1);
    assert_eq!(node["shallow_bytes"], 24);
    assert_eq!(from_stdin["source"]["file_bytes"], bytes.len() as u64);
    assert!(from_stdin["source"]["file_name"].is_null(), "standard input has no file name");
    // The same report as from the file, but for the name.
    let mut from_file = json_report(&run(&["analyze", file.to_str().unwrap(), "--format", "json"]), "analyze FILE");
    assert_eq!(from_file["source"]["file_name"], "small.hprof");
    from_file["source"].as_object_mut().expect("source").remove("file_name");
    assert_eq!(from_stdin, from_file);
    // gzip'd on standard input, and `-o -` is stdout.
    let gz = support::gzip_stored(&bytes);
    let from_gz = json_report(&run_with_stdin(&["analyze", "-", "-f", "json", "-o", "-"], &gz), "analyze - (gzip)");
    assert_eq!(from_gz["source"]["gzip"], true);
    assert_eq!(from_gz["overview"], from_file["overview"]);
    // inspect reads objects back at their offsets: it works from a pipe too.
    let o = run_with_stdin(&["inspect", "-", "0x20000"], &bytes);
    assert_eq!(o.status.code(), Some(0), "inspect -: {}", stderr(&o));
    let inspected: serde_json::Value = serde_json::from_slice(&o.stdout).expect("inspect JSON");
    let text = inspected["object"].to_string();
    assert!(text.contains("Node"), "{text}");
    // A broken dump on stdin names "standard input" in the error.
    let o = run_with_stdin(&["analyze", "-"], b"JAVA PROFILE 1.");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("heapscope: standard input: at byte 15"), "{}", stderr(&o));
}

#[test]
fn completions_for_each_shell() {
    let subcommands: Vec<&str> = SUBCOMMANDS.iter().map(|(name, _)| *name).collect();
    // Each shell's own marker of a completion script.
    for (shell, marker) in [("bash", "complete -F"), ("zsh", "#compdef heapscope"), ("fish", "complete -c heapscope")] {
        let o = run(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "completions {shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(script.contains(marker), "completions {shell}: no {marker:?}");
        for name in &subcommands {
            assert!(script.contains(name), "completions {shell}: no {name}");
        }
        assert!(script.contains("keep-unreachable"), "completions {shell}: no options");
    }
    // bash parses its script.
    let dir = TempDir::new("cli-completions");
    let file = dir.path().join("heapscope.bash");
    std::fs::write(&file, run(&["completions", "bash"]).stdout).unwrap();
    let st = Command::new("bash").arg("-n").arg(&file).status().expect("bash runs");
    assert!(st.success(), "bash -n rejects the completion script");
    assert_usage_error(&run(&["completions", "tcsh"]), "completions tcsh");
}

/// [`small_dump`] written to `small.hprof` in a new temporary directory.
fn small_dump_file(tag: &str) -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new(tag);
    let dump = dir.path().join("small.hprof");
    std::fs::write(&dump, small_dump()).unwrap();
    (dir, dump)
}

/// `analyze` of `dump` in `format`, to stdout.
fn analyze_to_stdout(dump: &Path, format: &str) -> String {
    let o = run(&["analyze", dump.to_str().unwrap(), "--format", format]);
    assert_eq!(o.status.code(), Some(0), "analyze --format {format}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn render_of_a_saved_report_equals_analyze() {
    let (dir, dump) = small_dump_file("cli-render");
    let json = dir.path().join("small.json");
    std::fs::write(&json, analyze_to_stdout(&dump, "json")).unwrap();
    let json_arg = json.to_str().unwrap();
    for format in ["md", "html", "json"] {
        let o = run(&["render", json_arg, "--format", format]);
        assert_eq!(o.status.code(), Some(0), "render --format {format}: {}", stderr(&o));
        assert_eq!(stdout(&o), analyze_to_stdout(&dump, format), "render --format {format} differs from analyze");
    }
    // The format from OUT's extension; Markdown by default; the report from stdin.
    let out = dir.path().join("again.html");
    let o = run(&["render", json_arg, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), analyze_to_stdout(&dump, "html"));
    let o = run(&["render", json_arg]);
    assert_eq!(stdout(&o), analyze_to_stdout(&dump, "md"));
    let o = run_with_stdin(&["render", "-"], &std::fs::read(&json).unwrap());
    assert_eq!(stdout(&o), analyze_to_stdout(&dump, "md"));
}

#[test]
fn render_refuses_another_schema_version() {
    let (dir, dump) = small_dump_file("cli-render-version");
    let mut report: serde_json::Value = serde_json::from_str(&analyze_to_stdout(&dump, "json")).unwrap();
    let current = heapscope::report::SCHEMA_VERSION;
    report["schema_version"] = (current + 1).into();
    // A future version may have renamed fields: the version is what the message is about.
    report.as_object_mut().unwrap().remove("overview");
    let file = dir.path().join("future.json");
    std::fs::write(&file, report.to_string()).unwrap();
    let o = run(&["render", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let expected =
        format!("this report has schema version {}; this heapscope reads version {current} only", current + 1);
    assert!(stderr(&o).starts_with(&format!("heapscope: {}: {expected}", file.display())), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    // Not a report at all, and not JSON.
    for (text, says) in [("{\"a\": 1}", "no schema_version"), ("# Heap dump analysis", "not JSON")] {
        std::fs::write(&file, text).unwrap();
        let o = run(&["render", file.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
}

#[test]
fn progress_only_on_a_terminal() {
    let (dir, dump) = small_dump_file("cli-progress");
    let out = dir.path().join("r.md");
    let (dump_arg, out_arg) = (dump.to_str().unwrap(), out.to_str().unwrap());
    // stderr a pipe: nothing at all (no progress, no escape codes).
    let o = run(&["analyze", dump_arg, "-o", out_arg]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "stderr is a pipe, yet: {:?}", stderr(&o));
    // Under a pseudo-terminal (script(1) from util-linux): the bar, with the phase, the
    // bytes and the time left; none with --quiet.
    let tty = |extra: &str| {
        // Quoted: the temporary paths hold parentheses.
        let cmd = format!("'{BIN}' analyze '{dump_arg}' -o '{out_arg}' {extra}");
        let o = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .stdin(Stdio::null())
            .output()
            .expect("script(1) runs");
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        stdout(&o)
    };
    let shown = tty("");
    let size = std::fs::metadata(&dump).unwrap().len();
    for part in ["pass 1/2", "pass 2/2", "ETA", &format!("/{size} B"), "objects"] {
        assert!(shown.contains(part), "the progress bar lacks {part:?}: {shown:?}");
    }
    let quiet = tty("--quiet");
    assert!(!quiet.contains("pass 1/2"), "--quiet still shows progress: {quiet:?}");
}

/// `--timings`: the columns `scripts/bench.sh` reads (peak MiB and bytes per object last,
/// in the `total` row) and the phases in order.
#[test]
fn timings_table_has_the_columns_scripts_read() {
    let (dir, dump) = small_dump_file("cli-timings");
    let out = dir.path().join("r.md");
    let o = run(&["analyze", dump.to_str().unwrap(), "-q", "--timings", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stderr(&o);
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[0].split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(header, ["phase", "wall s", "cpu s", "user s", "sys s", "peak MiB", "B/object"], "{text}");
    let objects: f64 =
        text.lines().find_map(|l| l.strip_prefix("objects in the dump: ")).expect("the object count").parse().unwrap();
    // small_dump: 4 class objects, 1 instance, and MAT's pseudo object for the bootstrap loader.
    assert_eq!(objects, 6.0, "{text}");
    let rows: Vec<(String, Vec<f64>)> = lines[1..]
        .iter()
        .take_while(|l| !l.starts_with("objects in the dump"))
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let (name, nums) = fields.split_at(fields.len() - 6);
            (name.join(" "), nums.iter().map(|x| x.parse::<f64>().expect("a number")).collect())
        })
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r.0.split(':').next().unwrap()).collect();
    assert_eq!(
        names,
        ["pass 1", "pass 2", "reachability strengths", "dominator tree", "retained sizes", "report", "total"],
        "{text}"
    );
    for (name, v) in &rows {
        // A process holds some MiB resident; bytes per object is that over the objects.
        assert!(v[4] > 0.5, "{name}: peak {} MiB", v[4]);
        let per = v[4] * (1u64 << 20) as f64 / objects;
        assert!((v[5] - per).abs() <= 0.05 * per, "{name}: {} B/object for {} MiB and {objects} objects", v[5], v[4]);
    }
    let peak = rows.iter().map(|r| r.1[4]).fold(0.0, f64::max);
    assert_eq!(rows.last().unwrap().1[4], peak, "the total's peak is the largest phase's: {text}");
}

/// Two heap-dump snapshots in one file, as the JDK's hprof agent writes one per dump
/// request: strings and classes loaded once, then per snapshot a heap segment and a
/// HEAP DUMP END. Snapshot 1 holds 2 Nodes, snapshot 2 holds 5 (at other addresses);
/// a Node has one int field: 16 bytes of header + 4, aligned to 24, retaining itself.
fn two_snapshots() -> Vec<u8> {
    let mut h = Hprof::new(8);
    let classes = [
        (0x10000u64, "java/lang/Object"),
        (0x10008, "java/lang/Class"),
        (0x10010, "java/lang/ClassLoader"),
        (0x10018, "Node"),
    ];
    for (i, (_, name)) in classes.iter().enumerate() {
        h.string(i as u64 + 1, name);
    }
    h.string(10, "value");
    for (i, (id, _)) in classes.iter().enumerate() {
        h.load_class(i as u32 + 1, *id, i as u64 + 1);
    }
    for (nodes, base) in [(2u64, 0x20000u64), (5, 0x30000)] {
        let mut seg = h.segment_builder();
        seg.class_dump(&ClassDef::new(0x10000, 0));
        seg.class_dump(&ClassDef::new(0x10008, 0x10000));
        seg.class_dump(&ClassDef::new(0x10010, 0x10000));
        seg.class_dump(&ClassDef::new(0x10018, 0x10000).field(10, 10));
        for (id, _) in classes {
            seg.root_sticky_class(id);
        }
        for k in 0..nodes {
            seg.root_jni_global(base + 24 * k, 1);
            seg.instance(base + 24 * k, 0x10018, &[Value::Int(k as i32)]);
        }
        h.segment(&seg).heap_dump_end();
    }
    h.into_bytes()
}

#[test]
fn one_snapshot_of_several_is_analyzed() {
    let dir = TempDir::new("cli-snapshots");
    let file = dir.path().join("two.hprof");
    std::fs::write(&file, two_snapshots()).unwrap();
    let path = file.to_str().unwrap();
    for (args, snapshot, nodes) in [(&[][..], 2, 5u64), (&["--snapshot", "2"], 2, 5), (&["--snapshot", "1"], 1, 2)] {
        let mut all = vec!["analyze", path, "--format", "json"];
        all.extend_from_slice(args);
        let o = run(&all);
        assert!(stderr(&o).is_empty(), "{args:?}: no warnings expected (nothing is merged): {}", stderr(&o));
        let r = json_report(&o, &format!("{args:?}"));
        assert_eq!(r["dump"]["snapshots"], 2, "{args:?}");
        assert_eq!(r["dump"]["snapshot"], snapshot, "{args:?}");
        let node = r["histogram"].as_array().unwrap().iter().find(|c| c["class_name"] == "Node").expect("Node row");
        assert_eq!(node["instances"], nodes, "{args:?}: the Nodes of snapshot {snapshot} only");
        assert_eq!(node["shallow_bytes"], 24 * nodes, "{args:?}");
        assert_eq!(node["retained_bytes_min"], 24 * nodes, "{args:?}: each Node retains itself");
        assert!(r["warnings"].as_array().map_or(true, |w| w.is_empty()), "{args:?}: {}", r["warnings"]);
        let mut md_args = vec!["analyze", path, "--format", "md"];
        md_args.extend_from_slice(args);
        let md = stdout(&run(&md_args));
        assert!(
            md.contains(&format!("Heap dump snapshot {snapshot} of 2.")),
            "{args:?}: the Markdown does not say which snapshot"
        );
    }
    let o = run(&["analyze", path, "--snapshot", "3"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("there is no heap-dump snapshot 3: the file holds 2"), "{}", stderr(&o));
    assert_usage_error(&run(&["analyze", path, "--snapshot", "0"]), "--snapshot 0");
    // A file with one snapshot says so, without the note.
    let (_one_dir, one) = small_dump_file("cli-one-snapshot");
    let r: serde_json::Value = serde_json::from_str(&analyze_to_stdout(&one, "json")).unwrap();
    assert_eq!((r["dump"]["snapshots"].as_u64(), r["dump"]["snapshot"].as_u64()), (Some(1), Some(1)));
    assert!(!analyze_to_stdout(&one, "md").contains("Heap dump snapshot"));
}
