//! Stack traces as pass 1 reads them: STACK FRAME and STACK TRACE records, the class
//! serial numbers of LOAD CLASS records (a frame names its class by serial), and the
//! frame number of every JAVA FRAME and JNI LOCAL root (which frame holds the object).
//!
//! These records are few (one trace per thread in a HotSpot heap dump, a handful of
//! frames each; allocation-site dumps have more), so plain maps and vectors hold them.
//! Everything is kept in file order; nothing here is per object.

use std::collections::HashMap;

/// One STACK FRAME record (string ids as in the dump).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub method: u64,
    pub signature: u64,
    pub source_file: u64,
    pub class_serial: u32,
    /// > 0 a line number; 0 none; -1 unknown; -2 compiled; -3 native.
    pub line: i32,
}

/// One STACK TRACE record: its frames, innermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    pub serial: u32,
    pub thread_serial: u32,
    pub frames: Vec<u64>,
}

/// A JAVA FRAME or JNI LOCAL root: the object `id` held by frame `frame` of the thread
/// with serial `thread_serial`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLocal {
    pub thread_serial: u32,
    pub frame: u32,
    pub id: u64,
}

#[derive(Debug, Default)]
pub struct Stacks {
    pub frames: HashMap<u64, Frame>,
    pub traces: Vec<Trace>,
    /// LOAD CLASS serial → string id of the class name.
    pub class_names: HashMap<u32, u64>,
    /// Frame-local roots, in file order (MAT lists a frame's locals in that order).
    pub locals: Vec<FrameLocal>,
}
