//! Reachability strength: how firmly each object of the dump is held, and the
//! strength-aware dominator tree (the second reading of a heap, beside MAT's; seed `001_*`,
//! DESIGN.md §5b).
//!
//! Terms:
//!
//! - **Edge strength**: every reference has one. `Reference.referent` of a
//!   `SoftReference` is [`Strength::Soft`], of a `WeakReference` [`Strength::Weak`], of a
//!   `PhantomReference` [`Strength::Phantom`]; the finalizer machinery is
//!   [`Strength::Finalizer`]; `ThreadLocal$ThreadLocalMap$Entry.value` is
//!   [`Strength::ThreadLocal`]; a thread's stack-frame locals (the Java-frame, JNI-local,
//!   native-stack and thread-block roots of a known thread, which are edges from the
//!   thread object) are [`Strength::Local`]; the curated cache fields are
//!   [`Strength::Cache`]. Everything else is [`Strength::Strong`]. The rules are data
//!   ([`FIELD_RULES`], [`STATIC_RULES`], [`CACHE_FIELDS`]); classes are recognised by
//!   their super class chain, so an app's subclass of `WeakReference` counts. An edge
//!   that a stronger field of the same object also holds is as strong as that field.
//!   GC roots have a strength too: the thread-local root kinds of unknown threads are
//!   `Local`, every other root `Strong` ([`root_strength`]).
//! - **Object strength**: over every path from a GC root, the weakest edge of the path;
//!   the object gets the best path (a widest-path, max-min problem). Objects no path
//!   reaches are [`Strength::Unreachable`]. Computed by [`walk::strengths`]: one stack
//!   per strength, drained firmest first, so an object is expanded once, at its final
//!   strength; `O(n + m)` time, one byte per object.
//! - **Partition**: objects and shallow bytes per strength ([`walk::partition`]); the nine
//!   rows add up to the whole dump, unreachable objects included.
//! - **Strength-aware tree** ([`tree`]): the dominator tree of the whole dump over the
//!   edges [`tree::counts`] selects — a weakening edge (weaker than `Strong`) counts only
//!   when its target is held no more firmly than the edge (the seed's `isHeldThrough`),
//!   the same for root edges — plus uncollected garbage hanging under the virtual root
//!   from its entry points. Computed by the same dominator and retained-size code as
//!   MAT's tree, over another edge and root set.

pub mod owners;
pub mod packed;
pub mod tree;
pub mod walk;
