//! Per-object columns of 1 or 2 bytes (shallow sizes are in [`super::sparse`]).
//!
//! - [`ClassColumn`]: the class index of every object. Most objects of a dump belong to
//!   a few classes: when pass 1's sample says that the 254 most common classes hold
//!   nearly all of them, one byte per object names one of those (a palette), and the
//!   objects of the other classes are listed in a side table of (object, class) — 1 byte
//!   per object instead of 2. Should the table outgrow half a byte per object (a layout
//!   the sample missed), the column turns into the plain one below. Otherwise `u16` when the dump has fewer than 65,535
//!   classes (every realistic dump), else `u32`. [`NO_CLASS`] is stored as the largest
//!   value of the width.
//! - [`SizeColumn`]: a size in units of the object alignment, as `u16`; the rare objects
//!   of 65,535 units or more (512 KiB with 8-byte alignment) are marked with `u16::MAX`
//!   and kept in a sorted side table. Retained sizes are stored this way
//!   ([`crate::retained::Retained`]).

use super::NO_CLASS;
use crate::error::{Error, Result};

pub enum ClassColumn {
    Palette(Palette),
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

/// One byte per object: a palette code, [`ESCAPED`] (the class is in `escaped`) or
/// [`NONE`] (no class).
pub struct Palette {
    codes: Vec<u8>,
    /// Class of each code (256 entries: indexed by a byte without a bounds check).
    classes: Box<[u32; 256]>,
    /// Code of each class ([`ESCAPED`] for a class outside the palette).
    code_of: Vec<u8>,
    /// (object, class) of the objects marked [`ESCAPED`], in the order set until
    /// [`ClassColumn::finish`] sorts them (a later entry for an object wins).
    escaped: Vec<(u32, u32)>,
    /// `escaped` is ascending by object (searchable).
    sorted: bool,
}

const ESCAPED: u8 = 254;
/// A palette is used when at most one object in `RARE` is expected outside it.
const RARE: u64 = 64;
const NONE: u8 = 255;

fn escaped_memory() -> Error {
    Error::memory("out of memory for the classes of objects of rare classes".to_string())
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

    /// `n` objects without a class, given the estimated number of objects of each class:
    /// a palette of the most common classes when the others' side table is expected to
    /// take less than half a byte per object, else as [`ClassColumn::new`].
    pub fn with_weights(n: usize, weights: &[u64]) -> Result<ClassColumn> {
        let mut order: Vec<u32> = (0..weights.len() as u32).filter(|&c| weights[c as usize] > 0).collect();
        order.sort_unstable_by_key(|&c| (std::cmp::Reverse(weights[c as usize]), c));
        order.truncate(ESCAPED as usize);
        let total: u64 = weights.iter().sum();
        let covered: u64 = order.iter().map(|&c| weights[c as usize]).sum();
        // The side table is searched per object of a rare class: it must stay small.
        let rest = total - covered;
        if rest.saturating_mul(RARE) >= n as u64 {
            return ClassColumn::new(n, weights.len());
        }
        // Room for the estimate and a quarter more: sampled, it may fall a little short.
        let room = usize::try_from(rest + rest / 4).unwrap_or(usize::MAX).min(n);
        ClassColumn::palette(n, weights.len(), order, room)
    }

    /// `n` objects without a class, `palette` (at most 254 class indices, each below
    /// `classes`) stored in one byte, room for `room` objects of other classes.
    fn palette(n: usize, classes: usize, palette: Vec<u32>, room: usize) -> Result<ClassColumn> {
        debug_assert!(palette.len() <= ESCAPED as usize);
        let mut code_of = vec![ESCAPED; classes];
        for (k, &c) in palette.iter().enumerate() {
            code_of[c as usize] = k as u8;
        }
        let mut by_code = Box::new([NO_CLASS; 256]);
        by_code[..palette.len()].copy_from_slice(&palette);
        let mut escaped = Vec::new();
        escaped.try_reserve_exact(room).map_err(|_| escaped_memory())?;
        Ok(ClassColumn::Palette(Palette {
            codes: crate::alloc::try_filled(n, NONE, "classes")?,
            classes: by_code,
            code_of,
            escaped,
            sorted: true,
        }))
    }

    pub fn len(&self) -> usize {
        match self {
            ClassColumn::Palette(p) => p.codes.len(),
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
            ClassColumn::Palette(p) => match p.codes[obj as usize] {
                c if c < ESCAPED => p.classes[c as usize],
                NONE => NO_CLASS,
                _ => p.escaped(obj),
            },
            ClassColumn::Narrow(v) => match v[obj as usize] {
                u16::MAX => NO_CLASS,
                c => c as u32,
            },
            ClassColumn::Wide(v) => v[obj as usize],
        }
    }

    /// Calls `f` with every object whose class `wanted` marks (`wanted[class]`; classes
    /// past its end are not wanted), in index order, stopping at its first error (a
    /// caller collecting objects grows its list fallibly). A palette column tests each
    /// object's one-byte code against the wanted codes, without looking its class up.
    pub fn objects_of(
        &self,
        wanted: &[bool],
        mut f: impl FnMut(u32) -> crate::error::Result<()>,
    ) -> crate::error::Result<()> {
        let want = |c: u32| wanted.get(c as usize).copied().unwrap_or(false);
        match self {
            ClassColumn::Palette(p) => {
                let mut code = [false; 256];
                for (k, slot) in code.iter_mut().enumerate().take(ESCAPED as usize) {
                    *slot = want(p.classes[k]);
                }
                // Maybe: each is looked up in the side table.
                code[ESCAPED as usize] = true;
                for (v, &c) in p.codes.iter().enumerate() {
                    if code[c as usize] && (c != ESCAPED || want(p.escaped(v as u32))) {
                        f(v as u32)?;
                    }
                }
            }
            ClassColumn::Narrow(codes) => {
                for (v, &c) in codes.iter().enumerate() {
                    if c != u16::MAX && want(c as u32) {
                        f(v as u32)?;
                    }
                }
            }
            ClassColumn::Wide(codes) => {
                for (v, &c) in codes.iter().enumerate() {
                    if c != NO_CLASS && want(c) {
                        f(v as u32)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Asks the CPU for `obj`'s entry ahead of a [`get`](Self::get) (a walk reads it soon).
    #[inline(always)]
    pub fn prefetch(&self, obj: u32) {
        match self {
            ClassColumn::Palette(p) => crate::alloc::prefetch(p.codes.as_ptr().wrapping_add(obj as usize)),
            ClassColumn::Narrow(v) => crate::alloc::prefetch(v.as_ptr().wrapping_add(obj as usize)),
            ClassColumn::Wide(v) => crate::alloc::prefetch(v.as_ptr().wrapping_add(obj as usize)),
        }
    }

    /// Sets the class of `obj` (fails only when the side table of a palette cannot grow).
    #[inline(always)]
    pub fn set(&mut self, obj: u32, class: u32) -> Result<()> {
        match self {
            ClassColumn::Palette(p) => match p.code_of.get(class as usize) {
                Some(&c) if c < ESCAPED => p.codes[obj as usize] = c,
                Some(_) if p.outgrown() => {
                    self.unpack()?;
                    return self.set(obj, class);
                }
                Some(_) => return p.escape(obj, class),
                None => p.codes[obj as usize] = NONE,
            },
            // Narrow only when every class index is below u16::MAX; NO_CLASS truncates to it.
            ClassColumn::Narrow(v) => v[obj as usize] = class as u16,
            ClassColumn::Wide(v) => v[obj as usize] = class,
        }
        Ok(())
    }

    /// Makes the side table searchable and drops its unused room; call after the last
    /// `set` (`get` works before, more slowly for objects set out of order).
    pub fn finish(&mut self) {
        if let ClassColumn::Palette(p) = self {
            if !p.sorted {
                // Stable: of two entries for one object, the later (the one in force) stays last.
                p.escaped.sort_by_key(|e| e.0);
                let mut w = 0;
                for k in 0..p.escaped.len() {
                    if k + 1 < p.escaped.len() && p.escaped[k + 1].0 == p.escaped[k].0 {
                        continue;
                    }
                    p.escaped[w] = p.escaped[k];
                    w += 1;
                }
                p.escaped.truncate(w);
                p.sorted = true;
            }
            p.escaped.shrink_to_fit();
        }
    }

    /// Replaces a palette by the plain column (see [`Palette::outgrown`]).
    #[cold]
    fn unpack(&mut self) -> Result<()> {
        let ClassColumn::Palette(p) = self else { return Ok(()) };
        let mut plain = ClassColumn::new(p.codes.len(), p.code_of.len())?;
        self.finish();
        for obj in 0..self.len() as u32 {
            plain.set(obj, self.get(obj))?;
        }
        *self = plain;
        Ok(())
    }

    /// Whether some object has no class.
    pub fn any_missing(&self) -> bool {
        match self {
            ClassColumn::Palette(p) => p.codes.contains(&NONE),
            ClassColumn::Narrow(v) => v.contains(&u16::MAX),
            ClassColumn::Wide(v) => v.contains(&NO_CLASS),
        }
    }

    /// Heap bytes held (for memory accounting).
    pub fn memory_bytes(&self) -> usize {
        match self {
            ClassColumn::Palette(p) => p.codes.capacity() + p.escaped.capacity() * 8 + 256 * 4 + p.code_of.capacity(),
            ClassColumn::Narrow(v) => v.capacity() * 2,
            ClassColumn::Wide(v) => v.capacity() * 4,
        }
    }
}

impl Palette {
    /// Whether the side table is full and would grow past half a byte per object: the
    /// sample missed many objects of rare classes (a layout that evades it), and the
    /// plain column is smaller than the palette with its table.
    #[inline]
    fn outgrown(&self) -> bool {
        self.escaped.len() == self.escaped.capacity() && self.escaped.len() >= (self.codes.len() / 16).max(1024)
    }

    #[cold]
    fn escape(&mut self, obj: u32, class: u32) -> Result<()> {
        if self.escaped.len() == self.escaped.capacity() {
            // By an eighth: the sample's estimate fell short, by little.
            self.escaped.try_reserve_exact((self.escaped.len() / 8).max(1024)).map_err(|_| escaped_memory())?;
        }
        if self.escaped.last().is_some_and(|e| e.0 >= obj) {
            self.sorted = false;
        }
        self.escaped.push((obj, class));
        self.codes[obj as usize] = ESCAPED;
        Ok(())
    }

    #[cold]
    fn escaped(&self, obj: u32) -> u32 {
        let e = &self.escaped;
        let found =
            if self.sorted { e.binary_search_by_key(&obj, |x| x.0).ok() } else { e.iter().rposition(|x| x.0 == obj) };
        found.map_or(NO_CLASS, |k| e[k].1)
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
        let units =
            if self.align.is_power_of_two() { bytes >> self.align.trailing_zeros() } else { bytes / self.align };
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

    /// The stored code of `obj`'s size: its units, or `u16::MAX` for 65,535 units and
    /// more. Ordered as the sizes are, except that the large ones share one code.
    #[inline(always)]
    pub fn code(&self, obj: u32) -> u16 {
        self.units[obj as usize]
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
        c.set(0, 7).unwrap();
        c.set(2, 65_533).unwrap();
        assert_eq!((c.get(0), c.get(1), c.get(2)), (7, NO_CLASS, 65_533));
        let objects_of = |c: &ClassColumn, wanted: &[bool]| {
            let mut out = vec![];
            c.objects_of(wanted, |v| {
                out.push(v);
                Ok(())
            })
            .unwrap();
            out
        };
        let mut wanted = vec![false; 65_534];
        wanted[7] = true;
        assert_eq!(objects_of(&c, &wanted), vec![0]);
        wanted[65_533] = true;
        assert_eq!(objects_of(&c, &wanted), vec![0, 2]);
        assert_eq!(objects_of(&c, &wanted[..8]), vec![0]);
        // The first error ends the walk and is returned.
        let mut calls = 0;
        let stopped = c.objects_of(&wanted, |_| {
            calls += 1;
            Err(crate::error::Error::memory("full"))
        });
        assert!(stopped.is_err() && calls == 1);
        assert!(c.any_missing());
        let mut w = ClassColumn::new(2, 70_000).unwrap();
        w.set(0, 69_999).unwrap();
        w.set(1, 3).unwrap();
        assert_eq!((w.get(0), w.get(1)), (69_999, 3));
        let mut wanted = vec![false; 70_000];
        wanted[3] = true;
        assert_eq!(objects_of(&w, &wanted), vec![1]);
        assert!(!w.any_missing());
    }

    /// The palette's choice: the most common classes get a code, a dump whose objects
    /// spread over many classes gets two bytes per object.
    #[test]
    fn palette_only_when_few_objects_fall_outside() {
        // 300 classes: 254 codes, 46 classes of one object each among 10,000.
        let mut weights = vec![1u64; 300];
        weights[0] = 10_000;
        let c = ClassColumn::with_weights(10_000, &weights).unwrap();
        let ClassColumn::Palette(p) = &c else { panic!("a palette") };
        assert_eq!(p.classes[0], 0, "the most common class first");
        assert_eq!(p.code_of.iter().filter(|&&k| k == ESCAPED).count(), 46);
        // 1,000 classes of 10 objects each: 7,460 of 10,000 objects would be listed.
        let c = ClassColumn::with_weights(10_000, &[10; 1_000]).unwrap();
        assert!(matches!(c, ClassColumn::Narrow(_)));
        let c = ClassColumn::with_weights(10, &vec![1; 70_000]).unwrap();
        assert!(matches!(c, ClassColumn::Wide(_)));
    }

    use proptest::prelude::*;

    proptest! {
        /// Against a plain Vec of class indices: objects set in any order, some twice,
        /// some never (no class), with classes in and out of the palette (weights
        /// unrelated to the objects set), read before and after `finish`.
        #[test]
        fn palette_matches_a_plain_model(
            sets in proptest::collection::vec((0u32..300, 0u32..600), 0..600),
            weights in proptest::collection::vec(0u64..50, 1..600),
            objects in 300usize..400,
        ) {
            let mut weights = weights;
            weights.resize(600, 0);
            let mut order: Vec<u32> = (0..weights.len() as u32).filter(|&k| weights[k as usize] > 0).collect();
            order.sort_unstable_by_key(|&k| (std::cmp::Reverse(weights[k as usize]), k));
            order.truncate(ESCAPED as usize);
            let mut c = ClassColumn::palette(objects, weights.len(), order, 0).unwrap();
            let mut want = vec![NO_CLASS; objects];
            for &(obj, class) in &sets {
                c.set(obj, class).unwrap();
                want[obj as usize] = class;
                prop_assert_eq!(c.get(obj), class);
            }
            for (v, &w) in want.iter().enumerate() {
                prop_assert_eq!(c.get(v as u32), w, "object {} before finish", v);
            }
            c.finish();
            for (v, &w) in want.iter().enumerate() {
                prop_assert_eq!(c.get(v as u32), w, "object {} after finish", v);
            }
            // The objects of some classes (every third, in and out of the palette).
            let wanted: Vec<bool> = (0..500).map(|k| k % 3 == 0).collect();
            let mut found = vec![];
            c.objects_of(&wanted, |v| {
                found.push(v);
                Ok(())
            })
            .unwrap();
            let expected: Vec<u32> = (0..objects as u32).filter(|&v| want[v as usize] != NO_CLASS && want[v as usize] < 500 && want[v as usize] % 3 == 0).collect();
            prop_assert_eq!(found, expected);
            prop_assert_eq!(c.any_missing(), want.contains(&NO_CLASS));
            prop_assert_eq!(c.len(), objects);
        }
    }

    /// A layout the sample missed: far more objects of classes outside the palette than
    /// its side table was sized for. The palette never takes more than the plain column
    /// would (plus its fixed tables), then becomes it, keeping every class set so far.
    #[test]
    fn outgrown_palette_becomes_the_plain_column() {
        let n = 40_000usize;
        let classes = 600;
        let mut c = ClassColumn::palette(n, classes, (0..254).collect(), 0).unwrap();
        let mut want = vec![NO_CLASS; n];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut was_palette = 0;
        for k in 0..n {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let (obj, class) = ((seed % n as u64) as u32, (seed >> 40) as u32 % classes as u32);
            c.set(obj, class).unwrap();
            want[obj as usize] = class;
            if matches!(c, ClassColumn::Palette(_)) {
                was_palette = k;
                assert!(
                    c.memory_bytes() <= 2 * n + 256 * 4 + classes + 8 * 1024,
                    "after {k} sets: {} bytes",
                    c.memory_bytes()
                );
            }
            if k % 4_000 == 0 {
                assert!((0..n).all(|v| c.get(v as u32) == want[v]), "after {k} sets");
            }
        }
        // 346 of 600 classes are outside (58% of sets escape); the table grows by 1,024
        // entries and is full at 3,072 past n/16 = 2,500: after about 5,300 sets.
        assert!((4_500..6_500).contains(&was_palette), "unpacked after {was_palette} sets");
        assert!(matches!(c, ClassColumn::Narrow(_)));
        c.finish();
        assert!((0..n).all(|v| c.get(v as u32) == want[v]));
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
