//! `heapscope dev dump-pass1 DUMP`: what pass 1 finds, as JSON, for diagnostics: the
//! header, the record counts, the classes, the GC root records and the warnings of pass 1
//! (`heapscope::index::pass1`), and a class histogram of the heap records as read (every
//! INSTANCE, OBJECT ARRAY and PRIMITIVE ARRAY DUMP by its class, reachable or not, with
//! MAT's shallow sizes), from one more walk of the dump. No dominator tree, no report.

use std::collections::BTreeMap;
use std::path::PathBuf;

use heapscope::error::Result;
use heapscope::index::Index;
use heapscope::records::heap::{walk, Visitor};
use heapscope::records::{basic_type, Cursor};
use serde_json::{json, Value};

use crate::common::{self, Failure, Outcome};

#[derive(clap::Args, Debug)]
pub struct Pass1Args {
    /// The heap dump (.hprof or .hprof.gz; - for standard input)
    #[arg(value_name = "DUMP")]
    pub dump: PathBuf,
    /// Write the JSON to OUT instead of stdout (- is stdout)
    #[arg(short, long = "output", value_name = "OUT")]
    pub out: Option<PathBuf>,
}

/// Heap records per class id, and primitive arrays per element type: (records, MAT's
/// shallow bytes).
struct Counter<'a> {
    index: &'a Index,
    by_class: BTreeMap<u64, (u64, u64)>,
    by_type: BTreeMap<u8, (u64, u64)>,
}

impl Visitor for Counter<'_> {
    const INSTANCE_FIELDS: bool = false;
    const ARRAY_ELEMENTS: bool = false;

    fn instance(&mut self, _id: u64, class_id: u64, _bytes: u32, _fields: &[u8], _offset: u64) -> Result<()> {
        let size =
            self.index.class_by_id.get(class_id).map_or(0, |c| self.index.classes.classes[c as usize].instance_size);
        let e = self.by_class.entry(class_id).or_default();
        e.0 += 1;
        e.1 += size;
        Ok(())
    }

    fn object_array(&mut self, _id: u64, class_id: u64, len: u32, _offset: u64) -> Result<()> {
        let e = self.by_class.entry(class_id).or_default();
        e.0 += 1;
        e.1 += self.index.layout.object_array_size(len as u64);
        Ok(())
    }

    fn primitive_array(&mut self, _id: u64, ty: u8, len: u32, _has_data: bool, _offset: u64) -> Result<()> {
        let elem = basic_type::primitive_size(ty).unwrap_or(0);
        let e = self.by_type.entry(ty).or_default();
        e.0 += 1;
        e.1 += self.index.layout.primitive_array_size(elem, len as u64);
        Ok(())
    }
}

fn pass1_json(args: &Pass1Args) -> Result<Value> {
    let dump = common::open_dump(&args.dump)?;
    let mut cursor = Cursor::new(dump.source);
    let mut tick = |_: u64, _: u64| Ok(());
    let index = heapscope::index::pass1(&mut cursor, &mut tick, None, &mut ())?;
    cursor.rewind()?;
    let header = heapscope::records::header::Header::read(&mut cursor)?;
    let mut counter = Counter { index: &index, by_class: BTreeMap::new(), by_type: BTreeMap::new() };
    walk(&mut cursor, &header, &mut counter, None)?;
    let classes = &index.classes.classes;
    let mut rows: Vec<Value> = counter
        .by_class
        .iter()
        .map(|(&id, &(records, shallow))| {
            let name = index.class_by_id.get(id).map_or_else(|| format!("unknown class 0x{id:x}"), |c| classes[c as usize].name.clone());
            json!({"class_name": name, "class_address": format!("0x{id:x}"), "records": records, "shallow_bytes": shallow})
        })
        .collect();
    for (&ty, &(records, shallow)) in &counter.by_type {
        let name = basic_type::primitive_name(ty).map_or_else(|| format!("type {ty}"), |n| format!("{n}[]"));
        let address = index.primitive_array_class[ty as usize].map(|c| format!("0x{:x}", classes[c as usize].id));
        rows.push(json!({"class_name": name, "class_address": address, "records": records, "shallow_bytes": shallow}));
    }
    let key = |v: &Value, f: &str| v[f].as_u64().unwrap_or(0);
    rows.sort_by(|x, y| {
        key(y, "shallow_bytes")
            .cmp(&key(x, "shallow_bytes"))
            .then(key(y, "records").cmp(&key(x, "records")))
            .then(x["class_name"].as_str().cmp(&y["class_name"].as_str()))
    });
    let c = &index.counts;
    Ok(json!({
        "kind": "heapscope dev dump-pass1",
        "format": index.header.version.as_str(),
        "id_size": index.header.id_size,
        "timestamp_ms": index.header.timestamp_ms,
        "compressed_oops": index.layout.ref_size < index.layout.id_size,
        "object_alignment": index.layout.object_alignment,
        "hprof_bytes": c.bytes,
        "snapshots": index.snapshots,
        "counts": {
            "instances": c.instances,
            "object_arrays": c.object_arrays,
            "primitive_arrays": c.primitive_arrays,
            "class_dumps": c.class_dumps,
            "string_instances": c.string_instances,
            "heap_dump_segments": c.segments,
            "gc_root_records": index.roots.len(),
            "objects_with_class_objects": index.ids.len(),
        },
        "warnings": index.warnings,
        "histogram": rows,
    }))
}

pub fn dump_pass1(args: &Pass1Args) -> Outcome {
    let input = common::display_name(&args.dump);
    let value = pass1_json(args).map_err(|error| Failure { input: Some(input), error })?;
    let text = heapscope::model::json::to_text(&value);
    match &args.out {
        Some(out) => common::write_output(out, text.as_bytes())?,
        None => common::write_stdout(text.as_bytes()),
    }
    Ok(())
}
