//! Walking every record of a dump, and the heap sub-records inside HEAP DUMP (SEGMENT)s.
//!
//! Sub-record layouts (`id` = identifier, `u4` = 4-byte unsigned):
//!
//! | sub-tag | record                 | body                                                      |
//! |---------|------------------------|-----------------------------------------------------------|
//! | 0xFF    | ROOT UNKNOWN           | id                                                        |
//! | 0x01    | ROOT JNI GLOBAL        | id, id (the JNI global reference)                         |
//! | 0x02    | ROOT JNI LOCAL         | id, u4 thread serial, u4 frame                            |
//! | 0x03    | ROOT JAVA FRAME        | id, u4 thread serial, u4 frame                            |
//! | 0x04    | ROOT NATIVE STACK      | id, u4 thread serial                                      |
//! | 0x05    | ROOT STICKY CLASS      | id                                                        |
//! | 0x06    | ROOT THREAD BLOCK      | id, u4 thread serial                                      |
//! | 0x07    | ROOT MONITOR USED      | id                                                        |
//! | 0x08    | ROOT THREAD OBJECT     | id, u4 thread serial, u4 stack trace serial               |
//! | 0x20    | CLASS DUMP             | id, u4 stack serial, id super, id loader, id signers, id protection domain, id ×2 reserved, u4 instance size, u2 n × (u2 index, u1 type, value) constants, u2 n × (id name, u1 type, value) statics, u2 n × (id name, u1 type) instance fields |
//! | 0x21    | INSTANCE DUMP          | id, u4 stack serial, id class, u4 n, n bytes of field values (the class's fields first, then its super's) |
//! | 0x22    | OBJECT ARRAY DUMP      | id, u4 stack serial, u4 n, id array class, n × id         |
//! | 0x23    | PRIMITIVE ARRAY DUMP   | id, u4 stack serial, u4 n, u1 element type, n × element   |
//!
//! Android ART (1.0.3) adds: 0x89 interned string, 0x8A finalizing, 0x8B debugger,
//! 0x8C reference cleanup, 0x8D VM internal, 0x90 unreachable (each: id); 0x8E JNI monitor
//! (id, u4 thread serial, u4 frame); 0xC3 primitive array without data (id, u4 stack serial,
//! u4 n, u1 type); 0xFE heap dump info (u4 heap id, id heap name), which says which heap
//! (zygote, image, app) the following objects belong to.
//!
//! [`walk`] drives a [`Visitor`] over the whole stream. It stops at the first malformed
//! or truncated record and reports where ([`WalkEnd::Broken`]), after the visitor has seen
//! every complete record before it: a dump cut off by a crash still yields what it holds.

use super::cursor::{be_id, be_u16, be_u32, Cursor, MAX_WINDOW};
use super::{basic_type, tag, Header};
use std::ops::ControlFlow;

use crate::error::{Error, Result};

/// GC root kinds as written in the dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RootKind {
    Unknown,
    JniGlobal,
    JniLocal,
    JavaFrame,
    NativeStack,
    StickyClass,
    ThreadBlock,
    MonitorUsed,
    ThreadObject,
    // Android ART
    InternedString,
    Finalizing,
    Debugger,
    ReferenceCleanup,
    VmInternal,
    JniMonitor,
    /// ART's 0x90 record ("unreachable" objects ART chose to keep).
    ArtUnreachable,
    /// Not a record kind: MAT's root for entry points of unreachable subgraphs when
    /// keeping unreachable objects.
    Unreachable,
}

/// A static field of a CLASS DUMP; `value` holds the raw bits (the id for references).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaticField {
    pub name_id: u64,
    pub ty: u8,
    pub value: u64,
}

/// An instance field declared by a CLASS DUMP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDecl {
    pub name_id: u64,
    pub ty: u8,
}

#[derive(Debug, Clone, Default)]
pub struct ClassDump {
    pub id: u64,
    pub stack_serial: u32,
    pub super_id: u64,
    pub loader_id: u64,
    pub signers_id: u64,
    pub protection_domain_id: u64,
    pub instance_size: u32,
    pub statics: Vec<StaticField>,
    pub fields: Vec<FieldDecl>,
}

/// Receives the records of a dump in file order. Every method has a default that ignores
/// the record, so a pass implements only what it needs.
#[allow(unused_variables)]
pub trait Visitor {
    /// Whether [`Visitor::instance`] wants the field bytes (otherwise they are skipped).
    const INSTANCE_FIELDS: bool;
    /// Whether [`Visitor::object_array_elements`] is called (otherwise elements are skipped).
    const ARRAY_ELEMENTS: bool;
    /// Whether [`Visitor::primitive_array_data`] is called (otherwise the data is skipped).
    const PRIMITIVE_DATA: bool = false;
    /// With [`Visitor::PRIMITIVE_DATA`]: whether this visitor wants the data of the array
    /// `id` after all (one that needs it only in some runs, or for some arrays, skips it
    /// in the others).
    #[inline(always)]
    fn primitive_data(&mut self, id: u64) -> bool {
        Self::PRIMITIVE_DATA
    }
    /// Whether [`Visitor::allocation_serial`] is called.
    const ALLOCATION_SERIALS: bool = false;

    /// The stack-trace serial number of the object record whose callback comes next
    /// (instance, object or primitive array), when not 0: where it was allocated.
    fn allocation_serial(&mut self, serial: u32) {}
    fn string(&mut self, id: u64, utf8: &[u8], offset: u64) -> Result<()> {
        Ok(())
    }
    fn load_class(&mut self, serial: u32, class_id: u64, stack_serial: u32, name_id: u64) -> Result<()> {
        Ok(())
    }
    fn stack_frame(
        &mut self,
        frame_id: u64,
        method_id: u64,
        signature_id: u64,
        source_id: u64,
        class_serial: u32,
        line: i32,
    ) -> Result<()> {
        Ok(())
    }
    fn stack_trace(&mut self, serial: u32, thread_serial: u32, frames: &[u8], id_size: usize) -> Result<()> {
        Ok(())
    }
    /// Called at the start of each HEAP DUMP / HEAP DUMP SEGMENT.
    fn segment(&mut self, offset: u64, len: u32) -> Result<()> {
        Ok(())
    }
    fn root(&mut self, kind: RootKind, id: u64, thread_serial: Option<u32>, offset: u64) -> Result<()> {
        Ok(())
    }
    /// A JAVA FRAME or JNI LOCAL root, which also names the frame (an index into the
    /// thread's STACK TRACE) holding the object; by default just a [`Visitor::root`].
    fn frame_root(&mut self, kind: RootKind, id: u64, thread_serial: u32, frame: u32, offset: u64) -> Result<()> {
        self.root(kind, id, Some(thread_serial), offset)
    }
    fn thread_object(&mut self, id: u64, thread_serial: u32, stack_serial: u32, offset: u64) -> Result<()> {
        Ok(())
    }
    fn class_dump(&mut self, class: &ClassDump, offset: u64) -> Result<()> {
        Ok(())
    }
    /// Called before each HEAP DUMP (SEGMENT) record with the 1-based number of the
    /// heap-dump snapshot it belongs to (a file can hold several: each ends with a HEAP
    /// DUMP END record, or is one HEAP DUMP record); returning false skips the record unread.
    fn heap_dump(&mut self, snapshot: u32) -> bool {
        true
    }
    /// `fields` is empty unless `INSTANCE_FIELDS`.
    fn instance(&mut self, id: u64, class_id: u64, field_bytes: u32, fields: &[u8], offset: u64) -> Result<()> {
        Ok(())
    }
    fn object_array(&mut self, id: u64, class_id: u64, len: u32, offset: u64) -> Result<()> {
        Ok(())
    }
    /// The elements of the object array announced last, in pieces of whole identifiers.
    fn object_array_elements(&mut self, ids: &[u8]) -> Result<()> {
        Ok(())
    }
    /// After the last piece of elements (only when `ARRAY_ELEMENTS`).
    fn object_array_end(&mut self) -> Result<()> {
        Ok(())
    }
    /// The data of the primitive array announced next, in pieces (only when
    /// `PRIMITIVE_DATA`; called before [`Visitor::primitive_array`] of the same record).
    fn primitive_array_data(&mut self, data: &[u8]) -> Result<()> {
        Ok(())
    }
    /// `has_data` is false for ART's 0xC3 records.
    fn primitive_array(&mut self, id: u64, elem_type: u8, len: u32, has_data: bool, offset: u64) -> Result<()> {
        Ok(())
    }
    fn heap_info(&mut self, heap_id: u32, name_id: u64) -> Result<()> {
        Ok(())
    }
    /// Called every few thousand records with the input position (compressed bytes for
    /// gzip), for progress displays; an error (cancel) stops the walk.
    fn tick(&mut self, input_pos: u64) -> Result<()> {
        Ok(())
    }
    /// Asked after each heap sub-record: `Break` ends the walk there, without an error
    /// (a search that found what it looked for). The passes keep the default.
    #[inline]
    fn flow(&self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

/// Bytes of a STRING record handed to the visitor; the rest of a longer one is skipped.
pub const MAX_STRING: usize = 1 << 20;

/// Sub-records between two [`Visitor::tick`] calls.
const TICK_EVERY: u32 = 1 << 14;

/// How a walk ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalkEnd {
    /// Every record was read (or the walk reached its `stop_at`).
    Complete { end: u64 },
    /// Reading stopped at a malformed or truncated record. `error.offset` is the exact
    /// byte where it went wrong; `stop_at` is the start of the record (or heap
    /// sub-record) that holds it. The visitor saw every record before `stop_at` and none
    /// after it, so a second walk that stops at `stop_at` sees exactly the same records.
    Broken { error: Error, stop_at: u64 },
}

/// Reads every record after the header and hands them to `v`.
///
/// `stop_at` ends the walk early at that offset (pass 2 stops where pass 1 broke off; it
/// may fall inside a heap dump segment, at a sub-record boundary).
///
/// A truncated or malformed record ends the walk with [`WalkEnd::Broken`], not an error:
/// the records before it are still worth a report. Only the visitor's own errors and
/// I/O errors are returned as `Err`.
pub fn walk<V: Visitor>(c: &mut Cursor, header: &Header, v: &mut V, stop_at: Option<u64>) -> Result<WalkEnd> {
    let ids = header.id_size as usize;
    let mut class = ClassDump::default();
    let mut snapshot = Snapshot { number: 0, ended: true };
    loop {
        let rec_start = c.pos();
        if stop_at.is_some_and(|s| rec_start >= s) {
            return Ok(WalkEnd::Complete { end: rec_start });
        }
        // Where pass 2 must stop if this record breaks: its start, or inside a heap dump
        // segment the start of the sub-record that broke.
        let mut resume = rec_start;
        match walk_record(c, ids, rec_start, v, &mut class, stop_at, &mut resume, &mut snapshot) {
            Ok(true) => {}
            Ok(false) => return Ok(WalkEnd::Complete { end: c.pos() }),
            Err(e) if e.kind == crate::error::ErrorKind::Format => {
                return Ok(WalkEnd::Broken { error: e, stop_at: resume })
            }
            Err(e) => return Err(e),
        }
    }
}

/// Which heap-dump snapshot the walk is in: a heap record after a HEAP DUMP END, after
/// a HEAP DUMP (0x0C) record, or the first one, starts the next. A non-segmented dump is
/// one HEAP DUMP record with no END after it, so the old hprof agent's file of several
/// dumps holds several HEAP DUMP records in a row (as MAT counts them).
struct Snapshot {
    number: u32,
    ended: bool,
}

impl Snapshot {
    /// Counts a heap record in; whether the visitor wants it.
    fn starts<V: Visitor>(&mut self, v: &mut V) -> bool {
        if self.ended {
            self.number = self.number.saturating_add(1);
            self.ended = false;
        }
        v.heap_dump(self.number)
    }
}

/// Reads one top-level record; `Ok(false)` at the end of the input (or at `stop_at`).
#[allow(clippy::too_many_arguments)] // the walk's state, passed down rather than kept in a struct the hot loop dereferences
fn walk_record<V: Visitor>(
    c: &mut Cursor,
    ids: usize,
    rec_start: u64,
    v: &mut V,
    class: &mut ClassDump,
    stop_at: Option<u64>,
    resume: &mut u64,
    snapshot: &mut Snapshot,
) -> Result<bool> {
    // A gzip stream that breaks off reports a Format error from these reads: the walk
    // turns it into WalkEnd::Broken like any other truncation.
    if !c.ensure(1)? {
        return Ok(false);
    }
    if !c.ensure(9)? {
        return Err(Error::format(
            rec_start,
            format!("file ends inside a record header: expected 9 bytes (tag, time, length), found {}", c.available()),
        ));
    }
    let w = c.window();
    let t = w[0];
    let len = be_u32(w, 5);
    if !tag::is_known(t) {
        return Err(Error::format(rec_start, format!("unknown record tag 0x{t:02x}: expected a top-level HPROF record (STRING 0x01, LOAD CLASS 0x02, HEAP DUMP SEGMENT 0x1C, ...)")));
    }
    c.advance(9);
    let body = c.pos();
    let end = body + len as u64;
    match t {
        tag::HEAP_DUMP | tag::HEAP_DUMP_SEGMENT if !snapshot.starts(v) => {
            c.skip_exact(len as u64, "a heap dump record")?
        }
        tag::HEAP_DUMP | tag::HEAP_DUMP_SEGMENT => {
            v.segment(rec_start, len)?;
            walk_segment(c, ids, resume, end, v, class, stop_at)?;
            if stop_at.is_some_and(|s| c.pos() >= s) {
                // Pass 2 stops where pass 1 broke off, possibly inside this segment.
                return Ok(false);
            }
        }
        tag::STRING => read_string(c, ids, len, v)?,
        tag::LOAD_CLASS => read_fixed(c, len, 4 + ids + 4 + ids, "a LOAD CLASS record", |w| {
            v.load_class(be_u32(w, 0), be_id(w, 4, ids), be_u32(w, 4 + ids), be_id(w, 8 + ids, ids))
        })?,
        tag::STACK_FRAME => read_fixed(c, len, 4 * ids + 8, "a STACK FRAME record", |w| {
            v.stack_frame(
                be_id(w, 0, ids),
                be_id(w, ids, ids),
                be_id(w, 2 * ids, ids),
                be_id(w, 3 * ids, ids),
                be_u32(w, 4 * ids),
                be_u32(w, 4 * ids + 4) as i32,
            )
        })?,
        tag::STACK_TRACE => read_stack_trace(c, ids, len, v)?,
        tag::HEAP_DUMP_END => {
            snapshot.ended = true;
            c.skip_exact(len as u64, "a HEAP DUMP END record")?
        }
        _ => c.skip_exact(len as u64, "a record body")?,
    }
    if t == tag::HEAP_DUMP {
        snapshot.ended = true;
    }
    if c.pos() != end {
        return Err(Error::format(
            c.pos(),
            format!(
                "record at byte {rec_start} (tag 0x{t:02x}) declares {len} bytes but its contents end at byte {}",
                c.pos()
            ),
        ));
    }
    Ok(true)
}

/// Walks the sub-records from the cursor's position (a sub-record boundary inside a heap
/// dump segment ending at `segment_end`), e.g. to read one object again. The visitor
/// stops the walk early through [`Visitor::flow`].
pub fn walk_span<V: Visitor>(c: &mut Cursor, id_size: u32, segment_end: u64, v: &mut V) -> Result<()> {
    let mut sub_record = c.pos();
    walk_segment(c, id_size as usize, &mut sub_record, segment_end, v, &mut ClassDump::default(), None)
}

/// A record whose body has a fixed size: checks the length, then decodes.
fn read_fixed(c: &mut Cursor, len: u32, want: usize, what: &str, f: impl FnOnce(&[u8]) -> Result<()>) -> Result<()> {
    if len as usize != want {
        return Err(Error::format(c.pos() - 4, format!("{what} must be {want} bytes long, the record says {len}")));
    }
    c.need(want, what)?;
    f(&c.window()[..want])?;
    c.advance(want);
    Ok(())
}

fn read_string<V: Visitor>(c: &mut Cursor, ids: usize, len: u32, v: &mut V) -> Result<()> {
    let at = c.pos();
    if (len as usize) < ids {
        return Err(Error::format(
            at - 4,
            format!("a STRING record must hold at least an identifier ({ids} bytes), the record says {len}"),
        ));
    }
    // Names are short (a Java symbol is at most 65535 bytes): a giant string record is
    // kept only up to MAX_STRING and skipped after that, so its length field never sizes
    // a buffer.
    let text = (len as usize - ids).min(MAX_STRING);
    c.need(ids + text, "a STRING record")?;
    let w = c.window();
    v.string(be_id(w, 0, ids), &w[ids..ids + text], at)?;
    c.advance(ids + text);
    c.skip_exact((len as usize - ids - text) as u64, "a STRING record")
}

fn read_stack_trace<V: Visitor>(c: &mut Cursor, ids: usize, len: u32, v: &mut V) -> Result<()> {
    c.need(12, "a STACK TRACE record")?;
    let w = c.window();
    let (serial, thread, n) = (be_u32(w, 0), be_u32(w, 4), be_u32(w, 8) as u64);
    if 12 + n * ids as u64 != len as u64 {
        return Err(Error::format(
            c.pos(),
            format!("a STACK TRACE of {n} frames must be {} bytes long, the record says {len}", 12 + n * ids as u64),
        ));
    }
    c.advance(12);
    let frames = n as usize * ids;
    c.need(frames, "the frames of a STACK TRACE")?;
    v.stack_trace(serial, thread, &c.window()[..frames], ids)?;
    c.advance(frames);
    Ok(())
}

/// Reads the sub-records of a heap dump segment ending at `end`.
///
/// `sub_record` is kept at the start of the sub-record being read: when one breaks,
/// that is where the records the visitor has seen end. Every sub-record is checked to
/// lie inside the segment *before* the visitor sees it, and arrays and instances are
/// handed over only once their payload is known to be there (except object array
/// elements, which stream), so a visitor never sees a record that breaks.
///
/// Not inlined in wasm: the page's wasm engine (V8) runs a function in baseline code
/// until its optimized code is ready, and only calls made after that use it (wasm has
/// no on-stack replacement). Called once per segment (a dump of 1 GB has about a
/// thousand), a pass switches to optimized code at the next segment; inlined into the
/// walk, it would stay in baseline code to the end of the pass when the optimizing
/// compiler had not finished with it as the pass started.
#[cfg_attr(target_arch = "wasm32", inline(never))]
fn walk_segment<V: Visitor>(
    c: &mut Cursor,
    ids: usize,
    sub_record: &mut u64,
    end: u64,
    v: &mut V,
    class: &mut ClassDump,
    stop_at: Option<u64>,
) -> Result<()> {
    let mut until_tick = TICK_EVERY;
    loop {
        until_tick -= 1;
        if until_tick == 0 {
            until_tick = TICK_EVERY;
            v.tick(c.input_pos())?;
        }
        let at = c.pos();
        *sub_record = at;
        if at >= end || stop_at.is_some_and(|s| at >= s) || v.flow().is_break() {
            break;
        }
        if !c.ensure(1)? {
            return Err(Error::format(at, format!("file ends inside a heap dump segment that should continue to byte {end}; expected a heap sub-record")));
        }
        let sub = c.window()[0];
        // Size of the fixed-size sub-records (0 for the others). The object records
        // (CLASS, INSTANCE, OBJECT ARRAY, PRIMITIVE ARRAY DUMP: nearly every record) first.
        let fixed = match sub {
            0x20..=0x23 => 0,
            0xFF | 0x05 | 0x07 | 0x89 | 0x8A | 0x8B | 0x8C | 0x8D | 0x90 => 1 + ids,
            0x01 => 1 + 2 * ids,
            0x02 | 0x03 | 0x8E | 0x08 => 1 + ids + 8,
            0x04 | 0x06 => 1 + ids + 4,
            0xFE => 1 + 4 + ids,
            _ => 0,
        };
        if fixed != 0 {
            if at + fixed as u64 > end {
                return Err(past_segment_end(at, sub, end));
            }
            c.need(fixed, fixed_record_name(sub))?;
        }
        match sub {
            0xFF | 0x05 | 0x07 | 0x89 | 0x8A | 0x8B | 0x8C | 0x8D | 0x90 => {
                let id = be_id(c.window(), 1, ids);
                let kind = match sub {
                    0xFF => RootKind::Unknown,
                    0x05 => RootKind::StickyClass,
                    0x07 => RootKind::MonitorUsed,
                    0x89 => RootKind::InternedString,
                    0x8A => RootKind::Finalizing,
                    0x8B => RootKind::Debugger,
                    0x8C => RootKind::ReferenceCleanup,
                    0x8D => RootKind::VmInternal,
                    _ => RootKind::ArtUnreachable,
                };
                c.advance(fixed);
                v.root(kind, id, None, at)?;
            }
            0x01 => {
                let id = be_id(c.window(), 1, ids);
                c.advance(fixed);
                v.root(RootKind::JniGlobal, id, None, at)?;
            }
            0x02 | 0x03 | 0x8E | 0x04 | 0x06 => {
                let w = c.window();
                let (id, thread) = (be_id(w, 1, ids), be_u32(w, 1 + ids));
                let frame = if matches!(sub, 0x02 | 0x03) { Some(be_u32(w, 5 + ids)) } else { None };
                let kind = match sub {
                    0x02 => RootKind::JniLocal,
                    0x03 => RootKind::JavaFrame,
                    0x8E => RootKind::JniMonitor,
                    0x04 => RootKind::NativeStack,
                    _ => RootKind::ThreadBlock,
                };
                c.advance(fixed);
                match frame {
                    Some(frame) => v.frame_root(kind, id, thread, frame, at)?,
                    None => v.root(kind, id, Some(thread), at)?,
                }
            }
            0x08 => {
                let w = c.window();
                let (id, thread, stack) = (be_id(w, 1, ids), be_u32(w, 1 + ids), be_u32(w, 5 + ids));
                c.advance(fixed);
                v.thread_object(id, thread, stack, at)?;
            }
            0xFE => {
                let w = c.window();
                let (heap, name) = (be_u32(w, 1), be_id(w, 5, ids));
                c.advance(fixed);
                v.heap_info(heap, name)?;
            }
            0x20 => {
                read_class_dump(c, ids, class)?;
                if c.pos() > end {
                    return Err(past_segment_end(at, sub, end));
                }
                v.class_dump(class, at)?;
            }
            0x21 => {
                let head = 1 + 2 * ids + 8;
                c.need(head, "an INSTANCE DUMP record")?;
                let w = c.window();
                let id = be_id(w, 1, ids);
                let class_id = be_id(w, 5 + ids, ids);
                let n = be_u32(w, 5 + 2 * ids);
                allocation_serial(v, w, ids);
                if at + head as u64 + n as u64 > end {
                    return Err(Error::format(
                        at + 5 + 2 * ids as u64,
                        format!("INSTANCE DUMP at byte {at} claims {n} bytes of fields, past the end of its heap dump segment at byte {end}; expected at most {}", end.saturating_sub(at + head as u64)),
                    ));
                }
                // Both passes must accept the same records: refuse here what a pass
                // reading the fields (`need`) could not hold, even when skipping them.
                if n as usize > MAX_WINDOW {
                    return Err(Error::format(at + 5 + 2 * ids as u64, format!("INSTANCE DUMP at byte {at} claims {n} bytes of fields; expected at most {MAX_WINDOW}")));
                }
                c.advance(head);
                if V::INSTANCE_FIELDS {
                    c.need(n as usize, "the fields of an INSTANCE DUMP")?;
                    v.instance(id, class_id, n, &c.window()[..n as usize], at)?;
                    c.advance(n as usize);
                } else {
                    c.skip_exact(n as u64, "the fields of an INSTANCE DUMP")?;
                    v.instance(id, class_id, n, &[], at)?;
                }
            }
            0x22 => {
                let head = 1 + 2 * ids + 8;
                c.need(head, "an OBJECT ARRAY DUMP record")?;
                let w = c.window();
                let id = be_id(w, 1, ids);
                let n = be_u32(w, 5 + ids);
                let class_id = be_id(w, 9 + ids, ids);
                allocation_serial(v, w, ids);
                let bytes = n as u64 * ids as u64;
                if at + head as u64 + bytes > end {
                    return Err(Error::format(
                        at + 5 + ids as u64,
                        format!("OBJECT ARRAY DUMP at byte {at} claims {n} elements ({bytes} bytes), past the end of its heap dump segment at byte {end}; expected at most {}", end.saturating_sub(at + head as u64) / ids as u64),
                    ));
                }
                c.advance(head);
                if V::ARRAY_ELEMENTS {
                    // Streamed in pieces of whole identifiers, never buffered whole.
                    v.object_array(id, class_id, n, at)?;
                    let mut left = bytes as usize;
                    while left > 0 {
                        c.need(ids, "the elements of an OBJECT ARRAY DUMP")?;
                        let piece = (c.available().min(left) / ids) * ids;
                        let piece = if piece == 0 { ids } else { piece };
                        v.object_array_elements(&c.window()[..piece])?;
                        c.advance(piece);
                        left -= piece;
                    }
                    v.object_array_end()?;
                } else {
                    c.skip_exact(bytes, "the elements of an OBJECT ARRAY DUMP")?;
                    v.object_array(id, class_id, n, at)?;
                }
            }
            0x23 | 0xC3 => {
                let head = 1 + ids + 9;
                c.need(head, "a PRIMITIVE ARRAY DUMP record")?;
                let w = c.window();
                let id = be_id(w, 1, ids);
                let n = be_u32(w, 5 + ids);
                let ty = w[9 + ids];
                allocation_serial(v, w, ids);
                let Some(size) = basic_type::primitive_size(ty) else {
                    return Err(Error::format(at + 9 + ids as u64, format!("primitive array element type {ty}: expected 4 (boolean) to 11 (long)")));
                };
                let has_data = sub == 0x23;
                let bytes = if has_data { n as u64 * size as u64 } else { 0 };
                if at + head as u64 + bytes > end {
                    return Err(Error::format(
                        at + 5 + ids as u64,
                        format!("PRIMITIVE ARRAY DUMP at byte {at} claims {n} elements ({bytes} bytes), past the end of its heap dump segment at byte {end}; expected at most {}", end.saturating_sub(at + head as u64) / size as u64),
                    ));
                }
                c.advance(head);
                if V::PRIMITIVE_DATA && bytes > 0 && v.primitive_data(id) {
                    // Streamed in pieces, never buffered whole. A cut is reported as a
                    // skip reports it: the passes differ in which of the two they do.
                    let elements = c.pos();
                    let mut left = bytes as usize;
                    while left > 0 {
                        if !c.ensure(1)? {
                            let what = "the elements of a PRIMITIVE ARRAY DUMP";
                            return Err(Error::format(elements, format!("file ends {} bytes into {what} of {bytes} bytes", bytes as usize - left)));
                        }
                        let piece = c.available().min(left);
                        v.primitive_array_data(&c.window()[..piece])?;
                        c.advance(piece);
                        left -= piece;
                    }
                } else {
                    c.skip_exact(bytes, "the elements of a PRIMITIVE ARRAY DUMP")?;
                }
                v.primitive_array(id, ty, n, has_data, at)?;
            }
            _ => {
                return Err(Error::format(
                    at,
                    format!("unknown heap dump sub-record tag 0x{sub:02x}: expected a GC root (0x01-0x08, 0xFF, ART 0x89-0x90), CLASS DUMP 0x20, INSTANCE DUMP 0x21, OBJECT ARRAY DUMP 0x22, PRIMITIVE ARRAY DUMP 0x23 (ART 0xC3) or HEAP DUMP INFO 0xFE"),
                ))
            }
        }
    }
    Ok(())
}

/// Hands an object record's stack-trace serial (right after its id) to the visitor.
#[inline(always)]
fn allocation_serial<V: Visitor>(v: &mut V, record: &[u8], ids: usize) {
    if V::ALLOCATION_SERIALS {
        let serial = be_u32(record, 1 + ids);
        if serial != 0 {
            v.allocation_serial(serial);
        }
    }
}

fn fixed_record_name(sub: u8) -> &'static str {
    match sub {
        0x08 => "a THREAD OBJECT root record",
        0xFE => "a HEAP DUMP INFO record",
        0x02 | 0x03 | 0x04 | 0x06 | 0x8E => "a thread-local GC root record",
        _ => "a GC root record",
    }
}

#[cold]
fn past_segment_end(at: u64, sub: u8, end: u64) -> Error {
    Error::format(at, format!("heap sub-record (tag 0x{sub:02x}) runs past the end of its heap dump segment at byte {end}; expected the segment to end at a record boundary"))
}

fn read_class_dump(c: &mut Cursor, ids: usize, class: &mut ClassDump) -> Result<()> {
    let what = "a CLASS DUMP record";
    let head = 1 + 7 * ids + 8 + 2;
    c.need(head, what)?;
    let w = c.window();
    class.id = be_id(w, 1, ids);
    class.stack_serial = be_u32(w, 1 + ids);
    class.super_id = be_id(w, 5 + ids, ids);
    class.loader_id = be_id(w, 5 + 2 * ids, ids);
    class.signers_id = be_id(w, 5 + 3 * ids, ids);
    class.protection_domain_id = be_id(w, 5 + 4 * ids, ids);
    class.instance_size = be_u32(w, 5 + 7 * ids);
    let constants = be_u16(w, 9 + 7 * ids);
    c.advance(head);
    for _ in 0..constants {
        c.need(3, what)?;
        let ty = c.window()[2];
        let size = value_size(c.pos() + 2, ty, ids, "constant pool entry")?;
        c.advance(3);
        c.skip_exact(size as u64, what)?;
    }
    c.need(2, what)?;
    let statics = be_u16(c.window(), 0);
    c.advance(2);
    class.statics.clear();
    for _ in 0..statics {
        c.need(ids + 1, what)?;
        let w = c.window();
        let (name_id, ty) = (be_id(w, 0, ids), w[ids]);
        let size = value_size(c.pos() + ids as u64, ty, ids, "static field")?;
        c.advance(ids + 1);
        c.need(size, what)?;
        let w = c.window();
        let value = match size {
            1 => w[0] as u64,
            2 => be_u16(w, 0) as u64,
            4 => be_u32(w, 0) as u64,
            _ => super::cursor::be_u64(w, 0),
        };
        c.advance(size);
        class.statics.push(StaticField { name_id, ty, value });
    }
    c.need(2, what)?;
    let fields = be_u16(c.window(), 0);
    c.advance(2);
    class.fields.clear();
    for _ in 0..fields {
        c.need(ids + 1, what)?;
        let w = c.window();
        let (name_id, ty) = (be_id(w, 0, ids), w[ids]);
        if basic_type::value_size(ty, ids as u32).is_none() {
            return Err(Error::format(
                c.pos() + ids as u64,
                format!("CLASS DUMP instance field of type {ty}: expected 2 (object) or 4 (boolean) to 11 (long)"),
            ));
        }
        c.advance(ids + 1);
        class.fields.push(FieldDecl { name_id, ty });
    }
    Ok(())
}

/// Size of a CLASS DUMP value of type `ty` (at byte `at`), or an error naming `what`.
fn value_size(at: u64, ty: u8, ids: usize, what: &str) -> Result<usize> {
    basic_type::value_size(ty, ids as u32).map(|s| s as usize).ok_or_else(|| {
        Error::format(at, format!("CLASS DUMP {what} of type {ty}: expected 2 (object) or 4 (boolean) to 11 (long)"))
    })
}
