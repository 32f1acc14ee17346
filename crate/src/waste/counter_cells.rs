//! A `ConcurrentHashMap`'s size as the JDK counts it (`sumCount()`): `baseCount` plus the
//! `value` of every `CounterCell` in `counterCells`. A map updated under contention counts
//! in those cells, which pass 2 meets apart from the map: such a map is noted with an
//! unknown size ([`super::collections::SIZE_UNKNOWN`]) and resolved here, once the
//! reference graph exists, by reading the maps' fields and then their cells' back from the
//! dump ([`super::collect::read_records`]: one forward walk each, over the parts of the
//! dump holding them). Dumps without such a map read nothing. Cost: a scan of the
//! collection entries, plus the walks, proportional to the maps and cells read.

use super::collect::Collected;
use super::collections::SIZE_UNKNOWN;
use crate::error::Result;
use crate::graph::{Heap, NO_CLASS};
use crate::readback::locate::read_fields;
use crate::records::basic_type;
use crate::records::cursor::be_id;
use crate::source::ByteSource;

/// Byte offset of the `value` long in the field data of a `…$CounterCell` instance.
fn value_offset(heap: &Heap, class: u32) -> Option<usize> {
    let classes = &heap.index.classes.classes;
    let c = classes.get(class as usize)?;
    if !c.name.ends_with("ConcurrentHashMap$CounterCell") {
        return None;
    }
    heap.index.field_offset(class, basic_type::LONG, &["value"])
}

fn long_at(fields: &[u8], at: usize) -> Option<i64> {
    fields.get(at..at + 8).map(|b| i64::from_be_bytes(b.try_into().expect("8 bytes")))
}

/// A map read back: its entry, its `baseCount`, and its cells with their `value` offsets.
type Pending = (usize, i64, Vec<(u32, usize)>);

/// Gives each `ConcurrentHashMap` of `c` that counts in cells its size; returns the source.
pub fn resolve(c: &mut Collected, heap: &Heap, source: Box<dyn ByteSource>) -> Result<Box<dyn ByteSource>> {
    let layouts = &c.collection_layouts;
    // (entry, map, baseCount offset, counterCells offset)
    let mut maps: Vec<(usize, u32, usize, usize)> = Vec::new();
    for (k, e) in c.collections.iter().enumerate() {
        let class = heap.class_of(e.obj);
        if e.size != SIZE_UNKNOWN || class == NO_CLASS {
            continue;
        }
        if let Some((base, cells)) = layouts.get(class as usize).copied().flatten().and_then(|l| l.counter_fields()) {
            maps.push((k, e.obj, base, cells));
        }
    }
    if maps.is_empty() {
        return Ok(source);
    }
    let mut objs: Vec<u32> = maps.iter().map(|m| m.1).collect();
    objs.sort_unstable();
    objs.dedup();
    let (source, _, fields) = read_fields(&heap.index, source, &objs, 0)?;
    let id_size = heap.index.header.id_size as usize;
    let mut pending: Vec<Pending> = Vec::new();
    for &(k, obj, base_at, cells_at) in &maps {
        let Some(f) = objs.binary_search(&obj).ok().and_then(|i| fields[i].as_deref()) else { continue };
        let Some(base) = long_at(f, base_at) else { continue };
        let cells_id = if cells_at + id_size <= f.len() { be_id(f, cells_at, id_size) } else { continue };
        let mut cells = Vec::new();
        if let Some(array) = (cells_id != 0).then(|| heap.index.ids.index_of(cells_id)).flatten() {
            heap.refs.for_each(array, |t| {
                if let Some(at) = value_offset(heap, heap.class_of(t)) {
                    cells.push((t, at));
                }
            });
        }
        pending.push((k, base, cells));
    }
    let mut cells: Vec<u32> = pending.iter().flat_map(|p| p.2.iter().map(|c| c.0)).collect();
    cells.sort_unstable();
    cells.dedup();
    let (source, values) = if cells.is_empty() {
        (source, Vec::new())
    } else {
        let (source, _, values) = read_fields(&heap.index, source, &cells, 0)?;
        (source, values)
    };
    for (k, base, map_cells) in pending {
        let mut sum = Some(base);
        for (cell, at) in map_cells {
            let value = cells.binary_search(&cell).ok().and_then(|i| values[i].as_deref()).and_then(|f| long_at(f, at));
            sum = sum.zip(value).map(|(s, v)| s.saturating_add(v));
        }
        // A cell the dump does not hold: the size stays unknown.
        if let Some(size) = sum {
            c.collections[k].size = u32::try_from(size.max(0)).unwrap_or(SIZE_UNKNOWN - 1);
        }
    }
    Ok(source)
}
