//! The objects that reference one object ("incoming references"), read from the referrer
//! index ([`crate::holders::referrer_index`]): built on the first question, then a list
//! decoded per question.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::error::Result;
use crate::holders::{self, Tree};
use crate::report::build::object_ref;
use crate::report::model::ObjectRef;

/// The objects that reference one object ("incoming references").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Referrers {
    /// Every kept object with at least one reference to the object (counted once each).
    pub total: u64,
    /// The referrers retaining the most, largest first (at most the limit asked for).
    pub largest: Vec<ObjectRef>,
}

/// The kept objects that reference `obj`, by the references `tree` counts (fields, array
/// elements, statics, and MAT's object → class → loader edges): how many, and the
/// `limit` retaining the most.
pub fn referrers(a: &mut Analysis, tree: Tree, obj: u32, limit: usize) -> Result<Referrers> {
    holders::ensure_index(a, tree)?;
    let index = a.holders.get(tree).expect("built above");
    let mut total = 0u64;
    // (retained, object), trimmed to the `limit` largest whenever it doubles.
    let mut best: Vec<(u64, u32)> = Vec::new();
    let trim = |best: &mut Vec<(u64, u32)>| {
        best.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        best.truncate(limit);
    };
    index.for_each_referrer(obj, |v| {
        total += 1;
        best.push((a.retained(v), v));
        if best.len() >= 2 * limit.max(1) {
            trim(&mut best);
        }
    });
    trim(&mut best);
    Ok(Referrers { total, largest: best.into_iter().map(|(_, v)| object_ref(a, v)).collect() })
}
