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

use crate::graph::roots::RootKinds;
use crate::records::heap::RootKind;

/// How firmly an object (or a reference) is held, firmest first. Stored as its `u8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Strength {
    Strong = 0,
    /// Held through a curated cache field: a cache is not an owner.
    Cache = 1,
    /// Held through a thread's `ThreadLocal` map.
    ThreadLocal = 2,
    /// Held by a stack frame or a native local.
    Local = 3,
    Soft = 4,
    Weak = 5,
    /// Queued for or awaiting finalization.
    Finalizer = 6,
    Phantom = 7,
    /// No path from a GC root: uncollected garbage.
    Unreachable = 8,
}

/// Every strength, firmest first.
pub const ALL: [Strength; 9] = [
    Strength::Strong,
    Strength::Cache,
    Strength::ThreadLocal,
    Strength::Local,
    Strength::Soft,
    Strength::Weak,
    Strength::Finalizer,
    Strength::Phantom,
    Strength::Unreachable,
];

/// The strength byte of an object nothing reaches.
pub const UNREACHABLE: u8 = Strength::Unreachable as u8;
/// The strength byte of a strong edge.
pub const STRONG: u8 = Strength::Strong as u8;

impl Strength {
    /// The name in reports: lower snake case.
    pub fn name(self) -> &'static str {
        match self {
            Strength::Strong => "strong",
            Strength::Cache => "cache",
            Strength::ThreadLocal => "thread_local",
            Strength::Local => "local",
            Strength::Soft => "soft",
            Strength::Weak => "weak",
            Strength::Finalizer => "finalizer",
            Strength::Phantom => "phantom",
            Strength::Unreachable => "unreachable",
        }
    }

    /// The strength stored as `b` (anything out of range is `Unreachable`).
    pub fn from_u8(b: u8) -> Strength {
        ALL.get(b as usize).copied().unwrap_or(Strength::Unreachable)
    }
}

/// A rule: the instance field `field` of `class` and of every subclass of it holds what it
/// references at `strength`. A rule of a subclass replaces its super class's for the same
/// field (`Finalizer.referent` is `Finalizer`, not the `Reference` default).
pub struct FieldRule {
    pub class: &'static str,
    pub field: &'static str,
    pub strength: Strength,
}

const fn rule(class: &'static str, field: &'static str, strength: Strength) -> FieldRule {
    FieldRule { class, field, strength }
}

/// The `java.lang.ref` strengths and the thread-local map (JDK and Android names).
pub const FIELD_RULES: &[FieldRule] = &[
    rule("java.lang.ref.SoftReference", "referent", Strength::Soft),
    rule("java.lang.ref.WeakReference", "referent", Strength::Weak),
    rule("java.lang.ref.PhantomReference", "referent", Strength::Phantom),
    // OpenJDK: Finalizer extends FinalReference; it also links the unfinalized list.
    rule("java.lang.ref.FinalReference", "referent", Strength::Finalizer),
    rule("java.lang.ref.Finalizer", "next", Strength::Finalizer),
    rule("java.lang.ref.Finalizer", "prev", Strength::Finalizer),
    // Android: FinalizerReference holds its referent through `zombie` while finalizing.
    rule("java.lang.ref.FinalizerReference", "referent", Strength::Finalizer),
    rule("java.lang.ref.FinalizerReference", "zombie", Strength::Finalizer),
    rule("java.lang.ref.FinalizerReference", "next", Strength::Finalizer),
    rule("java.lang.ref.FinalizerReference", "prev", Strength::Finalizer),
    // Cleaners are phantom references; their list links are cleanup plumbing.
    rule("sun.misc.Cleaner", "next", Strength::Phantom),
    rule("sun.misc.Cleaner", "prev", Strength::Phantom),
    rule("jdk.internal.ref.Cleaner", "next", Strength::Phantom),
    rule("jdk.internal.ref.Cleaner", "prev", Strength::Phantom),
    rule("jdk.internal.ref.PhantomCleanable", "next", Strength::Phantom),
    rule("jdk.internal.ref.PhantomCleanable", "prev", Strength::Phantom),
    rule("java.lang.ThreadLocal$ThreadLocalMap$Entry", "value", Strength::ThreadLocal),
];

/// Static fields (of exactly that class) that head the same lists.
pub const STATIC_RULES: &[FieldRule] = &[
    rule("java.lang.ref.Finalizer", "unfinalized", Strength::Finalizer),
    rule("java.lang.ref.FinalizerReference", "head", Strength::Finalizer),
    rule("sun.misc.Cleaner", "first", Strength::Phantom),
    rule("jdk.internal.ref.Cleaner", "first", Strength::Phantom),
];

/// The curated cache fields, held at [`Strength::Cache`]: a cache's reference does not
/// own what it caches, so an image a view also holds is the view's. Names are matched
/// literally (an obfuscated dump needs its mapping first); add an entry only against a
/// dump that has it, and cut at the value a cache entry wraps, not at the cache.
pub const CACHE_FIELDS: &[FieldRule] =
    &[rule("coil3.memory.RealStrongMemoryCache$InternalValue", "image", Strength::Cache)];

/// The strength of a GC root: the thread-local kinds (a stack frame, a JNI local, a native
/// stack, a blocked thread — roots of threads the dump does not name) hold only until
/// the thread lets go, so they are `Local`; every other kind is `Strong`. An object
/// named by several kinds gets the firmest.
pub fn root_strength(kinds: RootKinds) -> u8 {
    let local = RootKinds::bit(RootKind::JavaFrame)
        | RootKinds::bit(RootKind::JniLocal)
        | RootKinds::bit(RootKind::NativeStack)
        | RootKinds::bit(RootKind::ThreadBlock);
    if kinds.0 & !local != 0 || kinds.is_empty() {
        STRONG
    } else {
        Strength::Local as u8
    }
}

/// The bits of an edge's flags that are its [`Strength`] (the others:
/// [`MAT_EXCLUDED`], [`owners::OWNER`]).
pub const STRENGTH_MASK: u8 = 0x0F;

/// Flag bit of an edge's strength byte in [`crate::graph::Heap::special_edges`]: leak-suspect
/// paths skip this reference (MAT's excluded fields, see
/// [`crate::index::classes::ClassTable::mark_special_fields`]). The low bits are the
/// [`Strength`].
pub const MAT_EXCLUDED: u8 = 0x80;

/// The `--tree` value of the command line: `mat` or `strength`.
pub fn parse_reading(value: Option<&str>) -> Result<crate::analysis::Reading, String> {
    match value {
        Some("mat") => Ok(crate::analysis::Reading::Mat),
        Some("strength") => Ok(crate::analysis::Reading::Strength),
        other => Err(format!("--tree takes mat or strength, not {other:?}")),
    }
}

/// Adds to `inspect`'s JSON the object's strength and which tree its dominator and
/// retained size come from.
pub fn annotate_inspect(a: &crate::analysis::Analysis, obj: u32, json: &mut serde_json::Value) {
    if let Some(map) = json.as_object_mut() {
        map.insert("strength".into(), a.strength(obj).name().into());
        map.insert("tree".into(), a.reading.name().into());
    }
}
