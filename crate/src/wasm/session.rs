//! The exported `Session`: one dump, opened once in a worker, then queried by the page.
//!
//! The page runs one worker per dump and one `Session` per worker; dropping the worker is
//! how a dump is closed or a run cancelled (wasm memory never shrinks, so a fresh worker
//! is also how the next dump starts with a clean heap).

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::Blob;

use crate::error::{Error, ErrorKind};
use crate::source::{auto_decompress, looks_gzipped, ByteSource};

use super::blob_source::{BlobSource, DEFAULT_CHUNK_SIZE};
use super::progress::JsProgress;
use super::scan::{scan, Summary};

/// Options the page passes to [`Session::open`] (camelCase keys; all optional).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpenOptions {
    /// Bytes per `FileReaderSync` read (default [`DEFAULT_CHUNK_SIZE`]).
    pub chunk_size: Option<u64>,
}

#[wasm_bindgen]
pub struct Session {
    summary: Summary,
}

#[wasm_bindgen]
impl Session {
    /// Reads `file` (a `File` or any `Blob`, gzip-compressed or not) from start to end,
    /// calling `on_progress({phase, bytesDone, bytesTotal, decodedBytes, objects})` a few
    /// times a second. `options`: `{chunkSize?}` or undefined. Throws a
    /// `{kind, offset, message, text}` object on failure. Works only in a Web Worker.
    pub fn open(
        file: Blob,
        options: JsValue,
        on_progress: Option<js_sys::Function>,
    ) -> Result<Session, JsValue> {
        let options: OpenOptions = if options.is_undefined() || options.is_null() {
            OpenOptions::default()
        } else {
            serde_wasm_bindgen::from_value(options)
                .map_err(|e| Error::io(format!("invalid options: {e}")))?
        };
        let chunk_size = options
            .chunk_size
            .map_or(DEFAULT_CHUNK_SIZE, |c| c.clamp(1, 1 << 30) as usize);
        let mut blob = BlobSource::new(file, chunk_size)?;
        let mut head = [0u8; 2];
        let n = blob.read_at(0, &mut head)?;
        let compressed = looks_gzipped(&head[..n]);
        let mut source = auto_decompress(Box::new(blob))?;
        let mut progress = JsProgress::new(on_progress);
        let summary = scan(source.as_mut(), compressed, &mut progress)?;
        Ok(Session { summary })
    }

    /// What the pass over the file found: `{format, idSize, timestampMs, decodedBytes,
    /// inputBytes, compressed, records, recordsByTag: [{tag, name, count, bytes}]}`.
    pub fn summary(&self) -> Result<JsValue, JsValue> {
        to_js(&self.summary)
    }
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| {
            JsValue::from(Error::io(format!(
                "cannot hand the result to the page: {e}"
            )))
        })
}

/// The page's view of an [`Error`]: a plain object (it crosses `postMessage` intact).
#[derive(Serialize)]
struct JsError<'a> {
    kind: &'static str,
    offset: Option<u64>,
    message: &'a str,
    text: String,
}

impl From<Error> for JsValue {
    fn from(e: Error) -> JsValue {
        let kind = match e.kind {
            ErrorKind::Format => "format",
            ErrorKind::Io => "io",
            ErrorKind::Memory => "memory",
            ErrorKind::Cancelled => "cancelled",
        };
        let js = JsError {
            kind,
            offset: e.offset,
            message: &e.message,
            text: e.to_string(),
        };
        js.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .unwrap_or_else(|_| JsValue::from_str(&e.to_string()))
    }
}
