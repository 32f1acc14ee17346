//! The command line of seed 000, run as a user runs it (the real binary): `analyze DUMP
//! [OUTPUT]`, `--detail minimal|default|max` with the caps of the seed's table, `-f
//! md-graphs`, `-v/--verbose`, `--trace-rss`, `render -`, `dev emit-schema` and `dev
//! dump-pass1`. The dump is built here (`support::dump::leak_dump`): what it holds is known
//! from its construction.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use support::dump::{leak_dump, NODES};
use support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_heapscope");

/// Filler classes: more than `--detail max`'s 500 histogram rows.
const FILLERS: usize = 520;

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).stdin(Stdio::null()).output().expect("heapscope starts")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    text(&o.stdout)
}

fn dump_file(dir: &TempDir) -> PathBuf {
    let path = dir.path().join("leak.hprof");
    std::fs::write(&path, leak_dump(FILLERS).dump.into_bytes()).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Rows of the Markdown table under the heading `title`.
fn table_rows(md: &str, title: &str) -> usize {
    let start = md.find(title).unwrap_or_else(|| panic!("{title} in the report"));
    let table: Vec<&str> =
        md[start..].lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')).collect();
    table.len() - 2
}

#[test]
fn analyze_writes_to_a_positional_output() {
    let dir = TempDir::new("cli-forms-output");
    let dump = dump_file(&dir);
    let (positional, option) = (dir.path().join("a.md"), dir.path().join("b.md"));
    assert_eq!(ok(&run(&["-q", "analyze", s(&dump), s(&positional)])), "");
    ok(&run(&["-q", "analyze", s(&dump), "-o", s(&option)]));
    let a = std::fs::read_to_string(&positional).unwrap();
    let b = std::fs::read_to_string(&option).unwrap();
    assert!(a.starts_with("# Heap dump analysis: leak.hprof"), "{}", &a[..200.min(a.len())]);
    assert_eq!(a, b);
    // The format follows OUTPUT's extension, as with -o.
    let json = dir.path().join("r.json");
    // (The suspects are MAT's: in the JVM's sizes, by rule here since the builder's ids are
    // not addresses, each of the 520 filler classes also weighs its mirror.)
    ok(&run(&["-q", "analyze", s(&dump), s(&json), "--sizes", "mat"]));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["leak_suspects"]["suspects"].as_array().unwrap().len(), 1);
    // OUTPUT and -o together: a usage error.
    assert_eq!(run(&["analyze", s(&dump), s(&positional), "-o", s(&option)]).status.code(), Some(2));
}

/// The seed's table: (level, root path, histogram, rows, subtree nodes, subtree depth,
/// properties, children), with issue 42's subtree caps (a default report short enough to
/// read: the javadoc dump's Markdown within 600 lines).
const SEED_TABLE: [(&str, [&str; 7]); 3] = [
    ("minimal", ["10", "15", "5", "20", "5", "15", "10"]),
    ("default", ["30", "50", "20", "40", "10", "50", "20"]),
    ("max", ["200", "500", "100", "100,000", "50", "500", "100"]),
];

#[test]
fn detail_names_its_caps_and_scales_them() {
    let help = ok(&run(&["analyze", "--help"])).split_whitespace().collect::<Vec<_>>().join(" ");
    let caps = ["root-path", "histogram", "rows", "subtree-nodes", "subtree-depth", "properties", "children"];
    let at: Vec<usize> = caps
        .iter()
        .map(|cap| help.find(&format!(" {cap}: ")).unwrap_or_else(|| panic!("--help names the cap {cap}: {help}")))
        .collect();
    for (k, cap) in caps.iter().enumerate() {
        let end = at.get(k + 1).copied().unwrap_or(help.len());
        let values = format!("{} / {} / {}", SEED_TABLE[0].1[k], SEED_TABLE[1].1[k], SEED_TABLE[2].1[k]);
        assert!(help[at[k]..end].contains(&values), "{cap}: {values} in --help: {}", &help[at[k]..end]);
    }

    let dir = TempDir::new("cli-forms-detail");
    let dump = dump_file(&dir);
    // Classes in the histogram: the fillers, the five leak classes, Node[], byte[], Object
    // and the classes every dump has are more than 500.
    for (level, caps) in SEED_TABLE {
        let md = ok(&run(&["-q", "analyze", s(&dump), "--detail", level]));
        let rows: usize = caps[1].parse().unwrap();
        assert_eq!(table_rows(&md, "### Classes by Retained Heap"), rows, "--detail {level}");
        assert!(md.contains(&format!("Top {rows} of ")), "--detail {level}");
        // The dominator subtree under the suspect lists `children` of the array's Nodes.
        let json = ok(&run(&["-q", "analyze", s(&dump), "--detail", level, "-f", "json"]));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let t = &v["leak_suspects"]["suspects"][0]["dominator_subtree"]["nodes"];
        let nodes = t.as_array().unwrap().iter().filter(|n| n["object"]["class_name"] == "leak.Node").count();
        let children: usize = caps[6].parse().unwrap();
        assert_eq!(nodes, NODES.min(children), "--detail {level}");
    }
    // The default is --detail default.
    assert_eq!(ok(&run(&["-q", "analyze", s(&dump)])), ok(&run(&["-q", "analyze", s(&dump), "--detail", "default"])));
    assert_eq!(run(&["analyze", s(&dump), "--detail", "huge"]).status.code(), Some(2));
}

#[test]
fn md_graphs_draws_bars_in_fenced_blocks() {
    let dir = TempDir::new("cli-forms-graphs");
    let dump = dump_file(&dir);
    let plain = ok(&run(&["-q", "analyze", s(&dump), "-f", "md"]));
    let graphs = ok(&run(&["-q", "analyze", s(&dump), "-f", "md-graphs"]));
    assert!(!plain.contains('█'));
    // The suspect's share of the heap as a bar, inside a fenced text block.
    let fence = graphs.find("```text\n").expect("a fenced block");
    let block = &graphs[fence..graphs[fence + 8..].find("```").map(|e| fence + 8 + e).unwrap()];
    assert!(block.contains('█'), "{block}");
    assert!(graphs.contains("└─ "), "the root path or the subtree drawn as a tree");
    // The tables of the plain Markdown are all there.
    assert!(graphs.contains("### Classes by Retained Heap") && graphs.contains("## Leak Suspects"));
}

#[test]
fn verbose_and_trace_rss_report_on_stderr() {
    let dir = TempDir::new("cli-forms-verbose");
    let dump = dump_file(&dir);
    let out = dir.path().join("r.md");
    for flag in ["-v", "--verbose"] {
        let o = run(&["-q", "analyze", s(&dump), flag, "-o", s(&out)]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        let header: Vec<&str> = err.lines().next().unwrap().split_whitespace().collect();
        assert_eq!(header.join(" "), "phase wall s cpu s user s sys s peak MiB B/object", "{err}");
        assert!(err.lines().any(|l| l.starts_with("pass 1")) && err.lines().any(|l| l.starts_with("total")), "{err}");
    }
    let o = run(&["-q", "analyze", s(&dump), "--trace-rss", "-o", s(&out)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("heapscope: rss: ")).collect();
    assert!(lines.iter().any(|l| l.starts_with("heapscope: rss: pass 1") && l.contains(" starts ")), "{err}");
    assert!(lines.iter().any(|l| l.starts_with("heapscope: rss: pass 2") && l.contains(" ends ")), "{err}");
    for l in &lines {
        assert!(l.contains(" MiB, peak ") && l.ends_with(" MiB"), "{l}");
    }
    // Without the flags, nothing on stderr.
    assert_eq!(text(&run(&["-q", "analyze", s(&dump), "-o", s(&out)]).stderr), "");
}

#[test]
fn render_from_standard_input_equals_analyze() {
    let dir = TempDir::new("cli-forms-render");
    let dump = dump_file(&dir);
    let json = ok(&run(&["-q", "analyze", s(&dump), "-f", "json"]));
    for (format, detail) in [("md", "minimal"), ("md-graphs", "default"), ("html", "max"), ("json", "default")] {
        let mut child = Command::new(BIN)
            .args(["-q", "render", "-", "-f", format, "--detail", detail])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(json.as_bytes()).unwrap();
        let rendered = ok(&child.wait_with_output().unwrap());
        // The report was made at the default detail: only the renderer's caps change.
        if detail == "default" || format == "json" {
            let direct = ok(&run(&["-q", "analyze", s(&dump), "-f", format, "--detail", detail]));
            assert_eq!(rendered, direct, "-f {format}");
        }
        assert!(!rendered.is_empty());
    }
}

#[test]
fn dev_emit_schema_and_dump_pass1() {
    let committed =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/report.schema.json")).unwrap();
    assert_eq!(ok(&run(&["dev", "emit-schema"])), committed);
    assert_eq!(ok(&run(&["dev", "emit-schema"])), ok(&run(&["schema"])));

    let dir = TempDir::new("cli-forms-pass1");
    let dump = dump_file(&dir);
    let v: serde_json::Value = serde_json::from_str(&ok(&run(&["-q", "dev", "dump-pass1", s(&dump)]))).unwrap();
    // Built: Anchor, Other, Mid, Holder, NODES Nodes and a filler instance each.
    let instances = 4 + NODES + FILLERS;
    assert_eq!(v["counts"]["instances"], instances as u64, "{}", v["counts"]);
    assert_eq!(v["counts"]["object_arrays"], 1);
    assert_eq!(v["counts"]["primitive_arrays"], NODES as u64);
    // Two roots, a filler each, and every class (Object, Class, [B, five leak classes,
    // Node[], the fillers') a sticky class.
    assert_eq!(v["counts"]["gc_root_records"], (2 + FILLERS + 9 + FILLERS) as u64);
    assert_eq!(v["counts"]["class_dumps"], (9 + FILLERS) as u64);
    assert_eq!(v["id_size"], 8);
    let row = |name: &str| {
        v["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["class_name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(row("leak.Node")["records"], NODES as u64);
    assert_eq!(row("byte[]")["records"], NODES as u64);
    assert_eq!(row("leak.Node[]")["records"], 1);
    assert_eq!(row("fill.C0007")["records"], 1);
    // The largest first: the byte arrays (NODES × 2,000 bytes of elements and more).
    assert_eq!(v["histogram"][0]["class_name"], "byte[]");
    assert!(row("byte[]")["shallow_bytes"].as_u64().unwrap() >= NODES as u64 * 2_000);
    assert_eq!(run(&["-q", "dev", "dump-pass1", s(&dir.path().join("missing.hprof"))]).status.code(), Some(1));
}
