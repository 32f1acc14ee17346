//! The gzip reader on arbitrary bytes (sequential reads and reads through checkpoints): `heapscope::fuzzing::gzip`.
//! The body lives in the library so that `cargo test` replays every input the fuzzer
//! found (fuzz/regressions/gzip/) through the same code.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| heapscope::fuzzing::gzip(data));
