//! Breadth-first search from the GC roots that keeps no per-object array, for the path
//! queries (an object's shortest path from a GC root, a suspect's reference path, a
//! group suspect's common path, merged paths).
//!
//! Terms: see [`super::order`] (discovery order, levels). The *BFS parent* of an object is the first object
//! in discovery order, one level up, with a followed reference to it: the object through
//! which a search that keeps a parent per object would have reached it first.
//!
//! Instead of a parent per object (4 bytes per object, plus 4 for the queue's full-size
//! reservation) the search keeps one bit per object (seen), the discovered objects in
//! order (in fixed-size chunks, 4 bytes per object discovered: the search stops as soon
//! as what it looks for is found) and where each level starts. The parents of a few
//! objects are then recovered level by level, deepest first: one scan of each level
//! above them, in discovery order, stopping once every object waiting on that level has
//! its parent — at most one more pass over the references of the objects discovered.
//! On the 1 GB benchmark dump a suspect's path costs ~3 MB + 4 bytes per object
//! discovered instead of 8 bytes per object.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::order::DiscoveryOrder;
use crate::analysis::Analysis;
use crate::bits::BitSet;
use crate::error::Result;

/// The graph a search runs on.
pub(crate) trait Walk {
    fn node_count(&self) -> usize;
    /// The GC roots (duplicates allowed).
    fn for_each_root<F: FnMut(u32)>(&self, f: F);
    /// The references of `u` that the search follows.
    fn for_each_successor<F: FnMut(u32)>(&self, u: u32, f: F);
}

/// The references of a dump as the path queries follow them: from its GC roots, without
/// the references MAT's path queries exclude (`Reference.referent`, …) when `excludes`.
pub(crate) struct Refs<'a> {
    pub a: &'a Analysis,
    pub excludes: bool,
}

impl Walk for Refs<'_> {
    fn node_count(&self) -> usize {
        self.a.object_count()
    }

    fn for_each_root<F: FnMut(u32)>(&self, mut f: F) {
        for &(r, _) in &self.a.roots {
            f(r);
        }
    }

    #[inline]
    fn for_each_successor<F: FnMut(u32)>(&self, u: u32, mut f: F) {
        let skip = self.excludes && self.a.has_path_excluded_references(u);
        self.a.for_each_reference(u, |v| {
            if !(skip && self.a.is_path_excluded_reference(u, v)) {
                f(v)
            }
        });
    }
}

/// Marks a parent: the object is a GC root.
pub(crate) const ROOT: u32 = u32::MAX - 1;

/// A finished (or stopped) search: the objects it discovered, level by level.
pub(crate) struct Levels {
    order: DiscoveryOrder,
}

impl Levels {
    /// Searches `g` from its roots, calling `found(object, position)` for each object as
    /// it is discovered (roots first); stops when that returns true, or when nothing is
    /// left to discover.
    pub(crate) fn search<G: Walk>(g: &G, mut found: impl FnMut(u32, usize) -> bool) -> Result<Levels> {
        let mut seen = BitSet::new(g.node_count(), "the path search")?;
        let mut order = DiscoveryOrder::new("the path search");
        let mut stop = false;
        let mut failed = None;
        let mut discover = |order: &mut DiscoveryOrder, v: u32, stop: &mut bool| {
            if *stop || failed.is_some() || !seen.insert_new(v) {
                return;
            }
            let pos = order.len();
            if let Err(e) = order.push(v) {
                failed = Some(e);
                return;
            }
            *stop = found(v, pos);
        };
        g.for_each_root(|r| discover(&mut order, r, &mut stop));
        order.end_roots();
        let mut head = 0;
        while !stop && head < order.len() {
            let u = order.visit(head);
            head += 1;
            g.for_each_successor(u, |v| discover(&mut order, v, &mut stop));
        }
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(Levels { order })
    }

    /// The BFS parents of `targets` (object, position in discovery order) and of all
    /// their ancestors: object → (parent or [`ROOT`], its position). `g` must be the
    /// graph searched.
    pub(crate) fn parents<G: Walk>(&self, g: &G, targets: &[(u32, usize)]) -> HashMap<u32, (u32, usize)> {
        let mut out: HashMap<u32, (u32, usize)> = HashMap::new();
        // Objects waiting for their parent, by level.
        let mut waiting: BTreeMap<usize, HashSet<u32>> = BTreeMap::new();
        for &(t, pos) in targets {
            if pos < self.order.len() && out.insert(t, (ROOT, pos)).is_none() {
                waiting.entry(self.order.level_of(pos)).or_default().insert(t);
            }
        }
        while let Some((level, mut wait)) = waiting.pop_last() {
            if level == 0 {
                // GC roots: their parent stays ROOT.
                continue;
            }
            for pos in self.order.level(level - 1) {
                if wait.is_empty() {
                    break;
                }
                let u = self.order.get(pos);
                let mut parent_of_some = false;
                g.for_each_successor(u, |x| {
                    if wait.remove(&x) {
                        if let Some(e) = out.get_mut(&x) {
                            e.0 = u;
                        }
                        parent_of_some = true;
                    }
                });
                if parent_of_some && !out.contains_key(&u) {
                    out.insert(u, (ROOT, pos));
                    waiting.entry(level - 1).or_default().insert(u);
                }
            }
            // Every object of a level was discovered from the level above.
            debug_assert!(wait.is_empty(), "objects without a parent one level up");
        }
        out
    }
}

/// The objects of a shortest reference path from a GC root to `obj`, root first (empty
/// when none reaches it): breadth-first from all roots, first without the references
/// MAT's path queries exclude (`Reference.referent`, …), then with them. The path is the
/// one a parent per object would give.
pub(crate) fn shortest_path(a: &Analysis, obj: u32) -> Result<Vec<u32>> {
    let mut path = Vec::new();
    for excludes in [true, false] {
        let g = Refs { a, excludes };
        let mut at = None;
        let levels = Levels::search(&g, |v, pos| {
            let hit = v == obj;
            if hit {
                at = Some(pos);
            }
            hit
        })?;
        if let Some(pos) = at {
            let parents = levels.parents(&g, &[(obj, pos)]);
            let mut x = obj;
            loop {
                path.push(x);
                match parents.get(&x) {
                    Some(&(p, _)) if p != ROOT => x = p,
                    _ => break,
                }
            }
            path.reverse();
            break;
        }
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Lists {
        roots: Vec<u32>,
        succ: Vec<Vec<u32>>,
    }

    impl Walk for Lists {
        fn node_count(&self) -> usize {
            self.succ.len()
        }
        fn for_each_root<F: FnMut(u32)>(&self, f: F) {
            self.roots.iter().copied().for_each(f)
        }
        fn for_each_successor<F: FnMut(u32)>(&self, u: u32, f: F) {
            self.succ[u as usize].iter().copied().for_each(f)
        }
    }

    /// The definition: a queue and a parent per object, set when first reached.
    fn brute(g: &Lists) -> (Vec<Option<u32>>, Vec<usize>) {
        let n = g.succ.len();
        let (mut parent, mut pos) = (vec![None; n], vec![usize::MAX; n]);
        let mut queue = Vec::new();
        for &r in &g.roots {
            if parent[r as usize].is_none() {
                parent[r as usize] = Some(ROOT);
                pos[r as usize] = queue.len();
                queue.push(r);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let u = queue[head];
            head += 1;
            for &v in &g.succ[u as usize] {
                if parent[v as usize].is_none() {
                    parent[v as usize] = Some(u);
                    pos[v as usize] = queue.len();
                    queue.push(v);
                }
            }
        }
        (parent, pos)
    }

    #[test]
    fn parents_match_a_parent_per_object() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for round in 0..300 {
            let n = 1 + next(60) as usize;
            let edges = next(4 * n as u64) as usize;
            let mut succ = vec![Vec::new(); n];
            for _ in 0..edges {
                let (u, v) = (next(n as u64) as u32, next(n as u64) as u32);
                succ[u as usize].push(v);
            }
            // A long chain now and then: many levels.
            if round % 10 == 0 {
                for v in 1..n {
                    succ[v - 1].push(v as u32);
                }
            }
            let roots: Vec<u32> = (0..1 + next(3)).map(|_| next(n as u64) as u32).collect();
            let g = Lists { roots, succ };
            let (parent, pos) = brute(&g);
            // Every reached object at once, then each alone with the search stopped there.
            let all = Levels::search(&g, |_, _| false).unwrap();
            let reached: Vec<(u32, usize)> =
                (0..n as u32).filter(|&v| parent[v as usize].is_some()).map(|v| (v, pos[v as usize])).collect();
            let got = all.parents(&g, &reached);
            assert_eq!(got.len(), reached.len());
            for (&v, &(p, at)) in &got {
                assert_eq!((Some(p), at), (parent[v as usize], pos[v as usize]), "object {v}");
            }
            for &(t, _) in &reached {
                let mut at = None;
                let stopped = Levels::search(&g, |v, p| {
                    let hit = v == t;
                    if hit {
                        at = Some(p);
                    }
                    hit
                })
                .unwrap();
                assert_eq!(at, Some(pos[t as usize]));
                let got = stopped.parents(&g, &[(t, pos[t as usize])]);
                let mut x = t;
                loop {
                    let (p, _) = got[&x];
                    assert_eq!(Some(p), parent[x as usize]);
                    if p == ROOT {
                        break;
                    }
                    x = p;
                }
            }
        }
    }
}
