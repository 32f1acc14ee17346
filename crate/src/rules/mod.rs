//! The rule tables: data every pass and reading looks up by class and field name, and
//! nothing else (no code runs here but lookups of constants). Below the passes, so pass 1
//! can mark fields by them and every layer above reads the same tables.
//!
//! - [`strength`]: how firmly each kind of reference holds (weak, soft, phantom,
//!   finalizer, thread-local, cache fields);
//! - [`edges`]: a reference's flag bits beside its strength, and the fields MAT's
//!   leak-suspect paths skip;
//! - [`owners`]: the owner rules of the strength-aware reading (Android views, activities);
//! - [`roots`]: GC root kinds, their names and strengths;
//! - [`strings`]: how `java.lang.String` keeps its text in each JDK and Android release.

pub mod edges;
pub mod owners;
pub mod roots;
pub mod strength;
pub mod strings;
