//! The flags of a reference beside its strength, and the fields whose references Eclipse
//! MAT's leak-suspect paths skip.

/// The bits of an edge's flags that are its [`Strength`](super::strength::Strength) (the
/// others: [`MAT_EXCLUDED`], [`OWNER`]).
pub const STRENGTH_MASK: u8 = 0x0F;

/// Flag bit of an edge's flags (`crate::graph::Heap::special_edges`): leak-suspect paths
/// skip this reference (one of [`MAT_EXCLUDED_FIELDS`]).
pub const MAT_EXCLUDED: u8 = 0x80;

/// Flag bit of an edge's flags: the reference owns its target (an owner rule,
/// [`super::owners`]).
pub const OWNER: u8 = 0x40;

/// The fields MAT's leak-suspect paths skip (class and its subclasses, field): a more
/// specific entry replaces a general one (a `Finalizer` skips only `unfinalized`).
pub const MAT_EXCLUDED_FIELDS: [(&str, &str); 3] = [
    ("java.lang.ref.Reference", "referent"),
    ("java.lang.ref.Finalizer", "unfinalized"),
    ("java.lang.Runtime", "<Unfinalized>"),
];
