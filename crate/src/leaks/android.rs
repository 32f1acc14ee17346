//! Reading Android's lifecycle state out of a dump: whether an activity is destroyed, which
//! component a context stands for, which services the process still runs, where a
//! fragment, a view, a dialog, a window or a view model is in its life. The finders
//! ([`super::finders`]) and the inspectors ([`super::inspect`]) both ask these questions.
//!
//! Field names across platform versions (from the AOSP sources and LeakCanary's
//! inspectors, which track them):
//! - `Activity.mDestroyed` exists from API 17; before it only `mFinished` (set by
//!   `finish()`) says the activity is going away.
//! - `ActivityThread.mServices` maps binder tokens to the running services: a `HashMap`
//!   before API 19, an `android.util.ArrayMap` (keys and values interleaved in `mArray`)
//!   from API 19; the thread is `ActivityThread.sCurrentActivityThread`.
//! - `android.app.Fragment` (API 11+), the support library's
//!   `android.support.v4.app.Fragment` and androidx's `androidx.fragment.app.Fragment`
//!   all have `mFragmentManager`, null once the fragment is no longer added. androidx
//!   fragments also have `mLifecycleRegistry`, whose state (`mState`, `state` since the
//!   class became Kotlin) is a `Lifecycle.State` enum; from androidx.fragment 1.1.0
//!   (recognised by its `mMaxState` field) a destroyed fragment is reset to INITIALIZED,
//!   told apart from a never-attached one by `mCalled`.
//! - `View`: `mParent` (a `ViewGroup`, or a `ViewRootImpl` for a window's root view),
//!   `mAttachInfo` (null when detached), `mWindowAttachCount`, `mContext`.
//! - A context is unwrapped through `ContextWrapper.mBase`; a `DecorContext` (API 24+)
//!   through `mPhoneWindow`'s `Window.mContext`.
//! - `Dialog.mDecor` is set by `show()` and cleared by dismissal; `mCreated` stays set.
//! - `Window.mDestroyed`; `ViewRootImpl.mView` (null once removed from the window
//!   manager) and `ViewRootImpl.mContext` (not in the oldest versions).
//! - `MessageQueue.mQuitting` (`mQuiting` before the typo was fixed).
//! - androidx `ViewModel.mCleared` (lifecycle 2.1 to 2.7); from 2.8 the state is in
//!   `ViewModel.impl`, a `ViewModelImpl` with `isCleared`.
//!
//! Every read is optional: a field a version lacks gives no answer, never an error.

use super::heap::{FieldVal, Heap, Kind};
use crate::error::Result;

pub const ACTIVITY: &str = "android.app.Activity";
pub const APPLICATION: &str = "android.app.Application";
pub const SERVICE: &str = "android.app.Service";
pub const CONTEXT_WRAPPER: &str = "android.content.ContextWrapper";
pub const CONTEXT_IMPL: &str = "android.app.ContextImpl";
pub const VIEW: &str = "android.view.View";
pub const VIEW_ROOT_IMPL: &str = "android.view.ViewRootImpl";
pub const DECOR_VIEW: &str = "com.android.internal.policy.DecorView";
pub const WINDOW: &str = "android.view.Window";
pub const DIALOG: &str = "android.app.Dialog";
pub const FRAGMENT: &str = "android.app.Fragment";
pub const SUPPORT_FRAGMENT: &str = "android.support.v4.app.Fragment";
pub const ANDROIDX_FRAGMENT: &str = "androidx.fragment.app.Fragment";
pub const VIEW_MODEL: &str = "androidx.lifecycle.ViewModel";
pub const VIEW_MODEL_IMPL: &str = "androidx.lifecycle.viewmodel.internal.ViewModelImpl";
pub const MESSAGE_QUEUE: &str = "android.os.MessageQueue";
pub const LIFECYCLE_REGISTRY: &str = "androidx.lifecycle.LifecycleRegistry";

/// Hops followed at most when unwrapping a context or walking a view's parents.
const MAX_HOPS: usize = 64;
/// Entries of a service map read at most.
const MAX_ENTRIES: usize = 100_000;

/// A verdict on an object: leaking (true) or not, and why.
pub type Verdict = (bool, String);

/// What the whole dump says once, before any object is asked about.
#[derive(Debug, Clone, Default)]
pub struct Platform {
    /// `android.os.Build.VERSION.SDK_INT`.
    pub sdk: Option<u32>,
    /// `android.os.Build.MANUFACTURER`.
    pub manufacturer: Option<String>,
    /// Whether the dump has Android's framework classes at all.
    pub is_android: bool,
    /// The services `ActivityThread.mServices` holds, sorted (None: it could not be read).
    pub alive_services: Option<Vec<u32>>,
}

impl Platform {
    pub fn read(h: &mut Heap) -> Result<Platform> {
        let mut p = Platform {
            is_android: !h.classes_named(ACTIVITY).is_empty() || !h.classes_named("android.os.Build").is_empty(),
            ..Default::default()
        };
        for c in h.classes_named("android.os.Build$VERSION") {
            if let Some(v) = h.static_int(c, "SDK_INT").filter(|&v| v > 0 && v < 10_000) {
                p.sdk = Some(v as u32);
            }
        }
        for c in h.classes_named("android.os.Build") {
            if let Some(s) = h.static_ref(c, "MANUFACTURER").filter(|&s| s != 0) {
                p.manufacturer = h.text(s)?;
            }
        }
        p.alive_services = alive_services(h)?;
        Ok(p)
    }

    pub fn service_alive(&self, obj: u32) -> Option<bool> {
        self.alive_services.as_ref().map(|s| s.binary_search(&obj).is_ok())
    }
}

/// The values of `ActivityThread.sCurrentActivityThread.mServices`.
fn alive_services(h: &mut Heap) -> Result<Option<Vec<u32>>> {
    let mut thread = None;
    for c in h.classes_named("android.app.ActivityThread") {
        thread = thread.or(h.static_ref(c, "sCurrentActivityThread").filter(|&t| t != 0));
    }
    let Some(thread) = thread else { return Ok(None) };
    let services = match h.instance_at(thread)? {
        Some(t) => t.reference("android.app.ActivityThread", "mServices"),
        None => None,
    };
    let Some(map) = services.and_then(|m| h.object_at(m)) else { return Ok(None) };
    let mut values = match map_values(h, map)? {
        Some(v) => v,
        None => return Ok(None),
    };
    values.sort_unstable();
    values.dedup();
    Ok(Some(values))
}

/// The values of a map: an `android.util.ArrayMap` (odd slots of `mArray`) or a
/// `java.util.HashMap` (`table`'s entries and their `next` chains). None: neither.
pub fn map_values(h: &mut Heap, map: u32) -> Result<Option<Vec<u32>>> {
    if h.instance_of(map, "android.util.ArrayMap") {
        let array = h.instance(map)?.and_then(|m| m.reference("android.util.ArrayMap", "mArray"));
        let Some(array) = array.and_then(|a| h.object_at(a)) else { return Ok(Some(Vec::new())) };
        let slots = h.array_elements(array, 2 * MAX_ENTRIES)?;
        return Ok(Some(slots.iter().skip(1).step_by(2).filter_map(|&v| h.object_at(v)).collect()));
    }
    if h.instance_of(map, "java.util.HashMap") {
        let table = h.instance(map)?.and_then(|m| m.reference("java.util.HashMap", "table"));
        let Some(table) = table.and_then(|t| h.object_at(t)) else { return Ok(Some(Vec::new())) };
        let mut entries: Vec<u32> =
            h.array_elements(table, MAX_ENTRIES)?.into_iter().filter_map(|e| h.object_at(e)).collect();
        let mut out = Vec::new();
        let mut seen = 0;
        while let Some(e) = entries.pop() {
            seen += 1;
            if seen > MAX_ENTRIES {
                break;
            }
            let Some(entry) = h.instance(e)? else { continue };
            if let Some(v) = entry.get_any("value").and_then(as_ref) {
                out.push(v);
            }
            let next = entry.get_any("next").and_then(as_ref);
            if let Some(n) = next.and_then(|n| h.object_at(n)) {
                entries.push(n);
            }
        }
        let out = out.into_iter().filter_map(|v| h.object_at(v)).collect();
        return Ok(Some(out));
    }
    Ok(None)
}

fn as_ref(v: FieldVal) -> Option<u64> {
    match v {
        FieldVal::Ref(r) if r != 0 => Some(r),
        _ => None,
    }
}

/// The first of the four component classes in `obj`'s class chain.
fn component_class(h: &Heap, obj: u32) -> Option<&'static str> {
    let class = h.class_of(obj)?;
    if h.kind(obj) != Kind::Instance {
        return None;
    }
    h.class_chain(class).find_map(|n| [CONTEXT_WRAPPER, ACTIVITY, APPLICATION, SERVICE].into_iter().find(|&c| c == n))
}

/// The component a context stands for (an activity, a service, the application),
/// unwrapping `ContextWrapper.mBase` (and a `DecorContext`'s window context). None: not
/// a context of a known component.
pub fn unwrap_component(h: &mut Heap, obj: u32) -> Result<Option<u32>> {
    match component_class(h, obj) {
        None => return Ok(None),
        Some(c) if c != CONTEXT_WRAPPER => return Ok(Some(obj)),
        Some(_) => {}
    }
    let mut context = obj;
    let mut visited = vec![obj];
    for _ in 0..MAX_HOPS {
        let wrapper = context;
        let base = h.instance(wrapper)?.and_then(|w| w.reference(CONTEXT_WRAPPER, "mBase"));
        let Some(mut next) = base.and_then(|b| h.object_at(b)) else { return Ok(None) };
        let mut class = component_class(h, next);
        if class == Some(ACTIVITY) {
            return Ok(Some(next));
        }
        if h.instance_of(wrapper, "com.android.internal.policy.DecorContext") {
            // Its base is not the activity: the activity is its window's context.
            let window = h
                .instance(wrapper)?
                .and_then(|w| w.reference("com.android.internal.policy.DecorContext", "mPhoneWindow"));
            if let Some(window) = window.and_then(|w| h.object_at(w)) {
                let ctx = h.instance(window)?.and_then(|w| w.reference(WINDOW, "mContext"));
                if let Some(ctx) = ctx.and_then(|c| h.object_at(c)) {
                    next = ctx;
                    class = component_class(h, next);
                    if class == Some(ACTIVITY) {
                        return Ok(Some(next));
                    }
                }
            }
        }
        match class {
            Some(SERVICE) | Some(APPLICATION) => return Ok(Some(next)),
            Some(CONTEXT_WRAPPER) if !visited.contains(&next) => {
                visited.push(next);
                context = next;
            }
            _ => return Ok(None),
        }
    }
    Ok(None)
}

/// The activity a context stands for, if it is one.
pub fn unwrap_activity(h: &mut Heap, obj: u32) -> Result<Option<u32>> {
    Ok(unwrap_component(h, obj)?.filter(|&c| h.instance_of(c, ACTIVITY)))
}

/// Whether an activity is destroyed, and the field that says so: `mDestroyed` (API 17+),
/// else `mFinished`.
pub fn activity_destroyed(h: &mut Heap, activity: u32) -> Result<Option<(bool, &'static str)>> {
    let Some(a) = h.instance(activity)? else { return Ok(None) };
    if let Some(d) = a.boolean(ACTIVITY, "mDestroyed") {
        return Ok(Some((d, "mDestroyed")));
    }
    Ok(a.boolean(ACTIVITY, "mFinished").map(|f| (f, "mFinished")))
}

/// Whether the context `obj` unwraps to a destroyed activity.
pub fn context_of_destroyed_activity(h: &mut Heap, context: u32) -> Result<bool> {
    let Some(activity) = unwrap_activity(h, context)? else { return Ok(false) };
    Ok(activity_destroyed(h, activity)?.is_some_and(|(d, _)| d))
}

/// The name of an enum constant (`Enum.name`).
pub fn enum_name(h: &mut Heap, obj: u64) -> Result<Option<String>> {
    let name = h.instance_at(obj)?.and_then(|e| e.reference("java.lang.Enum", "name"));
    match name {
        Some(n) if n != 0 => h.text(n),
        _ => Ok(None),
    }
}

/// A `LifecycleRegistry`'s state name (`DESTROYED`, `RESUMED`, …).
pub fn lifecycle_state(h: &mut Heap, registry: u64) -> Result<Option<String>> {
    let state = h
        .instance_at(registry)?
        .and_then(|r| r.reference(LIFECYCLE_REGISTRY, "state").or_else(|| r.reference(LIFECYCLE_REGISTRY, "mState")));
    match state {
        Some(s) if s != 0 => enum_name(h, s),
        _ => Ok(None),
    }
}

/// Where a fragment is: leaking (Some(true)), in use (Some(false)) or unknown, and why.
pub fn fragment_state(h: &mut Heap, fragment: u32) -> Result<Option<Verdict>> {
    for class in [FRAGMENT, SUPPORT_FRAGMENT] {
        if h.instance_of(fragment, class) {
            let manager = h.instance(fragment)?.and_then(|f| f.reference(class, "mFragmentManager"));
            return Ok(manager.map(|m| {
                if m == 0 {
                    (true, "Fragment#mFragmentManager is null".into())
                } else {
                    (false, "Fragment#mFragmentManager is not null".into())
                }
            }));
        }
    }
    if !h.instance_of(fragment, ANDROIDX_FRAGMENT) {
        return Ok(None);
    }
    let (registry, manager, called, max_state) = match h.instance(fragment)? {
        Some(f) => (
            f.reference(ANDROIDX_FRAGMENT, "mLifecycleRegistry"),
            f.reference(ANDROIDX_FRAGMENT, "mFragmentManager"),
            f.boolean(ANDROIDX_FRAGMENT, "mCalled"),
            f.has(ANDROIDX_FRAGMENT, "mMaxState"),
        ),
        None => return Ok(None),
    };
    let state = match registry {
        Some(r) if r != 0 => lifecycle_state(h, r)?,
        _ => None,
    };
    let Some(state) = state else {
        // No lifecycle to read: the manager alone says, as for the other fragments.
        return Ok(manager.map(|m| {
            if m == 0 {
                (true, "Fragment#mFragmentManager is null".into())
            } else {
                (false, "Fragment#mFragmentManager is not null".into())
            }
        }));
    };
    if state == "DESTROYED" {
        return Ok(Some((true, "Fragment#mLifecycleRegistry.state is DESTROYED".into())));
    }
    if state != "INITIALIZED" || !max_state {
        return Ok(Some((false, format!("Fragment#mLifecycleRegistry.state is {state}"))));
    }
    // androidx.fragment 1.1+: INITIALIZED is both "never added" and "reset after destroy".
    if manager.is_some_and(|m| m != 0) {
        return Ok(Some((
            false,
            "Fragment#mLifecycleRegistry.state is INITIALIZED and Fragment#mFragmentManager is set".into(),
        )));
    }
    Ok(called.map(|c| {
        if c {
            (true, "Fragment#mLifecycleRegistry.state was reset to INITIALIZED after onDestroy()".into())
        } else {
            (false, "Fragment#mLifecycleRegistry.state is INITIALIZED and the fragment was never attached".into())
        }
    }))
}

/// What a view's fields say.
#[derive(Debug, Clone, Default)]
pub struct ViewState {
    /// `mParent` is null or not a view: the root of its hierarchy.
    pub is_root: bool,
    /// `mParent` is a `ViewRootImpl` (not a view): the root view of a window.
    pub child_of_view_root: bool,
    /// `mAttachInfo` is null.
    pub detached: bool,
    pub attach_count: Option<i64>,
    /// `mContext` unwraps to a destroyed activity.
    pub context_destroyed: bool,
    /// The hierarchy's root view (through `mParent`), when it is a view other than this one.
    pub root_view: Option<u32>,
    /// The hierarchy hangs from a window (a `ViewRootImpl`, or a `DecorView` at the top).
    pub in_window: bool,
}

/// Reads a view's state (None: not a view, or its record cannot be read).
pub fn view_state(h: &mut Heap, view: u32) -> Result<Option<ViewState>> {
    if !h.instance_of(view, VIEW) {
        return Ok(None);
    }
    let (parent, attach, count, context) = match h.instance(view)? {
        Some(v) => (
            v.reference(VIEW, "mParent"),
            v.reference(VIEW, "mAttachInfo"),
            v.int(VIEW, "mWindowAttachCount"),
            v.reference(VIEW, "mContext"),
        ),
        None => return Ok(None),
    };
    let parent_obj = parent.and_then(|p| h.object_at(p));
    let parent_is_view = parent_obj.is_some_and(|p| h.instance_of(p, VIEW));
    let mut s = ViewState {
        is_root: !parent_is_view,
        child_of_view_root: parent_obj.is_some() && !parent_is_view,
        detached: attach.map_or(true, |a| a == 0),
        attach_count: count,
        ..Default::default()
    };
    if let Some(ctx) = context.and_then(|c| h.object_at(c)) {
        s.context_destroyed = context_of_destroyed_activity(h, ctx)?;
    }
    // Up the parents to the hierarchy's top.
    let mut top_parent = parent_obj;
    let mut root_view = None;
    for _ in 0..MAX_HOPS {
        let Some(p) = top_parent.filter(|&p| h.instance_of(p, VIEW)) else { break };
        root_view = Some(p);
        top_parent = h.instance(p)?.and_then(|v| v.reference(VIEW, "mParent")).and_then(|q| h.object_at(q));
    }
    s.root_view = root_view;
    s.in_window =
        top_parent.is_some() || root_view.is_some_and(|r| h.class_of(r).is_some_and(|c| h.class_name(c) == DECOR_VIEW));
    Ok(Some(s))
}

/// A dismissed dialog: created (`mCreated`), but its window's view gone (`mDecor` null)
/// and not showing.
pub fn dialog_dismissed(h: &mut Heap, dialog: u32) -> Result<Option<bool>> {
    let Some(d) = h.instance(dialog)? else { return Ok(None) };
    let (Some(decor), Some(created)) = (d.reference(DIALOG, "mDecor"), d.boolean(DIALOG, "mCreated")) else {
        return Ok(None);
    };
    let showing = d.boolean(DIALOG, "mShowing").unwrap_or(false);
    Ok(Some(created && decor == 0 && !showing))
}

/// Whether a view model was cleared (`mCleared`, or `impl.isCleared`).
pub fn view_model_cleared(h: &mut Heap, vm: u32) -> Result<Option<bool>> {
    let (cleared, imp) = match h.instance(vm)? {
        Some(v) => (v.boolean(VIEW_MODEL, "mCleared"), v.reference(VIEW_MODEL, "impl")),
        None => return Ok(None),
    };
    if cleared.is_some() {
        return Ok(cleared);
    }
    match imp {
        Some(i) if i != 0 => Ok(h.instance_at(i)?.and_then(|i| i.boolean(VIEW_MODEL_IMPL, "isCleared"))),
        _ => Ok(None),
    }
}

/// A `MessageQueue`'s quitting flag and the field's name.
pub fn queue_quitting(h: &mut Heap, queue: u32) -> Result<Option<(bool, &'static str)>> {
    let Some(q) = h.instance(queue)? else { return Ok(None) };
    Ok(q.boolean(MESSAGE_QUEUE, "mQuitting")
        .map(|v| (v, "mQuitting"))
        .or_else(|| q.boolean(MESSAGE_QUEUE, "mQuiting").map(|v| (v, "mQuiting"))))
}
