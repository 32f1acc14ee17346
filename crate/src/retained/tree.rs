//! The dominator tree's children lists, stored as 2-byte differences.
//!
//! Terms: nodes are grouped in blocks of [`BLOCK`] consecutive indices; a block's *base*
//! is its first index. Every child of a node of a block is stored as its difference from
//! the block's base (not from the parent: so that a block's entries can be written and
//! read back before knowing which of its nodes each belongs to, and their sizes do not
//! depend on the order they are grouped in later). A collector lays objects out roughly depth
//! first, so children are mostly near their parent: on the `make-big.sh` 1 GB dump
//! about 98% of the differences fit the 15 bits an entry has.
//!
//! Layout, with `n` nodes and `r` reachable:
//!
//! - `units`: per node of a block in index order, its children as `u16` entries, in
//!   index order too. An entry's top bit marks the last child of its node; the other 15
//!   bits are the difference plus [`BIAS`], or [`ESCAPE`] followed by the child's index
//!   in three more entries of 15 bits (low bits first, top bit clear, so that only the
//!   ends of lists have it: skipping lists counts those bits, 8 entries at a time).
//!   About `2r` bytes.
//! - `nonleaf`: one bit per node, set when it has children (`n/8` bytes).
//! - `blocks`: per block where its entries start (`n/8` bytes); [`SPECIAL`] marks a
//!   block holding a list of [`LONG`] entries or more, found in the `long` side table
//!   with its start, length and child count, so that finding a list never reads more
//!   than `BLOCK` short lists.
//! - the virtual root's children (all the top-level dominators, mostly far apart) as a
//!   plain array.
//!
//! Finding a node's list reads its block's start and skips the lists of the nodes before
//! it in the block that have children (on average a few dozen entries); reading a list
//! is sequential. About 2.3 bytes per object on the benchmark dump (4 bytes per child
//! plus 1.25 per node before).

use crate::error::{Error, Result};

/// Nodes per block (the bits of one `nonleaf` word).
pub const BLOCK: usize = 32;
/// The low 15 bits of an entry.
const CODE: u16 = 0x7FFF;
/// The entry's bit marking its node's last child.
const LAST: u16 = 0x8000;
/// Code of a child given in full in the next two entries.
const ESCAPE: u16 = 0;
/// Added to a difference to make its code: differences from `1 - BIAS` to `CODE - BIAS`.
const BIAS: i64 = 1 << 14;
/// A block start's bit meaning "holds a long list" (see [`DomTree`]).
const SPECIAL: u32 = 1 << 31;
/// Entries from which a list is in the side table.
pub const LONG: usize = 256;

/// Entries (1 or 4) the child `v` of a node of the block starting at `base` takes.
#[inline]
pub(super) fn entry_units(base: u32, v: u32) -> usize {
    if code_of(base, v).is_some() {
        1
    } else {
        4
    }
}

#[inline]
fn code_of(base: u32, v: u32) -> Option<u16> {
    let c = v as i64 - base as i64 + BIAS;
    (1..=CODE as i64).contains(&c).then_some(c as u16)
}

/// Writes the entry of child `v` (a block at `base`) at `out[0..]`; returns its length.
#[inline]
pub(super) fn write_entry(out: &mut [u16], base: u32, v: u32, last: bool) -> usize {
    let flag = if last { LAST } else { 0 };
    match code_of(base, v) {
        Some(c) => {
            out[0] = c | flag;
            1
        }
        None => {
            out[0] = ESCAPE | flag;
            out[1] = v as u16 & CODE;
            out[2] = (v >> 15) as u16 & CODE;
            out[3] = (v >> 30) as u16;
            4
        }
    }
}

/// Reads the entry at `units[pos..]`: (child, last of its list, length).
#[inline]
pub(super) fn read_entry(units: &[u16], pos: usize, base: u32) -> (u32, bool, usize) {
    let e = units[pos];
    let last = e & LAST != 0;
    match e & CODE {
        ESCAPE => (units[pos + 1] as u32 | (units[pos + 2] as u32) << 15 | (units[pos + 3] as u32) << 30, last, 4),
        c => ((base as i64 + c as i64 - BIAS) as u32, last, 1),
    }
}

/// Marks the last entry of `seg`, entries written without [`LAST`] that form one list;
/// returns how many there are.
pub(super) fn end_list(seg: &mut [u16]) -> u32 {
    let (mut pos, mut last, mut count) = (0, 0, 0);
    while pos < seg.len() {
        last = pos;
        pos = after(seg, pos);
        count += 1;
    }
    seg[last] |= LAST;
    count
}

/// The children in a block's entries `seg` (block at `base`), in order, lists not told apart.
pub(super) fn entries(seg: &[u16], base: u32) -> impl Iterator<Item = u32> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        (pos < seg.len()).then(|| {
            let (v, _, len) = read_entry(seg, pos, base);
            pos += len;
            v
        })
    })
}

/// A list of [`LONG`] entries or more.
#[derive(Clone, Copy)]
pub(super) struct Long {
    pub node: u32,
    pub start: u32,
    pub units: u32,
    pub count: u32,
}

/// Children lists of the dominator tree, each in object index order (address order),
/// the virtual root's largest retained first. See the module docs for the layout.
pub struct DomTree {
    /// Node count without the virtual root; the virtual root is node `n`.
    pub n: u32,
    pub(super) nonleaf: Vec<u32>,
    pub(super) blocks: Vec<u32>,
    pub(super) units: Vec<u16>,
    pub(super) long: Vec<Long>,
    pub(super) top: Vec<u32>,
}

impl DomTree {
    pub fn root(&self) -> u32 {
        self.n
    }

    /// Whether `node` dominates nothing.
    #[inline]
    pub fn is_leaf(&self, node: u32) -> bool {
        if node == self.n {
            return self.top.is_empty();
        }
        self.nonleaf.get(node as usize / BLOCK).map_or(true, |w| w >> (node as usize % BLOCK) & 1 == 0)
    }

    /// The children of `node` in index order (the virtual root's largest retained first).
    pub fn children(&self, node: u32) -> Children<'_> {
        if node == self.n {
            return Children { inner: Inner::Slice(self.top.iter()) };
        }
        let base = node & !(BLOCK as u32 - 1);
        match self.list_start(node) {
            Some(pos) => {
                Children { inner: Inner::Stream { units: &self.units, pos, base, done: false, node, start: pos } }
            }
            None => Children {
                inner: Inner::Stream { units: &self.units, pos: 0, base, done: true, node: NO_NODE, start: 0 },
            },
        }
    }

    /// The children of `node` as [`children`](Self::children), its list looked up from
    /// `from` (where the list of a node at or before it starts) when both are in one
    /// block without long lists: a walk that enters a block's nodes in index order then
    /// skips each list once, not once per later node of the block.
    pub fn children_after(&self, node: u32, from: Resume) -> Children<'_> {
        if node == self.n {
            return self.children(node);
        }
        let cursor = self.cursor_after(node, from);
        if cursor.done() {
            return self.children(node);
        }
        let base = node & !(BLOCK as u32 - 1);
        let pos = cursor.pos as usize;
        Children { inner: Inner::Stream { units: &self.units, pos, base, done: false, node, start: pos } }
    }

    /// Where `node`'s list starts ([`DONE`] for a leaf), looked up as
    /// [`children_after`](Self::children_after) does. Not for the virtual root.
    #[inline]
    pub(super) fn cursor_after(&self, node: u32, from: Resume) -> Cursor {
        let (b, j) = (node as usize / BLOCK, node % BLOCK as u32);
        let near = node < self.n
            && from.node <= node
            && from.node as usize / BLOCK == b
            && self.blocks.get(b).is_some_and(|&raw| raw & SPECIAL == 0);
        if !near {
            // A list starts below 2^31 (see `block_start`).
            return Cursor { pos: self.list_start(node).map_or(DONE, |p| p as u32) };
        }
        let mask = self.nonleaf[b];
        if mask >> j & 1 == 0 {
            return Cursor { pos: DONE };
        }
        // The lists of the nodes from `from.node` up to `node`, `node`'s excluded.
        let between = mask & ((1u32 << j) - 1) & !((1u32 << (from.node % BLOCK as u32)) - 1);
        Cursor { pos: skip(&self.units, from.start as usize, between.count_ones()) as u32 }
    }

    /// The next child of `node` from `cursor` (for the virtual root, from
    /// [`Cursor::top`]); None once its list is read.
    #[inline]
    pub(super) fn next_child(&self, node: u32, cursor: &mut Cursor) -> Option<u32> {
        if node == self.n {
            let v = self.top.get(cursor.pos as usize).copied();
            cursor.pos += v.is_some() as u32;
            return v;
        }
        if cursor.pos == DONE {
            return None;
        }
        let (v, last, len) = read_entry(&self.units, cursor.pos as usize, node & !(BLOCK as u32 - 1));
        cursor.pos = if last { DONE } else { cursor.pos + len as u32 };
        Some(v)
    }

    /// The top-level dominators (the virtual root's children), largest first.
    pub fn top_level(&self) -> &[u32] {
        &self.top
    }

    /// How many children `node` has (reads at most [`LONG`] entries).
    pub fn child_count(&self, node: u32) -> usize {
        if node == self.n {
            return self.top.len();
        }
        if self.is_leaf(node) {
            return 0;
        }
        if self.blocks[node as usize / BLOCK] & SPECIAL != 0 {
            if let Ok(k) = self.long.binary_search_by_key(&node, |l| l.node) {
                return self.long[k].count as usize;
            }
        }
        self.children(node).count()
    }

    /// Where the list of `node` (not the root) starts in `units`; None for a leaf.
    #[inline]
    fn list_start(&self, node: u32) -> Option<usize> {
        let (b, j) = (node as usize / BLOCK, node as usize % BLOCK);
        let mask = *self.nonleaf.get(b)?;
        if mask >> j & 1 == 0 {
            return None;
        }
        let raw = self.blocks[b];
        let mut pos = (raw & !SPECIAL) as usize;
        let mut before = mask & ((1u32 << j) - 1);
        if raw & SPECIAL != 0 {
            let k = self.long.partition_point(|l| l.node < node);
            if self.long.get(k).is_some_and(|l| l.node == node) {
                return Some(self.long[k].start as usize);
            }
            // Start after the last long list before `node` in its block.
            if let Some(l) = k.checked_sub(1).map(|k| self.long[k]).filter(|l| l.node as usize / BLOCK == b) {
                pos = (l.start + l.units) as usize;
                before &= !(2u32 << (l.node as usize % BLOCK)).wrapping_sub(1);
            }
        }
        Some(skip(&self.units, pos, before.count_ones()))
    }

    pub fn memory_bytes(&self) -> usize {
        self.nonleaf.capacity() * 4
            + self.blocks.capacity() * 4
            + self.units.capacity() * 2
            + self.long.capacity() * 16
            + self.top.capacity() * 4
    }
}

/// The [`LAST`] bits of 4 entries, entry `i`'s as bit `i`: the 4 top bits (15, 31, 47
/// and 63 of the entries as one `u64`) moved to bits 60–63 by one multiplication, each
/// by its own power of two (the other products land on distinct bits below 60 or past
/// 63, so nothing carries into the four).
#[inline]
fn last_bits(entries: &[u16; 4]) -> u32 {
    let word = entries.iter().rev().fold(0u64, |w, &e| w << 16 | e as u64);
    ((word & 0x8000_8000_8000_8000).wrapping_mul(1 << 45 | 1 << 30 | 1 << 15 | 1) >> 60) as u32
}

/// The position after the `lists` lists starting at `pos` in `units`: after the
/// `lists`-th entry with [`LAST`] (escape payloads never have it).
#[inline]
pub(super) fn skip(units: &[u16], mut pos: usize, mut lists: u32) -> usize {
    while lists > 0 {
        if let Some(chunk) = units.get(pos..pos + 8) {
            let chunk: &[u16; 8] = chunk.try_into().expect("8 entries");
            let mut ends = last_bits(chunk[..4].try_into().expect("4 entries"))
                | last_bits(chunk[4..].try_into().expect("4 entries")) << 4;
            let found = ends.count_ones();
            if found < lists {
                lists -= found;
                pos += 8;
                continue;
            }
            // The `lists`-th end in this chunk.
            for _ in 1..lists {
                ends &= ends - 1;
            }
            return after(units, pos + ends.trailing_zeros() as usize);
        }
        if units[pos] & LAST != 0 {
            lists -= 1;
            if lists == 0 {
                return after(units, pos);
            }
        }
        pos += 1;
    }
    pos
}

/// The position after the entry whose first word is at `pos` (a list's last entry may
/// be written in full: its payload follows).
#[inline]
fn after(units: &[u16], pos: usize) -> usize {
    pos + if units[pos] & CODE == ESCAPE { 4 } else { 1 }
}

/// Sets a block start, marked [`SPECIAL`] or not; fails when the entries outgrow it.
pub(super) fn block_start(start: u64) -> Result<u32> {
    if start >= SPECIAL as u64 {
        return Err(Error::memory(format!("{start} dominator tree entries: too many")));
    }
    Ok(start as u32)
}

pub(super) fn mark_special(start: &mut u32) {
    *start |= SPECIAL;
}

/// No node: a leaf's stream or no list read yet.
const NO_NODE: u32 = u32::MAX;

/// Where a node's list starts in the entries, for [`DomTree::children_after`].
#[derive(Clone, Copy)]
pub struct Resume {
    node: u32,
    start: u32,
}

impl Default for Resume {
    fn default() -> Resume {
        Resume { node: NO_NODE, start: 0 }
    }
}

impl Resume {
    /// `node`'s list starts at `cursor` (read from it or not).
    #[inline]
    pub(super) fn at(node: u32, cursor: Cursor) -> Resume {
        Resume { node, start: cursor.pos }
    }
}

/// A list read one entry at a time ([`DomTree::next_child`]): 4 bytes, so that a walk
/// keeps one per node on its path.
#[derive(Clone, Copy)]
pub(super) struct Cursor {
    pos: u32,
}

impl Cursor {
    /// The virtual root's cursor: its first child.
    pub(super) fn top() -> Cursor {
        Cursor { pos: 0 }
    }

    /// Whether the list has no entry left (a leaf's from the start).
    #[inline]
    pub(super) fn done(self) -> bool {
        self.pos == DONE
    }
}

/// A cursor past its list's end (no list starts there: see `block_start`).
const DONE: u32 = u32::MAX;

/// The children of one node, decoded in order (see [`DomTree::children`]).
#[derive(Clone)]
pub struct Children<'a> {
    inner: Inner<'a>,
}

#[derive(Clone)]
enum Inner<'a> {
    /// `node`: whose list this is ([`NO_NODE`] for a leaf).
    /// `start`: where the list starts.
    Stream {
        units: &'a [u16],
        pos: usize,
        base: u32,
        done: bool,
        node: u32,
        start: usize,
    },
    Slice(std::slice::Iter<'a, u32>),
}

impl Children<'_> {
    /// Where this node's list starts (None for the virtual root's children or a leaf).
    pub fn resume(&self) -> Option<Resume> {
        match self.inner {
            Inner::Stream { start, node, .. } if node != NO_NODE => Some(Resume { node, start: start as u32 }),
            _ => None,
        }
    }
}

impl Iterator for Children<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match &mut self.inner {
            Inner::Stream { units, pos, base, done, .. } => {
                if *done {
                    return None;
                }
                let (v, last, len) = read_entry(units, *pos, *base);
                *pos += len;
                *done = last;
                Some(v)
            }
            Inner::Slice(it) => it.next().copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `last_bits` against the definition (each entry's top bit), for every pattern of the
    /// four top bits under varied low bits (all ones among them, where a carry would show).
    #[test]
    fn last_bits_against_definition() {
        let lows = [0u16, 0x7FFF, 0x1234, 0x0001, 0x4000, 0x7FFE];
        for pattern in 0..16u32 {
            for k in 0..lows.len() {
                let entries: [u16; 4] =
                    std::array::from_fn(|i| ((pattern >> i & 1) as u16 * LAST) | (lows[(k + i) % lows.len()] & CODE));
                let want = (0..4).fold(0, |w, i| w | ((entries[i] >> 15) as u32) << i);
                assert_eq!(last_bits(&entries), want, "entries {entries:04x?}");
            }
        }
    }
}
