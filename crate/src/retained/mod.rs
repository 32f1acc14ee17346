//! The dominator tree as a tree, and retained sizes.
//!
//! The retained size of an object is the total shallow size of the objects it dominates
//! (itself included): what would be freed if it were freed. It is summed bottom-up over
//! the dominator tree without a walk: a node is finished once its last child is, so
//! scanning the nodes in index order and, after each leaf, climbing through the parents
//! it completes visits children before parents with only a per-node count of unfinished
//! children (never recursion, and no order array). The virtual root (index `n` here)
//! retains every reachable object.
//!
//! Memory, with `n` objects and `r` of them reachable:
//!
//! - [`DomTree`]: the children grouped by parent, `4r` bytes; per node its child count in
//!   a byte (254 or more: in a side table) and per block of [`BLOCK`] nodes where its children
//!   start, `n + n/4` bytes. A node's children start after those of the nodes before it
//!   in its block.
//! - [`Retained`]: `2n` bytes, in units of the object alignment; values of 65,535 units
//!   or more (512 KiB with 8-byte alignment; a few thousand objects near the top of the
//!   tree) live in a sorted side table.
//!
//! About 7.3 bytes per object, and 7.5 while being built (block cursors, then the sort of
//! each block's children by retained size). The immediate dominators the tree is built
//! from are packed first ([`idom`]: about 1.1 bytes per object on the 1 GB benchmark
//! dump instead of 4), and every pass here reads them packed.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::graph::columns::SizeColumn;
use crate::dominators::{UNREACHABLE, VIRTUAL_ROOT};
use crate::error::{Error, Result};

pub mod idom;
pub use idom::{Idom, IdomRead};

/// Nodes per block of [`DomTree`]'s sampled offsets.
pub const BLOCK: usize = 16;
/// A child count byte meaning "in the side table".
const MANY: u8 = u8::MAX - 1;
/// A pending count byte meaning "finished" (while summing).
const DONE: u8 = u8::MAX;

/// Children lists of the dominator tree, each sorted by retained size (largest first,
/// then by object index, which is address order).
pub struct DomTree {
    /// Node count without the virtual root; the virtual root is node `n`.
    pub n: u32,
    /// Children of node `v` (of `n + 1`), [`MANY`] when that many or more.
    counts: Vec<u8>,
    /// (node, children) of the nodes with [`MANY`], by node.
    many: Vec<(u32, u32)>,
    /// Per block of nodes: where its first node's children start.
    blocks: Vec<u32>,
    children: Vec<u32>,
}

impl DomTree {
    pub fn root(&self) -> u32 {
        self.n
    }

    #[inline]
    fn count(&self, v: usize) -> usize {
        match self.counts[v] {
            MANY => self.many_count(v as u32),
            c => c as usize,
        }
    }

    #[cold]
    fn many_count(&self, v: u32) -> usize {
        self.many.binary_search_by_key(&v, |e| e.0).map_or(0, |k| self.many[k].1 as usize)
    }

    pub fn children(&self, node: u32) -> &[u32] {
        let (a, b) = self.child_range(node);
        &self.children[a..b]
    }

    /// Where the children of `node` are in [`DomTree::child`]'s numbering.
    #[inline]
    pub fn child_range(&self, node: u32) -> (usize, usize) {
        let v = node as usize;
        let first = v & !(BLOCK - 1);
        // The usual case, no count in the side table before `v`: a plain byte sum.
        let (mut a, mut many) = (self.blocks[v / BLOCK] as usize, false);
        for &c in &self.counts[first..v] {
            a += c as usize;
            many |= c == MANY;
        }
        if many {
            a = self.blocks[v / BLOCK] as usize;
            for q in first..v {
                a += self.count(q);
            }
        }
        (a, a + self.count(v))
    }

    /// The `k`-th entry of all the children lists together.
    #[inline]
    pub fn child(&self, k: usize) -> u32 {
        self.children[k]
    }

    /// Whether `node` dominates nothing (most nodes: a cheap test before
    /// [`DomTree::child_range`]).
    #[inline]
    pub fn is_leaf(&self, node: u32) -> bool {
        self.counts[node as usize] == 0
    }

    pub fn memory_bytes(&self) -> usize {
        self.counts.capacity() + self.many.capacity() * 8 + self.blocks.capacity() * 4 + self.children.capacity() * 4
    }
}

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
    #[inline]
    fn get(&self, v: u32) -> u64 {
        match self.units[v as usize] {
            u16::MAX => self.big[&v],
            u => u as u64,
        }
    }

    #[inline]
    fn add(&mut self, v: u32, units: u64) {
        let total = self.get(v) + units;
        if total < u16::MAX as u64 {
            self.units[v as usize] = total as u16;
        } else {
            self.units[v as usize] = u16::MAX;
            self.big.insert(v, total);
        }
    }
}

/// Children per node of the tree (the virtual root, node `n`, included), and how many
/// nodes are reachable.
fn count_children<I: IdomRead + ?Sized>(idom: &I) -> Result<(Counts, usize)> {
    let n = idom.count();
    let mut counts = Counts { small: crate::alloc::try_filled(n + 1, 0u8, "the dominator tree")?, large: NodeMap::default() };
    let mut reachable = 0usize;
    for v in 0..n as u32 {
        if let Some(p) = tree_parent(idom, v) {
            let c = &mut counts.small[p as usize];
            if *c < MANY - 1 {
                *c += 1;
            } else {
                let c = counts.get(p);
                counts.set(p, c + 1);
            }
            reachable += 1;
        }
    }
    Ok((counts, reachable))
}

/// Builds the tree and computes retained sizes. `shallow(v)` must be a multiple of
/// `align` (MAT's sizes are aligned).
pub fn compute<I: IdomRead + ?Sized>(idom: &I, align: u32, shallow: impl Fn(u32) -> u64) -> Result<(DomTree, Retained)> {
    let n = idom.count();
    if n >= u32::MAX as usize - 1 {
        return Err(Error::memory(format!("{n} objects: too many for the dominator tree")));
    }
    let root = n as u32;
    let align = align.max(1) as u64;

    // Children per node (the virtual root included).
    let (counts, reachable) = count_children(idom)?;
    // The climb below counts down a copy (a byte per node, before the tree's arrays
    // exist: below the phase's peak), cheaper than counting the children again.
    let mut pending = Counts { small: crate::alloc::try_with_capacity(n + 1, "retained sizes")?, large: counts.large.clone() };
    pending.small.extend_from_slice(&counts.small);

    // Retained sizes: after each finished node, climb to its parent while that finishes
    // it, counting down the unfinished children in `pending`; DONE marks the finished
    // nodes, so that the scan does not finish again a node that a climb finished.
    let mut sums = Sums { units: crate::alloc::try_filled(n + 1, 0u16, "retained sizes")?, big: NodeMap::default() };
    {
        for v in 0..n as u32 {
            if pending.small[v as usize] != 0 || idom.at(v) == UNREACHABLE {
                continue;
            }
            let mut x = v;
            loop {
                sums.add(x, shallow(x) / align);
                pending.small[x as usize] = DONE;
                let p = tree_parent(idom, x).unwrap_or(root);
                sums.add(p, sums.get(x));
                if p == root {
                    break;
                }
                let left = pending.get(p) - 1;
                pending.set(p, left);
                if left != 0 {
                    break;
                }
                x = p;
            }
        }
    }
    drop(pending);
    let mut big: Vec<(u32, u64)> = sums.big.into_iter().collect();
    big.sort_unstable();
    let retained = Retained(SizeColumn::from_units(sums.units, big, align));

    // Where each block's children start.
    let blocks_len = (n + 1).div_ceil(BLOCK) + 1;
    let mut blocks = crate::alloc::try_filled(blocks_len, 0u32, "the dominator tree")?;
    let mut at = 0u32;
    for (b, slot) in blocks.iter_mut().enumerate() {
        *slot = at;
        for v in b * BLOCK..((b + 1) * BLOCK).min(n + 1) {
            at += counts.get(v as u32);
        }
    }

    // Children into their blocks, in index order; then, per block, grouped by parent (a
    // stable counting sort over the block's nodes) and each parent's sorted by retained
    // size. The sort keys never read the parent again: a wide node's children are mostly
    // far from it, where reading the parent is a side-table search.
    let mut children = crate::alloc::try_filled(reachable, 0u32, "the dominator tree")?;
    // The block starts serve as the fill cursors: each ends where the next block starts,
    // so shifting them by one block gives the starts back (no copy on top of the tree).
    for v in 0..n as u32 {
        if let Some(p) = tree_parent(idom, v) {
            let f = &mut blocks[p as usize / BLOCK];
            children[*f as usize] = v;
            *f += 1;
        }
    }
    blocks.copy_within(..blocks_len - 1, 1);
    blocks[0] = 0;
    // The keys are read once into `keys` for the usual small lists; a huge list is sorted
    // in place instead, so that `keys` stays small.
    const KEYED: usize = 1 << 16;
    let key = |v: u32| (std::cmp::Reverse(retained.get(v)), v);
    let mut keys: Vec<(std::cmp::Reverse<u64>, u32)> = Vec::new();
    let mut grouped: Vec<u32> = Vec::new();
    for b in 0..blocks_len - 1 {
        let seg = &mut children[blocks[b] as usize..blocks[b + 1] as usize];
        if seg.len() < 2 {
            continue;
        }
        let first = b * BLOCK;
        let nodes = (n + 1 - first).min(BLOCK);
        let mut ends = [0usize; BLOCK];
        let mut at = 0;
        let mut parents = 0;
        for (j, end) in ends[..nodes].iter_mut().enumerate() {
            let c = counts.get((first + j) as u32) as usize;
            parents += (c > 0) as usize;
            at += c;
            *end = at;
        }
        if parents > 1 {
            grouped.clear();
            grouped.try_reserve(seg.len()).map_err(|_| crate::alloc::alloc_error(seg.len() * 4, "the dominator tree"))?;
            grouped.resize(seg.len(), 0);
            let mut next = [0usize; BLOCK];
            next[1..].copy_from_slice(&ends[..BLOCK - 1]);
            for &v in seg.iter() {
                let j = tree_parent(idom, v).unwrap_or(root) as usize - first;
                grouped[next[j]] = v;
                next[j] += 1;
            }
            seg.copy_from_slice(&grouped);
        }
        let mut start = 0;
        for &end in &ends[..nodes] {
            let list = &mut seg[start..end];
            start = end;
            if list.len() < 2 {
                continue;
            }
            if list.len() > KEYED {
                list.sort_unstable_by_key(|&v| key(v));
                continue;
            }
            keys.clear();
            keys.extend(list.iter().map(|&v| key(v)));
            keys.sort_unstable();
            for (slot, k) in list.iter_mut().zip(&keys) {
                *slot = k.1;
            }
        }
    }
    drop(keys);
    drop(grouped);
    let mut many: Vec<(u32, u32)> = counts.large.into_iter().collect();
    many.sort_unstable();
    let tree = DomTree { n: n as u32, counts: counts.small, many, blocks, children };
    Ok((tree, retained))
}

/// MAT's quick retained size per class ("retained heap" of the histogram, a lower bound):
/// the sum of the retained sizes of the class's objects that have no object of the same
/// class above them in the dominator tree. `class_of` may map objects to any groups
/// (packages, loaders) numbered below `classes`; other values are in no group.
///
/// A depth-first walk of the tree. The order of siblings does not matter here, so a node
/// with many children (kept by retained size, an order unrelated to where they are in
/// memory) has them walked in index order, which is address order: on a large
/// collection that turns random reads of the per-object columns into nearly sequential
/// ones (measured on the 1 GB benchmark dump: about half the CPU time).
pub fn class_min_retained(tree: &DomTree, retained: &Retained, class_of: impl Fn(u32) -> u32, classes: usize) -> Vec<u64> {
    /// Fan-out from which a node's children are walked from a sorted copy.
    const SORTED: usize = 32;
    let mut sum = vec![0u64; classes];
    let mut active = vec![0u32; classes];
    // Sorted copies of the children of the wide nodes on the path, one after the other.
    let mut copies: Vec<u32> = Vec::new();
    // Frames (node, next child, end of its children, where its copy starts in `copies`
    // or NOT_COPIED), one per level; entering a node counts its class as active, leaving
    // it undoes that.
    const NOT_COPIED: usize = usize::MAX;
    let class = |v: u32| Some(class_of(v) as usize).filter(|&c| c < classes);
    let frame = |copies: &mut Vec<u32>, v: u32| -> (u32, usize, usize, usize) {
        let (a, b) = tree.child_range(v);
        if b - a < SORTED || copies.try_reserve(b - a).is_err() {
            return (v, a, b, NOT_COPIED);
        }
        let at = copies.len();
        copies.extend_from_slice(&tree.children[a..b]);
        copies[at..].sort_unstable();
        (v, at, copies.len(), at)
    };
    let root = frame(&mut copies, tree.root());
    let mut stack: Vec<(u32, usize, usize, usize)> = vec![root];
    while let Some(top) = stack.last_mut() {
        let (v, next, end, copy) = *top;
        if next < end {
            top.1 += 1;
            let x = if copy == NOT_COPIED { tree.child(next) } else { copies[next] };
            // Objects without a class have no histogram row.
            let c = class(x);
            if let Some(c) = c {
                if active[c] == 0 {
                    sum[c] += retained.get(x);
                }
                if tree.is_leaf(x) {
                    // Entered and left at once (most nodes): no frame.
                    continue;
                }
                active[c] += 1;
            } else if tree.is_leaf(x) {
                continue;
            }
            let f = frame(&mut copies, x);
            stack.push(f);
        } else {
            stack.pop();
            if copy != NOT_COPIED {
                copies.truncate(copy);
            }
            if v != tree.root() {
                if let Some(c) = class(v) {
                    active[c] -= 1;
                }
            }
        }
    }
    sum
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
        assert_eq!(tree.children(5), &[0]);
        assert_eq!(tree.children(0), &[1, 3]);
        let class = [0u32, 1, 1, 0, 0];
        let min = class_min_retained(&tree, &retained, |v| class[v as usize], 2);
        assert_eq!(min, vec![100, 50]);
    }

    #[test]
    fn wide_nodes_and_big_child_counts() {
        // Node 0 under the root has 70,000 children (past the keyed sort and the child
        // count byte), node 1 has 300; sizes repeat so that ties are ordered by index.
        let n = 70_302usize;
        let mut idom = vec![0u32; n];
        idom[0] = VIRTUAL_ROOT;
        idom[1] = VIRTUAL_ROOT;
        idom[n - 300..].fill(1);
        let size = |v: u32| 8 * (1 + (v as u64 * 7) % 5);
        let (tree, retained) = compute(&idom, 8, size).unwrap();
        let kids = tree.children(0);
        assert_eq!(kids.len(), 70_000);
        assert!(kids.windows(2).all(|w| (retained.get(w[0]), std::cmp::Reverse(w[0])) > (retained.get(w[1]), std::cmp::Reverse(w[1]))));
        assert_eq!(tree.children(1).len(), 300);
        assert_eq!(retained.get(1), size(1) + (n as u32 - 300..n as u32).map(size).sum::<u64>());
        assert_eq!(retained.get(n as u32), (0..n as u32).map(size).sum::<u64>());
        assert_eq!(tree.children(n as u32), &[0, 1]);
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
            let min = class_min_retained(&tree, &retained, |v| class[v as usize], 4);
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
    /// immediately dominates, largest retained first, then by index.
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
            for v in 0..n {
                let p = idom[v];
                if p != VIRTUAL_ROOT && p != UNREACHABLE && idom[p as usize] == UNREACHABLE {
                    idom[v] = UNREACHABLE;
                }
            }
            let size = |v: u32| 8 * (1 + (v as u64 * 2_654_435_761) % 9);
            let packed = Idom::compact(idom.clone()).unwrap();
            let (tree, retained) = compute(&packed, 8, size).unwrap();
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
            for v in 0..=n as u32 {
                assert_eq!(retained.get(v), ret[v as usize], "round {round}, object {v}");
                let want_parent = if v == n as u32 { VIRTUAL_ROOT } else { v };
                let mut want: Vec<u32> = (0..n as u32).filter(|&w| idom[w as usize] == want_parent).collect();
                want.sort_by_key(|&w| (std::cmp::Reverse(ret[w as usize]), w));
                assert_eq!(tree.children(v), &want[..], "round {round}, children of {v}");
                assert_eq!(tree.is_leaf(v), want.is_empty());
            }
        }
    }

    #[test]
    fn sizes_beyond_u32_units() {
        // 0 → 1 → 2 with 3·2³⁰ units each (24 GiB at 8 bytes): 1 and 0 overflow u32 units.
        let idom = vec![VIRTUAL_ROOT, 0, 1, UNREACHABLE];
        let big = 3u64 << 33;
        let (tree, retained) = compute(&idom, 8, |v| if v == 3 { 8 } else { big }).unwrap();
        assert_eq!((0..5).map(|v| retained.get(v)).collect::<Vec<_>>(), vec![3 * big, 2 * big, big, 0, 3 * big]);
        assert_eq!(tree.children(4), &[0]);
        assert_eq!(tree.children(3), &[] as &[u32]);
    }
}
