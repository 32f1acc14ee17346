//! What the hand-run examples share: opening a dump named on the command line, and the
//! process's CPU time. (A folder without `main.rs`: Cargo does not build it as an example.)
// Each example compiles this module on its own and uses part of it.
#![allow(dead_code)]

use heapscope::source::{auto_decompress, ByteSource, FileSource};

/// The dump at `path`, gzip'd or not; panics with a message when it cannot be read.
pub fn open_dump(path: &str) -> Box<dyn ByteSource> {
    auto_decompress(Box::new(FileSource::open(std::path::Path::new(path)).expect("the dump opens")))
        .expect("the dump is readable")
}

/// CPU seconds (user + system) this process has used, from `/proc/self/stat` (0 elsewhere).
pub fn cpu_seconds() -> f64 {
    let (user, sys) = cpu_user_sys();
    user + sys
}

/// CPU seconds this process has used, user and system apart (0 elsewhere).
pub fn cpu_user_sys() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) / 100.0, ticks(12) / 100.0)
}
