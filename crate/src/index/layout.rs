//! Where a class's instance fields sit inside an INSTANCE DUMP's field data.
//!
//! HPROF lays an instance's field values out as the fields its own class declares (in
//! declaration order), then those of its super class, and so on up to the top of the
//! chain; each value takes [`basic_type::value_size`] bytes (the id size for a
//! reference). So a field's byte offset is the sum of the sizes of every field before it
//! in that walk. Everything that reads a field by name out of pass 2's field bytes (the
//! waste report's layouts, the view owners, the duplicate strings query) finds its
//! offset here once per class, never per object.
//!
//! Terms: the *chain* of a class is the class then each super class, subclass first
//! (depth 0 is the class itself). Walks are iterators: no allocation, no recursion. Super
//! chains come from the dump; [`ClassTable::finish`] rejects loops and chains deeper than
//! [`MAX_CLASS_DEPTH`], and every walk here also stops after
//! `min(classes, MAX_CLASS_DEPTH)` classes, so even a table that skipped that check cannot
//! make one loop. Cost: linear in the fields of the chain.

use super::classes::{ClassInfo, ClassTable, MAX_CLASS_DEPTH};
use super::Index;
use crate::records::basic_type;
use crate::records::heap::FieldDecl;

/// One instance field of a class's chain, with where its value is in the field data.
#[derive(Debug, Clone, Copy)]
pub struct FieldAt<'a> {
    pub decl: &'a FieldDecl,
    /// Index in the class table of the class that declares it.
    pub class: u32,
    /// Position of that class in the chain (0: the instance's own class).
    pub depth: usize,
    /// Byte offset of the value inside the instance's field data.
    pub offset: usize,
    /// Bytes the value takes (0 for a type HPROF does not define).
    pub size: usize,
}

/// The classes of a chain, subclass first: see [`ClassTable::chain`].
#[derive(Debug, Clone)]
pub struct Chain<'a> {
    classes: &'a [ClassInfo],
    next: Option<u32>,
    /// Classes still allowed (the loop guard).
    left: usize,
}

impl Iterator for Chain<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let k = self.next.filter(|_| self.left > 0)?;
        self.left -= 1;
        self.next = self.classes.get(k as usize)?.super_index;
        Some(k)
    }
}

/// Bytes of field values a class declares itself (its super classes' not counted).
fn own_bytes(c: &ClassInfo, id_size: u32) -> usize {
    c.fields.iter().map(|f| basic_type::value_size(f.ty, id_size).unwrap_or(0) as usize).sum()
}

/// The fields class `c` (index `class`, at `depth` of a chain) declares itself, their
/// offsets counted from `start` (where its fields begin in the instance's data).
pub fn own_fields(
    c: &ClassInfo,
    class: u32,
    depth: usize,
    start: usize,
    id_size: u32,
) -> impl Iterator<Item = FieldAt<'_>> {
    c.fields.iter().scan(start, move |at, decl| {
        let size = basic_type::value_size(decl.ty, id_size).unwrap_or(0) as usize;
        let f = FieldAt { decl, class, depth, offset: *at, size };
        *at += size;
        Some(f)
    })
}

impl ClassTable {
    /// Class `class` then each of its super classes (empty for `None`), bounded as the
    /// module says.
    pub fn chain(&self, class: Option<u32>) -> Chain<'_> {
        Chain { classes: &self.classes, next: class, left: self.classes.len().min(MAX_CLASS_DEPTH) }
    }

    /// Each class of `class`'s chain with its depth and the byte offset where its own
    /// fields begin in an instance's field data.
    pub fn chain_starts(&self, class: u32, id_size: u32) -> impl Iterator<Item = (u32, usize, usize)> + '_ {
        self.chain(Some(class)).enumerate().scan(0usize, move |start, (depth, k)| {
            let at = *start;
            *start += own_bytes(&self.classes[k as usize], id_size);
            Some((k, depth, at))
        })
    }

    /// Every field of an instance of `class`, in the order (and at the offsets) HPROF lays
    /// its data out: own fields first, then each super class's.
    pub fn instance_fields(&self, class: u32, id_size: u32) -> impl Iterator<Item = FieldAt<'_>> + '_ {
        self.chain_starts(class, id_size)
            .flat_map(move |(k, depth, at)| own_fields(&self.classes[k as usize], k, depth, at, id_size))
    }
}

impl Index {
    /// The name of field `name_id` declared by class `class` (a class index): the dump's,
    /// or the one a mapping gave it ([`Index::field_renames`]).
    pub fn field_name(&self, class: Option<u32>, name_id: u64) -> String {
        if let Some(name) = class.and_then(|c| self.field_renames.get(&(c, name_id))) {
            return name.clone();
        }
        self.strings.name(name_id)
    }

    /// The class that declares the fields at `depth` of `class`'s chain (0: `class` itself).
    pub fn declaring_class(&self, class: Option<u32>, depth: usize) -> Option<u32> {
        self.classes.chain(class).nth(depth)
    }

    /// Whether `f` has type `ty` and one of `names` (a name that is not valid UTF-8 is none).
    pub fn field_is(&self, f: &FieldDecl, ty: u8, names: &[&str]) -> bool {
        f.ty == ty && names.contains(&self.strings.get(f.name_id).unwrap_or(""))
    }

    /// Byte offset, in the field data of an instance of `class`, of the field of type `ty`
    /// named one of `names`; the most derived one when several classes of the chain
    /// declare it (as Java resolves the name from the instance's class).
    pub fn field_offset(&self, class: u32, ty: u8, names: &[&str]) -> Option<usize> {
        self.classes
            .instance_fields(class, self.header.id_size)
            .find(|f| self.field_is(f.decl, ty, names))
            .map(|f| f.offset)
    }

    /// [`Index::field_offset`] of each `(type, name)` of `wanted`, in one walk.
    pub fn field_offsets<const N: usize>(&self, class: u32, wanted: [(u8, &str); N]) -> [Option<usize>; N] {
        let mut found = [None; N];
        for f in self.classes.instance_fields(class, self.header.id_size) {
            for (slot, &(ty, name)) in found.iter_mut().zip(&wanted) {
                if slot.is_none() && self.field_is(f.decl, ty, &[name]) {
                    *slot = Some(f.offset);
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::basic_type::{BYTE, INT, LONG, OBJECT};

    fn class(super_index: Option<u32>, fields: &[(u64, u8)]) -> ClassInfo {
        ClassInfo {
            super_index,
            fields: fields.iter().map(|&(name_id, ty)| FieldDecl { name_id, ty }).collect(),
            ..ClassInfo::default()
        }
    }

    fn table(classes: Vec<ClassInfo>) -> ClassTable {
        ClassTable { classes, ref_offsets: Vec::new(), ref_names: Vec::new() }
    }

    #[test]
    fn offsets_follow_the_hprof_layout() {
        // C extends B extends A. By HPROF's layout (own fields, then the super's) with
        // 8-byte ids, C's data is: c1 int @0, c2 ref @4 | b1 long @12 | a1 byte @20, a2 ref @21.
        let t = table(vec![
            class(None, &[(1, BYTE), (2, OBJECT)]),
            class(Some(0), &[(3, LONG)]),
            class(Some(1), &[(4, INT), (5, OBJECT)]),
        ]);
        let got: Vec<(u64, u32, usize, usize, usize)> =
            t.instance_fields(2, 8).map(|f| (f.decl.name_id, f.class, f.depth, f.offset, f.size)).collect();
        assert_eq!(got, [(4, 2, 0, 0, 4), (5, 2, 0, 4, 8), (3, 1, 1, 12, 8), (1, 0, 2, 20, 1), (2, 0, 2, 21, 8)]);
        assert_eq!(t.chain_starts(2, 4).collect::<Vec<_>>(), [(2, 0, 0), (1, 1, 8), (0, 2, 16)]);
        assert_eq!(t.chain(Some(1)).collect::<Vec<_>>(), [1, 0]);
        assert_eq!(t.chain(None).count(), 0);
    }

    #[test]
    fn a_looping_chain_stops() {
        // 0 -> 1 -> 0: `finish` rejects this; the walk still ends after one pass per class.
        let t = table(vec![class(Some(1), &[(1, INT)]), class(Some(0), &[(2, INT)])]);
        assert_eq!(t.chain(Some(0)).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(t.instance_fields(0, 8).map(|f| f.offset).collect::<Vec<_>>(), [0, 4]);
        // A super index outside the table ends the chain.
        let t = table(vec![class(Some(7), &[(1, INT)])]);
        assert_eq!(t.chain(Some(0)).collect::<Vec<_>>(), [0]);
    }
}
