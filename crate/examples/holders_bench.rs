//! Hand-run benchmark of the questions about what holds an object, on one dump.
//!
//! ```text
//! cargo build --release -p heapscope --example holders_bench
//! target/release/examples/holders_bench /work/big/big-1g.hprof [ADDRESS]
//! ```
//!
//! After the analysis: the referrer index build (CPU seconds, peak resident memory added,
//! the index's own bytes), listing the referrers of the object with the most of them and
//! of 1,000 objects spread over the dump (the 20 retaining the most, as the inspector
//! asks), a leak trace with up to 10 independent paths per stretch (of ADDRESS, or of the
//! heaviest top-level dominator that is not a GC root and has two referrers or more), and
//! the first two levels of classes up (every class row and the rows directly above each).

use std::time::Instant;

use heapscope::analysis::{NoProgress, Options};
use heapscope::holders::Cache;
use heapscope::model::Reading;
use heapscope::query::holders::{classes_up, paths};
use heapscope::query::referrers::referrers;

mod common;
use common::cpu_seconds;

fn status_kib(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dump = args.get(1).expect("usage: holders_bench DUMP [ADDRESS]");
    let src = common::open_dump(dump);
    let t = Instant::now();
    // A session, as the page and the command line run the analysis (with its features).
    let mut session = heapscope::session::Session::open(src, &Options::default(), &mut NoProgress, Default::default())
        .expect("analysis");
    let a = &mut session.analysis;
    println!("analysis: {} objects, {:.1} s wall", a.object_count(), t.elapsed().as_secs_f64());

    // Referrer index: CPU time and the peak it adds over what the analysis holds.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let rss_before = status_kib("VmRSS:") * 1024;
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    let mut cache = Cache::default();
    let index = cache.index(a, Reading::Mat).expect("index");
    let (cpu, wall) = (cpu_seconds() - cpu, wall.elapsed().as_secs_f64());
    let peak = status_kib("VmHWM:") * 1024;
    println!(
        "referrer index: {:.2} CPU-s ({wall:.2} s wall, {} scans), {} references, index {:.1} MiB ({:.2} B/object), peak +{:.1} MiB over the analysis ({:.1} MiB before)",
        cpu,
        index.scans,
        index.reference_count(),
        mib(index.memory_bytes() as u64),
        index.memory_bytes() as f64 / a.object_count() as f64,
        mib(peak.saturating_sub(rss_before)),
        mib(rss_before)
    );

    // The object with the most referrers, and 1,000 spread over the dump.
    let n = a.object_count() as u32;
    let mut most = (0u64, 0u32);
    for v in 0..n {
        let mut k = 0u64;
        index.for_each_referrer(v, |_| k += 1);
        if k > most.0 {
            most = (k, v);
        }
    }
    let t = Instant::now();
    let r = referrers(a, index, most.1, 20);
    println!(
        "referrers of 0x{:x} ({}, the most referenced: {}): {:.1} ms",
        a.address(most.1),
        a.class_name(a.class_of(most.1)),
        r.total,
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut times: Vec<f64> = Vec::new();
    for k in 0..1000u32 {
        let v = (k as u64 * n as u64 / 1000) as u32;
        if !a.is_kept(v) {
            continue;
        }
        let t = Instant::now();
        let _ = referrers(a, index, v, 20);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "referrers of {} objects spread over the dump: median {:.3} ms, max {:.3} ms",
        times.len(),
        times[times.len() / 2],
        times[times.len() - 1]
    );

    // A leak trace and the independent paths of its stretches.
    let obj = match args.get(2) {
        Some(s) => heapscope::query::object(a, s).expect("ADDRESS names a kept object"),
        None => *a
            .top_level()
            .iter()
            .find(|&&v| {
                let mut k = 0;
                index.for_each_referrer(v, |_| k += 1);
                k >= 2 && !index.is_root(v)
            })
            .expect("a shared top-level dominator"),
    };
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let p = paths(a, index, obj, 10).unwrap();
    println!(
        "paths of 0x{:x} ({}, retains {} B): {:.1} ms ({:.2} CPU-s); trace of {} steps, {} stretches, {} independent paths",
        a.address(obj),
        a.class_name(a.class_of(obj)),
        a.retained(obj),
        t.elapsed().as_secs_f64() * 1e3,
        cpu_seconds() - cpu,
        p.trace.len() as u64 + p.elided_steps,
        p.stretches.len(),
        p.stretches.iter().map(|s| s.paths.len()).sum::<usize>()
    );

    // Classes up, two levels: every class row, and the rows directly above each.
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let up = classes_up(a, Reading::Mat, &[], 1, usize::MAX).unwrap();
    println!(
        "classes up, two levels: {:.1} ms ({:.2} CPU-s); {} class rows, {} rows above them",
        t.elapsed().as_secs_f64() * 1e3,
        cpu_seconds() - cpu,
        up.rows.len(),
        up.rows.iter().map(|r| r.above.len()).sum::<usize>()
    );
    let t = Instant::now();
    let up = classes_up(a, Reading::Mat, &[], 0, usize::MAX).unwrap();
    let heaviest = up.rows[0].class_address.clone().unwrap();
    let class = heapscope::query::class(a, &heaviest).unwrap();
    let first = t.elapsed().as_secs_f64() * 1e3;
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let above = classes_up(a, Reading::Mat, &[class], 0, 100).unwrap();
    println!(
        "classes up as the page asks: class rows {first:.1} ms; the rows above the heaviest ({}, {} objects): {:.1} ms ({:.2} CPU-s), {} rows",
        up.rows[0].class_name,
        up.rows[0].objects,
        t.elapsed().as_secs_f64() * 1e3,
        cpu_seconds() - cpu,
        above.rows.len()
    );
}
