//! The dominator tree as a tree, and retained sizes.
//!
//! The retained size of an object is the total shallow size of the objects it dominates
//! (itself included): what would be freed if it were freed. It is summed bottom-up over
//! the dominator tree without a walk: a node is finished once its last child is, so
//! scanning the nodes (from the last index down) and, after each leaf, climbing through the parents
//! it completes visits children before parents with only a per-node count of unfinished
//! children (never recursion, and no order array). The virtual root (index `n` here)
//! retains every reachable object.
//!
//! Memory, with `n` objects and `r` of them reachable:
//!
//! - [`DomTree`]: the children grouped by parent, each a 2-byte difference from its
//!   parent's block (a few written in full in 8 bytes), a bit per node telling whether
//!   it has children and a start per block of [`BLOCK`] nodes: about `2r + n/4` bytes
//!   (see [`tree`]).
//! - [`Retained`]: `2n` bytes, in units of the object alignment; values of 65,535 units
//!   or more (512 KiB with 8-byte alignment; a few thousand objects near the top of the
//!   tree) live in a sorted side table.
//!
//! While building: a count byte per node and the sums (`3n` bytes) while summing, then
//! the retained sizes and the tree's arrays (the entries written once into their
//! blocks, then sorted in place block by block). The immediate dominators the tree is
//! built from are packed first ([`idom`]: about 1.1 bytes per object on the 1 GB
//! benchmark dump instead of 4), and every pass here reads them packed.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::graph::columns::SizeColumn;
use crate::dominators::{UNREACHABLE, VIRTUAL_ROOT};
use crate::error::{Error, Result};

pub mod idom;
pub mod tree;
pub use idom::{Idom, IdomRead};
pub use tree::{Children, DomTree, Resume, BLOCK};

/// A count byte meaning "in the side map".
const MANY: u8 = u8::MAX - 1;
/// A pending count byte meaning "finished" (while summing).
const DONE: u8 = u8::MAX;

/// Retained size of every node (the virtual root, node `n`, retains everything), stored
/// like shallow sizes: 16-bit alignment units with a side table.
pub struct Retained(SizeColumn);

impl Retained {
    /// Retained bytes of `node` (`n` = the virtual root).
    #[inline]
    pub fn get(&self, node: u32) -> u64 {
        self.0.get(node)
    }

    pub fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
}

/// Parent of `v` in the tree with the virtual root as node `n`; None if unreachable.
#[inline]
pub fn tree_parent<I: IdomRead + ?Sized>(idom: &I, v: u32) -> Option<u32> {
    match idom.at(v) {
        UNREACHABLE => None,
        VIRTUAL_ROOT => Some(idom.count() as u32),
        p => Some(p),
    }
}


/// A multiplicative hash for node indices: the side maps below take one update per
/// child of a large node (millions on a big dump), where SipHash costs too much.
#[derive(Default)]
struct NodeHasher(u64);

impl Hasher for NodeHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, v: u32) {
        self.0 = (v as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type NodeMap<V> = HashMap<u32, V, BuildHasherDefault<NodeHasher>>;

/// Per-node counts in a byte, the rare large ones in a map.
struct Counts {
    small: Vec<u8>,
    large: NodeMap<u32>,
}

impl Counts {
    /// Counts `v` down by one (it is above zero); returns what is left.
    #[inline]
    fn decrement(&mut self, v: u32) -> u32 {
        match &mut self.small[v as usize] {
            c @ ..MANY => {
                *c -= 1;
                *c as u32
            }
            _ => {
                let left = self.get(v) - 1;
                self.set(v, left);
                left
            }
        }
    }

    #[inline]
    fn get(&self, v: u32) -> u32 {
        match self.small[v as usize] {
            MANY => self.large[&v],
            c => c as u32,
        }
    }

    #[inline]
    fn set(&mut self, v: u32, c: u32) {
        if c < MANY as u32 {
            if self.small[v as usize] == MANY {
                self.large.remove(&v);
            }
            self.small[v as usize] = c as u8;
        } else {
            self.small[v as usize] = MANY;
            self.large.insert(v, c);
        }
    }
}

/// Retained units being summed: `u16` with the large values in a map.
struct Sums {
    units: Vec<u16>,
    big: NodeMap<u64>,
}

impl Sums {
    /// Adds `units` to `v`'s sum.
    #[inline]
    fn add(&mut self, v: u32, units: u64) {
        let u = &mut self.units[v as usize];
        match *u as u64 + units {
            t if t < u16::MAX as u64 => *u = t as u16,
            _ => self.set(v, self.get(v) + units),
        }
    }

    #[inline]
    fn get(&self, v: u32) -> u64 {
        match self.units[v as usize] {
            u16::MAX => self.big[&v],
            u => u as u64,
        }
    }

    #[inline]
    fn set(&mut self, v: u32, total: u64) {
        if total < u16::MAX as u64 {
            self.units[v as usize] = total as u16;
        } else {
            self.units[v as usize] = u16::MAX;
            self.big.insert(v, total);
        }
    }
}

/// Calls `f(v, immediate dominator of v)` for every object in index order, the packed
/// dominators decoded a run at a time.
fn each_parent<I: IdomRead + ?Sized>(idom: &I, mut f: impl FnMut(u32, u32)) {
    const RUN: usize = 256;
    let n = idom.count();
    let mut run = [0u32; RUN];
    for start in (0..n).step_by(RUN) {
        let run = &mut run[..RUN.min(n - start)];
        idom.decode(start as u32, run);
        for (k, &p) in run.iter().enumerate() {
            f((start + k) as u32, p);
        }
    }
}

/// Builds the tree and computes retained sizes. `shallow(v)` must be a multiple of
/// `align` (MAT's sizes are aligned); it is called exactly once for every reachable
/// object and never for another, so that a caller can total per-class figures in it
/// instead of in a pass of its own.
///
/// Four passes over the nodes: count each node's children (and the
/// entries each block's lists take); sum retained sizes bottom-up, counting those counts
/// down; write every child into its parent's block; then per block group the entries by
/// parent, each list in index order (callers that show a list largest first sort it
/// then: see `Analysis::dominated_by_size`). Memory while building: the counts (a
/// byte per node) while summing, then the tree's own arrays and one block's entries.
pub fn compute<I: IdomRead + ?Sized>(idom: &I, align: u32, mut shallow: impl FnMut(u32) -> u64) -> Result<(DomTree, Retained)> {
    let n = idom.count();
    if n >= u32::MAX as usize - 1 {
        return Err(Error::memory(format!("{n} objects: too many for the dominator tree")));
    }
    let root = n as u32;
    let align = align.max(1) as u64;
    // A shift, not a division, per object (the alignment is a power of two but in odd dumps).
    let shift = align.trailing_zeros();
    let units_of = |bytes: u64| if align.is_power_of_two() { bytes >> shift } else { bytes / align };
    let nb = n.div_ceil(BLOCK);

    // Children per node (the virtual root's aside), which nodes have children, and the
    // entries of each block's lists.
    let mut pending = Counts { small: crate::alloc::try_filled(n, 0u8, "retained sizes")?, large: NodeMap::default() };
    let mut nonleaf = crate::alloc::try_filled(nb, 0u32, "the dominator tree")?;
    let mut blocks = crate::alloc::try_filled(nb + 1, 0u32, "the dominator tree")?;
    let mut top = 0usize;
    each_parent(idom, |v, p| {
        let p = match p {
            // Finished already for the sums' scan (nothing counts it up: an unreachable
            // node dominates nothing).
            UNREACHABLE => return pending.small[v as usize] = DONE,
            VIRTUAL_ROOT => return top += 1,
            p => p,
        };
        let c = &mut pending.small[p as usize];
        if *c < MANY - 1 {
            *c += 1;
        } else {
            let c = pending.get(p);
            pending.set(p, c + 1);
        }
        let b = p as usize / BLOCK;
        nonleaf[b] |= 1 << (p as usize % BLOCK);
        blocks[b] = blocks[b].saturating_add(tree::entry_units((b * BLOCK) as u32, v) as u32);
    });

    // Retained sizes: after each finished node, climb to its parent while that finishes
    // it, counting down its unfinished children in `pending`; DONE marks the finished
    // nodes, so that the scan does not finish again a node that a climb finished. The
    // scan goes down from the last index: a collector mostly places an object's
    // dominator before it, so most nodes are finished when the scan reaches them and
    // few climbs are taken.
    let mut sums = Sums { units: crate::alloc::try_filled(n + 1, 0u16, "retained sizes")?, big: NodeMap::default() };
    let mut everything = 0u64;
    for v in (0..n as u32).rev() {
        if pending.small[v as usize] != 0 {
            continue;
        }
        let mut x = v;
        loop {
            let s = sums.get(x) + units_of(shallow(x));
            sums.set(x, s);
            pending.small[x as usize] = DONE;
            let p = match tree_parent(idom, x) {
                Some(p) if p != root => p,
                _ => {
                    everything += s;
                    break;
                }
            };
            sums.add(p, s);
            if pending.decrement(p) != 0 {
                break;
            }
            x = p;
        }
    }
    drop(pending);
    sums.set(root, everything);
    let mut big: Vec<(u32, u64)> = sums.big.into_iter().collect();
    big.sort_unstable();
    let retained = Retained(SizeColumn::from_units(sums.units, big, align));

    // Where each block's entries start.
    let mut at = 0u64;
    for slot in blocks.iter_mut() {
        let len = *slot as u64;
        *slot = tree::block_start(at)?;
        at += len;
    }
    let mut units = crate::alloc::try_filled(blocks[nb] as usize, 0u16, "the dominator tree")?;
    let mut top_level: Vec<u32> = crate::alloc::try_with_capacity(top, "the dominator tree")?;
    // Children into their parents' blocks, in index order. The block starts serve as the
    // fill cursors: each ends where the next block starts, so shifting them by one block
    // gives the starts back.
    each_parent(idom, |v, p| {
        let p = match p {
            UNREACHABLE => return,
            VIRTUAL_ROOT => return top_level.push(v),
            p => p,
        };
        let b = p as usize / BLOCK;
        let at = blocks[b] as usize;
        blocks[b] += tree::write_entry(&mut units[at..], (b * BLOCK) as u32, v, false) as u32;
    });
    blocks.copy_within(..nb, 1);
    blocks[0] = 0;
    top_level.sort_unstable_by_key(|&v| (std::cmp::Reverse(retained.get(v)), v));

    // Per block, the entries grouped by parent, each list staying in index order (the
    // fill wrote them so): the parent read again, unless the block has one. One `u64` key
    // per entry, the parent's place in the block above the child. The usual small block
    // is grouped with a counting sort (stable) into a second key array; a block of many
    // entries sorts its keys in place, so that they take 8 bytes each.
    const KEYED: usize = 1 << 16;
    let mut keys: Vec<u64> = Vec::new();
    let mut grouped: Vec<u64> = Vec::new();
    let mut long = Vec::new();
    for b in 0..nb {
        let (a, e) = (blocks[b] as usize, blocks[b + 1] as usize);
        if a == e {
            continue;
        }
        let base = (b * BLOCK) as u32;
        let seg = &mut units[a..e];
        if nonleaf[b].count_ones() == 1 {
            // One parent: its list is the block's entries, in order already.
            let count = tree::end_list(seg);
            if seg.len() >= tree::LONG {
                long.push(tree::Long { node: base + nonleaf[b].trailing_zeros(), start: a as u32, units: seg.len() as u32, count });
                tree::mark_special(&mut blocks[b]);
            }
            continue;
        }
        let sorted: &[u64] = {
            keys.clear();
            keys.try_reserve(seg.len()).map_err(|_| crate::alloc::alloc_error(seg.len() * 8, "the dominator tree"))?;
            keys.extend(tree::entries(seg, base).map(|v| sort_key(tree_parent(idom, v).map_or(0, |p| p.wrapping_sub(base)) % BLOCK as u32, v)));
            if keys.windows(2).all(|w| w[0] <= w[1]) {
                &keys
            } else if seg.len() <= KEYED {
                let mut ends = [0usize; BLOCK];
                for &k in &keys {
                    ends[key_parent(k) as usize] += 1;
                }
                let mut at = 0;
                for end in ends.iter_mut() {
                    at += *end;
                    *end = at;
                }
                grouped.clear();
                grouped.resize(keys.len(), 0);
                for &k in keys.iter().rev() {
                    let j = key_parent(k) as usize;
                    ends[j] -= 1;
                    grouped[ends[j]] = k;
                }
                &grouped
            } else {
                keys.sort_unstable();
                &keys
            }
        };
        if write_lists(seg, base, a, sorted.iter().map(|&k| (key_parent(k), k as u32)), &mut long) {
            tree::mark_special(&mut blocks[b]);
        }
    }
    drop(keys);
    drop(grouped);
    let tree = DomTree { n: n as u32, nonleaf, blocks, units, long, top: top_level };
    Ok((tree, retained))
}

/// The sort key of child `v` of the node at `j` in its block: ascending keys group a
/// block's lists, each in index order.
#[inline]
fn sort_key(j: u32, v: u32) -> u64 {
    (j as u64) << 32 | v as u64
}

#[inline]
fn key_parent(k: u64) -> u32 {
    (k >> 32) as u32
}

/// Writes a block's lists back, from its (parent's place in the block, child) pairs
/// grouped by parent, marking each list's last entry; the long lists go into `long`.
/// Returns whether there was one. `at` is where the block's entries start.
fn write_lists(seg: &mut [u16], base: u32, at: usize, sorted: impl Iterator<Item = (u32, u32)>, long: &mut Vec<tree::Long>) -> bool {
    let mut sorted = sorted.peekable();
    let (mut pos, mut start, mut count, mut any) = (0usize, 0usize, 0u32, false);
    while let Some((j, v)) = sorted.next() {
        let last = sorted.peek().map_or(true, |&(k, _)| k != j);
        pos += tree::write_entry(&mut seg[pos..], base, v, last);
        count += 1;
        if last {
            if pos - start >= tree::LONG {
                long.push(tree::Long { node: base + j, start: (at + start) as u32, units: (pos - start) as u32, count });
                any = true;
            }
            start = pos;
            count = 0;
        }
    }
    any
}

/// MAT's quick retained size per class ("retained heap" of the histogram, a lower bound):
/// the sum of the retained sizes of the class's objects that have no object of the same
/// class above them in the dominator tree. `class_of` may map objects to any groups
/// (packages, loaders) numbered below `classes`; other values are in no group.
///
/// A depth-first walk of the tree without recursion: entering a node reads its whole
/// list once onto a stack of children still to visit (one segment per level), so each
/// list is looked up and decoded once. The order of siblings does not matter here, so
/// every node has its children walked in index order (as the lists are kept), which is
/// address order: as a collector lays objects out roughly depth first, that makes the
/// walk's reads of the per-object columns and of the lists nearly sequential.
pub fn class_min_retained(tree: &DomTree, retained: &Retained, class_of: impl Fn(u32) -> u32, classes: usize) -> Result<Vec<u64>> {
    const WHAT: &str = "the class minimum walk";
    let mut sum = crate::alloc::try_filled(classes, 0u64, WHAT)?;
    let mut active = crate::alloc::try_filled(classes, 0u32, WHAT)?;
    let class = |v: u32| Some(class_of(v) as usize).filter(|&c| c < classes);
    // Children still to visit, each level's after its parent's; frames (node's group or
    // NONE, where its children start in `todo`), one per level. Entering a node counts
    // its class as active, leaving it undoes that.
    const NONE: usize = usize::MAX;
    let mut todo: Vec<u32> = Vec::new();
    let mut frames: Vec<(usize, u32)> = Vec::new();
    // The end of the list read last: the walk mostly enters a block's nodes in index
    // order, and then looks each list up from the one before.
    let mut resume = Resume::default();
    let mut push = |todo: &mut Vec<u32>, frames: &mut Vec<(usize, u32)>, v: u32, c: usize| -> Result<()> {
        let at = todo.len();
        crate::alloc::try_push(frames, (c, at as u32), WHAT)?;
        let mut kids = tree.children_after(v, resume);
        for x in kids.by_ref() {
            crate::alloc::try_push(todo, x, WHAT)?;
        }
        if let Some(r) = kids.resume() {
            resume = r;
        }
        // Popped from the end: the lowest index first (the lists are in index order but
        // the virtual root's, kept largest first; a reversed run sorts in one pass).
        todo[at..].sort_unstable_by(|a, b| b.cmp(a));
        Ok(())
    };
    push(&mut todo, &mut frames, tree.root(), NONE)?;
    while let Some(&(c, start)) = frames.last() {
        if todo.len() > start as usize {
            let x = todo.pop().expect("a child to visit");
            // Objects without a class have no histogram row.
            let c = class(x);
            if let Some(c) = c {
                if active[c] == 0 {
                    sum[c] += retained.get(x);
                }
            }
            if tree.is_leaf(x) {
                // Entered and left at once (most nodes): no frame.
                continue;
            }
            if let Some(c) = c {
                active[c] += 1;
            }
            push(&mut todo, &mut frames, x, c.unwrap_or(NONE))?;
        } else {
            frames.pop();
            if c != NONE {
                active[c] -= 1;
            }
        }
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pseudo-random number below `m` (xorshift), for the generated trees.
    pub(crate) fn xorshift(seed: &mut u64, m: u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed % m
    }

    #[test]
    fn retained_and_class_minimum() {
        // 0 → 1 → 2, 0 → 3; 4 unreachable; classes: 0:A 1:B 2:B 3:A
        let idom = vec![VIRTUAL_ROOT, 0, 1, 0, UNREACHABLE];
        let sizes = [10u64, 20, 30, 40, 50];
        let (tree, retained) = compute(&idom, 10, |v| sizes[v as usize]).unwrap();
        assert_eq!((0..6).map(|v| retained.get(v)).collect::<Vec<_>>(), vec![100, 50, 30, 40, 0, 100]);
        assert_eq!(tree.children(5).collect::<Vec<_>>(), [0]);
        assert_eq!(tree.children(0).collect::<Vec<_>>(), [1, 3]);
        let class = [0u32, 1, 1, 0, 0];
        let min = class_min_retained(&tree, &retained, |v| class[v as usize], 2).unwrap();
        assert_eq!(min, vec![100, 50]);
    }

    #[test]
    fn wide_nodes_and_big_child_counts() {
        // Node 0 under the root has 70,000 children (past the keyed sort and the child
        // count byte), node 1 has 300.
        let n = 70_302usize;
        let mut idom = vec![0u32; n];
        idom[0] = VIRTUAL_ROOT;
        idom[1] = VIRTUAL_ROOT;
        idom[n - 300..].fill(1);
        let size = |v: u32| 8 * (1 + (v as u64 * 7) % 5);
        let (tree, retained) = compute(&idom, 8, size).unwrap();
        let kids: Vec<u32> = tree.children(0).collect();
        assert_eq!(kids.len(), 70_000);
        assert_eq!(tree.child_count(0), 70_000);
        assert_eq!(kids, (2..n as u32 - 300).collect::<Vec<_>>());
        assert_eq!(tree.children(1).count(), 300);
        assert_eq!(tree.child_count(1), 300);
        assert_eq!(retained.get(1), size(1) + (n as u32 - 300..n as u32).map(size).sum::<u64>());
        assert_eq!(retained.get(n as u32), (0..n as u32).map(size).sum::<u64>());
        assert_eq!(tree.children(n as u32).collect::<Vec<_>>(), [0, 1]);
    }

    /// Against the definition, walked up from every object: trees with wide nodes (their
    /// children walked from a sorted copy, nested) and narrow ones, a few classes.
    #[test]
    fn class_minimum_against_brute_force() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut rand = |m: u64| xorshift(&mut seed, m);
        for round in 0..20 {
            let n = 500 + 300 * round as usize;
            // Parents before children; nodes 1, 2 and 7 (under 1) are wide; some unreachable.
            let idom: Vec<u32> = (0..n as u32)
                .map(|v| match (v, rand(10)) {
                    (0, _) => VIRTUAL_ROOT,
                    (7, _) => 1,
                    (_, 0) => UNREACHABLE,
                    (1..=7, _) | (_, 1) => VIRTUAL_ROOT,
                    (_, 2 | 3) => [1, 2, 7][rand(3) as usize],
                    _ => rand(v as u64) as u32,
                })
                .collect();
            // A node under an unreachable one is unreachable too.
            let mut idom = idom;
            for v in 0..n {
                let p = idom[v];
                if p != VIRTUAL_ROOT && p != UNREACHABLE && idom[p as usize] == UNREACHABLE {
                    idom[v] = UNREACHABLE;
                }
            }
            let class: Vec<u32> = (0..n).map(|_| [0, 1, 2, 3, u32::MAX][rand(5) as usize]).collect();
            let size = |v: u32| 8 * (1 + v as u64 % 7);
            let (tree, retained) = compute(&idom, 8, size).unwrap();
            let min = class_min_retained(&tree, &retained, |v| class[v as usize], 4).unwrap();
            // Retained sizes from the definition: each object counts for all its dominators.
            let mut ret = vec![0u64; n];
            for w in 0..n {
                let mut x = w as u32;
                while idom[w] != UNREACHABLE && x != VIRTUAL_ROOT {
                    ret[x as usize] += size(w as u32);
                    x = idom[x as usize];
                }
            }
            let mut expected = vec![0u64; 4];
            for v in 0..n {
                let c = class[v];
                if idom[v] == UNREACHABLE || c == u32::MAX {
                    continue;
                }
                let mut p = idom[v];
                let mut below = true;
                while p != VIRTUAL_ROOT {
                    if class[p as usize] == c {
                        below = false;
                        break;
                    }
                    p = idom[p as usize];
                }
                if below {
                    expected[c as usize] += ret[v];
                }
            }
            assert_eq!(min, expected, "round {round}");
        }
    }

    /// Against the definitions, on random trees given as a packed [`Idom`] (near, far
    /// and wide parents, several parents per block of nodes): retained sizes summed up
    /// every object's dominator chain, and each node's children exactly the objects it
    /// immediately dominates, in index order.
    #[test]
    fn children_and_retained_against_brute_force() {
        let mut seed = 0x5851_F42D_4C95_7F2Du64;
        let mut rand = |m: u64| xorshift(&mut seed, m);
        for round in 0..30u64 {
            let n = 50 + 400 * round as usize;
            // Parents before children (a tree), some unreachable subtrees.
            let mut idom: Vec<u32> = (0..n as u32)
                .map(|v| match (v, rand(12)) {
                    (0..=2, _) | (_, 0) => VIRTUAL_ROOT,
                    (_, 1) => UNREACHABLE,
                    (_, 2..=4) => rand(3) as u32,
                    (_, 5..=8) => v - 1 - rand((v as u64).min(120)) as u32,
                    _ => rand(v as u64) as u32,
                })
                .collect();
            unreachable_below(&mut idom);
            let packed = Idom::compact(idom.clone()).unwrap();
            check_against_definition(&packed, &idom, &format!("round {round}"));
        }
    }

    /// Trees whose parents are anywhere in index order (before or after their children:
    /// the sums scan meets both), against the definitions; `compute` asks for the shallow
    /// size of every reachable object exactly once and of no other (callers total
    /// per-class figures in those calls).
    #[test]
    fn parents_in_any_order_and_one_size_call_per_reachable_object() {
        let mut seed = 0x7A3B_19C4_E5D2_0F61u64;
        let mut rand = |m: u64| xorshift(&mut seed, m);
        for round in 0..12u64 {
            let n = 30 + 900 * round as usize;
            // A random order of the nodes; each takes its parent among those before it there.
            let mut order: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                order.swap(i, rand(i as u64 + 1) as usize);
            }
            let mut idom = vec![UNREACHABLE; n];
            for k in 0..n {
                idom[order[k] as usize] = match rand(10) {
                    _ if k == 0 => VIRTUAL_ROOT,
                    0 => VIRTUAL_ROOT,
                    1 => UNREACHABLE,
                    2..=5 => order[k - 1 - rand((k as u64).min(40)) as usize],
                    _ => order[rand(k as u64) as usize],
                };
            }
            // Unreachable below an unreachable node, in the order parents were given.
            for &v in &order {
                let p = idom[v as usize];
                if p != VIRTUAL_ROOT && p != UNREACHABLE && idom[p as usize] == UNREACHABLE {
                    idom[v as usize] = UNREACHABLE;
                }
            }
            let packed = Idom::compact(idom.clone()).unwrap();
            check_against_definition(&packed, &idom, &format!("any order, round {round}"));
            let mut calls = vec![0u32; n];
            compute(&packed, 8, |v| {
                calls[v as usize] += 1;
                size(v)
            })
            .unwrap();
            for v in 0..n {
                assert_eq!(calls[v], (idom[v] != UNREACHABLE) as u32, "round {round}, object {v}");
            }
        }
    }

    /// Makes unreachable every node under an unreachable one (parents before children).
    fn unreachable_below(idom: &mut [u32]) {
        for v in 0..idom.len() {
            let p = idom[v];
            if p != VIRTUAL_ROOT && p != UNREACHABLE && idom[p as usize] == UNREACHABLE {
                idom[v] = UNREACHABLE;
            }
        }
    }

    /// Shallow sizes of the generated trees.
    fn size(v: u32) -> u64 {
        8 * (1 + (v as u64 * 2_654_435_761) % 9)
    }

    /// Builds the tree of `packed` (the same as `idom`) and checks it against the
    /// definitions: retained sizes summed up every object's dominator chain, and each
    /// node's children exactly the objects it immediately dominates, in index order
    /// (with their count and whether there are any).
    fn check_against_definition<I: IdomRead + ?Sized>(packed: &I, idom: &[u32], label: &str) {
        let n = idom.len();
        let (tree, retained) = compute(packed, 8, size).unwrap();
        let (ret, by_parent) = definition(idom, size);
        for v in 0..=n as u32 {
            assert_eq!(retained.get(v), ret[v as usize], "{label}, object {v}");
            let want = &by_parent[v as usize];
            assert_eq!(tree.children(v).collect::<Vec<_>>(), *want, "{label}, children of {v}");
            assert_eq!(tree.child_count(v), want.len(), "{label}, children of {v}");
            assert_eq!(tree.is_leaf(v), want.is_empty(), "{label}, {v}");
        }
    }

    /// From the definitions, for the tree `idom` with shallow sizes `size`: every node's
    /// retained size (summed up each object's dominator chain; the virtual root `n`
    /// last), and its children in index order (the virtual root's largest retained
    /// first, then by index).
    fn definition(idom: &[u32], size: impl Fn(u32) -> u64) -> (Vec<u64>, Vec<Vec<u32>>) {
        let n = idom.len();
        let mut ret = vec![0u64; n + 1];
        for w in 0..n {
            if idom[w] == UNREACHABLE {
                continue;
            }
            let mut x = w as u32;
            while x != VIRTUAL_ROOT {
                ret[x as usize] += size(w as u32);
                x = idom[x as usize];
            }
            ret[n] += size(w as u32);
        }
        let mut by_parent: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        for (w, &p) in idom.iter().enumerate() {
            match p {
                UNREACHABLE => {}
                VIRTUAL_ROOT => by_parent[n].push(w as u32),
                p => by_parent[p as usize].push(w as u32),
            }
        }
        // Lists in index order (as pushed), but the virtual root's, largest first.
        by_parent[n].sort_by_key(|&w| (std::cmp::Reverse(ret[w as usize]), w));
        (ret, by_parent)
    }

    /// Children whose retained sizes are 65,535 units or more (kept in the side table),
    /// equal and different, at the limit and just below it, among small ones; two
    /// parents in one block, in a block of few entries and in one of many (the two ways
    /// a block is grouped): sizes and lists as the definition has them.
    #[test]
    fn large_retained_sizes_in_order() {
        for n in [200usize, 70_010] {
            // Nodes 0 and 1 under the root; the others leaves, alternately under each.
            let idom: Vec<u32> = (0..n as u32).map(|v| if v < 2 { VIRTUAL_ROOT } else { v % 2 }).collect();
            let size = |v: u32| match v % 5 {
                0 => 8 << 20,
                1 => 8 * (65_535 + v as u64 / 5 % 3),
                2 => 8 * 65_534,
                _ => 8 * (1 + v as u64 % 4),
            };
            let (tree, retained) = compute(&idom, 8, size).unwrap();
            let (ret, by_parent) = definition(&idom, size);
            for v in 0..=n as u32 {
                assert_eq!(retained.get(v), ret[v as usize], "{n} nodes, object {v}");
                assert_eq!(tree.children(v).collect::<Vec<_>>(), by_parent[v as usize], "{n} nodes, children of {v}");
            }
        }
    }

    /// Lists looked up from where another ends (`children_after`, as the class minimum
    /// walk does) against the definition: lookups mostly forward in a block, some
    /// backward, far, of leaves, of the virtual root, in blocks with long lists, and from
    /// lists not read to their end.
    #[test]
    fn resumed_lookups_against_definition() {
        let mut seed = 0x3C6E_F372_FE94_F82Bu64;
        let mut rand = |m: u64| xorshift(&mut seed, m);
        let n = 60_000usize;
        let mut idom: Vec<u32> = (0..n as u32)
            .map(|v| match (v, rand(20)) {
                (0..=2, _) | (_, 0) => VIRTUAL_ROOT,
                (_, 1) => UNREACHABLE,
                (41.., 2..=4) => [5, 6, 40][rand(3) as usize],
                (_, 2..=14) => v - 1 - rand((v as u64).min(60)) as u32,
                _ => rand(v as u64) as u32,
            })
            .collect();
        unreachable_below(&mut idom);
        let packed = Idom::compact(idom.clone()).unwrap();
        let (tree, _) = compute(&packed, 8, size).unwrap();
        assert!(!tree.long.is_empty());
        let (_, by_parent) = definition(&idom, size);
        let mut from = Resume::default();
        let mut v = 0u32;
        for step in 0..200_000 {
            v = match rand(50) {
                0 => rand(n as u64 + 1) as u32,
                1 => v.saturating_sub(rand(40) as u32),
                2 => n as u32,
                _ => (v + 1 + rand(3) as u32) % n as u32,
            };
            let mut kids = tree.children_after(v, from);
            let want = &by_parent[v as usize];
            if rand(10) == 0 {
                let first: Vec<u32> = kids.by_ref().take(1).collect();
                assert_eq!(first, want[..want.len().min(1)], "step {step}, first child of {v}");
            } else {
                assert_eq!(kids.by_ref().collect::<Vec<_>>(), *want, "step {step}, children of {v}");
            }
            if let Some(r) = kids.resume() {
                from = r;
            }
        }
    }

    /// Children at the ends of an entry's range from their parent's block (the lowest
    /// and highest differences that fit 15 bits, and one past each, written in full),
    /// children written in full next to near ones in one list, and parents in the
    /// first, a middle and the last block.
    #[test]
    fn differences_at_the_escape_boundary() {
        let n = 60_000usize;
        let mut idom = vec![VIRTUAL_ROOT; n];
        // Node 20,010 is in the block starting at 20,000: differences from 20,000.
        let base = 20_010 & !(BLOCK as i64 - 1);
        for d in [-16_383i64, 16_383, -16_384, 16_384, -16_385, 1, -1, 31, 33, 0] {
            idom[(base + d) as usize] = 20_010;
        }
        // Node 0 (first block): children far after it; node n - 1 (last block): far before.
        for w in [16_383usize, 16_384, 40_000, 59_998] {
            idom[w] = 0;
        }
        for w in [1usize, 43_584, 43_585, 43_586] {
            idom[w] = n as u32 - 1;
        }
        let (tree, _) = compute(&idom, 8, size).unwrap();
        // The entries the lists take, from the definition of the codes' range: one for a
        // difference in 1 - 2^14..=2^14 - 1, four otherwise.
        let units = |p: i64, kids: &[i64]| kids.iter().map(|&w| if (w - (p & !31)).abs() < 1 << 14 { 1 } else { 4 }).sum::<usize>();
        let wanted = units(20_010, &[-16_383, 16_383, -16_384, 16_384, -16_385, 1, -1, 31, 33, 0].map(|d| base + d))
            + units(0, &[16_383, 16_384, 40_000, 59_998])
            + units(n as i64 - 1, &[1, 43_584, 43_585, 43_586]);
        assert_eq!(tree.units.len(), wanted);
        check_against_definition(&idom, &idom, "boundary");
    }

    /// Several long lists (the side table) and short ones in one block, before and after
    /// each other; a block with one parent of many far children; leaves in between.
    #[test]
    fn long_lists_sharing_a_block() {
        let n = 200_000usize;
        let mut seed = 0x1234_5678_9ABC_DEF1u64;
        let mut rand = |m: u64| xorshift(&mut seed, m);
        // Block 3 (nodes 96..128): 97, 101 and 127 long, 99 and 120 short, 100 one
        // entry short of long; block 10 (320..): 330 long. Their children spread far.
        let mut idom: Vec<u32> = vec![VIRTUAL_ROOT; n];
        for (v, slot) in idom.iter_mut().enumerate().skip(1_000) {
            *slot = match rand(20) {
                0..=2 => 97,
                4..=6 => 101,
                8..=10 => 127,
                11..=14 => 330,
                15 => UNREACHABLE,
                // Anywhere after the block's short lists.
                _ => 500 + rand(v as u64 - 500) as u32,
            };
        }
        // Node 100: LONG - 1 near children (one entry each); 99 and 120 a few.
        idom[101..101 + tree::LONG - 1].fill(100);
        idom[400..405].fill(99);
        idom[410..420].fill(120);
        unreachable_below(&mut idom);
        let packed = Idom::compact(idom.clone()).unwrap();
        check_against_definition(&packed, &idom, "long lists");
        let (tree, _) = compute(&packed, 8, size).unwrap();
        let long: Vec<u32> = tree.long.iter().map(|l| l.node).collect();
        assert!([97, 101, 127, 330].iter().all(|v| long.contains(v)), "{long:?}");
        assert!(!long.contains(&100) && !long.contains(&99));
    }

    /// Parents anywhere among 100,000 nodes (most children written in full), a wide
    /// virtual root, unreachable subtrees.
    #[test]
    fn parents_far_apart() {
        let mut seed = 0x0F0F_1234_ABCD_9876u64;
        let mut rand = |m: u64| xorshift(&mut seed, m);
        let n = 100_000usize;
        let mut idom: Vec<u32> = (0..n as u32)
            .map(|v| match (v, rand(10)) {
                (0, _) | (_, 0) => VIRTUAL_ROOT,
                (_, 1) => UNREACHABLE,
                _ => rand(v as u64) as u32,
            })
            .collect();
        unreachable_below(&mut idom);
        let packed = Idom::compact(idom.clone()).unwrap();
        check_against_definition(&packed, &idom, "far apart");
    }

    /// Chains of a million nodes, each dominating the next, upwards and downwards in
    /// index order: retained sizes are the sums of the chain below (from the sizes, not
    /// the code), the walks need no recursion, and the class minimum counts the top of
    /// each class's run.
    #[test]
    fn deep_chains() {
        let n = 1_000_000usize;
        for down in [true, false] {
            // down: 0 → 1 → … → n-1; up: n-1 → n-2 → … → 0.
            let idom: Vec<u32> = (0..n as u32)
                .map(|v| match down {
                    true if v == 0 => VIRTUAL_ROOT,
                    true => v - 1,
                    false if v as usize == n - 1 => VIRTUAL_ROOT,
                    false => v + 1,
                })
                .collect();
            let packed = Idom::compact(idom).unwrap();
            let (tree, retained) = compute(&packed, 8, size).unwrap();
            let mut below = 0u64;
            let order: Vec<u32> = if down { (0..n as u32).rev().collect() } else { (0..n as u32).collect() };
            for &v in &order {
                below += size(v);
                assert_eq!(retained.get(v), below, "object {v}");
            }
            assert_eq!(retained.get(n as u32), below);
            for &v in &order[1..] {
                assert_eq!(tree.child_count(v), 1);
            }
            assert!(tree.is_leaf(order[0]));
            // Class 0 for the top half of the chain, 1 below: each counts its top object.
            let depth = |v: u32| if down { v as usize } else { n - 1 - v as usize };
            let at_depth = |d: usize| if down { d as u32 } else { (n - 1 - d) as u32 };
            let min = class_min_retained(&tree, &retained, |v| (depth(v) >= n / 2) as u32, 2).unwrap();
            assert_eq!(min, vec![retained.get(at_depth(0)), retained.get(at_depth(n / 2))]);
        }
    }

    #[test]
    fn sizes_beyond_u32_units() {
        // 0 → 1 → 2 with 3·2³⁰ units each (24 GiB at 8 bytes): 1 and 0 overflow u32 units.
        let idom = vec![VIRTUAL_ROOT, 0, 1, UNREACHABLE];
        let big = 3u64 << 33;
        let (tree, retained) = compute(&idom, 8, |v| if v == 3 { 8 } else { big }).unwrap();
        assert_eq!((0..5).map(|v| retained.get(v)).collect::<Vec<_>>(), vec![3 * big, 2 * big, big, 0, 3 * big]);
        assert_eq!(tree.children(4).collect::<Vec<_>>(), [0]);
        assert_eq!(tree.children(3).count(), 0);
    }
}
