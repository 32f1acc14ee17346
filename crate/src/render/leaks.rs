//! The leaks as text for a terminal: each leak's first trace drawn the way LeakCanary
//! prints one (`┬───` and the GC root, `├─` per object with its verdict, `│ ↓` per
//! reference with `~~~` under the suspects, `╰→` the leaking object), then the other
//! leaking objects of the same signature, then the notes. Names from the dump are printed
//! with control characters escaped, so one cannot break a line or drive the terminal.
//!
//! Also the report's "Leaks" section as document blocks ([`blocks`]: a table of the leaks,
//! each leak with its first trace drawn, the notes on what was looked for), and the
//! document `heapscope leaks --format md` writes ([`document`]).

use std::fmt::Write;

use crate::model::document::{Align, Block, Document, Inline};
use crate::model::format::thousands;
use crate::model::leaks::{LeakInstance, LeakKind, LeakStep, Leaks, ObjectKind, ReferenceKind};
use crate::model::names::simple_name;
use crate::text::clean;

/// What Shark calls a GC root kind in its traces.
fn root_description(kind: &str) -> &'static str {
    match kind {
        "JNI Global" => "Global variable in native code",
        "JNI Local" => "Local variable in native code",
        "Java Local" => "Java local variable",
        "Native Stack" => "Input or output parameters in native code",
        "System Class" => "System class",
        "Thread Block" => "Thread block",
        "Busy Monitor" => "Monitor (an object used with wait(), notify() or synchronized)",
        "Thread" => "Thread object",
        "JNI Monitor" => "Root JNI monitor",
        "Interned String" => "Interned string",
        "Finalizing" => "Object awaiting finalization",
        "Debugger" => "Debugger reference",
        "Reference Cleanup" => "Reference cleanup",
        "VM Internal" => "VM internal reference",
        _ => "Unknown GC root type",
    }
}

fn type_name(kind: ObjectKind) -> &'static str {
    match kind {
        ObjectKind::Instance => "instance",
        ObjectKind::Class => "class",
        ObjectKind::ObjectArray | ObjectKind::PrimitiveArray => "array",
    }
}

/// The lines of one trace, LeakCanary's drawing.
pub fn trace_lines(instance: &LeakInstance) -> Vec<String> {
    let mut out = Vec::new();
    let trace = &instance.trace;
    let Some(first) = trace.first() else { return out };
    out.push("┬───".into());
    let root = first.root_type.as_deref().unwrap_or("?");
    // Shark's description, and heapscope's name of the kind where it says something else.
    let description = root_description(root);
    if description.eq_ignore_ascii_case(root) {
        out.push(format!("│ GC Root: {description}"));
    } else {
        out.push(format!("│ GC Root: {description} ({})", clean(root)));
    }
    out.push("│".into());
    let last = trace.len() - 1;
    for (i, step) in trace.iter().enumerate() {
        let (head, more) = if i == last { ("╰→ ", "\u{200b}     ") } else { ("├─ ", "│    ") };
        out.push(format!("{head}{} {} @ {}", clean(&step.class_name), type_name(step.object_kind), step.object));
        out.push(format!("{more}{}", verdict(step)));
        for label in &step.labels {
            out.push(format!("{more}{}", clean(label)));
        }
        if i == last {
            out.push(format!(
                "{more}Retaining {} bytes in {} objects",
                thousands(instance.retained_bytes),
                thousands(instance.retained_objects)
            ));
        }
        if let Some(r) = &step.reference {
            let owner = clean(simple_name(&r.declared_by));
            let owner = owner.strip_suffix("[]").unwrap_or(&owner);
            let prefix = match r.kind {
                ReferenceKind::StaticField => format!("    ↓ static {owner}."),
                ReferenceKind::InstanceField => format!("    ↓ {owner}."),
                ReferenceKind::ArrayElement | ReferenceKind::Local => format!("    ↓ {owner}"),
            };
            let name = clean(&r.name);
            out.push(format!("│{prefix}{name}"));
            if step.suspect {
                out.push(format!("│{}{}", " ".repeat(prefix.chars().count()), "~".repeat(name.chars().count())));
            }
            if let Some(n) = step.elided_after {
                out.push(format!("│  … {} more steps …", thousands(n)));
            }
        }
    }
    out
}

fn verdict(step: &LeakStep) -> String {
    if step.reasons.is_empty() {
        format!("Leaking: {}", step.leaking.text())
    } else {
        format!("Leaking: {} ({})", step.leaking.text(), clean(&step.reasons.join(" and ")))
    }
}

/// The whole text of `heapscope leaks`.
pub fn text(leaks: &Leaks) -> String {
    let mut out = String::new();
    let apps = leaks.leaks.iter().filter(|l| l.kind == LeakKind::Application).count();
    let libs = leaks.leaks.len() - apps;
    let plural = |n: usize, s: &str| format!("{n} {s}{}", if n == 1 { "" } else { "s" });
    let _ = writeln!(
        out,
        "{}, {} (retained sizes from the {} dominator tree)",
        plural(apps, "application leak"),
        plural(libs, "library leak"),
        leaks.tree
    );
    if let Some(a) = &leaks.android {
        let sdk = a.sdk_int.map_or("unknown".to_string(), |s| s.to_string());
        let _ = writeln!(
            out,
            "Android API level {sdk}{}",
            a.manufacturer.as_deref().map(|m| format!(", manufacturer {}", clean(m))).unwrap_or_default()
        );
    }
    if !leaks.leaks.is_empty() {
        let _ = writeln!(out, "\nReferences underlined with \"~~~\" are the suspects: the likely cause of each leak.");
    }
    for kind in [LeakKind::Application, LeakKind::Library] {
        let of_kind: Vec<_> = leaks.leaks.iter().filter(|l| l.kind == kind).collect();
        for (i, leak) in of_kind.iter().enumerate() {
            let title = if kind == LeakKind::Application { "APPLICATION LEAK" } else { "LIBRARY LEAK" };
            let _ = writeln!(out, "\n════════════════════════════════════");
            let _ = writeln!(
                out,
                "{title} {} of {}: {}, {} bytes retained in {} objects",
                i + 1,
                of_kind.len(),
                plural(leak.count as usize, "leaking object"),
                thousands(leak.retained_bytes),
                thousands(leak.retained_objects)
            );
            let _ = writeln!(out, "{}", clean(&leak.description));
            if let Some(lib) = &leak.library_leak {
                let makers = if lib.manufacturers.is_empty() {
                    String::new()
                } else {
                    format!(", on {}", lib.manufacturers.join(", "))
                };
                let _ = writeln!(out, "Known leak ({}{makers}): {}", lib.versions, clean(&lib.cause));
            }
            let _ = writeln!(out, "Signature: {}", leak.signature);
            if let Some(first) = leak.instances.first() {
                if let Some(w) = &first.watch {
                    let about =
                        if w.description.is_empty() { String::new() } else { format!(", {}", clean(&w.description)) };
                    let _ = writeln!(out, "Watched: key {}{about}", clean(&w.key));
                }
                let _ = writeln!(out);
                for line in trace_lines(first) {
                    let _ = writeln!(out, "{line}");
                }
            }
            if leak.instances.len() > 1 || leak.count as usize > leak.instances.len() {
                let _ = writeln!(out, "\nThe other leaking objects with this signature:");
                for other in leak.instances.iter().skip(1) {
                    let key = other.watch.as_ref().map(|w| format!(" (key {})", clean(&w.key))).unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "  {} {}{key}, {} bytes retained",
                        clean(&other.class_name),
                        other.object,
                        thousands(other.retained_bytes)
                    );
                }
                let shown = leak.instances.len() as u64;
                if leak.count > shown {
                    let _ = writeln!(out, "  … and {} more", leak.count - shown);
                }
            }
        }
    }
    if !leaks.notes.is_empty() {
        let _ = writeln!(out, "\nNotes:");
        for n in &leaks.notes {
            let _ = writeln!(out, "- {}", clean(n));
        }
    }
    out
}

/// Characters of a signature shown in the table.
const SHORT_SIGNATURE: usize = 12;

/// The section's blocks.
pub fn blocks(l: &Leaks) -> Vec<Block> {
    let mut out = vec![Block::Heading(2, "Leaks".into())];
    let apps = l.leaks.iter().filter(|x| x.kind == LeakKind::Application).count();
    let libs = l.leaks.len() - apps;
    out.push(Block::Paragraph(vec![Inline::Text(format!(
        "LeakCanary's reading: objects that should have been collected, each traced along its shortest strong path from a GC root. {apps} application leak{}, {libs} library leak{}; retained sizes from the {} dominator tree. References marked ~~~ are the suspects, the likely cause.",
        if apps == 1 { "" } else { "s" },
        if libs == 1 { "" } else { "s" },
        l.tree
    ))]));
    if !l.leaks.is_empty() {
        out.push(Block::Table {
            columns: vec![
                ("#".into(), Align::Right),
                ("Kind".into(), Align::Left),
                ("Leak".into(), Align::Left),
                ("Objects".into(), Align::Right),
                ("Retained Heap".into(), Align::Right),
                ("Signature".into(), Align::Left),
            ],
            rows: l
                .leaks
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    vec![
                        (i + 1).to_string(),
                        if x.kind == LeakKind::Application { "application".into() } else { "library".into() },
                        x.description.clone(),
                        thousands(x.count),
                        thousands(x.retained_bytes),
                        x.signature.chars().take(SHORT_SIGNATURE).collect(),
                    ]
                })
                .collect(),
        });
    }
    for (i, x) in l.leaks.iter().enumerate() {
        out.push(Block::Heading(3, format!("{}. {}", i + 1, x.description)));
        let mut about = format!(
            "{} leak: {} leaking object{}, {} bytes retained in {} objects. Signature {}.",
            if x.kind == LeakKind::Application { "Application" } else { "Library" },
            thousands(x.count),
            if x.count == 1 { "" } else { "s" },
            thousands(x.retained_bytes),
            thousands(x.retained_objects),
            x.signature
        );
        if let Some(lib) = &x.library_leak {
            let makers = if lib.manufacturers.is_empty() {
                String::new()
            } else {
                format!(", on {}", lib.manufacturers.join(", "))
            };
            about.push_str(&format!(" Known leak ({}{makers}): {}.", lib.versions, lib.cause));
        }
        if let Some(w) = x.instances.first().and_then(|i| i.watch.as_ref()) {
            let why = if w.description.is_empty() { String::new() } else { format!(", {}", w.description) };
            about.push_str(&format!(" Watched by LeakCanary: key {}{why}.", w.key));
        }
        out.push(Block::Paragraph(vec![Inline::Text(about)]));
        if let Some(first) = x.instances.first() {
            out.push(Block::Code(trace_lines(first).join("\n")));
        }
        if x.instances.len() > 1 {
            out.push(Block::List(
                x.instances
                    .iter()
                    .skip(1)
                    .map(|o| {
                        format!("also {} {}, {} bytes retained", o.class_name, o.object, thousands(o.retained_bytes))
                    })
                    .collect(),
            ));
        }
    }
    if !l.notes.is_empty() {
        out.push(Block::Paragraph(vec![Inline::Strong("What was looked for.".into())]));
        out.push(Block::List(l.notes.clone()));
    }
    out
}

/// The leaks on their own, as a document (`heapscope leaks --format md`).
pub fn document(l: &Leaks, file_name: Option<&str>) -> Document {
    let title = format!("Leaks: {}", file_name.unwrap_or("heap dump"));
    let mut blocks = vec![Block::Heading(1, title.clone())];
    blocks.extend(blocks_without_heading(l));
    Document { title, blocks }
}

fn blocks_without_heading(l: &Leaks) -> Vec<Block> {
    let mut b = blocks(l);
    b.remove(0);
    b
}

/// The one line `analyze` prints about the leaks.
pub fn summary(leaks: &Leaks) -> String {
    let app: Vec<&crate::model::leaks::Leak> = leaks.leaks.iter().filter(|l| l.kind == LeakKind::Application).collect();
    let lib = leaks.leaks.len() - app.len();
    if leaks.leaks.is_empty() {
        return "leaks: none found (LeakCanary's reading; see `heapscope leaks` for what was looked for)".into();
    }
    let objects: u64 = leaks.leaks.iter().map(|l| l.count).sum();
    let bytes: u64 = app.iter().map(|l| l.retained_bytes).sum();
    format!(
        "leaks: {} application leak{} ({} bytes retained), {} library leak{}, {} leaking object{} (heapscope leaks DUMP for the traces)",
        app.len(),
        if app.len() == 1 { "" } else { "s" },
        thousands(bytes),
        lib,
        if lib == 1 { "" } else { "s" },
        objects,
        if objects == 1 { "" } else { "s" }
    )
}
