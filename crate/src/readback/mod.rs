//! Objects read back from the dump after the passes: the inspector's fields, the values
//! beside references, the texts of Strings, the elements of arrays. Everything here reads
//! through the analysis' byte source, record by record, never the whole dump again.
//!
//! - [`locate`]: the one walker that finds records again (many at once, in forward walks);
//! - [`fields`]: an instance's fields decoded against its class chain, an object array's
//!   elements, a primitive array's bytes;
//! - [`strings`]: the one decoder of `java.lang.String` texts, with its display settings;
//! - [`object`]: an object's fields and values as the inspector shows them;
//! - [`reader`]: instances read in batches and kept decoded, for walks over many objects.

pub mod fields;
pub mod locate;
pub mod object;
pub mod reader;
pub mod strings;
