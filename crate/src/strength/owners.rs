//! Owner rules of the strength-aware reading (seed `001_*`, "An owner beats a
//! bystander"): some objects are owned by one construct, and a reference from anywhere
//! else is a bystander's.
//!
//! - An `android.view.View` is owned by the `android.view.ViewGroup` that reads it as a
//!   child — a *virtual* reference from the group to each of `mChildren[0 ..
//!   mChildrenCount)`, added beside the real ones (the `View[]` stays a node of its own; a
//!   view in a slot past `mChildrenCount` is not a child) — and by `Activity.mDecor` or
//!   `Dialog.mDecor`.
//! - An `android.app.Activity` is owned by `ActivityThread$ActivityClientRecord.activity`.
//!
//! The rule is *parked, not dropped*: the strength walk keeps a second queue per strength
//! and takes from it only when the main one is empty, so an owner gets every chance to
//! reach the object first; when none does, the bystander holds it after all (a detached
//! hierarchy is not lost). An object an owner reached is marked *owned*, and in the tree
//! only owner references into it count. Ownership is a verdict per object, not a
//! strength: strengths (and the partition) are the same with or without the rules.
//!
//! Classes are recognised by their super class chain. The virtual references are
//! collected in pass 2 ([`ViewChildren`]): the `View[]` arrays' elements in slot order
//! (only those arrays are kept), and per view group its array and child count.

use crate::bits::BitSet;
use crate::error::Result;
use crate::graph::Pass2Sink;
use crate::index::Index;
use crate::records::basic_type;
use crate::records::cursor::be_id;
use crate::rules::owners::OWNED_CLASSES;

/// The owner-rule data the walk and the tree read: which classes need an owner, and the
/// view groups' virtual child references.
#[derive(Debug, Default)]
pub struct Owners {
    /// Per class: its instances need an owner. Empty when the dump has no such class.
    pub owned_class: Vec<bool>,
    /// (view group, child), ascending.
    pub virtual_edges: Vec<(u32, u32)>,
}

impl Owners {
    /// Whether any rule applies in this dump.
    pub fn any(&self) -> bool {
        !self.owned_class.is_empty()
    }

    /// The virtual children of `v`, in slot order (sorted by index for the search).
    pub fn virtual_children(&self, v: u32) -> &[(u32, u32)] {
        let e = &self.virtual_edges;
        let a = e.partition_point(|x| x.0 < v);
        let b = a + e[a..].partition_point(|x| x.0 == v);
        &e[a..b]
    }
}

/// Collects a view group's children in pass 2 (a [`Pass2Sink`]).
#[derive(Default)]
pub struct ViewChildren {
    /// Per class: for view groups, the position of `mChildren` among its reference fields
    /// and the byte offset of the int `mChildrenCount` in its instance data.
    groups: Vec<Option<(u32, u32)>>,
    /// Per class: it is `android.view.View[]`.
    view_array: Vec<bool>,
    owned_class: Vec<bool>,
    /// (group, its mChildren array id, mChildrenCount).
    found: Vec<(u32, u64, i32)>,
    /// (array, element ids in slot order).
    arrays: Vec<(u32, Vec<u64>)>,
    collecting: bool,
    /// What [`Pass2Sink::walk_done`] made of it.
    owners: Owners,
}

impl ViewChildren {
    /// None when the dump has none of the owned classes (every HotSpot dump).
    pub fn new(index: &Index) -> Option<ViewChildren> {
        let table = &index.classes;
        let mut owned_class = vec![false; table.classes.len()];
        for name in OWNED_CLASSES {
            for (o, e) in owned_class.iter_mut().zip(table.all_extending(name)) {
                *o |= e;
            }
        }
        if !owned_class.iter().any(|&o| o) {
            return None;
        }
        let is_group = table.all_extending("android.view.ViewGroup");
        let groups = (0..table.classes.len())
            .map(|k| {
                if !is_group[k] {
                    return None;
                }
                let (a, b) = table.classes[k].refs;
                let children = (a..b).find(|&i| index.strings.name(table.ref_names[i as usize]) == "mChildren")? - a;
                let count = index.field_offset(k as u32, basic_type::INT, &["mChildrenCount"])?;
                Some((children, u32::try_from(count).ok()?))
            })
            .collect();
        let view_array = table.classes.iter().map(|c| c.name == "android.view.View[]").collect();
        Some(ViewChildren { groups, view_array, owned_class, ..ViewChildren::default() })
    }

    /// The owner data collected (see [`Pass2Sink::walk_done`]).
    pub fn into_owners(self) -> Owners {
        self.owners
    }

    /// An instance of class `class` with field bytes `fields`; `ref_offsets` are its
    /// reference fields' byte offsets.
    fn view_group(&mut self, obj: u32, class: u32, fields: &[u8], ref_offsets: &[u32], id_size: usize) {
        let Some(Some((children, count_at))) = self.groups.get(class as usize) else { return };
        let (off, count_at) =
            (ref_offsets.get(*children as usize).copied().unwrap_or(u32::MAX) as usize, *count_at as usize);
        if off.saturating_add(id_size) <= fields.len() && count_at + 4 <= fields.len() {
            let array = be_id(fields, off, id_size);
            let count = i32::from_be_bytes([
                fields[count_at],
                fields[count_at + 1],
                fields[count_at + 2],
                fields[count_at + 3],
            ]);
            if array != 0 && count > 0 {
                self.found.push((obj, array, count));
            }
        }
    }

    /// An object array starts: its elements are kept if it is a `View[]`.
    fn array(&mut self, obj: u32, class: u32) {
        self.collecting = self.view_array.get(class as usize).copied().unwrap_or(false);
        if self.collecting {
            self.arrays.push((obj, Vec::new()));
        }
    }

    /// More elements of the current array (ids, `id_size` bytes each).
    fn elements(&mut self, bytes: &[u8], id_size: usize) {
        if let (true, Some(last)) = (self.collecting, self.arrays.last_mut()) {
            last.1.extend(bytes.chunks_exact(id_size).map(|c| be_id(c, 0, id_size)));
        }
    }

    /// The owner data: each group's first `mChildrenCount` slots become its virtual
    /// children.
    fn finish(&mut self, index: &Index) -> Owners {
        self.arrays.sort_unstable_by_key(|a| a.0);
        let mut virtual_edges = Vec::new();
        for &(group, array, count) in &self.found {
            let Some(a) = index.ids.index_of(array) else { continue };
            let Ok(k) = self.arrays.binary_search_by_key(&a, |x| x.0) else { continue };
            for &id in self.arrays[k].1.iter().take(count as usize) {
                if let Some(child) = index.ids.index_of(id).filter(|_| id != 0) {
                    virtual_edges.push((group, child));
                }
            }
        }
        virtual_edges.sort_unstable();
        virtual_edges.dedup();
        Owners { owned_class: std::mem::take(&mut self.owned_class), virtual_edges }
    }
}

impl Pass2Sink for ViewChildren {
    #[inline(always)]
    fn wants_instance(&self, class: u32) -> bool {
        matches!(self.groups.get(class as usize), Some(Some(_)))
    }

    fn instance(&mut self, index: &Index, obj: u32, class: u32, fields: &[u8], _targets: &[u32]) -> Result<()> {
        let (a, b) = index.classes.classes[class as usize].refs;
        let offsets = &index.classes.ref_offsets[a as usize..b as usize];
        self.view_group(obj, class, fields, offsets, index.header.id_size as usize);
        Ok(())
    }

    fn object_array(&mut self, obj: u32, class: u32, _len: u32) -> Result<()> {
        self.array(obj, class);
        Ok(())
    }

    fn object_array_elements(&mut self, bytes: &[u8], id_size: usize) {
        self.elements(bytes, id_size);
    }

    fn walk_done(&mut self, index: &Index) -> Result<()> {
        self.owners = self.finish(index);
        Ok(())
    }
}

/// Marks in `has_special` the objects with virtual references.
pub fn mark_sources(owners: &Owners, has_special: &mut BitSet) {
    for &(s, _) in &owners.virtual_edges {
        has_special.insert(s);
    }
}
