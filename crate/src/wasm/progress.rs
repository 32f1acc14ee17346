//! Progress reports to a JS callback, at most a few per second.
//!
//! The callback receives one plain object per report:
//! `{ phase, bytesDone, bytesTotal, objects }` where `bytesDone`/`bytesTotal` count bytes
//! of the *input* (the compressed bytes for a `.gz`), so the page can show a true fraction
//! and a read rate; `bytesTotal` is `null` when unknown. A new phase is always reported at
//! once. If the callback throws, the work stops with a `Cancelled` error carrying its
//! message.
//!
//! Two things report: the core (phases, objects, through [`crate::analysis::Progress`])
//! and the [`super::BlobSource`] after each chunk it reads from the file (so the bytes
//! move even where the core reports rarely, e.g. through huge arrays). They share one
//! [`JsProgress`] through a [`ProgressHandle`].

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::JsValue;

use crate::analysis::{Progress, ProgressInfo};
use crate::error::{Error, ErrorKind, Result};

/// Minimum time between two reports of the same phase.
const INTERVAL_MS: f64 = 100.0;

pub struct JsProgress {
    callback: Option<Function>,
    /// One record per phase, in order (see [`PhaseRecord`]).
    records: Vec<PhaseRecord>,
    last_ms: f64,
    phase: &'static str,
    bytes_done: u64,
    bytes_total: Option<u64>,
    objects: u64,
}

impl JsProgress {
    pub fn new(callback: Option<Function>) -> JsProgress {
        JsProgress {
            callback,
            records: Vec::new(),
            last_ms: f64::NEG_INFINITY,
            phase: "",
            bytes_done: 0,
            bytes_total: None,
            objects: 0,
        }
    }

    /// Sends the current state unless one went out less than [`INTERVAL_MS`] ago
    /// (a new phase always goes out).
    fn send(&mut self, new_phase: bool) -> Result<()> {
        let Some(callback) = &self.callback else {
            return Ok(());
        };
        let now = js_sys::Date::now();
        if !new_phase && now - self.last_ms < INTERVAL_MS {
            return Ok(());
        }
        self.last_ms = now;
        let info = Object::new();
        let set = |key: &str, value: JsValue| {
            // Setting a data property on a fresh plain object cannot fail.
            let _ = Reflect::set(&info, &JsValue::from_str(key), &value);
        };
        set("phase", JsValue::from_str(self.phase));
        set("bytesDone", JsValue::from_f64(self.bytes_done as f64));
        set("bytesTotal", self.bytes_total.map_or(JsValue::NULL, |t| JsValue::from_f64(t as f64)));
        set("objects", JsValue::from_f64(self.objects as f64));
        callback.call1(&JsValue::NULL, &info).map_err(|e| Error {
            kind: ErrorKind::Cancelled,
            offset: None,
            message: crate::text::one_line(format!("stopped by the page: {}", super::blob_source::js_text(&e))),
        })?;
        Ok(())
    }
}

/// What one phase cost: wall time, bytes read from the file, the allocator's bytes at its
/// end and their peak during it, the linear memory at its end.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseRecord {
    pub phase: &'static str,
    pub start_ms: f64,
    pub end_ms: f64,
    pub bytes_read: u64,
    pub allocated: u64,
    pub peak_allocated: u64,
    pub memory: u64,
}

impl JsProgress {
    /// Ends the current phase's record and starts `next`'s ("" to end the last).
    fn close_phase(&mut self, next: &'static str) {
        let now = js_sys::Date::now();
        let read = super::blob_source::FETCHED.load(std::sync::atomic::Ordering::Relaxed);
        let peak = super::heap_stats::take_peak() as u64;
        if let Some(last) = self.records.last_mut() {
            last.end_ms = now;
            last.bytes_read = read - last.bytes_read;
            last.allocated = super::heap_stats::allocated() as u64;
            last.peak_allocated = peak;
            last.memory = super::session::memory_bytes();
        }
        if !next.is_empty() {
            self.records.push(PhaseRecord {
                phase: next,
                start_ms: now,
                end_ms: now,
                bytes_read: read,
                allocated: 0,
                peak_allocated: 0,
                memory: 0,
            });
        }
    }
}

/// The analysis core reports through this (phase names from `Phase::name`).
impl Progress for JsProgress {
    fn update(&mut self, p: &ProgressInfo) -> Result<()> {
        let phase = p.phase.name();
        let new_phase = phase != self.phase;
        if new_phase {
            self.close_phase(phase);
        }
        self.phase = phase;
        // Within a phase the position only moves forward (the source reads ahead of the
        // core's cursor; a new pass starts again from 0).
        self.bytes_done = if new_phase { p.bytes_done } else { self.bytes_done.max(p.bytes_done) };
        self.bytes_total = p.bytes_total;
        self.objects = p.objects;
        self.send(new_phase)
    }
}

/// One [`JsProgress`] shared by the core and the file source.
#[derive(Clone)]
pub struct ProgressHandle(Rc<RefCell<JsProgress>>);

impl ProgressHandle {
    pub fn new(callback: Option<Function>) -> ProgressHandle {
        ProgressHandle(Rc::new(RefCell::new(JsProgress::new(callback))))
    }

    /// The source has read the input up to `pos` (of `total` bytes): report it within the
    /// current phase, once a phase has started.
    /// Ends the last phase's record and returns them all.
    pub fn finish(&self) -> Vec<PhaseRecord> {
        let mut p = self.0.borrow_mut();
        p.close_phase("");
        std::mem::take(&mut p.records)
    }

    pub fn input_read(&self, pos: u64, total: u64) -> Result<()> {
        let Ok(mut p) = self.0.try_borrow_mut() else { return Ok(()) };
        if p.phase.is_empty() || pos <= p.bytes_done {
            return Ok(());
        }
        p.bytes_done = pos;
        p.bytes_total.get_or_insert(total);
        p.send(false)
    }
}

impl Progress for ProgressHandle {
    fn update(&mut self, info: &ProgressInfo) -> Result<()> {
        self.0.borrow_mut().update(info)
    }
}
