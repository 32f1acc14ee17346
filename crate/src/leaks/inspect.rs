//! The object inspectors: for each object of a trace, whether it is leaking, why, and
//! what else is worth saying about it, as Shark's `ObjectInspectors` and
//! `AndroidObjectInspectors` decide (their conclusions, in our own words):
//!
//! - leaking: a watched object; a destroyed activity; a context wrapper or `ContextImpl`
//!   of a destroyed activity; a fragment no longer added or destroyed; a view whose
//!   context is a destroyed activity, or detached while its window hierarchy remains; a
//!   dismissed dialog; a service `ActivityThread` no longer runs; a cleared view model; a
//!   destroyed window; a `ViewRootImpl` without a view or of a destroyed activity; a
//!   quitting message queue;
//! - not leaking: a class object, a class loader, a running thread (a thread GC root) and
//!   the main thread, the application, `ActivityThread` and `InputMethodManager`
//!   (singletons), an activity not destroyed, a running service, an added fragment, an
//!   attached view of a window, a lifecycle registry not destroyed;
//! - labels only: a thread's name, an anonymous class's super class, a watch key and
//!   durations, a fragment's tag, a view's attach state, a dialog's decor.
//!
//! Shark's newest inspector that calls any `android.os.Binder` "not leaking" (a stub lives
//! as long as the remote side wants) is left out: it would clear every reference above a
//! binder of suspicion, and the app's static list of binders in LeakCanary's own test dump
//! is exactly such a reference.

use super::android::{self, Platform};
use super::heap::{Heap, Kind};
use crate::error::Result;
use crate::model::leaks::{Leaking, Watch};
use crate::model::names::simple_name;

/// What the inspectors say about one object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inspection {
    pub leaking: Vec<String>,
    pub not_leaking: Vec<String>,
    pub labels: Vec<String>,
}

impl Inspection {
    /// The verdict before propagation: leaking reasons win on the leaking object
    /// (`leaking_wins`), not-leaking ones anywhere else; a conflict is said.
    pub fn resolve(&self, leaking_wins: bool) -> (Leaking, Vec<String>) {
        match (self.leaking.is_empty(), self.not_leaking.is_empty()) {
            (true, true) => (Leaking::Unknown, Vec::new()),
            (false, true) => (Leaking::Yes, self.leaking.clone()),
            (true, false) => (Leaking::No, self.not_leaking.clone()),
            (false, false) if leaking_wins => (Leaking::Yes, conflict(&self.leaking, &self.not_leaking)),
            (false, false) => (Leaking::No, conflict(&self.not_leaking, &self.leaking)),
        }
    }
}

fn conflict(won: &[String], lost: &[String]) -> Vec<String> {
    let mut out = won.to_vec();
    out.extend(lost.iter().map(|r| format!("conflicts with: {r}")));
    out
}

/// What the inspectors know beyond the object itself.
pub struct Context<'p> {
    pub platform: &'p Platform,
    /// The watch reference of each watched object, by object.
    pub watches: &'p [(u32, Watch)],
    /// Objects that are thread GC roots (running threads), sorted.
    pub running_threads: &'p [u32],
}

/// Inspects `obj`.
pub fn inspect(h: &mut Heap, cx: &Context<'_>, obj: u32) -> Result<Inspection> {
    let mut r = Inspection::default();
    if let Ok(k) = cx.watches.binary_search_by_key(&obj, |w| w.0) {
        let w = &cx.watches[k].1;
        r.leaking.push(if w.description.is_empty() {
            "ObjectWatcher was watching this".into()
        } else {
            format!("ObjectWatcher was watching this because {}", w.description)
        });
        r.labels.push(format!("key = {}", w.key));
        if let Some(d) = w.watch_duration_ms {
            r.labels.push(format!("watchDurationMillis = {d}"));
        }
        if let Some(d) = w.retained_duration_ms {
            r.labels.push(format!("retainedDurationMillis = {d}"));
        }
    }
    let class = match h.kind(obj) {
        Kind::Class(_) => {
            r.not_leaking.push("a class is never leaking: it stays loaded as long as its class loader".into());
            return Ok(r);
        }
        Kind::Instance => match h.class_of(obj) {
            Some(c) => c,
            None => return Ok(r),
        },
        _ => return Ok(r),
    };
    let class_name = h.class_name(class).to_string();
    if h.is_a(class, "java.lang.ClassLoader") {
        r.not_leaking.push("a class loader is never leaking: it lives as long as its classes".into());
    }
    anonymous_label(h, class, &mut r);
    if h.is_a(class, "java.lang.Thread") {
        let name = match h.instance(obj)?.and_then(|t| t.reference("java.lang.Thread", "name")) {
            Some(n) if n != 0 => h.text(n)?,
            _ => None,
        };
        if let Some(name) = &name {
            r.labels.push(format!("Thread name: '{name}'"));
        }
        if name.as_deref() == Some("main") {
            r.not_leaking.push("the main thread always runs".into());
        } else if cx.running_threads.binary_search(&obj).is_ok() {
            r.not_leaking.push("a running thread (a thread GC root)".into());
        }
    }
    if h.is_a(class, android::APPLICATION) {
        r.not_leaking.push("Application is a singleton".into());
    }
    for singleton in ["android.app.ActivityThread", "android.view.inputmethod.InputMethodManager"] {
        if h.is_a(class, singleton) {
            r.not_leaking.push(format!("{} is a singleton", simple_name(singleton)));
        }
    }
    if h.is_a(class, android::ACTIVITY) {
        match android::activity_destroyed(h, obj)? {
            Some((true, field)) => r.leaking.push(format!("Activity#{field} is true")),
            Some((false, "mDestroyed")) => r.not_leaking.push("Activity#mDestroyed is false".into()),
            Some((false, field)) => r.labels.push(format!("Activity#{field} is false")),
            None => {}
        }
    }
    if h.is_a(class, android::SERVICE) {
        match cx.platform.service_alive(obj) {
            Some(true) => r.not_leaking.push("Service held by ActivityThread".into()),
            Some(false) => r.leaking.push("Service not held by ActivityThread".into()),
            None => {}
        }
    }
    if h.class_chain(class)
        .find(|n| [android::CONTEXT_WRAPPER, android::ACTIVITY, android::APPLICATION, android::SERVICE].contains(n))
        == Some(android::CONTEXT_WRAPPER)
    {
        let simple = simple_name(&class_name).to_string();
        match android::unwrap_component(h, obj)? {
            Some(c) if h.instance_of(c, android::ACTIVITY) => match android::activity_destroyed(h, c)? {
                Some((true, field)) => r.leaking.push(format!("{simple} wraps an Activity with Activity#{field} true")),
                Some((false, field)) => {
                    r.labels.push(format!("{simple} wraps an Activity with Activity#{field} false"))
                }
                None => r.labels.push(format!("{simple} wraps an Activity")),
            },
            Some(c) if h.instance_of(c, android::APPLICATION) => {
                r.labels.push(format!("{simple} wraps an Application context"))
            }
            Some(_) => r.labels.push(format!("{simple} wraps a Service context")),
            None => r.labels.push(format!("{simple} does not wrap a known Android context")),
        }
    }
    if h.is_a(class, android::CONTEXT_IMPL) {
        let outer = h
            .instance(obj)?
            .and_then(|i| i.reference(android::CONTEXT_IMPL, "mOuterContext"))
            .and_then(|o| h.object_at(o));
        if let Some(outer) = outer {
            let outer_name = h.object_class_name(outer).to_string();
            if h.instance_of(outer, android::ACTIVITY) {
                match android::activity_destroyed(h, outer)? {
                    Some((true, field)) => r.leaking.push(format!(
                        "ContextImpl#mOuterContext is an instance of {outer_name} with Activity#{field} true"
                    )),
                    Some((false, "mDestroyed")) => r.not_leaking.push(format!(
                        "ContextImpl#mOuterContext is an instance of {outer_name} with Activity#mDestroyed false"
                    )),
                    _ => r.labels.push(format!("ContextImpl#mOuterContext is an instance of {outer_name}")),
                }
            } else if h.instance_of(outer, android::APPLICATION) {
                r.not_leaking.push(format!("ContextImpl#mOuterContext is an instance of {outer_name}, an Application"));
            } else if outer == obj {
                r.labels.push("ContextImpl#mOuterContext is the ContextImpl itself: tied to no component".into());
            } else {
                r.labels.push(format!("ContextImpl#mOuterContext is an instance of {outer_name}"));
            }
        }
    }
    if h.is_a(class, android::FRAGMENT)
        || h.is_a(class, android::SUPPORT_FRAGMENT)
        || h.is_a(class, android::ANDROIDX_FRAGMENT)
    {
        match android::fragment_state(h, obj)? {
            Some((true, why)) => r.leaking.push(why),
            Some((false, why)) => r.not_leaking.push(why),
            None => {}
        }
        let declared = [android::FRAGMENT, android::SUPPORT_FRAGMENT, android::ANDROIDX_FRAGMENT]
            .into_iter()
            .find(|c| h.is_a(class, c))
            .unwrap_or(android::FRAGMENT);
        let tag = h.instance(obj)?.and_then(|f| f.reference(declared, "mTag"));
        if let Some(tag) = tag.filter(|&t| t != 0) {
            if let Some(t) = h.text(tag)?.filter(|t| !t.is_empty()) {
                r.labels.push(format!("Fragment.mTag = {t}"));
            }
        }
    }
    if h.is_a(class, android::VIEW) {
        view(h, obj, &mut r)?;
    }
    if h.is_a(class, android::DIALOG) {
        let decor = h.instance(obj)?.and_then(|d| d.reference(android::DIALOG, "mDecor"));
        if android::dialog_dismissed(h, obj)? == Some(true) {
            r.leaking.push("Dialog was dismissed: Dialog#mDecor is null after it was created".into());
        } else if let Some(d) = decor {
            r.labels.push(format!("Dialog#mDecor is {}", if d == 0 { "null" } else { "not null" }));
        }
    }
    if h.is_a(class, android::WINDOW) {
        match h.instance(obj)?.and_then(|w| w.boolean(android::WINDOW, "mDestroyed")) {
            Some(true) => r.leaking.push("Window#mDestroyed is true".into()),
            Some(false) => r.labels.push("Window#mDestroyed is false".into()),
            None => {}
        }
    }
    if h.is_a(class, android::VIEW_ROOT_IMPL) {
        let (view, context) = match h.instance(obj)? {
            Some(v) => {
                (v.reference(android::VIEW_ROOT_IMPL, "mView"), v.reference(android::VIEW_ROOT_IMPL, "mContext"))
            }
            None => (None, None),
        };
        match view {
            Some(0) => r.leaking.push("ViewRootImpl#mView is null: removed from the window manager".into()),
            Some(_) => {
                if let Some(ctx) = context.and_then(|c| h.object_at(c)) {
                    if android::context_of_destroyed_activity(h, ctx)? {
                        r.leaking.push(
                            "ViewRootImpl#mContext references a destroyed activity (a dialog or toast not dismissed?)"
                                .into(),
                        );
                    }
                }
                r.labels.push("ViewRootImpl#mView is not null".into());
            }
            None => {}
        }
    }
    if h.is_a(class, android::MESSAGE_QUEUE) {
        match android::queue_quitting(h, obj)? {
            Some((true, field)) => r.leaking.push(format!("MessageQueue#{field} is true")),
            Some((false, field)) => r.not_leaking.push(format!("MessageQueue#{field} is false")),
            None => {}
        }
    }
    if h.is_a(class, android::VIEW_MODEL) {
        match android::view_model_cleared(h, obj)? {
            Some(true) => r.leaking.push("ViewModel was cleared (onCleared() ran)".into()),
            Some(false) => r.labels.push("ViewModel not cleared".into()),
            None => {}
        }
    }
    if h.is_a(class, android::LIFECYCLE_REGISTRY) {
        let address = h.address(obj);
        match android::lifecycle_state(h, address)? {
            Some(s) if s == "DESTROYED" => r.labels.push(format!("state = {s}")),
            Some(s) => r.not_leaking.push(format!("state is {s}")),
            None => {}
        }
    }
    Ok(r)
}

/// An anonymous class (`Outer$1`): which class it extends.
fn anonymous_label(h: &Heap, class: u32, r: &mut Inspection) {
    let name = h.class_name(class);
    let Some((_, digits)) = name.rsplit_once('$') else { return };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return;
    }
    match h.super_class(class).map(|s| h.class_name(s)) {
        Some("java.lang.Object") | None => r.labels.push("Anonymous class (implements an interface)".into()),
        Some(parent) => r.labels.push(format!("Anonymous subclass of {parent}")),
    }
}

/// The view inspector.
fn view(h: &mut Heap, obj: u32, r: &mut Inspection) -> Result<()> {
    let Some(v) = android::view_state(h, obj)? else { return Ok(()) };
    let once_attached = v.attach_count.is_some_and(|n| n > 0);
    if v.context_destroyed {
        r.leaking.push("View#mContext references a destroyed activity".into());
    } else if v.in_window && once_attached {
        if v.detached {
            r.leaking.push("View detached yet still part of a window's view hierarchy".into());
        } else {
            let root_detached = match v.root_view {
                Some(root) => android::view_state(h, root)?.is_some_and(|s| s.detached),
                None => false,
            };
            if root_detached {
                r.leaking.push("View attached but its root view detached (attach disorder)".into());
            } else {
                r.not_leaking.push("View attached".into());
            }
        }
    }
    r.labels.push(if v.in_window {
        "View is part of a window view hierarchy".into()
    } else {
        "View not part of a window view hierarchy".into()
    });
    r.labels.push(if v.detached {
        "View#mAttachInfo is null (view detached)".into()
    } else {
        "View#mAttachInfo is not null (view attached)".into()
    });
    if let Some(n) = v.attach_count {
        r.labels.push(format!("View#mWindowAttachCount = {n}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolving_conflicts() {
        let i = Inspection { leaking: vec!["a".into()], not_leaking: vec!["b".into()], labels: vec![] };
        assert_eq!(i.resolve(true), (Leaking::Yes, vec!["a".to_string(), "conflicts with: b".into()]));
        assert_eq!(i.resolve(false), (Leaking::No, vec!["b".to_string(), "conflicts with: a".into()]));
        assert_eq!(Inspection::default().resolve(true).0, Leaking::Unknown);
    }
}
