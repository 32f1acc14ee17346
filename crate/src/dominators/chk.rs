//! Cooper–Harvey–Kennedy: immediate dominators by iteration to a fixed point.
//!
//! # Terms
//!
//! Number the reachable nodes in the postorder of a depth-first search from the virtual
//! root, which finishes last and gets the highest number `r`; a node's dominators all
//! have higher numbers than it. Starting from "undefined" for every node but the virtual
//! root's children, repeat over the nodes in reverse postorder
//!
//! ```text
//! idom(b) = intersect of the predecessors p of b whose idom is defined
//! ```
//!
//! until nothing changes (the first round in reverse postorder, then alternating
//! direction), where `intersect(a, b)` walks two fingers up the current `idom`
//! tree, always moving the one with the smaller postorder number, until they meet
//! (Cooper, Harvey & Kennedy, "A Simple, Fast Dominance Algorithm", 2001).
//!
//! # Complexity
//!
//! Each round costs the total length of the finger walks, `O(n · m)` in the worst case,
//! and the rounds repeat until one changes nothing (two or three on heap-like graphs).
//! Heaps do have the bad shapes: `k` objects each referenced both from the tail of a
//! list `d` long and from outside it cost `k · d` per round. Predecessors are stored in
//! increasing postorder, deepest first, so the running intersection only climbs; that
//! makes the classic bad case — a list whose nodes all point at one shared object —
//! linear. Back edges are the other bad shape: a ring of `k` objects linked both ways and
//! entered at one point needs `k` rounds in reverse postorder, each learning one node;
//! a sweep in postorder carries that news around in one round, but its finger walks
//! still cost `k²/2` (24 s for the corpus's 100,000-object garbage ring kept with
//! `--keep-unreachable`). [`semi_nca`](fn@super::semi_nca) is the default; this is the independent check.
//!
//! # Memory
//!
//! `4n + 8r + 4m'` bytes, with `m'` the edges other than self-loops and edges into GC
//! roots (all predecessors are stored, in postorder space, as CSR), plus the DFS stacks.
//! The output is the postorder index, rewritten in place.

use super::{check_node_count, Graph, UNREACHABLE, VIRTUAL_ROOT};
use crate::alloc::{try_filled, try_push};
use crate::error::Error;

/// Flag bit in `num`: this node is a GC root.
const FLAG: u32 = 1 << 31;
const MASK: u32 = FLAG - 1;
/// `num` of a node visited but not finished.
const ON_PATH: u32 = MASK;
/// `idom` not known yet.
const UNDEF: u32 = u32::MAX;

/// Immediate dominators of every node of `g` by the Cooper–Harvey–Kennedy algorithm.
///
/// Returns `idom` indexed by node, as described in the [module docs](super); the same
/// array as [`semi_nca`](fn@super::semi_nca).
pub fn cooper_harvey_kennedy<G: Graph>(g: &G) -> Result<Vec<u32>, Error> {
    Ok(cooper_harvey_kennedy_bounded(g, u64::MAX)?.expect("an unbounded run finishes"))
}

/// [`cooper_harvey_kennedy`], giving up (`Ok(None)`) once the rounds have taken more than
/// `max_steps` steps (nodes visited plus finger moves): a caller that only wants the
/// cross-check when it is affordable bounds the quadratic cases.
pub fn cooper_harvey_kennedy_bounded<G: Graph>(g: &G, max_steps: u64) -> Result<Option<Vec<u32>>, Error> {
    let n = g.node_count();
    check_node_count(n)?;

    // num[v]: 0 = not reached, else postorder + 1; FLAG on GC roots.
    let mut num = try_filled(n, 0, "the postorder index")?;
    let r = postorder(g, &mut num)?;

    // Predecessors in postorder space: preds(p) = sources[off[p]..off[p + 1]].
    let mut off = try_filled(r as usize + 2, 0, "the predecessor offsets")?;
    for_each_edge(g, &num, |px| off[px as usize + 2] += 1);
    let mut total = 0u64;
    for o in off.iter_mut() {
        total += u64::from(*o);
        *o = u32::try_from(total).map_err(|_| Error::memory("dominators: over 2³² edges"))?;
    }
    let mut sources = try_filled(total as usize, 0, "the predecessors")?;
    // Fill from the sources in postorder, so each node's predecessors come deepest first:
    // then the running intersection only climbs, and a long chain whose nodes all point
    // at one node costs linear time rather than quadratic. `idom` serves meanwhile as
    // postorder → node.
    let mut idom = try_filled(r as usize + 1, UNDEF, "the dominators")?;
    for (v, &k) in num.iter().enumerate() {
        let k = k & MASK;
        if k != 0 {
            idom[k as usize - 1] = v as u32;
        }
    }
    for &v in &idom[..r as usize] {
        let pv = (num[v as usize] & MASK) - 1;
        g.for_each_successor(v, |x| {
            let nx = num[x as usize];
            if nx & FLAG == 0 && nx != pv + 1 {
                // x has postorder nx - 1; its group's fill cursor is off[(nx - 1) + 1].
                let o = &mut off[nx as usize];
                sources[*o as usize] = pv;
                *o += 1;
            }
        });
    }

    // Only the virtual root's children have no predecessors left.
    idom.fill(UNDEF);
    for b in 0..=r as usize {
        if off[b] == off[b + 1] {
            idom[b] = r;
        }
    }
    // The first round runs in reverse postorder, so every node's DFS parent is settled
    // before it; later rounds alternate direction, because a back edge carries news
    // against reverse postorder one node per round (a ring of k objects entered at one
    // point would take k rounds), and the reverse sweep carries it all the way at once.
    // Any order converges to the same fixed point.
    let mut round = 0u32;
    let mut changed = true;
    let mut steps = 0u64;
    while changed {
        changed = false;
        let mut step = |b: usize| {
            let preds = &sources[off[b] as usize..off[b + 1] as usize];
            steps += 1;
            if preds.is_empty() || steps > max_steps {
                return;
            }
            let mut new = UNDEF;
            for &p in preds {
                if idom[p as usize] != UNDEF {
                    new = if new == UNDEF { p } else { intersect(&idom, p, new, &mut steps) };
                }
            }
            if idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        };
        if round % 2 == 0 {
            (0..r as usize).rev().for_each(&mut step);
        } else {
            (0..r as usize).for_each(&mut step);
        }
        round += 1;
        // A round cut short proves nothing.
        if steps > max_steps {
            return Ok(None);
        }
    }
    drop(sources);

    // `off` is dead: reuse it as postorder → node.
    let vertex = &mut off;
    for (v, &k) in num.iter().enumerate() {
        let k = k & MASK;
        if k != 0 {
            vertex[k as usize - 1] = v as u32;
        }
    }
    for k in num.iter_mut() {
        let p = *k & MASK;
        *k = if p == 0 {
            UNREACHABLE
        } else {
            match idom[p as usize - 1] {
                d if d == r => VIRTUAL_ROOT,
                d => vertex[d as usize],
            }
        };
    }
    Ok(Some(num))
}

/// Walks two fingers up the `idom` tree to their nearest common ancestor, counting the
/// moves in `steps`.
#[inline]
fn intersect(idom: &[u32], mut a: u32, mut b: u32, steps: &mut u64) -> u32 {
    while a != b {
        while a < b {
            a = idom[a as usize];
            *steps += 1;
        }
        while b < a {
            b = idom[b as usize];
            *steps += 1;
        }
    }
    a
}

/// Calls `f(post(x))` for every edge `v → x` between reached nodes, except self-loops
/// and edges into GC roots.
fn for_each_edge<G: Graph>(g: &G, num: &[u32], mut f: impl FnMut(u32)) {
    for (v, &nv) in num.iter().enumerate() {
        let nv = nv & MASK;
        if nv == 0 {
            continue;
        }
        g.for_each_successor(v as u32, |x| {
            let nx = num[x as usize];
            if nx & FLAG == 0 && nx != nv {
                f(nx - 1);
            }
        });
    }
}

/// Depth-first search from the virtual root, numbering nodes in postorder (stored + 1 in
/// `num`). Returns the number of reached nodes, which is the virtual root's number.
///
/// The work stack holds nodes to visit; the path stack holds, for each node on the DFS
/// path, where its segment of the work stack starts. Edges into GC roots are skipped, so
/// each root is a child of the virtual root.
fn postorder<G: Graph>(g: &G, num: &mut [u32]) -> Result<u32, Error> {
    const WHAT: &str = "the DFS stack";
    const VROOT: u32 = u32::MAX;
    let mut stack: Vec<u32> = Vec::new();
    let mut path: Vec<(u32, usize)> = Vec::new();
    let mut failed = None;
    g.for_each_root(|w| {
        let slot = &mut num[w as usize];
        if *slot == 0 && failed.is_none() {
            *slot = FLAG;
            failed = try_push(&mut stack, w, WHAT).err();
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    try_push(&mut path, (VROOT, 0), "the DFS path")?;
    let mut next = 1u32;
    while let Some(&(node, start)) = path.last() {
        if stack.len() > start {
            let w = stack.pop().unwrap();
            if num[w as usize] & MASK != 0 {
                continue;
            }
            num[w as usize] |= ON_PATH;
            let base = stack.len();
            g.for_each_successor(w, |x| {
                g.prefetch_successors(x);
                if num[x as usize] == 0 && failed.is_none() {
                    failed = try_push(&mut stack, x, WHAT).err();
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            try_push(&mut path, (w, base), "the DFS path")?;
        } else {
            path.pop();
            if node == VROOT {
                break;
            }
            num[node as usize] = (num[node as usize] & FLAG) | next;
            next += 1;
        }
    }
    Ok(next - 1)
}
