//! The leak trace's path to any object, for the inspector: the path LeakCanary's search
//! takes ([`super::path`]: strong references only; known library-leak references, stack
//! locals, and the roots held only that way, last), and why a shortest path found by
//! another search is not that one.
//!
//! A shortest path (the inspector's, [`crate::holders::ways::trace`]) and the leak trace's
//! can differ for reasons the search's own rules give: the shortest starts at a root the
//! search visits last (a JNI global matching a library leak, a stack frame), goes through
//! a reference it visits last or never follows (a library-leak field, a stack local, a
//! weak, soft, phantom or finalizer reference, a field it ignores), or through a
//! reference that is no field of the program (Eclipse MAT's edge from an object to its
//! class, from a class to its loader or super class). [`why_not`] names each of them on a
//! given path, in order; none when the two are equally short.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::heap::Heap;
use super::heap::Kind;
use super::library::{IGNORED_THREADS, KNOWN_LEAKS};
use super::path::{shortest_paths, Take};
use super::{android, rules};
use crate::analysis::Analysis;
use crate::error::Result;
use crate::query::holders::Paths;
use crate::records::heap::RootKind;
use crate::rules::strength::Strength;

/// The leak trace's path to an object, beside the shortest one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LeakTracePath {
    /// The path LeakCanary's search takes from a GC root to the object (strong references
    /// only; library-leak references, stack locals and the roots held only that way last),
    /// named and marked as the `paths` query's trace, its stretches without paths. None: no
    /// strong path reaches the object (only weak, soft, phantom or finalizer references).
    pub path: Option<Paths>,
    /// Steps of the leak trace's path, the object included (0: none).
    pub steps: u64,
    /// Steps of the shortest path (the `paths` query's trace), the object included.
    pub shortest_steps: u64,
    /// Whether the two are the same path.
    pub same: bool,
    /// Why the leak trace does not take the shortest path, one clause per reason along it
    /// ("it starts at a JNI Global root holding …"); empty when they are the same path.
    pub why_not_shortest: Vec<String>,
}

/// The path the leak trace takes to `obj` (root first, `obj` last; None: no strong path
/// reaches it), and for `other` (another path to `obj`, root first), the reasons the
/// search does not take it first.
pub fn leak_trace_path(a: &mut Analysis, obj: u32, other: &[u32]) -> Result<(Option<Vec<u32>>, Vec<String>)> {
    let mut h = Heap::new(a);
    let platform = android::Platform::read(&mut h)?;
    let priorities = rules::build(&mut h, &platform)?;
    let found = shortest_paths(&h, &priorities, &[obj])?;
    let path = found.found.into_iter().find(|(o, _)| *o == obj).map(|(_, p)| p);
    let why = why_not(&h, &priorities, other);
    Ok((path, why))
}

/// The reasons, in order along `path` (root first), that LeakCanary's search does not
/// take it first: its root, and each reference it visits last or never follows.
fn why_not(h: &Heap, pr: &super::path::Priorities, path: &[u32]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(&root) = path.first() else { return out };
    let entries: Vec<_> = pr.roots.iter().filter(|r| r.obj == root).collect();
    if !entries.is_empty() && entries.iter().all(|r| r.last) {
        let r = entries[0];
        let kind = Heap::root_kind_name(r.kind);
        out.push(match (r.kind, r.library) {
            (_, Some(k)) => format!(
                "it starts at a {kind} root holding {}: a known library leak ({}), which the leak trace visits last",
                name(h, root),
                KNOWN_LEAKS[k as usize].pattern.text()
            ),
            (RootKind::JavaFrame, _) => format!(
                "it starts at a {kind} root (a stack frame of a thread the dump does not name), which the leak trace visits last"
            ),
            _ => format!("it starts at a {kind} root, which the leak trace visits last"),
        });
    } else if entries.is_empty() {
        out.push(format!("it starts at {}, which the leak trace does not take as a GC root", name(h, root)));
    }
    for pair in path.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let mut take = None;
        h.for_each_reference(from, |t, s| {
            if t == to {
                take = Some((pr.take(from, to, s), s));
            }
        });
        let (from_name, to_name) = (name(h, from), name(h, to));
        match take {
            None => out.push(format!(
                "it goes from {from_name} to {to_name} by a reference that is no field of the program (Eclipse MAT's link from an object to its class, or from a class to its loader or super class), which the leak trace does not follow"
            )),
            Some((Take::Main, _)) => {}
            Some((Take::Skip, s)) => {
                let strength = Strength::from_u8(s);
                out.push(if strength == Strength::Strong {
                    format!("it goes from {from_name} to {to_name} by a field the leak trace ignores")
                } else if strength == Strength::Local {
                    format!(
                        "it goes from {from_name} to {to_name} through a stack local of a thread whose stack the leak trace ignores ({})",
                        IGNORED_THREADS.join(", ")
                    )
                } else {
                    format!(
                        "it goes from {from_name} to {to_name} by a {} reference, which the leak trace never follows (it holds nothing strongly)",
                        strength.name()
                    )
                });
            }
            Some((Take::Last(Some(k)), _)) => out.push(format!(
                "it goes from {from_name} to {to_name} by a known library leak ({}), which the leak trace visits last",
                KNOWN_LEAKS[k as usize].pattern.text()
            )),
            Some((Take::Last(None), _)) => out.push(format!(
                "it goes from {from_name} to {to_name} through a stack local, which the leak trace visits last"
            )),
        }
    }
    out
}

/// An object as a reason names it: its class, or `class C` for a class object.
fn name(h: &Heap, obj: u32) -> String {
    match h.kind(obj) {
        Kind::Class(_) => format!("class {}", h.object_class_name(obj)),
        _ => h.object_class_name(obj).to_string(),
    }
}
