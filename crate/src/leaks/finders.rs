//! The leaking objects, found the two ways Shark finds them:
//!
//! - **watched**: the referents of LeakCanary's watch references. `ObjectWatcher.watch()`
//!   wraps an object that should soon be collected (a destroyed activity, a cleared view
//!   model, …) in a `KeyedWeakReference` (`leakcanary.KeyedWeakReference` in LeakCanary 2,
//!   also in its JVM flavour; `com.squareup.leakcanary.KeyedWeakReference` in 1.x); one
//!   whose referent is still set when the heap is dumped points at a leak. Its `key` (a
//!   UUID), `description` (`name` in 1.x) and, in LeakCanary 2, `watchUptimeMillis` and
//!   `retainedUptimeMillis` are read; the class's static `heapDumpUptimeMillis` (2.x) turns
//!   those into durations. A reference with `retainedUptimeMillis == -1` was watched but
//!   not yet found retained: not a leak yet. Instances of exactly those two classes count.
//! - **lifecycle**: Android objects whose life has ended (see [`super::android`] for the
//!   fields): a destroyed activity; a context wrapper, `ContextImpl` or root view whose
//!   context is a destroyed activity; a fragment no longer added (or destroyed); a
//!   window's root view detached after it was attached; a dismissed dialog; a service
//!   `ActivityThread` no longer runs; a cleared view model; a destroyed `Window`; a
//!   `ViewRootImpl` removed from the window manager; a quitting `MessageQueue`.
//!
//! Only objects some path reaches are candidates (the garbage an ART dump keeps is not a
//! leak). Whether a *strong* path holds them is the path search's question.

use super::android::{self, Platform};
use super::heap::{FieldVal, Heap, Kind};
use crate::error::Result;
use crate::model::leaks::{FoundBy, Watch};

/// The watch reference classes: LeakCanary 2 (and its JVM flavour), then 1.x.
pub const WATCH_CLASSES: [&str; 2] = ["leakcanary.KeyedWeakReference", "com.squareup.leakcanary.KeyedWeakReference"];

/// A leaking object, before its trace.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub obj: u32,
    pub found_by: FoundBy,
    pub watch: Option<Watch>,
}

/// What the finders saw, for the notes.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// Watch reference classes present in the dump.
    pub watch_classes: Vec<String>,
    /// Watch references, those pointing at an object, those not yet retained.
    pub watch_refs: u64,
    pub watch_set: u64,
    pub watch_not_retained: u64,
    /// Lifecycle classes present (the framework's names), and objects examined.
    pub lifecycle_classes: Vec<&'static str>,
    pub lifecycle_examined: u64,
}

/// Everything the finders found.
pub struct Found {
    /// By object index, each once (a watched object that is also a lifecycle one is
    /// listed as watched).
    pub candidates: Vec<Candidate>,
    pub seen: Seen,
}

/// One bit per lifecycle rule a class falls under.
const ACTIVITY: u16 = 1;
const WRAPPER: u16 = 1 << 1;
const CONTEXT_IMPL: u16 = 1 << 2;
const FRAGMENT: u16 = 1 << 3;
const VIEW: u16 = 1 << 4;
const DIALOG: u16 = 1 << 5;
const SERVICE: u16 = 1 << 6;
const VIEW_MODEL: u16 = 1 << 7;
const WINDOW: u16 = 1 << 8;
const VIEW_ROOT: u16 = 1 << 9;
const QUEUE: u16 = 1 << 10;

const RULES: [(&str, u16); 13] = [
    (android::ACTIVITY, ACTIVITY),
    (android::CONTEXT_WRAPPER, WRAPPER),
    (android::CONTEXT_IMPL, CONTEXT_IMPL),
    (android::FRAGMENT, FRAGMENT),
    (android::SUPPORT_FRAGMENT, FRAGMENT),
    (android::ANDROIDX_FRAGMENT, FRAGMENT),
    (android::VIEW, VIEW),
    (android::DIALOG, DIALOG),
    (android::SERVICE, SERVICE),
    (android::VIEW_MODEL, VIEW_MODEL),
    (android::WINDOW, WINDOW),
    (android::VIEW_ROOT_IMPL, VIEW_ROOT),
    (android::MESSAGE_QUEUE, QUEUE),
];

/// Objects evaluated per batch (read back together, then forgotten).
const BATCH: usize = 4096;

pub fn find(h: &mut Heap, platform: &Platform) -> Result<Found> {
    let mut seen = Seen::default();
    let mut candidates = watched(h, &mut seen)?;
    let mut lifecycle = lifecycle(h, platform, &mut seen)?;
    candidates.sort_by_key(|c| c.obj);
    candidates.dedup_by_key(|c| c.obj);
    lifecycle.retain(|c| candidates.binary_search_by_key(&c.obj, |w| w.obj).is_err());
    candidates.extend(lifecycle);
    candidates.sort_by_key(|c| c.obj);
    Ok(Found { candidates, seen })
}

fn long(v: Option<FieldVal>) -> Option<i64> {
    v.and_then(|v| v.int())
}

/// The referents of the watch references that are still set and retained.
fn watched(h: &mut Heap, seen: &mut Seen) -> Result<Vec<Candidate>> {
    let mut wanted = vec![false; h.class_count()];
    let mut dump_uptime = None;
    for name in WATCH_CLASSES {
        for c in h.classes_named(name) {
            wanted[c as usize] = true;
            if !seen.watch_classes.iter().any(|n| n == name) {
                seen.watch_classes.push(name.to_string());
            }
            if name == WATCH_CLASSES[0] {
                dump_uptime = dump_uptime.or(h.static_int(c, "heapDumpUptimeMillis"));
            }
        }
    }
    // As in Shark, every instance counts, reachable or not: whether a strong path still
    // holds the referent is what decides.
    let refs = h.instances_of(&wanted, false)?;
    struct Raw {
        referent: u64,
        key: u64,
        description: u64,
        watch_uptime: Option<i64>,
        retained_uptime: Option<i64>,
    }
    let mut raw = Vec::new();
    h.scan(&refs, |i| {
        let own = |name: &str| i.get_any(name);
        let text_ref = |v: Option<FieldVal>| match v {
            Some(FieldVal::Ref(r)) => r,
            _ => 0,
        };
        raw.push(Raw {
            referent: i.reference("java.lang.ref.Reference", "referent").unwrap_or(0),
            key: text_ref(own("key")),
            description: text_ref(own("description").or_else(|| own("name"))),
            watch_uptime: long(own("watchUptimeMillis")),
            retained_uptime: long(own("retainedUptimeMillis")),
        });
    })?;
    seen.watch_refs = raw.len() as u64;
    let mut out = Vec::new();
    for r in raw {
        let Some(obj) = h.object_at(r.referent) else { continue };
        seen.watch_set += 1;
        let retained_duration = match (dump_uptime, r.retained_uptime) {
            (Some(_), Some(-1)) => Some(-1),
            (Some(d), Some(u)) => Some(d - u),
            _ => None,
        };
        if retained_duration == Some(-1) {
            seen.watch_not_retained += 1;
            continue;
        }
        let key = if r.key != 0 { h.text(r.key)? } else { None };
        let description = if r.description != 0 { h.text(r.description)? } else { None };
        let watch = Watch {
            key: key.unwrap_or_default(),
            description: description.unwrap_or_else(|| "unknown (a LeakCanary version without descriptions)".into()),
            watch_duration_ms: dump_uptime.zip(r.watch_uptime).map(|(d, w)| d - w),
            retained_duration_ms: retained_duration,
        };
        out.push(Candidate { obj, found_by: FoundBy::Watched, watch: Some(watch) });
    }
    Ok(out)
}

/// Android objects whose lifecycle has ended.
fn lifecycle(h: &mut Heap, platform: &Platform, seen: &mut Seen) -> Result<Vec<Candidate>> {
    let mut rules = vec![0u16; h.class_count()];
    for (name, bit) in RULES {
        if h.classes_named(name).is_empty() {
            continue;
        }
        seen.lifecycle_classes.push(name);
        for (c, yes) in h.extending(name).into_iter().enumerate() {
            if yes {
                rules[c] |= bit;
            }
        }
    }
    // A context wrapper rule is for wrappers that are not themselves components.
    for (c, r) in rules.iter_mut().enumerate() {
        if *r & (ACTIVITY | SERVICE) != 0 || (*r & WRAPPER != 0 && h.is_a(c as u32, android::APPLICATION)) {
            *r &= !WRAPPER;
        }
    }
    let wanted: Vec<bool> = rules.iter().map(|&r| r != 0).collect();
    let objects = h.instances_of(&wanted, true)?;
    seen.lifecycle_examined = objects.len() as u64;
    let mut out = Vec::new();
    for chunk in objects.chunks(BATCH) {
        h.load(chunk)?;
        for &obj in chunk {
            let r = h.class_of(obj).map_or(0, |c| rules[c as usize]);
            if ends_life(h, platform, obj, r)? {
                out.push(Candidate { obj, found_by: FoundBy::Lifecycle, watch: None });
            }
        }
        h.forget(chunk);
    }
    Ok(out)
}

/// Whether `obj`, under the rules `r`, is an object whose life has ended.
fn ends_life(h: &mut Heap, platform: &Platform, obj: u32, r: u16) -> Result<bool> {
    if h.kind(obj) != Kind::Instance {
        return Ok(false);
    }
    if r & ACTIVITY != 0 && android::activity_destroyed(h, obj)?.is_some_and(|(d, _)| d) {
        return Ok(true);
    }
    if r & WRAPPER != 0 && android::context_of_destroyed_activity(h, obj)? {
        return Ok(true);
    }
    if r & CONTEXT_IMPL != 0 {
        let outer = h.instance(obj)?.and_then(|i| i.reference(android::CONTEXT_IMPL, "mOuterContext"));
        if let Some(outer) =
            outer.and_then(|o| h.object_at(o)).filter(|&o| o != obj && h.instance_of(o, android::ACTIVITY))
        {
            if android::activity_destroyed(h, outer)?.is_some_and(|(d, _)| d) {
                return Ok(true);
            }
        }
    }
    if r & FRAGMENT != 0 && android::fragment_state(h, obj)?.is_some_and(|(leaking, _)| leaking) {
        return Ok(true);
    }
    if r & VIEW != 0 {
        if let Some(v) = android::view_state(h, obj)? {
            let decor = h.class_of(obj).is_some_and(|c| h.class_name(c) == android::DECOR_VIEW);
            let once_attached = v.attach_count.is_some_and(|n| n > 0);
            if v.is_root && (v.context_destroyed || (v.detached && once_attached && (v.child_of_view_root || decor))) {
                return Ok(true);
            }
        }
    }
    if r & DIALOG != 0 && android::dialog_dismissed(h, obj)? == Some(true) {
        return Ok(true);
    }
    if r & SERVICE != 0 && platform.service_alive(obj) == Some(false) {
        return Ok(true);
    }
    if r & VIEW_MODEL != 0 && android::view_model_cleared(h, obj)? == Some(true) {
        return Ok(true);
    }
    if r & WINDOW != 0 && h.instance(obj)?.and_then(|w| w.boolean(android::WINDOW, "mDestroyed")) == Some(true) {
        return Ok(true);
    }
    if r & VIEW_ROOT != 0 {
        let (view, context) = match h.instance(obj)? {
            Some(v) => {
                (v.reference(android::VIEW_ROOT_IMPL, "mView"), v.reference(android::VIEW_ROOT_IMPL, "mContext"))
            }
            None => (None, None),
        };
        if view == Some(0) {
            return Ok(true);
        }
        if let Some(ctx) = context.and_then(|c| h.object_at(c)) {
            if android::context_of_destroyed_activity(h, ctx)? {
                return Ok(true);
            }
        }
    }
    if r & QUEUE != 0 && android::queue_quitting(h, obj)?.is_some_and(|(q, _)| q) {
        return Ok(true);
    }
    Ok(false)
}
