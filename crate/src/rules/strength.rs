//! How firmly a reference holds what it points at: the strengths, firmest first, and
//! the rules that give a field its strength. Data only; [`crate::strength`] computes
//! each object's strength from them and [`crate::index`] marks the fields in pass 1.

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
