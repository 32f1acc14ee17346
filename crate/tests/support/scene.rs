//! A heap described by class and field names, written as an ART dump with
//! [`crate::support::hprof_builder`]: the leak tests build the Android objects of each case
//! (an activity, its views, LeakCanary's watch references) by name, and know by
//! construction what every object holds. Include it with `mod support;` and
//! `#[path = "support/scene.rs"] mod scene;`.
#![allow(dead_code)]

use crate::support::hprof_builder::{ClassDef, Hprof, Segment, Value};
use heapscope::records::basic_type;

#[allow(unused_imports)]
pub use heapscope::records::basic_type::{BOOLEAN, INT, LONG, OBJECT};

/// A field value by name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum V {
    /// A reference to an object of the scene (0: null).
    Ref(u64),
    Int(i32),
    Long(i64),
    Bool(bool),
}

struct Class {
    id: u64,
    name: String,
    super_id: u64,
    fields: Vec<(String, u8)>,
    statics: Vec<(String, V)>,
}

enum Obj {
    Instance { id: u64, class: u64, values: Vec<(String, V)> },
    Array { id: u64, class: u64, elements: Vec<u64> },
    Chars { id: u64, text: Vec<u16> },
}

enum Root {
    JniGlobal(u64),
    Thread { thread: u64, serial: u32, locals: Vec<u64> },
    JavaFrameUnknownThread(u64),
}

/// A heap under construction.
pub struct Scene {
    next: u64,
    classes: Vec<Class>,
    objects: Vec<Obj>,
    roots: Vec<Root>,
    sticky: bool,
}

impl Default for Scene {
    fn default() -> Self {
        Self::new()
    }
}

impl Scene {
    /// A scene with `java.lang.Object`, `java.lang.Class`, `java.lang.String` (Android
    /// style: a `char[]` `value` and a `count`), `java.lang.Enum`, `java.lang.Thread`, the
    /// `java.lang.ref` classes and `java.lang.Object[]`. Every class is a System Class root,
    /// as in ART dumps.
    pub fn new() -> Scene {
        let mut s = Scene { next: 0x1000, classes: Vec::new(), objects: Vec::new(), roots: Vec::new(), sticky: true };
        s.class("java.lang.Object", None, &[]);
        s.class("java.lang.Class", Some("java.lang.Object"), &[]);
        s.class("java.lang.String", Some("java.lang.Object"), &[("value", OBJECT), ("count", INT), ("hashCode", INT)]);
        s.class("char[]", Some("java.lang.Object"), &[]);
        s.class("java.lang.Object[]", Some("java.lang.Object"), &[]);
        s.class("java.lang.Enum", Some("java.lang.Object"), &[("name", OBJECT), ("ordinal", INT)]);
        s.class("java.lang.Thread", Some("java.lang.Object"), &[("name", OBJECT)]);
        s.class("java.lang.ref.Reference", Some("java.lang.Object"), &[("referent", OBJECT), ("queue", OBJECT)]);
        s.class("java.lang.ref.WeakReference", Some("java.lang.ref.Reference"), &[]);
        s.class("java.lang.ref.SoftReference", Some("java.lang.ref.Reference"), &[]);
        s
    }

    /// Not every class a System Class root (a HotSpot-like heap: classes reached through
    /// their loader's fields only).
    pub fn without_sticky_classes(mut self) -> Scene {
        self.sticky = false;
        self
    }

    fn id(&mut self) -> u64 {
        self.next += 0x10;
        self.next
    }

    /// Declares a class (its super class must be declared first) with its own instance
    /// fields; returns its class object id.
    pub fn class(&mut self, name: &str, super_name: Option<&str>, fields: &[(&str, u8)]) -> u64 {
        let super_id = super_name.map_or(0, |s| self.class_id(s));
        let id = self.id();
        self.classes.push(Class {
            id,
            name: name.into(),
            super_id,
            fields: fields.iter().map(|&(n, t)| (n.into(), t)).collect(),
            statics: Vec::new(),
        });
        id
    }

    /// A static field of a declared class.
    pub fn static_field(&mut self, class: &str, name: &str, value: V) {
        let c =
            self.classes.iter_mut().find(|c| c.name == class).unwrap_or_else(|| panic!("class {class} not declared"));
        c.statics.push((name.into(), value));
    }

    pub fn class_id(&self, name: &str) -> u64 {
        self.classes.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("class {name} not declared")).id
    }

    /// An instance; fields not given are null / zero. A value named `C#f` sets the field `f`
    /// declared by class `C`; a plain name the lowest declared field of that name.
    pub fn instance(&mut self, class: &str, values: &[(&str, V)]) -> u64 {
        let class = self.class_id(class);
        let id = self.id();
        self.objects.push(Obj::Instance { id, class, values: values.iter().map(|&(n, v)| (n.into(), v)).collect() });
        id
    }

    /// Sets a field of an instance already made (for cycles).
    pub fn set(&mut self, obj: u64, field: &str, value: V) {
        for o in &mut self.objects {
            if let Obj::Instance { id, values, .. } = o {
                if *id == obj {
                    values.retain(|(n, _)| n != field);
                    values.push((field.into(), value));
                    return;
                }
            }
        }
        panic!("no instance 0x{obj:x}");
    }

    /// An object array of class `class` (e.g. `java.lang.Object[]`).
    pub fn array(&mut self, class: &str, elements: &[u64]) -> u64 {
        let class = self.class_id(class);
        let id = self.id();
        self.objects.push(Obj::Array { id, class, elements: elements.to_vec() });
        id
    }

    /// A `java.lang.String` with its `char[]`.
    pub fn string(&mut self, text: &str) -> u64 {
        let units: Vec<u16> = text.encode_utf16().collect();
        let chars = self.id();
        let n = units.len() as i32;
        self.objects.push(Obj::Chars { id: chars, text: units });
        self.instance("java.lang.String", &[("value", V::Ref(chars)), ("count", V::Int(n))])
    }

    /// An enum constant of `class` named `name`.
    pub fn enum_constant(&mut self, class: &str, name: &str) -> u64 {
        let s = self.string(name);
        self.instance(class, &[("java.lang.Enum#name", V::Ref(s))])
    }

    pub fn root_jni_global(&mut self, obj: u64) {
        self.roots.push(Root::JniGlobal(obj));
    }

    /// A running thread (a thread object root) named `name`, its stack holding `locals`.
    pub fn thread(&mut self, name: &str, locals: &[u64]) -> u64 {
        let n = self.string(name);
        let t = self.instance("java.lang.Thread", &[("name", V::Ref(n))]);
        let serial = 1 + self.roots.iter().filter(|r| matches!(r, Root::Thread { .. })).count() as u32;
        self.roots.push(Root::Thread { thread: t, serial, locals: locals.to_vec() });
        t
    }

    /// A stack-frame root of a thread the dump does not name.
    pub fn root_java_frame(&mut self, obj: u64) {
        self.roots.push(Root::JavaFrameUnknownThread(obj));
    }

    /// The class chain of class id `class`, lowest first.
    fn chain(&self, class: u64) -> Vec<&Class> {
        let mut out = Vec::new();
        let mut c = Some(class);
        while let Some(id) = c.filter(|&id| id != 0) {
            let k = self.classes.iter().find(|k| k.id == id).expect("declared");
            out.push(k);
            c = Some(k.super_id);
        }
        out
    }

    fn value(v: V) -> Value {
        match v {
            V::Ref(r) => Value::Obj(r),
            V::Int(i) => Value::Int(i),
            V::Long(l) => Value::Long(l),
            V::Bool(b) => Value::Bool(b),
        }
    }

    fn zero(ty: u8) -> Value {
        match ty {
            basic_type::OBJECT => Value::Obj(0),
            basic_type::BOOLEAN => Value::Bool(false),
            basic_type::INT => Value::Int(0),
            basic_type::LONG => Value::Long(0),
            t => panic!("type {t} not supported by scenes"),
        }
    }

    /// The dump: an ART-style `JAVA PROFILE 1.0.3` with 4-byte ids.
    pub fn bytes(&self) -> Vec<u8> {
        let mut h = Hprof::android();
        let mut names: Vec<String> = Vec::new();
        let name_id = |names: &mut Vec<String>, s: &str| -> u64 {
            match names.iter().position(|n| n == s) {
                Some(k) => 0x10_0000 + k as u64,
                None => {
                    names.push(s.to_string());
                    0x10_0000 + names.len() as u64 - 1
                }
            }
        };
        let mut defs = Vec::new();
        for c in &self.classes {
            let mut d = ClassDef::new(c.id, c.super_id);
            for (n, v) in &c.statics {
                d = d.static_field(name_id(&mut names, n), Self::value(*v));
            }
            for (n, t) in &c.fields {
                d = d.field(name_id(&mut names, n), *t);
            }
            defs.push((name_id(&mut names, &c.name), d));
        }
        for (k, n) in names.iter().enumerate() {
            h.string(0x10_0000 + k as u64, n);
        }
        for (k, (name, d)) in defs.iter().enumerate() {
            h.load_class(k as u32 + 1, d.id, *name);
        }
        for r in &self.roots {
            if let Root::Thread { serial, .. } = r {
                h.stack_trace(*serial, *serial);
            }
        }
        let mut seg: Segment = h.segment_builder();
        for (_, d) in &defs {
            seg.class_dump(d);
            if self.sticky {
                seg.root_sticky_class(d.id);
            }
        }
        if !self.sticky {
            // Only java.lang.Object and Class are system classes then.
            for c in self.classes.iter().filter(|c| c.name == "java.lang.Object" || c.name == "java.lang.Class") {
                seg.root_sticky_class(c.id);
            }
        }
        for r in &self.roots {
            match r {
                Root::JniGlobal(o) => {
                    seg.root_jni_global(*o, 0);
                }
                Root::Thread { thread, serial, locals } => {
                    seg.root_thread_object(*thread, *serial, *serial);
                    for &l in locals {
                        seg.root_java_frame(l, *serial, 0);
                    }
                }
                Root::JavaFrameUnknownThread(o) => {
                    seg.root_java_frame(*o, 999, 0);
                }
            }
        }
        for o in &self.objects {
            match o {
                Obj::Instance { id, class, values } => {
                    let mut out = Vec::new();
                    let mut used = vec![false; values.len()];
                    for k in self.chain(*class) {
                        for (f, t) in &k.fields {
                            let qualified = format!("{}#{}", k.name, f);
                            let found = values
                                .iter()
                                .enumerate()
                                .position(|(i, (n, _))| !used[i] && (*n == qualified || n == f));
                            out.push(match found {
                                Some(i) => {
                                    used[i] = true;
                                    let v = Self::value(values[i].1);
                                    assert_eq!(v.ty(), *t, "field {qualified}: wrong type");
                                    v
                                }
                                None => Self::zero(*t),
                            });
                        }
                    }
                    assert!(
                        used.iter().all(|&u| u),
                        "0x{id:x}: a value names no field of its class: {:?}",
                        values.iter().zip(&used).filter(|(_, u)| !**u).map(|(v, _)| &v.0).collect::<Vec<_>>()
                    );
                    seg.instance(*id, *class, &out);
                }
                Obj::Array { id, class, elements } => {
                    seg.object_array(*id, *class, elements);
                }
                Obj::Chars { id, text } => {
                    seg.primitive_array_header(*id, basic_type::CHAR, text.len() as u32);
                    let bytes: Vec<u8> = text.iter().flat_map(|u| u.to_be_bytes()).collect();
                    seg.raw(&bytes);
                }
            }
        }
        h.segment(&seg);
        h.heap_dump_end();
        h.into_bytes()
    }
}
