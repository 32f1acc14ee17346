//! Searches over the heap graph, one home for each: the order a breadth-first search
//! discovers objects in ([`order`]), the search from the GC roots that keeps no array per
//! object and the BFS parents it recovers afterwards ([`levels`]: an object's shortest
//! path from a GC root), the union of the shortest paths to a set of objects with a tally
//! per node ([`union`]: merged paths, a group suspect's common path), the walk up the
//! referrers with a parent per object ([`up`]: a leak trace and the other ways an object
//! is held), and how one object references another ([`via`]: the fields, elements,
//! statics and links between them, read back from the dump). The bit sets they mark
//! objects in are [`crate::bits::BitSet`].
//!
//! Used by the questions (`holders`, `query`), the leak finder (`leaks`) and the report
//! (`report`); nothing here allocates an array per object unless its docs say so.

pub mod levels;
pub mod order;
pub mod union;
pub mod up;
pub mod via;
