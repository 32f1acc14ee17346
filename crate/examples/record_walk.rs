//! Hand-run measure of a bare record walk: every record of the dump read in file order,
//! the instances' fields, arrays' elements and primitive arrays' bodies skipped (as a
//! seekable source allows), nothing kept. The floor of one pass, against which the
//! native budget reads "the whole analysis in at most 4 record walks" (`scripts/bench.sh`
//! prints the ratio): measured back to back with the analysis, it moves with the host as
//! the analysis does.
//!
//! ```text
//! cargo build --release -p heapscope --example record_walk
//! target/release/examples/record_walk DUMP [ROUNDS]
//! ```

use heapscope::error::Result;
use heapscope::records::heap::{walk, Visitor, WalkEnd};
use heapscope::records::{Cursor, Header};

mod common;
use common::cpu_seconds;

/// Counts the object records and nothing else.
#[derive(Default)]
struct Count {
    objects: u64,
}

impl Visitor for Count {
    const INSTANCE_FIELDS: bool = false;
    const ARRAY_ELEMENTS: bool = false;

    fn instance(&mut self, _: u64, _: u64, _: u32, _: &[u8], _: u64) -> Result<()> {
        self.objects += 1;
        Ok(())
    }

    fn object_array(&mut self, _: u64, _: u64, _: u32, _: u64) -> Result<()> {
        self.objects += 1;
        Ok(())
    }

    fn primitive_array(&mut self, _: u64, _: u8, _: u32, _: bool, _: u64) -> Result<()> {
        self.objects += 1;
        Ok(())
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: record_walk DUMP [ROUNDS]");
    let rounds: usize = args.next().map_or(1, |r| r.parse().expect("ROUNDS is a number"));
    for round in 1..=rounds {
        let t0 = cpu_seconds();
        let mut cursor = Cursor::new(common::open_dump(&path));
        let header = Header::read(&mut cursor).expect("the header reads");
        let mut count = Count::default();
        let end = walk(&mut cursor, &header, &mut count, None).expect("the walk");
        let t1 = cpu_seconds();
        let complete = matches!(end, WalkEnd::Complete { .. });
        println!("round {round}: {} object records, {} bytes, {:.2} CPU s{}", count.objects, cursor.pos(), t1 - t0, if complete { "" } else { " (the dump ends early)" });
    }
}
