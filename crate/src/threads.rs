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
use std::fmt::Write;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::error::Result;
use crate::index::stacks::{Frame, Trace};
use crate::query::{self, object::object_details, FieldValue};
use crate::report::build::{basis_points, format_bytes, object_ref};
use crate::report::model::ObjectRef;

/// One thread of the overview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreadInfo {
    /// The `name` field's text (a String, or a char[] in old JDKs); None when absent.
    pub name: Option<String>,
    pub address: String,
    pub class_name: String,
    /// The `daemon` field (JDK 19+: `holder.daemon`), where the dump has it.
    pub daemon: Option<bool>,
    /// The `priority` field (JDK 19+: `holder.priority`), where the dump has it.
    pub priority: Option<i32>,
    /// The `contextClassLoader` field: `ClassName @ 0x…`, None when null or absent.
    pub context_class_loader: Option<String>,
    pub shallow_bytes: u64,
    /// MAT's retained size (the dominator tree's).
    pub retained_bytes: u64,
    pub retained_bp: u32,
    /// The retained size in the strength-aware dominator tree, when the report's tree is
    /// MAT's and the strength-aware one was computed too (absent otherwise; with
    /// `--tree strength` `retained_bytes` is that tree's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strength_retained_bytes: Option<u64>,
    /// Whether the dump recorded a stack trace for the thread (it may have no frames).
    pub has_stack: bool,
    /// The stack, innermost frame first.
    pub frames: Vec<ThreadFrame>,
    /// Objects the thread's stack holds in frames the stack trace does not list (all of
    /// them when no stack was recorded).
    pub other_locals: Vec<ObjectRef>,
}

/// One frame of a thread's stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreadFrame {
    /// The frame as MAT prints it: `at pkg.Class.method(Lsig;)V (File.java:12)`,
    /// `(File.java(Native Method))` for a native method, `(File.java)` without a line.
    pub frame: String,
    /// The objects this frame holds (Java-frame and JNI-local roots), in dump order.
    pub locals: Vec<ObjectRef>,
}

/// MAT's text for a frame: `at CLASS.METHODSIGNATURE (SOURCE…)`.
pub fn frame_text(a: &Analysis, f: &Frame) -> String {
    let strings = &a.heap.index.strings;
    let text = |id: u64| if id == 0 { String::new() } else { strings.name(id) };
    let class = match a.heap.index.stacks.class_names.get(&f.class_serial) {
        Some(&name) => text(name).replace('/', "."),
        None => "<UNKNOWN CLASS>".to_string(),
    };
    let location = match f.line {
        l if l > 0 => format!(":{l}"),
        -2 => "(Compiled method)".to_string(),
        -3 => "(Native Method)".to_string(),
        _ => String::new(),
    };
    format!("at {class}.{}{} ({}{location})", text(f.method), text(f.signature), text(f.source_file))
}

/// After the reading changed: each thread's retained size from the tree in use, and the
/// strength-aware tree's beside MAT's when the report reads MAT's tree and the other one
/// was computed too.
pub fn refresh_sizes(a: &mut Analysis) {
    use crate::analysis::Reading;
    let mut threads = std::mem::take(&mut a.threads);
    for t in &mut threads {
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
    a.threads = threads;
}

/// The last field called `name` (the deepest class declaring it: java.lang.Thread's
/// own fields come after a subclass's).
fn field<'f>(fields: &'f [FieldValue], name: &str) -> Option<&'f FieldValue> {
    fields.iter().rev().find(|f| f.name == name && !f.is_static)
}

/// The thread overview: every kept thread object, largest retained first.
pub fn collect(a: &mut Analysis) -> Result<Vec<ThreadInfo>> {
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
        if let Some(holder) = field(&details.fields, "holder")
            .and_then(|f| f.reference.as_ref())
            .and_then(|r| query::parse_address(&r.address))
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
            .and_then(|r| query::parse_address(&r.address))
            .and_then(|x| a.object_at(x))
        {
            Some(n) => object_details(a, n)?.text,
            None => None,
        };
        let local_ref = |id: u64| a.object_at(id).filter(|&o| a.is_kept(o)).map(|o| object_ref(a, o));
        let (frames, other_locals) = match &trace {
            Some(t) => {
                let frames: Vec<ThreadFrame> = t
                    .frames
                    .iter()
                    .enumerate()
                    .map(|(k, fid)| ThreadFrame {
                        frame: match a.heap.index.stacks.frames.get(fid) {
                            Some(f) => frame_text(a, f),
                            None => format!("at <unknown frame 0x{fid:x}>"),
                        },
                        locals: held
                            .iter()
                            .filter(|&&(f, _)| f as usize == k)
                            .filter_map(|&(_, id)| local_ref(id))
                            .collect(),
                    })
                    .collect();
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

fn local_line(out: &mut String, o: &ObjectRef) {
    let _ = writeln!(
        out,
        "        {} @ {}  shallow {}  retained {}",
        o.class_name,
        o.address,
        format_bytes(o.shallow_bytes),
        format_bytes(o.retained_bytes)
    );
}

/// The thread overview for a terminal: one block per thread, its frames, under each
/// frame the objects it holds. Control characters from the dump are escaped.
pub fn render_text(threads: &[ThreadInfo]) -> String {
    let mut out = String::new();
    if threads.is_empty() {
        out.push_str("No thread objects in this dump.\n");
    }
    for t in threads {
        let mut facts = vec![
            format!("retained {} bytes", format_bytes(t.retained_bytes)),
            format!("shallow {}", format_bytes(t.shallow_bytes)),
        ];
        if let Some(d) = t.daemon {
            facts.push(if d { "daemon".into() } else { "not daemon".into() });
        }
        if let Some(p) = t.priority {
            facts.push(format!("priority {p}"));
        }
        if let Some(l) = &t.context_class_loader {
            facts.push(format!("context loader {l}"));
        }
        let name = t.name.as_deref().map(|n| format!("\"{}\"", printable(n))).unwrap_or_else(|| "(no name)".into());
        let _ = writeln!(out, "{name}  {} @ {}  {}", printable(&t.class_name), t.address, facts.join(", "));
        if !t.has_stack {
            out.push_str("    no stack recorded\n");
        } else if t.frames.is_empty() {
            out.push_str("    (the stack recorded has no frames)\n");
        }
        for f in &t.frames {
            let _ = writeln!(out, "    {}", printable(&f.frame));
            for o in &f.locals {
                local_line(&mut out, &printable_ref(o));
            }
        }
        if !t.other_locals.is_empty() {
            out.push_str(if t.has_stack {
                "    locals outside the recorded frames:\n"
            } else {
                "    locals (frames unknown):\n"
            });
            for o in &t.other_locals {
                local_line(&mut out, &printable_ref(o));
            }
        }
        out.push('\n');
    }
    out
}

/// `s` with control characters escaped (a name from the dump cannot move the cursor).
fn printable(s: &str) -> String {
    crate::error::one_line(s)
}

fn printable_ref(o: &ObjectRef) -> ObjectRef {
    ObjectRef { class_name: printable(&o.class_name), ..o.clone() }
}

/// The thread overview as blocks of the report document (Markdown and HTML): a table of
/// all threads, then each thread's stack with the objects its frames hold.
pub fn document_blocks(threads: &[ThreadInfo]) -> Vec<crate::report::document::Block> {
    use crate::report::document::{Align::*, Block, Inline};
    let mut blocks = vec![Block::Heading(2, "Threads".into())];
    if threads.is_empty() {
        blocks.push(Block::Paragraph(vec![Inline::Text("No thread objects in this dump.".into())]));
        return blocks;
    }
    let cols = |spec: &[(&str, crate::report::document::Align)]| {
        spec.iter().map(|&(n, a)| (n.to_string(), a)).collect::<Vec<_>>()
    };
    let name_of = |t: &ThreadInfo| t.name.clone().unwrap_or_else(|| "(no name)".into());
    let yes_no = |d: Option<bool>| d.map(|d| if d { "yes" } else { "no" }).unwrap_or("").to_string();
    blocks.push(Block::Table {
        columns: cols(&[
            ("Thread", Left),
            ("Name", Left),
            ("Daemon", Left),
            ("Priority", Right),
            ("Frames", Right),
            ("Shallow Heap", Right),
            ("Retained Heap", Right),
        ]),
        rows: threads
            .iter()
            .map(|t| {
                vec![
                    format!("{} @ {}", t.class_name, t.address),
                    name_of(t),
                    yes_no(t.daemon),
                    t.priority.map(|p| p.to_string()).unwrap_or_default(),
                    if t.has_stack { t.frames.len().to_string() } else { "no stack recorded".into() },
                    format_bytes(t.shallow_bytes),
                    format_bytes(t.retained_bytes),
                ]
            })
            .collect(),
    });
    let local_row = |o: &ObjectRef| {
        vec![
            format!("↳ {} @ {}", o.class_name, o.address),
            format_bytes(o.shallow_bytes),
            format_bytes(o.retained_bytes),
        ]
    };
    for t in threads {
        if t.frames.is_empty() && t.other_locals.is_empty() {
            continue;
        }
        blocks.push(Block::Heading(3, format!("{} ({} @ {})", name_of(t), t.class_name, t.address)));
        let mut rows = Vec::new();
        for f in &t.frames {
            rows.push(vec![f.frame.clone(), String::new(), String::new()]);
            rows.extend(f.locals.iter().map(local_row));
        }
        if !t.other_locals.is_empty() {
            rows.push(vec![
                if t.has_stack { "locals outside the recorded frames" } else { "no stack recorded; locals" }.into(),
                String::new(),
                String::new(),
            ]);
            rows.extend(t.other_locals.iter().map(local_row));
        }
        blocks.push(Block::Table {
            columns: cols(&[("Stack frame / local", Left), ("Shallow Heap", Right), ("Retained Heap", Right)]),
            rows,
        });
    }
    blocks
}
