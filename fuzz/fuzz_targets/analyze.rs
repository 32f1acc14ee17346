//! The whole analysis on arbitrary bytes (gzip too): `heapscope::fuzzing::analyze`.
//! The body lives in the library so that `cargo test` replays every input the fuzzer
//! found (fuzz/regressions/analyze/) through the same code.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| heapscope::fuzzing::analyze(data));
