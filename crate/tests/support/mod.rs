//! Shared helpers of the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod dump;
pub mod hprof_builder;
pub mod listener_leak;
pub mod mat_strings;
pub mod placed;

use heapscope::source::{auto_decompress, ByteSource, FileSource, GzipSource, MemorySource};

/// `../shared/corpus` beside the repository: every corpus test starts with this.
///
/// When the corpus is absent: in CI (`CI` set, not "false" or "0") the test fails, since
/// a CI run must not pass without the checks against MAT; elsewhere the test is skipped
/// visibly. The corpus tests carry `#[cfg_attr(heapscope_no_corpus, ignore = ...)]`
/// (the flag is set by `build.rs` when the corpus is absent), so the harness lists them
/// as ignored; a test that runs anyway (`--ignored`, a corpus removed since the build)
/// prints a SKIPPED line straight to stderr, which the harness does not capture.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if dir.join("expected").is_dir() {
        return Some(dir.canonicalize().unwrap_or(dir));
    }
    let test = std::thread::current().name().unwrap_or("a corpus test").to_string();
    let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"));
    assert!(
        !ci,
        "{test}: the shared corpus is not at {} and CI is set: corpus tests must not be skipped in CI",
        dir.display()
    );
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIPPED (no corpus): {test}: the shared corpus is not at {}",
        dir.display()
    );
    None
}

/// Every gzip'd dump of the corpus (`dumps/` and `android/`), sorted; fails when there is none.
pub fn corpus_dumps(corpus: &Path) -> Vec<PathBuf> {
    let mut dumps: Vec<PathBuf> = ["dumps", "android"]
        .iter()
        .flat_map(|d| std::fs::read_dir(corpus.join(d)).unwrap().filter_map(|e| Some(e.ok()?.path())))
        .filter(|p| p.to_string_lossy().ends_with(".hprof.gz"))
        .collect();
    dumps.sort();
    assert!(!dumps.is_empty(), "no dumps in {}", corpus.display());
    dumps
}

pub fn open_dump(path: &Path) -> Box<dyn ByteSource> {
    auto_decompress(Box::new(FileSource::open(path).expect("dump opens"))).expect("dump readable")
}

/// The decompressed bytes of a gzip file.
pub fn gunzip(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).expect("file readable");
    let mut src = GzipSource::new(Box::new(MemorySource::new(bytes)));
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = src.read(&mut buf).expect("valid gzip");
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// A temporary directory removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "heapscope-test-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A one-member gzip file whose deflate stream is one stored block (RFC 1951 BTYPE 00),
/// so a test can place bytes of the member exactly; `data` must be under 64 KiB.
pub fn gzip_stored(data: &[u8]) -> Vec<u8> {
    assert!(data.len() < 0xffff, "one stored block holds less than 64 KiB");
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    out.push(1); // BFINAL, BTYPE 00
    out.extend_from_slice(&(data.len() as u16).to_le_bytes());
    out.extend_from_slice(&(!(data.len() as u16)).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// CRC-32 (IEEE, reflected) bit by bit: the definition, independent of the crate's.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Corpus dumps that have no MAT expected file (none today). The tests that compare every
/// dump with MAT check that exactly these lack one ([`check_every_dump_expected`]).
pub const DUMPS_WITHOUT_EXPECTED: &[&str] = &[];

/// Fails unless the corpus's dumps without an expected file are exactly
/// [`DUMPS_WITHOUT_EXPECTED`], and says which are compared and which are not.
pub fn check_every_dump_expected(corpus: &Path, what: &str) {
    let without = dumps_without_expected(corpus);
    assert_eq!(
        without, DUMPS_WITHOUT_EXPECTED,
        "{what}: corpus dumps without MAT's expected file: add the file, or list the dump in DUMPS_WITHOUT_EXPECTED"
    );
    eprintln!(
        "{what}: every corpus dump has MAT's expected file except {DUMPS_WITHOUT_EXPECTED:?} (listed, not compared)"
    );
}

/// The corpus's dumps (`dumps/` and `android/`, by name without `.hprof.gz`) that no
/// expected file describes, sorted: a test comparing every dump with MAT lists these
/// explicitly, so that a dump added without MAT's numbers is never skipped unseen.
pub fn dumps_without_expected(corpus: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["dumps", "android"] {
        for e in std::fs::read_dir(corpus.join(dir)).expect("corpus dumps are readable") {
            let name = e.expect("a directory entry").file_name().to_string_lossy().to_string();
            let Some(base) = name.strip_suffix(".hprof.gz") else { continue };
            if !corpus.join("expected").join(format!("{base}.json")).exists() {
                out.push(base.to_string());
            }
        }
    }
    out.sort();
    out
}

/// (expected file, dump, keep unreachable, Android) for every expected file with a dump.
pub fn expected_cases(corpus: &Path) -> Vec<(PathBuf, PathBuf, bool, bool)> {
    let mut names: Vec<String> = std::fs::read_dir(corpus.join("expected"))
        .expect("expected/ is readable")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for file in names {
        let stem = file.trim_end_matches(".json");
        let (base, keep) = match stem.strip_suffix(".keep") {
            Some(b) => (b, true),
            None => (stem, false),
        };
        for (dir, android) in [("dumps", false), ("android", true)] {
            let dump = corpus.join(dir).join(format!("{base}.hprof.gz"));
            if dump.exists() {
                out.push((corpus.join("expected").join(&file), dump, keep, android));
            }
        }
    }
    out
}

/// A leak trace's marks checked against the definition of domination: step `x` is marked
/// exactly when it is not the object and removing it cuts the object off (`cut(x)`), and
/// the lowest marked step is the object's immediate dominator in `idom`. Returns the marks.
pub fn check_trace_marks(idom: &[u32], trace: &[u32], cut: impl Fn(u32) -> bool) -> Vec<bool> {
    let obj = *trace.last().expect("a trace ends at its object");
    let m = heapscope::holders::ways::marks(&idom.to_vec(), trace);
    for (i, &x) in trace.iter().enumerate() {
        assert_eq!(m[i], x != obj && cut(x), "step {i} ({x}) of {trace:?}");
    }
    let lowest = trace.iter().zip(&m).rev().find(|(_, &d)| d).map(|(&x, _)| x);
    let d = idom[obj as usize];
    assert_eq!(
        lowest,
        (d != heapscope::dominators::VIRTUAL_ROOT).then_some(d),
        "the lowest marked step of {trace:?} is the dominator"
    );
    m
}

/// A session over `source` (see `heapscope::session`): the analysis with its features.
pub fn session(
    source: Box<dyn ByteSource>,
    options: &heapscope::analysis::Options,
) -> heapscope::error::Result<heapscope::session::Session> {
    let info = heapscope::report::SourceInfo::default();
    heapscope::session::Session::open(source, options, &mut heapscope::analysis::NoProgress, info)
}

/// A session over the dump `bytes`, with the default options.
pub fn session_of(bytes: Vec<u8>) -> heapscope::session::Session {
    session(Box::new(MemorySource::new(bytes)), &Default::default()).expect("analysis")
}

/// The core analysis of `source` alone (no feature collects along it).
pub fn core(
    source: Box<dyn ByteSource>,
    options: &heapscope::analysis::Options,
) -> heapscope::error::Result<heapscope::analysis::Analysis> {
    heapscope::analysis::analyze(source, options, &mut heapscope::analysis::NoProgress, &mut ())
}

/// The report of a session's analysis with its features, as `report::build` makes it
/// (without what `report::annotate` adds from the dump; `session.report()` has that too).
pub fn built_report(
    s: &heapscope::session::Session,
    info: &heapscope::report::SourceInfo,
) -> heapscope::report::Report {
    let f = s.features();
    let heaps = heapscope::heaps::summarize(&s.analysis, &f.heaps);
    let sections = heapscope::report::Sections {
        threads: &f.threads,
        waste: &f.waste,
        allocation_sites: &f.allocation_sites,
        heaps: heaps.as_ref(),
        leaks: f.leaks.as_ref(),
    };
    heapscope::report::build(&s.analysis, &sections, info)
}

/// The report of the core analysis `a` alone: no feature's section (threads, waste,
/// allocation sites, heaps).
pub fn core_report(a: &heapscope::analysis::Analysis) -> heapscope::report::Report {
    let (waste, sites) = (Default::default(), Default::default());
    let sections =
        heapscope::report::Sections { threads: &[], waste: &waste, allocation_sites: &sites, heaps: None, leaks: None };
    heapscope::report::build(a, &sections, &Default::default())
}
