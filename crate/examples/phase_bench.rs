//! Hand-run benchmark of the phases after pass 2 on a real dump: analyzes it once, then
//! runs the dominator search (MAT's graph and the strength-aware one) and the strength
//! walk again `ROUNDS` times each, printing CPU seconds per run and a checksum of each
//! result (to compare two builds: the checksums must match).
//!
//! ```text
//! cargo build --release -p heapscope --example phase_bench
//! target/release/examples/phase_bench DUMP [ROUNDS] [mat|strength|walk|all]
//! ```

use heapscope::analysis::{NoProgress, Options, Reading};
use heapscope::dominators::semi_nca_with_stats;
use heapscope::strength::walk::{strengths, HeapEdges};

mod common;
use common::cpu_seconds;

fn checksum<T: Copy + Into<u64>>(v: &[T]) -> u64 {
    v.iter().fold(0u64, |h, &d| h.wrapping_mul(0x100_0000_01b3).wrapping_add(d.into()))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: phase_bench DUMP [ROUNDS] [mat|strength|walk|all]");
    let rounds: usize = args.get(2).map(|s| s.parse().expect("rounds")).unwrap_or(3);
    let what = args.get(3).map(String::as_str).unwrap_or("all");
    let mut a = heapscope::analysis::analyze(common::open_dump(path), &Options::default(), &mut NoProgress, &mut ())
        .expect("analysis");
    let time = |name: &str, f: &mut dyn FnMut() -> u64| {
        let mut best = f64::MAX;
        let mut sum = 0.0;
        let mut sums = Vec::new();
        for _ in 0..rounds {
            let t = cpu_seconds();
            let c = f();
            let dt = cpu_seconds() - t;
            best = best.min(dt);
            sum += dt;
            sums.push(c);
        }
        sums.dedup();
        println!(
            "{name}: best {best:.2} CPU-s, mean {:.2} over {rounds}, checksum {:016x?}",
            sum / rounds as f64,
            sums
        );
    };
    if what == "all" || what == "walk" {
        time("strength walk", &mut || {
            let r = strengths(&HeapEdges::new(&a.heap, &a.owners)).unwrap();
            checksum(&r.strengths) ^ checksum(r.owned.words())
        });
    }
    if what == "all" || what == "mat" {
        time("dominators (MAT)", &mut || {
            let (idom, stats) = semi_nca_with_stats(&a.dominator_graph()).unwrap();
            eprintln!("  {stats:?}");
            checksum(&idom)
        });
    }
    if what == "all" || what == "strength" {
        a.set_reading(Reading::Strength).expect("the strength-aware tree");
        time("dominators (strength)", &mut || {
            let (idom, stats) = semi_nca_with_stats(&a.strength_graph()).unwrap();
            eprintln!("  {stats:?}");
            checksum(&idom)
        });
    }
}
