//! The path search's priorities for one dump ([`super::path::Priorities`]): which roots
//! and references it visits last, and which it never takes, from the library-leak table
//! ([`super::library`]) filtered by the dump's API level and manufacturer.
//!
//! - Roots: Shark visits thread objects first, then the other roots by root type (in
//!   the descending order of the names of its `GcRoot` classes), then by class name. A
//!   stack-frame root of a thread the dump does not name is visited last, as is a JNI
//!   global root matching a native-global library leak; an object that is also a root of
//!   another kind is visited with that kind.
//! - References: an instance field matches a pattern `C#f` when the object is an
//!   instance of `C` (or of a subclass; the closest class of the chain wins) and the
//!   field is named `f`; a static field matches `C#f` on class `C` itself. A reference
//!   is visited last (or never, for an ignored field) only when every field holding the
//!   target matches: another field makes it an ordinary reference.

use std::collections::HashMap;

use super::android::Platform;
use super::heap::Heap;
use super::library::{Pattern, IGNORED_FIELDS, IGNORED_THREADS, KNOWN_LEAKS};
use super::path::{Priorities, Root, Take};
use crate::error::Result;
use crate::records::heap::RootKind;

/// Root kinds in the order Shark visits them after thread objects (its `GcRoot` class
/// names, descending).
const ROOT_ORDER: [RootKind; 16] = [
    RootKind::VmInternal,
    RootKind::ArtUnreachable,
    RootKind::Unknown,
    RootKind::ThreadObject,
    RootKind::ThreadBlock,
    RootKind::StickyClass,
    RootKind::ReferenceCleanup,
    RootKind::NativeStack,
    RootKind::MonitorUsed,
    RootKind::JniMonitor,
    RootKind::JniLocal,
    RootKind::JniGlobal,
    RootKind::JavaFrame,
    RootKind::InternedString,
    RootKind::Finalizing,
    RootKind::Debugger,
];

fn rank(kind: RootKind) -> usize {
    if kind == RootKind::ThreadObject {
        return 0;
    }
    1 + ROOT_ORDER.iter().position(|&k| k == kind).unwrap_or(ROOT_ORDER.len())
}

/// The known leaks that apply to this dump, with their index in the table.
pub fn applicable(platform: &Platform) -> Vec<(u16, &'static super::library::KnownLeak)> {
    KNOWN_LEAKS
        .iter()
        .enumerate()
        .filter(|(_, k)| k.applies(platform.sdk, platform.manufacturer.as_deref()))
        .map(|(i, k)| (i as u16, k))
        .collect()
}

/// A field rule: visit last (with the leak's index) or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldRule {
    Last(u16),
    Ignore,
}

/// The rules of the references of object `from`, given each field's (target, rule): a
/// target gets a rule only when every field holding it has one (a field visited last
/// wins over an ignored one). Clears `fields`.
fn judge(from: u32, fields: &mut Vec<(u32, Option<FieldRule>)>, edges: &mut Vec<(u32, u32, Take)>) {
    fields.sort_unstable_by_key(|f| f.0);
    for run in fields.chunk_by(|x, y| x.0 == y.0) {
        if run.iter().any(|f| f.1.is_none()) {
            continue;
        }
        let take = match run.iter().find_map(|f| match f.1 {
            Some(FieldRule::Last(i)) => Some(i),
            _ => None,
        }) {
            Some(i) => Take::Last(Some(i)),
            None => Take::Skip,
        };
        edges.push((from, run[0].0, take));
    }
    fields.clear();
}

pub fn build(h: &mut Heap, platform: &Platform) -> Result<Priorities> {
    let leaks = applicable(platform);
    let mut pr = Priorities { roots: roots(h, &leaks), ..Default::default() };

    // Instance-field rules: per pattern class, its field names.
    let mut by_class: Vec<(&'static str, &'static str, FieldRule)> = Vec::new();
    for &(i, k) in &leaks {
        if let Pattern::InstanceField(c, f) = k.pattern {
            by_class.push((c, f, FieldRule::Last(i)));
        }
    }
    for &(c, f) in IGNORED_FIELDS {
        by_class.push((c, f, FieldRule::Ignore));
    }
    let mut wanted = vec![false; h.class_count()];
    let mut any = false;
    for (c, _, _) in &by_class {
        if h.classes_named(c).is_empty() {
            continue;
        }
        for (k, yes) in h.extending(c).into_iter().enumerate() {
            if yes {
                wanted[k] = true;
                any = true;
            }
        }
    }
    let mut edges: Vec<(u32, u32, Take)> = Vec::new();
    if any {
        let objects = h.instances_of(&wanted, true)?;
        // The rules of each class, closest class first.
        let mut classes: Vec<u32> = objects.iter().filter_map(|&o| h.class_of(o)).collect();
        classes.sort_unstable();
        classes.dedup();
        let rules_of: HashMap<u32, Vec<(&'static str, FieldRule)>> = classes
            .into_iter()
            .map(|c| {
                let mut rules: Vec<(&'static str, FieldRule)> = Vec::new();
                for name in h.class_chain(c) {
                    for &(pc, f, r) in &by_class {
                        if pc == name && !rules.iter().any(|x| x.0 == f) {
                            rules.push((f, r));
                        }
                    }
                }
                (c, rules)
            })
            .collect();
        let class_of: Vec<(u32, u32)> = objects.iter().filter_map(|&o| Some((o, h.class_of(o)?))).collect();
        // One object's fields arrive together: they are judged together, so only the
        // references with a rule are kept.
        let mut current = None;
        let mut fields: Vec<(u32, Option<FieldRule>)> = Vec::new();
        h.reference_fields(&objects, |obj, _, name, target| {
            if current != Some(obj) {
                if let Some(prev) = current {
                    judge(prev, &mut fields, &mut edges);
                }
                current = Some(obj);
            }
            let class = class_of.binary_search_by_key(&obj, |e| e.0).map(|k| class_of[k].1).ok();
            let rule = class.and_then(|c| rules_of.get(&c)).and_then(|r| r.iter().find(|x| x.0 == name)).map(|x| x.1);
            fields.push((target, rule));
        })?;
        if let Some(prev) = current {
            judge(prev, &mut fields, &mut edges);
        }
    }
    // Static-field rules.
    for &(i, k) in &leaks {
        let Pattern::StaticField(c, f) = k.pattern else { continue };
        for class in h.classes_named(c) {
            let Some(class_obj) = h.class_object(class) else { continue };
            let mut fields: Vec<(u32, Option<FieldRule>)> = h
                .static_refs(class)
                .into_iter()
                .map(|(name, t)| (t, (name == f).then_some(FieldRule::Last(i))))
                .collect();
            judge(class_obj, &mut fields, &mut edges);
        }
    }
    edges.sort_unstable_by_key(|e| (e.0, e.1));
    pr.sources = edges.iter().map(|e| e.0).collect();
    pr.sources.dedup();
    pr.edges = edges;

    // Threads whose stacks are not followed, by name.
    let threads = h.extending("java.lang.Thread");
    let thread_objects = h.instances_of(&threads, true)?;
    let mut ignored = Vec::new();
    for t in thread_objects {
        let name = h.instance(t)?.and_then(|i| i.reference("java.lang.Thread", "name"));
        if let Some(name) = name.filter(|&n| n != 0) {
            if h.text(name)?.is_some_and(|n| IGNORED_THREADS.contains(&n.as_str())) {
                ignored.push(t);
            }
        }
    }
    ignored.sort_unstable();
    pr.ignored_threads = ignored;
    Ok(pr)
}

/// The roots in visiting order (see the module doc).
fn roots(h: &Heap, leaks: &[(u16, &super::library::KnownLeak)]) -> Vec<Root> {
    let natives: Vec<(u16, &str, bool)> = leaks
        .iter()
        .filter_map(|&(i, k)| match k.pattern {
            Pattern::NativeGlobal(c, sub) => Some((i, c, sub)),
            _ => None,
        })
        .collect();
    let mut entries: Vec<(usize, String, u32, Root)> = Vec::new();
    for (obj, kinds) in h.gc_roots() {
        let class_name = h.object_class_name(obj).to_string();
        for kind in kinds.iter() {
            let (last, library) = match kind {
                RootKind::JavaFrame => (true, None),
                RootKind::JniGlobal => {
                    let class = h.class_of(obj);
                    let matched = natives.iter().find(|&&(_, c, sub)| {
                        class.is_some_and(|k| if sub { h.is_a(k, c) } else { h.class_name(k) == c })
                            || (h.object_class_name(obj) == c)
                    });
                    (matched.is_some(), matched.map(|m| m.0))
                }
                _ => (false, None),
            };
            entries.push((rank(kind), class_name.clone(), obj, Root { obj, kind, last, library }));
        }
    }
    entries.sort_by(|x, y| (x.0, &x.1, x.2).cmp(&(y.0, &y.1, y.2)));
    entries.into_iter().map(|e| e.3).collect()
}
