//! The thread overview, as Eclipse MAT's: every thread object with its name, daemon
//! flag, priority, context class loader, shallow and retained size, and its stack (one
//! line per frame, as MAT prints it) with the objects each frame holds as locals.
//!
//! Terms:
//! - a *thread* is a kept instance of `java.lang.Thread` or a subclass (MAT lists every
//!   one, whether or not the dump has a THREAD OBJECT root for it);
//! - its *stack* is the STACK TRACE whose thread serial is the one of the thread's THREAD
//!   OBJECT record; a thread without one has "no stack recorded" (compiler threads in
//!   HotSpot dumps, every thread of most Android dumps);
//! - a frame's *locals* are the JAVA FRAME and JNI LOCAL roots naming the thread's serial
//!   and that frame number, in file order (an object held twice is listed twice, as MAT
//!   does). Locals of frames the stack does not have (or of a thread without a stack) are
//!   listed apart.
//!
//! Cost: one scan of the class column to find the threads, then per thread a few reads
//! of single records (its fields, its name): threads are few, nothing is per object.

use std::collections::HashMap;

use crate::analysis::{object_ref, Analysis};
use crate::error::Result;
use crate::index::stacks::{Frame, Trace};
use crate::mapping::Mapping;
use crate::model::format::{basis_points, parse_address};
use crate::model::threads::{ThreadFrame, ThreadInfo};
use crate::readback::object::{object_details, FieldValue};

/// MAT's text for a frame: `at CLASS.METHODSIGNATURE (SOURCE…)`.
pub fn frame_text(a: &Analysis, f: &Frame) -> String {
    let (class, method, signature, source) = frame_parts(a, f);
    mat_frame(&class, &method, &signature, &source, f.line)
}

/// The frame's class (dotted), method, signature and source file, as the dump names them.
fn frame_parts(a: &Analysis, f: &Frame) -> (String, String, String, String) {
    let strings = &a.heap.index.strings;
    let text = |id: u64| if id == 0 { String::new() } else { strings.name(id) };
    let class = match a.heap.index.stacks.class_names.get(&f.class_serial) {
        Some(&name) => text(name).replace('/', "."),
        None => "<UNKNOWN CLASS>".to_string(),
    };
    (class, text(f.method), text(f.signature), text(f.source_file))
}

/// `at CLASS.METHODSIGNATURE (SOURCE:LINE)`, MAT's form (`line`: > 0 a line, 0 none, -1
/// unknown, -2 compiled, -3 native).
fn mat_frame(class: &str, method: &str, signature: &str, source: &str, line: i32) -> String {
    let location = match line {
        l if l > 0 => format!(":{l}"),
        -2 => "(Compiled method)".to_string(),
        -3 => "(Native Method)".to_string(),
        _ => String::new(),
    };
    format!("at {class}.{method}{signature} ({source}{location})")
}

/// The frame as MAT prints it, retraced through `mapping` when it has one (see
/// [`crate::mapping::retrace`]): one text, or several, innermost first, where R8 inlined
/// methods into the frame's.
pub fn frame_texts(a: &Analysis, f: &Frame, mapping: Option<&Mapping>) -> Vec<String> {
    let (class, method, signature, source) = frame_parts(a, f);
    match mapping.and_then(|m| m.retrace_frame(&class, &method, &signature, &source, f.line)) {
        Some(frames) => {
            frames.iter().map(|r| mat_frame(&r.class, &r.method, &r.descriptor, &r.source_file, r.line)).collect()
        }
        None => vec![mat_frame(&class, &method, &signature, &source, f.line)],
    }
}

/// After the reading changed: each thread's retained size from the tree in use, and the
/// strength-aware tree's beside MAT's when the report reads MAT's tree and the other one
/// was computed too.
pub fn refresh_sizes(a: &Analysis, threads: &mut [ThreadInfo]) {
    use crate::model::Reading;
    for t in threads.iter_mut() {
        let Some(obj) = u64::from_str_radix(t.address.trim_start_matches("0x"), 16).ok().and_then(|id| a.object_at(id))
        else {
            continue;
        };
        t.retained_bytes = a.retained(obj);
        t.retained_bp = basis_points(t.retained_bytes, a.used_heap);
        t.strength_retained_bytes =
            if a.reading == Reading::Mat { a.retained_in(Reading::Strength, obj) } else { None };
    }
    // Largest retained first, as collected.
    let address = |t: &ThreadInfo| u64::from_str_radix(t.address.trim_start_matches("0x"), 16).unwrap_or(0);
    threads.sort_by(|x, y| y.retained_bytes.cmp(&x.retained_bytes).then(address(x).cmp(&address(y))));
}

/// The last field called `name` (the deepest class declaring it: java.lang.Thread's
/// own fields come after a subclass's).
fn field<'f>(fields: &'f [FieldValue], name: &str) -> Option<&'f FieldValue> {
    fields.iter().rev().find(|f| f.name == name && !f.is_static)
}

/// The thread overview: every kept thread object, largest retained first; frames
/// retraced through `mapping` when one was applied (a frame R8 inlined methods into
/// becomes one frame per method, the locals on the last: the method the stack ran).
pub fn collect(a: &mut Analysis, mapping: Option<&Mapping>) -> Result<Vec<ThreadInfo>> {
    let is_thread = a.heap.index.classes.all_extending("java.lang.Thread");
    if !is_thread.iter().any(|&t| t) {
        return Ok(Vec::new());
    }
    let mut objects: Vec<u32> = Vec::new();
    a.heap.classes.objects_of(&is_thread, |v| {
        if a.is_kept(v) {
            crate::alloc::try_push(&mut objects, v, "the thread objects")?;
        }
        Ok(())
    })?;
    objects.sort_by(|&x, &y| a.retained(y).cmp(&a.retained(x)).then(x.cmp(&y)));

    // Thread object → its THREAD OBJECT record; thread serial → its stack and locals.
    let index = &a.heap.index;
    let records: HashMap<u64, (u32, u32)> = index.threads.iter().map(|t| (t.id, (t.serial, t.stack_serial))).collect();
    let mut traces: HashMap<u32, &Trace> = HashMap::new();
    let mut by_serial: HashMap<u32, &Trace> = HashMap::new();
    for t in &index.stacks.traces {
        traces.entry(t.thread_serial).or_insert(t);
        by_serial.entry(t.serial).or_insert(t);
    }
    let mut locals: HashMap<u32, Vec<(u32, u64)>> = HashMap::new();
    for l in &index.stacks.locals {
        locals.entry(l.thread_serial).or_default().push((l.frame, l.id));
    }
    let mut plan = Vec::with_capacity(objects.len());
    for &obj in &objects {
        let (trace, held) = match records.get(&a.address(obj)) {
            Some(&(serial, stack_serial)) => {
                // The trace the THREAD OBJECT record names, if it is this thread's.
                let trace =
                    by_serial.get(&stack_serial).filter(|t| t.thread_serial == serial).or(traces.get(&serial)).copied();
                (trace.cloned(), locals.get(&serial).cloned().unwrap_or_default())
            }
            None => (None, Vec::new()),
        };
        plan.push((obj, trace, held));
    }

    let mut out = Vec::with_capacity(plan.len());
    for (obj, trace, held) in plan {
        let details = object_details(a, obj)?;
        let mut daemon = field(&details.fields, "daemon").map(|f| f.value == "true");
        let mut priority = field(&details.fields, "priority").and_then(|f| f.value.parse().ok());
        if let Some(holder) =
            field(&details.fields, "holder").and_then(|f| f.reference.as_ref()).and_then(|r| parse_address(&r.address))
        {
            // JDK 19+ keeps these in Thread.FieldHolder.
            if let Some(h) = a.object_at(holder) {
                let hd = object_details(a, h)?;
                daemon = daemon.or(field(&hd.fields, "daemon").map(|f| f.value == "true"));
                priority = priority.or(field(&hd.fields, "priority").and_then(|f| f.value.parse().ok()));
            }
        }
        let context_class_loader = field(&details.fields, "contextClassLoader")
            .and_then(|f| f.reference.as_ref())
            .map(|r| format!("{} @ {}", r.class_name, r.address));
        let name = match field(&details.fields, "name")
            .and_then(|f| f.reference.as_ref())
            .and_then(|r| parse_address(&r.address))
            .and_then(|x| a.object_at(x))
        {
            Some(n) => object_details(a, n)?.text,
            None => None,
        };
        let local_ref = |id: u64| a.object_at(id).filter(|&o| a.is_kept(o)).map(|o| object_ref(a, o));
        let (frames, other_locals) = match &trace {
            Some(t) => {
                let mut frames: Vec<ThreadFrame> = Vec::with_capacity(t.frames.len());
                for (k, fid) in t.frames.iter().enumerate() {
                    let texts = match a.heap.index.stacks.frames.get(fid) {
                        Some(f) => frame_texts(a, f, mapping),
                        None => vec![format!("at <unknown frame 0x{fid:x}>")],
                    };
                    let n = texts.len();
                    for (i, frame) in texts.into_iter().enumerate() {
                        let locals = if i + 1 < n {
                            Vec::new()
                        } else {
                            held.iter()
                                .filter(|&&(f, _)| f as usize == k)
                                .filter_map(|&(_, id)| local_ref(id))
                                .collect()
                        };
                        frames.push(ThreadFrame { frame, locals });
                    }
                }
                let others = held
                    .iter()
                    .filter(|&&(f, _)| f as usize >= t.frames.len())
                    .filter_map(|&(_, id)| local_ref(id))
                    .collect();
                (frames, others)
            }
            None => (Vec::new(), held.iter().filter_map(|&(_, id)| local_ref(id)).collect()),
        };
        out.push(ThreadInfo {
            name,
            address: format!("0x{:x}", a.address(obj)),
            class_name: a.class_name(a.class_of(obj)).to_string(),
            daemon,
            priority,
            context_class_loader,
            shallow_bytes: a.shallow(obj),
            retained_bytes: a.retained(obj),
            retained_bp: basis_points(a.retained(obj), a.used_heap),
            strength_retained_bytes: None,
            has_stack: trace.is_some(),
            frames,
            other_locals,
        });
    }
    Ok(out)
}
