//! Allocation sites: where a dump records them, every object record carries the serial
//! number of the STACK TRACE it was allocated at (ART with allocation tracking, the old
//! hprof agent). HotSpot's heap dumps give every object serial 1, a trace without
//! frames: they record no sites, and neither do dumps whose objects all carry 0.
//!
//! Pass 1 has read the traces; pass 2 notes (object, trace) for objects whose serial
//! names a trace with frames (8 bytes per such object; none, and one test per object
//! record, in dumps without sites). Sites are the traces' top frames ([`FRAMES`]):
//! traces that differ only further down are one site.

use std::collections::BTreeMap;

/// Frames that make a site.
pub const FRAMES: usize = 8;
/// Sites listed in the report.
pub const TOP_SITES: usize = 100;
/// Classes listed per site.
pub const TOP_CLASSES: usize = 5;

/// The traces with frames, by serial, as positions into `index.stacks.traces`.
pub fn traces_with_frames(index: &crate::index::Index) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = index
        .stacks
        .traces
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.frames.is_empty())
        .map(|(k, t)| (t.serial, k as u32))
        .collect();
    v.sort_unstable();
    v.dedup_by_key(|p| p.0);
    v
}

/// One site's figures, before its frames are written out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Site {
    /// Position of one of its traces in `index.stacks.traces`.
    pub trace: u32,
    pub objects: u64,
    pub shallow: u64,
    /// (class, objects, shallow bytes), most bytes first (at most [`TOP_CLASSES`]).
    pub classes: Vec<(u32, u64, u64)>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sites {
    pub recorded: bool,
    pub objects: u64,
    pub shallow: u64,
    pub without: u64,
    pub distinct: u64,
    pub top: Vec<Site>,
}

/// Groups the kept objects of `entries` ((object, trace position)) by site. `site_of`
/// gives each trace position its site key (equal for traces with the same top frames);
/// `kept_total` is the number of kept objects.
pub fn group(
    entries: &[(u32, u32)],
    site_of: impl Fn(u32) -> u32,
    kept: impl Fn(u32) -> bool,
    class_of: impl Fn(u32) -> u32,
    shallow: impl Fn(u32) -> u64,
    kept_total: u64,
) -> Sites {
    let mut s = Sites { recorded: !entries.is_empty(), ..Sites::default() };
    // (site, class) → (objects, bytes): sites and classes are few next to objects.
    let mut by: BTreeMap<(u32, u32), (u64, u64)> = BTreeMap::new();
    for &(obj, trace) in entries {
        if !kept(obj) {
            continue;
        }
        let b = shallow(obj);
        let e = by.entry((site_of(trace), class_of(obj))).or_default();
        e.0 += 1;
        e.1 += b;
        s.objects += 1;
        s.shallow += b;
    }
    s.without = kept_total.saturating_sub(s.objects);
    let mut sites: Vec<Site> = Vec::new();
    for ((site, class), (n, b)) in by {
        if sites.last().map_or(true, |l| l.trace != site) {
            sites.push(Site { trace: site, ..Site::default() });
        }
        let l = sites.last_mut().expect("pushed");
        l.objects += n;
        l.shallow += b;
        l.classes.push((class, n, b));
    }
    s.distinct = sites.len() as u64;
    for site in &mut sites {
        site.classes.sort_by(|x, y| y.2.cmp(&x.2).then(y.1.cmp(&x.1)).then(x.0.cmp(&y.0)));
        site.classes.truncate(TOP_CLASSES);
    }
    sites.sort_by(|x, y| y.shallow.cmp(&x.shallow).then(y.objects.cmp(&x.objects)).then(x.trace.cmp(&y.trace)));
    sites.truncate(TOP_SITES);
    s.top = sites;
    s
}
