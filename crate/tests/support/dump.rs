//! A dump built in a test: classes by name (with their instance and static fields),
//! instances with field values by name, arrays, GC roots, analyzed as a session.
#![allow(dead_code)]

use std::collections::BTreeMap;

use heapscope::session::Session;

use super::hprof_builder::{ClassDef, Hprof, Segment, Value as V};

pub const OBJ: u8 = 2;
pub const BOOL: u8 = 4;
pub const CHAR: u8 = 5;
pub const BYTE: u8 = 8;
pub const INT: u8 = 10;
pub const LONG: u8 = 11;

pub fn hex(id: u64) -> String {
    format!("0x{id:x}")
}

/// A dump built here: names and classes by name, instances by address.
pub struct Dump {
    pub h: Hprof,
    pub seg: Segment,
    pub names: BTreeMap<String, u64>,
    pub classes: BTreeMap<String, u64>,
    /// Instance field names per class (own fields only), to write instances by name.
    fields: BTreeMap<String, (String, Vec<(String, u8)>)>,
    next: u64,
    serial: u32,
    roots: Vec<u64>,
    /// Whether every class is a GC root (a sticky class, as HotSpot writes the classes of
    /// the bootstrap loader): without, class objects no instance reaches are unreachable.
    pub sticky_classes: bool,
}

impl Dump {
    pub fn new(h: Hprof) -> Dump {
        let seg = h.segment_builder();
        let mut d = Dump {
            h,
            seg,
            names: BTreeMap::new(),
            classes: BTreeMap::new(),
            fields: BTreeMap::new(),
            next: 0x10_0000,
            serial: 0,
            roots: Vec::new(),
            sticky_classes: false,
        };
        d.class("java.lang.Object", "", &[]);
        d
    }
    pub fn name(&mut self, s: &str) -> u64 {
        if let Some(&id) = self.names.get(s) {
            return id;
        }
        let id = 0x1000 + self.names.len() as u64;
        self.h.string(id, s);
        self.names.insert(s.into(), id);
        id
    }
    pub fn id(&mut self) -> u64 {
        self.next += 0x40;
        self.next
    }
    /// A class `name` (dots) extending `sup`, with its own instance fields.
    pub fn class(&mut self, name: &str, sup: &str, fields: &[(&str, u8)]) -> u64 {
        self.class_with_statics(name, sup, fields, &[])
    }
    /// [`Dump::class`] with static fields and their values.
    pub fn class_with_statics(&mut self, name: &str, sup: &str, fields: &[(&str, u8)], statics: &[(&str, V)]) -> u64 {
        let id = self.id();
        let jvm = if name.ends_with("[]") {
            format!("[L{};", name.trim_end_matches("[]").replace('.', "/"))
        } else {
            name.replace('.', "/")
        };
        let nid = self.name(&jvm);
        self.serial += 1;
        self.h.load_class(self.serial, id, nid);
        let sid = if sup.is_empty() { 0 } else { self.classes[sup] };
        let mut def = ClassDef::new(id, sid);
        for (f, ty) in fields {
            let fid = self.name(f);
            def = def.field(fid, *ty);
        }
        for (f, v) in statics {
            let fid = self.name(f);
            def = def.static_field(fid, *v);
        }
        self.seg.class_dump(&def);
        self.classes.insert(name.into(), id);
        self.fields.insert(name.into(), (sup.into(), fields.iter().map(|(f, t)| (f.to_string(), *t)).collect()));
        id
    }
    /// The class of primitive arrays of element type `ty` (`[B` for bytes…), which a
    /// HotSpot dump defines like any class: without it, such arrays have no class.
    pub fn primitive_array_class(&mut self, ty: u8) -> u64 {
        let code = match ty {
            BOOL => "Z",
            CHAR => "C",
            BYTE => "B",
            INT => "I",
            LONG => "J",
            _ => panic!("element type {ty}"),
        };
        let id = self.id();
        let nid = self.name(&format!("[{code}"));
        self.serial += 1;
        self.h.load_class(self.serial, id, nid);
        self.seg.class_dump(&ClassDef::new(id, self.classes["java.lang.Object"]));
        self.classes.insert(format!("[{code}"), id);
        id
    }
    /// An instance of `class` with field values by name (missing ones zero/null).
    pub fn obj(&mut self, class: &str, values: &[(&str, V)]) -> u64 {
        let id = self.id();
        let mut out = Vec::new();
        let mut c = class.to_string();
        while !c.is_empty() {
            let (sup, fields) = self.fields[&c].clone();
            for (f, ty) in fields {
                let v = values.iter().find(|(n, _)| *n == f).map(|(_, v)| *v).unwrap_or(match ty {
                    2 => V::Obj(0),
                    4 => V::Bool(false),
                    5 => V::Char(0),
                    8 => V::Byte(0),
                    9 => V::Short(0),
                    11 => V::Long(0),
                    _ => V::Int(0),
                });
                assert_eq!(v.ty(), ty, "{class}.{f}");
                out.push(v);
            }
            c = sup;
        }
        self.seg.instance(id, self.classes[class], &out);
        id
    }
    pub fn objects(&mut self, class: &str, elements: &[u64]) -> u64 {
        if !self.classes.contains_key(class) {
            self.class(class, "java.lang.Object", &[]);
        }
        let id = self.id();
        self.seg.object_array(id, self.classes[class], elements);
        id
    }
    pub fn prim(&mut self, ty: u8, n: u32, data: &[u8]) -> u64 {
        let id = self.id();
        self.seg.primitive_array_header(id, ty, n).raw(data);
        id
    }
    pub fn root(&mut self, id: u64) {
        self.roots.push(id);
    }
    pub fn analyze(self) -> Session {
        super::session_of(self.into_bytes())
    }
    /// The dump's bytes: its roots (JNI globals) written, the segment closed.
    pub fn into_bytes(mut self) -> Vec<u8> {
        for (i, r) in self.roots.clone().into_iter().enumerate() {
            self.seg.root_jni_global(r, 0x7000 + i as u64);
        }
        if self.sticky_classes {
            for id in self.classes.values().copied().collect::<Vec<_>>() {
                self.seg.root_sticky_class(id);
            }
        }
        let seg = std::mem::replace(&mut self.seg, self.h.segment_builder());
        self.h.segment(&seg).heap_dump_end();
        self.h.into_bytes()
    }
}

/// A dump with one leak, built for the report's sections: `Holder` holds an array of
/// `NODES` `Node`s, each holding a 2,000-byte `byte[]`; two GC roots (JNI globals) reach
/// `Holder`, one through `Anchor.h` directly, one through `Other.m` → `Mid.h`; `fillers`
/// more classes have one rooted instance each. `edges` are the references between the
/// instances and arrays as built (from, to, how), `roots` the rooted ones.
pub struct LeakDump {
    pub dump: Dump,
    pub anchor: u64,
    pub other: u64,
    pub mid: u64,
    pub holder: u64,
    pub array: u64,
    pub nodes: Vec<u64>,
    pub bytes: Vec<u64>,
    pub fillers: Vec<u64>,
    pub edges: Vec<(u64, u64, String)>,
    pub roots: Vec<u64>,
}

pub const NODES: usize = 30;

pub fn leak_dump(fillers: usize) -> LeakDump {
    let mut d = Dump::new(Hprof::new(8));
    d.sticky_classes = true;
    // The class of class objects: without it they have no class and are left out.
    d.class("java.lang.Class", "java.lang.Object", &[]);
    d.primitive_array_class(BYTE);
    d.class("leak.Anchor", "java.lang.Object", &[("h", OBJ)]);
    d.class("leak.Other", "java.lang.Object", &[("m", OBJ)]);
    d.class("leak.Mid", "java.lang.Object", &[("h", OBJ)]);
    d.class("leak.Holder", "java.lang.Object", &[("items", OBJ)]);
    d.class("leak.Node", "java.lang.Object", &[("data", OBJ)]);
    let mut edges = Vec::new();
    let mut nodes = Vec::new();
    let mut bytes = Vec::new();
    for i in 0..NODES {
        let b = d.prim(BYTE, 2_000, &[i as u8; 2_000]);
        let n = d.obj("leak.Node", &[("data", V::Obj(b))]);
        edges.push((n, b, "data".to_string()));
        nodes.push(n);
        bytes.push(b);
    }
    let array = d.objects("leak.Node[]", &nodes);
    for (i, &n) in nodes.iter().enumerate() {
        edges.push((array, n, format!("[{i}]")));
    }
    let holder = d.obj("leak.Holder", &[("items", V::Obj(array))]);
    edges.push((holder, array, "items".to_string()));
    let anchor = d.obj("leak.Anchor", &[("h", V::Obj(holder))]);
    let mid = d.obj("leak.Mid", &[("h", V::Obj(holder))]);
    let other = d.obj("leak.Other", &[("m", V::Obj(mid))]);
    edges.push((anchor, holder, "h".to_string()));
    edges.push((mid, holder, "h".to_string()));
    edges.push((other, mid, "m".to_string()));
    let mut roots = vec![anchor, other];
    let mut filler_ids = Vec::new();
    for i in 0..fillers {
        let name = format!("fill.C{i:04}");
        d.class(&name, "java.lang.Object", &[]);
        let o = d.obj(&name, &[]);
        filler_ids.push(o);
        roots.push(o);
    }
    for &r in &roots {
        d.root(r);
    }
    LeakDump { dump: d, anchor, other, mid, holder, array, nodes, bytes, fillers: filler_ids, edges, roots }
}
