//! The objects that reference one object ("incoming references"), read from the referrer
//! index ([`crate::holders::referrer_index`]): built on the first question, then a list
//! decoded per question.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::{object_ref, Analysis};
use crate::holders::referrer_index::ReferrerIndex;
use crate::model::ObjectRef;

/// The objects that reference one object ("incoming references").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Referrers {
    /// Every kept object with at least one reference to the object (counted once each).
    pub total: u64,
    /// The referrers retaining the most, largest first (at most the limit asked for).
    pub largest: Vec<ObjectRef>,
}

/// The kept objects that reference `obj`, by the references the tree of `index` counts
/// (fields, array elements, statics, and MAT's object → class → loader edges): how many,
/// and the `limit` retaining the most.
pub fn referrers(a: &Analysis, index: &ReferrerIndex, obj: u32, limit: usize) -> Referrers {
    let mut total = 0u64;
    // The `limit` largest (retained, object) so far, smallest on top: a referrer is
    // looked at twice only when it beats the smallest kept (an object's referrers can be
    // millions: a class object's instances).
    let mut best: BinaryHeap<Reverse<(u64, Reverse<u32>)>> = BinaryHeap::with_capacity(limit + 1);
    index.for_each_referrer(obj, |v| {
        total += 1;
        if limit == 0 {
            return;
        }
        let key = (a.retained(v), Reverse(v));
        if best.len() < limit {
            best.push(Reverse(key));
        } else if best.peek().is_some_and(|Reverse(min)| key > *min) {
            best.pop();
            best.push(Reverse(key));
        }
    });
    // Largest first, then by address (index) for equal sizes.
    let mut best: Vec<(u64, Reverse<u32>)> = best.into_iter().map(|Reverse(k)| k).collect();
    best.sort_unstable_by(|x, y| y.cmp(x));
    let best: Vec<(u64, u32)> = best.into_iter().map(|(r, Reverse(v))| (r, v)).collect();
    Referrers { total, largest: best.into_iter().map(|(_, v)| object_ref(a, v)).collect() }
}
