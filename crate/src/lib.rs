//! heapscope: a Java and Android heap dump (HPROF) analyzer that reproduces Eclipse MAT's
//! numbers, streaming the dump in two passes with compact arrays, natively and in wasm32.
//!
//! The modules follow the pipeline:
//! [`source`] → [`records`] → [`index`] (pass 1) → [`graph`] (pass 2) → [`dominators`]
//! → [`retained`] → [`report`]; [`query`] answers questions about an analyzed dump,
//! [`holders`] finds what holds an object (referrer index, leak trace, classes up).

// Loops over parallel per-object arrays read clearer with an index than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod alloc;
pub mod analysis;
pub mod big_blocks;
pub mod compare;
pub mod dominators;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod graph;
pub mod heaps;
pub mod holders;
pub mod index;
pub mod mapping;
pub mod query;
pub mod records;
pub mod report;
pub mod retained;
pub mod source;
pub mod strength;
pub mod threads;
pub mod units;
pub mod values;
pub mod warm_up;
pub mod waste;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
