//! The dominator tree as a tree, and retained sizes.
//!
//! The retained size of an object is the total shallow size of the objects it dominates
//! (itself included): what would be freed if it were freed. It is summed in one
//! depth-first walk of the dominator tree once the tree is built (never recursion): a
//! node's retained size is known when the walk leaves it. The virtual root (index `n`
//! here) retains every reachable object.
//!
//! Memory, with `n` objects and `r` of them reachable:
//!
//! - [`DomTree`]: the children grouped by parent, each a 2-byte difference from its
//!   parent's block (a few written in full in 8 bytes), a bit per node telling whether
//!   it has children and a start per block of [`BLOCK`] nodes: about `2r + n/4` bytes
//!   (see [`tree`]).
//! - [`Retained`]: stored only for the nodes whose subtree has more than [`SMALL`] nodes
//!   (7% of the 1 GB benchmark dump's, 20% of a real program's) and the virtual root: a
//!   bit per node with its rank ([`RankBits`], `n/5` bytes) and 2 bytes per stored node,
//!   in units of the object alignment (values of 65,535 units or more, 512 KiB with 8-byte
//!   alignment, in a sorted side table). Any other node's retained size is summed from its
//!   subtree when asked ([`Retained::get`]: a leaf's is its shallow size).
//!
//! While building: a byte per node (where each list goes in its block), then the tree's
//! arrays, then the walk's stack (see [`compute`]) and 8 bytes per stored node. The
//! immediate dominators the tree is built from are packed first ([`idom`]: about 1.1
//! bytes per object on the 1 GB benchmark dump instead of 4), and every pass here reads
//! them packed.

use crate::bits::BitSet;
use crate::dominators::{UNREACHABLE, VIRTUAL_ROOT};
use crate::error::{Error, Result};
use crate::graph::columns::SizeColumn;
use crate::graph::sparse::RankBits;

pub mod idom;
pub mod tree;
pub use idom::{Idom, IdomRead};
pub use tree::{Children, DomTree, Resume, BLOCK};

/// Nodes in a subtree whose retained size is summed when asked instead of stored.
pub const SMALL: u32 = 8;

/// Retained size of every node (the virtual root, node `n`, retains everything): stored
/// for the top-level nodes and those whose subtree holds more than [`SMALL`] nodes, like shallow sizes
/// (16-bit alignment units with a side table) at the node's rank among them; summed
/// from the tree for the others.
pub struct Retained {
    stored: RankBits,
    sizes: SizeColumn,
}

impl Retained {
    /// Retained bytes of `node` (`n` = the virtual root) in `tree` (the tree it was
    /// computed for), with `shallow` the shallow size of an object and `in_tree` whether
    /// it is in the tree (0 when not): stored, or summed over a subtree of at most
    /// [`SMALL`] nodes.
    #[inline]
    pub fn get(&self, node: u32, tree: &DomTree, shallow: impl Fn(u32) -> u64, in_tree: impl Fn(u32) -> bool) -> u64 {
        match self.stored.rank(node) {
            Some(r) => self.sizes.get(r as u32),
            None if !in_tree(node) => 0,
            None if tree.is_leaf(node) => shallow(node),
            None => small_subtree(node, tree, shallow),
        }
    }

    /// The retained bytes of `node` if they are stored (always for the virtual root and
    /// the top-level nodes).
    #[inline]
    pub fn stored(&self, node: u32) -> Option<u64> {
        self.stored.rank(node).map(|r| self.sizes.get(r as u32))
    }

    pub fn memory_bytes(&self) -> usize {
        self.stored.memory_bytes() + self.sizes.memory_bytes()
    }
}

/// The shallow sizes of the (at most [`SMALL`]) nodes of `node`'s subtree, summed.
#[inline(never)]
fn small_subtree(node: u32, tree: &DomTree, shallow: impl Fn(u32) -> u64) -> u64 {
    let mut stack = [0u32; SMALL as usize];
    let (mut depth, mut sum) = (1usize, 0u64);
    stack[0] = node;
    while depth > 0 {
        depth -= 1;
        let v = stack[depth];
        sum += shallow(v);
        if tree.is_leaf(v) {
            continue;
        }
        for k in tree.children(v) {
            // A subtree of this size is stored: the bound holds for any tree `compute` built.
            debug_assert!(depth < stack.len(), "a subtree of more than {SMALL} nodes not stored");
            if let Some(slot) = stack.get_mut(depth) {
                *slot = k;
                depth += 1;
            }
        }
    }
    sum
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

/// The stored retained sizes as the walk leaves their nodes: (node, units) in walk order,
/// the units of 2³² or more aside.
#[derive(Default)]
struct Stored {
    nodes: Vec<(u32, u32)>,
    wide: Vec<(u32, u64)>,
}

impl Stored {
    #[inline]
    fn push(&mut self, v: u32, units: u64) -> Result<()> {
        if units < u32::MAX as u64 {
            crate::alloc::try_push(&mut self.nodes, (v, units as u32), "retained sizes")
        } else {
            crate::alloc::try_push(&mut self.nodes, (v, u32::MAX), "retained sizes")?;
            crate::alloc::try_push(&mut self.wide, (v, units), "retained sizes")
        }
    }

    /// The sizes at the nodes' ranks among `n + 1` nodes.
    fn finish(self, n: usize, align: u64) -> Result<Retained> {
        const WHAT: &str = "retained sizes";
        let mut bits = crate::alloc::try_filled((n + 1).div_ceil(64), 0u64, WHAT)?;
        for &(v, _) in &self.nodes {
            bits[v as usize / 64] |= 1 << (v % 64);
        }
        let stored = RankBits::build(n + 1, WHAT, |b| bits[b])?;
        drop(bits);
        let mut units = crate::alloc::try_filled(stored.ones(), 0u16, WHAT)?;
        let mut big = Vec::new();
        let mut wide = self.wide;
        wide.sort_unstable();
        for (v, u) in self.nodes {
            let r = stored.rank(v).expect("a stored node") as u32;
            if u < u16::MAX as u32 {
                units[r as usize] = u as u16;
            } else {
                units[r as usize] = u16::MAX;
                let u = if u == u32::MAX { wide[wide.partition_point(|e| e.0 < v)].1 } else { u as u64 };
                crate::alloc::try_push(&mut big, (r, u), WHAT)?;
            }
        }
        big.sort_unstable();
        Ok(Retained { stored, sizes: SizeColumn::from_units(units, big, align) })
    }
}

/// Calls `f(v, immediate dominator of v)` for every object in index order (`rev`: from
/// the last index down), the packed dominators decoded a run at a time.
fn each_parent<I: IdomRead + ?Sized>(idom: &I, rev: bool, mut f: impl FnMut(u32, u32)) {
    const RUN: usize = 256;
    let n = idom.count();
    let mut run = [0u32; RUN];
    for k in 0..n.div_ceil(RUN) {
        let start = if rev { (n.div_ceil(RUN) - 1 - k) * RUN } else { k * RUN };
        let run = &mut run[..RUN.min(n - start)];
        idom.decode(start as u32, run);
        if rev {
            for (k, &p) in run.iter().enumerate().rev() {
                f((start + k) as u32, p);
            }
        } else {
            for (k, &p) in run.iter().enumerate() {
                f((start + k) as u32, p);
            }
        }
    }
}

/// What [`compute`] gives: the tree, every node's retained size, and MAT's quick
/// retained size per class (see [`class_min_retained`]).
pub struct Computed {
    pub tree: DomTree,
    pub retained: Retained,
    pub class_min: Vec<u64>,
    /// MAT's quick retained size in the second grouping of [`WalkExtra::group`] (empty when
    /// the extra asks for none).
    pub class_min2: Vec<u64>,
}

/// What a caller counts in [`compute_with`]'s walk besides the retained sizes, so that
/// per-node figures that follow the tree need no walk of their own.
pub trait WalkExtra {
    /// Whether [`WalkExtra::group`] gives a second grouping for MAT's quick retained size.
    const SECOND_MINIMUM: bool = false;
    /// The group of reachable node `x` of class `class` in the second grouping (below the
    /// `classes` given to [`compute_with`]; [`NO_GROUP`] for none).
    #[inline(always)]
    fn group(&self, _x: u32, class: u32) -> u32 {
        class
    }
    /// Node `x` (of class `class`, `bytes` shallow), a child of `parent` (the virtual
    /// root's index for a top-level node), in depth-first order: once per reachable node,
    /// right after [`compute_with`]'s `shallow` call for it.
    #[inline(always)]
    fn node(&mut self, _x: u32, _class: u32, _bytes: u64, _parent: u32) {}
    /// The walk left top-level node `x` (a child of the virtual root), which retains
    /// `retained` bytes: every node of its subtree was given to [`WalkExtra::node`] since
    /// it was.
    #[inline(always)]
    fn top_done(&mut self, _x: u32, _retained: u64) -> Result<()> {
        Ok(())
    }
}

/// Counts nothing besides the retained sizes.
impl WalkExtra for () {}

/// Builds the tree, then computes retained sizes and the per-class minimum retained sizes
/// in one walk of it. `shallow(v, class_of(v))` must be a multiple of `align` (MAT's
/// sizes are aligned); it is called exactly once for every reachable object and never for
/// another, so that a caller can total per-class figures in it instead of in a pass of its
/// own (the class is read once for both). `class_of` and `classes` are as for
/// [`class_min_retained`].
///
/// Three passes over the immediate dominators and one walk of the tree:
///
/// 1. count, per node, the entries its list takes and which nodes have children (and
///    per block the entries of its lists);
/// 2. for each block, where each of its nodes' lists starts: a block whose entries take
///    at most 255 units (nearly all) is *direct*, its nodes' places kept in a byte each
///    until the lists are written;
/// 3. write every child, from the last index down, into its parent's list in a direct
///    block (the first one written is its list's last), else one before the other from
///    the block's end; then group the other blocks' entries by parent (a block of one
///    parent is grouped already);
/// 4. walk the tree depth first (see [`walk`]): a node's retained size is known when
///    its walk ends, and kept when its subtree holds more than [`SMALL`] nodes.
///
/// Memory while building: the places (`n` bytes) and the tree's arrays, then the walk's
/// stack (as deep as the tree) and the stored sizes (8 bytes each until they are put
/// at their ranks: 2 bytes each and `n/5` bytes of ranks). The immediate
/// dominators the tree is built from are packed first ([`idom`]: about 1.1 bytes per
/// object on the 1 GB benchmark dump instead of 4), and every pass here reads them packed.
pub fn compute<I: IdomRead + ?Sized>(
    idom: &I,
    align: u32,
    shallow: impl FnMut(u32, u32) -> u64,
    class_of: impl Fn(u32) -> u32,
    classes: usize,
) -> Result<Computed> {
    compute_with(idom, align, shallow, class_of, classes, &mut ())
}

/// [`compute`], telling `extra` about every node in its walk (see [`WalkExtra`]).
pub fn compute_with<I: IdomRead + ?Sized, E: WalkExtra>(
    idom: &I,
    align: u32,
    shallow: impl FnMut(u32, u32) -> u64,
    class_of: impl Fn(u32) -> u32,
    classes: usize,
    extra: &mut E,
) -> Result<Computed> {
    let n = idom.count();
    if n >= u32::MAX as usize - 1 {
        return Err(Error::memory(format!("{n} objects: too many for the dominator tree")));
    }
    let nb = n.div_ceil(BLOCK);

    // Each node's place in its block: a direct block's entries take at most 255 units.
    let mut place = crate::alloc::try_filled(n, 0u8, "the dominator tree")?;

    // 1. Which nodes have children, the entries of each node's list (saturating: only
    // the direct blocks' are used) and of each block's.
    let mut nonleaf = crate::alloc::try_filled(nb, 0u32, "the dominator tree")?;
    let mut blocks = crate::alloc::try_filled(nb + 1, 0u32, "the dominator tree")?;
    let mut top = 0usize;
    each_parent(idom, false, |v, p| {
        let p = match p {
            UNREACHABLE => return,
            VIRTUAL_ROOT => return top += 1,
            p => p,
        };
        let b = p as usize / BLOCK;
        nonleaf[b] |= 1 << (p as usize % BLOCK);
        let len = tree::entry_units((b * BLOCK) as u32, v);
        blocks[b] = blocks[b].saturating_add(len as u32);
        place[p as usize] = place[p as usize].saturating_add(len as u8);
    });

    // 2. The direct blocks, each node's place being where its list ends in its block's
    // entries (the fill goes backwards); where each block's entries start.
    let mut direct = BitSet::new(nb, "the dominator tree")?;
    for b in 0..nb {
        if blocks[b] <= u8::MAX as u32 {
            direct.insert(b as u32);
            let mut at = 0u8;
            for slot in &mut place[b * BLOCK..n.min((b + 1) * BLOCK)] {
                at += *slot;
                *slot = at;
            }
        }
    }
    let is_direct = |b: usize| direct.contains(b as u32);
    let mut at = 0u64;
    for slot in blocks.iter_mut() {
        let len = *slot as u64;
        *slot = tree::block_start(at)?;
        at += len;
    }
    // The fill's cursors: a direct block's start, the end of another's (which the fill
    // brings back to its start).
    for b in 0..nb {
        if !is_direct(b) {
            blocks[b] = blocks[b + 1];
        }
    }

    // 3. Every child into its parent's block, each before the one written before it. A
    // node's bit in `first` is cleared once its list's last entry is written.
    let mut units = crate::alloc::try_filled(blocks[nb] as usize, 0u16, "the dominator tree")?;
    let mut top_level: Vec<u32> = crate::alloc::try_with_capacity(top, "the dominator tree")?;
    let mut first = crate::alloc::try_filled(nb, 0u32, "the dominator tree")?;
    first.copy_from_slice(&nonleaf);
    each_parent(idom, true, |v, p| {
        let p = match p {
            UNREACHABLE => return,
            VIRTUAL_ROOT => return top_level.push(v),
            p => p,
        };
        let b = p as usize / BLOCK;
        let base = (b * BLOCK) as u32;
        let len = tree::entry_units(base, v);
        if is_direct(b) {
            let bit = 1 << (p as usize % BLOCK);
            let last = first[b] & bit != 0;
            first[b] &= !bit;
            place[p as usize] -= len as u8;
            let at = blocks[b] as usize + place[p as usize] as usize;
            tree::write_entry(&mut units[at..], base, v, last);
        } else {
            blocks[b] -= len as u32;
            tree::write_entry(&mut units[blocks[b] as usize..], base, v, false);
        }
    });
    drop(first);
    drop(place);
    // Index order, as the walk takes the lists (largest first once the sizes are known).
    top_level.reverse();

    // The other blocks' entries grouped by parent, each list staying in index order (the
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
        if a == e || is_direct(b) {
            continue;
        }
        let base = (b * BLOCK) as u32;
        let seg = &mut units[a..e];
        if nonleaf[b].count_ones() == 1 {
            // One parent: its list is the block's entries, in order already.
            let count = tree::end_list(seg);
            if seg.len() >= tree::LONG {
                long.push(tree::Long {
                    node: base + nonleaf[b].trailing_zeros(),
                    start: a as u32,
                    units: seg.len() as u32,
                    count,
                });
                tree::mark_special(&mut blocks[b]);
            }
            continue;
        }
        let sorted: &[u64] = {
            keys.clear();
            keys.try_reserve(seg.len()).map_err(|_| crate::alloc::alloc_error(seg.len() * 8, "the dominator tree"))?;
            keys.extend(
                tree::entries(seg, base)
                    .map(|v| sort_key(tree_parent(idom, v).map_or(0, |p| p.wrapping_sub(base)) % BLOCK as u32, v)),
            );
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
    drop(direct);
    let mut tree = DomTree { n: n as u32, nonleaf, blocks, units, long, top: top_level };

    // 4. Retained sizes and the class minimum.
    let (retained, class_min, class_min2) = walk(&tree, align, shallow, class_of, classes, extra)?;
    // (Top-level nodes' sizes are stored, whatever their subtrees.)
    tree.top.sort_unstable_by_key(|&v| (std::cmp::Reverse(retained.stored(v).unwrap_or(0)), v));
    Ok(Computed { tree, retained, class_min, class_min2 })
}

/// What a depth-first walk of the tree ([`depth_first`]) does at each node.
trait Visit {
    /// What the walk keeps per node on its path (the virtual root's included).
    type Frame;
    /// The walk reaches `x` (a leaf when `leaf`), a child of node `up` whose frame is `parent`.
    fn enter(&mut self, x: u32, leaf: bool, up: u32, parent: &mut Self::Frame) -> Self::Frame;
    /// The walk leaves `x` (with `frame`, from `enter`), a child of node `up`: every node
    /// below it was left.
    fn leave(&mut self, x: u32, frame: Self::Frame, up: u32, parent: &mut Self::Frame) -> Result<()>;
}

/// Walks the tree depth first from the virtual root (whose frame is `root`, returned at
/// the end), without recursion, calling `visit` at every other node.
///
/// Each node on the path keeps a cursor into its list (4 bytes), and the walk reads the
/// next child from the deepest one: every entry is decoded once, and nothing is copied
/// to a stack of children still to visit. A leaf (most nodes) is entered and left at
/// once, without a frame. Children are walked in the lists' order, which is index order
/// (but for the virtual root's once it is sorted), which is address order: as a
/// collector lays objects out roughly depth first, that makes the walk's reads of the
/// per-object columns and of the lists nearly sequential.
fn depth_first<V: Visit>(tree: &DomTree, visit: &mut V, root: V::Frame, what: &str) -> Result<V::Frame> {
    // Per node on the path: the node, its cursor, its frame. The virtual root's cursor
    // is an index into its children; one place calls `enter`, so that it is inlined.
    let mut frames: Vec<(u32, tree::Cursor, V::Frame)> = Vec::new();
    crate::alloc::try_push(&mut frames, (tree.root(), tree::Cursor::top(), root), what)?;
    // Where the list entered last starts: the walk mostly enters a block's nodes in
    // index order, and then looks each list up from the one before.
    let mut resume = Resume::default();
    while let Some((node, cursor, frame)) = frames.last_mut() {
        match tree.next_child(*node, cursor) {
            Some(x) => {
                let leaf = tree.is_leaf(x);
                let up = *node;
                let entered = visit.enter(x, leaf, up, frame);
                if leaf {
                    visit.leave(x, entered, up, frame)?;
                    continue;
                }
                let cursor = tree.cursor_after(x, resume);
                resume = Resume::at(x, cursor);
                crate::alloc::try_push(&mut frames, (x, cursor, entered), what)?;
            }
            None => {
                let (x, _, done) = frames.pop().expect("a frame");
                match frames.last_mut() {
                    Some((up, _, parent)) => visit.leave(x, done, *up, parent)?,
                    None => return Ok(done),
                }
            }
        }
    }
    unreachable!("the virtual root's frame is returned when it is left")
}

/// A node's classes for [`ClassMin`]: the one it counts for, the one it keeps active
/// ([`NO_GROUP`] for none). Two `u32`s: the walk keeps one per node on its path.
#[derive(Clone, Copy)]
struct OnPath {
    counts: u32,
    active: u32,
}

/// No class in [`OnPath`] (a class index never equals it).
pub const NO_GROUP: u32 = u32::MAX;

impl Default for OnPath {
    fn default() -> OnPath {
        OnPath { counts: NO_GROUP, active: NO_GROUP }
    }
}

/// Per-class state of MAT's quick retained size (see [`class_min_retained`]): the sum
/// per class, and how many nodes of each class are on the walk's path.
struct ClassMin<C> {
    class_of: C,
    sum: Vec<u64>,
    active: Vec<u32>,
}

impl<C: Fn(u32) -> u32> ClassMin<C> {
    fn new(class_of: C, classes: usize, what: &str) -> Result<Self> {
        Ok(ClassMin {
            class_of,
            sum: crate::alloc::try_filled(classes, 0u64, what)?,
            active: crate::alloc::try_filled(classes, 0u32, what)?,
        })
    }

    /// Enters `x` (a leaf when `leaf`): its class if no node of that class is above it
    /// (it counts for its class), and its class if it is not a leaf (it is on the path
    /// until it is left). Objects without a class have no histogram row.
    #[inline]
    fn enter(&mut self, x: u32, leaf: bool) -> OnPath {
        self.enter_class((self.class_of)(x), leaf)
    }

    /// [`ClassMin::enter`] with the node's class already read.
    #[inline(always)]
    fn enter_class(&mut self, class: u32, leaf: bool) -> OnPath {
        if class as usize >= self.sum.len() || class == NO_GROUP {
            return OnPath::default();
        }
        let counts = if self.active[class as usize] == 0 { class } else { NO_GROUP };
        let active = if leaf { NO_GROUP } else { class };
        if !leaf {
            self.active[class as usize] += 1;
        }
        OnPath { counts, active }
    }

    /// Leaves a node (as `enter` gave it) retaining `bytes`.
    #[inline]
    fn leave(&mut self, on: OnPath, bytes: impl FnOnce() -> u64) {
        if on.active != NO_GROUP {
            self.active[on.active as usize] -= 1;
        }
        if on.counts != NO_GROUP {
            self.sum[on.counts as usize] += bytes();
        }
    }
}

/// [`compute`]'s walk: retained sizes (a node's shallow size plus its children's, known
/// when the walk leaves it), the class minimum, and what `extra` counts.
struct Summing<'e, S, C, E> {
    shallow: S,
    align: u64,
    /// The alignment's shift when it is a power of two (a shift, not a division, per
    /// object; odd dumps have other alignments).
    shift: Option<u32>,
    stored: Stored,
    min: ClassMin<C>,
    /// The class minimum in `extra`'s second grouping (when it asks for one).
    min2: ClassMin<fn(u32) -> u32>,
    /// The virtual root's index: a node entered under it is a top-level node.
    root: u32,
    extra: &'e mut E,
}

/// The retained units so far of a node on the path, and its class as [`ClassMin::enter`]
/// gives it (in both groupings).
struct Summed {
    units: u64,
    /// Nodes in the subtree so far (saturating).
    nodes: u32,
    class: OnPath,
    class2: OnPath,
}

impl<S: FnMut(u32, u32) -> u64, C: Fn(u32) -> u32, E: WalkExtra> Visit for Summing<'_, S, C, E> {
    type Frame = Summed;

    // Once per node: always inlined into the walk. The class is read once, for both.
    #[inline(always)]
    fn enter(&mut self, x: u32, leaf: bool, up: u32, _: &mut Summed) -> Summed {
        let class = (self.min.class_of)(x);
        let bytes = (self.shallow)(x, class);
        self.extra.node(x, class, bytes, up);
        let units = match self.shift {
            Some(shift) => bytes >> shift,
            None => bytes / self.align,
        };
        let class2 =
            if E::SECOND_MINIMUM { self.min2.enter_class(self.extra.group(x, class), leaf) } else { OnPath::default() };
        Summed { units, nodes: 1, class: self.min.enter_class(class, leaf), class2 }
    }

    // Once per node: always inlined into the walk.
    #[inline(always)]
    fn leave(&mut self, x: u32, frame: Summed, up: u32, parent: &mut Summed) -> Result<()> {
        if frame.nodes > SMALL || up == self.root {
            self.stored.push(x, frame.units)?;
        }
        parent.units += frame.units;
        parent.nodes = parent.nodes.saturating_add(frame.nodes);
        let align = self.align;
        self.min.leave(frame.class, || frame.units * align);
        if E::SECOND_MINIMUM {
            self.min2.leave(frame.class2, || frame.units * align);
        }
        if up == self.root {
            self.extra.top_done(x, frame.units * align)?;
        }
        Ok(())
    }
}

/// Retained sizes and MAT's quick retained size per class (in `extra`'s second grouping
/// too), in one depth-first walk of the tree ([`depth_first`]).
fn walk<E: WalkExtra>(
    tree: &DomTree,
    align: u32,
    shallow: impl FnMut(u32, u32) -> u64,
    class_of: impl Fn(u32) -> u32,
    classes: usize,
    extra: &mut E,
) -> Result<(Retained, Vec<u64>, Vec<u64>)> {
    const WHAT: &str = "retained sizes";
    let align = align.max(1) as u64;
    let shift = align.is_power_of_two().then(|| align.trailing_zeros());
    let no_class: fn(u32) -> u32 = |_| NO_GROUP;
    let mut summing = Summing {
        shallow,
        align,
        shift,
        stored: Stored::default(),
        min: ClassMin::new(class_of, classes, WHAT)?,
        min2: ClassMin::new(no_class, if E::SECOND_MINIMUM { classes } else { 0 }, WHAT)?,
        root: tree.root(),
        extra,
    };
    let root = Summed { units: 0, nodes: 1, class: OnPath::default(), class2: OnPath::default() };
    let everything = depth_first(tree, &mut summing, root, WHAT)?;
    let Summing { mut stored, min, min2, .. } = summing;
    stored.push(tree.root(), everything.units)?;
    Ok((stored.finish(tree.n as usize, align)?, min.sum, min2.sum))
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
fn write_lists(
    seg: &mut [u16],
    base: u32,
    at: usize,
    sorted: impl Iterator<Item = (u32, u32)>,
    long: &mut Vec<tree::Long>,
) -> bool {
    let mut sorted = sorted.peekable();
    let (mut pos, mut start, mut count, mut any) = (0usize, 0usize, 0u32, false);
    while let Some((j, v)) = sorted.next() {
        let last = sorted.peek().map_or(true, |&(k, _)| k != j);
        pos += tree::write_entry(&mut seg[pos..], base, v, last);
        count += 1;
        if last {
            if pos - start >= tree::LONG {
                long.push(tree::Long {
                    node: base + j,
                    start: (at + start) as u32,
                    units: (pos - start) as u32,
                    count,
                });
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
/// One walk of the tree ([`depth_first`], the one [`compute`] sums retained sizes in).
pub fn class_min_retained(
    tree: &DomTree,
    retained: impl Fn(u32) -> u64,
    class_of: impl Fn(u32) -> u32,
    classes: usize,
) -> Result<Vec<u64>> {
    const WHAT: &str = "the class minimum walk";
    /// A node counts with the retained size it has already.
    struct Minimum<R, C>(R, ClassMin<C>);
    impl<R: Fn(u32) -> u64, C: Fn(u32) -> u32> Visit for Minimum<R, C> {
        type Frame = OnPath;

        #[inline]
        fn enter(&mut self, x: u32, leaf: bool, _: u32, _: &mut OnPath) -> OnPath {
            self.1.enter(x, leaf)
        }

        #[inline]
        fn leave(&mut self, x: u32, frame: OnPath, _: u32, _: &mut OnPath) -> Result<()> {
            let retained = &self.0;
            self.1.leave(frame, || retained(x));
            Ok(())
        }
    }
    let mut minimum = Minimum(retained, ClassMin::new(class_of, classes, WHAT)?);
    depth_first(tree, &mut minimum, OnPath::default(), WHAT)?;
    Ok(minimum.1.sum)
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
        let class = [0u32, 1, 1, 0, 0];
        let Computed { tree, retained, class_min, .. } =
            compute(&idom, 10, |v, _| sizes[v as usize], |v| class[v as usize], 2).unwrap();
        assert_eq!(
            (0..6)
                .map(|v| retained.get(v, &tree, |v| sizes[v as usize], |v| v == 5 || idom[v as usize] != UNREACHABLE))
                .collect::<Vec<_>>(),
            vec![100, 50, 30, 40, 0, 100]
        );
        assert_eq!(tree.children(5).collect::<Vec<_>>(), [0]);
        assert_eq!(tree.children(0).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(class_min, vec![100, 50]);
        let min = class_min_retained(
            &tree,
            |v| retained.get(v, &tree, |v| sizes[v as usize], |_| true),
            |v| class[v as usize],
            2,
        )
        .unwrap();
        assert_eq!(min, vec![100, 50]);
    }

    #[test]
    fn wide_nodes_and_big_child_counts() {
        // Node 0 under the root has 70,000 children (past the keyed sort and a direct
        // block's 255 units), node 1 has 300.
        let n = 70_302usize;
        let mut idom = vec![0u32; n];
        idom[0] = VIRTUAL_ROOT;
        idom[1] = VIRTUAL_ROOT;
        idom[n - 300..].fill(1);
        let size = |v: u32| 8 * (1 + (v as u64 * 7) % 5);
        let (tree, retained) = tree_of(&idom, 8, size);
        let kids: Vec<u32> = tree.children(0).collect();
        assert_eq!(kids.len(), 70_000);
        assert_eq!(tree.child_count(0), 70_000);
        assert_eq!(kids, (2..n as u32 - 300).collect::<Vec<_>>());
        assert_eq!(tree.children(1).count(), 300);
        assert_eq!(tree.child_count(1), 300);
        assert_eq!(retained[1], size(1) + (n as u32 - 300..n as u32).map(size).sum::<u64>());
        assert_eq!(retained[n], (0..n as u32).map(size).sum::<u64>());
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
            // Both ways: in the walk that sums the retained sizes, and on the tree built.
            let Computed { tree, retained, class_min, .. } =
                compute(&idom, 8, |v, _| size(v), |v| class[v as usize], 4).unwrap();
            let all = all_retained(&tree, &retained, &idom, size);
            let min = class_min_retained(&tree, |v| all[v as usize], |v| class[v as usize], 4).unwrap();
            // Retained sizes from the definition: each object counts for all its dominators.
            let mut ret = vec![0u64; n];
            for w in 0..n {
                let mut x = w as u32;
                while idom[w] != UNREACHABLE && x != VIRTUAL_ROOT {
                    ret[x as usize] += size(w as u32);
                    x = idom[x as usize];
                }
            }
            let expected = minimum_by_definition(&idom, &class, &ret, 4);
            assert_eq!(min, expected, "round {round}");
            assert_eq!(class_min, expected, "round {round}, summing walk");
        }
    }

    /// MAT's quick retained size per group from the definition: the retained sizes `ret`
    /// of the objects with no object of the same group above them (`NO_GROUP`: in none).
    fn minimum_by_definition(idom: &[u32], group: &[u32], ret: &[u64], groups: usize) -> Vec<u64> {
        let mut expected = vec![0u64; groups];
        for v in 0..idom.len() {
            let g = group[v];
            if idom[v] == UNREACHABLE || g == NO_GROUP {
                continue;
            }
            let mut p = idom[v];
            while p != VIRTUAL_ROOT && group[p as usize] != g {
                p = idom[p as usize];
            }
            if p == VIRTUAL_ROOT {
                expected[g as usize] += ret[v];
            }
        }
        expected
    }

    /// [`compute_with`]'s extra against the definitions: the second grouping's minimum
    /// (nodes moved to other groups, some to none), every reachable node given once with
    /// its class, size and immediate dominator, and each top-level node's subtree given
    /// between its own node and its `top_done` (with its retained size).
    #[test]
    fn walk_extra_against_brute_force() {
        struct Extra<'a> {
            class: &'a [u32],
            moved: &'a [u32],
            seen: Vec<(u32, u32, u64, u32)>,
            tops: Vec<(u32, u64, usize, usize)>,
            open: Option<(u32, usize)>,
        }
        impl WalkExtra for Extra<'_> {
            const SECOND_MINIMUM: bool = true;
            fn group(&self, x: u32, class: u32) -> u32 {
                assert_eq!(class, self.class[x as usize]);
                self.moved[x as usize]
            }
            fn node(&mut self, x: u32, class: u32, bytes: u64, parent: u32) {
                if parent == self.class.len() as u32 {
                    assert!(self.open.is_none(), "a top-level node inside another's subtree");
                    self.open = Some((x, self.seen.len()));
                }
                assert!(self.open.is_some(), "a node outside every top-level subtree");
                self.seen.push((x, class, bytes, parent));
            }
            fn top_done(&mut self, x: u32, retained: u64) -> Result<()> {
                let (top, from) = self.open.take().expect("a top-level node entered");
                assert_eq!(top, x);
                self.tops.push((x, retained, from, self.seen.len()));
                Ok(())
            }
        }
        let mut seed = 0x1D8E_4E27_C47D_124Fu64;
        let mut rand = |m: u64| xorshift(&mut seed, m);
        for round in 0..12 {
            let n = 400 + 500 * round as usize;
            let mut idom: Vec<u32> = (0..n as u32)
                .map(|v| match (v, rand(10)) {
                    (0..=2, _) | (_, 0) => VIRTUAL_ROOT,
                    (_, 1) => UNREACHABLE,
                    (_, 2..=6) => v - 1 - rand((v as u64).min(30)) as u32,
                    _ => rand(v as u64) as u32,
                })
                .collect();
            unreachable_below(&mut idom);
            let class: Vec<u32> = (0..n).map(|_| [0, 1, 2, 3, 4, u32::MAX][rand(6) as usize]).collect();
            // Class 4's nodes go to the group of the class below them in index order, or to none.
            let moved: Vec<u32> =
                (0..n).map(|v| if class[v] == 4 { [0, 1, 2, NO_GROUP][rand(4) as usize] } else { class[v] }).collect();
            let mut extra = Extra { class: &class, moved: &moved, seen: Vec::new(), tops: Vec::new(), open: None };
            let c = compute_with(&idom, 8, |v, _| size(v), |v| class[v as usize], 5, &mut extra).unwrap();
            let (ret, _) = definition(&idom, size);
            // The second grouping's minimum, from the definition.
            assert_eq!(c.class_min2, minimum_by_definition(&idom, &moved, &ret, 5), "round {round}");
            // Every reachable node once, with its class, size and dominator.
            let mut seen = extra.seen.clone();
            seen.sort_unstable();
            let want: Vec<(u32, u32, u64, u32)> = (0..n as u32)
                .filter(|&v| idom[v as usize] != UNREACHABLE)
                .map(|v| {
                    let p = idom[v as usize];
                    (v, class[v as usize], size(v), if p == VIRTUAL_ROOT { n as u32 } else { p })
                })
                .collect();
            assert_eq!(seen, want, "round {round}");
            // Each top-level node's subtree is given between it and its top_done.
            let top_of = |mut v: u32| {
                while idom[v as usize] != VIRTUAL_ROOT {
                    v = idom[v as usize];
                }
                v
            };
            assert_eq!(extra.tops.len(), idom.iter().filter(|&&p| p == VIRTUAL_ROOT).count());
            for &(top, retained, from, to) in &extra.tops {
                assert_eq!(retained, ret[top as usize], "round {round}, top {top}");
                assert!(extra.seen[from..to].iter().all(|&(v, ..)| top_of(v) == top), "round {round}, top {top}");
            }
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
    /// the fill, from the last index down, meets both), against the definitions; `compute` asks for the shallow
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
            compute(
                &packed,
                8,
                |v, _| {
                    calls[v as usize] += 1;
                    size(v)
                },
                |_| u32::MAX,
                0,
            )
            .unwrap();
            for v in 0..n {
                assert_eq!(calls[v], (idom[v] != UNREACHABLE) as u32, "round {round}, object {v}");
            }
        }
    }

    /// The tree and retained sizes of `idom`, without classes.
    fn tree_of<I: IdomRead + ?Sized>(idom: &I, align: u32, size: impl Fn(u32) -> u64) -> (DomTree, Vec<u64>) {
        let c = compute(idom, align, |v, _| size(v), |_| u32::MAX, 0).unwrap();
        let all = all_retained(&c.tree, &c.retained, idom, size);
        (c.tree, all)
    }

    /// Every node's retained size as [`Retained::get`] gives it (the virtual root last).
    fn all_retained<I: IdomRead + ?Sized>(
        tree: &DomTree,
        retained: &Retained,
        idom: &I,
        size: impl Fn(u32) -> u64,
    ) -> Vec<u64> {
        let n = idom.count() as u32;
        (0..=n).map(|v| retained.get(v, tree, &size, |v| v == n || idom.at(v) != UNREACHABLE)).collect()
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
        let (tree, retained) = tree_of(packed, 8, size);
        let (ret, by_parent) = definition(idom, size);
        for v in 0..=n as u32 {
            assert_eq!(retained[v as usize], ret[v as usize], "{label}, object {v}");
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
            let (tree, retained) = tree_of(&idom, 8, size);
            let (ret, by_parent) = definition(&idom, size);
            for v in 0..=n as u32 {
                assert_eq!(retained[v as usize], ret[v as usize], "{n} nodes, object {v}");
                assert_eq!(tree.children(v).collect::<Vec<_>>(), by_parent[v as usize], "{n} nodes, children of {v}");
            }
        }
    }

    /// Lists looked up from where another starts (`children_after`, as the walks of
    /// [`depth_first`] do) against the definition: lookups mostly forward in a block, some
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
        let (tree, _) = tree_of(&packed, 8, size);
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
        let (tree, _) = tree_of(&idom, 8, size);
        // The entries the lists take, from the definition of the codes' range: one for a
        // difference in 1 - 2^14..=2^14 - 1, four otherwise.
        let units = |p: i64, kids: &[i64]| {
            kids.iter().map(|&w| if (w - (p & !31)).abs() < 1 << 14 { 1 } else { 4 }).sum::<usize>()
        };
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
        let (tree, _) = tree_of(&packed, 8, size);
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
            // Class 0 for the top half of the chain, 1 below: each counts its top object.
            let depth = |v: u32| if down { v as usize } else { n - 1 - v as usize };
            let at_depth = |d: usize| if down { d as u32 } else { (n - 1 - d) as u32 };
            let class = |v: u32| (depth(v) >= n / 2) as u32;
            let Computed { tree, retained, class_min, .. } = compute(&packed, 8, |v, _| size(v), class, 2).unwrap();
            let retained = all_retained(&tree, &retained, &packed, size);
            let mut below = 0u64;
            let order: Vec<u32> = if down { (0..n as u32).rev().collect() } else { (0..n as u32).collect() };
            for &v in &order {
                below += size(v);
                assert_eq!(retained[v as usize], below, "object {v}");
            }
            assert_eq!(retained[n], below);
            for &v in &order[1..] {
                assert_eq!(tree.child_count(v), 1);
            }
            assert!(tree.is_leaf(order[0]));
            let tops = vec![retained[at_depth(0) as usize], retained[at_depth(n / 2) as usize]];
            assert_eq!(class_min, tops);
            assert_eq!(class_min_retained(&tree, |v| retained[v as usize], class, 2).unwrap(), tops);
        }
    }

    #[test]
    fn sizes_beyond_u32_units() {
        // 0 → 1 → 2 with 3·2³⁰ units each (24 GiB at 8 bytes): 1 and 0 overflow u32 units.
        let idom = vec![VIRTUAL_ROOT, 0, 1, UNREACHABLE];
        let big = 3u64 << 33;
        let (tree, retained) = tree_of(&idom, 8, |v| if v == 3 { 8 } else { big });
        assert_eq!(retained, vec![3 * big, 2 * big, big, 0, 3 * big]);
        assert_eq!(tree.children(4).collect::<Vec<_>>(), [0]);
        assert_eq!(tree.children(3).count(), 0);
    }
}
