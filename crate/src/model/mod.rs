//! The shared output types: what every layer above the analysis hands out, as data.
//!
//! A leaf: nothing here imports the rest of the crate. Serialized with serde (the JSON
//! export, the page's data, the CLI's JSON) and described by JSON Schemas derived with
//! schemars, committed in `schema/`; the page's TypeScript types are generated from those
//! schemas, so page and core cannot drift. Also the presentation helpers every renderer
//! shares ([`format`], [`names`], [`json`]).
//!
//! - [`report`]: the report ([`Report`]) and the types it is made of ([`ObjectRef`],
//!   [`ClassCount`], …);
//! - [`reading`]: which dominator tree a number comes from;
//! - [`sizes`]: which shallow sizes (the JVM's or MAT's) and the object layout;
//! - [`threads`], [`waste`], [`leaks`]: the feature sections of the report;
//! - [`sections`]: the report's sections beyond MAT's pages (OOM triage, composition,
//!   system properties, top components, root paths, dominator subtrees);
//! - [`detail`]: `--detail`'s caps;
//! - [`document`]: a document for people (headings, paragraphs, tables), rendered as
//!   Markdown or HTML;
//! - [`format`]: numbers, percentages, heap sizes and addresses as people read them;
//! - [`names`]: class names as people read them (package, simple name), and which
//!   classes are collections;
//! - [`json`]: JSON text and JSON Schemas as every output writes them.

pub mod detail;
pub mod document;
pub mod format;
pub mod json;
pub mod leaks;
pub mod names;
pub mod reading;
pub mod report;
pub mod sections;
pub mod sizes;
pub mod threads;
pub mod waste;

pub use detail::{Detail, DetailLevel};
pub use reading::Reading;
pub use report::*;
pub use sections::*;
pub use sizes::Sizes;
