//! The dominator tree as a tree, and retained sizes.
//!
//! The retained size of an object is the total shallow size of the objects it dominates
//! (itself included): what would be freed if it were freed. It is summed bottom-up over
//! the dominator tree, which is walked with an explicit order array, never recursively.
//! The virtual root (index `n` here) retains every reachable object.

use crate::dominators::{UNREACHABLE, VIRTUAL_ROOT};
use crate::error::{Error, Result};

/// Children lists of the dominator tree, each sorted by retained size (largest first,
/// then by object index, which is address order).
pub struct DomTree {
    /// Node count without the virtual root; the virtual root is node `n`.
    pub n: u32,
    offsets: Vec<u32>,
    children: Vec<u32>,
}

impl DomTree {
    pub fn root(&self) -> u32 {
        self.n
    }

    pub fn children(&self, node: u32) -> &[u32] {
        let (a, b) = (self.offsets[node as usize], self.offsets[node as usize + 1]);
        &self.children[a as usize..b as usize]
    }

    pub fn memory_bytes(&self) -> usize {
        self.offsets.capacity() * 4 + self.children.capacity() * 4
    }
}

/// Parent of `v` in the tree with the virtual root as node `n`; None if unreachable.
#[inline]
pub fn tree_parent(idom: &[u32], v: u32) -> Option<u32> {
    match idom[v as usize] {
        UNREACHABLE => None,
        VIRTUAL_ROOT => Some(idom.len() as u32),
        p => Some(p),
    }
}

fn try_vec<T: Clone>(n: usize, fill: T, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::memory(format!("out of memory for {what} ({n} entries)")))?;
    v.resize(n, fill);
    Ok(v)
}

/// Builds the tree and computes retained sizes (indexed by node; `[n]` is the total).
pub fn compute(idom: &[u32], shallow: impl Fn(u32) -> u64) -> Result<(DomTree, Vec<u64>)> {
    let n = idom.len();
    // Children by counting sort over the parents.
    let mut offsets = try_vec(n + 2, 0u32, "the dominator tree")?;
    let mut reachable = 0usize;
    for v in 0..n as u32 {
        if let Some(p) = tree_parent(idom, v) {
            offsets[p as usize + 1] += 1;
            reachable += 1;
        }
    }
    for i in 0..=n {
        offsets[i + 1] += offsets[i];
    }
    let mut children = try_vec(reachable, 0u32, "the dominator tree")?;
    let mut fill = offsets.clone();
    for v in 0..n as u32 {
        if let Some(p) = tree_parent(idom, v) {
            children[fill[p as usize] as usize] = v;
            fill[p as usize] += 1;
        }
    }
    drop(fill);
    let mut tree = DomTree { n: n as u32, offsets, children };

    // Preorder of the tree, then accumulate in reverse (children before parents).
    let mut retained = try_vec(n + 1, 0u64, "retained sizes")?;
    let mut order: Vec<u32> = Vec::new();
    order.try_reserve_exact(reachable + 1).map_err(|_| Error::memory("out of memory for the dominator tree order"))?;
    let mut stack = vec![n as u32];
    while let Some(v) = stack.pop() {
        order.push(v);
        stack.extend_from_slice(tree.children(v));
    }
    for &v in order.iter().rev() {
        if v as usize == n {
            continue;
        }
        retained[v as usize] += shallow(v);
        let p = tree_parent(idom, v).unwrap_or(n as u32);
        retained[p as usize] += retained[v as usize];
    }
    drop(order);

    // Sort each child list: retained descending, then index ascending.
    for p in 0..=n {
        let (a, b) = (tree.offsets[p] as usize, tree.offsets[p + 1] as usize);
        if b - a > 1 {
            tree.children[a..b].sort_unstable_by(|&x, &y| retained[y as usize].cmp(&retained[x as usize]).then(x.cmp(&y)));
        }
    }
    Ok((tree, retained))
}

/// MAT's quick retained size per class ("retained heap" of the histogram, a lower bound):
/// the sum of the retained sizes of the class's objects that have no object of the same
/// class above them in the dominator tree.
pub fn class_min_retained(tree: &DomTree, retained: &[u64], class_of: impl Fn(u32) -> u32, classes: usize) -> Vec<u64> {
    let mut sum = vec![0u64; classes];
    let mut active = vec![0u32; classes];
    // Stack entries: node, or node | EXIT to undo its class's active count.
    const EXIT: u64 = 1 << 32;
    let mut stack: Vec<u64> = tree.children(tree.root()).iter().map(|&c| c as u64).collect();
    stack.reverse();
    while let Some(e) = stack.pop() {
        let v = e as u32;
        let c = class_of(v);
        if (c as usize) >= classes {
            // Objects without a class have no histogram row.
            stack.extend(tree.children(v).iter().rev().map(|&x| x as u64));
            continue;
        }
        if e & EXIT != 0 {
            active[c as usize] -= 1;
            continue;
        }
        if active[c as usize] == 0 {
            sum[c as usize] += retained[v as usize];
        }
        active[c as usize] += 1;
        stack.push(v as u64 | EXIT);
        stack.extend(tree.children(v).iter().rev().map(|&x| x as u64));
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retained_and_class_minimum() {
        // 0 → 1 → 2, 0 → 3; 4 unreachable; classes: 0:A 1:B 2:B 3:A
        let idom = vec![VIRTUAL_ROOT, 0, 1, 0, UNREACHABLE];
        let sizes = [10u64, 20, 30, 40, 50];
        let (tree, retained) = compute(&idom, |v| sizes[v as usize]).unwrap();
        assert_eq!(retained, vec![100, 50, 30, 40, 0, 100]);
        assert_eq!(tree.children(5), &[0]);
        assert_eq!(tree.children(0), &[1, 3]);
        let class = [0u32, 1, 1, 0, 0];
        let min = class_min_retained(&tree, &retained, |v| class[v as usize], 2);
        assert_eq!(min, vec![100, 50]);
    }
}
