//! Hand-run profile of `analyze`'s memory: what the allocator holds per phase, which is
//! what a wasm instance must grow to (its memory never shrinks), unlike the resident set
//! that `--timings` prints (untouched pages of zeroed arrays do not count there).
//!
//! ```text
//! cargo build --release -p heapscope --example memory_profile
//! target/release/examples/memory_profile DUMP
//! ```
//!
//! Prints per phase: CPU seconds, bytes allocated at its start, the peak during it (also
//! per object), then the size of each per-object array the analysis keeps.

use heapscope::analysis::{Options, Phase, Progress, ProgressInfo};
use heapscope::error::Result;

mod common;
use common::cpu_seconds;

#[path = "../tests/support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

struct Phases {
    current: Option<Phase>,
    start_cpu: f64,
    start_live: usize,
    rows: Vec<(&'static str, f64, usize, usize)>,
}

impl Phases {
    fn close(&mut self) {
        if let Some(p) = self.current {
            self.rows.push((p.name(), cpu_seconds() - self.start_cpu, self.start_live, counting_alloc::peak()));
        }
        self.start_cpu = cpu_seconds();
        self.start_live = counting_alloc::live();
        counting_alloc::reset_peak();
    }
}

impl Progress for Phases {
    fn update(&mut self, info: &ProgressInfo) -> Result<()> {
        if self.current != Some(info.phase) {
            self.close();
            self.current = Some(info.phase);
        }
        Ok(())
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: memory_profile DUMP");
    let source = common::open_dump(&path);
    let mut phases = Phases { current: None, start_cpu: cpu_seconds(), start_live: 0, rows: Vec::new() };
    // A session: the analysis with its features, as the page and the command line run it.
    let session = heapscope::session::Session::open(source, &Options::default(), &mut phases, Default::default())
        .expect("analysis");
    phases.close();
    let a = &session.analysis;
    let n = a.object_count() as f64;
    let mib = |b: usize| b as f64 / (1u64 << 20) as f64;
    println!("{:<28} {:>7} {:>11} {:>11} {:>9}", "phase", "cpu s", "start MiB", "peak MiB", "B/object");
    for (name, cpu, start, peak) in &phases.rows {
        println!("{name:<28} {cpu:>7.2} {:>11.1} {:>11.1} {:>9.2}", mib(*start), mib(*peak), *peak as f64 / n);
    }
    println!(
        "objects {}, references {}, live after: {:.1} MiB ({:.2} B/object)",
        a.object_count(),
        a.heap.refs.edge_count(),
        mib(counting_alloc::live()),
        counting_alloc::live() as f64 / n
    );
    println!("dominator search: {:?}", a.dominator_stats);
    let parts: [(&str, usize); 8] = [
        ("ids", a.heap.index.ids.memory_bytes()),
        ("classes", a.heap.classes.memory_bytes()),
        ("sizes", a.heap.sizes.memory_bytes()),
        ("refs", a.heap.refs.memory_bytes()),
        ("strengths", a.strengths.memory_bytes()),
        ("idom", a.idom.memory_bytes()),
        ("tree", a.tree.memory_bytes()),
        ("retained", a.retained.memory_bytes()),
    ];
    for (name, b) in parts {
        println!("  {name:<10} {:>9.1} MiB {:>6.2} B/object", mib(b), b as f64 / n);
    }
}
