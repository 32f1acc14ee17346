//! Hand-run benchmark of the dominator algorithms on synthetic heap-like graphs.
//!
//! ```text
//! cargo build --release -p heapscope --example dominators_bench
//! /usr/bin/time -v target/release/examples/dominators_bench semi [heap|chain] [nodes]
//! /usr/bin/time -v target/release/examples/dominators_bench chk  [heap|chain] [nodes]
//! /usr/bin/time -v target/release/examples/dominators_bench none [heap|chain] [nodes]   # graph only
//! ```
//!
//! `heap` (the default, 20 million nodes): mostly a tree with allocation locality, a few
//! long linked lists, ~0.35 class-like references per object to a few thousand shared
//! nodes (some of them GC roots), and some random back, cross and forward references:
//! about 1.5 edges per node. `chain`: one linked list whose every node also points at one
//! shared node (CHK's worst case). Prints the time per algorithm and, on Linux, the peak
//! resident memory the algorithm added on top of the graph (the peak counter is reset
//! after building the graph).

use heapscope::dominators::{cooper_harvey_kennedy, semi_nca, CsrGraph, UNREACHABLE};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let algo = args.get(1).map(String::as_str).unwrap_or("semi");
    let shape = args.get(2).map(String::as_str).unwrap_or("heap");
    let n: usize = args.get(3).map(|s| s.parse().expect("node count")).unwrap_or(20_000_000);

    let t = Instant::now();
    let g = match shape {
        "heap" => heap_like(n),
        "chain" => chain(n),
        _ => panic!("shape is heap or chain"),
    };
    let graph_bytes = (n + 1) * 8 + g.edge_count() * 4;
    println!(
        "graph: {shape}, {n} nodes, {} edges ({:.2}/node), {} roots, built in {:.2?}, {} MiB",
        g.edge_count(),
        g.edge_count() as f64 / n as f64,
        g.roots().len(),
        t.elapsed(),
        graph_bytes >> 20
    );
    let base = reset_peak();

    let run = |name: &str, f: &dyn Fn(&CsrGraph) -> Vec<u32>| {
        let t = Instant::now();
        let idom = f(&g);
        let dt = t.elapsed();
        let reached = idom.iter().filter(|&&d| d != UNREACHABLE).count();
        let checksum = idom.iter().fold(0u64, |h, &d| h.wrapping_mul(31).wrapping_add(u64::from(d)));
        let peak = peak_rss();
        match (base, peak) {
            (Some(b), Some(p)) => println!(
                "{name}: {dt:.2?}, {reached} reached, checksum {checksum:016x}, \
                 peak RSS {} MiB = graph+{} MiB ({:.1} bytes/node above the graph)",
                p >> 20,
                p.saturating_sub(b) >> 20,
                p.saturating_sub(b) as f64 / n as f64
            ),
            _ => println!("{name}: {dt:.2?}, {reached} reached, checksum {checksum:016x}"),
        }
        idom
    };
    match algo {
        "semi" => drop(run("semi_nca", &|g| semi_nca(g).unwrap())),
        "chk" => drop(run("cooper_harvey_kennedy", &|g| cooper_harvey_kennedy(g).unwrap())),
        "both" => {
            let a = run("semi_nca", &|g| semi_nca(g).unwrap());
            let b = run("cooper_harvey_kennedy", &|g| cooper_harvey_kennedy(g).unwrap());
            assert!(a == b, "the algorithms disagree");
            println!("identical");
        }
        "none" => {}
        _ => panic!("algorithm is semi, chk, both or none"),
    }
}

/// splitmix64: a deterministic hash of (seed, i).
fn mix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Builds a CSR graph from a per-node edge generator, in two passes (count, fill), so no
/// edge list is ever materialised.
fn build(n: usize, roots: Vec<u32>, edges_of: impl Fn(u32, &mut dyn FnMut(u32, u32))) -> CsrGraph {
    let mut offsets = vec![0u64; n + 1];
    for i in 0..n as u32 {
        edges_of(i, &mut |from, _| offsets[from as usize + 1] += 1);
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut targets = vec![0u32; offsets[n] as usize];
    // Fill using offsets[from] as a cursor, then shift back.
    for i in 0..n as u32 {
        edges_of(i, &mut |from, to| {
            let c = &mut offsets[from as usize];
            targets[*c as usize] = to;
            *c += 1;
        });
    }
    for i in (1..=n).rev() {
        offsets[i] = offsets[i - 1];
    }
    offsets[0] = 0;
    CsrGraph::from_csr(offsets, targets, roots)
}

fn heap_like(n: usize) -> CsrGraph {
    const SEED: u64 = 0x5EED;
    let classes = 5000.min(n as u64 / 4).max(1);
    let root_classes = classes * 3 / 5;
    let mut roots: Vec<u32> = (0..root_classes as u32).collect();
    // Other roots (threads, JNI globals): one node in 20,000.
    roots.extend((classes as u32..n as u32).filter(|&i| mix(SEED ^ 1, u64::from(i)) % 20_000 == 0));
    // Linked lists: 1/16 of the nodes, in runs of up to 1M.
    let in_list = |i: u64| (i / 1_000_000) % 16 == 7 && i % 1_000_000 != 0;
    let edges_of = |i: u32, e: &mut dyn FnMut(u32, u32)| {
        let i64 = u64::from(i);
        let h = mix(SEED, i64);
        // The edge from the tree parent.
        if i64 >= classes {
            let p = if in_list(i64) {
                i64 - 1
            } else if h % 100 < 65 {
                // Allocation locality: a recent object (deep, chain-like trees).
                i64.saturating_sub(1 + (h >> 8) % 8).max(classes)
            } else {
                (h >> 8) % i64
            };
            e(p as u32, i);
        } else if i64 >= root_classes {
            // An application class, held by a root class (its loader).
            e(((h >> 8) % root_classes) as u32, i);
        }
        // References out of i.
        let h2 = mix(SEED ^ 2, i64);
        if i64 >= classes && h2 % 100 < 35 {
            e(i, ((h2 >> 8) % classes) as u32);
        }
        let h3 = mix(SEED ^ 3, i64);
        if h3 % 100 < 12 && i64 > 0 {
            e(i, ((h3 >> 8) % i64) as u32);
        } else if h3 % 100 < 17 && i64 + 1 < n as u64 {
            let t = i64 + 1 + (h3 >> 8) % 1000;
            e(i, t.min(n as u64 - 1) as u32);
        }
    };
    build(n, roots, edges_of)
}

fn chain(n: usize) -> CsrGraph {
    let shared = n as u32 - 1;
    let edges_of = |i: u32, e: &mut dyn FnMut(u32, u32)| {
        if i < shared {
            if i + 1 < shared {
                e(i, i + 1);
            }
            e(i, shared);
        }
    };
    build(n, vec![0], edges_of)
}

/// Resets the kernel's peak-RSS counter to the current RSS and returns it (Linux).
fn reset_peak() -> Option<u64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    status_kib("VmHWM:").map(|k| k * 1024)
}

fn peak_rss() -> Option<u64> {
    status_kib("VmHWM:").map(|k| k * 1024)
}

fn status_kib(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()
}
