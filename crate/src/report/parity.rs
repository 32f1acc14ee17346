//! The MAT-parity output: exactly the fields and columns of
//! `../shared/corpus/expected/` (see its README), so `compare_expected.py` can compare
//! heapscope's numbers with Eclipse MAT's. Root kinds are named as MAT names them after
//! hprof-conv (ART-only kinds are "Unknown").

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{json, Map, Value};

use super::suspects::{self, SuspectKind};
use crate::analysis::Analysis;
use crate::rules::roots::mat_name;

fn hex(a: &Analysis, obj: u32) -> String {
    format!("0x{:x}", a.address(obj))
}

/// Number of class loaders MAT counts: kept non-class objects whose class extends
/// `java.lang.ClassLoader` (the pseudo object 0x0 included).
pub fn class_loader_count(a: &Analysis) -> u64 {
    let table = &a.heap.index.classes;
    let is_loader = table.all_extending("java.lang.ClassLoader");
    let jlc = a.heap.index.java_lang_class;
    a.classes
        .iter()
        .enumerate()
        .filter(|(c, _)| is_loader[*c] && Some(*c as u32) != jlc)
        .map(|(_, s)| s.instances)
        .sum()
}

fn class_name(a: &Analysis, class: u32) -> String {
    a.class_name(class).to_string()
}

pub fn json(a: &Analysis) -> Value {
    let heap = &a.heap;
    let table = &heap.index.classes;
    let kept_classes =
        table.classes.iter().enumerate().filter(|(c, _)| a.class_object(*c as u32).is_some_and(|o| a.is_kept(o)));
    let class_count = kept_classes.clone().count();

    let mut by_type: BTreeMap<&str, u64> = BTreeMap::new();
    for &(_, kinds) in &a.roots {
        let mut names: Vec<&str> = kinds.iter().map(mat_name).collect();
        names.sort_unstable();
        names.dedup();
        for n in names {
            *by_type.entry(n).or_default() += 1;
        }
    }

    let unreachable_rows: Vec<Value> = a
        .unreachable
        .iter()
        .enumerate()
        .filter(|(_, s)| s.instances > 0)
        .map(|(c, s)| json!({"class": class_name(a, c as u32), "instances": s.instances, "shallow_heap": s.shallow}))
        .collect();
    let unreachable_objects: u64 = a.unreachable.iter().map(|s| s.instances).sum();
    let unreachable_shallow: u64 = a.unreachable.iter().map(|s| s.shallow).sum();

    let histogram: Vec<Value> = kept_classes
        .map(|(c, info)| {
            let s = a.classes[c];
            json!({
                "class": info.name,
                "class_object": format!("0x{:x}", info.id),
                "instances": s.instances,
                "shallow_heap": s.shallow,
                "retained_heap_min": s.retained_min,
            })
        })
        .collect();

    let top = a.top_level();
    let top_sum: u64 = top.iter().map(|&v| a.retained(v)).sum();
    let top_dominators: Vec<Value> = top
        .iter()
        .take(50)
        .map(|&v| {
            let mut m = Map::new();
            m.insert("object".into(), hex(a, v).into());
            m.insert("class".into(), class_name(a, a.class_of(v)).into());
            let represented = a.class_represented_by(v);
            m.insert("is_class".into(), represented.is_some().into());
            if let Some(c) = represented {
                m.insert("class_name_of_class_object".into(), class_name(a, c).into());
            }
            m.insert("shallow".into(), a.shallow(v).into());
            m.insert("retained".into(), a.retained(v).into());
            Value::Object(m)
        })
        .collect();

    let suspects: Vec<Value> = suspects::find(a)
        .iter()
        .map(|s| {
            let mut m = Map::new();
            match &s.kind {
                SuspectKind::Single { object } => {
                    m.insert("kind".into(), "single_object".into());
                    m.insert("object".into(), hex(a, *object).into());
                    m.insert("class".into(), class_name(a, a.class_of(*object)).into());
                    m.insert("shallow".into(), a.shallow(*object).into());
                }
                SuspectKind::Group { class, members } => {
                    m.insert("kind".into(), "group_of_objects".into());
                    m.insert("class".into(), class_name(a, *class).into());
                    m.insert("instances".into(), members.len().into());
                }
            }
            m.insert("retained".into(), s.retained.into());
            if let Some(ap) = s.accumulation_point {
                m.insert(
                    "accumulation_point".into(),
                    json!({"object": hex(a, ap), "class": class_name(a, a.class_of(ap)), "retained": a.retained(ap)}),
                );
            }
            Value::Object(m)
        })
        .collect();

    json!({
        "tool": format!("heapscope {}", env!("CARGO_PKG_VERSION")),
        "parser_options": {"keep_unreachable_objects": a.options.keep_unreachable},
        "id_size": heap.index.header.id_size,
        "total_objects": a.kept_objects,
        "total_shallow_heap": a.used_heap,
        "classes": class_count,
        "class_loaders": class_loader_count(a),
        "gc_roots_count": a.roots.len(),
        "gc_roots": {"objects": a.roots.len(), "objects_by_type": by_type},
        "unreachable": {
            "discarded": !a.options.keep_unreachable,
            "objects": unreachable_objects,
            "shallow_heap": unreachable_shallow,
            "histogram": unreachable_rows,
        },
        "histogram": histogram,
        "top_level_dominators_count": top.len(),
        "top_level_dominators_retained_sum": top_sum,
        "top_dominators": top_dominators,
        "leak_suspects": {"suspects": suspects},
    })
}

/// One line per kept object: address, class, shallow, retained, immediate dominator
/// (address or `root`), gc_root (0/1); ascending by address.
pub fn write_objects_tsv(a: &Analysis, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "address\tclass\tshallow\tretained\timmediate_dominator\tgc_root")?;
    let mut roots = a.roots.iter().map(|&(o, _)| o).peekable();
    for v in 0..a.object_count() as u32 {
        let is_root = roots.next_if(|&r| r == v).is_some();
        if !a.is_kept(v) {
            continue;
        }
        let dom = match a.immediate_dominator(v) {
            Some(Some(d)) => format!("0x{:x}", a.address(d)),
            _ => "root".to_string(),
        };
        writeln!(
            out,
            "0x{:x}\t{}\t{}\t{}\t{}\t{}",
            a.address(v),
            a.class_name(a.class_of(v)),
            a.shallow(v),
            a.retained(v),
            dom,
            is_root as u8
        )?;
    }
    Ok(())
}
