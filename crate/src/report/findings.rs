//! What a leak suspect found, said in the application's terms (added fields only: the
//! suspects themselves, their sizes and their accumulation points are MAT's, unchanged).
//!
//! - **Held in** (`held_in`) and **each holds** (`each_holds`): where the memory is held,
//!   named as a developer names it (`com.acme.ui.EventBus.INSTANCE.listeners`), and what
//!   each accumulated object holds: see [`super::held_in`].
//! - **Accumulated objects by class** (`accumulated`): the objects the accumulation point
//!   immediately dominates, grouped by class, as MAT's "Accumulated Objects by Class in
//!   Dominator Tree" table (count, shallow and retained sums, the biggest few).
//! - **Biggest members** (`biggest_members`) of a group suspect, threads by name.
//! - For a suspect that is a class object, the class it stands for and that class's loader
//!   (`represented_class`, `represented_loader`), not `java.lang.Class`'s.
//!
//! Cost: one pass over the accumulation point's dominated children (bounded by the object
//! count, done once per suspect: at most 10), and what [`super::held_in`] reads back.

use std::collections::BTreeMap;

use super::held_in;
use super::suspects::single_accumulation_point;
use crate::analysis::{loader_label, object_ref, Analysis};
use crate::error::Result;
use crate::model::format::parse_address;
use crate::model::threads::ThreadInfo;
use crate::model::{Member, MemberGroup, Report, Suspect, SuspectKind};
use crate::query;

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

/// Fills in what a report built from `a` says in the application's terms (reading the dump
/// back): each suspect's `held_in`, `each_holds` and the entries of what `held_in` names,
/// and each growth point's `held_in` and entries (see [`super::held_in`]).
pub fn annotate(report: &mut Report, a: &mut Analysis) -> Result<()> {
    for k in 0..report.leak_suspects.suspects.len() {
        let s = &report.leak_suspects.suspects[k];
        let Some(chain) = chain_of(a, s) else { continue };
        let named = held_in::name_chain(a, &report.threads, &chain)?;
        let ap = s.accumulation_point.as_ref().and_then(|p| parse_address(&p.address)).and_then(|x| query::find(a, x));
        let (entries, each_holds) = match ap {
            Some(ap) => (held_in::entries(a, &chain, ap, named.as_ref())?, held_in::each_holds(a, ap)?),
            None => (None, None),
        };
        let s = &mut report.leak_suspects.suspects[k];
        s.held_in = named.map(|n| n.text);
        if ap.is_some() {
            s.accumulation_point_elements = entries;
        }
        s.each_holds = each_holds;
    }
    for k in 0..report.growth_points.len() {
        let Some(top) = parse_address(&report.growth_points[k].address).and_then(|x| query::find(a, x)) else {
            continue;
        };
        let (Some(ap), chain) = single_accumulation_point(a, top) else { continue };
        let named = held_in::name_chain(a, &report.threads, &chain)?;
        let entries = held_in::entries(a, &chain, ap, named.as_ref())?;
        let g = &mut report.growth_points[k];
        g.held_in = named.map(|n| n.text);
        g.elements = entries;
    }
    Ok(())
}

/// The chain a suspect's name is read from: a single suspect's whole dominator chain down
/// to its accumulation point (the report keeps at most 40 steps of it), a group's shared
/// reference path as the report has it (None when steps were left out of it, or an
/// object is not found).
fn chain_of(a: &Analysis, s: &Suspect) -> Option<Vec<u32>> {
    if s.kind == SuspectKind::SingleObject {
        let obj = parse_address(&s.object.address).and_then(|x| query::find(a, x))?;
        let (point, chain) = single_accumulation_point(a, obj);
        // The walk that found the report's accumulation point finds it again.
        return match (point, &s.accumulation_point) {
            (Some(p), Some(ap)) if parse_address(&ap.address) == Some(a.address(p)) => Some(chain),
            (None, None) => Some(chain),
            _ => None,
        };
    }
    if s.chain_omitted > 0 {
        return None;
    }
    s.chain.iter().map(|o| parse_address(&o.address).and_then(|x| query::find(a, x))).collect()
}
