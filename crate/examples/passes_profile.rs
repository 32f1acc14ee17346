//! Hand-run profile of the two passes alone (for `perf record` and A/B runs of pass 1
//! and pass 2 without the phases after them): CPU seconds and the allocator's peak of
//! each.
//!
//! ```text
//! cargo build --release -p heapscope --example passes_profile
//! target/release/examples/passes_profile DUMP
//! ```

use heapscope::heaps::HeapTracker;
use heapscope::records::Cursor;
use heapscope::strength::owners::ViewChildren;
use heapscope::waste::WasteSink;

mod common;
use common::cpu_seconds;

#[path = "../tests/support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

fn main() {
    let path = std::env::args().nth(1).expect("usage: passes_profile DUMP");
    let mut cursor = Cursor::new(common::open_dump(&path));
    let mib = |b: usize| b as f64 / (1u64 << 20) as f64;
    let mut tick = |_: u64, _: u64| Ok(());
    let t0 = cpu_seconds();
    // The features' sinks, as a session's analysis has them.
    let mut sink = (HeapTracker::default(), WasteSink::default());
    let index = heapscope::index::pass1(&mut cursor, &mut tick, None, &mut sink).expect("pass 1");
    let t1 = cpu_seconds();
    let p1 = counting_alloc::peak();
    let n = index.ids.len();
    counting_alloc::reset_peak();
    let mut views = ViewChildren::new(&index);
    let heap = heapscope::graph::pass2(&mut cursor, index, &mut tick, &mut (&mut views, &mut sink)).expect("pass 2");
    let t2 = cpu_seconds();
    let p2 = counting_alloc::peak();
    println!("objects {n}, references {}", heap.refs.edge_count());
    println!("pass 1: {:.2} CPU s, peak {:.1} MiB ({:.2} B/object)", t1 - t0, mib(p1), p1 as f64 / n as f64);
    println!("pass 2: {:.2} CPU s, peak {:.1} MiB ({:.2} B/object)", t2 - t1, mib(p2), p2 as f64 / n as f64);
    println!("kept after pass 2: {:.1} MiB", mib(counting_alloc::live()));
}
