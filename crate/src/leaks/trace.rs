//! A leak trace from a path: each step named (its object, the reference to the next),
//! inspected, its verdict propagated, its suspect references marked, and the whole
//! signed — as LeakCanary does (`LeakTrace`, `HeapAnalyzer.computeLeakStatuses`):
//!
//! - The leaking object (the last step) is always leaking: with no reason of its own,
//!   "this is the leaking object"; a not-leaking reason is kept as a conflict.
//! - Elsewhere a not-leaking reason wins over a leaking one (which is kept as a conflict).
//! - "Not leaking" propagates towards the root: every step above the last one not
//!   leaking is not leaking either ("Next↓ is not leaking", naming the next step not
//!   leaking). "Leaking" propagates towards the leaking object: every step after the
//!   first leaking one (below the last not leaking) is leaking ("Prev↑ is leaking").
//! - The suspect references are those from the last step not leaking and from every
//!   step whose status is unknown: exactly the references between the last "no" and the
//!   first "yes".
//! - The signature is the SHA-1 (hex) of the suspect references, each as the full class
//!   name of the step it leaves followed by its generic name (a field's name, `[x]` for an
//!   array element, `<Java Local>` for a stack local). A trace through a known library
//!   leak (its root, or the first of its references that matches) is signed by the SHA-1
//!   of the leak's pattern instead.
//! - A trace longer than [`MAX_TRACE_STEPS`] is drawn with its first and last halves; the
//!   steps between are neither read back nor judged, and count once in the signature
//!   (`…`), whatever their number, so a leak through a long list keeps its signature as
//!   the list grows.

use std::collections::HashMap;

use super::heap::{Heap, Kind, Named, RefKind};
use super::inspect::{self, Context, Inspection};
use super::library::KNOWN_LEAKS;
use super::path::{Priorities, Take};
use super::sha1;
use crate::error::Result;
use crate::model::leaks::{LeakKind, LeakStep, Leaking, ObjectKind, ReferenceKind, TraceReference};
use crate::model::names::simple_name;
use crate::rules::strength::Strength;

/// Steps of a trace drawn at most: a longer one keeps its first and last halves (the
/// steps left out are not read back, not inspected, and count as unknown).
pub const MAX_TRACE_STEPS: usize = 200;

/// A traced leaking object, before grouping.
#[derive(Debug, Clone)]
pub struct Traced {
    pub steps: Vec<LeakStep>,
    pub kind: LeakKind,
    /// The known leak (index in [`KNOWN_LEAKS`]) of a library leak.
    pub library: Option<u16>,
    pub signature: String,
    pub description: String,
}

fn is_weak(strength: u8) -> bool {
    matches!(Strength::from_u8(strength), Strength::Soft | Strength::Weak | Strength::Finalizer | Strength::Phantom)
}

/// The reference a trace shows from `from` to `to`: a strong one, fields first (by name),
/// then static fields, array elements (lowest index), stack locals.
fn choose(mut names: Vec<Named>, local: bool) -> Option<Named> {
    names.retain(|n| !is_weak(n.strength));
    if local {
        if let Some(n) = names.iter().find(|n| n.kind == RefKind::Local) {
            return Some(n.clone());
        }
    }
    names.sort_by(|a, b| {
        let index = |n: &Named| n.name.parse::<u64>().unwrap_or(u64::MAX);
        (a.kind, index(a), &a.name).cmp(&(b.kind, index(b), &b.name))
    });
    names.into_iter().next()
}

/// The strength of the reference `from → to` in the graph.
fn edge_strength(h: &Heap, from: u32, to: u32) -> u8 {
    let mut s = Strength::Strong as u8;
    h.for_each_reference(from, |t, st| {
        if t == to {
            s = st;
        }
    });
    s
}

/// Builds the trace of `path` (root first, the leaking object last).
pub fn build(
    h: &mut Heap,
    pr: &Priorities,
    cx: &Context<'_>,
    inspected: &mut HashMap<u32, Inspection>,
    path: &[u32],
) -> Result<Traced> {
    let root = path[0];
    let root_entry =
        pr.roots.iter().find(|r| r.obj == root && !r.last).or_else(|| pr.roots.iter().find(|r| r.obj == root));
    // How the search took each reference (no record is read for it): the first that
    // matches a known library leak (or the root's) makes this a library leak.
    let takes: Vec<Take> = path.windows(2).map(|w| pr.take(w[0], w[1], edge_strength(h, w[0], w[1]))).collect();
    let library = root_entry.filter(|r| r.last).and_then(|r| r.library).or_else(|| {
        takes.iter().find_map(|t| match t {
            Take::Last(Some(k)) => Some(*k),
            _ => None,
        })
    });

    // The steps drawn: all, or the first and last halves of a long trace.
    let kept: Vec<usize> = if path.len() > MAX_TRACE_STEPS {
        (0..MAX_TRACE_STEPS / 2).chain(path.len() - MAX_TRACE_STEPS / 2..path.len()).collect()
    } else {
        (0..path.len()).collect()
    };
    let kept_objects: Vec<u32> = kept.iter().map(|&i| path[i]).collect();
    h.load(&kept_objects)?;

    // Names of the objects and of the references between them.
    let mut steps = Vec::with_capacity(kept.len());
    let mut generic = Vec::with_capacity(kept.len());
    for (k, &i) in kept.iter().enumerate() {
        let obj = path[i];
        let object_kind = match h.kind(obj) {
            Kind::Class(_) => ObjectKind::Class,
            Kind::ObjectArray => ObjectKind::ObjectArray,
            Kind::PrimitiveArray => ObjectKind::PrimitiveArray,
            Kind::Instance | Kind::Unknown => ObjectKind::Instance,
        };
        let reference = match path.get(i + 1) {
            Some(&next) => {
                let local = Strength::from_u8(edge_strength(h, obj, next)) == Strength::Local;
                let named = choose(h.references(obj, next)?, local);
                let lib = match takes[i] {
                    Take::Last(Some(k)) => Some(k),
                    _ => None,
                };
                let (kind, name, declared_by, generic_name) = match named {
                    Some(n) => {
                        let declared = n
                            .declared_by
                            .map_or_else(|| h.object_class_name(obj).to_string(), |c| h.class_name(c).to_string());
                        match n.kind {
                            RefKind::InstanceField => (ReferenceKind::InstanceField, n.name.clone(), declared, n.name),
                            RefKind::StaticField => (ReferenceKind::StaticField, n.name.clone(), declared, n.name),
                            RefKind::ArrayElement => {
                                (ReferenceKind::ArrayElement, format!("[{}]", n.name), declared, "[x]".to_string())
                            }
                            RefKind::Local => {
                                (ReferenceKind::Local, "<Java Local>".to_string(), declared, "<Java Local>".to_string())
                            }
                        }
                    }
                    None => (
                        ReferenceKind::InstanceField,
                        "?".to_string(),
                        h.object_class_name(obj).to_string(),
                        "?".to_string(),
                    ),
                };
                generic.push(generic_name);
                Some(TraceReference {
                    kind,
                    name,
                    declared_by,
                    library_leak: lib.map(|k| KNOWN_LEAKS[k as usize].pattern.text()),
                })
            }
            None => None,
        };
        let elided = kept.get(k + 1).map_or(0, |&j| (j - i - 1) as u64);
        steps.push(LeakStep {
            object: format!("0x{:x}", h.address(obj)),
            class_name: h.object_class_name(obj).to_string(),
            object_kind,
            root_type: if i == 0 { root_entry.map(|r| Heap::root_kind_name(r.kind).to_string()) } else { None },
            reference,
            leaking: Leaking::Unknown,
            reasons: Vec::new(),
            labels: Vec::new(),
            suspect: false,
            elided_after: (elided > 0).then_some(elided),
        });
    }
    let path = &kept_objects;
    let last = path.len() - 1;

    // Verdicts.
    for (i, &obj) in path.iter().enumerate() {
        if let std::collections::hash_map::Entry::Vacant(e) = inspected.entry(obj) {
            e.insert(inspect::inspect(h, cx, obj)?);
        }
        let r = &inspected[&obj];
        let (mut status, mut reasons) = r.resolve(i == last);
        if i == last {
            match status {
                Leaking::Yes => {}
                Leaking::Unknown => reasons = vec!["this is the leaking object".into()],
                Leaking::No => {
                    reasons = std::iter::once("this is the leaking object".to_string())
                        .chain(reasons.into_iter().map(|x| format!("conflicts with: {x}")))
                        .collect()
                }
            }
            status = Leaking::Yes;
        }
        steps[i].leaking = status;
        steps[i].reasons = reasons;
        steps[i].labels = r.labels.clone();
        if let Some(lib) = steps[i].reference.as_ref().and_then(|r| r.library_leak.clone()) {
            steps[i].labels.push(format!("Library leak match: {lib}"));
        }
    }
    propagate(&mut steps);
    mark_suspects(&mut steps);

    let leaking_name = simple_name(&steps[last].class_name).to_string();
    let (kind, signature, description) = match library {
        Some(k) => {
            let known = &KNOWN_LEAKS[k as usize];
            let pattern = known.pattern.text();
            (
                LeakKind::Library,
                sha1::hex(pattern.as_bytes()),
                format!("{leaking_name} leaking through a known library leak: {pattern}"),
            )
        }
        None => {
            let mut text = String::new();
            for i in (0..last).filter(|&i| steps[i].suspect) {
                text.push_str(&steps[i].class_name);
                text.push_str(&generic[i]);
                if steps[i].elided_after.is_some() {
                    // However many steps a long trace leaves out, one mark.
                    text.push('…');
                }
            }
            let first = (0..last).find(|&i| steps[i].suspect);
            let description = match first {
                Some(i) => {
                    format!("{leaking_name} leaking, held through {}.{}", simple_name(&steps[i].class_name), generic[i])
                }
                None => format!("{leaking_name} leaking"),
            };
            (LeakKind::Application, sha1::hex(text.as_bytes()), description)
        }
    };
    h.forget(path);
    Ok(Traced { steps, kind, library, signature, description })
}

/// Marks the suspect references: from a step whose status is unknown, and from the last
/// step not leaking (the one followed by a step that is not "not leaking").
pub fn mark_suspects(steps: &mut [LeakStep]) {
    let last = steps.len().saturating_sub(1);
    for i in 0..steps.len() {
        steps[i].suspect = i < last
            && match steps[i].leaking {
                Leaking::Unknown => true,
                Leaking::No => steps[i + 1].leaking != Leaking::No,
                Leaking::Yes => false,
            };
    }
}

/// Propagates "not leaking" up and "leaking" down the trace (see the module doc).
pub fn propagate(steps: &mut [LeakStep]) {
    let last = steps.len() - 1;
    let original: Vec<Leaking> = steps.iter().map(|s| s.leaking).collect();
    let last_no = (0..last).rev().find(|&i| original[i] == Leaking::No);
    let first_yes = (last_no.map_or(0, |n| n + 1)..=last).find(|&i| original[i] == Leaking::Yes).unwrap_or(last);
    if let Some(last_no) = last_no {
        for i in 0..last_no {
            let next = (i + 1..=last_no).find(|&k| original[k] == Leaking::No).unwrap_or(last_no);
            let why = format!("{}↓ is not leaking", simple_name(&steps[next].class_name));
            let own = std::mem::take(&mut steps[i].reasons);
            steps[i].reasons = match original[i] {
                Leaking::Unknown => vec![why],
                Leaking::No => std::iter::once(why).chain(own).collect(),
                Leaking::Yes => {
                    std::iter::once(why).chain(own.into_iter().map(|r| format!("conflicts with: {r}"))).collect()
                }
            };
            steps[i].leaking = Leaking::No;
        }
    }
    for i in first_yes + 1..last {
        let previous = (first_yes..i).rev().find(|&k| original[k] == Leaking::Yes).unwrap_or(first_yes);
        let why = format!("{}↑ is leaking", simple_name(&steps[previous].class_name));
        let own = std::mem::take(&mut steps[i].reasons);
        steps[i].reasons = std::iter::once(why).chain(own).collect();
        steps[i].leaking = Leaking::Yes;
    }
}
