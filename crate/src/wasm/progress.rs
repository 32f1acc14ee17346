//! Progress reports to a JS callback, at most a few per second.
//!
//! The callback receives one plain object per report:
//! `{ phase, bytesDone, bytesTotal, decodedBytes, objects }` where `bytesDone`/`bytesTotal`
//! count bytes of the *input* (the compressed bytes for a `.gz`), so the page can show a
//! true fraction and a read rate; `bytesTotal` and `decodedBytes` are `null` when unknown.
//! A new phase is always reported at once.
//! If the callback throws, the work stops with a `Cancelled` error carrying its message.

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::JsValue;

use crate::analysis::{Progress, ProgressInfo};
use crate::error::{Error, ErrorKind, Result};

/// Minimum time between two reports of the same phase (the last one of a phase is forced).
const INTERVAL_MS: f64 = 100.0;

pub struct JsProgress {
    callback: Option<Function>,
    last_ms: f64,
    last_phase: &'static str,
}

impl JsProgress {
    pub fn new(callback: Option<Function>) -> JsProgress {
        JsProgress {
            callback,
            last_ms: f64::NEG_INFINITY,
            last_phase: "",
        }
    }

    /// Reports unless one went out less than [`INTERVAL_MS`] ago for the same phase
    /// (`force` sends it anyway: phase ends, the final 100%).
    pub fn report(
        &mut self,
        phase: &'static str,
        bytes_done: u64,
        bytes_total: Option<u64>,
        decoded_bytes: Option<u64>,
        objects: u64,
        force: bool,
    ) -> Result<()> {
        let Some(callback) = &self.callback else {
            return Ok(());
        };
        let now = js_sys::Date::now();
        if !force && phase == self.last_phase && now - self.last_ms < INTERVAL_MS {
            return Ok(());
        }
        self.last_ms = now;
        self.last_phase = phase;
        let info = Object::new();
        let set = |key: &str, value: JsValue| {
            // Setting a data property on a fresh plain object cannot fail.
            let _ = Reflect::set(&info, &JsValue::from_str(key), &value);
        };
        set("phase", JsValue::from_str(phase));
        set("bytesDone", JsValue::from_f64(bytes_done as f64));
        set(
            "bytesTotal",
            bytes_total.map_or(JsValue::NULL, |t| JsValue::from_f64(t as f64)),
        );
        set(
            "decodedBytes",
            decoded_bytes.map_or(JsValue::NULL, |d| JsValue::from_f64(d as f64)),
        );
        set("objects", JsValue::from_f64(objects as f64));
        callback.call1(&JsValue::NULL, &info).map_err(|e| Error {
            kind: ErrorKind::Cancelled,
            offset: None,
            message: format!("stopped by the page: {}", super::blob_source::js_text(&e)),
        })?;
        Ok(())
    }
}

/// The analysis core reports through the same callback (phase names from `Phase::name`).
impl Progress for JsProgress {
    fn update(&mut self, info: &ProgressInfo) -> Result<()> {
        self.report(
            info.phase.name(),
            info.bytes_done,
            info.bytes_total,
            None,
            info.objects,
            false,
        )
    }
}
