//! Where a suspect's memory is held, named as the application's developer names it.
//!
//! A dominator chain (or a group's shared reference path) runs from the suspect down to
//! the accumulation point. Its head is often the JVM's plumbing: the application class
//! loader, its `classes` vector and that vector's array, before the application's class
//! object whose static field leads on. The name is therefore built from the **nearest
//! static field** to the accumulation point:
//!
//! - *head*: the chain object closest to the accumulation point that a class's static
//!   field references (the class object just before it in the chain first, else any
//!   class, smallest name first), named `pkg.Class.FIELD`; when no static field
//!   references a chain object, the chain's first object (a thread by its name:
//!   `Thread("worker-1")`, else its class's simple name);
//! - *steps*: from there on, each field (or `[i]`) through which one chain object
//!   references the next; `.getClass()` from an instance to its class, `.getClassLoader()`
//!   from a class to its loader; `…` where the next is dominated but not referenced
//!   directly;
//! - *end*: a collection's internals at the tail are left out, since they are the
//!   library's names, not the application's: while the last step goes from an instance of
//!   a collection class (`Map`, `List`, `Set`, … in its innermost simple name) to an array
//!   or to another collection, the name stops at that collection
//!   (`com.acme.ui.EventBus.INSTANCE.listeners`, not `….listeners.array`).
//!
//! The object the name ends at may thus be a collection rather than the accumulation
//! point (its backing array): its entries are then counted on the collection (a map's
//! `size`, not its table's capacity), see [`entries`].
//!
//! *Each holds*: when every object of the accumulation point's biggest group (by class)
//! immediately dominates exactly one object of one other class, and reads it through the
//! same field, the suspect says so (`each holds a com.acme.ui.Screen by this$0`): for an
//! anonymous listener that is the object that leaked. Every member is checked in the
//! dominator tree; the field name is read back for the first [`FIELD_READS`] members.
//!
//! Cost: one pass over the static fields of all classes per chain (no object data), one
//! record read back per named step (at most [`MAX_STEPS`]), and for each-holds one pass
//! over the group members' dominated children plus at most [`FIELD_READS`] records.

use std::collections::{BTreeMap, HashMap};

use crate::analysis::Analysis;
use crate::error::Result;
use crate::model::names::{is_collection_class, simple_name};
use crate::model::threads::ThreadInfo;
use crate::model::EachHolds;
use crate::query::{chains, paths};
use crate::records::basic_type;
use crate::values::elements::element_count;

/// Steps named at most; a longer name is left out (None).
pub const MAX_STEPS: usize = 40;
/// Members whose field is read back for "each holds".
pub const FIELD_READS: usize = 100;

/// A chain named in the application's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub text: String,
    /// Position in the chain of the object the name ends at.
    pub end: usize,
}

fn is_array(a: &Analysis, obj: u32) -> bool {
    a.class_represented_by(obj).is_none() && a.class_name(a.class_of(obj)).ends_with("[]")
}

/// An instance (not a class object, not an array) of a collection class.
pub(crate) fn is_collection(a: &Analysis, obj: u32) -> bool {
    a.class_represented_by(obj).is_none() && is_collection_class(a.class_name(a.class_of(obj)))
}

/// The first step's name when no static field leads in: a thread with its name, else the
/// simple name of its class (of the class it stands for, for a class object).
fn plain_head(a: &Analysis, threads: &[ThreadInfo], obj: u32) -> String {
    if let Some(c) = a.class_represented_by(obj) {
        return simple_name(a.class_name(c)).to_string();
    }
    let address = format!("0x{:x}", a.address(obj));
    match threads.iter().find(|t| t.address == address).and_then(|t| t.name.as_deref()) {
        Some(name) => format!("{}(\"{}\")", simple_name(a.class_name(a.class_of(obj))), name),
        None => simple_name(a.class_name(a.class_of(obj))).to_string(),
    }
}

/// The static field nearest the chain's end that references a chain object: (chain
/// position, `pkg.Class.FIELD`).
fn static_head(a: &Analysis, chain: &[u32]) -> Option<(usize, String)> {
    let mut at: HashMap<u64, usize> = HashMap::with_capacity(chain.len());
    for (i, &o) in chain.iter().enumerate() {
        at.entry(a.address(o)).or_insert(i);
    }
    // chain position → candidates (is the class object the chain's previous step, class
    // name, field name).
    let mut best: Option<(usize, (bool, String, String))> = None;
    let index = &a.heap.index;
    for (c, class) in index.classes.classes.iter().enumerate() {
        for s in &class.statics {
            if s.ty != basic_type::OBJECT || s.value == 0 {
                continue;
            }
            let Some(&j) = at.get(&s.value) else { continue };
            let Some(class_object) = a.class_object(c as u32).filter(|&o| a.is_kept(o)) else { continue };
            if class_object == chain[j] {
                continue;
            }
            let previous = j > 0 && chain[j - 1] == class_object;
            let key = (previous, class.name.clone(), index.field_name(Some(c as u32), s.name_id));
            let better = match &best {
                None => true,
                Some((bj, bk)) => {
                    j > *bj || (j == *bj && (key.0 && !bk.0 || key.0 == bk.0 && (&key.1, &key.2) < (&bk.1, &bk.2)))
                }
            };
            if better {
                best = Some((j, key));
            }
        }
    }
    best.map(|(j, (_, class, field))| (j, format!("{class}.{field}")))
}

/// The chain named by its fields, from its nearest static field (see the module's
/// documentation). None for an empty chain or a name of more than [`MAX_STEPS`] steps.
pub fn name_chain(a: &mut Analysis, threads: &[ThreadInfo], chain: &[u32]) -> Result<Option<Named>> {
    if chain.is_empty() {
        return Ok(None);
    }
    let (start, text) = match static_head(a, chain) {
        Some(head) => head,
        None => (0, plain_head(a, threads, chain[0])),
    };
    name_steps(a, chain, start, text)
}

/// The chain named from `chain[start]`, already named `text`, by the fields of the steps
/// that follow (see the module's documentation). None for a name of more than
/// [`MAX_STEPS`] steps.
pub fn name_steps(a: &mut Analysis, chain: &[u32], start: usize, mut text: String) -> Result<Option<Named>> {
    let mut end = chain.len() - 1;
    while end > start && is_collection(a, chain[end - 1]) && (is_array(a, chain[end]) || is_collection(a, chain[end])) {
        end -= 1;
    }
    if end - start > MAX_STEPS {
        return Ok(None);
    }
    for w in chain[start..=end].windows(2) {
        let fields = paths::via(a, w[0], w[1])?;
        match fields.iter().find(|f| !f.starts_with('<')) {
            Some(f) if f.starts_with('[') => text.push_str(f),
            Some(f) => {
                text.push('.');
                text.push_str(f);
            }
            // An object's class and a class's loader, as Java code reaches them.
            None if fields.iter().any(|f| f == "<class>") => text.push_str(".getClass()"),
            None if fields.iter().any(|f| f == "<classloader>") => text.push_str(".getClassLoader()"),
            None => text.push_str(".…"),
        }
    }
    Ok(Some(Named { text, end }))
}

/// The entries of what a name ends at: a collection's (its `size`-like field) when the
/// name stopped at a collection before the accumulation point `ap` (the chain's last
/// object: the collection's backing array), else the accumulation point's (an array's
/// length, a collection's size).
pub fn entries(a: &mut Analysis, chain: &[u32], ap: u32, named: Option<&Named>) -> Result<Option<u64>> {
    if let Some(n) = named.filter(|n| n.end + 1 < chain.len() && chain.last() == Some(&ap)) {
        if let Some(e) = element_count(a, chain[n.end])? {
            return Ok(Some(e));
        }
    }
    element_count(a, ap)
}

/// The class (index) of the point's biggest group of members (see
/// [`crate::query::chains`]), as [`super::structure::members`] orders them.
fn biggest_group(a: &Analysis, ap: u32) -> Option<u32> {
    let mut retained: BTreeMap<u32, u64> = BTreeMap::new();
    chains::for_each_member(a, ap, |m| *retained.entry(a.class_of(m.object)).or_default() += m.retained);
    retained
        .into_iter()
        .min_by(|(cx, x), (cy, y)| y.cmp(x).then_with(|| a.class_name(*cx).cmp(a.class_name(*cy))).then(cx.cmp(cy)))
        .map(|(c, _)| c)
}

/// The first member of `v` of class `class` (see [`crate::query::chains`]).
fn member_of_class(a: &Analysis, v: u32, class: u32) -> Option<u32> {
    let mut found = None;
    chains::for_each_member(a, v, |m| {
        if found.is_none() && a.class_of(m.object) == class {
            found = Some(m.object);
        }
    });
    found
}

/// What each member of the point's biggest group holds, when they all hold exactly one
/// object of one other class by the same field (see the module's documentation); a
/// linked structure's nodes are members, each holding what it holds besides the next.
pub fn each_holds(a: &mut Analysis, ap: u32) -> Result<Option<EachHolds>> {
    let Some(group) = biggest_group(a, ap) else { return Ok(None) };
    // Candidate classes: those of which every member so far holds exactly one object,
    // with the retained sum of those objects.
    let mut candidates: Option<BTreeMap<u32, u64>> = None;
    let mut counts: BTreeMap<u32, (u32, u64)> = BTreeMap::new();
    let mut sample: Vec<u32> = Vec::with_capacity(FIELD_READS);
    let mut none = false;
    chains::for_each_member(a, ap, |gm| {
        let m = gm.object;
        if none || a.class_of(m) != group {
            return;
        }
        if sample.len() < FIELD_READS {
            sample.push(m);
        }
        counts.clear();
        chains::for_each_member(a, m, |k| {
            let c = a.class_of(k.object);
            if c != group {
                let e = counts.entry(c).or_default();
                e.0 += 1;
                e.1 += k.retained;
            }
        });
        let once = counts.iter().filter(|(_, (n, _))| *n == 1).map(|(&c, &(_, r))| (c, r));
        candidates = Some(match candidates.take() {
            None => once.collect(),
            Some(mut left) => {
                let now: BTreeMap<u32, u64> = once.collect();
                left.retain(|c, _| now.contains_key(c));
                for (c, r) in left.iter_mut() {
                    *r += now[c];
                }
                left
            }
        });
        none = candidates.as_ref().is_some_and(|c| c.is_empty());
    });
    let Some(candidates) = candidates.filter(|c| !c.is_empty()) else { return Ok(None) };
    let mut order: Vec<(u32, u64)> = candidates.into_iter().collect();
    order.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| a.class_name(x.0).cmp(a.class_name(y.0))));
    'class: for (class, retained_bytes) in order {
        let mut field: Option<String> = None;
        for &m in &sample {
            let Some(held) = member_of_class(a, m, class) else { continue 'class };
            let names = paths::via(a, m, held)?;
            let mut plain = names.into_iter().filter(|f| !f.starts_with('<') && !f.starts_with('['));
            let (Some(f), None) = (plain.next(), plain.next()) else { continue 'class };
            match &field {
                None => field = Some(f),
                Some(g) if *g == f => {}
                Some(_) => continue 'class,
            }
        }
        if let Some(field) = field {
            return Ok(Some(EachHolds { class_name: a.class_name(class).to_string(), field, retained_bytes }));
        }
    }
    Ok(None)
}
