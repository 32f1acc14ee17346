//! Which objects are waste, one bit per object, set while the waste report groups: every
//! member of a duplicate-string group but the group's first (the `java.lang.String`
//! objects), every array of a duplicate-array group but its first (primitive arrays), and
//! the backing array of every empty collection that has one (object arrays). The report's
//! top components ([`crate::report::components`]) count the marked objects of each
//! component's retained set; the kind of a mark is the kind of its object.
//!
//! Cost: one bit per object from the grouping (before the dominator tree) to the report,
//! about 0.13 bytes per object. When that cannot be allocated there are no marks and the
//! components go without their waste.

use crate::bits::BitSet;

/// One bit per object (empty: no marks were made).
#[derive(Debug, Clone, Default)]
pub struct Marks {
    bits: BitSet,
}

impl Marks {
    /// No object marked, for `objects` objects (empty when the bits cannot be allocated).
    pub fn new(objects: usize) -> Marks {
        Marks { bits: BitSet::new(objects, "the waste marks").unwrap_or_default() }
    }

    /// Whether marks were made at all.
    pub fn available(&self) -> bool {
        self.bits.capacity() > 0
    }

    #[inline]
    pub fn set(&mut self, v: u32) {
        if (v as usize) < self.bits.capacity() {
            self.bits.insert(v);
        }
    }

    /// The bits, handed over.
    pub fn into_bits(self) -> BitSet {
        self.bits
    }

    #[inline]
    pub fn has(&self, v: u32) -> bool {
        self.bits.contains(v)
    }
}

#[cfg(test)]
mod tests {
    use super::Marks;

    #[test]
    fn set_and_read() {
        let mut m = Marks::new(130);
        assert!(m.available());
        for v in [0, 63, 64, 129] {
            assert!(!m.has(v));
            m.set(v);
            assert!(m.has(v));
        }
        assert!(!m.has(1) && !m.has(128));
        // Beyond the objects: ignored, never marked.
        m.set(1000);
        assert!(!m.has(1000));
        assert!(!Marks::default().available());
    }
}
