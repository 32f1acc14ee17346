//! The wasm build's SIMD replacements of scalar arithmetic (`.cargo/config.toml` enables
//! `simd128` for every wasm build), checked on random inputs against Rust's own scalar
//! definitions, which natively are the code these replace:
//!
//!     scripts/test-wasm.sh --test simd
//!
//! Natively this file compiles to nothing (the native build has no such code).
#![cfg(target_arch = "wasm32")]

use heapscope::records::cursor::{be_id, be_u64};
use heapscope::waste::hash::wide_mul;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

/// xorshift64: reproducible random inputs without a dependency.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

#[wasm_bindgen_test]
fn simd_be_u64_reads_big_endian_at_every_offset() {
    assert!(cfg!(target_feature = "simd128"), "the wasm tests must build the page's SIMD code");
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..4099).map(|_| next(&mut x) as u8).collect();
    for at in 0..bytes.len() - 7 {
        let want = u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
        assert_eq!(be_u64(&bytes, at), want, "offset {at}");
        assert_eq!(be_id(&bytes, at, 8), want, "offset {at}");
        assert_eq!(
            be_id(&bytes, at, 4),
            u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as u64,
            "offset {at}"
        );
    }
    for v in [0, 1, 0xff, 1 << 63, u64::MAX, 0x0102_0304_0506_0708] {
        assert_eq!(be_u64(&v.to_be_bytes(), 0), v);
    }
}

#[wasm_bindgen_test]
fn simd_wide_mul_is_the_128_bit_product() {
    assert!(cfg!(target_feature = "simd128"), "the wasm tests must build the page's SIMD code");
    let check = |a: u64, b: u64| {
        let r = a as u128 * b as u128;
        assert_eq!(wide_mul(a, b), (r as u64, (r >> 64) as u64), "{a:#x} * {b:#x}");
    };
    let edges = [0, 1, 2, u32::MAX as u64, 1 << 32, (1 << 32) + 1, u64::MAX - 1, u64::MAX];
    for a in edges {
        for b in edges {
            check(a, b);
        }
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200_000 {
        let (a, b) = (next(&mut x), next(&mut x));
        // Also with runs of ones and zeros in the halves, where carries propagate.
        check(a, b);
        check(a | 0xffff_ffff, b >> (a % 64));
    }
}
