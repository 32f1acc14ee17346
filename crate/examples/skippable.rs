//! Hand-run measure of what pass 2 could leave unread: the bytes of primitive-array
//! bodies (pass 2 never looks at them), and how much of that lies in bodies at least
//! 64 KiB / 1 MiB / 16 MiB long (a seekable source skips those without reading them:
//! shorter ones sit between records pass 2 needs, inside the same read).
//!
//! ```text
//! cargo build --release -p heapscope --example skippable
//! target/release/examples/skippable DUMP
//! ```

use heapscope::error::Result;
use heapscope::records::heap::{walk, Visitor};
use heapscope::records::{basic_type, Cursor, Header};

mod common;

#[derive(Default)]
struct Bodies {
    arrays: u64,
    total: u64,
    /// Bytes in bodies of at least 64 KiB, 1 MiB, 16 MiB.
    at_least: [u64; 3],
}

impl Visitor for Bodies {
    const INSTANCE_FIELDS: bool = false;
    const ARRAY_ELEMENTS: bool = false;

    fn primitive_array(&mut self, _id: u64, ty: u8, len: u32, has_data: bool, _offset: u64) -> Result<()> {
        if !has_data {
            return Ok(());
        }
        let bytes = len as u64 * basic_type::primitive_size(ty).unwrap_or(1) as u64;
        self.arrays += 1;
        self.total += bytes;
        for (k, min) in [64u64 << 10, 1 << 20, 16 << 20].into_iter().enumerate() {
            if bytes >= min {
                self.at_least[k] += bytes;
            }
        }
        Ok(())
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: skippable DUMP");
    let mut c = Cursor::new(common::open_dump(&path));
    let header = Header::read(&mut c).expect("a header");
    let mut b = Bodies::default();
    walk(&mut c, &header, &mut b, None).expect("the walk");
    let end = c.pos();
    println!(
        "input {end} bytes; {} primitive arrays with data, bodies {} bytes ({:.1}%)",
        b.arrays,
        b.total,
        b.total as f64 * 100.0 / end as f64
    );
    for (k, name) in ["64 KiB", "1 MiB", "16 MiB"].iter().enumerate() {
        println!(
            "  in bodies of at least {name}: {} bytes ({:.1}% of the input)",
            b.at_least[k],
            b.at_least[k] as f64 * 100.0 / end as f64
        );
    }
}
