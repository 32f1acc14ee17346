//! Pass 2: read the dump again and turn every object into its class, its MAT shallow
//! size and its outgoing references (as object indices, in a [`csr::Csr`]).
//!
//! The edges are the ones MAT follows (DESIGN.md §2): instance and array → their class
//! object (implicit, from `class_of`, not stored); instance → non-null reference fields;
//! object array → non-null elements; class object → super class, class loader and static
//! references; thread object → the objects its stack frames hold (Java-frame, JNI-local,
//! native-stack and thread-block roots of a known thread are edges, not GC roots).
//! References to identifiers that are not objects of the dump are dropped and counted.

pub mod columns;
pub mod csr;
pub mod roots;
pub mod sink;
pub mod sparse;

use std::collections::HashMap;

use crate::bits::BitSet;
use crate::error::{Error, Result};
use crate::index::classes::ClassInfo;
use crate::index::jvm_sizes::{self, evidence::InstanceEvidence, Sizes};
use crate::index::{Index, Tick};
use crate::records::basic_type;
use crate::records::cursor::be_id;
use crate::records::heap::{ClassDump, Visitor};
use crate::records::Cursor;
use columns::ClassColumn;
use csr::{Csr, CsrBuilder};
use roots::GcRoots;
use sparse::{ShallowSizes, SizeBuilder};

use crate::rules::edges::{MAT_EXCLUDED, OWNER, STRENGTH_MASK};
use crate::rules::strength::{Strength, STRONG};
pub use sink::Pass2Sink;

const LOCAL: u8 = Strength::Local as u8;

/// The flags of one reference held by two fields: the firmer strength, excluded only if
/// both are, owning if either does.
#[inline]
fn merge_flags(x: u8, y: u8) -> u8 {
    ((x & STRENGTH_MASK).min(y & STRENGTH_MASK)) | (x & y & MAT_EXCLUDED) | ((x | y) & OWNER)
}

/// Class index meaning "no class" (never stored for a live object after pass 2).
pub const NO_CLASS: u32 = u32::MAX;

/// The heap as a graph: pass 1's index plus, per object, class, size and references.
pub struct Heap {
    pub index: Index,
    /// Class index of every object (`java.lang.Class` for class objects).
    pub classes: ClassColumn,
    /// Shallow size of every object (an instance's from its class: read it through
    /// [`Heap::shallow`]).
    pub sizes: ShallowSizes,
    pub refs: Csr,
    /// Object index of each class's class object.
    pub class_object: Vec<u32>,
    pub roots: GcRoots,
    /// The references that are not plain strong ones, ascending by (source, target): the
    /// reference's flags are its [`Strength`] (the firmest of the fields and stack slots
    /// holding it) plus [`MAT_EXCLUDED`] when only fields leak-suspect paths skip hold it.
    /// Every reference not listed is strong.
    pub special_edges: Vec<(u32, u32, u8)>,
    /// The sources in `special_edges` (or, once the strength-aware reading's owner rules
    /// marked them, of a virtual reference).
    pub has_special: BitSet,
    pub missing_refs: u64,
    pub warnings: Vec<String>,
}

impl Heap {
    pub fn object_count(&self) -> usize {
        self.classes.len()
    }

    /// Whether some reference of `obj` is listed in [`Heap::special_edges`].
    #[inline]
    pub fn has_special_edges(&self, obj: u32) -> bool {
        self.has_special.contains(obj)
    }

    /// The special references of `obj`, by target.
    pub fn special_edges_of(&self, obj: u32) -> &[(u32, u32, u8)] {
        let e = &self.special_edges;
        let a = e.partition_point(|x| x.0 < obj);
        let b = a + e[a..].partition_point(|x| x.0 == obj);
        &e[a..b]
    }

    /// The flags of the reference `from → to` (0, strong and followed by every path,
    /// when it is not special).
    pub fn edge_flags(&self, from: u32, to: u32) -> u8 {
        if !self.has_special_edges(from) {
            return 0;
        }
        let e = self.special_edges_of(from);
        e.binary_search_by_key(&to, |x| x.1).map_or(0, |k| e[k].2)
    }

    /// Class index of `obj`, or [`NO_CLASS`].
    #[inline]
    pub fn class_of(&self, obj: u32) -> u32 {
        self.classes.get(obj)
    }

    #[inline(always)]
    pub fn shallow(&self, obj: u32) -> u64 {
        self.sizes.get(obj, self.classes.get(obj))
    }

    pub fn class(&self, class: u32) -> &ClassInfo {
        &self.index.classes.classes[class as usize]
    }

    /// If `obj` is a class object, the index of the class it represents.
    pub fn class_represented_by(&self, obj: u32) -> Option<u32> {
        self.index.class_by_id.get(self.index.ids.id(obj))
    }

    /// Calls `f` with every object `obj` references, the class edge first.
    #[inline]
    pub fn for_each_reference<F: FnMut(u32)>(&self, obj: u32, mut f: F) {
        let c = self.classes.get(obj);
        if c != NO_CLASS {
            let co = self.class_object[c as usize];
            if co != NO_CLASS {
                f(co);
            }
        }
        self.refs.for_each(obj, f);
    }

    /// [`Heap::for_each_edge`] for the objects whose bit is set in `from` (bit `v % 64` of
    /// word `v / 64`); the other objects' lists are not read.
    #[inline]
    pub fn for_each_edge_from<F: FnMut(u32, u32)>(&self, from: &[u64], mut f: F) {
        self.refs.scan_from(from, |v, targets| self.edges_of(v, targets, &mut f));
    }

    /// Calls `f(v, t)` for every reference, objects in index order, each object's as
    /// [`Heap::for_each_reference`] gives them (reads the lists sequentially).
    #[inline]
    pub fn for_each_edge<F: FnMut(u32, u32)>(&self, mut f: F) {
        self.refs.scan(|v, targets| self.edges_of(v, targets, &mut f));
    }

    /// `f(v, t)` for `v`'s class edge, then for each of `targets` (`v`'s list).
    #[inline(always)]
    fn edges_of<F: FnMut(u32, u32)>(&self, v: u32, targets: csr::Targets, f: &mut F) {
        let c = self.classes.get(v);
        if c != NO_CLASS {
            let co = self.class_object[c as usize];
            if co != NO_CLASS {
                f(v, co);
            }
        }
        for t in targets {
            f(v, t);
        }
    }
}

struct Pass2<'a, S: Pass2Sink> {
    index: &'a Index,
    ids: usize,
    classes: ClassColumn,
    sizes: SizeBuilder,
    refs: CsrBuilder,
    targets: Vec<u32>,
    /// The object array whose elements are arriving.
    array: Option<u32>,
    /// Thread object index → objects its stack holds, by thread (looked up per object:
    /// a binary search in a few entries beats hashing).
    locals: Vec<(u32, Vec<u32>)>,
    /// One bit per object with an entry in `locals`: every object is flushed, threads
    /// are few, so a bit test spares the search for all the others.
    has_locals: BitSet,
    special_edges: Vec<(u32, u32, u8)>,
    class_object: Vec<u32>,
    missing_refs: u64,
    duplicates: u64,
    /// One bit per object: its record was seen (see `claim`).
    claimed: BitSet,
    unknown_class: HashMap<u64, u64>,
    tick: Tick<'a>,
    objects: u64,
    sink: &'a mut S,
    /// With the JVM's sizes: per class the nearest next object after an instance, and
    /// over its arrays (count, MAT's bytes less the JVM's).
    jvm: Option<(InstanceEvidence, Vec<(u64, i64)>)>,
}

impl<S: Pass2Sink> Pass2<'_, S> {
    /// Claims `id` for a record; None (and a warning later) for a second definition.
    ///
    /// A bit per object, not `class_of`, says whether it was defined: an object can be
    /// defined without getting a class (its class is missing, or a class object when the
    /// dump lacks `java.lang.Class`), and a later duplicate must not redefine it.
    #[inline(always)]
    fn claim(&mut self, id: u64) -> Option<u32> {
        let Some(obj) = self.index.ids.index_of(id) else {
            self.sink.object(None);
            return None;
        };
        if !self.claimed.insert_new(obj) {
            self.sink.object(None);
            self.duplicates += 1;
            return None;
        }
        self.sink.object(Some(obj));
        Some(obj)
    }

    #[inline]
    fn class_object_of(&self, class: u32) -> Option<u32> {
        self.class_object.get(class as usize).copied().filter(|&o| o != NO_CLASS)
    }

    #[inline]
    fn target(&mut self, id: u64) {
        if id == 0 {
            return;
        }
        match self.index.ids.index_of(id) {
            Some(t) => self.targets.push(t),
            None => self.missing_refs += 1,
        }
    }

    /// Stores the collected references of `obj` in MAT's order: deduplicated and
    /// ascending, without the class object (whose edge is implicit and comes first).
    #[inline(always)]
    fn flush(&mut self, obj: u32, class_object: u32) -> Result<()> {
        let has_locals = self.has_locals.contains(obj);
        if let Some(k) = has_locals.then(|| self.locals.binary_search_by_key(&obj, |e| e.0).ok()).flatten() {
            let extra = std::mem::take(&mut self.locals[k].1);
            let first = self.special_edges.iter().rposition(|e| e.0 != obj).map_or(0, |p| p + 1);
            for &l in &extra {
                // A stack slot holds at LOCAL; a field holding the same object is firmer
                // (strong) or, when itself special, is merged with it.
                if let Some(e) = self.special_edges[first..].iter_mut().find(|e| e.1 == l) {
                    // (MAT's path exclusions never looked at stack slots.)
                    e.2 = (e.2 & !STRENGTH_MASK) | (e.2 & STRENGTH_MASK).min(LOCAL);
                } else if l != class_object && !self.targets.contains(&l) {
                    self.special_edges.push((obj, l, LOCAL));
                }
            }
            self.targets.extend_from_slice(&extra);
            self.locals[k].1 = extra;
        }
        self.targets.sort_unstable();
        self.targets.dedup();
        if let Ok(k) = self.targets.binary_search(&class_object) {
            self.targets.remove(k);
        }
        let r = self.refs.set(obj, &self.targets);
        self.targets.clear();
        r
    }

    /// Records the special references of `obj` (see
    /// [`ClassTable::mark_special_fields`](crate::index::classes::ClassTable::mark_special_fields)) from every reference it
    /// holds, as (target id, flags): per target, the firmest strength of its holders, and
    /// [`MAT_EXCLUDED`] only when every holder is excluded.
    ///
    /// `neutral` is a strong reference MAT's path exclusions never looked at (a class's
    /// loader): it makes a reference strong but leaves its exclusion as it is.
    fn note_special(&mut self, obj: u32, holders: &[(u64, u8)], neutral: Option<u64>) {
        // Each object is flushed once (see `claim`), so its entries are the tail pushed
        // here: merge there only, not in the whole list (which would be quadratic in the
        // number of Reference objects).
        let first = self.special_edges.len();
        for &(id, flags) in holders {
            let Some(t) = self.index.ids.index_of(id) else { continue };
            match self.special_edges[first..].iter_mut().find(|e| e.1 == t) {
                Some(e) => e.2 = merge_flags(e.2, flags),
                None => self.special_edges.push((obj, t, flags)),
            }
        }
        if let Some(t) = neutral.and_then(|id| self.index.ids.index_of(id)) {
            if let Some(e) = self.special_edges[first..].iter_mut().find(|e| e.1 == t) {
                e.2 &= !STRENGTH_MASK;
            }
        }
        // Plain strong references were listed only to be merged with: drop them again.
        let mut k = first;
        while k < self.special_edges.len() {
            if self.special_edges[k].2 == STRONG {
                self.special_edges.swap_remove(k);
            } else {
                k += 1;
            }
        }
    }

    /// Counts one object record (for progress) and returns Ok for the visitor's result.
    #[inline]
    fn count_object(&mut self) -> Result<()> {
        self.objects += 1;
        Ok(())
    }
}

impl<S: Pass2Sink> Visitor for Pass2<'_, S> {
    const INSTANCE_FIELDS: bool = true;
    const ARRAY_ELEMENTS: bool = true;
    // Whoever needs the primitive arrays' bodies reads them in pass 1: skipped here.
    const PRIMITIVE_DATA: bool = false;
    const ALLOCATION_SERIALS: bool = S::ALLOCATION_SERIALS;

    #[inline]
    fn allocation_serial(&mut self, serial: u32) {
        self.sink.allocation_serial(serial);
    }

    fn heap_dump(&mut self, snapshot: u32) -> bool {
        self.index.snapshot.map_or(true, |s| s == snapshot)
    }

    fn tick(&mut self, input_pos: u64) -> Result<()> {
        (self.tick)(input_pos, self.objects)
    }

    fn heap_info(&mut self, heap_id: u32, name_id: u64) -> Result<()> {
        self.sink.heap_info(self.index, heap_id, name_id)
    }

    fn class_dump(&mut self, c: &ClassDump, _offset: u64) -> Result<()> {
        let Some(obj) = self.claim(c.id) else { return Ok(()) };
        let Some(ci) = self.index.class_by_id.get(c.id) else { return Ok(()) };
        let info = &self.index.classes.classes[ci as usize];
        let jlc = self.index.java_lang_class.unwrap_or(NO_CLASS);
        self.classes.set(obj, jlc)?;
        self.sizes.set_listed(obj, info.class_object_size)?;
        if c.super_id != 0 {
            self.target(c.super_id);
        }
        // MAT always links a class to its loader; the bootstrap loader (0) and loaders
        // that are not objects of the dump become the pseudo object 0x0.
        match self.index.ids.index_of(c.loader_id) {
            Some(l) => self.targets.push(l),
            None => self.targets.extend(self.index.ids.index_of(0)),
        }
        for s in &c.statics {
            if s.ty == basic_type::OBJECT {
                self.target(s.value);
            }
        }
        if !info.special_statics.is_empty() {
            let flags = |k: usize| info.special_statics.iter().find(|e| e.0 == k as u32).map_or(STRONG, |e| e.1);
            let mut holders: Vec<(u64, u8)> = c
                .statics
                .iter()
                .enumerate()
                .filter(|(_, s)| s.ty == basic_type::OBJECT)
                .filter_map(|(k, s)| match (s.value, flags(k)) {
                    // MAT's exclusion of a null static names the pseudo object 0x0 (which
                    // the loader edge of a bootstrap class reaches): kept as it was, but it
                    // holds nothing.
                    (0, f) if f & MAT_EXCLUDED != 0 => Some((0, MAT_EXCLUDED)),
                    (0, _) => None,
                    h => Some(h),
                })
                .collect();
            if c.super_id != 0 {
                holders.push((c.super_id, STRONG));
            }
            // The loader edge (to the pseudo object 0x0 for the bootstrap loader).
            let loader = if self.index.ids.index_of(c.loader_id).is_some() { c.loader_id } else { 0 };
            self.note_special(obj, &holders, Some(loader));
        }
        let class_object = self.class_object_of(jlc).unwrap_or(NO_CLASS);
        self.flush(obj, class_object)?;
        self.count_object()
    }

    #[inline(always)]
    fn instance(&mut self, id: u64, class_id: u64, n: u32, fields: &[u8], _offset: u64) -> Result<()> {
        let Some(obj) = self.claim(id) else { return Ok(()) };
        let Some(ci) = self.index.class_by_id.get(class_id) else {
            *self.unknown_class.entry(class_id).or_default() += 1;
            return self.count_object();
        };
        let table = &self.index.classes;
        let info = &table.classes[ci as usize];
        // (Its size is its class's instance size: not stored.)
        self.classes.set(obj, ci)?;
        if let Some((evidence, _)) = &mut self.jvm {
            if let Some(d) = self.index.ids.gap_after(obj, id) {
                evidence.instance(ci, d);
            }
        }
        let ids = self.ids;
        let (a, b) = info.refs;
        // (`fields` holds the record's `n` bytes: testing against its length lets the
        // compiler drop the read's own bounds check.)
        for &off in &table.ref_offsets[a as usize..b as usize] {
            let off = off as usize;
            if off + ids <= fields.len() {
                let t = be_id(fields, off, ids);
                self.target(t);
            }
        }
        if self.sink.wants_instance(ci) {
            self.sink.instance(self.index, obj, ci, fields, &self.targets)?;
        }
        if !info.special_refs.is_empty() {
            let read = |k: u32| {
                let off = table.ref_offsets[(a + k) as usize] as usize;
                if off + ids <= n as usize {
                    be_id(fields, off, ids)
                } else {
                    0
                }
            };
            let flags = |k: u32| info.special_refs.iter().find(|e| e.0 == k).map_or(STRONG, |e| e.1);
            let mut holders: Vec<(u64, u8)> = (0..b - a).map(|k| (read(k), flags(k))).filter(|h| h.0 != 0).collect();
            holders.push((table.classes[ci as usize].id, STRONG));
            self.note_special(obj, &holders, None);
        }
        let class_object = self.class_object_of(ci).unwrap_or(NO_CLASS);
        self.flush(obj, class_object)?;
        self.count_object()
    }

    fn object_array(&mut self, id: u64, class_id: u64, len: u32, _offset: u64) -> Result<()> {
        self.array = None;
        let Some(obj) = self.claim(id) else { return Ok(()) };
        let Some(ci) = self.index.class_by_id.get(class_id) else {
            *self.unknown_class.entry(class_id).or_default() += 1;
            return self.count_object();
        };
        self.classes.set(obj, ci)?;
        let mat = self.index.layout.object_array_size(len as u64);
        let size = match &mut self.jvm {
            None => mat,
            Some((_, excess)) => {
                let jvm = self.index.jvm.object_array_size(len as u64);
                note_excess(excess, ci, mat, jvm);
                jvm
            }
        };
        self.sizes.set(obj, size)?;
        self.sink.object_array(obj, ci, len)?;
        self.array = Some(obj);
        self.count_object()
    }

    fn object_array_elements(&mut self, bytes: &[u8]) -> Result<()> {
        let Some(obj) = self.array else { return Ok(()) };
        let ids = self.ids;
        self.sink.object_array_elements(bytes, ids);
        let mut at = 0;
        while at + ids <= bytes.len() {
            let t = be_id(bytes, at, ids);
            self.target(t);
            at += ids;
        }
        let _ = obj;
        Ok(())
    }

    fn object_array_end(&mut self) -> Result<()> {
        match self.array.take() {
            Some(obj) => {
                let co = self.class_object_of(self.classes.get(obj)).unwrap_or(NO_CLASS);
                self.flush(obj, co)
            }
            None => Ok(()),
        }
    }

    #[inline(always)]
    fn primitive_array(&mut self, id: u64, ty: u8, len: u32, has_data: bool, _offset: u64) -> Result<()> {
        let claimed = self.claim(id);
        self.sink.primitive_array(claimed, has_data)?;
        let Some(obj) = claimed else { return Ok(()) };
        let Some(ci) = self.index.primitive_array_class[ty as usize] else {
            *self.unknown_class.entry(ty as u64).or_default() += 1;
            return self.count_object();
        };
        self.classes.set(obj, ci)?;
        let elem = basic_type::primitive_size(ty).unwrap_or(1);
        let mat = self.index.layout.primitive_array_size(elem, len as u64);
        let size = match &mut self.jvm {
            None => mat,
            Some((_, excess)) => {
                let jvm = self.index.jvm.primitive_array_size(ty, elem, len as u64);
                note_excess(excess, ci, mat, jvm);
                jvm
            }
        };
        self.sizes.set(obj, size)?;
        self.count_object()
    }
}

/// Counts one array of class `class` and MAT's bytes less the JVM's for it.
#[inline(always)]
fn note_excess(excess: &mut [(u64, i64)], class: u32, mat: u64, jvm: u64) {
    if let Some(e) = excess.get_mut(class as usize) {
        e.0 += 1;
        e.1 += mat as i64 - jvm as i64;
    }
}

/// Runs pass 2 over `c` (rewound to offset 0) and builds the heap graph, telling `sink`
/// what it wants to know.
// Never inlined: in wasm a long loop runs optimized only in a function of its own that V8
// has tiered up (scripts/build-wasm.sh, -ocimfs).
#[inline(never)]
pub fn pass2<S: Pass2Sink>(c: &mut Cursor, mut index: Index, tick: Tick, sink: &mut S) -> Result<Heap> {
    let n = index.ids.len();
    let jvm = index.sizes == Sizes::Jvm;
    if jvm {
        // Class objects are met first: their mirrors are sized now (after pass 1's map).
        // HotSpot's dumper lists the constant pool's resolved references and the class's
        // initialization lock as statics: they are not in the mirror.
        let pseudo = |name| matches!(index.strings.get(name), Some("<resolved_references>" | "<init_lock>"));
        let mirrors =
            jvm_sizes::class_object_sizes(&index.classes, &index.jvm, &index.ids, index.java_lang_class, pseudo);
        for (c, (size, by)) in index.classes.classes.iter_mut().zip(mirrors) {
            c.class_object_size = size;
            c.sizes.class_object_by = by;
        }
    }
    // The largest arrays first: they take the space pass 1's freed temporaries left (wasm
    // memory never shrinks; an array that does not fit there grows it).
    let refs = CsrBuilder::new(n)?;
    let classes = ClassColumn::with_weights(n, &index.class_weights)?;
    let arrays = (index.counts.object_arrays + index.counts.primitive_arrays) as usize;
    let sizes = SizeBuilder::new(n, index.size_alignment(), arrays, index.counts.class_dumps as usize)?;

    let roots = GcRoots::resolve(&index)?;
    let mut by_thread: HashMap<u32, Vec<u32>> = HashMap::new();
    for &(thread, local) in &roots.thread_locals {
        by_thread.entry(thread).or_default().push(local);
    }
    let mut locals: Vec<(u32, Vec<u32>)> = by_thread.into_iter().collect();
    locals.sort_unstable_by_key(|e| e.0);
    let has_locals = BitSet::of(n, locals.iter().map(|&(t, _)| t), "the thread marks")?;

    let class_object: Vec<u32> =
        index.classes.classes.iter().map(|c| index.ids.index_of(c.id).unwrap_or(NO_CLASS)).collect();
    let claimed = BitSet::new(n, "the object marks")?;
    sink.start(&index)?;
    let mut p = Pass2 {
        index: &index,
        ids: index.header.id_size as usize,
        classes,
        sizes,
        refs,
        targets: Vec::new(),
        array: None,
        locals,
        has_locals,
        special_edges: Vec::new(),
        class_object,
        missing_refs: 0,
        duplicates: 0,
        claimed,
        unknown_class: HashMap::new(),
        tick,
        objects: 0,
        sink,
        jvm: jvm.then(|| {
            let k = index.classes.classes.len();
            (InstanceEvidence::new(k), vec![(0, 0); k])
        }),
    };
    c.rewind()?;
    crate::records::Header::read(c)?;
    let end = crate::records::heap::walk(c, &index.header, &mut p, index.stop_at)?;
    if let crate::records::heap::WalkEnd::Broken { error, .. } = end {
        // Pass 1 read the same bytes without complaint; a difference means the input
        // changed between the passes.
        return Err(Error::format(
            error.offset.unwrap_or(0),
            format!("the input changed between the two passes: {}", error.message),
        ));
    }

    let Pass2 {
        mut classes,
        mut sizes,
        refs: mut builder,
        missing_refs,
        duplicates,
        unknown_class,
        locals,
        mut special_edges,
        class_object,
        sink,
        jvm: evidence,
        ..
    } = p;
    // MAT's pseudo object 0x0, the bootstrap loader, is an instance of java.lang.ClassLoader
    // (its size is that class's instance size).
    if let Some(zero) = index.ids.index_of(0) {
        if classes.get(zero) == NO_CLASS {
            if let Some(cl) = index.java_lang_classloader {
                classes.set(zero, cl)?;
            }
        }
    }
    classes.finish();
    let jvm_instances = evidence.map(|(e, excess)| (jvm_sizes::instance_sizes(&index.classes, &index.jvm, &e), excess));
    // While pass 2's temporaries are held (its peak): what the sink keeps is placed first.
    sink.walk_done(&index)?;
    if let Some((instances, excess)) = jvm_instances {
        for ((c, (size, by)), (arrays, bytes)) in index.classes.classes.iter_mut().zip(instances).zip(excess) {
            c.instance_size = size;
            c.sizes.instances_by = by;
            c.sizes.arrays = arrays;
            c.sizes.mat_array_excess = bytes;
        }
        // The JVM has no object for MAT's pseudo object 0x0 (the bootstrap loader).
        if let Some(zero) = index.ids.index_of(0) {
            sizes.set_listed(zero, 0)?;
        }
    }
    // Compacted after the sink's temporaries are freed (its result is allocated beside
    // them) and before the references' final copy.
    let instance_size: Vec<u64> = index.classes.classes.iter().map(|c| c.instance_size).collect();
    let sizes = sizes.finish(&instance_size, |v| classes.get(v))?;
    // Thread objects whose record never came still get their locals.
    let mut pending: Vec<_> = locals.into_iter().filter(|(t, _)| !builder.has(*t)).collect();
    pending.sort_unstable_by_key(|(t, _)| *t);
    for (t, mut l) in pending {
        l.sort_unstable();
        l.dedup();
        special_edges.extend(l.iter().map(|&x| (t, x, LOCAL)));
        builder.set(t, &l)?;
    }
    special_edges.sort_unstable();
    let has_special = BitSet::of(n, special_edges.iter().map(|e| e.0), "the special-reference marks")?;
    let refs = builder.finish()?;

    let mut warnings = Vec::new();
    if missing_refs > 0 {
        warnings
            .push(format!("{missing_refs} references point to objects that are not in the dump; they were ignored"));
    }
    if duplicates > 0 {
        warnings
            .push(format!("{duplicates} objects are defined more than once; the first definition of each was used"));
    }
    let mut unknown: Vec<_> = unknown_class.into_iter().collect();
    unknown.sort_unstable();
    for (class_id, count) in unknown.iter().take(10) {
        warnings.push(format!(
            "{count} objects have class 0x{class_id:x}, which the dump does not define; they were left out"
        ));
    }

    Ok(Heap { index, classes, sizes, refs, class_object, roots, special_edges, has_special, missing_refs, warnings })
}
