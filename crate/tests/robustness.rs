//! Bad input is safe: every broken dump gets exit status 0 or 1 from the real binary and a
//! one-line message naming the byte offset and what was expected there; never a panic,
//! a hang or an allocation sized by an unchecked field. A dump cut off mid-way still
//! gets its report, marked incomplete.
//!
//! Two halves:
//! - synthetic cases built with `support::hprof_builder`, each with its exact outcome;
//! - corpus mutation: two corpus dumps cut at many offsets and with bytes overwritten at
//!   many (seeded) offsets; each run must end with status 0 or 1 within a timeout, under
//!   a memory limit, without "panicked" on stderr.
//!
//! Every run goes through `sh -c 'ulimit -v ...; exec heapscope ...'`, so an allocation
//! of gigabytes aborts the process (and fails the test) instead of passing unnoticed.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use support::hprof_builder::{ClassDef, Hprof, Segment, Value};
use support::{crc32, TempDir};

const BIN: &str = env!("CARGO_BIN_EXE_heapscope");

/// Address-space limit of every run (KiB). Small dumps need ~16 MiB; the margin is for
/// allocator arenas and future threads. A field-sized allocation of gigabytes fails it.
const MEMORY_LIMIT_KIB: u64 = 256 << 10;
const TIMEOUT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------
// Running the binary

struct Run {
    /// Exit status; None when killed by a signal (a panic=abort, an OOM abort) or a timeout.
    code: Option<i32>,
    stderr: String,
    timed_out: bool,
    /// The JSON report, when one was written.
    report: Option<Json>,
    /// The Markdown report, when asked for and written.
    markdown: Option<String>,
}

impl Run {
    /// The last line of stderr: the error message (warnings come before it).
    fn error_line(&self) -> &str {
        self.stderr.lines().last().unwrap_or("")
    }

    fn report(&self) -> &Json {
        self.report.as_ref().unwrap_or_else(|| panic!("no report written; stderr:\n{}", self.stderr))
    }

    fn overview(&self, path: &str) -> u64 {
        let mut v = &self.report()["overview"];
        for k in path.split('.') {
            v = &v[k];
        }
        v.as_u64().unwrap_or_else(|| panic!("overview.{path} missing in the report"))
    }

    fn warnings(&self) -> Vec<String> {
        self.report()["warnings"]
            .as_array()
            .map(|a| a.iter().filter_map(|w| w.as_str().map(String::from)).collect())
            .unwrap_or_default()
    }
}

/// Runs `heapscope` with `args` under the memory limit and the timeout. Output files go
/// to `dir`.
fn heapscope(args: &[&str], dir: &Path, memory_kib: u64) -> Run {
    let stderr_path = dir.join("stderr.txt");
    let stderr_file = std::fs::File::create(&stderr_path).expect("stderr file");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v "$1" || exit 99; shift; exec "$@""#)
        .arg("sh")
        .arg(memory_kib.to_string())
        .arg(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(stderr_file))
        .spawn()
        .expect("heapscope starts");
    let start = Instant::now();
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break (Some(status), false);
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let code = status.and_then(|s| s.code());
    assert_ne!(code, Some(99), "ulimit -v is not available here");
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    Run { code, stderr, timed_out, report: None, markdown: None }
}

/// `heapscope analyze` of `bytes` (written to `name` in a temp dir), JSON report.
fn analyze(tag: &str, name: &str, bytes: &[u8], extra: &[&str]) -> Run {
    analyze_limited(tag, name, bytes, extra, MEMORY_LIMIT_KIB)
}

fn analyze_limited(tag: &str, name: &str, bytes: &[u8], extra: &[&str], memory_kib: u64) -> Run {
    let dir = TempDir::new(&format!("robust-{tag}"));
    let dump = dir.path().join(name);
    std::fs::write(&dump, bytes).expect("dump written");
    let out = dir.path().join("report.json");
    let md = dir.path().join("report.md");
    // The numbers asserted here are Eclipse MAT's model (`--sizes mat`); the Markdown run
    // below reads the JVM's sizes (the default), which must not break either.
    let mut args =
        vec!["analyze", dump.to_str().unwrap(), "--format", "json", "--sizes", "mat", "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let mut run = heapscope(&args, dir.path(), memory_kib);
    run.report =
        std::fs::read_to_string(&out).ok().map(|s| serde_json::from_str(&s).expect("the report is valid JSON"));
    // The Markdown rendering of the same dump, in the JVM's sizes, must not break either.
    let md_run = heapscope(&["analyze", dump.to_str().unwrap(), "-o", md.to_str().unwrap()], dir.path(), memory_kib);
    assert_eq!(md_run.code, run.code, "markdown run differs: {}", md_run.stderr);
    run.markdown = std::fs::read_to_string(&md).ok();
    run
}

/// No panic, no hang, no abort: exit status 0 or 1.
fn assert_sane(run: &Run, what: &str) {
    assert!(!run.timed_out, "{what}: timed out after {TIMEOUT:?}");
    assert!(!run.stderr.contains("panicked"), "{what}: panicked:\n{}", run.stderr);
    assert!(
        matches!(run.code, Some(0) | Some(1)),
        "{what}: exit status {:?}, expected 0 or 1; stderr:\n{}",
        run.code,
        run.stderr
    );
}

/// Exit 1 with a one-line message that names `offset` and contains every `parts`.
fn assert_error(run: &Run, what: &str, offset: u64, parts: &[&str]) {
    assert_sane(run, what);
    assert_eq!(run.code, Some(1), "{what}: expected exit status 1; stderr:\n{}", run.stderr);
    let line = run.error_line();
    assert!(line.starts_with("heapscope: "), "{what}: last stderr line is not the error: {line:?}");
    let at = format!("at byte {offset} (0x{offset:x})");
    assert!(line.contains(&at), "{what}: error does not name {at:?}: {line}");
    for p in parts {
        assert!(line.contains(p), "{what}: error lacks {p:?}: {line}");
    }
}

/// Exit 1 with a report written and marked incomplete at `offset`.
fn assert_partial(run: &Run, what: &str, offset: u64, parts: &[&str]) {
    assert_error(run, what, offset, parts);
    let r = run.report();
    assert_eq!(r["complete"], Json::Bool(false), "{what}: report not marked incomplete");
    assert_eq!(r["incomplete"]["offset"].as_u64(), Some(offset), "{what}: report's incomplete offset");
    let md = run.markdown.as_deref().expect("markdown report written");
    assert!(md.contains("Incomplete dump"), "{what}: the Markdown report does not say incomplete");
}

fn assert_ok(run: &Run, what: &str) {
    assert_sane(run, what);
    assert_eq!(run.code, Some(0), "{what}: expected exit status 0; stderr:\n{}", run.stderr);
    assert_eq!(run.report()["complete"], Json::Bool(true), "{what}: report marked incomplete");
}

fn has_warning(run: &Run, part: &str) -> bool {
    run.warnings().iter().any(|w| w.contains(part)) && run.stderr.contains(part)
}

// ---------------------------------------------------------------------------------------
// A small, consistent dump (8-byte ids, alignment 8, no compressed oops)

mod s {
    pub const OBJECT: u64 = 1;
    pub const CLASS: u64 = 2;
    pub const LOADER: u64 = 3;
    pub const NODE: u64 = 4;
    pub const NEXT: u64 = 5;
    pub const VALUE: u64 = 6;
    pub const OBJ_ARRAY: u64 = 7;
    pub const INT_ARRAY: u64 = 8;
    pub const THREAD: u64 = 9;
    pub const HOLDER: u64 = 10;
    pub const ROOT: u64 = 11;
}

/// Class object addresses.
mod c {
    pub const OBJECT: u64 = 0x10000;
    pub const CLASS: u64 = 0x10008;
    pub const LOADER: u64 = 0x10010;
    pub const NODE: u64 = 0x10018;
    pub const OBJ_ARRAY: u64 = 0x10020;
    pub const INT_ARRAY: u64 = 0x10028;
    pub const THREAD: u64 = 0x10030;
    pub const HOLDER: u64 = 0x10038;
    pub const ALL: [u64; 8] = [OBJECT, CLASS, LOADER, NODE, OBJ_ARRAY, INT_ARRAY, THREAD, HOLDER];
}

/// Object addresses.
const T1: u64 = 0x20000;
const N1: u64 = 0x20008;
const N2: u64 = 0x20028;
const N3: u64 = 0x20048;
const A1: u64 = 0x20068;
const P1: u64 = 0x200a0;

/// The base dump's numbers (MAT's model, DESIGN.md §3): 8 class objects (Holder's one
/// reference static: 8 bytes, the others 0), three Nodes of 32 bytes (16 for Object's
/// header + a reference + an int, aligned), a Thread of 16, an Object[3] of 48 and the
/// bootstrap loader's pseudo object of 16 (a ClassLoader). The int[4] (40 bytes) is
/// unreachable.
const BASE_OBJECTS: u64 = 14;
const BASE_USED_HEAP: u64 = 8 + 3 * 32 + 16 + 48 + 16;
const BASE_GC_ROOTS: u64 = 8 + 1 + 1; // system classes, the thread, the JNI global

fn base_strings(h: &mut Hprof) {
    for (id, text) in [
        (s::OBJECT, "java/lang/Object"),
        (s::CLASS, "java/lang/Class"),
        (s::LOADER, "java/lang/ClassLoader"),
        (s::NODE, "Node"),
        (s::NEXT, "next"),
        (s::VALUE, "value"),
        (s::OBJ_ARRAY, "[Ljava/lang/Object;"),
        (s::INT_ARRAY, "[I"),
        (s::THREAD, "java/lang/Thread"),
        (s::HOLDER, "Holder"),
        (s::ROOT, "root"),
    ] {
        h.string(id, text);
    }
}

fn base_load_classes(h: &mut Hprof) {
    let names = [s::OBJECT, s::CLASS, s::LOADER, s::NODE, s::OBJ_ARRAY, s::INT_ARRAY, s::THREAD, s::HOLDER];
    for (i, (&class, &name)) in c::ALL.iter().zip(names.iter()).enumerate() {
        h.load_class(i as u32 + 1, class, name);
    }
}

fn base_classes(seg: &mut Segment) {
    seg.class_dump(&ClassDef::new(c::OBJECT, 0));
    for id in [c::CLASS, c::LOADER, c::OBJ_ARRAY, c::INT_ARRAY, c::THREAD] {
        seg.class_dump(&ClassDef::new(id, c::OBJECT));
    }
    seg.class_dump(&ClassDef::new(c::NODE, c::OBJECT).field(s::NEXT, 2).field(s::VALUE, 10));
    seg.class_dump(&ClassDef::new(c::HOLDER, c::OBJECT).static_field(s::ROOT, Value::Obj(0)));
}

fn base_roots(seg: &mut Segment) {
    for id in c::ALL {
        seg.root_sticky_class(id);
    }
    seg.root_thread_object(T1, 1, 1);
    seg.root_java_frame(N3, 1, 0);
    seg.root_jni_global(A1, 0x99990);
}

fn node(seg: &mut Segment, id: u64, next: u64, value: i32) {
    seg.instance(id, c::NODE, &[Value::Obj(next), Value::Int(value)]);
}

fn base_objects(seg: &mut Segment) {
    seg.instance(T1, c::THREAD, &[]);
    node(seg, N1, N2, 1);
    node(seg, N2, 0, 2);
    node(seg, N3, N1, 3);
    seg.object_array(A1, c::OBJ_ARRAY, &[N1, N2, 0]);
    seg.primitive_array(P1, 10, 4);
}

/// The whole base dump.
/// The base dump's strings and LOAD CLASS records; a test adds its heap segment.
fn base_records() -> Hprof {
    let mut h = Hprof::new(8);
    base_strings(&mut h);
    base_load_classes(&mut h);
    h
}

/// A heap segment with the base dump's classes, roots and objects, for a test to extend.
fn base_segment(h: &Hprof) -> Segment {
    let mut seg = h.segment_builder();
    base_classes(&mut seg);
    base_roots(&mut seg);
    base_objects(&mut seg);
    seg
}

fn base_dump() -> Hprof {
    let mut h = base_dump_open();
    h.heap_dump_end();
    h
}

/// The base dump without its HEAP DUMP END: a segment a test adds belongs to the same
/// heap dump (after the END it would start a second snapshot, analyzed instead).
fn base_dump_open() -> Hprof {
    let mut h = base_records();
    h.stack_trace(1, 1);
    let seg = base_segment(&h);
    h.segment(&seg);
    h
}

fn assert_base_numbers(run: &Run, what: &str) {
    if run.report()["complete"] == Json::Bool(false) {
        // A dump that breaks off keeps what no root reaches in the part read (the
        // base's one unreachable object of 40 bytes), each entry point a root of its own:
        // what held it may be past the break. The triage gives no verdict.
        assert_eq!(run.overview("objects"), BASE_OBJECTS + 1, "{what}: objects");
        assert_eq!(run.overview("used_heap_bytes"), BASE_USED_HEAP + 40, "{what}: used heap");
        assert_eq!(run.overview("gc_roots"), BASE_GC_ROOTS + 1, "{what}: GC roots");
        assert_eq!(run.overview("unreachable.objects"), 0, "{what}: unreachable objects");
        assert_eq!(run.report()["oom_triage"]["verdict"], "incomplete", "{what}: verdict");
        assert_eq!(run.report()["oom_triage"]["cut"]["unrooted_bytes"].as_u64(), Some(40), "{what}: unrooted");
        return;
    }
    assert_eq!(run.overview("objects"), BASE_OBJECTS, "{what}: objects");
    assert_eq!(run.overview("used_heap_bytes"), BASE_USED_HEAP, "{what}: used heap");
    assert_eq!(run.overview("gc_roots"), BASE_GC_ROOTS, "{what}: GC roots");
    assert_eq!(run.overview("unreachable.objects"), 1, "{what}: unreachable objects");
    assert_eq!(run.overview("unreachable.shallow_bytes"), 40, "{what}: unreachable bytes");
}

/// Minimal gzip (RFC 1952) of `data`, one member, with a correct CRC.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

// ---------------------------------------------------------------------------------------
// Synthetic cases

#[test]
fn base_dump_is_analyzed_with_the_expected_numbers() {
    let run = analyze("base", "base.hprof", base_dump().bytes(), &[]);
    assert_ok(&run, "base dump");
    assert_base_numbers(&run, "base dump");
    assert!(run.warnings().is_empty(), "unexpected warnings: {:?}", run.warnings());
    // The thread's Java-frame local is an edge, not a root; the thread keeps N3 and N3
    // keeps N1 reachable, N1 → N2.
    let by_type = &run.report()["overview"]["gc_roots_by_type"];
    let names: Vec<&str> = by_type.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["JNI Global", "System Class", "Thread"]);
    let hist = run.report()["histogram"].as_array().unwrap();
    let node = hist.iter().find(|r| r["class_name"] == "Node").expect("Node row");
    assert_eq!(node["instances"], 3);
    assert_eq!(node["shallow_bytes"], 96);
}

#[test]
fn empty_file() {
    let run = analyze("empty", "empty.hprof", &[], &[]);
    assert_error(&run, "empty file", 0, &["the file is empty", "expected an HPROF header"]);
    assert!(run.report.is_none(), "no report for an empty file");
}

#[test]
fn text_file() {
    let run = analyze("text", "notes.hprof", b"hello, this is not a heap dump\n", &[]);
    assert_error(
        &run,
        "text file",
        0,
        &["not an HPROF heap dump", "expected \"JAVA PROFILE 1.0.x\"", "found \"hello, this is not"],
    );
    assert!(run.report.is_none());
    // Shorter than the magic string, and binary.
    let run = analyze("text2", "short.hprof", &[0x00, 0xff, 0x10], &[]);
    assert_error(&run, "three binary bytes", 0, &["not an HPROF heap dump"]);
}

#[test]
fn unsupported_version() {
    let h = Hprof::with_header("JAVA PROFILE 1.0.9", 8, 0);
    let run = analyze("version", "v109.hprof", h.bytes(), &[]);
    assert_error(
        &run,
        "JAVA PROFILE 1.0.9",
        17,
        &["unsupported HPROF version", "expected \"JAVA PROFILE 1.0.1\", \"1.0.2\" or \"1.0.3\""],
    );
}

#[test]
fn header_cut_short() {
    let h = base_dump();
    let run = analyze("header-cut", "cut.hprof", &h.bytes()[..19 + 5], &[]);
    assert_error(&run, "header cut in the id size", 19, &["expected 12 bytes of the identifier size and timestamp"]);
    let run = analyze("header-cut2", "cut.hprof", b"JAVA PROFILE 1.", &[]);
    assert_error(
        &run,
        "header cut in the magic",
        15,
        &["file ends after 15 bytes, inside the header: expected \"JAVA PROFILE 1.0.x\" and a NUL"],
    );
}

#[test]
fn impossible_id_sizes() {
    for id_size in [3u32, 0, 16, 0xFFFF_FFFF] {
        let mut h = Hprof::with_header("JAVA PROFILE 1.0.2", id_size, 0);
        h.string(1, "x");
        let run = analyze("idsize", "ids.hprof", h.bytes(), &[]);
        assert_error(
            &run,
            &format!("id size {id_size}"),
            19,
            &[&format!("identifier size is {id_size}; expected 4 or 8")],
        );
    }
}

#[test]
fn header_only_dump_is_empty_not_broken() {
    let h = Hprof::new(8);
    let run = analyze("header-only", "empty-heap.hprof", h.bytes(), &[]);
    assert_ok(&run, "header only");
    assert_eq!(run.overview("used_heap_bytes"), 0);
}

#[test]
fn unknown_top_level_tag() {
    let mut h = base_dump();
    let at = h.len();
    h.record(0x55, &[1, 2, 3]);
    let run = analyze("tag", "tag.hprof", h.bytes(), &[]);
    assert_partial(&run, "unknown tag", at, &["unknown record tag 0x55", "expected a top-level HPROF record"]);
    // Everything before the bad record is in the report.
    assert_base_numbers(&run, "unknown tag");
}

#[test]
fn unknown_heap_sub_tag() {
    let mut h = base_records();
    let mut seg = base_segment(&h);
    let sub = seg.len();
    seg.raw(&[0x42, 0, 0, 0, 0, 0, 0, 0, 0]);
    let seg_at = h.len();
    h.segment(&seg);
    let run = analyze("subtag", "subtag.hprof", h.bytes(), &[]);
    assert_partial(
        &run,
        "unknown sub-tag",
        seg_at + 9 + sub,
        &["unknown heap dump sub-record tag 0x42", "expected a GC root"],
    );
    assert_base_numbers(&run, "unknown sub-tag");
}

#[test]
fn record_length_0xffffffff() {
    // A STRING claiming 4 GiB at the end of a small file: truncated, not a 4 GiB buffer.
    let mut h = base_dump();
    let at = h.len();
    h.record_with_len(0x01, 0xFFFF_FFFF, &[0, 0, 0, 0, 0, 0, 0, 7, b'x']);
    let run = analyze("len-string", "len.hprof", h.bytes(), &[]);
    assert_partial(&run, "STRING of 0xFFFFFFFF bytes", at + 9, &["file ends after 9 more bytes", "of a STRING record"]);
    assert_base_numbers(&run, "STRING of 0xFFFFFFFF bytes");

    // A record the reader skips (START THREAD) claiming 4 GiB.
    let mut h = base_dump();
    let at = h.len();
    h.record_with_len(0x0A, 0xFFFF_FFFF, &[0; 16]);
    let run = analyze("len-skip", "len.hprof", h.bytes(), &[]);
    assert_partial(
        &run,
        "START THREAD of 0xFFFFFFFF bytes",
        at + 9,
        &["file ends 16 bytes into a record body of 4294967295 bytes"],
    );
    assert_base_numbers(&run, "START THREAD of 0xFFFFFFFF bytes");

    // A heap dump segment claiming 4 GiB that holds the whole heap: every object is read,
    // then the file ends where the segment says it continues.
    let mut h = base_records();
    let seg = base_segment(&h);
    let body = h.len() + 9;
    h.record_with_len(0x1C, 0xFFFF_FFFF, seg.body());
    let end = h.len();
    let run = analyze("len-seg", "len.hprof", h.bytes(), &[]);
    assert_partial(
        &run,
        "segment of 0xFFFFFFFF bytes",
        end,
        &[
            &format!("file ends inside a heap dump segment that should continue to byte {}", body + 0xFFFF_FFFF),
            "expected a heap sub-record",
        ],
    );
    assert_base_numbers(&run, "segment of 0xFFFFFFFF bytes");
}

#[test]
fn string_shorter_than_an_id() {
    let mut h = base_dump();
    let at = h.len();
    h.record(0x01, &[0, 0, 0, 1]); // 4 bytes, ids are 8
    h.string(99, "after");
    let run = analyze("short-string", "s.hprof", h.bytes(), &[]);
    assert_partial(
        &run,
        "STRING shorter than an id",
        at + 5,
        &["a STRING record must hold at least an identifier (8 bytes), the record says 4"],
    );
}

#[test]
fn load_class_with_wrong_length() {
    let mut h = Hprof::new(8);
    base_strings(&mut h);
    let at = h.len();
    h.record(0x02, &[0; 20]);
    base_load_classes(&mut h);
    let run = analyze("load-class", "lc.hprof", h.bytes(), &[]);
    assert_partial(
        &run,
        "LOAD CLASS of 20 bytes",
        at + 5,
        &["a LOAD CLASS record must be 24 bytes long, the record says 20"],
    );
}

#[test]
fn instance_fields_past_the_segment() {
    let mut h = base_records();
    let mut seg = base_segment(&h);
    let sub = seg.len();
    seg.instance_raw(0x30000, c::NODE, 1000, &[0; 12]);
    let seg_at = h.len();
    h.segment(&seg);
    h.string(50, "after the segment");
    let run = analyze("inst-len", "i.hprof", h.bytes(), &[]);
    let at = seg_at + 9 + sub;
    assert_partial(&run, "instance of 1000 field bytes", at + 1 + 8 + 4 + 8, &[
        &format!("INSTANCE DUMP at byte {at} claims 1000 bytes of fields, past the end of its heap dump segment at byte {}", at + 1 + 8 + 4 + 8 + 4 + 12),
        "expected at most 12",
    ]);
    assert_base_numbers(&run, "instance of 1000 field bytes");
}

#[test]
fn huge_arrays_in_a_tiny_file_allocate_nothing() {
    // Honest segment length: the claim is checked against it.
    let mut h = base_dump_open();
    let mut seg = h.segment_builder();
    seg.object_array_header(0x30000, c::OBJ_ARRAY, 0x7FFF_FFFF).raw(&[0; 64]);
    let seg_at = h.len();
    h.segment(&seg);
    let at = seg_at + 9;
    let run = analyze_limited("huge-array", "a.hprof", h.bytes(), &[], 64 << 10);
    assert_partial(
        &run,
        "object array of 0x7FFFFFFF elements",
        at + 1 + 8 + 4,
        &[&format!("OBJECT ARRAY DUMP at byte {at} claims 2147483647 elements"), "expected at most 8"],
    );
    assert_base_numbers(&run, "object array of 0x7FFFFFFF elements");

    // A segment claiming 4 GiB makes room for 0x1FFFFFF0 elements: read until the file
    // ends, in pieces, never buffered whole.
    let mut h = base_dump_open();
    let mut seg = h.segment_builder();
    seg.object_array_header(0x30000, c::OBJ_ARRAY, 0x1FFF_FFF0).raw(&[0; 64]);
    let at = h.len() + 9;
    h.record_with_len(0x1C, 0xFFFF_FFFF, seg.body());
    let elements = at + 1 + 8 + 4 + 4 + 8;
    let run = analyze_limited("huge-array2", "a.hprof", h.bytes(), &[], 64 << 10);
    assert_partial(
        &run,
        "object array of 0x1FFFFFF0 elements",
        elements,
        &["file ends 64 bytes into the elements of an OBJECT ARRAY DUMP of 4294967168 bytes"],
    );
    assert_base_numbers(&run, "object array of 0x1FFFFFF0 elements");

    // The same for an instance (pass 2 reads instance fields whole: they are checked
    // against the reader's limit in both passes) and a primitive array.
    let mut h = base_dump_open();
    let mut seg = h.segment_builder();
    seg.instance_raw(0x30000, c::NODE, 0x7FFF_0000, &[0; 64]);
    let at = h.len() + 9;
    h.record_with_len(0x1C, 0xFFFF_FFFF, seg.body());
    let run = analyze_limited("huge-inst", "a.hprof", h.bytes(), &[], 64 << 10);
    assert_partial(
        &run,
        "instance of 2 GiB",
        at + 1 + 8 + 4 + 8,
        &["claims 2147418112 bytes of fields; expected at most 67108864"],
    );

    let mut h = base_dump_open();
    let mut seg = h.segment_builder();
    seg.primitive_array_header(0x30000, 11, 0x1FFF_FFF0).raw(&[0; 64]);
    let at = h.len() + 9;
    h.record_with_len(0x1C, 0xFFFF_FFFF, seg.body());
    let run = analyze_limited("huge-prim", "a.hprof", h.bytes(), &[], 64 << 10);
    assert_partial(
        &run,
        "long[0x1FFFFFF0]",
        at + 1 + 8 + 4 + 4 + 1,
        &["file ends 64 bytes into the elements of a PRIMITIVE ARRAY DUMP of 4294967168 bytes"],
    );
}

#[test]
fn primitive_array_with_invalid_element_type() {
    for ty in [0u8, 2, 3, 12, 0xFF] {
        let mut h = base_dump_open();
        let mut seg = h.segment_builder();
        seg.primitive_array_header(0x30000, ty, 4).raw(&[0; 16]);
        let at = h.len() + 9;
        h.segment(&seg);
        let run = analyze("prim-type", "p.hprof", h.bytes(), &[]);
        assert_partial(
            &run,
            &format!("element type {ty}"),
            at + 1 + 8 + 4 + 4,
            &[&format!("primitive array element type {ty}: expected 4 (boolean) to 11 (long)")],
        );
        assert_base_numbers(&run, "invalid element type");
    }
}

#[test]
fn class_dump_with_invalid_value_types() {
    // A static field of type 59, then an instance field of type 1.
    // Offsets after the constant pool count: [u2 statics, id name, type] and
    // [u2 statics, u2 fields, id name, type].
    for (statics, what, type_at) in
        [(true, "static field of type 59", 2 + 8), (false, "instance field of type 1", 2 + 2 + 8)]
    {
        let mut h = base_dump_open();
        let mut seg = h.segment_builder();
        seg.u1(0x20).id(0x10040).u4(0).id(c::OBJECT).id(0).id(0).id(0).id(0).id(0).u4(0).u2(0);
        let head = seg.len();
        if statics {
            seg.u2(1).id(s::ROOT).u1(59).u4(0).u2(0);
        } else {
            seg.u2(0).u2(1).id(s::VALUE).u1(1);
        }
        let at = h.len() + 9 + head + type_at;
        h.segment(&seg);
        let run = analyze("class-types", "t.hprof", h.bytes(), &[]);
        assert_partial(
            &run,
            what,
            at,
            &[&format!("CLASS DUMP {what}: expected 2 (object) or 4 (boolean) to 11 (long)")],
        );
        assert_base_numbers(&run, what);
    }
}

#[test]
fn class_super_chain_cycle() {
    const A: u64 = 0x10040;
    const B: u64 = 0x10048;
    let mut h = Hprof::new(8);
    base_strings(&mut h);
    h.string(100, "A").string(101, "B");
    base_load_classes(&mut h);
    h.load_class(100, A, 100).load_class(101, B, 101);
    let mut seg = h.segment_builder();
    base_classes(&mut seg);
    let a_at = h.len() + 9 + seg.len();
    seg.class_dump(&ClassDef::new(A, B)).class_dump(&ClassDef::new(B, A));
    base_roots(&mut seg);
    base_objects(&mut seg);
    seg.instance(0x30000, A, &[]);
    h.segment(&seg);
    let run = analyze("cycle", "cycle.hprof", h.bytes(), &[]);
    assert_error(
        &run,
        "A → B → A",
        a_at,
        &[
            "class A (0x10040) has a super class chain that loops back to class A (0x10040)",
            "expected it to end at a class without super class",
        ],
    );

    // A class that is its own super class.
    let mut h = base_records();
    let mut seg = h.segment_builder();
    let at = h.len() + 9;
    seg.class_dump(&ClassDef::new(c::OBJECT, c::OBJECT));
    h.segment(&seg);
    let run = analyze("self-super", "self.hprof", h.bytes(), &[]);
    assert_error(&run, "A → A", at, &["class java.lang.Object (0x10000) has a super class chain that loops back"]);
}

#[test]
fn absurdly_deep_class_hierarchy() {
    let mut h = base_records();
    let mut seg = h.segment_builder();
    base_classes(&mut seg);
    // 1500 classes, each extending the previous one, each with a reference field.
    let mut offsets = Vec::new();
    let mut sup = c::OBJECT;
    for k in 0..1500u64 {
        let id = 0x100000 + 8 * k;
        offsets.push(h.len() + 9 + seg.len());
        seg.class_dump(&ClassDef::new(id, sup).field(s::NEXT, 2));
        sup = id;
    }
    h.segment(&seg);
    let run = analyze("deep", "deep.hprof", h.bytes(), &[]);
    // The first class found too deep is the 1000th of the chain (Object is at depth 0).
    let id = 0x100000 + 8 * 999;
    assert_error(
        &run,
        "deep hierarchy",
        offsets[999],
        &[&format!(
            "class unknown-name@0x{id:x} (0x{id:x}) has more than 1000 super classes; expected a Java class hierarchy"
        )],
    );
    assert!(run.report.is_none());
}

#[test]
fn references_to_absent_objects() {
    let mut h = base_records();
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(c::OBJECT, 0));
    for id in [c::CLASS, c::LOADER, c::OBJ_ARRAY, c::INT_ARRAY, c::THREAD] {
        seg.class_dump(&ClassDef::new(id, c::OBJECT));
    }
    seg.class_dump(&ClassDef::new(c::NODE, c::OBJECT).field(s::NEXT, 2).field(s::VALUE, 10));
    // A static pointing nowhere.
    seg.class_dump(&ClassDef::new(c::HOLDER, c::OBJECT).static_field(s::ROOT, Value::Obj(0xdead0)));
    base_roots(&mut seg);
    seg.root_unknown(0xdead8); // a root naming nothing
    seg.instance(T1, c::THREAD, &[]);
    node(&mut seg, N1, N2, 1);
    node(&mut seg, N2, 0xdeae0, 2); // a field pointing nowhere
    node(&mut seg, N3, N1, 3);
    seg.object_array(A1, c::OBJ_ARRAY, &[N1, N2, 0xdeae8]); // an element pointing nowhere
    seg.primitive_array(P1, 10, 4);
    h.segment(&seg);
    let run = analyze("absent", "absent.hprof", h.bytes(), &[]);
    assert_ok(&run, "references to absent objects");
    assert!(
        has_warning(&run, "3 references point to objects that are not in the dump; they were ignored"),
        "{:?}",
        run.warnings()
    );
    assert!(has_warning(&run, "1 GC root records name objects that are not in the dump"), "{:?}", run.warnings());
    assert_base_numbers(&run, "references to absent objects");
}

#[test]
fn duplicate_object_ids_first_definition_wins() {
    let mut h = base_records();
    let mut seg = base_segment(&h);
    // N1 again, as a big int array; the JNI-global array again, empty; a class again.
    seg.primitive_array(N1, 10, 1000);
    seg.object_array(A1, c::OBJ_ARRAY, &[]);
    let dup_class_at = h.len() + 9 + seg.len();
    seg.class_dump(
        &ClassDef::new(c::HOLDER, c::OBJECT)
            .static_field(s::ROOT, Value::Obj(N1))
            .static_field(s::NEXT, Value::Long(1)),
    );
    h.segment(&seg);
    let run = analyze("dup", "dup.hprof", h.bytes(), &[]);
    assert_ok(&run, "duplicate ids");
    assert!(
        has_warning(&run, "3 objects are defined more than once; the first definition of each was used"),
        "{:?}",
        run.warnings()
    );
    assert!(
        has_warning(
            &run,
            &format!(
                "class 0x{:x} is dumped twice (again at byte {dup_class_at}); the first definition is used",
                c::HOLDER
            )
        ),
        "{:?}",
        run.warnings()
    );
    // The numbers are the base dump's: the second definitions changed nothing.
    assert_base_numbers(&run, "duplicate ids");
    let hist = run.report()["histogram"].as_array().unwrap();
    let node = hist.iter().find(|r| r["class_name"] == "Node").expect("Node row");
    assert_eq!(node["instances"], 3);
    assert!(
        hist.iter().all(|r| r["class_name"] != "int[]" || r["instances"] == 0),
        "the duplicate int[] is not counted"
    );
}

#[test]
fn class_without_load_class_name() {
    let mut h = base_records();
    let mut seg = base_segment(&h);
    // A class nobody named, with an instance held by a root.
    seg.class_dump(&ClassDef::new(0x10050, c::OBJECT).field(s::VALUE, 11));
    seg.instance(0x30000, 0x10050, &[Value::Long(7)]);
    seg.root_unknown(0x30000);
    h.segment(&seg);
    let run = analyze("noname", "noname.hprof", h.bytes(), &[]);
    assert_ok(&run, "class without a name");
    let hist = run.report()["histogram"].as_array().unwrap();
    let row = hist.iter().find(|r| r["class_address"] == "0x10050").expect("a row for the unnamed class");
    assert_eq!(row["class_name"], "unknown-name@0x10050");
    assert_eq!(row["instances"], 1);
    assert_eq!(row["shallow_bytes"], 24); // 16 + a long
    assert_eq!(run.overview("objects"), BASE_OBJECTS + 2);
}

#[test]
fn instances_of_an_undefined_class() {
    let mut h = base_dump_open();
    let mut seg = h.segment_builder();
    seg.instance(0x30000, 0x77770, &[Value::Int(1)]);
    seg.object_array(0x30010, 0x77778, &[N1]);
    seg.root_unknown(0x30000);
    h.segment(&seg);
    let run = analyze("undefined-class", "u.hprof", h.bytes(), &[]);
    assert_ok(&run, "undefined class");
    assert!(
        has_warning(&run, "1 objects have class 0x77770, which the dump does not define; they were left out"),
        "{:?}",
        run.warnings()
    );
    assert!(has_warning(&run, "1 objects have class 0x77778, which the dump does not define"), "{:?}", run.warnings());
    assert_base_numbers(&run, "undefined class");
}

#[test]
fn dump_cut_in_the_middle_of_a_heap_segment() {
    let mut h = base_records();
    let mut seg = h.segment_builder();
    base_classes(&mut seg);
    base_roots(&mut seg);
    seg.instance(T1, c::THREAD, &[]);
    node(&mut seg, N1, N2, 1);
    node(&mut seg, N2, 0, 2);
    let n3 = seg.len();
    node(&mut seg, N3, N1, 3);
    seg.object_array(A1, c::OBJ_ARRAY, &[N1, N2, 0]);
    let body = h.len() + 9;
    h.segment(&seg);
    let n3_at = body + n3;
    let n3_fields = n3_at + 1 + 8 + 4 + 8 + 4;

    // Cut inside N3's field values.
    let cut = &h.bytes()[..(n3_fields + 5) as usize];
    let run = analyze("cut-mid", "cut.hprof", cut, &[]);
    assert_partial(
        &run,
        "cut inside an instance's fields",
        n3_fields,
        &["file ends 5 bytes into the fields of an INSTANCE DUMP of 12 bytes"],
    );
    // Read: the 8 classes, T1, N1, N2 (3 instance records). N1 and N2 were held by N3
    // and A1, which are past the cut: unreachable only because the dump ends early, so
    // they are kept (each entry point a root), and the triage gives no verdict.
    assert_eq!(run.overview("records.instances"), 3);
    assert_eq!(run.overview("records.classes"), 8);
    assert_eq!(run.overview("records.object_arrays"), 0);
    assert_eq!(run.overview("objects"), 12);
    assert_eq!(run.overview("unreachable.objects"), 0);
    // Each Node: a 16-byte header (8-byte ids, no compressed references), an 8-byte
    // reference and a 4-byte int, aligned to 8.
    assert_eq!(run.overview("used_heap_bytes"), 8 + 16 + 16 + 2 * 32);
    let triage = &run.report()["oom_triage"];
    assert_eq!(triage["verdict"], "incomplete");
    assert_eq!(triage["cut"]["offset"].as_u64(), Some(n3_fields));
    assert_eq!(triage["cut"]["unrooted_objects"].as_u64(), Some(2));

    // Cut inside N3's record head.
    let cut = &h.bytes()[..(n3_at + 7) as usize];
    let run = analyze("cut-head", "cut.hprof", cut, &[]);
    assert_partial(
        &run,
        "cut inside an instance's head",
        n3_at,
        &["file ends after 7 more bytes, expected 25 bytes of an INSTANCE DUMP record"],
    );
    assert_eq!(run.overview("records.instances"), 3);

    // Cut right after N3: N1, N2 and N3 are reachable through the thread.
    let cut = &h.bytes()[..(n3_fields + 12) as usize];
    let run = analyze("cut-after", "cut.hprof", cut, &[]);
    assert_partial(&run, "cut after an instance", n3_fields + 12, &["file ends inside a heap dump segment"]);
    assert_eq!(run.overview("records.instances"), 4);
    assert_eq!(run.overview("objects"), 8 + 1 + 1 + 3);

    // And with unreachable objects kept.
    let cut = &h.bytes()[..(n3_fields + 5) as usize];
    let run = analyze("cut-keep", "cut.hprof", cut, &["--keep-unreachable"]);
    assert_partial(&run, "cut, keeping unreachable objects", n3_fields, &["INSTANCE DUMP"]);
    assert_eq!(run.overview("objects"), 12);
}

#[test]
fn cut_at_every_offset_of_a_small_dump() {
    // Every prefix of the base dump: status 0 or 1, and 1 exactly when it is not whole.
    let bytes = base_dump().into_bytes();
    let dir = TempDir::new("robust-every-cut");
    let dump = dir.path().join("cut.hprof");
    let out = dir.path().join("out.json");
    // Top-level record boundaries: a cut there leaves a whole (shorter) dump.
    let mut boundaries = vec![31usize];
    while let Some(&at) = boundaries.last().filter(|&&at| at < bytes.len()) {
        let len = u32::from_be_bytes(bytes[at + 5..at + 9].try_into().unwrap()) as usize;
        boundaries.push(at + 9 + len);
    }
    let mut last_objects = 0;
    for cut in 0..=bytes.len() {
        std::fs::write(&dump, &bytes[..cut]).unwrap();
        let _ = std::fs::remove_file(&out);
        let run = heapscope(
            &["analyze", dump.to_str().unwrap(), "--format", "json", "-o", out.to_str().unwrap()],
            dir.path(),
            MEMORY_LIMIT_KIB,
        );
        let what = format!("base dump cut at {cut} of {}", bytes.len());
        assert_sane(&run, &what);
        let whole = boundaries.contains(&cut);
        assert_eq!(run.code, Some(if whole { 0 } else { 1 }), "{what}: {}", run.stderr);
        if cut >= 31 {
            // Past the header, a report is always written, and it never shrinks as the cut moves on.
            let report: Json =
                serde_json::from_str(&std::fs::read_to_string(&out).unwrap_or_else(|_| panic!("{what}: no report")))
                    .unwrap();
            let read = report["overview"]["records"]["instances"].as_u64().unwrap();
            assert!(read >= last_objects, "{what}: fewer records than a shorter cut");
            last_objects = read;
        } else {
            assert!(run.error_line().contains("at byte "), "{what}: {}", run.error_line());
        }
    }
}

/// An ART-style dump: 4-byte ids, HEAP DUMP INFO, every ART root kind, a 0xC3 array.
fn android_dump() -> Hprof {
    let mut h = Hprof::android();
    base_strings(&mut h);
    h.string(200, "app");
    base_load_classes(&mut h);
    let mut seg = h.segment_builder();
    seg.heap_dump_info(0x41, 200);
    base_classes(&mut seg);
    base_roots(&mut seg);
    base_objects(&mut seg);
    seg.art_root(0x89, N2)
        .art_root(0x8A, N2)
        .art_root(0x8B, N2)
        .art_root(0x8C, N2)
        .art_root(0x8D, N2)
        .art_root(0x90, N2);
    seg.art_jni_monitor(N2, 1, 0);
    seg.primitive_array_nodata(0x30000, 8, 100);
    seg.root_unknown(0x30000);
    seg.root_monitor_used(N1).root_native_stack(N1, 7).root_thread_block(N1, 7).root_jni_local(N1, 7, 0);
    h.segment(&seg);
    h
}

#[test]
fn android_dump_with_art_records() {
    let h = android_dump();
    let run = analyze("android", "art.hprof", h.bytes(), &[]);
    assert_ok(&run, "ART dump");
    let names: Vec<String> = run.report()["overview"]["gc_roots_by_type"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    for kind in [
        "Interned String",
        "Finalizing",
        "Debugger",
        "Reference Cleanup",
        "VM Internal",
        "ART Unreachable",
        "Busy Monitor",
        "JNI Local",
        "Native Stack",
        "Thread Block",
    ] {
        assert!(names.iter().any(|n| n == kind), "no {kind} root in {names:?}");
    }
}

#[test]
fn gzip_cut_in_half() {
    // A dump big enough that half of its gzip holds many whole records.
    let mut h = base_records();
    let mut seg = h.segment_builder();
    base_classes(&mut seg);
    base_roots(&mut seg);
    seg.instance(T1, c::THREAD, &[]);
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let n = 4000u64;
    for k in 0..n {
        let id = 0x40000 + 0x48 * k;
        let next = if k + 1 < n { id + 0x48 } else { 0 };
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        node(&mut seg, id, next, x as i32);
        seg.root_unknown(id);
    }
    h.segment(&seg);
    let full = analyze("gz-full", "d.hprof.gz", &gzip(h.bytes()), &[]);
    assert_ok(&full, "whole gzip");
    assert_eq!(full.overview("records.instances"), n + 1);

    let gz = gzip(h.bytes());
    let run = analyze("gz-half", "d.hprof.gz", &gz[..gz.len() / 2], &[]);
    assert_sane(&run, "gzip cut in half");
    assert_eq!(run.code, Some(1));
    let line = run.error_line();
    assert!(line.contains("gzip data ends before its last deflate block (the file is truncated)"), "{line}");
    assert!(line.contains("at byte "), "{line}");
    let r = run.report();
    assert_eq!(r["complete"], Json::Bool(false));
    let read = run.overview("records.instances");
    assert!(read > n / 4 && read < n, "a partial report of the first half: {read} of {n} instances");
    assert_eq!(r["source"]["gzip"], Json::Bool(true));
}

#[test]
fn gzip_with_trailing_garbage() {
    let base = base_dump();
    let mut gz = gzip(base.bytes());
    let gz_len = gz.len();
    let garbage = b"\0\0garbage after the gzip member\n";
    gz.extend_from_slice(garbage);
    let run = analyze("gz-garbage", "d.hprof.gz", &gz, &[]);
    assert_ok(&run, "gzip with trailing garbage");
    assert_base_numbers(&run, "gzip with trailing garbage");
    assert!(
        has_warning(
            &run,
            &format!(
                "{} bytes after the end of the gzip data (at compressed byte {gz_len}) were ignored",
                garbage.len()
            )
        ),
        "{:?}",
        run.warnings()
    );

    // Garbage that starts like a second gzip member: a broken member, so the dump is
    // marked incomplete at its end, with every record of the first member read.
    let mut gz = gzip(base.bytes());
    gz.extend_from_slice(&[0x1f, 0x8b, 8, 0, 1, 2]);
    let run = analyze("gz-garbage2", "d.hprof.gz", &gz, &[]);
    assert_partial(&run, "gzip with a broken second member", base.len(), &["truncated gzip header"]);
    assert_base_numbers(&run, "gzip with a broken second member");
}

/// The base dump in two gzip members (stored blocks, so bytes can be changed in place
/// without breaking the deflate stream), the second holding the heap segment; `corrupt`
/// is applied to the second member. Returns the file and where member 2 starts.
fn two_member_gzip(corrupt: impl Fn(&mut Vec<u8>)) -> (Vec<u8>, usize) {
    let base = base_dump();
    let split = base.bytes().windows(6).position(|w| w == b"Holder").expect("Holder's name") - 4;
    let mut gz = support::gzip_stored(&base.bytes()[..split]);
    let member2 = gz.len();
    let mut second = support::gzip_stored(&base.bytes()[split..]);
    corrupt(&mut second);
    gz.extend(second);
    (gz, member2)
}

#[test]
fn gzip_member_whose_crc_or_size_does_not_match_is_an_error() {
    let base_len = base_dump().len();
    let (gz, _) = two_member_gzip(|_| {});
    let run = analyze("gz-crc-ok", "d.hprof.gz", &gz, &[]);
    assert_ok(&run, "two stored members");
    assert_base_numbers(&run, "two stored members");
    // Member 2 starts with the string record holding "Holder" (its id, then the text at
    // 15 + 9 + 8): "Holder" -> "Holdes" still parses, and only the CRC can tell.
    type Corrupt = fn(&mut Vec<u8>);
    let cases: [(&str, Corrupt, &str); 3] = [
        ("a byte of the data", |m| m[15 + 9 + 8 + 5] ^= 1, "its data has CRC-32"),
        (
            "the CRC-32",
            |m| {
                let at = m.len() - 8;
                m[at] ^= 0x80
            },
            "its data has CRC-32",
        ),
        (
            "the size",
            |m| {
                let at = m.len() - 4;
                m[at] = m[at].wrapping_add(1)
            },
            "its trailer says",
        ),
    ];
    for (what, corrupt, says) in cases {
        let (gz, member2) = two_member_gzip(corrupt);
        let run = analyze("gz-crc", "d.hprof.gz", &gz, &[]);
        assert_sane(&run, what);
        assert_eq!(run.code, Some(1), "{what} corrupted: expected exit status 1; stderr:\n{}", run.stderr);
        assert!(run.report.is_none(), "{what} corrupted: no report of corrupt data");
        let line = run.error_line();
        let trailer = gz.len() - 8;
        for part in [
            "heapscope: ",
            "d.hprof.gz: ",
            &format!("at byte {base_len} "),
            &format!("gzip member 2 (starting at compressed byte {member2}) is corrupt"),
            &format!("trailer at compressed byte {trailer}"),
            says,
        ] {
            assert!(line.contains(part), "{what} corrupted: {part:?} not in {line}");
        }
    }
}

#[test]
fn unreadable_inputs_and_usage_errors() {
    let dir = TempDir::new("robust-usage");
    let missing = dir.path().join("missing.hprof");
    let run = heapscope(&["analyze", missing.to_str().unwrap()], dir.path(), MEMORY_LIMIT_KIB);
    assert_sane(&run, "missing file");
    assert_eq!(run.code, Some(1));
    assert!(run.error_line().contains("cannot open"), "{}", run.error_line());
    let run = heapscope(&["analyze", dir.path().to_str().unwrap()], dir.path(), MEMORY_LIMIT_KIB);
    assert_sane(&run, "a directory");
    assert_eq!(run.code, Some(1));
    for args in [&["analyze"][..], &["frobnicate", "x"], &["analyze", "x", "--format", "xml"], &["parity", "x"]] {
        let run = heapscope(args, dir.path(), MEMORY_LIMIT_KIB);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn report_format_follows_the_flag_then_the_extension() {
    let dir = TempDir::new("robust-formats");
    let dump = dir.path().join("d.hprof");
    std::fs::write(&dump, base_dump().into_bytes()).unwrap();
    let cases: [(&str, Option<&str>, &str); 6] = [
        ("r.md", None, "# Heap dump analysis: d.hprof\n"),
        ("r.json", None, "{\n  \"schema_version\""),
        ("r.html", None, "<!DOCTYPE html>\n"),
        ("r.HTM", None, "<!DOCTYPE html>\n"),
        ("r.txt", None, "# Heap dump analysis: d.hprof\n"),
        ("r.txt", Some("html"), "<!DOCTYPE html>\n"),
    ];
    for (name, format, start) in cases {
        let out = dir.path().join(name);
        let mut args = vec!["analyze", dump.to_str().unwrap(), "-o", out.to_str().unwrap()];
        if let Some(f) = format {
            args.extend(["--format", f]);
        }
        let run = heapscope(&args, dir.path(), MEMORY_LIMIT_KIB);
        assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.starts_with(start), "{args:?} wrote {:?}", &text[..text.len().min(80)]);
    }
}

/// Writes the synthetic dumps as seeds for the fuzz targets (../fuzz/seeds):
/// `cargo test --release --test robustness -- --ignored write_fuzz_seeds`.
#[test]
#[ignore]
fn write_fuzz_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds");
    std::fs::create_dir_all(&dir).unwrap();
    let base = base_dump().into_bytes();
    let android = android_dump().into_bytes();
    std::fs::write(dir.join("base.hprof"), &base).unwrap();
    std::fs::write(dir.join("android.hprof"), &android).unwrap();
    std::fs::write(dir.join("base.hprof.gz"), gzip(&base)).unwrap();
    std::fs::write(dir.join("base-cut.hprof"), &base[..base.len() * 3 / 4]).unwrap();
    eprintln!("seeds written to {}", dir.display());
}

// ---------------------------------------------------------------------------------------
// Corpus mutation

/// xorshift64*: a fixed sequence for a fixed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    Cut(usize),
    Overwrite(usize, Vec<u8>),
}

impl Mutation {
    fn apply(&self, original: &[u8]) -> Vec<u8> {
        match self {
            Mutation::Cut(at) => original[..*at].to_vec(),
            Mutation::Overwrite(at, bytes) => {
                let mut v = original.to_vec();
                let end = (*at + bytes.len()).min(v.len());
                v[*at..end].copy_from_slice(&bytes[..end - at]);
                v
            }
        }
    }
}

/// Cut offsets: evenly spread, the header's and first records' boundaries, seeded random
/// ones; overwrites: seeded offsets (half of them among the first records, where the
/// strings, classes and segment headers are), 1–16 bytes of random, 0x00 or 0xFF.
///
/// `HEAPSCOPE_ROBUST_SCALE=N` multiplies the seeded cuts and overwrites (and changes the
/// seed) for a longer hunt; the default run is 1.
fn mutations(len: usize, seed: u64) -> Vec<Mutation> {
    let scale: u64 = std::env::var("HEAPSCOPE_ROBUST_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let mut rng = Rng(seed.wrapping_mul(scale));
    let mut cuts: Vec<usize> = (0..48).map(|k| k * len / 48).collect();
    cuts.extend([1, 17, 18, 19, 23, 30, 31, 32, 35, 39, 40, len - 1]);
    cuts.extend((0..24 * scale).map(|_| rng.below(len as u64) as usize));
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: Vec<Mutation> = cuts.into_iter().map(Mutation::Cut).collect();
    for k in 0..80 * scale {
        let at = if k % 2 == 0 { rng.below(len as u64) } else { rng.below((len as u64).min(256 << 10)) } as usize;
        let n = 1 + rng.below(16) as usize;
        let bytes: Vec<u8> = match rng.below(4) {
            0 => vec![0xFF; n],
            1 => vec![0x00; n],
            _ => (0..n).map(|_| rng.next() as u8).collect(),
        };
        out.push(Mutation::Overwrite(at, bytes));
    }
    out
}

/// Runs every mutation of `original` on two threads; returns the failures.
fn run_mutations(name: &str, original: &[u8], list: &[Mutation]) -> Vec<String> {
    let failures = std::sync::Mutex::new(Vec::new());
    let statuses = std::sync::Mutex::new([0usize; 2]);
    std::thread::scope(|scope| {
        for part in 0..2 {
            let (failures, statuses) = (&failures, &statuses);
            scope.spawn(move || {
                let dir = TempDir::new(&format!("mutate-{name}-{part}"));
                let dump = dir.path().join(format!("{name}.hprof"));
                let out = dir.path().join("out.md");
                for m in list.iter().skip(part).step_by(2) {
                    std::fs::write(&dump, m.apply(original)).expect("mutated dump written");
                    let run = heapscope(
                        &["analyze", dump.to_str().unwrap(), "-o", out.to_str().unwrap()],
                        dir.path(),
                        512 << 10,
                    );
                    let ok =
                        !run.timed_out && !run.stderr.contains("panicked") && matches!(run.code, Some(0) | Some(1));
                    if ok {
                        statuses.lock().unwrap()[run.code.unwrap() as usize] += 1;
                        // A status-1 run names a byte offset (bad input) or says why.
                        if run.code == Some(1) && !run.error_line().starts_with("heapscope: ") {
                            failures
                                .lock()
                                .unwrap()
                                .push(format!("{name} {m:?}: unexpected last stderr line {:?}", run.error_line()));
                        }
                    } else {
                        let stderr: String = run.stderr.chars().take(2000).collect();
                        failures.lock().unwrap().push(format!(
                            "{name} {m:?}: status {:?}, timed out {}; stderr:\n{stderr}",
                            run.code, run.timed_out
                        ));
                    }
                }
            });
        }
    });
    let [ok, bad] = *statuses.lock().unwrap();
    eprintln!("{name}: {} mutations, {ok} exit 0, {bad} exit 1", list.len());
    failures.into_inner().unwrap()
}

fn corpus_dump(relative: &str) -> Option<(PathBuf, Vec<u8>)> {
    let corpus = support::corpus_dir()?;
    let path = corpus.join(relative);
    assert!(path.exists(), "{} is not in the corpus", path.display());
    let bytes = support::gunzip(&path);
    Some((path, bytes))
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn corpus_dumps_cut_and_overwritten() {
    let mut failures = Vec::new();
    let mut total = 0;
    for (name, relative, seed) in [
        ("s01", "dumps/s01_hello_serial_live.hprof.gz", 0x5EED_0001u64),
        ("ahat", "android/ahat_test_dump_8e3b7d7.hprof.gz", 0x5EED_0002),
    ] {
        let Some((_, original)) = corpus_dump(relative) else { return };
        let list = mutations(original.len(), seed);
        assert!(list.iter().filter(|m| matches!(m, Mutation::Cut(_))).count() >= 64);
        assert!(list.iter().filter(|m| matches!(m, Mutation::Overwrite(..))).count() >= 64);
        total += list.len();
        failures.extend(run_mutations(name, &original, &list));
    }
    assert!(failures.is_empty(), "{} of {total} mutated dumps failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn corpus_gzip_cut() {
    // The compressed file itself cut at a few places: the gzip reader's truncation path.
    let Some(corpus) = support::corpus_dir() else { return };
    let gz = std::fs::read(corpus.join("dumps/s01_hello_serial_live.hprof.gz")).expect("corpus gzip");
    let mut rng = Rng(0x5EED_0003);
    let mut list: Vec<Mutation> = [1usize, 2, 9, 10, 11, 20, gz.len() / 2, gz.len() - 8, gz.len() - 4, gz.len() - 1]
        .into_iter()
        .map(Mutation::Cut)
        .collect();
    list.extend((0..6).map(|_| Mutation::Cut(rng.below(gz.len() as u64) as usize)));
    list.extend((0..8).map(|_| {
        Mutation::Overwrite(rng.below(gz.len() as u64) as usize, vec![rng.next() as u8; 1 + rng.below(8) as usize])
    }));
    let failures = run_mutations("s01-gz", &gz, &list);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
