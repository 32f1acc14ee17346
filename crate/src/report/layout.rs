//! The report's object layout: how the JVM laid the dump's objects out, which sizes the
//! report is in, and, with the JVM's sizes, what Eclipse MAT's model would say instead.

use crate::analysis::Analysis;
use crate::index::jvm_sizes::{fields::INJECTED, SizedBy, Vm};
use crate::model::format::binary_size;
use crate::model::sizes::{ArrayBase, ObjectLayout, Sizes};
use crate::model::ClassCount;
use crate::records::basic_type;

/// Classes sized by rule the report names (the largest).
const MAX_NAMED: usize = 20;

/// The layout section of `a`'s report.
pub fn object_layout(a: &Analysis) -> ObjectLayout {
    let index = &a.heap.index;
    let jvm = &index.jvm;
    let sizes = index.sizes;
    let mut array_bases: Vec<ArrayBase> = Vec::new();
    for ty in [basic_type::OBJECT, 4, 5, 6, 7, 8, 9, 10, 11] {
        let present = if ty == basic_type::OBJECT {
            index.counts.object_arrays > 0
        } else {
            index.primitive_array_class[ty as usize].is_some()
        };
        if present {
            let element = basic_type::primitive_name(ty).unwrap_or("object").to_string();
            array_bases.push(ArrayBase { element, bytes: jvm.array_base[ty as usize] });
        }
    }
    let words = jvm.words(index.header.id_size);
    let description = match (sizes, jvm.vm, jvm.rules_because) {
        (Sizes::Mat, ..) => format!(
            "{words}; sizes as Eclipse MAT computes them ({}-byte headers, the fields the dump lists, class objects as their statics)",
            index.layout.id_size + index.layout.ref_size
        ),
        (Sizes::Jvm, Vm::Art, _) => format!(
            "{words}; instance sizes from the dump's class records (as the runtime computed them), arrays and class objects by the layout's rules"
        ),
        (Sizes::Jvm, _, None) => format!("{words}; sizes from the dump's addresses"),
        (Sizes::Jvm, _, Some(why)) => format!("{words}; sizes by the layout's rules: {why}"),
    };
    let (by_rule, named) = if sizes == Sizes::Jvm { sized_by_rule(a) } else { (0, Vec::new()) };
    let mat_used = (sizes == Sizes::Jvm).then(|| mat_used_heap(a));
    ObjectLayout {
        sizes,
        description,
        vm: match jvm.vm {
            Vm::HotSpot => "hotspot",
            Vm::Art => "art",
        }
        .into(),
        header_bytes: jvm.header,
        reference_bytes: jvm.ref_size,
        alignment_bytes: jvm.alignment,
        array_bases,
        from_addresses: jvm.from_addresses,
        classes_sized_by_rule: by_rule,
        sized_by_rule: named,
        mat_used_heap_bytes: mat_used,
        mat_difference: mat_used.and_then(|m| mat_difference(a, m)),
    }
}

/// Classes whose kept objects the addresses could not size: how many, and the largest.
fn sized_by_rule(a: &Analysis) -> (u64, Vec<ClassCount>) {
    let index = &a.heap.index;
    let arrays_by_rule = !index.jvm.from_addresses;
    // MAT's pseudo object 0x0 (an instance of java.lang.ClassLoader) is no object of the
    // JVM's: it weighs nothing, by no rule.
    let pseudo = index.ids.index_of(0).is_some_and(|z| a.is_kept(z)) as u64;
    let mut rows: Vec<ClassCount> = Vec::new();
    for (k, c) in index.classes.classes.iter().enumerate() {
        let mut stats = a.classes.get(k).copied().unwrap_or_default();
        if Some(k as u32) == index.java_lang_classloader {
            stats.instances -= pseudo.min(stats.instances);
        }
        if stats.instances == 0 || Some(k as u32) == index.java_lang_class {
            continue;
        }
        let by_rule = if c.is_array() { arrays_by_rule } else { c.sizes.instances_by == SizedBy::Rule };
        if by_rule {
            rows.push(ClassCount {
                class_name: c.name.clone(),
                objects: stats.instances,
                shallow_bytes: stats.shallow,
            });
        }
    }
    // The class objects (mirrors) sized by rule, as one row of java.lang.Class.
    let (mut objects, mut bytes) = (0u64, 0u64);
    for (k, c) in index.classes.classes.iter().enumerate() {
        if c.sizes.class_object_by == SizedBy::Rule && a.class_object(k as u32).is_some_and(|o| a.is_kept(o)) {
            objects += 1;
            bytes += c.class_object_size;
        }
    }
    if objects > 0 {
        rows.push(ClassCount { class_name: "java.lang.Class".into(), objects, shallow_bytes: bytes });
    }
    let count = rows.len() as u64;
    rows.sort_by(|x, y| y.shallow_bytes.cmp(&x.shallow_bytes).then_with(|| x.class_name.cmp(&y.class_name)));
    rows.truncate(MAX_NAMED);
    (count, rows)
}

/// The used heap in Eclipse MAT's model for the objects `a` keeps: per class, its kept
/// instances at MAT's instance size, its kept class object at MAT's size, and its arrays'
/// MAT bytes (pass 2 summed MAT's excess over all of a class's arrays; when some were
/// discarded, the kept ones' share is taken in proportion to their count).
pub fn mat_used_heap(a: &Analysis) -> u64 {
    let index = &a.heap.index;
    let mut used = a.used_heap as i128;
    let mut class_objects_kept = 0u64;
    for (k, c) in index.classes.classes.iter().enumerate() {
        if a.class_object(k as u32).is_some_and(|o| a.is_kept(o)) {
            class_objects_kept += 1;
            used += c.sizes.mat_class_object as i128 - c.class_object_size as i128;
        }
    }
    for (k, c) in index.classes.classes.iter().enumerate() {
        let mut kept = a.classes.get(k).map_or(0, |s| s.instances);
        if Some(k as u32) == index.java_lang_class {
            kept = kept.saturating_sub(class_objects_kept);
        }
        if kept == 0 {
            continue;
        }
        if c.sizes.arrays > 0 {
            used += c.sizes.mat_array_excess as i128 * kept.min(c.sizes.arrays) as i128 / c.sizes.arrays as i128;
        } else {
            used += kept as i128 * (c.sizes.mat_instance as i128 - c.instance_size as i128);
        }
    }
    // MAT's pseudo object 0x0 (the bootstrap loader) weighs nothing in the JVM's reading:
    // its java.lang.ClassLoader row counted it at 0 above.
    if let (Some(zero), Some(cl)) = (index.ids.index_of(0), index.java_lang_classloader) {
        if a.is_kept(zero) {
            let c = &index.classes.classes[cl as usize];
            used += c.instance_size as i128;
        }
    }
    used.max(0) as u64
}

/// "Eclipse MAT would report 18.4 MiB (+10.8%): it assumes a 12-byte object header, …";
/// None when the two agree.
fn mat_difference(a: &Analysis, mat: u64) -> Option<String> {
    let used = a.used_heap;
    if mat == used {
        return None;
    }
    let index = &a.heap.index;
    let mat_header = index.layout.id_size + index.layout.ref_size;
    let mut reasons: Vec<String> = Vec::new();
    if index.jvm.header != mat_header {
        reasons
            .push(format!("assumes a {mat_header}-byte object header where this JVM's is {} bytes", index.jvm.header));
    }
    let injected = (0..index.classes.classes.len()).any(|k| {
        a.classes.get(k).is_some_and(|s| s.instances > 0)
            && index.classes.chain(Some(k as u32)).any(|p| {
                let name = &index.classes.classes[p as usize].name;
                name != "java.lang.String" && INJECTED.iter().any(|e| e.0 == name)
            })
    });
    if injected && index.jvm.vm == crate::index::jvm_sizes::Vm::HotSpot {
        reasons.push("omits the fields the JVM injects (class loaders, modules, method handles, threads)".into());
    }
    if index.classes.classes.iter().any(|c| c.sizes.mat_class_object != c.class_object_size) {
        reasons.push("counts a class object as its static fields alone, without the mirror's header and fields".into());
    }
    let delta = mat as i128 - used as i128;
    // Tenths of a percent, rounded half away from zero, in integers.
    let tenths = (delta * 2000 + used.max(1) as i128 * delta.signum()) / (2 * used.max(1) as i128);
    let sign = if delta >= 0 { "+" } else { "-" };
    let pct = format!("{sign}{}.{}%", tenths.abs() / 10, tenths.abs() % 10);
    let why = match reasons.len() {
        0 => "it sizes objects by the fields the dump lists".to_string(),
        1 => format!("it {}", reasons[0]),
        n => format!("it {} and {}", reasons[..n - 1].join(", "), reasons[n - 1]),
    };
    Some(format!("Eclipse MAT would report {} ({pct}): {why}", binary_size(mat)))
}
