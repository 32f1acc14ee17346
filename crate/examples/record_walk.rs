//! Hand-run measure of a bare record walk: every record of the dump read in file order,
//! the instances' fields, arrays' elements and primitive arrays' bodies skipped (as a
//! seekable source allows), nothing kept. The floor of one pass, against which the
//! native budget reads "the whole analysis in at most 4 record walks" (`scripts/bench.sh`
//! prints the ratio): measured back to back with the analysis, it moves with the host as
//! the analysis does.
//!
//! With `--every-byte` the walk is handed every byte instead (the instances' fields,
//! the arrays' elements and the primitive arrays' bodies, each slice's first byte read):
//! the reading a walk that skips nothing costs, as issue 14's "walk of every record" was
//! measured when the issue was written.
//!
//! ```text
//! cargo build --release -p heapscope --example record_walk
//! target/release/examples/record_walk DUMP [ROUNDS] [--every-byte]
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

/// Counts the object records and the bytes handed over, with every byte asked for.
#[derive(Default)]
struct Every {
    objects: u64,
    bytes: u64,
    seen: u8,
}

impl Every {
    /// Takes a slice: its length and first byte, so that the reads are not left out.
    #[inline]
    fn take(&mut self, data: &[u8]) {
        self.bytes += data.len() as u64;
        self.seen ^= data.first().copied().unwrap_or(0);
    }
}

impl Visitor for Every {
    const INSTANCE_FIELDS: bool = true;
    const ARRAY_ELEMENTS: bool = true;
    const PRIMITIVE_DATA: bool = true;

    fn instance(&mut self, _: u64, _: u64, _: u32, fields: &[u8], _: u64) -> Result<()> {
        self.objects += 1;
        self.take(fields);
        Ok(())
    }

    fn object_array(&mut self, _: u64, _: u64, _: u32, _: u64) -> Result<()> {
        self.objects += 1;
        Ok(())
    }

    fn object_array_elements(&mut self, ids: &[u8]) -> Result<()> {
        self.take(ids);
        Ok(())
    }

    fn primitive_array(&mut self, _: u64, _: u8, _: u32, _: bool, _: u64) -> Result<()> {
        self.objects += 1;
        Ok(())
    }

    fn primitive_array_data(&mut self, data: &[u8]) -> Result<()> {
        self.take(data);
        Ok(())
    }
}

fn main() {
    let (flags, args): (Vec<String>, Vec<String>) = std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let every = match flags.as_slice() {
        [] => false,
        [f] if f == "--every-byte" => true,
        _ => panic!("usage: record_walk DUMP [ROUNDS] [--every-byte]"),
    };
    let mut args = args.into_iter();
    let path = args.next().expect("usage: record_walk DUMP [ROUNDS] [--every-byte]");
    let rounds: usize = args.next().map_or(1, |r| r.parse().expect("ROUNDS is a number"));
    for round in 1..=rounds {
        let t0 = cpu_seconds();
        let mut cursor = Cursor::new(common::open_dump(&path));
        let header = Header::read(&mut cursor).expect("the header reads");
        let (objects, handed, end) = if every {
            let mut v = Every::default();
            let end = walk(&mut cursor, &header, &mut v, None).expect("the walk");
            (v.objects, format!(", {} bytes handed over (check {})", v.bytes, v.seen), end)
        } else {
            let mut v = Count::default();
            let end = walk(&mut cursor, &header, &mut v, None).expect("the walk");
            (v.objects, String::new(), end)
        };
        let t1 = cpu_seconds();
        let complete = matches!(end, WalkEnd::Complete { .. });
        println!(
            "round {round}: {objects} object records, {} bytes{handed}, {:.2} CPU s{}",
            cursor.pos(),
            t1 - t0,
            if complete { "" } else { " (the dump ends early)" }
        );
    }
}
