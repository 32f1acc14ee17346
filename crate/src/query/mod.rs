//! Questions asked after the report, lazily, about an analyzed dump: each module answers
//! one kind of question from the analysis (and, for who holds what, a referrer index of
//! [`crate::holders`]). The session ([`crate::session`]) names them all as one `Query`
//! enum and dispatches them.
//!
//! The modules, one concern each: [`chains`] (linked structures read as one), [`tree`] (the dominator tree a page at a time),
//! [`grouped`] (the dominator tree grouped by class at every level),
//! [`paths`] (a path from a GC
//! root), [`referrers`] (incoming references), [`grouping`] (histogram groups and a
//! class's instances), [`holders`] (the leak trace with its dominators marked, the other
//! ways of holding an object, the classes-up rows), [`merge_paths`] (the shortest paths to
//! many objects, merged by prefix). Every answer is bounded: a page of children, the first
//! elements of an array.

pub mod chains;
pub mod grouped;
pub mod grouping;
pub mod holders;
pub mod merge_paths;
pub mod paths;
pub mod referrers;
pub mod tree;

use crate::analysis::Analysis;
use crate::error::{Error, Result};
use crate::model::format::parse_address;

/// The most one answer may list (a page of children, instances, referrers).
pub const MAX_PAGE: u32 = 10_000;

/// The kept object at `address`.
pub fn find(a: &Analysis, address: u64) -> Option<u32> {
    a.object_at(address).filter(|&o| a.is_kept(o))
}

/// The kept object named by `address`, or an error saying why there is none.
pub fn object(a: &Analysis, address: &str) -> Result<u32> {
    let addr = parse_address(address)
        .ok_or_else(|| query_error(format!("{:?} is not an address (hex, e.g. 0x7f3a1000)", address)))?;
    find(a, addr).ok_or_else(|| {
        query_error(format!("no object at 0x{addr:x} in this dump (or it is unreachable and was discarded)"))
    })
}

/// The class whose class object is at `address`.
pub fn class(a: &Analysis, address: &str) -> Result<u32> {
    let class_object = object(a, address)?;
    a.class_represented_by(class_object).ok_or_else(|| query_error(format!("{} is not a class object", address.trim())))
}

/// The most levels one classes-up question opens at once.
pub const MAX_DEPTH: u32 = 64;

fn query_error(message: String) -> Error {
    Error::query(message)
}
