//! The whole pipeline on arbitrary bytes (gzip-wrapped ones too): both passes, roots,
//! dominators, retained sizes, the report in every rendering, with and without
//! unreachable objects kept. Must never panic, hang or allocate by an unchecked length.
#![no_main]

use heapscope::analysis::{analyze, NoProgress, Options};
use heapscope::error::ErrorKind;
use heapscope::report::{self, SourceInfo};
use heapscope::source::{auto_decompress, MemorySource};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for keep_unreachable in [false, true] {
        let src = auto_decompress(Box::new(MemorySource::new(data.to_vec()))).unwrap();
        let options = Options { keep_unreachable, memory_limit: Some(1 << 30), ..Options::default() };
        match analyze(src, &options, &mut NoProgress) {
            Ok(a) => {
                if let Some(e) = &a.incomplete {
                    assert!(e.offset.is_some(), "an incomplete dump names the offset: {e}");
                }
                let r = report::build(&a, &SourceInfo::default());
                let _ = report::to_json(&r);
                let _ = report::markdown::render(&r);
                let _ = report::parity::json(&a);
                let mut tsv = Vec::new();
                report::parity::write_objects_tsv(&a, &mut tsv).unwrap();
            }
            Err(e) => {
                if e.kind == ErrorKind::Format {
                    assert!(e.offset.is_some(), "a format error names the offset: {e}");
                }
                assert!(!e.to_string().contains('\n'), "one line: {e}");
            }
        }
    }
});
