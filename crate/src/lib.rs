//! heapscope: a Java and Android heap dump (HPROF) analyzer that reproduces Eclipse MAT's
//! numbers, streaming the dump in two passes with compact arrays, natively and in wasm32.
//!
//! The modules are a pipeline, and every import points down it (`crate/tests/layers.rs`
//! checks that no module imports one listed after it):
//!
//! | layer | modules | what |
//! |---|---|---|
//! | foundations | [`text`], [`error`], [`alloc`], [`bits`], [`big_blocks`] | dump text made safe to print, errors with offsets, fallible arrays, bit sets, the wasm allocator's big blocks |
//! | shared types | [`model`] | the output types and presentation helpers (a leaf) |
//! | input | [`source`], [`records`] | bytes from files, gzip, Blobs; the HPROF format |
//! | rules | [`rules`] | tables of strengths, edge flags, owner rules, root kinds, String layouts |
//! | passes | [`index`], [`graph`] | pass 1 (ids, classes, roots) and pass 2 (references), with sinks |
//! | trees | [`dominators`], [`retained`], [`strength`] | dominator trees, retained sizes, reachability strengths |
//! | core | [`analysis`] | the pipeline run, its results only |
//! | read-back | [`readback`] | records read again: fields, arrays, String texts |
//! | searches | [`search`] | breadth-first searches, shortest paths and their union, how one object references another |
//! | questions | [`holders`], [`query`], [`values`] | referrers and leak traces, tree pages, values beside references |
//! | features | [`mapping`], [`threads`], [`heaps`], [`waste`], [`leaks`] | deobfuscation, threads, Android heaps, wasted memory, LeakCanary's leaks |
//! | output | [`report`], [`render`], [`compare`] | the report, its Markdown/HTML/text, comparisons |
//! | session | [`session`] | an analyzed dump with its features and caches, answering queries |
//! | bindings | [`warm_up`], [`fuzzing`], `wasm` | the page's warm-up, fuzz entry points, the browser bindings |

// Loops over parallel per-object arrays read clearer with an index than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod text;
pub mod error;
pub mod alloc;
pub mod bits;
pub mod big_blocks;
pub mod model;
pub mod source;
pub mod records;
pub mod rules;
pub mod index;
pub mod graph;
pub mod dominators;
pub mod retained;
pub mod strength;
pub mod analysis;
pub mod readback;
pub mod search;
pub mod holders;
pub mod query;
pub mod values;
pub mod mapping;
pub mod threads;
pub mod heaps;
pub mod waste;
pub mod leaks;
pub mod report;
pub mod render;
pub mod compare;
pub mod session;
pub mod warm_up;
#[doc(hidden)]
pub mod fuzzing;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
