//! Breadth-first walks up the referrers (from an object towards the GC roots) with one
//! parent entry per object: the leak trace of an object and the other ways it is held
//! ([`crate::holders::ways`]). The parent array is allocated once per question and reset
//! between walks through the list of objects a walk touched, so many walks over one
//! question cost one array (4 bytes per object) plus what each walk meets.

use crate::alloc::{try_filled, try_push};
use crate::error::Result;

/// The parent entry of an object no walk has met.
const NOT_SEEN: u32 = u32::MAX;
/// The parent entry of the object a walk starts from.
const START: u32 = u32::MAX - 1;

/// Breadth-first walks up the referrers, sharing one parent array.
pub(crate) struct Walker {
    parent: Vec<u32>,
    touched: Vec<u32>,
    queue: Vec<u32>,
}

impl Walker {
    /// A walker over `n` objects.
    pub(crate) fn new(n: usize) -> Result<Walker> {
        Ok(Walker { parent: try_filled(n, NOT_SEEN, "the path search")?, touched: Vec::new(), queue: Vec::new() })
    }

    /// Forgets the last walk.
    pub(crate) fn reset(&mut self) {
        for &v in &self.touched {
            self.parent[v as usize] = NOT_SEEN;
        }
        self.touched.clear();
        self.queue.clear();
    }

    /// Starts a walk at `v`.
    pub(crate) fn start(&mut self, v: u32) -> Result<()> {
        self.see(v, START)
    }

    /// Meets `v`, a referrer of `parent` (the object below it), and queues it.
    pub(crate) fn see(&mut self, v: u32, parent: u32) -> Result<()> {
        self.parent[v as usize] = parent;
        try_push(&mut self.touched, v, "the path search")?;
        try_push(&mut self.queue, v, "the path search")
    }

    /// Whether this walk met `v`.
    #[inline]
    pub(crate) fn seen(&self, v: u32) -> bool {
        self.parent[v as usize] != NOT_SEEN
    }

    /// The object queued at `head` (the walk visits them in order).
    #[inline]
    pub(crate) fn queued(&self, head: usize) -> Option<u32> {
        self.queue.get(head).copied()
    }

    /// The chain from `top` down to the walk's start (parents point downwards).
    pub(crate) fn chain_from(&self, top: u32) -> Vec<u32> {
        let mut out = vec![top];
        let mut x = top;
        while self.parent[x as usize] != START {
            x = self.parent[x as usize];
            out.push(x);
        }
        out
    }
}
