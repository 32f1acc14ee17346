//! Growth leaders and leak suspects of two reports, set beside each other.
//!
//! Each side's *items* are its top-level dominators (at most the report's 100 largest)
//! and its group-of-objects suspects. Items are matched across sides without addresses:
//! - an object by its class (`class X` for a class object): first, objects whose
//!   reference paths from a GC root (classes and field names, recorded for single
//!   suspects) are equal; then the remaining objects of the class in order of size
//!   (largest with largest);
//! - a group by its class name and stable loader name; a side without that group
//!   suspect contributes its top-level objects of the class (the report's top consumers
//!   by class) when they are listed.
//!
//! The *leaders* are the current items that grew, largest growth first, taken until they
//! account for [`LEADER_SHARE_PERCENT`]% of the growth of all current items (at most
//! [`MAX_LEADERS`]). A dump compared with itself has no growth, hence no leaders. An
//! object not found among the baseline's listed top-level objects is `new`; when that
//! list was cut (a report keeps the 100 largest) and the object is no bigger than its
//! last entry, its growth is unknown and it cannot lead.
//!
//! Cost: linear in the items (a few hundred) plus sorting them.

use std::collections::BTreeMap;

use super::hidden::class_key;
use super::model::{Change, ChangeKind, ChangeSide, ChangeStatus};
use crate::model::format::basis_points;
use crate::model::{ObjectRef, PathKey, Report, Suspect, SuspectKind};

pub const MAX_LEADERS: usize = 10;
pub const LEADER_SHARE_PERCENT: u128 = 80;

struct Item<'a> {
    kind: ChangeKind,
    label: String,
    /// Stable loader name (groups only).
    loader: Option<String>,
    side: ChangeSide,
    path: Option<&'a Vec<PathKey>>,
    suspect: bool,
}

/// `class X` for the class object of X, else the object's class; a hidden class or proxy
/// by its [key](super::hidden::class_key), as the class rows name it.
pub fn object_label(o: &ObjectRef) -> String {
    match &o.class_of_object {
        Some(c) => format!("class {}", class_key(c)),
        None => class_key(&o.class_name).into_owned(),
    }
}

/// A top-level object, with its accumulation point when the report recorded it.
fn object_side(r: &Report, o: &ObjectRef) -> ChangeSide {
    let point = r.growth_points.iter().find(|p| p.address == o.address);
    ChangeSide {
        address: Some(o.address.clone()),
        instances: 1,
        retained_bytes: o.retained_bytes,
        retained_bp: o.retained_bp,
        accumulation_point: point.map(|p| object_label(&p.accumulation_point)),
        accumulation_point_elements: point.and_then(|p| p.elements),
        held_in: point.and_then(|p| p.held_in.clone()),
    }
}

fn suspect_side(s: &Suspect) -> ChangeSide {
    ChangeSide {
        address: Some(s.object.address.clone()),
        instances: s.instances,
        retained_bytes: s.retained_bytes,
        retained_bp: s.retained_bp,
        accumulation_point: s.accumulation_point.as_ref().map(object_label),
        accumulation_point_elements: s.accumulation_point_elements,
        held_in: s.held_in.clone(),
    }
}

/// A group's side without its members that are items of their own (class objects, each
/// listed as `class X`): so a class object's growth counts once, on its own row.
fn residual(r: &Report, class_name: &str, mut side: ChangeSide) -> ChangeSide {
    let listed: Vec<&ObjectRef> = r
        .top_dominators
        .iter()
        .filter(|o| o.class_of_object.is_some() && class_key(&o.class_name) == class_name)
        .filter(|o| {
            // A group suspect already leaves out the single suspects (MAT's grouping).
            let single = r
                .leak_suspects
                .suspects
                .iter()
                .any(|s| s.kind == SuspectKind::SingleObject && s.object.address == o.address);
            side.address.is_none() || !single
        })
        .collect();
    let bytes: u64 = listed.iter().map(|o| o.retained_bytes).sum();
    side.retained_bytes = side.retained_bytes.saturating_sub(bytes);
    side.instances = side.instances.saturating_sub(listed.len() as u64);
    side.retained_bp = basis_points(side.retained_bytes, r.overview.used_heap_bytes);
    side
}

fn items<'a>(r: &'a Report, loaders: &BTreeMap<String, String>) -> Vec<Item<'a>> {
    let stable = |label: &str| loaders.get(label).cloned().unwrap_or_else(|| label.to_string());
    let groups: Vec<&Suspect> =
        r.leak_suspects.suspects.iter().filter(|s| s.kind == SuspectKind::GroupOfObjects).collect();
    let mut out = Vec::new();
    for o in &r.top_dominators {
        // Members of a group suspect are accounted for by the group.
        if o.class_of_object.is_none() && groups.iter().any(|g| g.class_name == o.class_name) {
            continue;
        }
        let single = r
            .leak_suspects
            .suspects
            .iter()
            .find(|s| s.kind == SuspectKind::SingleObject && s.object.address == o.address);
        out.push(match single {
            Some(s) => Item {
                kind: ChangeKind::SingleObject,
                label: object_label(o),
                loader: None,
                side: suspect_side(s),
                path: s.reference_path.as_ref(),
                suspect: true,
            },
            None => Item {
                kind: ChangeKind::Object,
                label: object_label(o),
                loader: None,
                side: object_side(r, o),
                path: None,
                suspect: false,
            },
        });
    }
    for g in groups {
        let label = class_key(&g.class_name).into_owned();
        out.push(Item {
            kind: ChangeKind::GroupOfObjects,
            side: residual(r, &label, suspect_side(g)),
            label,
            loader: Some(stable(&g.loader)),
            path: None,
            suspect: true,
        });
    }
    out
}

/// A group's numbers on a side that has no such group suspect (`class_name`: its key):
/// its top-level objects of the class, when the report lists them (top consumers above 1% of the heap).
fn group_fallback(r: &Report, class_name: &str) -> Option<ChangeSide> {
    let c = r.top_consumers.classes.iter().find(|c| class_key(&c.name) == class_name)?;
    let side = ChangeSide {
        address: r
            .top_dominators
            .iter()
            .find(|o| o.class_of_object.is_none() && class_key(&o.class_name) == class_name)
            .map(|o| o.address.clone()),
        instances: c.objects,
        retained_bytes: c.retained_bytes,
        retained_bp: c.retained_bp,
        accumulation_point: None,
        accumulation_point_elements: None,
        held_in: None,
    };
    // Every top-level object of the class: those listed as items of their own are theirs.
    Some(residual(r, class_name, ChangeSide { address: None, ..side.clone() }))
        .map(|s| ChangeSide { address: side.address, ..s })
}

/// For each current item, the index of its baseline counterpart.
fn match_items(base: &[Item], cur: &[Item]) -> Vec<Option<usize>> {
    let mut taken = vec![false; base.len()];
    let mut out = vec![None; cur.len()];
    let same = |b: &Item, c: &Item| {
        b.kind == ChangeKind::GroupOfObjects
            && c.kind == ChangeKind::GroupOfObjects
            && b.label == c.label
            && b.loader == c.loader
    };
    // Groups, then objects with equal reference paths, then objects in order of size.
    for (i, c) in cur.iter().enumerate() {
        if c.kind == ChangeKind::GroupOfObjects {
            out[i] = base.iter().enumerate().position(|(j, b)| !taken[j] && same(b, c));
        } else if let Some(path) = c.path {
            out[i] = base.iter().enumerate().position(|(j, b)| {
                !taken[j] && b.kind != ChangeKind::GroupOfObjects && b.label == c.label && b.path == Some(path)
            });
        }
        if let Some(j) = out[i] {
            taken[j] = true;
        }
    }
    for (i, c) in cur.iter().enumerate() {
        if out[i].is_some() || c.kind == ChangeKind::GroupOfObjects {
            continue;
        }
        out[i] = base.iter().enumerate().position(|(j, b)| {
            !taken[j]
                && b.kind != ChangeKind::GroupOfObjects
                && b.label == c.label
                && !(b.path.is_some() && c.path.is_some())
        });
        if let Some(j) = out[i] {
            taken[j] = true;
        }
    }
    out
}

/// `delta` in basis points of `whole`, rounded half away from zero.
pub fn signed_bp(delta: i64, whole: u64) -> Option<i64> {
    if whole == 0 {
        return None;
    }
    let d = delta as i128 * 10_000;
    let w = whole as i128;
    let q = (d.abs() * 2 + w) / (2 * w);
    Some((if d < 0 { -q } else { q }) as i64)
}

fn change(
    kind: ChangeKind,
    label: &str,
    loader: Option<String>,
    base: Option<ChangeSide>,
    cur: Option<ChangeSide>,
    path: Option<&Vec<PathKey>>,
    gone: bool,
) -> Change {
    let b = base.as_ref().map_or(0, |s| s.retained_bytes);
    let c = cur.as_ref().map_or(0, |s| s.retained_bytes);
    let delta = c as i64 - b as i64;
    let status = match (&base, gone) {
        (_, true) => ChangeStatus::Gone,
        (None, _) => ChangeStatus::New,
        _ if delta > 0 => ChangeStatus::Grown,
        _ if delta < 0 => ChangeStatus::Shrunk,
        _ => ChangeStatus::Unchanged,
    };
    Change {
        kind,
        status,
        class_name: label.to_string(),
        loader,
        growth_bp: base.as_ref().and_then(|_| signed_bp(delta, b)),
        baseline: base,
        current: cur,
        delta_retained_bytes: delta,
        share_of_growth_bp: None,
        reference_path: path.cloned(),
    }
}

/// (leaders, suspects) of the pair.
pub fn leaders_and_suspects(
    baseline: &Report,
    current: &Report,
    base_loaders: &BTreeMap<String, String>,
    cur_loaders: &BTreeMap<String, String>,
) -> (Vec<Change>, Vec<Change>) {
    let base = items(baseline, base_loaders);
    let cur = items(current, cur_loaders);
    let matched = match_items(&base, &cur);
    let changes: Vec<Change> = cur
        .iter()
        .zip(&matched)
        .map(|(c, m)| {
            let b = match m {
                Some(j) => Some(base[*j].side.clone()),
                None if c.kind == ChangeKind::GroupOfObjects => group_fallback(baseline, &c.label),
                None => None,
            };
            change(
                c.kind,
                &c.label,
                c.loader.clone(),
                b,
                Some(c.side.clone()),
                c.path.or(m.and_then(|j| base[j].path)),
                false,
            )
        })
        .collect();

    // An object missing from a truncated baseline list may be there, only smaller than
    // the list's last entry: its growth is unknown, so it cannot lead.
    let listed_min = (baseline.top_dominators.len() as u64) < baseline.overview.top_level_dominators;
    let listed_min = if listed_min { baseline.top_dominators.last().map_or(0, |o| o.retained_bytes) } else { 0 };
    let known = |i: usize| {
        !(matched[i].is_none() && cur[i].kind != ChangeKind::GroupOfObjects && cur[i].side.retained_bytes <= listed_min)
    };
    let growth: u128 =
        (0..changes.len()).filter(|&i| known(i)).map(|i| changes[i].delta_retained_bytes.max(0) as u128).sum();
    let mut order: Vec<usize> =
        (0..changes.len()).filter(|&i| known(i) && changes[i].delta_retained_bytes > 0).collect();
    order.sort_by(|&x, &y| changes[y].delta_retained_bytes.cmp(&changes[x].delta_retained_bytes).then(x.cmp(&y)));
    let mut leaders = Vec::new();
    let mut covered = 0u128;
    for i in order {
        if leaders.len() >= MAX_LEADERS || covered * 100 >= growth * LEADER_SHARE_PERCENT {
            break;
        }
        let d = changes[i].delta_retained_bytes as u64;
        covered += d as u128;
        let mut l = changes[i].clone();
        l.share_of_growth_bp = Some(basis_points(d, growth.min(u64::MAX as u128) as u64));
        leaders.push(l);
    }

    let mut suspects: Vec<Change> =
        cur.iter().zip(&changes).filter(|(c, _)| c.suspect).map(|(_, ch)| ch.clone()).collect();
    for (j, b) in base.iter().enumerate() {
        if !b.suspect {
            continue;
        }
        let now = matched.iter().position(|m| *m == Some(j));
        if now.is_some_and(|i| cur[i].suspect) {
            continue;
        }
        let cur_side = match now {
            Some(i) => Some(cur[i].side.clone()),
            None if b.kind == ChangeKind::GroupOfObjects => group_fallback(current, &b.label),
            None => None,
        };
        suspects.push(change(b.kind, &b.label, b.loader.clone(), Some(b.side.clone()), cur_side, b.path, true));
    }
    (leaders, suspects)
}

#[cfg(test)]
mod tests {
    use super::signed_bp;

    #[test]
    fn basis_points_keep_their_sign() {
        assert_eq!(signed_bp(1, 3), Some(3333));
        assert_eq!(signed_bp(-2, 3), Some(-6667));
        assert_eq!(signed_bp(150, 100), Some(15_000));
        assert_eq!(signed_bp(5, 0), None);
    }
}
