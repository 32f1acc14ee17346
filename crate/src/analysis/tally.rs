//! What the retained-size walk counts besides the sizes ([`retained::WalkExtra`]), so
//! that the report needs no walk of the tree of its own:
//!
//! - MAT's report's quick retained size per class, with each class object counted in the
//!   row of the class it stands for (see `report::histogram`): the walk's second
//!   grouping;
//! - per *loader group* of top-level dominators (MAT's Top Components: a class loader
//!   object is in its own loader's group, a class object in the group of the loader of the
//!   class it stands for, any other object in its class's loader's group): the top-level
//!   dominators, their retained size, and per class the objects and shallow bytes of the
//!   group's retained set, the *marked* ones among them (objects a feature asked to count
//!   apart: the waste report's duplicates) and the shallow bytes of the primitive arrays
//!   marked objects dominate directly.
//!
//! Cost: per node a few adds into a per-class slot of the current top-level dominator's
//! group; the slots are flushed into the group's table when the walk moves on to a
//! top-level dominator of another group (`classes` slots, and one table entry per class a
//! group's retained set holds).

use std::collections::HashMap;

use crate::bits::BitSet;
use crate::error::Result;
use crate::graph::Heap;
use crate::retained::{self, NO_GROUP};

/// One class in a loader group's retained set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassTally {
    pub objects: u64,
    pub shallow: u64,
    /// The marked objects among them, and their shallow bytes.
    pub marked: u64,
    pub marked_shallow: u64,
    /// Shallow bytes of the primitive arrays immediately dominated by marked objects of
    /// this class (a String's value array).
    pub marked_arrays: u64,
}

impl ClassTally {
    fn add(&mut self, o: &ClassTally) {
        self.objects += o.objects;
        self.shallow += o.shallow;
        self.marked += o.marked;
        self.marked_shallow += o.marked_shallow;
        self.marked_arrays += o.marked_arrays;
    }
}

/// The top-level dominators of one class loader's group and what they retain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoaderGroup {
    /// The loader's identifier: 0 for the bootstrap loader (and loaders that are not
    /// objects of the dump), `u64::MAX` for objects without a class.
    pub loader: u64,
    pub top_level: u64,
    pub retained: u64,
    /// Objects in the group's retained set.
    pub objects: u64,
    /// Per class (index into the class table), ascending.
    pub classes: Vec<(u32, ClassTally)>,
}

/// The loader groups of one tree, by loader identifier.
#[derive(Debug, Clone, Default)]
pub struct LoaderGroups {
    pub groups: Vec<LoaderGroup>,
    /// Whether objects were marked (features asked for it): without marks, the marked
    /// figures are all zero and mean nothing.
    pub marked: bool,
}

/// The walk's extra (see the module docs).
pub(super) struct Tally<'a> {
    heap: &'a Heap,
    /// Index of `java.lang.Class`.
    jlc: u32,
    /// Per class: whether it extends `java.lang.ClassLoader`.
    is_loader: Vec<bool>,
    /// Per class: whether it is a primitive array class.
    is_array: Vec<bool>,
    /// One bit per marked object (empty: none).
    marks: &'a BitSet,
    root: u32,
    /// The current top-level dominator's group, and the slots of its classes since the
    /// last flush, with the classes touched.
    group: u32,
    slots: Vec<ClassTally>,
    touched: Vec<u32>,
    /// Per group: the loader, and its tallies so far.
    groups: Vec<LoaderGroup>,
    by_loader: HashMap<u64, u32>,
    per_class: Vec<HashMap<u32, ClassTally>>,
}

impl<'a> Tally<'a> {
    pub(super) fn new(heap: &'a Heap, marks: &'a BitSet) -> Result<Tally<'a>> {
        let classes = &heap.index.classes;
        let n = classes.classes.len();
        let mut is_array = vec![false; n];
        for c in heap.index.primitive_array_class.iter().flatten() {
            is_array[*c as usize] = true;
        }
        Ok(Tally {
            heap,
            jlc: heap.index.java_lang_class.unwrap_or(NO_GROUP),
            is_loader: classes.all_extending("java.lang.ClassLoader"),
            is_array,
            marks,
            root: heap.object_count() as u32,
            group: NO_GROUP,
            slots: crate::alloc::try_filled(n, ClassTally::default(), "the top components' classes")?,
            touched: Vec::new(),
            groups: Vec::new(),
            by_loader: HashMap::new(),
            per_class: Vec::new(),
        })
    }

    /// The loader identifier of top-level dominator `v`'s group.
    fn loader_of_top(&self, v: u32) -> u64 {
        let heap = self.heap;
        let key = |id: u64| if id != 0 && heap.index.ids.index_of(id).is_some() { id } else { 0 };
        let loader_of_class =
            |c: u32| heap.index.classes.classes.get(c as usize).map_or(u64::MAX, |i| key(i.loader_id));
        if let Some(c) = heap.class_represented_by(v) {
            return loader_of_class(c);
        }
        let c = heap.class_of(v);
        if self.is_loader.get(c as usize).copied().unwrap_or(false) {
            return key(heap.index.ids.id(v));
        }
        loader_of_class(c)
    }

    #[inline]
    fn marked(&self, v: u32) -> bool {
        self.marks.contains(v)
    }

    /// Adds the slots to the current group's table.
    fn flush(&mut self) {
        if let Some(table) = self.per_class.get_mut(self.group as usize) {
            for &c in &self.touched {
                let slot = std::mem::take(&mut self.slots[c as usize]);
                table.entry(c).or_default().add(&slot);
            }
        }
        self.touched.clear();
    }

    /// The groups, by loader identifier.
    pub(super) fn finish(mut self) -> LoaderGroups {
        self.flush();
        let mut groups = std::mem::take(&mut self.groups);
        for (g, table) in groups.iter_mut().zip(self.per_class) {
            let mut classes: Vec<(u32, ClassTally)> = table.into_iter().collect();
            classes.sort_unstable_by_key(|e| e.0);
            g.objects += classes.iter().map(|e| e.1.objects).sum::<u64>();
            g.classes = classes;
        }
        groups.sort_unstable_by_key(|g| g.loader);
        LoaderGroups { groups, marked: self.marks.capacity() > 0 }
    }
}

impl retained::WalkExtra for Tally<'_> {
    const SECOND_MINIMUM: bool = true;

    /// A class object counts in the row of the class it stands for.
    #[inline(always)]
    fn group(&self, x: u32, class: u32) -> u32 {
        if class == self.jlc {
            self.heap.class_represented_by(x).unwrap_or(class)
        } else {
            class
        }
    }

    #[inline(always)]
    fn node(&mut self, x: u32, class: u32, bytes: u64, parent: u32) {
        if parent == self.root {
            self.enter_top(x);
        }
        let Some(slot) = self.slots.get_mut(class as usize) else {
            // No class: counted as an object of the group, in no class row.
            if let Some(g) = self.groups.get_mut(self.group as usize) {
                g.objects += 1;
            }
            return;
        };
        if slot.objects == 0 {
            self.touched.push(class);
        }
        slot.objects += 1;
        slot.shallow += bytes;
        if self.marks.capacity() == 0 {
            return;
        }
        if self.marks.contains(x) {
            slot.marked += 1;
            slot.marked_shallow += bytes;
        }
        if parent != self.root && self.is_array[class as usize] && self.marked(parent) {
            let pc = self.heap.class_of(parent);
            if let Some(p) = self.slots.get_mut(pc as usize) {
                if p.objects == 0 {
                    self.touched.push(pc);
                }
                p.marked_arrays += bytes;
            }
        }
    }

    #[inline(always)]
    fn top_done(&mut self, _x: u32, retained: u64) -> Result<()> {
        if let Some(g) = self.groups.get_mut(self.group as usize) {
            g.retained += retained;
        }
        Ok(())
    }
}

impl Tally<'_> {
    /// The walk enters top-level dominator `x`: its group becomes the current one.
    #[inline(never)]
    fn enter_top(&mut self, x: u32) {
        let loader = self.loader_of_top(x);
        let next = self.by_loader.get(&loader).copied().unwrap_or_else(|| {
            let g = self.groups.len() as u32;
            self.groups.push(LoaderGroup { loader, ..LoaderGroup::default() });
            self.per_class.push(HashMap::new());
            self.by_loader.insert(loader, g);
            g
        });
        if next != self.group {
            self.flush();
            self.group = next;
        }
        self.groups[next as usize].top_level += 1;
    }
}
