//! The saved-report JSON reader on arbitrary text: `heapscope::fuzzing::report_json`.
//! The body lives in the library so that `cargo test` replays every input the fuzzer
//! found (fuzz/regressions/report_json/) through the same code.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| heapscope::fuzzing::report_json(data));
