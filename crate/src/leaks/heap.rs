//! The leak finder's one door into the core: everything the finders, the path search, the
//! inspectors and the traces know about the dump, they learn here. Nothing else in
//! [`super`] names a core module, so moving the core around changes this file only.
//!
//! What it offers, in the finder's terms:
//! - objects: count, address, kind (instance, class object, object array, primitive
//!   array), class and class names (after a ProGuard/R8 mapping, when one is applied);
//! - classes: by name, the classes extending a name, a class's static fields;
//! - instances of a set of classes (one scan of the class column), and their fields read
//!   back from the dump, in batches (one forward walk per batch), by declaring class and
//!   name; a `java.lang.String`'s text;
//! - the GC roots with their kinds, and every object's references with their strength
//!   (weak, soft, phantom and finalizer references are told apart from strong ones by
//!   [`crate::strength`]'s rules, already applied to the graph), in the form Shark
//!   follows them: an instance's fields, an array's elements, a class's static fields, a
//!   thread's stack locals (never the edges MAT adds from an object to its class or from
//!   a class to its super class and loader);
//! - the names of the references from one object to another (field, static field,
//!   array index, stack local);
//! - retained size and object count in the dominator tree in use.

use std::collections::HashMap;
use std::ops::ControlFlow;

use crate::analysis::Analysis;
use crate::error::Result;
use crate::graph::NO_CLASS;
use crate::readback::fields::{array_elements, instance_fields, Value};
use crate::readback::locate::{self, Record, RecordHead};
use crate::readback::strings::{self, ByteOrder, Decoding, Display};
use crate::records::basic_type;
use crate::records::heap::RootKind;
use crate::rules::edges::STRENGTH_MASK;
use crate::rules::roots::RootKinds;
use crate::rules::strength::{self as strength, Strength};
use crate::search::via::{self, Via};

pub use crate::readback::reader::FieldVal;

/// Objects read back per walk of the dump.
const BATCH: usize = 4096;
/// Characters of a string read at most.
pub const MAX_TEXT: usize = 1000;
/// Static fields Shark never follows: ART's and HotSpot's bookkeeping, not references a
/// program holds.
const SKIPPED_STATICS: [&str; 3] = ["$staticOverhead", "$classOverhead", "<resolved_references>"];

/// What an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Instance,
    /// A class object, with the class it stands for.
    Class(u32),
    ObjectArray,
    PrimitiveArray,
    /// An object without a known class.
    Unknown,
}

/// How a reference is held, as a leak trace names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RefKind {
    InstanceField,
    StaticField,
    ArrayElement,
    Local,
}

/// One way an object references another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub kind: RefKind,
    /// The field's name, `[i]` for an array element, empty for a local.
    pub name: String,
    /// The class declaring the field (the array's class, the thread's class).
    pub declared_by: Option<u32>,
    /// Its [`Strength`] byte.
    pub strength: u8,
}

/// An instance's field values, each with its declaring class and name string id.
#[derive(Debug, Clone, Default)]
pub struct Fields {
    list: Vec<(u32, u64, FieldVal)>,
}

/// An instance's fields, readable by name.
pub struct Instance<'h> {
    pub obj: u32,
    pub class: u32,
    fields: &'h Fields,
    a: &'h Analysis,
}

impl Instance<'_> {
    /// The field `name` declared by the class named `declared_by` (in the instance's class
    /// chain), as Shark reads `instance["android.app.Activity", "mDestroyed"]`.
    pub fn get(&self, declared_by: &str, name: &str) -> Option<FieldVal> {
        self.fields
            .list
            .iter()
            .find(|(c, id, _)| self.a.class_name(*c) == declared_by && field_is(self.a, *c, *id, name))
            .map(|f| f.2)
    }

    /// The field `name` declared lowest in the class chain.
    pub fn get_any(&self, name: &str) -> Option<FieldVal> {
        self.fields.list.iter().find(|(c, id, _)| field_is(self.a, *c, *id, name)).map(|f| f.2)
    }

    /// Whether the class named `declared_by` declares a field `name` (whatever it holds).
    pub fn has(&self, declared_by: &str, name: &str) -> bool {
        self.get(declared_by, name).is_some()
    }

    /// The reference held by the field (Some(0) for null; None when there is no such
    /// reference field).
    pub fn reference(&self, declared_by: &str, name: &str) -> Option<u64> {
        match self.get(declared_by, name)? {
            FieldVal::Ref(r) => Some(r),
            FieldVal::Prim(..) => None,
        }
    }

    /// An integral (or boolean) field's value.
    pub fn int(&self, declared_by: &str, name: &str) -> Option<i64> {
        self.get(declared_by, name)?.int()
    }

    /// A boolean field's value.
    pub fn boolean(&self, declared_by: &str, name: &str) -> Option<bool> {
        self.int(declared_by, name).map(|v| v != 0)
    }
}

/// Whether field `name_id` declared by class `class` is called `name` (its original name
/// when a mapping renamed it).
fn field_is(a: &Analysis, class: u32, name_id: u64, name: &str) -> bool {
    let index = &a.heap.index;
    match index.field_renames.get(&(class, name_id)) {
        Some(n) => n == name,
        None => index.strings.get(name_id) == Some(name),
    }
}

fn field_name(a: &Analysis, class: u32, name_id: u64) -> String {
    a.heap.index.field_name(Some(class), name_id)
}

/// The heap as the leak finder reads it.
pub struct Heap<'a> {
    a: &'a mut Analysis,
    /// Instances read back for the traces and the small hops of the inspectors.
    cache: HashMap<u32, Option<Fields>>,
    /// Thread-local references, sorted: (thread object, local).
    locals: Vec<(u32, u32)>,
    /// Some objects have no class: references to them are left out (as in the tree).
    filter: bool,
}

impl<'a> Heap<'a> {
    pub fn new(a: &'a mut Analysis) -> Heap<'a> {
        let mut locals = a.heap.roots.thread_locals.clone();
        locals.sort_unstable();
        let filter = a.heap.classes.any_missing();
        Heap { a, cache: HashMap::new(), locals, filter }
    }

    pub fn object_count(&self) -> usize {
        self.a.object_count()
    }

    pub fn address(&self, obj: u32) -> u64 {
        self.a.address(obj)
    }

    /// The object at `address` (None for null or an identifier no object has).
    pub fn object_at(&self, address: u64) -> Option<u32> {
        if address == 0 {
            return None;
        }
        self.a.object_at(address).filter(|&o| self.a.class_of(o) != NO_CLASS)
    }

    pub fn class_of(&self, obj: u32) -> Option<u32> {
        Some(self.a.class_of(obj)).filter(|&c| c != NO_CLASS)
    }

    pub fn class_name(&self, class: u32) -> &str {
        self.a.class_name(class)
    }

    pub fn class_count(&self) -> usize {
        self.a.class_count()
    }

    /// The class `obj` stands for, if it is a class object: only objects of class
    /// `java.lang.Class` (or of no class, in a dump without it) are looked up.
    #[inline]
    fn represented(&self, obj: u32) -> Option<u32> {
        let c = self.a.class_of(obj);
        match self.a.heap.index.java_lang_class {
            Some(k) if c != k && c != NO_CLASS => None,
            _ => self.a.class_represented_by(obj),
        }
    }

    pub fn kind(&self, obj: u32) -> Kind {
        if let Some(c) = self.represented(obj) {
            return Kind::Class(c);
        }
        let Some(c) = self.class_of(obj) else { return Kind::Unknown };
        if self.a.heap.index.primitive_array_class.contains(&Some(c)) {
            Kind::PrimitiveArray
        } else if self.a.heap.class(c).is_array() {
            Kind::ObjectArray
        } else {
            Kind::Instance
        }
    }

    /// The name a trace shows for an object: its class's, or for a class object the name
    /// of the class it stands for.
    pub fn object_class_name(&self, obj: u32) -> &str {
        match self.kind(obj) {
            Kind::Class(c) => self.class_name(c),
            Kind::Unknown => "?",
            _ => self.class_of(obj).map_or("?", |c| self.class_name(c)),
        }
    }

    /// Whether a path of any strength reaches `obj` from a GC root.
    pub fn reachable(&self, obj: u32) -> bool {
        if self.a.strengths.is_empty() {
            // A core-only analysis has no strengths: MAT's tree keeps the reachable objects.
            self.a.is_kept(obj)
        } else {
            self.a.strength(obj) != Strength::Unreachable
        }
    }

    /// The classes called `name` (one per loader that defined it).
    pub fn classes_named(&self, name: &str) -> Vec<u32> {
        (0..self.class_count() as u32).filter(|&c| self.class_name(c) == name).collect()
    }

    /// For every class, whether it is `name` or extends it.
    pub fn extending(&self, name: &str) -> Vec<bool> {
        self.a.heap.index.classes.all_extending(name)
    }

    /// Whether class `class` is `name` or extends it.
    pub fn is_a(&self, class: u32, name: &str) -> bool {
        self.a.heap.index.classes.chain(Some(class)).any(|c| self.class_name(c) == name)
    }

    /// Whether object `obj` is an instance of `name` (or of a subclass).
    pub fn instance_of(&self, obj: u32, name: &str) -> bool {
        self.kind(obj) == Kind::Instance && self.class_of(obj).is_some_and(|c| self.is_a(c, name))
    }

    /// The names of class `class` and its super classes, lowest first.
    pub fn class_chain(&self, class: u32) -> impl Iterator<Item = &str> + '_ {
        self.a.heap.index.classes.chain(Some(class)).map(|c| self.class_name(c))
    }

    /// The super class of `class`.
    pub fn super_class(&self, class: u32) -> Option<u32> {
        self.a.heap.class(class).super_index
    }

    /// The objects of the classes `wanted` marks (only those a path reaches, when
    /// `reachable_only`), in index order: one scan of the class column, the list grown
    /// fallibly.
    pub fn instances_of(&self, wanted: &[bool], reachable_only: bool) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        if !wanted.iter().any(|&w| w) {
            return Ok(out);
        }
        self.a.heap.classes.objects_of(wanted, |o| {
            if (!reachable_only || self.reachable(o)) && self.represented(o).is_none() {
                crate::alloc::try_push(&mut out, o, "the leak finder's candidates")?;
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// A static field of class `class` by name: (type, raw value bits; the address for a
    /// reference).
    pub fn static_field(&self, class: u32, name: &str) -> Option<(u8, u64)> {
        let info = self.a.heap.class(class);
        info.statics.iter().find(|s| field_is(self.a, class, s.name_id, name)).map(|s| (s.ty, s.value))
    }

    /// A static reference field's value (0: null).
    pub fn static_ref(&self, class: u32, name: &str) -> Option<u64> {
        self.static_field(class, name).filter(|s| s.0 == basic_type::OBJECT).map(|s| s.1)
    }

    /// The class object of class `class`.
    pub fn class_object(&self, class: u32) -> Option<u32> {
        self.a.class_object(class)
    }

    /// The static reference fields of class `class` holding an object: (name, object).
    pub fn static_refs(&self, class: u32) -> Vec<(String, u32)> {
        let info = self.a.heap.class(class);
        info.statics
            .iter()
            .filter(|s| s.ty == basic_type::OBJECT)
            .filter_map(|s| Some((field_name(self.a, class, s.name_id), self.object_at(s.value)?)))
            .collect()
    }

    /// A static integral field's value.
    pub fn static_int(&self, class: u32, name: &str) -> Option<i64> {
        let (ty, v) = self.static_field(class, name)?;
        Some(match ty {
            basic_type::BOOLEAN | basic_type::BYTE => v as u8 as i8 as i64,
            basic_type::CHAR => v as u16 as i64,
            basic_type::SHORT => v as u16 as i16 as i64,
            basic_type::INT => v as u32 as i32 as i64,
            basic_type::LONG => v as i64,
            _ => return None,
        })
    }

    /// Reads the instances `objs` back, in one walk per [`BATCH`], handing each to `f`
    /// (not kept: for scans over many objects).
    pub fn scan(&mut self, objs: &[u32], mut f: impl FnMut(&Instance<'_>)) -> Result<()> {
        let mut sorted: Vec<u32> = objs.iter().copied().filter(|&o| self.kind(o) == Kind::Instance).collect();
        sorted.sort_unstable_by_key(|&o| self.a.address(o));
        sorted.dedup();
        let mut fields = Fields::default();
        for chunk in sorted.chunks(BATCH) {
            let records = self.read_records(chunk)?;
            for (&obj, record) in chunk.iter().zip(records) {
                if let Some(RecordHead::Instance { class_id, fields: data }) = record {
                    self.decode(class_id, &data, &mut fields);
                    let class = self.class_of(obj).unwrap_or(NO_CLASS);
                    f(&Instance { obj, class, fields: &fields, a: self.a });
                }
            }
        }
        Ok(())
    }

    /// Reads the instances `objs` back and keeps them, for [`Heap::instance`].
    pub fn load(&mut self, objs: &[u32]) -> Result<()> {
        let mut want: Vec<u32> = objs.iter().copied().filter(|o| !self.cache.contains_key(o)).collect();
        want.sort_unstable_by_key(|&o| self.a.address(o));
        want.dedup();
        for chunk in want.chunks(BATCH) {
            let records = self.read_records(chunk)?;
            for (&obj, record) in chunk.iter().zip(records) {
                let fields = match record {
                    Some(RecordHead::Instance { class_id, fields: data }) if self.kind(obj) == Kind::Instance => {
                        let mut f = Fields::default();
                        self.decode(class_id, &data, &mut f);
                        Some(f)
                    }
                    _ => None,
                };
                self.cache.insert(obj, fields);
            }
        }
        Ok(())
    }

    /// Drops the instances `objs` read by [`Heap::load`] (a scan over many objects keeps
    /// one batch at a time).
    pub fn forget(&mut self, objs: &[u32]) {
        for o in objs {
            self.cache.remove(o);
        }
    }

    /// An instance read back (reads it when [`Heap::load`] did not).
    pub fn instance(&mut self, obj: u32) -> Result<Option<Instance<'_>>> {
        if !self.cache.contains_key(&obj) {
            self.load(&[obj])?;
        }
        let class = self.class_of(obj).unwrap_or(NO_CLASS);
        Ok(match self.cache.get(&obj) {
            Some(Some(fields)) => Some(Instance { obj, class, fields, a: self.a }),
            _ => None,
        })
    }

    /// The instance at `address`, read back.
    pub fn instance_at(&mut self, address: u64) -> Result<Option<Instance<'_>>> {
        match self.object_at(address) {
            Some(o) => self.instance(o),
            None => Ok(None),
        }
    }

    /// The records of `objs` (ascending addresses, distinct), read in one walk.
    fn read_records(&mut self, objs: &[u32]) -> Result<Vec<Option<RecordHead>>> {
        Ok(self.read_with_data(objs, 0)?.into_iter().map(|r| r.map(|r| r.head)).collect())
    }

    /// As [`Heap::read_records`], each primitive array with its first `max_data` bytes.
    fn read_with_data(&mut self, objs: &[u32], max_data: usize) -> Result<Vec<Option<Record>>> {
        let ids: Vec<u64> = objs.iter().map(|&o| self.a.address(o)).collect();
        let Some(source) = self.a.source.take() else { return Ok(vec![None; objs.len()]) };
        let (source, found) = locate::records(&self.a.heap.index, source, &ids, max_data);
        self.a.source = Some(source);
        found
    }

    fn decode(&self, class_id: u64, data: &[u8], out: &mut Fields) {
        out.list.clear();
        let a = &*self.a;
        let Some(class) = a.heap.index.class_by_id.get(class_id) else { return };
        let chain: Vec<u32> = a.heap.index.classes.chain(Some(class)).collect();
        let table = &a.heap.index.classes;
        instance_fields(
            data,
            chain.iter().map(|&c| table.classes[c as usize].fields.as_slice()),
            a.heap.index.header.id_size,
            |f| {
                out.list.push((chain[f.depth], f.decl.name_id, FieldVal::from(f.value)));
                ControlFlow::Continue(())
            },
        );
    }

    /// The text of the `java.lang.String` at `address` (None: null, not a string, or no
    /// characters in the dump), at most [`MAX_TEXT`] characters. Reads `value` (a `char[]`,
    /// or a `byte[]` with `coder` on JDK 9+) and, where the string has them (Android before
    /// 6, JDK 6), `offset` and `count`.
    pub fn text(&mut self, address: u64) -> Result<Option<String>> {
        let Some(obj) = self.object_at(address) else { return Ok(None) };
        let (value, fields) = {
            let Some(s) = self.instance(obj)? else { return Ok(None) };
            let string = "java.lang.String";
            let int = |name| s.int(string, name).map(|v| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32);
            let coder = s.int(string, "coder").map(|c| c.clamp(0, 255) as u8);
            (s.reference(string, "value"), strings::Fields { coder, offset: int("offset"), count: int("count") })
        };
        let Some(array) = value.and_then(|v| self.object_at(v)) else { return Ok(None) };
        // The array's bytes up to the end of the characters shown.
        let want = fields.bytes_bound(MAX_TEXT);
        let Some(Record { head: RecordHead::PrimitiveArray { elem_type, len, has_data: true, .. }, data, .. }) =
            self.read_with_data(&[array], want)?.pop().flatten()
        else {
            return Ok(None);
        };
        let order = ByteOrder::of(&self.a.heap.index);
        Ok(strings::text(&fields, elem_type, len, &data, order, Decoding::Runtime, Display::Plain, MAX_TEXT))
    }

    /// The first `max` elements of the object array `obj` (addresses; 0 for null).
    pub fn array_elements(&mut self, obj: u32, max: usize) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        if self.kind(obj) != Kind::ObjectArray {
            return Ok(out);
        }
        let id_size = self.a.heap.index.header.id_size;
        if let Some(RecordHead::ObjectArray { len, elements_at, .. }) = self.read_records(&[obj])?.pop().flatten() {
            if let Some(source) = self.a.source.as_deref_mut() {
                array_elements(source, elements_at, len, id_size, 0, |_, id| {
                    out.push(id);
                    if out.len() >= max {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                })?;
            }
        }
        Ok(out)
    }

    /// The GC roots, ascending by object, with their kinds (without the "unreachable"
    /// kinds: ART's record of objects it kept though nothing holds them, and MAT's roots
    /// of kept garbage).
    pub fn gc_roots(&self) -> Vec<(u32, RootKinds)> {
        let drop = RootKinds::bit(RootKind::ArtUnreachable) | RootKinds::bit(RootKind::Unreachable);
        self.a
            .heap
            .roots
            .objects
            .iter()
            .map(|&(o, k)| (o, RootKinds(k.0 & !drop)))
            .filter(|&(o, k)| !k.is_empty() && self.class_of(o).is_some())
            .collect()
    }

    /// The name of a root kind in traces ("JNI Global", "System Class", …).
    pub fn root_kind_name(kind: RootKind) -> &'static str {
        crate::rules::roots::name(kind)
    }

    /// Calls `f(target, strength)` for each reference of `v` a leak trace may follow:
    /// an instance's reference fields, an object array's elements, a class's static
    /// fields (not the three bookkeeping ones), a thread's stack locals; with the
    /// [`Strength`] byte of the reference (a target held by several
    /// fields gets the firmest). Each target once.
    #[inline]
    pub fn for_each_reference(&self, v: u32, mut f: impl FnMut(u32, u8)) {
        let heap = &self.a.heap;
        let filter = self.filter;
        if let Some(c) = self.represented(v) {
            let info = heap.class(c);
            for (i, s) in info.statics.iter().enumerate() {
                if s.ty != basic_type::OBJECT || s.value == 0 {
                    continue;
                }
                let Some(t) = heap.index.ids.index_of(s.value) else { continue };
                if filter && heap.class_of(t) == NO_CLASS {
                    continue;
                }
                let name = heap.index.strings.get(s.name_id).unwrap_or("");
                if SKIPPED_STATICS.contains(&name) {
                    continue;
                }
                let flags = info
                    .special_statics
                    .iter()
                    .find(|e| e.0 == i as u32)
                    .map_or(strength::STRONG, |e| e.1 & STRENGTH_MASK);
                f(t, flags);
            }
            return;
        }
        let special = if heap.has_special_edges(v) { heap.special_edges_of(v) } else { &[] };
        heap.refs.for_each(v, |t| {
            if filter && heap.class_of(t) == NO_CLASS {
                return;
            }
            let flags = if special.is_empty() {
                strength::STRONG
            } else {
                special.binary_search_by_key(&t, |e| e.1).map_or(strength::STRONG, |k| special[k].2 & STRENGTH_MASK)
            };
            f(t, flags);
        });
    }

    /// A hint that `v`'s references will be read soon (the search queues it).
    #[inline]
    pub fn prefetch(&self, v: u32) {
        self.a.heap.refs.prefetch(v);
        self.a.heap.classes.prefetch(v);
    }

    /// Whether `local` is on the stack of thread object `thread`.
    pub fn is_local(&self, thread: u32, local: u32) -> bool {
        self.locals.binary_search(&(thread, local)).is_ok()
    }

    /// The ways `from` references `to` (see [`crate::search::via`]): fields (with their
    /// strength), static fields, array indices (the first 20), stack locals. Read back
    /// from the dump.
    pub fn references(&mut self, from: u32, to: u32) -> Result<Vec<Named>> {
        let target = self.a.address(to);
        let links = via::links(self.a, from, to);
        let ways = match self.kind(from) {
            Kind::Class(_) => links.into_iter().filter(|w| matches!(w, Via::Static { .. })).collect(),
            Kind::Instance => {
                // From the instances loaded for this trace, else read now.
                if !self.cache.contains_key(&from) {
                    self.load(&[from])?;
                }
                let mut ways = match self.cache.get(&from) {
                    Some(Some(fields)) => via::fields_holding(fields.list.iter().copied(), target),
                    _ => Vec::new(),
                };
                ways.extend(links.into_iter().filter(|w| *w == Via::Local));
                ways
            }
            Kind::ObjectArray => {
                let id_size = self.a.heap.index.header.id_size;
                match self.read_records(&[from])?.pop().flatten() {
                    Some(RecordHead::ObjectArray { len, elements_at, .. }) => match self.a.source.as_deref_mut() {
                        Some(source) => via::elements_holding(source, elements_at, len, id_size, target, 20)?,
                        None => Vec::new(),
                    },
                    _ => Vec::new(),
                }
            }
            Kind::PrimitiveArray | Kind::Unknown => Vec::new(),
        };
        let a = &*self.a;
        let class = self.class_of(from);
        Ok(ways
            .into_iter()
            .filter_map(|w| {
                let (kind, name, declared_by, strength) = match w {
                    Via::Static { class, index, name_id } => {
                        let strength = a
                            .heap
                            .class(class)
                            .special_statics
                            .iter()
                            .find(|e| e.0 == index)
                            .map_or(strength::STRONG, |e| e.1 & STRENGTH_MASK);
                        (RefKind::StaticField, field_name(a, class, name_id), Some(class), strength)
                    }
                    Via::Field { class: k, name_id, position } => {
                        let special = class.map(|c| a.heap.class(c).special_refs.as_slice()).unwrap_or(&[]);
                        let strength =
                            special.iter().find(|e| e.0 == position).map_or(strength::STRONG, |e| e.1 & STRENGTH_MASK);
                        (RefKind::InstanceField, field_name(a, k, name_id), Some(k), strength)
                    }
                    Via::Element(i) => (RefKind::ArrayElement, i.to_string(), class, strength::STRONG),
                    Via::Local => (RefKind::Local, String::new(), class, Strength::Local as u8),
                    Via::Class | Via::ChildView | Via::Super | Via::Loader => return None,
                };
                Some(Named { kind, name, declared_by, strength })
            })
            .collect())
    }

    /// For the instances `objs` (read back in batches), calls `f(object, field's
    /// declaring class, field name, target)` for every reference field holding an object.
    pub fn reference_fields(&mut self, objs: &[u32], mut f: impl FnMut(u32, u32, &str, u32)) -> Result<()> {
        let mut sorted: Vec<u32> = objs.iter().copied().filter(|&o| self.kind(o) == Kind::Instance).collect();
        sorted.sort_unstable_by_key(|&o| self.a.address(o));
        sorted.dedup();
        let id_size = self.a.heap.index.header.id_size;
        for chunk in sorted.chunks(BATCH) {
            let records = self.read_records(chunk)?;
            let a = &*self.a;
            for (&obj, record) in chunk.iter().zip(records) {
                let Some(RecordHead::Instance { class_id, fields }) = record else { continue };
                let Some(class) = a.heap.index.class_by_id.get(class_id) else { continue };
                let chain: Vec<u32> = a.heap.index.classes.chain(Some(class)).collect();
                let table = &a.heap.index.classes;
                instance_fields(
                    &fields,
                    chain.iter().map(|&k| table.classes[k as usize].fields.as_slice()),
                    id_size,
                    |fv| {
                        if let Value::Reference(id) = fv.value {
                            if id != 0 {
                                let k = chain[fv.depth];
                                if let Some(t) = a.object_at(id).filter(|&t| a.class_of(t) != NO_CLASS) {
                                    f(obj, k, &field_name(a, k, fv.decl.name_id), t);
                                }
                            }
                        }
                        ControlFlow::Continue(())
                    },
                );
            }
        }
        Ok(())
    }

    /// Retained size of `obj` in the dominator tree in use.
    pub fn retained(&self, obj: u32) -> u64 {
        self.a.retained(obj)
    }

    /// Objects `obj` retains (itself included) in the dominator tree in use: its subtree,
    /// counted with an explicit stack.
    pub fn retained_objects(&self, obj: u32) -> Result<u64> {
        if !self.a.is_kept(obj) {
            return Ok(0);
        }
        let mut count = 0u64;
        let mut stack = vec![obj];
        while let Some(x) = stack.pop() {
            count += 1;
            for k in self.a.dominated(x) {
                crate::alloc::try_push(&mut stack, k, "the leak's retained objects")?;
            }
        }
        Ok(count)
    }

    /// Which dominator tree retained sizes come from: `mat` or `strength`.
    pub fn reading_name(&self) -> &'static str {
        self.a.reading.name()
    }
}
