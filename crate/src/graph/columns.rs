//! Per-object columns, 2 bytes each (shallow sizes are in [`super::sparse`]).
//!
//! - [`ClassColumn`]: the class index of every object, as `u16` when the dump has fewer
//!   than 65,535 classes (every realistic dump), else `u32`. [`NO_CLASS`] is stored as the
//!   largest value of the width.
//! - [`SizeColumn`]: a size in units of the object alignment, as `u16`; the rare objects
//!   of 65,535 units or more (512 KiB with 8-byte alignment) are marked with `u16::MAX`
//!   and kept in a sorted side table. Retained sizes are stored this way
//!   ([`crate::retained::Retained`]).

use super::NO_CLASS;
use crate::error::Result;


pub enum ClassColumn {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl ClassColumn {
    /// `n` objects without a class, for a dump with `classes` classes.
    pub fn new(n: usize, classes: usize) -> Result<ClassColumn> {
        Ok(if classes < u16::MAX as usize {
            ClassColumn::Narrow(crate::alloc::try_filled(n, u16::MAX, "classes")?)
        } else {
            ClassColumn::Wide(crate::alloc::try_filled(n, NO_CLASS, "classes")?)
        })
    }

    pub fn len(&self) -> usize {
        match self {
            ClassColumn::Narrow(v) => v.len(),
            ClassColumn::Wide(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Class index of `obj`, or [`NO_CLASS`].
    #[inline(always)]
    pub fn get(&self, obj: u32) -> u32 {
        match self {
            ClassColumn::Narrow(v) => match v[obj as usize] {
                u16::MAX => NO_CLASS,
                c => c as u32,
            },
            ClassColumn::Wide(v) => v[obj as usize],
        }
    }

    #[inline(always)]
    pub fn set(&mut self, obj: u32, class: u32) {
        match self {
            // Narrow only when every class index is below u16::MAX; NO_CLASS truncates to it.
            ClassColumn::Narrow(v) => v[obj as usize] = class as u16,
            ClassColumn::Wide(v) => v[obj as usize] = class,
        }
    }

    /// Whether some object has no class.
    pub fn any_missing(&self) -> bool {
        match self {
            ClassColumn::Narrow(v) => v.contains(&u16::MAX),
            ClassColumn::Wide(v) => v.contains(&NO_CLASS),
        }
    }
}

pub struct SizeColumn {
    units: Vec<u16>,
    /// (object, units) of the objects marked `u16::MAX`, by object once finished.
    big: Vec<(u32, u64)>,
    align: u64,
}

impl SizeColumn {
    pub fn new(n: usize, align: u32) -> Result<SizeColumn> {
        Ok(SizeColumn { units: crate::alloc::try_filled(n, 0, "sizes")?, big: Vec::new(), align: align as u64 })
    }

    /// Sets the size of `obj` (once per object), in bytes (a multiple of the alignment).
    #[inline]
    pub fn set(&mut self, obj: u32, bytes: u64) {
        // A power of two but in odd dumps: a shift, not a division, per object.
        let units = if self.align.is_power_of_two() { bytes >> self.align.trailing_zeros() } else { bytes / self.align };
        if units < u16::MAX as u64 {
            self.units[obj as usize] = units as u16;
        } else {
            self.units[obj as usize] = u16::MAX;
            self.big.push((obj, units));
        }
    }

    /// A column from finished parts: `units` per object with `u16::MAX` for the objects
    /// listed in `big` as (object, units), sorted by object.
    pub fn from_units(units: Vec<u16>, big: Vec<(u32, u64)>, align: u64) -> SizeColumn {
        debug_assert!(big.windows(2).all(|w| w[0].0 < w[1].0));
        SizeColumn { units, big, align }
    }

    /// Makes the side table searchable; call after the last `set`.
    pub fn finish(&mut self) {
        self.big.sort_unstable();
        self.big.dedup_by_key(|e| e.0);
        self.big.shrink_to_fit();
    }

    /// Size of `obj` in bytes.
    #[inline(always)]
    pub fn get(&self, obj: u32) -> u64 {
        match self.units[obj as usize] {
            u16::MAX => self.big_units(obj) * self.align,
            u => u as u64 * self.align,
        }
    }

    #[cold]
    fn big_units(&self, obj: u32) -> u64 {
        self.big.binary_search_by_key(&obj, |e| e.0).map_or(0, |k| self.big[k].1)
    }

    pub fn memory_bytes(&self) -> usize {
        self.units.capacity() * 2 + self.big.capacity() * 16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_and_wide_classes() {
        let mut c = ClassColumn::new(3, 10).unwrap();
        assert!(matches!(c, ClassColumn::Narrow(_)));
        c.set(0, 7);
        c.set(2, 65_533);
        assert_eq!((c.get(0), c.get(1), c.get(2)), (7, NO_CLASS, 65_533));
        assert!(c.any_missing());
        let mut w = ClassColumn::new(2, 70_000).unwrap();
        w.set(0, 69_999);
        w.set(1, 3);
        assert_eq!((w.get(0), w.get(1)), (69_999, 3));
        assert!(!w.any_missing());
    }

    #[test]
    fn big_sizes_go_to_the_side_table() {
        let mut s = SizeColumn::new(4, 8).unwrap();
        s.set(3, 8 * 70_000);
        s.set(0, 24);
        s.set(1, 8 * 65_535);
        s.set(2, 8 * 65_534);
        s.finish();
        assert_eq!((s.get(0), s.get(1), s.get(2), s.get(3)), (24, 8 * 65_535, 8 * 65_534, 8 * 70_000));
    }

    #[test]
    fn sizes_in_units_of_any_alignment() {
        // A power of two (shifted) and not (divided): the same bytes back.
        for align in [8u32, 16, 24, 256] {
            let mut s = SizeColumn::new(3, align).unwrap();
            let a = align as u64;
            s.set(0, 3 * a);
            s.set(1, 70_000 * a);
            s.set(2, 0);
            s.finish();
            assert_eq!((s.get(0), s.get(1), s.get(2)), (3 * a, 70_000 * a, 0), "alignment {align}");
        }
    }
}
