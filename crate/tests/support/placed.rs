//! A dump whose identifiers are addresses, as HotSpot's are: each object is placed at the
//! next free address after the one before, taking the footprint the test gives it, with
//! gaps where the test asks for one (a filler the dump leaves out). Class objects come
//! first (their mirrors), then the other objects in address order, each one rooted.
#![allow(dead_code)]

use std::collections::BTreeMap;

use super::hprof_builder::{ClassDef, Hprof, Segment, Value};

/// Builds the dump; `next` is the next free address.
pub struct Placed {
    pub h: Hprof,
    pub seg: Segment,
    names: BTreeMap<String, u64>,
    /// Class object id by name (HPROF names: `java/lang/Object`, `[B`).
    pub classes: BTreeMap<String, u64>,
    next: u64,
    serial: u32,
    roots: Vec<u64>,
    /// Bytes placed per class name (the footprints given), and objects.
    pub placed: BTreeMap<String, (u64, u64)>,
}

impl Placed {
    /// A dump with `id_size`-byte identifiers whose first object is at `base`.
    pub fn new(h: Hprof, base: u64) -> Placed {
        let seg = h.segment_builder();
        Placed {
            h,
            seg,
            names: BTreeMap::new(),
            classes: BTreeMap::new(),
            next: base,
            serial: 0,
            roots: Vec::new(),
            placed: BTreeMap::new(),
        }
    }

    pub fn name(&mut self, s: &str) -> u64 {
        if let Some(&id) = self.names.get(s) {
            return id;
        }
        let id = 0x100 + self.names.len() as u64;
        self.h.string(id, s);
        self.names.insert(s.into(), id);
        id
    }

    /// The next address, `bytes` taken from there on.
    fn take(&mut self, class: &str, bytes: u64) -> u64 {
        let at = self.next;
        self.next += bytes;
        let e = self.placed.entry(class.to_string()).or_default();
        e.0 += bytes;
        e.1 += 1;
        at
    }

    /// Leaves `bytes` unused (a filler the dump does not list).
    pub fn gap(&mut self, bytes: u64) {
        self.next += bytes;
    }

    /// A class (HPROF name, `/`-separated) extending `sup`, with instance fields and
    /// statics, whose mirror takes `mirror` bytes.
    pub fn class(
        &mut self,
        name: &str,
        sup: &str,
        fields: &[(&str, u8)],
        statics: &[(&str, Value)],
        mirror: u64,
    ) -> u64 {
        self.class_sized(name, sup, fields, statics, mirror, 0)
    }

    /// [`Placed::class`] with the record's "instance size" field (Android's runtime
    /// writes its own instance size there; HotSpot the field bytes).
    pub fn class_sized(
        &mut self,
        name: &str,
        sup: &str,
        fields: &[(&str, u8)],
        statics: &[(&str, Value)],
        mirror: u64,
        instance_size: u32,
    ) -> u64 {
        let id = self.take("java/lang/Class", mirror);
        let nid = self.name(name);
        self.serial += 1;
        self.h.load_class(self.serial, id, nid);
        let mut def = ClassDef::new(id, if sup.is_empty() { 0 } else { self.classes[sup] });
        def.instance_size = instance_size;
        for (f, ty) in fields {
            let fid = self.name(f);
            def = def.field(fid, *ty);
        }
        for (f, v) in statics {
            let fid = self.name(f);
            def = def.static_field(fid, *v);
        }
        self.seg.class_dump(&def);
        self.seg.root_sticky_class(id);
        self.classes.insert(name.into(), id);
        id
    }

    /// An instance of `class` with `values` (every field, the dump's order), taking
    /// `bytes`.
    pub fn instance(&mut self, class: &str, values: &[Value], bytes: u64) -> u64 {
        let id = self.take(class, bytes);
        self.seg.instance(id, self.classes[class], values);
        self.roots.push(id);
        id
    }

    /// A primitive array of `n` elements of basic type `ty`, of class `class` (`[B`…),
    /// taking `bytes`.
    pub fn primitive_array(&mut self, class: &str, ty: u8, n: u32, bytes: u64) -> u64 {
        let id = self.take(class, bytes);
        self.seg.primitive_array(id, ty, n);
        self.roots.push(id);
        id
    }

    /// An array of `n` null references of class `class`, taking `bytes`.
    pub fn object_array(&mut self, class: &str, n: u32, bytes: u64) -> u64 {
        let id = self.take(class, bytes);
        self.seg.object_array(id, self.classes[class], &vec![0; n as usize]);
        self.roots.push(id);
        id
    }

    /// The dump's bytes: every object a JNI global root.
    pub fn into_bytes(mut self) -> Vec<u8> {
        for (i, r) in self.roots.clone().into_iter().enumerate() {
            self.seg.root_jni_global(r, 0x7000_0000 + i as u64);
        }
        let seg = std::mem::replace(&mut self.seg, self.h.segment_builder());
        self.h.segment(&seg).heap_dump_end();
        self.h.into_bytes()
    }
}
