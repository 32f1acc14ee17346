//! The JVM's own object sizes, read from the dump.
//!
//! HPROF records neither the object header's size nor the fields the JVM injects, and
//! MAT's model (a header of the identifier size plus the reference size, the fields the
//! dump lists) is wrong on compact object headers by 10–25%. But on HotSpot an object's
//! identifier is its address, and a full GC before the dump compacts the heap: the
//! distance from one object to the next is the first one's footprint, unless a gap (a
//! filler, which the dump leaves out) follows it. A gap only ever makes a distance
//! larger. So:
//!
//! - **arrays** ([`JvmLayout::infer`], from pass 1's [`evidence::ArrayEvidence`]): over
//!   many lengths the smallest distance less the elements' bytes is where the elements
//!   start, per element type; from those bases follow the header (8, 12 or 16 bytes);
//!   references are 4 or 8 bytes (compressed oops, detected as MAT does), the alignment
//!   is the addresses' common divisor (as MAT's);
//! - **instances** ([`instance_sizes`], from pass 2's [`evidence::InstanceEvidence`]): a
//!   class's size is the smallest distance after one of its instances when at least two
//!   instances share it, and never less than its fields need. A class measured by one
//!   instance only (which may sit before a gap) keeps that distance when it is at most
//!   what its fields could take after its super class, else its size by HotSpot's
//!   layout rules ([`fields`]), whose accuracy on the classes that were measured decides
//!   how far the rules are trusted;
//! - **class objects** ([`class_object_sizes`], after pass 1): the JVM counts a class
//!   object as its mirror, a `java.lang.Class` instance with the class's static fields
//!   after its own (and injected) fields. `java.lang.Class`'s size is where the mirrors
//!   of classes without statics agree; each mirror's statics follow by the rules, and
//!   its distance confirms or corrects them.
//!
//! Where the addresses cannot decide (identifiers that are not addresses; Android's ART,
//! whose allocator rounds objects up to size brackets and whose dumps place array ids
//! inside strings and classes), the layout's rules size everything, and an ART dump's
//! own class records give each class's instance size as the runtime computed it.
//! Every class with objects sized by rule is counted and named in the report.
//!
//! Cost: pass 1 compares each array with the next record (a few instructions, no
//! lookup); pass 2 looks up one word of the identifier map per instance (the map is in
//! cache from the instance's own lookup) and keeps two numbers per class. Nothing per
//! object is stored.

pub mod evidence;
pub mod fields;

use super::classes::{align_up, ClassTable, Layout};
use super::ids::IdMap;
pub use crate::model::sizes::Sizes;
use crate::records::basic_type::{self, OBJECT};
use evidence::{ArrayEvidence, InstanceEvidence, OBJECTS_4, OBJECTS_8};
use fields::Shape;

/// The virtual machine whose layout the dump follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vm {
    HotSpot,
    /// Android's runtime.
    Art,
}

/// The JVM's object layout as the dump shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JvmLayout {
    pub vm: Vm,
    /// Bytes of an object header: 8, 12 or 16.
    pub header: u32,
    /// Bytes of a reference inside an object.
    pub ref_size: u32,
    pub alignment: u32,
    /// Where the elements of an array start, by HPROF basic type (`OBJECT`: arrays of
    /// references).
    pub array_base: [u32; 12],
    /// Which of `array_base` the addresses showed (the others follow from them).
    pub measured: [bool; 12],
    /// Whether the layout was read from the addresses (else assumed by rule).
    pub from_addresses: bool,
    /// Why rules size everything, when they do.
    pub rules_because: Option<&'static str>,
    /// Bytes of a native pointer inside an object (injected fields).
    pub pointer: u32,
}

const SMALL: [u8; 6] =
    [basic_type::BYTE, basic_type::BOOLEAN, basic_type::CHAR, basic_type::SHORT, basic_type::INT, basic_type::FLOAT];
const BIG: [u8; 2] = [basic_type::LONG, basic_type::DOUBLE];

impl JvmLayout {
    /// The layout from pass 1's array evidence, MAT's layout (references, alignment) and
    /// whether the dump is an Android one.
    pub fn infer(ev: &ArrayEvidence, mat: &Layout, vm: Vm) -> JvmLayout {
        let r = mat.ref_size;
        let pointer = if mat.id_size == 4 { 4 } else { 8 };
        if vm == Vm::Art {
            // ART: 4-byte class pointer and lock word; 4-byte references; arrays: the
            // length after the header, 8-byte elements at 16 (`mirror::Array`).
            return JvmLayout::by_rule(Vm::Art, 8, 4, 8, pointer, "Android's runtime allocates objects in size brackets, so the distances between them are not their sizes");
        }
        let best = |kinds: &[u8]| {
            kinds.iter().filter_map(|&k| ev.base(k as usize)).max_by_key(|&(_, seen)| seen).map(|(b, _)| b)
        };
        let small = best(&SMALL);
        let big = best(&BIG);
        let objects = ev.base(if r == 4 { OBJECTS_4 } else { OBJECTS_8 }).map(|(b, _)| b);
        if small.is_none() && big.is_none() && objects.is_none() {
            let header = (mat.id_size + r).max(8);
            return JvmLayout::by_rule(
                Vm::HotSpot,
                header,
                r,
                mat.object_alignment,
                pointer,
                "the distances between the dump's objects show no array layout: its identifiers are not addresses",
            );
        }
        // The header: the length field (4 bytes) ends where small elements start, up to
        // word padding (JDK 21 and earlier pad a 16-byte header's arrays to 24).
        let from_small = |b: u32| match b {
            12 => Some(8),
            16 => Some(12),
            20 | 24 => Some(16),
            _ => None,
        };
        let header = small
            .and_then(from_small)
            .or_else(|| objects.filter(|_| r == 4).and_then(from_small))
            .or_else(|| big.filter(|&b| b == 24).map(|_| 16))
            .unwrap_or(if mat.id_size == 4 { 8 } else { 12 });
        let small = small.unwrap_or(if header == 8 { 12 } else { align_up(header as u64 + 4, 8) as u32 });
        let big_rule = align_up(small as u64, 8) as u32;
        let mut array_base = [0u32; 12];
        let mut measured = [false; 12];
        for t in SMALL {
            let m = ev.base(t as usize).map(|(b, _)| b);
            array_base[t as usize] = m.unwrap_or(small);
            measured[t as usize] = m.is_some();
        }
        for t in BIG {
            let m = ev.base(t as usize).map(|(b, _)| b);
            array_base[t as usize] = m.or(big).unwrap_or(big_rule);
            measured[t as usize] = m.is_some();
        }
        array_base[OBJECT as usize] = objects.unwrap_or(align_up(small as u64, r as u64) as u32);
        measured[OBJECT as usize] = objects.is_some();
        JvmLayout {
            vm: Vm::HotSpot,
            header,
            ref_size: r,
            alignment: mat.object_alignment,
            array_base,
            measured,
            from_addresses: true,
            rules_because: None,
            pointer,
        }
    }

    /// A layout assumed by rule: `header`, references of `r` bytes, arrays' length field
    /// after the header and elements aligned to their size (8-byte words for headers
    /// above 8 bytes, as HotSpot before JDK 22).
    fn by_rule(vm: Vm, header: u32, r: u32, alignment: u32, pointer: u32, why: &'static str) -> JvmLayout {
        let small = if header == 8 { 12 } else { align_up(header as u64 + 4, 8) as u32 };
        let mut array_base = [small; 12];
        for t in BIG {
            array_base[t as usize] = align_up(small as u64, 8) as u32;
        }
        array_base[OBJECT as usize] = align_up(small as u64, r as u64) as u32;
        JvmLayout {
            vm,
            header,
            ref_size: r,
            alignment: alignment.max(8),
            array_base,
            measured: [false; 12],
            from_addresses: false,
            rules_because: Some(why),
            pointer,
        }
    }

    /// Size of an array of `len` references.
    #[inline]
    pub fn object_array_size(&self, len: u64) -> u64 {
        align_up(self.array_base[OBJECT as usize] as u64 + len * self.ref_size as u64, self.alignment as u64)
    }

    /// Size of an array of `len` elements of primitive type `ty` (`elem` bytes each).
    #[inline]
    pub fn primitive_array_size(&self, ty: u8, elem: u32, len: u64) -> u64 {
        let base = self.array_base.get(ty as usize).copied().unwrap_or(16) as u64;
        align_up(base + len * elem as u64, self.alignment as u64)
    }

    /// The layout in words: "compact object headers (8 bytes), 4-byte references,
    /// 8-byte alignment".
    pub fn words(&self, id_size: u32) -> String {
        let header = match (self.vm, self.header, id_size) {
            (Vm::Art, ..) => "Android runtime objects: 8-byte headers".to_string(),
            (_, 8, 8) => "compact object headers (8 bytes)".to_string(),
            (_, 8, _) => "8-byte object headers (32-bit JVM)".to_string(),
            (_, 12, _) => "12-byte object headers (compressed class pointers)".to_string(),
            (_, 16, _) => "16-byte object headers (no compressed class pointers)".to_string(),
            (_, h, _) => format!("{h}-byte object headers"),
        };
        format!("{header}, {}-byte references, {}-byte alignment", self.ref_size, self.alignment)
    }
}

/// How a class's objects were sized in the JVM's reading.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SizedBy {
    /// By the layout's rules (the addresses could not decide, or there were none).
    #[default]
    Rule,
    /// By the distances between objects.
    Addresses,
    /// By the size the runtime wrote in the class's record (Android).
    ClassRecord,
}

/// What each class's sizes are in both readings, kept beside the class table.
#[derive(Debug, Clone, Default)]
pub struct ClassSizes {
    /// How its instances were sized (JVM's reading).
    pub instances_by: SizedBy,
    /// How its class object was sized (JVM's reading).
    pub class_object_by: SizedBy,
    /// Eclipse MAT's instance size and class object size.
    pub mat_instance: u64,
    pub mat_class_object: u64,
    /// Over its arrays: how many, and MAT's bytes less the JVM's.
    pub arrays: u64,
    pub mat_array_excess: i64,
}

/// The JVM's size of each class's instances, with how it was found, from pass 2's
/// evidence (see the module docs).
pub fn instance_sizes(table: &ClassTable, layout: &JvmLayout, ev: &InstanceEvidence) -> Vec<(u64, SizedBy)> {
    if layout.vm == Vm::Art {
        return art_instance_sizes(table, layout);
    }
    hotspot_instance_sizes(table, layout, ev)
}

/// HotSpot, per class supers first (see the module docs).
fn hotspot_instance_sizes(table: &ClassTable, layout: &JvmLayout, ev: &InstanceEvidence) -> Vec<(u64, SizedBy)> {
    let n = table.classes.len();
    let a = layout.alignment;
    let r = layout.ref_size;
    let mut out = vec![(0u64, SizedBy::Rule); n];
    // Per class: its layout for subclasses, and its fields' bytes (declared, inherited).
    let mut shapes: Vec<Option<Shape>> = vec![None; n];
    let mut raw = vec![0u64; n];
    let root = Shape::header(layout.header);
    for k in table.supers_first() {
        let k = k as usize;
        let c = &table.classes[k];
        let parent = c.super_index.map(|s| s as usize).filter(|&s| s < n);
        let base = parent.and_then(|p| shapes[p].as_ref()).unwrap_or(&root);
        let (mut prims, refs) = fields::split_fields(c.fields.iter().map(|f| f.ty));
        raw[k] = parent.map_or(layout.header as u64, |p| raw[p])
            + prims.iter().map(|&b| b as u64).sum::<u64>()
            + refs as u64 * r as u64;
        let (inj_prims, inj_refs) = fields::injected(&c.name, layout.pointer);
        prims.extend(inj_prims);
        let shape = base.extend(&mut prims.clone(), refs + inj_refs, r);
        let rule = shape.size(a) as u64;
        let parent_size = parent.map_or(layout.header as u64, |p| out[p].0);
        let parent_measured = parent.is_some_and(|p| out[p].1 == SizedBy::Addresses);
        let lower = align_up(raw[k], a as u64).max(if parent_measured { parent_size } else { 0 });
        let upper = Shape::solid(parent_size as u32).extend(&mut prims, refs + inj_refs, r).size(a) as u64;
        let (d, count) = ev.nearest.get(k).copied().unwrap_or((u32::MAX, 0));
        let d = d as u64;
        let size = if !layout.from_addresses || count == 0 || d < lower {
            (rule, SizedBy::Rule)
        } else if count >= 2 || d <= rule.max(upper) {
            // Two instances agree; or a lone one within what its fields could take after
            // its super class (the rules miss what HPROF does not show: injected fields,
            // `@Contended` padding; a gap past that bound is a filler left out).
            (d, SizedBy::Addresses)
        } else {
            (rule, SizedBy::Rule)
        };
        out[k] = size;
        // Subclasses fill this class's holes only where the rules are confirmed.
        shapes[k] = Some(if size.0 == rule { shape } else { Shape::solid(size.0 as u32) });
    }
    out
}

/// Android: the instance size the runtime wrote in each class record, aligned; classes
/// without one by the rules.
fn art_instance_sizes(table: &ClassTable, layout: &JvmLayout) -> Vec<(u64, SizedBy)> {
    let a = layout.alignment as u64;
    let n = table.classes.len();
    let mut out = vec![(0u64, SizedBy::Rule); n];
    let mut ends = vec![layout.header; n];
    // ART lists an object's header as fields of java.lang.Object (shadow$_klass_,
    // shadow$_monitor_): fields of the dump, then, are the object's whole content.
    for k in table.supers_first() {
        let k = k as usize;
        let c = &table.classes[k];
        let parent_end = c.super_index.map_or(0, |s| ends.get(s as usize).copied().unwrap_or(0));
        let (prims, refs) = fields::split_fields(c.fields.iter().map(|f| f.ty));
        let end = parent_end + prims.iter().sum::<u32>() + refs as u32 * layout.ref_size;
        ends[k] = end.max(if c.super_index.is_none() { layout.header } else { 0 });
        out[k] = if c.hprof_instance_size > 0 {
            (align_up(c.hprof_instance_size as u64, a), SizedBy::ClassRecord)
        } else {
            (align_up(ends[k] as u64, a), SizedBy::Rule)
        };
    }
    out
}

/// The JVM's size of each class object (the class's mirror), with how it was found.
///
/// `gap_after(class)` gives the distance from class `class`'s object to the next object.
pub fn class_object_sizes(
    table: &ClassTable,
    layout: &JvmLayout,
    ids: &IdMap,
    java_lang_class: Option<u32>,
    pseudo_static: impl Fn(u64) -> bool,
) -> Vec<(u64, SizedBy)> {
    let a = layout.alignment as u64;
    let r = layout.ref_size;
    let gap = |c: &super::classes::ClassInfo| ids.index_of(c.id).and_then(|i| ids.gap_after(i, c.id));
    // java.lang.Class's own size: by rule, or where the mirrors without statics agree.
    let jlc = java_lang_class.map(|k| &table.classes[k as usize]);
    let rule_class = {
        let (mut prims, refs) = fields::split_fields(jlc.map_or(Vec::new(), |c| c.fields.clone()).iter().map(|f| f.ty));
        let (inj_prims, inj_refs) = fields::injected("java.lang.Class", layout.pointer);
        prims.extend(inj_prims);
        Shape::header(layout.header).extend(&mut prims, refs + inj_refs, r).size(layout.alignment) as u64
    };
    let class_size = match layout.vm {
        Vm::Art => jlc.map(|c| c.hprof_instance_size as u64).filter(|&s| s > 0).map_or(rule_class, |s| align_up(s, a)),
        Vm::HotSpot if layout.from_addresses => {
            let mut nearest = (u64::MAX, 0u32);
            for c in table.classes.iter().filter(|c| c.statics.is_empty()) {
                if let Some(d) = gap(c) {
                    if d < nearest.0 {
                        nearest = (d, 1);
                    } else if d == nearest.0 {
                        nearest.1 += 1;
                    }
                }
            }
            let lower = align_up(layout.header as u64 + 2 * r as u64, a);
            if nearest.1 >= 2 && nearest.0 >= lower {
                nearest.0
            } else {
                rule_class
            }
        }
        Vm::HotSpot => rule_class,
    };
    let mut out = Vec::with_capacity(table.classes.len());
    for c in &table.classes {
        let (mut prims, refs) =
            fields::split_fields(c.statics.iter().filter(|s| !pseudo_static(s.name_id)).map(|s| s.ty));
        let raw: u64 = prims.iter().map(|&b| b as u64).sum::<u64>() + refs as u64 * r as u64;
        let count = prims.len() + refs;
        let rule = align_up(Shape::statics_end(class_size as u32, &mut prims, refs, r) as u64, a);
        let lower = align_up(class_size + raw, a);
        let upper = align_up(class_size + 8 * count as u64, a);
        let d = if layout.vm == Vm::HotSpot && layout.from_addresses { gap(c) } else { None };
        out.push(match d {
            Some(d) if d == rule || (d >= lower && d < rule) => (d, SizedBy::Addresses),
            // A mirror before a gap, or statics the rules place otherwise: within what
            // the statics could take, the distance; past it, a gap.
            Some(d) if d >= lower && d <= upper && count > 0 => (d, SizedBy::Addresses),
            _ => (rule, SizedBy::Rule),
        });
    }
    out
}

/// Whether a dump is Android's: the 1.0.3 format, or (converted with `hprof-conv`)
/// `java.lang.Object` declaring ART's header fields.
pub fn is_art(android_format: bool, table: &ClassTable) -> bool {
    android_format || table.classes.iter().any(|c| c.name == "java.lang.Object" && !c.fields.is_empty())
}
