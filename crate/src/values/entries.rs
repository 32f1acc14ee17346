//! Collections as what they hold: a map's entries (key → value), a list's or an array's
//! elements (index → element), each with its retained size, instead of the raw table of
//! mostly-null slots. A presentation only: the dominator tree is unchanged.
//!
//! The collection is recognised by its class chain (subclasses included) and read by the
//! field names of its implementation, JDK 8 to 21 and Android alike: `HashMap` and
//! `LinkedHashMap`, `HashSet`/`LinkedHashSet` (their map's keys), `Hashtable`,
//! `WeakHashMap`, `ConcurrentHashMap` (tree bins through `first`), `TreeMap`/`TreeSet`
//! (in order), `ArrayList`, `Vector`, `CopyOnWriteArrayList`, `ArrayDeque` (from `head`
//! around the array), `LinkedList`, `IdentityHashMap` and Android's `ArrayMap` (key and
//! value side by side in one array), the `Collections` wrappers, and object arrays
//! (their non-null elements). Anything else, or a layout that does not read as expected,
//! has no `kind` and a `note`: the page shows the raw fields.
//!
//! Cost: the collection's internal objects (its nodes, its table) are found first in the
//! in-memory reference graph (objects of the collection's own nested classes reachable
//! from it: Shark's "flattening" of a data structure, see the seed notes), then read in
//! one walk of the dump; the walk by fields then runs on what was read. At most
//! [`MAX_WALK`] entries are collected (`complete` false beyond); a page of them gets its
//! keys' and values' texts ([`super::text`]).

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::text;
use crate::analysis::{object_ref, Analysis};
use crate::error::Result;
use crate::model::ObjectRef;
use crate::readback::object::primitive_text;
use crate::readback::reader::{class_chain, is_a, FieldVal, Instance, Obj, Reader};

/// Entries collected at most per question.
pub const MAX_WALK: usize = 100_000;

/// How a collection's entries read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntriesKind {
    /// Key → value.
    Map,
    /// Keys only (a set backed by a map).
    Set,
    /// Index → element.
    List,
    /// An object array's non-null elements, by index.
    Array,
}

/// A key, a value or an element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Slot {
    /// "null", a primitive's value, or the referenced object's address.
    pub value: String,
    /// The referenced object, when it is a kept object of the dump.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ObjectRef>,
    /// The referenced object's text (a String's value, a number, …; see `values`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One entry of a collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    /// Position in iteration order (for arrays: the element's index).
    pub index: u64,
    /// The map's node holding the entry (HashMap$Node, TreeMap$Entry, …), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<ObjectRef>,
    /// Maps and sets: the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<Slot>,
    /// Maps: the value; lists and arrays: the element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Slot>,
    /// What the entry retains in the dominator tree shown: its node's retained size (maps,
    /// sets) less what the next node of its chain retains when the node dominates it, else
    /// its element's.
    pub retained_bytes: u64,
}

/// A page of a collection's entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Entries {
    pub object: ObjectRef,
    /// None: not a collection read as entries (see `note`); its raw fields are the view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<EntriesKind>,
    /// The size the collection records (its `size` field), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Entries found (at most [`MAX_WALK`]).
    pub total: u64,
    pub offset: u64,
    pub entries: Vec<Entry>,
    /// False when the walk stopped early (too many entries, a damaged or unexpected
    /// structure): `total` is then a lower bound.
    pub complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// An entry as walked: the node (0: none), key and value.
#[derive(Debug, Clone, Copy)]
struct Raw {
    index: u64,
    node: u64,
    key: Option<FieldVal>,
    value: Option<FieldVal>,
    /// The next node of its chain (0: none).
    next: u64,
}

/// The walk's result.
#[derive(Default)]
struct Walk {
    kind: Option<EntriesKind>,
    size: Option<u64>,
    entries: Vec<Raw>,
    complete: bool,
    note: Option<String>,
}

impl Walk {
    fn full(&self) -> bool {
        self.entries.len() >= MAX_WALK
    }
    fn fail(note: impl Into<String>) -> Walk {
        Walk { note: Some(note.into()), complete: true, ..Walk::default() }
    }
}

/// Hash tables: the class, and the names of the key and value fields of its nodes.
const TABLES: [(&str, &str, &str); 5] = [
    ("java.util.HashMap", "key", "value"),
    ("java.util.Hashtable", "key", "value"),
    ("java.util.WeakHashMap", "referent", "value"),
    ("java.util.concurrent.ConcurrentHashMap", "key", "val"),
    ("java.util.IdentityHashMap", "", ""),
];

/// Collections viewed through one of their fields: (class, field, whether the inner
/// collection's keys are the entries). A wrapper without that field at all is read as
/// itself: JDK 9+'s `Properties` keeps its entries in `map`, JDK 8's and Android's in the
/// `Hashtable` it extends.
const WRAPPERS: [(&str, &str, bool); 10] = [
    ("java.util.Properties", "map", false),
    ("java.util.HashSet", "map", true),
    ("java.util.TreeSet", "m", true),
    ("java.util.Collections$SetFromMap", "m", true),
    ("java.util.concurrent.CopyOnWriteArraySet", "al", false),
    ("java.util.concurrent.ConcurrentHashMap$KeySetView", "map", true),
    ("java.util.Collections$SynchronizedMap", "m", false),
    ("java.util.Collections$UnmodifiableMap", "m", false),
    ("java.util.Collections$SynchronizedCollection", "c", false),
    ("java.util.Collections$UnmodifiableCollection", "c", false),
];

/// The entries `offset..offset + limit` of the collection `obj`.
pub fn entries(a: &mut Analysis, obj: u32, offset: usize, limit: usize) -> Result<Entries> {
    let mut reader = Reader::new(MAX_WALK * 2 + 8 * limit + 64);
    let walk = walk(a, &mut reader, obj)?;
    let total = walk.entries.len();
    let page: Vec<Raw> = walk.entries.iter().skip(offset).take(limit).copied().collect();
    // The texts of the page's keys and values, read together.
    let refs: Vec<u64> = page
        .iter()
        .flat_map(|r| [r.key, r.value])
        .filter_map(|v| match v {
            Some(FieldVal::Ref(id)) if id != 0 => Some(id),
            _ => None,
        })
        .collect();
    let texts = text::texts(a, &mut reader, &refs)?;
    let by_id: HashMap<u64, Option<String>> = refs.into_iter().zip(texts).collect();
    let slot = |a: &Analysis, v: Option<FieldVal>| -> Option<Slot> {
        Some(match v? {
            FieldVal::Ref(0) => Slot { value: "null".into(), reference: None, text: None },
            FieldVal::Ref(id) => Slot {
                value: format!("0x{id:x}"),
                reference: a.object_at(id).filter(|&o| a.is_kept(o)).map(|o| object_ref(a, o)),
                text: by_id.get(&id).cloned().flatten(),
            },
            p @ FieldVal::Prim(ty, _) => Slot { value: primitive_text(ty, p.bytes()), reference: None, text: None },
        })
    };
    let kept = |a: &Analysis, id: u64| a.object_at(id).filter(|&o| a.is_kept(o));
    let out = page
        .iter()
        .map(|r| {
            let holder = if r.node != 0 {
                Some(r.node)
            } else {
                match r.value {
                    Some(FieldVal::Ref(id)) => Some(id),
                    _ => None,
                }
            };
            // A chain's node dominates the rest of its chain: that part is the next
            // entry's, not this one's.
            let own = |a: &Analysis, h: u32| {
                let next = kept(a, r.next).filter(|&n| r.next != 0 && a.immediate_dominator(n) == Some(Some(h)));
                a.retained(h) - next.map_or(0, |n| a.retained(n))
            };
            Entry {
                index: r.index,
                node: (r.node != 0).then(|| kept(a, r.node).map(|o| object_ref(a, o))).flatten(),
                key: slot(a, r.key),
                value: slot(a, r.value),
                retained_bytes: holder.and_then(|h| kept(a, h)).map_or(0, |o| own(a, o)),
            }
        })
        .collect();
    let complete = walk.complete && !reader.exhausted;
    Ok(Entries {
        object: object_ref(a, obj),
        kind: walk.kind,
        size: walk.size,
        total: total as u64,
        offset: offset.min(total) as u64,
        entries: out,
        complete,
        note: walk.note.or_else(|| (!complete).then(|| format!("the walk stopped after {total} entries"))),
    })
}

/// A collection's (key, value) pairs, and whether the walk saw them all.
pub type Pairs = (Vec<(FieldVal, FieldVal)>, bool);

/// The keys and values of the map `obj` (or a set's keys, a list's elements as values),
/// in iteration order, at most [`MAX_WALK`], read with `reader`: None when `obj` is not a
/// collection read as entries. The bool says whether the walk saw them all. Without
/// `properties_map` a `Properties` is read as the `Hashtable` it extends, whatever its
/// JDK (as Eclipse MAT reads one of a dump it does not take for JDK 9+).
pub fn pairs_of(a: &mut Analysis, reader: &mut Reader, obj: u32, properties_map: bool) -> Result<Option<Pairs>> {
    let w = walk_as(a, reader, obj, properties_map)?;
    if w.kind.is_none() {
        return Ok(None);
    }
    let null = FieldVal::Ref(0);
    let pairs = w.entries.iter().map(|e| (e.key.unwrap_or(null), e.value.unwrap_or(null))).collect();
    Ok(Some((pairs, w.complete)))
}

fn walk(a: &mut Analysis, reader: &mut Reader, obj: u32) -> Result<Walk> {
    walk_as(a, reader, obj, true)
}

fn walk_as(a: &mut Analysis, reader: &mut Reader, obj: u32, properties_map: bool) -> Result<Walk> {
    let mut id = a.address(obj);
    let mut keys_only = false;
    let mut size = None;
    // Wrappers: the collection they wrap (a few levels at most).
    for _ in 0..4 {
        reader.fetch(a, [id])?;
        match reader.get(id) {
            Some(Obj::ObjectArray { .. }) => return array_entries(a, reader, id),
            Some(Obj::Instance(inst)) => {
                let class = inst.class;
                let wraps = |w: &&(&str, &str, bool)| is_a(a, class, w.0) && (properties_map || w.0 != WRAPPERS[0].0);
                let Some(&(_, field, keys)) = WRAPPERS.iter().find(wraps) else { break };
                if inst.get(field).is_none() {
                    break;
                }
                let Some(inner) = inst.reference(field) else {
                    return Ok(Walk::fail(format!("its field {field} is null or missing")));
                };
                keys_only |= keys;
                id = inner;
            }
            _ => return Ok(Walk::fail("not a collection: a primitive array or a class")),
        }
    }
    let Some(inst) = reader.instance(id).cloned() else { return Ok(Walk::fail("its record was not found")) };
    let names: Vec<String> = class_chain(a, inst.class).map(str::to_string).collect();
    let has = |n: &str| names.iter().any(|x| x == n);
    if let Some(n) = ["size", "count", "elementCount", "mSize"].iter().find_map(|f| inst.int(f)) {
        size = Some(n.max(0) as u64);
    }
    prefetch(a, reader, id, &names)?;
    let mut w = if let Some(&(class, key, value)) = TABLES.iter().find(|t| has(t.0)) {
        if class == "java.util.IdentityHashMap" {
            pairs(a, reader, inst.reference("table"), None)?
        } else {
            table(a, reader, &inst, key, value)?
        }
    } else if has("java.util.TreeMap") {
        tree(a, reader, inst.reference("root"))?
    } else if has("android.util.ArrayMap") || has("androidx.collection.SimpleArrayMap") {
        pairs(a, reader, inst.reference("mArray"), inst.int("mSize"))?
    } else if has("java.util.LinkedList") {
        linked(a, reader, &inst)?
    } else if has("java.util.ArrayList")
        || has("java.util.Vector")
        || has("java.util.concurrent.CopyOnWriteArrayList")
        || has("java.util.ArrayDeque")
    {
        list(a, reader, &inst, &names)?
    } else {
        return Ok(Walk::fail(format!(
            "{} is not a collection heapscope reads as entries",
            names.first().map(String::as_str).unwrap_or("the object")
        )));
    };
    if keys_only && w.kind == Some(EntriesKind::Map) {
        w.kind = Some(EntriesKind::Set);
        for e in &mut w.entries {
            e.value = None;
        }
    }
    w.size = w.size.or(size);
    Ok(w)
}

/// Reads the collection's internal objects in one walk of the dump: the objects of its
/// own nested classes (`java.util.HashMap$Node`, `…$Node[]`, …) reachable from it in the
/// reference graph, at most [`MAX_WALK`].
fn prefetch(a: &mut Analysis, reader: &mut Reader, id: u64, names: &[String]) -> Result<()> {
    let Some(start) = a.object_at(id) else { return Ok(()) };
    let prefixes: Vec<String> =
        names.iter().filter(|n| n.starts_with("java.") || n.starts_with("android")).map(|n| format!("{n}$")).collect();
    let mut inner: HashMap<u32, bool> = HashMap::new();
    let mut seen: HashSet<u32> = HashSet::from([start]);
    let mut queue = vec![start];
    let mut head = 0;
    while head < queue.len() && queue.len() < MAX_WALK * 2 {
        let u = queue[head];
        head += 1;
        a.for_each_reference(u, |v| {
            let c = a.class_of(v);
            let internal = *inner.entry(c).or_insert_with(|| {
                prefixes.iter().any(|p| a.class_name(c).starts_with(p.as_str()))
                    || a.class_name(c) == "java.lang.Object[]"
            });
            if internal && seen.insert(v) {
                queue.push(v);
            }
        });
    }
    let ids: Vec<u64> = queue.iter().map(|&v| a.address(v)).collect();
    reader.fetch(a, ids)
}

/// Hash tables: bucket by bucket, each chain by `next` (ConcurrentHashMap's tree bins
/// through their `first`).
fn table(a: &mut Analysis, reader: &mut Reader, inst: &Instance, key: &str, value: &str) -> Result<Walk> {
    let mut w = Walk { kind: Some(EntriesKind::Map), complete: true, ..Walk::default() };
    let Some(table) = inst.reference("table") else {
        // An empty map has no table yet.
        return Ok(if inst.has_ref("table") { w } else { Walk::fail("no field table: an unexpected layout") });
    };
    reader.fetch(a, [table])?;
    let mut heads: Vec<u64> = Vec::new();
    reader.elements(a, table, 0, u64::MAX, |_, e| {
        if e != 0 {
            heads.push(e);
        }
        if heads.len() >= MAX_WALK {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    let mut seen = HashSet::new();
    for head in heads {
        let mut node = head;
        while node != 0 && seen.insert(node) {
            if w.full() {
                w.complete = false;
                return Ok(w);
            }
            reader.fetch(a, [node])?;
            let Some(n) = reader.instance(node) else {
                w.complete = false;
                w.note = Some(format!("a node at 0x{node:x} could not be read"));
                return Ok(w);
            };
            let names: Vec<&str> = class_chain(a, n.class).collect();
            if names.contains(&"java.util.concurrent.ConcurrentHashMap$TreeBin") {
                node = n.reference("first").unwrap_or(0);
                continue;
            }
            if names.contains(&"java.util.concurrent.ConcurrentHashMap$ForwardingNode") {
                w.complete = false;
                w.note = Some(
                    "the map was being resized when the dump was taken: entries already moved are not listed".into(),
                );
                break;
            }
            if n.get(key).is_none() {
                w.complete = false;
                w.note = Some(format!("a node of class {} has no field {key}", names.first().copied().unwrap_or("?")));
                return Ok(w);
            }
            let next = n.reference("next").unwrap_or(0);
            w.entries.push(Raw { index: w.entries.len() as u64, node, key: n.get(key), value: n.get(value), next });
            node = next;
        }
    }
    Ok(w)
}

/// TreeMap: in order, from `root` by `left` and `right` (no recursion).
fn tree(a: &mut Analysis, reader: &mut Reader, root: Option<u64>) -> Result<Walk> {
    let mut w = Walk { kind: Some(EntriesKind::Map), complete: true, ..Walk::default() };
    let mut stack: Vec<u64> = Vec::new();
    let mut seen = HashSet::new();
    let mut cur = root.unwrap_or(0);
    loop {
        while cur != 0 && seen.insert(cur) {
            reader.fetch(a, [cur])?;
            stack.push(cur);
            cur = reader.instance(cur).and_then(|n| n.reference("left")).unwrap_or(0);
        }
        let Some(node) = stack.pop() else { break };
        if w.full() {
            w.complete = false;
            break;
        }
        let Some(n) = reader.instance(node) else {
            w.complete = false;
            break;
        };
        w.entries.push(Raw { index: w.entries.len() as u64, node, key: n.get("key"), value: n.get("value"), next: 0 });
        cur = n.reference("right").unwrap_or(0);
    }
    Ok(w)
}

/// Keys and values side by side in one array (`[k0, v0, k1, v1, …]`): Android's ArrayMap
/// (its first `size` pairs) and IdentityHashMap (the pairs whose key is not null).
fn pairs(a: &mut Analysis, reader: &mut Reader, array: Option<u64>, size: Option<i64>) -> Result<Walk> {
    let mut w = Walk { kind: Some(EntriesKind::Map), complete: true, ..Walk::default() };
    let Some(array) = array else { return Ok(w) };
    reader.fetch(a, [array])?;
    let limit = size.map_or(u64::MAX, |s| 2 * s.max(0) as u64);
    let mut key = 0u64;
    let mut full = false;
    reader.elements(a, array, 0, limit, |i, e| {
        if i % 2 == 0 {
            key = e;
        } else if key != 0 || size.is_some() {
            w.entries.push(Raw {
                index: w.entries.len() as u64,
                node: 0,
                key: Some(FieldVal::Ref(key)),
                value: Some(FieldVal::Ref(e)),
                next: 0,
            });
            if w.entries.len() >= MAX_WALK {
                full = true;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    w.complete = !full;
    Ok(w)
}

/// LinkedList: from `first` by `next` (Android's and JDK 6's `header` ring by `next`
/// back to the header).
fn linked(a: &mut Analysis, reader: &mut Reader, inst: &Instance) -> Result<Walk> {
    let mut w = Walk { kind: Some(EntriesKind::List), complete: true, ..Walk::default() };
    let (mut node, stop, item) = match (inst.get("first"), inst.reference("header"), inst.reference("voidLink")) {
        (Some(_), _, _) => (inst.reference("first").unwrap_or(0), 0, "item"),
        (None, Some(h), _) => (h, h, "element"),
        (None, None, Some(v)) => (v, v, "data"),
        _ => return Ok(Walk::fail("no field first: an unexpected LinkedList layout")),
    };
    if stop != 0 {
        reader.fetch(a, [stop])?;
        node = reader.instance(stop).and_then(|h| h.reference("next")).unwrap_or(0);
    }
    let mut seen = HashSet::new();
    while node != 0 && node != stop && seen.insert(node) {
        if w.full() {
            w.complete = false;
            break;
        }
        reader.fetch(a, [node])?;
        let Some(n) = reader.instance(node) else {
            w.complete = false;
            break;
        };
        w.entries.push(Raw { index: w.entries.len() as u64, node: 0, key: None, value: n.get(item), next: 0 });
        node = n.reference("next").unwrap_or(0);
    }
    Ok(w)
}

/// Array-backed lists: ArrayList and Vector (the first `size`), CopyOnWriteArrayList (the
/// whole array), ArrayDeque (from `head` to `tail`, around the end).
fn list(a: &mut Analysis, reader: &mut Reader, inst: &Instance, names: &[String]) -> Result<Walk> {
    let mut w = Walk { kind: Some(EntriesKind::List), complete: true, ..Walk::default() };
    let has = |n: &str| names.iter().any(|x| x == n);
    let field = ["elementData", "array", "elements"].into_iter().find(|f| inst.has_ref(f));
    let Some(field) = field else { return Ok(Walk::fail("no element array: an unexpected layout")) };
    let Some(array) = inst.reference(field) else { return Ok(w) };
    reader.fetch(a, [array])?;
    let Some(&Obj::ObjectArray { len, .. }) = reader.get(array) else {
        return Ok(Walk::fail("its element array could not be read"));
    };
    let len = len as u64;
    let (start, count) = if has("java.util.ArrayDeque") {
        let (head, tail) = (inst.int("head").unwrap_or(0).max(0) as u64, inst.int("tail").unwrap_or(0).max(0) as u64);
        if len == 0 {
            (0, 0)
        } else {
            (head % len, (tail as i64 - head as i64).rem_euclid(len as i64) as u64)
        }
    } else if has("java.util.concurrent.CopyOnWriteArrayList") {
        (0, len)
    } else {
        let size = ["size", "elementCount"].iter().find_map(|f| inst.int(f)).unwrap_or(len as i64);
        (0, (size.max(0) as u64).min(len))
    };
    let want = count.min(MAX_WALK as u64);
    w.complete = want == count;
    // At most two runs: from `start` to the end, then from 0 (ArrayDeque's wrap-around).
    let first = want.min(len - start.min(len));
    for (from, n) in [(start, first), (0, want - first)] {
        if n == 0 {
            continue;
        }
        reader.elements(a, array, from, n, |_, e| {
            w.entries.push(Raw {
                index: w.entries.len() as u64,
                node: 0,
                key: None,
                value: Some(FieldVal::Ref(e)),
                next: 0,
            });
            ControlFlow::Continue(())
        })?;
    }
    Ok(w)
}

/// An object array: its non-null elements, by index.
fn array_entries(a: &mut Analysis, reader: &mut Reader, id: u64) -> Result<Walk> {
    let mut w = Walk { kind: Some(EntriesKind::Array), complete: true, ..Walk::default() };
    let mut full = false;
    reader.elements(a, id, 0, u64::MAX, |i, e| {
        if e != 0 {
            w.entries.push(Raw { index: i, node: 0, key: None, value: Some(FieldVal::Ref(e)), next: 0 });
            if w.entries.len() >= MAX_WALK {
                full = true;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    w.complete = !full;
    Ok(w)
}
