//! HotSpot's field layout, by its rules: where the addresses cannot size a class, the
//! size the JVM's own layout algorithm gives it.
//!
//! HotSpot (JDK 15 and later, `FieldLayoutBuilder`) lays out a class's instance fields
//! after its super class's, filling the holes the super class left (the 4 bytes after
//! a 12-byte header among them): the class's primitive fields largest first, then its
//! references, each one in the smallest hole it fits (its alignment is its size), else
//! at the end. The instance size is the end rounded up to the object alignment. Static
//! fields live in the class's mirror (the `java.lang.Class` object) after the mirror's
//! own fields: references first, side by side, then the primitives, largest first, each
//! after the one before.
//!
//! HPROF lists the fields a class declares, not the ones the JVM injects
//! ([`INJECTED`]): those are added here by class name. `@Contended` padding is not in the
//! dump: a class whose measured size exceeds what these rules give it passes its size
//! on to its subclasses as one solid block ([`Shape::solid`]).

use crate::records::basic_type;

/// A class's instance layout: where its fields end and the holes before that end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shape {
    /// (offset, bytes) of each unused stretch below `end`, by offset.
    holes: Vec<(u32, u32)>,
    /// Where the last field ends (not yet aligned).
    pub end: u32,
}

impl Shape {
    /// The layout of a class without super class (`java.lang.Object`): the header alone.
    pub fn header(bytes: u32) -> Shape {
        Shape { holes: Vec::new(), end: bytes }
    }

    /// A layout known only by its size: no hole a subclass could fill.
    pub fn solid(bytes: u32) -> Shape {
        Shape::header(bytes)
    }

    /// The size of an instance: the end aligned to `alignment`.
    pub fn size(&self, alignment: u32) -> u32 {
        self.end.div_ceil(alignment.max(1)) * alignment.max(1)
    }

    /// Places one field of `bytes` (aligned to its size) as `FieldLayout::add` does: in
    /// the smallest hole it fits (of equal ones, the last), else at the end.
    fn place(&mut self, bytes: u32) {
        let bytes = bytes.max(1);
        let pad = |at: u32| (bytes - at % bytes) % bytes;
        let mut best: Option<usize> = None;
        for (i, &(at, len)) in self.holes.iter().enumerate().rev() {
            if len >= bytes + pad(at) && best.map_or(true, |b| len < self.holes[b].1) {
                best = Some(i);
            }
        }
        match best {
            Some(i) => {
                let (at, len) = self.holes[i];
                let p = pad(at);
                let after = (at + p + bytes, len - p - bytes);
                let mut keep = Vec::with_capacity(2);
                if p > 0 {
                    keep.push((at, p));
                }
                if after.1 > 0 {
                    keep.push(after);
                }
                self.holes.splice(i..=i, keep);
            }
            None => {
                let p = pad(self.end);
                if p > 0 {
                    self.holes.push((self.end, p));
                }
                self.end += p + bytes;
            }
        }
    }

    /// The layout of a subclass declaring `fields` (sizes in bytes, references at
    /// `ref_size`; `refs` of them references): primitives largest first, then the
    /// references.
    pub fn extend(&self, primitives: &mut [u32], refs: usize, ref_size: u32) -> Shape {
        let mut s = self.clone();
        primitives.sort_unstable_by(|a, b| b.cmp(a));
        for &p in primitives.iter() {
            s.place(p);
        }
        for _ in 0..refs {
            s.place(ref_size);
        }
        s
    }

    /// Where the static fields of a mirror end, the mirror's own fields taking `start`
    /// bytes: the references side by side first, then the primitives largest first, each
    /// after the one before (HotSpot's static layout starts its search at its last block,
    /// so it never fills a hole).
    pub fn statics_end(start: u32, primitives: &mut [u32], refs: usize, ref_size: u32) -> u32 {
        let append = |end: u32, bytes: u32| end.div_ceil(bytes.max(1)) * bytes.max(1) + bytes;
        let mut end = start;
        for _ in 0..refs {
            end = append(end, ref_size);
        }
        primitives.sort_unstable_by(|a, b| b.cmp(a));
        for &p in primitives.iter() {
            end = append(end, p);
        }
        end
    }
}

/// The fields HotSpot adds to some classes that HPROF does not list: (class, bytes of
/// each primitive field, references). From HotSpot's `*_INJECTED_FIELDS` (JDK 17–25; a
/// native pointer is 8 bytes on a 64-bit JVM, 4 on a 32-bit one, written here as 8 and
/// narrowed by [`injected`]).
pub const INJECTED: &[(&str, &[u32], usize)] = &[
    // klass, array_klass (pointers), oop_size, static_oop_field_count; protection_domain,
    // signers, source_file.
    ("java.lang.Class", &[8, 8, 4, 4], 3),
    ("java.lang.ClassLoader", &[8], 0),
    ("java.lang.String", &[1], 0),
    ("java.lang.Module", &[8], 0),
    ("java.lang.Thread", &[8, 2], 0),
    ("java.lang.invoke.MemberName", &[8], 0),
    ("java.lang.invoke.ResolvedMethodName", &[8], 1),
    ("java.lang.invoke.MethodHandleNatives$CallSiteContext", &[8, 8], 0),
    ("java.lang.StackFrameInfo", &[2], 0),
    ("java.lang.InternalError", &[1], 0),
];

/// The injected fields of the class named `name` (see [`INJECTED`]): primitive sizes
/// (pointers of `pointer` bytes) and the number of references.
pub fn injected(name: &str, pointer: u32) -> (Vec<u32>, usize) {
    match INJECTED.iter().find(|e| e.0 == name) {
        Some(&(_, prims, refs)) => (prims.iter().map(|&b| if b == 8 { pointer } else { b }).collect(), refs),
        None => (Vec::new(), 0),
    }
}

/// The declared fields of a class as [`Shape::extend`] takes them: primitive sizes, and
/// the number of references.
pub fn split_fields(types: impl Iterator<Item = u8>) -> (Vec<u32>, usize) {
    let mut prims = Vec::new();
    let mut refs = 0;
    for t in types {
        match basic_type::primitive_size(t) {
            Some(b) => prims.push(b),
            None if t == basic_type::OBJECT => refs += 1,
            None => {}
        }
    }
    (prims, refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_fill_the_header_gap_and_holes() {
        // A 12-byte header: an int goes at 12, a long at 16.
        let obj = Shape::header(12);
        let s = obj.extend(&mut [4, 8], 0, 4);
        assert_eq!((s.end, s.size(8)), (24, 24));
        // A long first: it cannot go at 12, so the byte takes the gap; the reference does
        // not fit in what is left (13..16) and goes at the end.
        let s = obj.extend(&mut [8, 1], 1, 4);
        assert_eq!(s.holes, vec![(13, 3)]);
        assert_eq!((s.end, s.size(8)), (28, 32));
        // A subclass fills its super class's holes first: the short at 14, the byte at 13.
        let sub = s.extend(&mut [2, 1], 0, 4);
        assert_eq!(sub.holes, vec![]);
        assert_eq!(sub.end, 28);
        // Compact headers: 8 bytes, a record of two ints is 16.
        assert_eq!(Shape::header(8).extend(&mut [4, 4], 0, 4).size(8), 16);
        // 16-byte alignment.
        assert_eq!(Shape::header(12).extend(&mut [4, 1], 0, 4).size(16), 32);
    }

    #[test]
    fn statics_put_references_first() {
        // A mirror of 96 bytes: a byte, then a reference: the reference at 96, the byte at 100.
        assert_eq!(Shape::statics_end(96, &mut [1], 1, 4), 101);
        // Longs after 4-byte references: aligned; the hole before the long stays empty
        // (java.lang.Byte's statics on JDK 17: a reference, a long, two ints, two bytes).
        assert_eq!(Shape::statics_end(96, &mut [8], 1, 4), 112);
        assert_eq!(Shape::statics_end(112, &mut [8, 4, 4, 1, 1], 1, 4), 138);
    }
}
