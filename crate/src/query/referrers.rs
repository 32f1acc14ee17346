//! The objects that reference one object ("incoming references").

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
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

/// The kept objects that reference `obj`, by the references the dominator tree follows
/// (fields, array elements, statics, and MAT's object → class → loader edges). The graph
/// stores outgoing references only, so this scans all of them: linear in the references,
/// about a second for 20 M objects; nothing is kept between calls.
pub fn referrers(a: &Analysis, obj: u32, limit: usize) -> Referrers {
    let mut total = 0u64;
    // (retained, object), trimmed to the `limit` largest whenever it doubles.
    let mut best: Vec<(u64, u32)> = Vec::new();
    let trim = |best: &mut Vec<(u64, u32)>| {
        best.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        best.truncate(limit);
    };
    for v in 0..a.object_count() as u32 {
        if !a.is_kept(v) {
            continue;
        }
        let mut hit = false;
        a.for_each_reference(v, |x| hit |= x == obj);
        if hit {
            total += 1;
            best.push((a.retained(v), v));
            if best.len() >= 2 * limit.max(1) {
                trim(&mut best);
            }
        }
    }
    trim(&mut best);
    Referrers { total, largest: best.into_iter().map(|(_, v)| object_ref(a, v)).collect() }
}
