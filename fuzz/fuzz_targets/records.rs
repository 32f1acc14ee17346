//! The HPROF record walker on arbitrary bytes: `heapscope::fuzzing::records`.
//! The body lives in the library so that `cargo test` replays every input the fuzzer
//! found (fuzz/regressions/records/) through the same code.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| heapscope::fuzzing::records(data));
