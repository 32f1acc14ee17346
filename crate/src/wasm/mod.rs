//! The browser bindings: thin glue between the page's worker and the pipeline.
//!
//! - [`BlobSource`]: the dropped `File` as a [`crate::source::ByteSource`], read in chunks
//!   with `Blob.slice` + `FileReaderSync` (workers only), with real seeks.
//! - [`JsProgress`]: throttled progress reports to a JS callback.
//! - [`Session`] (exported): opens one dump in the worker and answers the page's queries.
//!   `Session.open(file, options, onProgress)` reads the file once ([`scan`]) and keeps
//!   what the page asks for afterwards. The analysis plugs in here: `open` runs
//!   `analysis::analyze(source, &options, &mut progress)` with `JsProgress` implementing
//!   the core's `Progress` trait, the session keeps the `Analysis`, and each query
//!   (report JSON, dominator-tree children, object fields, path to a GC root) is one
//!   method that serializes the core's answer.
//!
//! Everything here is compiled only for `wasm32`. Errors reach JS as plain objects
//! `{kind: "format"|"io"|"memory"|"cancelled", offset, message, text}`.

mod blob_source;
mod progress;
mod scan;
mod session;

pub use blob_source::{BlobSource, DEFAULT_CHUNK_SIZE};
pub use progress::JsProgress;
pub use scan::{scan, tag_name, Summary, TagCount};
pub use session::{OpenOptions, Session};

use wasm_bindgen::prelude::*;

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
        let _ = js_sys::Reflect::set(
            &js_sys::global(),
            &JsValue::from_str("__heapscopePanic"),
            &JsValue::from_str(&text),
        );
    }));
}
