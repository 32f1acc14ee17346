//! The browser bindings: thin glue between the page's worker and the pipeline.
//!
//! - [`BlobSource`]: the dropped `File` as a [`crate::source::ByteSource`], read in chunks
//!   with `Blob.slice` + `FileReaderSync` (workers only), with real seeks.
//! - [`JsProgress`]: throttled progress reports to a JS callback, shared by the core and
//!   the `BlobSource` (bytes read) through a [`ProgressHandle`].
//! - [`Session`] (exported): opens one dump in the worker and answers the page's queries.
//!   `Session.open(file, options, onProgress)` opens a core [`crate::session::Session`]
//!   (with `JsProgress` implementing the core's `Progress` trait and a memory limit from
//!   what the wasm memory can still grow by); each question (the report's JSON, its
//!   Markdown, a typed query) is one method returning the JSON of the core's answer type.
//!   `Session.from_report_json` opens a saved report without its dump.
//!
//! Everything here is compiled only for `wasm32`. Errors reach JS as plain objects
//! (`crate::session::protocol::AnalysisError`).

mod blob_source;
pub mod heap_stats;
mod progress;
mod session;

pub use blob_source::{BlobSource, DEFAULT_CHUNK_SIZE, FETCHED, SEEK_FETCH};
pub use progress::{JsProgress, ProgressHandle};
pub use session::{
    memory_bytes, memory_limit, wasm_peak_estimate, Session, MEMORY_MARGIN, WASM_FIXED_BYTES, WASM_MAX_MEMORY,
    WASM_PEAK_BYTES_PER_OBJECT,
};

use wasm_bindgen::prelude::*;

// Counted, so the page's benchmark can tell what the allocator holds from what the
// linear memory grew to (the difference: holes).
#[global_allocator]
static ALLOCATOR: heap_stats::Counting = heap_stats::Counting;

/// The large allocations so far, as JSON (see [`heap_stats::heap_log`]): diagnostics.
#[wasm_bindgen(js_name = heapLog)]
pub fn heap_log() -> String {
    heap_stats::heap_log()
}

/// Warms the module's code up before the first dump ([`crate::warm_up`]): analyzes a
/// synthetic dump of `customers` customers `rounds` times, then forgets the large
/// allocations it logged. Returns the objects of that dump. Throws like `Session.open`.
///
/// Each round goes the way a dropped file goes, through [`Session::open`] with the dump
/// in a `Blob`: V8's optimized code inlines each indirect call (the cursor's `dyn
/// ByteSource` reads, the progress callbacks) for the targets it saw, and leaves for its
/// baseline code when another one comes. A pass's record walk is one call, so after
/// such a deoptimization the whole pass ran in baseline code (Chromium 156, 1 GB
/// benchmark dump: pass 2's worker CPU 3.8 s with a warm-up through a `MemorySource`,
/// 2.4 s with deoptimizations turned off).
#[wasm_bindgen(js_name = warmUp)]
pub fn warm_up(customers: u32, rounds: u32) -> Result<f64, JsValue> {
    // The general allocator's arena first, as `Session::open` does, so the warm-up's small
    // blocks come from it and not from pages between its large ones.
    heap_stats::reserve_small_arena();
    let blob = {
        let dump = crate::warm_up::customers_dump(customers);
        let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(&dump[..]));
        web_sys::Blob::new_with_u8_array_sequence(&parts)?
    };
    let mut objects = 0;
    for _ in 0..rounds {
        objects = Session::open(blob.clone(), JsValue::UNDEFINED, None)?.objects();
    }
    heap_stats::clear_log();
    Ok(objects as f64)
}

/// The crate version, for the page's footer and bug reports.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

// Runs when the module is instantiated: a panic (a bug; the wasm instance is unusable
// afterwards) is logged and its message kept in `globalThis.__heapscopePanic`, so the
// worker can tell the page what happened instead of just "unreachable".
#[wasm_bindgen(start)]
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let text = info.to_string();
        web_sys::console::error_1(&JsValue::from_str(&text));
        let _ =
            js_sys::Reflect::set(&js_sys::global(), &JsValue::from_str("__heapscopePanic"), &JsValue::from_str(&text));
    }));
}
