//! The refusal of a dump too big for the memory a caller allows: it names the objects,
//! what the analysis needs and what is available, in binary units with separators (the
//! page's `?memory-limit=20000000` once read "needs about 0 MiB, more than the 0 MiB
//! available"). The figures are worked out by hand from the dump's construction.

mod support;

use heapscope::analysis::{analyze, NoProgress, Options};
use heapscope::error::ErrorKind;
use heapscope::model::format::{binary_size, thousands as count};
use heapscope::source::MemorySource;
use support::hprof_builder::{ClassDef, Hprof};

const OBJECT: u64 = 0x100;

/// java.lang.Object and `instances` instances of it: `instances` + 2 objects (the class
/// and MAT's pseudo object 0x0).
fn dump(instances: u64) -> Vec<u8> {
    let mut h = Hprof::new(8);
    h.string(1, "java/lang/Object").load_class(1, OBJECT, 1);
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(OBJECT, 0)).root_sticky_class(OBJECT);
    for k in 0..instances {
        let id = 0x1_0000 + 16 * k;
        seg.instance(id, OBJECT, &[]).root_unknown(id);
    }
    h.segment(&seg).heap_dump_end();
    h.into_bytes()
}

fn run(bytes: Vec<u8>, options: &Options) -> heapscope::error::Result<()> {
    analyze(Box::new(MemorySource::new(bytes)), options, &mut NoProgress, &mut ()).map(|_| ())
}

#[test]
fn the_page_limit_names_need_and_limit_in_binary_units() {
    // As the page's `?memory-limit=20000000` with the wasm estimate: 30 MiB fixed, 22 bytes
    // per object. 26,000 objects: 31,457,280 + 572,000 = 32,029,280 bytes = 30.55 MiB;
    // 20,000,000 bytes = 19.07 MiB.
    let options = Options {
        memory_limit: Some(20_000_000),
        memory_fixed_bytes: 30 << 20,
        peak_bytes_per_object: Some(22),
        ..Options::default()
    };
    let e = run(dump(25_998), &options).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Memory);
    assert_eq!(
        e.message,
        "this dump has 26,000 objects: analyzing it needs about 30.5 MiB of memory (30.0 MiB plus 22 bytes per object), more than the 19.1 MiB available here"
    );
}

#[test]
fn without_a_fixed_part_the_need_is_per_object_and_a_dump_that_fits_passes() {
    // 1,002 objects × 16 bytes = 16,032 bytes = 15.66 KiB, against 10,000 bytes = 9.77 KiB.
    let options = Options { memory_limit: Some(10_000), peak_bytes_per_object: Some(16), ..Options::default() };
    let e = run(dump(1_000), &options).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Memory);
    assert_eq!(e.message, "this dump has 1,002 objects: analyzing it needs about 15.7 KiB of memory (16 bytes per object), more than the 9.8 KiB available here");
    // 16,032 bytes fit in 16,032.
    let options = Options { memory_limit: Some(16_032), peak_bytes_per_object: Some(16), ..Options::default() };
    run(dump(1_000), &options).unwrap();
}

#[test]
fn counts_are_grouped_by_three() {
    assert_eq!(count(0), "0");
    assert_eq!(count(999), "999");
    assert_eq!(count(1000), "1,000");
    assert_eq!(count(26_000), "26,000");
    assert_eq!(count(1_234_567), "1,234,567");
}

#[test]
fn sizes_use_the_largest_binary_unit() {
    assert_eq!(binary_size(0), "0 bytes");
    assert_eq!(binary_size(1023), "1,023 bytes");
    assert_eq!(binary_size(1024), "1.0 KiB");
    // 20,000,000 / 2^20 = 19.073…
    assert_eq!(binary_size(20_000_000), "19.1 MiB");
    assert_eq!(binary_size(4 << 30), "4.0 GiB");
    assert_eq!(binary_size(5 << 40), "5,120.0 GiB");
    // Rounded half up: 1.05 KiB is 1,075.2 bytes.
    assert_eq!(binary_size(1076), "1.1 KiB");
    assert_eq!(binary_size(1075), "1.0 KiB");
    assert_eq!(binary_size(u64::MAX), "17,179,869,184.0 GiB");
}
