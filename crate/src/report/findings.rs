//! What a leak suspect found, said in the application's terms (added fields only: the
//! suspects themselves, their sizes and their accumulation points are MAT's, unchanged).
//!
//! - **Held in** (`held_in`): the suspect's chain named by its fields, the way a developer
//!   names the object that leaks: `S02StaticMapLeak.CACHE.table` for the class object of
//!   `S02StaticMapLeak` whose static `CACHE` map holds the accumulating `table`. Each step
//!   is the field (or `[i]`) through which one chain object references the next; where the
//!   next object is dominated but not referenced directly, the step is `…`.
//! - **Accumulated objects by class** (`accumulated`): the objects the accumulation point
//!   immediately dominates, grouped by class, as MAT's "Accumulated Objects by Class in
//!   Dominator Tree" table (count, shallow and retained sums, the biggest few).
//! - **Biggest members** (`biggest_members`) of a group suspect, threads by name.
//! - For a suspect that is a class object, the class it stands for and that class's loader
//!   (`represented_class`, `represented_loader`), not `java.lang.Class`'s.
//!
//! Cost: one pass over the accumulation point's dominated children (bounded by the object
//! count, done once per suspect: at most 10), and reading back one record per chain step
//! (at most 40) for the field names.

use std::collections::BTreeMap;

use crate::analysis::{loader_label, object_ref, Analysis};
use crate::error::Result;
use crate::model::format::parse_address;
use crate::model::threads::ThreadInfo;
use crate::model::{Member, MemberGroup, Report, Suspect};
use crate::query::{self, paths};

/// Groups of accumulated objects kept per suspect (the largest) at the default detail.
pub const MAX_GROUPS: usize = 20;
/// Objects listed per group.
pub const GROUP_EXAMPLES: usize = 3;
/// Members listed for a group suspect at the default detail.
pub const MAX_MEMBERS: usize = 20;

/// The objects `ap` immediately dominates, grouped by class, largest retained first (at
/// most `max_groups` groups).
pub fn accumulated(a: &Analysis, ap: u32, max_groups: usize) -> Vec<MemberGroup> {
    // class → (objects, shallow, retained, the biggest few)
    let mut groups: BTreeMap<u32, (u64, u64, u64, Vec<u32>)> = BTreeMap::new();
    for k in a.dominated(ap) {
        let g = groups.entry(a.class_of(k)).or_default();
        g.0 += 1;
        g.1 += a.shallow(k);
        g.2 += a.retained(k);
        a.keep_largest(&mut g.3, k, GROUP_EXAMPLES);
    }
    let mut out: Vec<(u32, MemberGroup)> = groups
        .into_iter()
        .map(|(c, (objects, shallow_bytes, retained_bytes, biggest))| {
            (
                c,
                MemberGroup {
                    class_name: a.class_name(c).to_string(),
                    objects,
                    shallow_bytes,
                    retained_bytes,
                    biggest: biggest.into_iter().map(|k| object_ref(a, k)).collect(),
                },
            )
        })
        .collect();
    out.sort_by(|(cx, x), (cy, y)| {
        y.retained_bytes.cmp(&x.retained_bytes).then(x.class_name.cmp(&y.class_name)).then(cx.cmp(cy))
    });
    out.truncate(max_groups);
    out.into_iter().map(|(_, g)| g).collect()
}

/// The biggest `members` (already largest retained first, at most `max`), threads with
/// their names.
pub fn biggest_members(a: &Analysis, threads: &[ThreadInfo], members: &[u32], max: usize) -> Vec<Member> {
    members
        .iter()
        .take(max)
        .map(|&m| {
            let object = object_ref(a, m);
            let name = threads.iter().find(|t| t.address == object.address).and_then(|t| t.name.clone());
            Member { object, name }
        })
        .collect()
}

/// The class a class-object suspect stands for, and its loader.
pub fn represented(a: &Analysis, object: u32) -> (Option<String>, Option<String>) {
    match a.class_represented_by(object) {
        Some(c) => (Some(a.class_name(c).to_string()), Some(loader_label(a, c))),
        None => (None, None),
    }
}

/// The simple name of a class: after its package (`corpus.S02StaticMapLeak$Inner` →
/// `S02StaticMapLeak$Inner`).
fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// The first step's name: the class for a class object (its statics), else the object's
/// class, a thread with its name.
fn head(a: &Analysis, threads: &[ThreadInfo], obj: u32) -> String {
    if let Some(c) = a.class_represented_by(obj) {
        return simple(a.class_name(c)).to_string();
    }
    let address = format!("0x{:x}", a.address(obj));
    match threads.iter().find(|t| t.address == address).and_then(|t| t.name.as_deref()) {
        Some(name) => format!("{}(\"{}\")", simple(a.class_name(a.class_of(obj))), name),
        None => simple(a.class_name(a.class_of(obj))).to_string(),
    }
}

/// The chain named by its fields: `Head.field.field[3].field`.
pub fn held_in(a: &mut Analysis, threads: &[ThreadInfo], chain: &[u32]) -> Result<Option<String>> {
    let Some(&first) = chain.first() else { return Ok(None) };
    let mut out = head(a, threads, first);
    for w in chain.windows(2) {
        let fields = paths::via(a, w[0], w[1])?;
        match fields.iter().find(|f| !f.starts_with('<')) {
            Some(f) if f.starts_with('[') => out.push_str(f),
            Some(f) => {
                out.push('.');
                out.push_str(f);
            }
            None => out.push_str(".…"),
        }
    }
    Ok(Some(out))
}

/// Fills in `held_in` of each suspect of a report built from `a` (reading the dump back).
pub fn annotate(report: &mut Report, a: &mut Analysis) -> Result<()> {
    for k in 0..report.leak_suspects.suspects.len() {
        let held_in = held_in_of(a, &report.threads, &report.leak_suspects.suspects[k])?;
        report.leak_suspects.suspects[k].held_in = held_in;
    }
    Ok(())
}

fn held_in_of(a: &mut Analysis, threads: &[ThreadInfo], s: &Suspect) -> Result<Option<String>> {
    // With steps left out in the middle the chain cannot be named field by field.
    if s.chain_omitted > 0 {
        return Ok(None);
    }
    let mut chain = Vec::with_capacity(s.chain.len());
    for o in &s.chain {
        match parse_address(&o.address).and_then(|x| query::find(a, x)) {
            Some(v) => chain.push(v),
            None => return Ok(None),
        }
    }
    held_in(a, threads, &chain)
}
