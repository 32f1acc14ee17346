//! What the addresses say, gathered inside the passes' own loops (no per-object array).
//!
//! - [`ArrayEvidence`], in pass 1: for an array next to another object in the file, the
//!   one above it in memory, its *slack*: the distance to that object less its elements'
//!   bytes. A tight array's slack is its base offset plus alignment padding, a gap only
//!   adds to it, so over many lengths the smallest slack is the base offset (HotSpot
//!   writes each region's objects in address order, ZGC each page's in descending order).
//! - [`InstanceEvidence`], in pass 2: per class, the smallest distance from one of its
//!   instances to the next object (by address, [`IdMap::gap_after`](super::super::ids::IdMap::gap_after))
//!   and how many instances share it.

use crate::records::basic_type;

/// Slack values counted one by one; larger ones are gaps.
const SLACK: usize = 64;
/// Kinds tracked: primitive arrays by basic type (4..=11); object arrays at 4-byte
/// references in slot [`OBJECTS_4`], at 8-byte ones in [`OBJECTS_8`].
const KINDS: usize = 12;
pub const OBJECTS_4: usize = 0;
pub const OBJECTS_8: usize = 1;
const NONE: u8 = u8::MAX;

/// Pass 1's slack counts per kind of array (see the module docs).
#[derive(Clone)]
pub struct ArrayEvidence {
    /// The previous object record: its id, and when it was an array its length and kind.
    prev_id: u64,
    prev_len: u32,
    prev_kind: u8,
    /// Whether references may be 8 bytes (8-byte identifiers): object arrays are then
    /// counted both ways.
    wide_ids: bool,
    slack: [[u32; SLACK]; KINDS],
    /// Arrays whose elements alone do not fit before the next object (not addresses).
    short: [u32; KINDS],
    /// Arrays measured (a next object above them).
    seen: [u32; KINDS],
}

impl ArrayEvidence {
    pub fn new(id_size: u32) -> ArrayEvidence {
        ArrayEvidence {
            prev_id: 0,
            prev_len: 0,
            prev_kind: NONE,
            wide_ids: id_size == 8,
            slack: [[0; SLACK]; KINDS],
            short: [0; KINDS],
            seen: [0; KINDS],
        }
    }

    /// An instance record: closes the array before it, if any.
    #[inline(always)]
    pub fn instance(&mut self, id: u64) {
        if self.prev_kind != NONE && id > self.prev_id {
            self.measure(self.prev_kind, id - self.prev_id, self.prev_len);
        }
        self.prev_id = id;
        self.prev_kind = NONE;
    }

    /// An array record of HPROF basic type `ty` (OBJECT for an object array): measured
    /// against the record before it when that one lies above it (a region written in
    /// descending order, as ZGC writes its pages), else against the record after it.
    #[inline(always)]
    pub fn array(&mut self, id: u64, ty: u8, len: u32) {
        let kind = if ty == basic_type::OBJECT { OBJECTS_4 as u8 } else { ty.min(KINDS as u8 - 1) };
        if id > self.prev_id {
            if self.prev_kind != NONE {
                self.measure(self.prev_kind, id - self.prev_id, self.prev_len);
            }
        } else if id < self.prev_id {
            self.measure(kind, self.prev_id - id, len);
        }
        self.prev_id = id;
        self.prev_len = len;
        self.prev_kind = kind;
    }

    /// One array of `kind` and `len` elements, `d` bytes below the next object.
    #[inline]
    fn measure(&mut self, kind: u8, d: u64, len: u32) {
        // Far jumps are other regions.
        if d > 1 << 40 {
            return;
        }
        let kind = kind as usize;
        let len = len as u64;
        if kind == OBJECTS_4 {
            self.count(OBJECTS_4, d, len * 4);
            if self.wide_ids {
                self.count(OBJECTS_8, d, len * 8);
            }
        } else {
            let elem = basic_type::primitive_size(kind as u8).unwrap_or(1) as u64;
            self.count(kind, d, len * elem);
        }
    }

    #[inline]
    fn count(&mut self, kind: usize, d: u64, elements: u64) {
        self.seen[kind] += 1;
        match d.checked_sub(elements) {
            None => self.short[kind] += 1,
            Some(s) if (s as usize) < SLACK => self.slack[kind][s as usize] += 1,
            Some(_) => {}
        }
    }

    /// The base offset the arrays of `kind` show (see the module docs): the smallest
    /// slack that at least two arrays share, if it is a plausible base (8 to 32 bytes, a
    /// multiple of 4) and at most one array in a hundred has a smaller one (else the
    /// identifiers are not addresses). With it, how many arrays were measured.
    pub fn base(&self, kind: usize) -> Option<(u32, u32)> {
        let counts = &self.slack[kind];
        let s = counts.iter().position(|&n| n >= 2)?;
        let under = self.short[kind] as u64 + counts[..s].iter().map(|&n| n as u64).sum::<u64>();
        let plausible = (8..=32).contains(&s) && s % 4 == 0 && under * 100 <= self.seen[kind] as u64;
        plausible.then_some((s as u32, self.seen[kind]))
    }

    /// Arrays measured of `kind` whose elements did not fit before the next object.
    pub fn contradictions(&self, kind: usize) -> u32 {
        self.short[kind]
    }
}

/// Pass 2's per-class smallest distance from an instance to the next object.
pub struct InstanceEvidence {
    /// Per class: (smallest distance, instances at it); (u32::MAX, 0) when none measured.
    pub nearest: Vec<(u32, u32)>,
}

impl InstanceEvidence {
    pub fn new(classes: usize) -> InstanceEvidence {
        InstanceEvidence { nearest: vec![(u32::MAX, 0); classes] }
    }

    /// An instance of class `class` whose next object is `distance` bytes above it.
    #[inline(always)]
    pub fn instance(&mut self, class: u32, distance: u64) {
        if let Some(e) = self.nearest.get_mut(class as usize) {
            let d = distance.min(u32::MAX as u64 - 1) as u32;
            if d < e.0 {
                *e = (d, 1);
            } else if d == e.0 {
                e.1 += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::basic_type::{BYTE, LONG, OBJECT};

    #[test]
    fn the_smallest_shared_slack_is_the_base() {
        // byte[] of lengths 0..40 at a 12-byte base, 8-byte alignment, back to back, and
        // one followed by a gap.
        let mut e = ArrayEvidence::new(8);
        let mut at = 0x1000u64;
        for len in 0..40u32 {
            e.array(at, BYTE, len);
            at += (12 + len as u64).div_ceil(8) * 8 + if len == 7 { 64 } else { 0 };
        }
        e.instance(at);
        assert_eq!(e.base(BYTE as usize), Some((12, 40)));
        assert_eq!(e.base(LONG as usize), None, "no long[] measured");
        // Object arrays with 4-byte references, 16-byte base: the 8-byte reading is short.
        let mut e = ArrayEvidence::new(8);
        let mut at = 0x1000u64;
        for len in 0..40u32 {
            e.array(at, OBJECT, len);
            at += (16 + 4 * len as u64).div_ceil(8) * 8;
        }
        e.instance(at);
        assert_eq!(e.base(OBJECTS_4), Some((16, 40)));
        assert_eq!(e.base(OBJECTS_8), None);
        assert!(e.contradictions(OBJECTS_8) > 30);
    }

    #[test]
    fn descending_regions_measure_each_array_against_the_one_before() {
        // ZGC writes a page's objects from the top down: char[] at a 16-byte base.
        let mut at = 0x10_0000u64;
        let mut e = ArrayEvidence::new(8);
        e.instance(at);
        for len in 0..30u32 {
            at -= (16 + 2 * len as u64).div_ceil(8) * 8;
            e.array(at, basic_type::CHAR, len);
        }
        assert_eq!(e.base(basic_type::CHAR as usize), Some((16, 30)));
    }

    #[test]
    fn identifiers_that_are_not_addresses_give_no_base() {
        // Ids 8 apart whatever the length.
        let mut e = ArrayEvidence::new(8);
        for k in 0..100u64 {
            e.array(0x1000 + 8 * k, BYTE, (k % 50) as u32);
        }
        assert_eq!(e.base(BYTE as usize), None);
    }

    #[test]
    fn instances_keep_the_nearest_distance_and_its_count() {
        let mut e = InstanceEvidence::new(2);
        for d in [24, 16, 40, 16, 16] {
            e.instance(1, d);
        }
        assert_eq!(e.nearest, vec![(u32::MAX, 0), (16, 3)]);
    }
}
