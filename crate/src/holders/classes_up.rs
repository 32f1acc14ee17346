//! The dominator tree read from the classes up (the reverse dominator tree).
//!
//! Every kept object sits at the bottom of a column, on the row of its class. Above a row
//! are the classes of the objects immediately dominating the objects of the row — and
//! above those, the classes of *their* immediate dominators, and so on up to the row of
//! the whole heap dump (the virtual root), which has nothing above it. A row's *weight*
//! is the shallow bytes of the objects at the bottom of its columns; its *objects* the
//! distinct objects on it. So a row's weight is split exactly among the rows above it,
//! and the class rows together weigh what the dominator tree's root retains.
//!
//! A row is a list of entries (object on the row, bottom bytes it stands for); expanding
//! it maps each entry to its object's immediate dominator and merges entries that meet
//! on one object, so the entries of the rows open at a time stand for disjoint sets of
//! bottom objects: never more entries than objects, however many levels are open. No
//! second dominator computation: one `idom` read per entry per level.
//!
//! Cost: the class rows, one pass over the objects; a row's entries, one pass over the
//! objects (its instances); each level above, a sort of the entries.

use crate::alloc::{try_filled, try_push, try_with_capacity};
use crate::dominators::{UNREACHABLE, VIRTUAL_ROOT};
use crate::error::Result;
use crate::graph::NO_CLASS;
use crate::retained::IdomRead;

/// The class key of the row of the whole heap dump (the virtual root).
pub const WHOLE_HEAP: u32 = u32::MAX - 1;

/// A row: a class (or [`WHOLE_HEAP`]), how many objects are on it, the shallow bytes of
/// the objects at the bottom of its columns, and the rows above it (when asked for).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub class: u32,
    pub objects: u64,
    pub weight: u64,
    pub above: Vec<Row>,
}

/// The per-object columns the reverse tree reads.
pub struct Columns<'a, C: Fn(u32) -> u32, S: Fn(u32) -> u64> {
    pub idom: &'a dyn IdomRead,
    pub class_of: C,
    pub shallow: S,
}

/// One entry of a row: the object on the row and the bottom bytes it stands for.
pub type Entry = (u32, u64);

impl<C: Fn(u32) -> u32, S: Fn(u32) -> u64> Columns<'_, C, S> {
    fn kept(&self, v: u32) -> bool {
        self.idom.at(v) != UNREACHABLE && (self.class_of)(v) != NO_CLASS
    }

    /// The class rows (one per class with kept instances), heaviest first.
    pub fn class_rows(&self, classes: usize) -> Result<Vec<Row>> {
        let mut rows: Vec<Row> = try_with_capacity(classes, "the class rows")?;
        rows.extend((0..classes as u32).map(|class| Row { class, objects: 0, weight: 0, above: Vec::new() }));
        for v in 0..self.idom.count() as u32 {
            if self.kept(v) {
                if let Some(r) = rows.get_mut((self.class_of)(v) as usize) {
                    r.objects += 1;
                    r.weight += (self.shallow)(v);
                }
            }
        }
        rows.retain(|r| r.objects > 0);
        sort_rows(&mut rows);
        Ok(rows)
    }

    /// The kept objects of every class, grouped by class in one pass: class `c`'s are
    /// `order[offsets[c]..offsets[c + 1]]`, ascending (4 bytes per object).
    pub fn instances_by_class(&self, classes: usize) -> Result<(Vec<u32>, Vec<u32>)> {
        let mut offsets: Vec<u32> = try_filled(classes + 1, 0, "the class rows")?;
        let mut kept = 0usize;
        for v in 0..self.idom.count() as u32 {
            if self.kept(v) {
                let c = (self.class_of)(v) as usize;
                if c < classes {
                    offsets[c + 1] += 1;
                    kept += 1;
                }
            }
        }
        for c in 0..classes {
            offsets[c + 1] += offsets[c];
        }
        let mut order: Vec<u32> = try_filled(kept, 0, "the objects by class")?;
        let mut next = offsets.clone();
        for v in 0..self.idom.count() as u32 {
            if self.kept(v) {
                let c = (self.class_of)(v) as usize;
                if c < classes {
                    order[next[c] as usize] = v;
                    next[c] += 1;
                }
            }
        }
        Ok((offsets, order))
    }

    /// The entries of the class row of `objects` (its instances).
    pub fn class_entries(&self, objects: &[u32]) -> Result<Vec<Entry>> {
        let mut e = try_with_capacity(objects.len(), "the entries of a class row")?;
        e.extend(objects.iter().map(|&v| (v, (self.shallow)(v))));
        Ok(e)
    }

    /// The entries of the row reached from class `path[0]`'s row by stepping up to the
    /// row of class `path[1]`, then `path[2]`…: a row of the reverse tree named by its
    /// column. Empty if no such row.
    pub fn entries(&self, path: &[u32]) -> Result<Vec<Entry>> {
        let mut entries: Vec<Entry> = Vec::new();
        let Some((&bottom, up)) = path.split_first() else { return Ok(entries) };
        for v in 0..self.idom.count() as u32 {
            if (self.class_of)(v) == bottom && self.kept(v) {
                try_push(&mut entries, (v, (self.shallow)(v)), "the entries of a class row")?;
            }
        }
        for &class in up {
            let groups = self.above(entries)?;
            entries = groups.into_iter().find(|(c, _)| *c == class).map(|(_, e)| e).unwrap_or_default();
        }
        Ok(entries)
    }

    /// Expands a row: its entries, handed to the rows above it (class, entries), in
    /// class order. The entries of the whole heap dump's row go nowhere.
    pub fn above(&self, entries: Vec<Entry>) -> Result<Vec<(u32, Vec<Entry>)>> {
        let mut up: Vec<(u32, u32, u64)> = try_with_capacity(entries.len(), "the rows above a row")?;
        for (v, w) in entries {
            if v == VIRTUAL_ROOT {
                continue;
            }
            match self.idom.at(v) {
                UNREACHABLE => {}
                VIRTUAL_ROOT => up.push((WHOLE_HEAP, VIRTUAL_ROOT, w)),
                d => up.push(((self.class_of)(d), d, w)),
            }
        }
        up.sort_unstable_by_key(|&(c, d, _)| (c, d));
        let mut out: Vec<(u32, Vec<Entry>)> = Vec::new();
        for (c, d, w) in up {
            if out.last().map(|(lc, _)| *lc) != Some(c) {
                out.push((c, Vec::new()));
            }
            let row = &mut out.last_mut().expect("pushed").1;
            match row.last_mut() {
                Some((ld, lw)) if *ld == d => *lw += w,
                _ => row.push((d, w)),
            }
        }
        Ok(out)
    }

    /// The rows above a row's `entries`, heaviest first, each with `depth - 1` more levels
    /// above it (`depth` 0: none). Iterative: the pending rows' entries stand for disjoint
    /// objects, so they never outnumber the row's.
    pub fn rows_above(&self, entries: Vec<Entry>, depth: usize) -> Result<Vec<Row>> {
        // Arena of rows: (row, parent index); children are created together, in order.
        let mut arena: Vec<(Row, usize)> = Vec::new();
        const TOP: usize = usize::MAX;
        let mut stack: Vec<(usize, Vec<Entry>, usize)> = vec![(TOP, entries, 0)];
        while let Some((parent, entries, level)) = stack.pop() {
            if level >= depth {
                continue;
            }
            let mut groups: Vec<(Row, Vec<Entry>)> = self
                .above(entries)?
                .into_iter()
                .map(|(class, e)| {
                    let row =
                        Row { class, objects: e.len() as u64, weight: e.iter().map(|x| x.1).sum(), above: Vec::new() };
                    (row, e)
                })
                .collect();
            groups.sort_by(|x, y| row_order(&x.0, &y.0));
            for (row, e) in groups {
                let expandable = row.class != WHOLE_HEAP;
                arena.push((row, parent));
                if expandable {
                    stack.push((arena.len() - 1, e, level + 1));
                }
            }
        }
        // Children come after their parent: attach from the end, then restore the order.
        let mut top = Vec::new();
        while let Some((mut row, parent)) = arena.pop() {
            row.above.reverse();
            if parent == TOP {
                top.push(row);
            } else {
                arena[parent].0.above.push(row);
            }
        }
        top.reverse();
        Ok(top)
    }
}

/// Heaviest first, then most objects, then class order (deterministic).
fn row_order(x: &Row, y: &Row) -> std::cmp::Ordering {
    y.weight.cmp(&x.weight).then(y.objects.cmp(&x.objects)).then(x.class.cmp(&y.class))
}

pub fn sort_rows(rows: &mut [Row]) {
    rows.sort_by(row_order);
}
