//! The leak finder on dumps built here ([`scene`]): every finder, inspector and Android
//! version's field names it supports, with what each dump holds known by construction —
//! which objects leak, the path to each, every verdict, the suspect references and the
//! signature. Signatures are SHA-1 digests computed independently with coreutils'
//! `sha1sum` over the text LeakCanary hashes (the command is beside each).

#[path = "support/scene.rs"]
mod scene;
mod support;

use heapscope::analysis::{analyze, Analysis, NoProgress, Options, Reading};
use heapscope::model::leaks::{FoundBy, Leak, LeakInstance, LeakKind, Leaking, Leaks, ObjectKind, ReferenceKind};
use heapscope::source::MemorySource;
use scene::{Scene, BOOLEAN, INT, LONG, OBJECT, V};

const OBJ: &str = "java.lang.Object";

fn analysis(bytes: Vec<u8>, options: &Options) -> Analysis {
    analyze(Box::new(MemorySource::new(bytes)), options, &mut NoProgress, &mut ()).expect("the scene analyzes")
}

fn leaks(bytes: Vec<u8>) -> Leaks {
    heapscope::leaks::find(&mut analysis(bytes, &Options::default())).expect("leaks found")
}

fn addr(id: u64) -> String {
    format!("0x{id:x}")
}

/// The leak whose instances include `obj`.
fn leak_of(l: &Leaks, obj: u64) -> &Leak {
    l.leaks
        .iter()
        .find(|x| x.instances.iter().any(|i| i.object == addr(obj)))
        .unwrap_or_else(|| panic!("no leak of {} in {l:#?}", addr(obj)))
}

fn instance(l: &Leaks, obj: u64) -> &LeakInstance {
    leak_of(l, obj).instances.iter().find(|i| i.object == addr(obj)).unwrap()
}

fn reported(l: &Leaks) -> Vec<String> {
    let mut out: Vec<String> = l.leaks.iter().flat_map(|x| x.instances.iter().map(|i| i.object.clone())).collect();
    out.sort();
    out
}

/// The Android framework classes the cases share, for platform level `sdk` (17+ has
/// `Activity.mDestroyed`), and `android.os.Build`'s values.
fn framework(s: &mut Scene, sdk: i32, manufacturer: &str) {
    s.class("android.os.Build", Some(OBJ), &[]);
    let m = s.string(manufacturer);
    s.static_field("android.os.Build", "MANUFACTURER", V::Ref(m));
    s.class("android.os.Build$VERSION", Some(OBJ), &[]);
    s.static_field("android.os.Build$VERSION", "SDK_INT", V::Int(sdk));
    s.class("android.content.Context", Some(OBJ), &[]);
    s.class("android.content.ContextWrapper", Some("android.content.Context"), &[("mBase", OBJECT)]);
    s.class("android.view.ContextThemeWrapper", Some("android.content.ContextWrapper"), &[]);
    if sdk >= 17 {
        s.class(
            "android.app.Activity",
            Some("android.view.ContextThemeWrapper"),
            &[("mDestroyed", BOOLEAN), ("mFinished", BOOLEAN), ("mWindow", OBJECT)],
        );
    } else {
        s.class(
            "android.app.Activity",
            Some("android.view.ContextThemeWrapper"),
            &[("mFinished", BOOLEAN), ("mWindow", OBJECT)],
        );
    }
    s.class("android.app.Application", Some("android.content.ContextWrapper"), &[]);
    s.class("android.app.Service", Some("android.content.ContextWrapper"), &[]);
    s.class("android.app.ContextImpl", Some("android.content.Context"), &[("mOuterContext", OBJECT)]);
    s.class("android.util.ArrayMap", Some(OBJ), &[("mArray", OBJECT)]);
    s.class("android.app.ActivityThread", Some(OBJ), &[("mServices", OBJECT)]);
    s.class("java.util.ArrayList", Some(OBJ), &[("elementData", OBJECT), ("size", INT)]);
}

/// `ActivityThread.sCurrentActivityThread` running `services` (an ArrayMap token → service).
fn activity_thread(s: &mut Scene, services: &[u64]) -> u64 {
    let mut slots = Vec::new();
    for &svc in services {
        let token = s.instance(OBJ, &[]);
        slots.extend([token, svc]);
    }
    let array = s.array("java.lang.Object[]", &slots);
    let map = s.instance("android.util.ArrayMap", &[("mArray", V::Ref(array))]);
    let thread = s.instance("android.app.ActivityThread", &[("mServices", V::Ref(map))]);
    s.static_field("android.app.ActivityThread", "sCurrentActivityThread", V::Ref(thread));
    thread
}

/// An app class with one static field holding `value`.
fn holder(s: &mut Scene, class: &str, field: &str, value: u64) {
    s.class(class, Some(OBJ), &[]);
    s.static_field(class, field, V::Ref(value));
}

// ---------------------------------------------------------------------------------------
// LeakCanary's own test case, built: a bound service leaked through its binder.

/// LeakCanary 1.x watching `LeakyService`, whose binder `LeakyService$MyBinder.service`
/// holds it; a JNI global root holds the binder (the system's reference to a bound
/// service's stub) and, when `app_list`, the app keeps its binders in the static
/// `LeakyService.leakAllTheBinders` too.
fn service_binder(app_list: bool) -> (Vec<u8>, u64, u64) {
    let mut s = Scene::new();
    framework(&mut s, 19, "unknown");
    activity_thread(&mut s, &[]);
    s.class("android.os.Binder", Some(OBJ), &[]);
    s.class("com.example.LeakyService", Some("android.app.Service"), &[]);
    s.class("com.example.LeakyService$MyBinder", Some("android.os.Binder"), &[("service", OBJECT)]);
    s.class(
        "com.squareup.leakcanary.KeyedWeakReference",
        Some("java.lang.ref.WeakReference"),
        &[("key", OBJECT), ("name", OBJECT)],
    );
    let service = s.instance("com.example.LeakyService", &[]);
    let binder = s.instance("com.example.LeakyService$MyBinder", &[("service", V::Ref(service))]);
    s.root_jni_global(binder);
    if app_list {
        let array = s.array("java.lang.Object[]", &[binder]);
        let list = s.instance("java.util.ArrayList", &[("elementData", V::Ref(array)), ("size", V::Int(1))]);
        s.static_field("com.example.LeakyService", "leakAllTheBinders", V::Ref(list));
    }
    let key = s.string("b3abfae6-2c53-42e1-b8c1-96b0558dbeae");
    let name = s.string("");
    let kwr = s.instance(
        "com.squareup.leakcanary.KeyedWeakReference",
        &[("key", V::Ref(key)), ("name", V::Ref(name)), ("referent", V::Ref(service))],
    );
    // The watcher keeps its references in a set.
    holder(&mut s, "com.squareup.leakcanary.RefWatcher", "retainedKeys", kwr);
    (s.bytes(), service, binder)
}

#[test]
fn a_service_held_by_the_apps_static_list_of_binders_is_the_apps_leak() {
    let (bytes, service, _) = service_binder(true);
    let l = leaks(bytes);
    assert_eq!(reported(&l), vec![addr(service)]);
    let leak = leak_of(&l, service);
    assert_eq!(leak.kind, LeakKind::Application);
    assert_eq!(leak.count, 1);
    let i = &leak.instances[0];
    assert_eq!(i.found_by, FoundBy::Watched);
    let w = i.watch.as_ref().expect("watched");
    assert_eq!(
        (w.key.as_str(), w.description.as_str(), w.watch_duration_ms, w.retained_duration_ms),
        ("b3abfae6-2c53-42e1-b8c1-96b0558dbeae", "", None, None)
    );
    // Through the app's list, not from the JNI global root (two steps shorter).
    let classes: Vec<&str> = i.trace.iter().map(|s| s.class_name.as_str()).collect();
    assert_eq!(
        classes,
        [
            "com.example.LeakyService",
            "java.util.ArrayList",
            "java.lang.Object[]",
            "com.example.LeakyService$MyBinder",
            "com.example.LeakyService"
        ]
    );
    assert_eq!(i.trace[0].object_kind, ObjectKind::Class);
    assert_eq!(i.trace[0].root_type.as_deref(), Some("System Class"));
    let refs: Vec<(ReferenceKind, &str)> =
        i.trace.iter().filter_map(|s| s.reference.as_ref()).map(|r| (r.kind, r.name.as_str())).collect();
    assert_eq!(
        refs,
        [
            (ReferenceKind::StaticField, "leakAllTheBinders"),
            (ReferenceKind::InstanceField, "elementData"),
            (ReferenceKind::ArrayElement, "[0]"),
            (ReferenceKind::InstanceField, "service")
        ]
    );
    let verdicts: Vec<Leaking> = i.trace.iter().map(|s| s.leaking).collect();
    assert_eq!(verdicts, [Leaking::No, Leaking::Unknown, Leaking::Unknown, Leaking::Unknown, Leaking::Yes]);
    assert_eq!(i.trace.iter().map(|s| s.suspect).collect::<Vec<_>>(), [true, true, true, true, false]);
    assert!(i.trace[4].reasons.contains(&"ObjectWatcher was watching this".to_string()), "{:?}", i.trace[4].reasons);
    assert!(i.trace[4].reasons.contains(&"Service not held by ActivityThread".to_string()));
    // printf '%s' 'com.example.LeakyServiceleakAllTheBindersjava.util.ArrayListelementDatajava.lang.Object[][x]com.example.LeakyService$MyBinderservice' | sha1sum
    assert_eq!(leak.signature, "2664e05774b09623782f81a258d01c590a6c6d82");
    assert!(leak.library_leak.is_none());
}

#[test]
fn a_service_held_only_by_the_systems_binder_is_a_library_leak_from_the_jni_global_root() {
    let (bytes, service, binder) = service_binder(false);
    let l = leaks(bytes);
    assert_eq!(reported(&l), vec![addr(service)]);
    let leak = leak_of(&l, service);
    assert_eq!(leak.kind, LeakKind::Library);
    let lib = leak.library_leak.as_ref().unwrap();
    assert_eq!(lib.pattern, "native global variable referencing android.os.Binder");
    let i = &leak.instances[0];
    assert_eq!(i.trace.iter().map(|s| s.object.clone()).collect::<Vec<_>>(), [addr(binder), addr(service)]);
    assert_eq!(i.trace[0].root_type.as_deref(), Some("JNI Global"));
    assert_eq!(i.trace[0].reference.as_ref().unwrap().name, "service");
    // printf '%s' 'native global variable referencing android.os.Binder' | sha1sum
    assert_eq!(leak.signature, "9425ba4d12faf4045165aff82e33f523350ddf54");
}

/// The inspector's path to the leaking service: the shortest one is the JNI global's (two
/// steps), the leak trace's goes through the app's static list (five steps, as the Leaks
/// view traces it), and the answer says why the shortest is not the leak trace's.
#[test]
fn the_inspector_can_follow_the_leak_traces_path_and_says_why_the_shortest_differs() {
    use heapscope::session::query::{Answer, Query};
    let (bytes, service, binder) = service_binder(true);
    let l = leaks(bytes.clone());
    let traced: Vec<String> = leak_of(&l, service).instances[0].trace.iter().map(|s| s.object.clone()).collect();
    assert_eq!(traced.len(), 5);
    let mut s = support::session_of(bytes);
    let Answer::Paths(shortest) = s.answer(&Query::Paths { object: addr(service), tree: None, max: 0 }).unwrap() else {
        panic!()
    };
    let shortest: Vec<String> = shortest.trace.iter().map(|t| t.object.address.clone()).collect();
    assert_eq!(shortest, [addr(binder), addr(service)]);
    let Answer::LeakTracePath(p) = s.answer(&Query::LeakTracePath { object: addr(service), tree: None }).unwrap()
    else {
        panic!()
    };
    let path = p.path.as_ref().expect("a strong path reaches the service");
    assert_eq!(path.trace.iter().map(|t| t.object.address.clone()).collect::<Vec<_>>(), traced);
    assert_eq!(path.trace[0].gc_root, ["System Class"]);
    assert_eq!(path.trace[0].via, ["leakAllTheBinders"]);
    assert_eq!((p.steps, p.shortest_steps, p.same), (5, 2, false));
    assert_eq!(
        p.why_not_shortest,
        ["it starts at a JNI Global root holding com.example.LeakyService$MyBinder: a known library leak (native global variable referencing android.os.Binder), which the leak trace visits last"]
    );
    // Held only by the system's binder: the leak trace's path is the shortest.
    let (bytes, service, binder) = service_binder(false);
    let mut s = support::session_of(bytes);
    let Answer::LeakTracePath(p) = s.answer(&Query::LeakTracePath { object: addr(service), tree: None }).unwrap()
    else {
        panic!()
    };
    let path = p.path.expect("a strong path");
    assert_eq!(path.trace.iter().map(|t| t.object.address.clone()).collect::<Vec<_>>(), [addr(binder), addr(service)]);
    assert!(p.same && p.why_not_shortest.is_empty(), "{:?}", p.why_not_shortest);
}

// ---------------------------------------------------------------------------------------
// LeakCanary 2's watch references (also its JVM flavour: no Android class here).

#[test]
fn leakcanary_2_watch_references_give_key_description_and_durations() {
    let mut s = Scene::new();
    s.class(
        "leakcanary.KeyedWeakReference",
        Some("java.lang.ref.WeakReference"),
        &[("key", OBJECT), ("description", OBJECT), ("watchUptimeMillis", LONG), ("retainedUptimeMillis", LONG)],
    );
    s.static_field("leakcanary.KeyedWeakReference", "heapDumpUptimeMillis", V::Long(10_000));
    s.class("com.example.Thing", Some(OBJ), &[("next", OBJECT)]);
    let (a, b, c) = (
        s.instance("com.example.Thing", &[]),
        s.instance("com.example.Thing", &[]),
        s.instance("com.example.Thing", &[]),
    );
    let weak_only = s.instance("com.example.Thing", &[]);
    let mut refs = Vec::new();
    for (obj, key, desc, watched, retained) in [
        (a, "key-a", "Thing A was dropped", 4_000, 9_000),
        (b, "key-b", "Thing B", 9_500, -1),
        (c, "key-c", "Thing C", 1_000, 2_000),
        (weak_only, "key-w", "weak", 1, 2),
        (0, "key-n", "collected", 1, 2),
    ] {
        let k = s.string(key);
        let d = s.string(desc);
        refs.push(s.instance(
            "leakcanary.KeyedWeakReference",
            &[
                ("key", V::Ref(k)),
                ("description", V::Ref(d)),
                ("watchUptimeMillis", V::Long(watched)),
                ("retainedUptimeMillis", V::Long(retained)),
                ("referent", V::Ref(obj)),
            ],
        ));
    }
    let all = s.array("java.lang.Object[]", &refs);
    holder(&mut s, "leakcanary.ObjectWatcher", "watchedObjects", all);
    // a, b and c are held by a static chain; weak_only by nothing but its watch reference.
    s.class("com.example.Cache", Some(OBJ), &[("items", OBJECT)]);
    let items = s.array("java.lang.Object[]", &[a, b, c]);
    let cache = s.instance("com.example.Cache", &[("items", V::Ref(items))]);
    holder(&mut s, "com.example.App", "cache", cache);
    let l = leaks(s.bytes());
    // b is watched but not retained yet; weak_only is not strongly reachable.
    assert_eq!(reported(&l), vec![addr(a), addr(c)]);
    let ia = instance(&l, a);
    let w = ia.watch.as_ref().unwrap();
    assert_eq!(
        (w.key.as_str(), w.description.as_str(), w.watch_duration_ms, w.retained_duration_ms),
        ("key-a", "Thing A was dropped", Some(6_000), Some(1_000))
    );
    let last = ia.trace.last().unwrap();
    assert_eq!(last.reasons, ["ObjectWatcher was watching this because Thing A was dropped"]);
    assert_eq!(last.labels, ["key = key-a", "watchDurationMillis = 6000", "retainedDurationMillis = 1000"]);
    // Both through Cache.items[i]: one signature, one leak of two objects.
    assert_eq!(l.leaks.len(), 1);
    assert_eq!(l.leaks[0].count, 2);
    // printf '%s' 'com.example.Appcachecom.example.Cacheitemsjava.lang.Object[][x]' | sha1sum
    assert_eq!(l.leaks[0].signature, "ede9643b1d663abb5da63f699a487e9d9939d7f6");
    assert!(l.notes.iter().any(|n| n.contains("1 not yet retained")), "{:?}", l.notes);
    assert!(
        l.notes.iter().any(|n| n.starts_with("1 of the 3 leaking objects found are not reported")),
        "{:?}",
        l.notes
    );
    assert!(l.android.is_none());
}

// ---------------------------------------------------------------------------------------
// Activities: `mDestroyed` from API 17, `mFinished` before.

/// An app with `MyApp` (held by its static `sInstance`) holding a `Holder` holding an
/// activity; returns (dump, activity, a second activity not destroyed, held too).
fn activity_case(sdk: i32, destroyed: bool) -> (Vec<u8>, u64, u64) {
    let mut s = Scene::new();
    framework(&mut s, sdk, "Google");
    s.class("com.example.MyApp", Some("android.app.Application"), &[("holder", OBJECT)]);
    s.class("com.example.Holder", Some(OBJ), &[("activity", OBJECT), ("other", OBJECT)]);
    s.class("com.example.MainActivity", Some("android.app.Activity"), &[]);
    let flag = if sdk >= 17 { "mDestroyed" } else { "mFinished" };
    let activity = s.instance("com.example.MainActivity", &[(flag, V::Bool(destroyed))]);
    let alive = s.instance("com.example.MainActivity", &[]);
    let h = s.instance("com.example.Holder", &[("activity", V::Ref(activity)), ("other", V::Ref(alive))]);
    let app = s.instance("com.example.MyApp", &[("holder", V::Ref(h))]);
    s.static_field("com.example.MyApp", "sInstance", V::Ref(app));
    (s.bytes(), activity, alive)
}

#[test]
fn a_destroyed_activity_leaks_and_no_propagates_up_from_the_application() {
    for sdk in [15, 16, 17, 34] {
        let (bytes, activity, _) = activity_case(sdk, true);
        let l = leaks(bytes);
        assert_eq!(reported(&l), vec![addr(activity)], "API {sdk}");
        let i = instance(&l, activity);
        assert_eq!(i.found_by, FoundBy::Lifecycle);
        assert!(i.watch.is_none());
        let t = &i.trace;
        assert_eq!(
            t.iter().map(|s| s.class_name.as_str()).collect::<Vec<_>>(),
            ["com.example.MyApp", "com.example.MyApp", "com.example.Holder", "com.example.MainActivity"]
        );
        assert_eq!(
            t.iter().map(|s| s.leaking).collect::<Vec<_>>(),
            [Leaking::No, Leaking::No, Leaking::Unknown, Leaking::Yes]
        );
        // The class is not leaking on its own account and because the next is not.
        assert_eq!(
            t[0].reasons,
            ["MyApp↓ is not leaking", "a class is never leaking: it stays loaded as long as its class loader"]
        );
        assert_eq!(t[1].reasons, ["Application is a singleton"]);
        let field = if sdk >= 17 { "mDestroyed" } else { "mFinished" };
        assert_eq!(t[3].reasons, [format!("Activity#{field} is true")]);
        // Suspects: from the last NO (the application) and the unknown holder.
        assert_eq!(t.iter().map(|s| s.suspect).collect::<Vec<_>>(), [false, true, true, false]);
        // printf '%s' 'com.example.MyAppholdercom.example.Holderactivity' | sha1sum
        assert_eq!(l.leaks[0].signature, "9bb9bbecc053b7ba9c7a5d558d6a73314e0e0eea", "API {sdk}");
        assert_eq!(l.android.as_ref().unwrap().sdk_int, Some(sdk as u32));
        assert_eq!(l.android.as_ref().unwrap().manufacturer.as_deref(), Some("Google"));
    }
    // Not destroyed (or not finished): nothing leaks.
    for sdk in [16, 17] {
        let (bytes, _, _) = activity_case(sdk, false);
        assert!(leaks(bytes).leaks.is_empty(), "API {sdk}");
    }
}

// ---------------------------------------------------------------------------------------
// Fragments: android.app, the support library, androidx (with its lifecycle).

#[test]
fn fragments_no_longer_added_or_destroyed_leak() {
    let mut s = Scene::new();
    framework(&mut s, 28, "Google");
    s.class("android.app.Fragment", Some(OBJ), &[("mFragmentManager", OBJECT), ("mTag", OBJECT)]);
    s.class("android.support.v4.app.Fragment", Some(OBJ), &[("mFragmentManager", OBJECT), ("mTag", OBJECT)]);
    s.class("androidx.lifecycle.Lifecycle$State", Some("java.lang.Enum"), &[]);
    s.class("androidx.lifecycle.LifecycleRegistry", Some(OBJ), &[("mState", OBJECT)]);
    s.class(
        "androidx.fragment.app.Fragment",
        Some(OBJ),
        &[
            ("mFragmentManager", OBJECT),
            ("mLifecycleRegistry", OBJECT),
            ("mCalled", BOOLEAN),
            ("mMaxState", OBJECT),
            ("mTag", OBJECT),
        ],
    );
    s.class("com.example.F", Some("androidx.fragment.app.Fragment"), &[]);
    let manager = s.instance(OBJ, &[]);
    let tag = s.string("details");
    let platform_gone = s.instance("android.app.Fragment", &[("mTag", V::Ref(tag))]);
    let platform_added = s.instance("android.app.Fragment", &[("mFragmentManager", V::Ref(manager))]);
    let support_gone = s.instance("android.support.v4.app.Fragment", &[]);
    let support_added = s.instance("android.support.v4.app.Fragment", &[("mFragmentManager", V::Ref(manager))]);
    let x = |s: &mut Scene, state: &str, manager: u64, called: bool| {
        let st = s.enum_constant("androidx.lifecycle.Lifecycle$State", state);
        let registry = s.instance("androidx.lifecycle.LifecycleRegistry", &[("mState", V::Ref(st))]);
        s.instance(
            "com.example.F",
            &[
                ("mLifecycleRegistry", V::Ref(registry)),
                ("mFragmentManager", V::Ref(manager)),
                ("mCalled", V::Bool(called)),
                ("mMaxState", V::Ref(st)),
            ],
        )
    };
    let destroyed = x(&mut s, "DESTROYED", 0, true);
    let reset = x(&mut s, "INITIALIZED", 0, true);
    let never_attached = x(&mut s, "INITIALIZED", 0, false);
    let resumed = x(&mut s, "RESUMED", manager, true);
    let all = [platform_gone, platform_added, support_gone, support_added, destroyed, reset, never_attached, resumed];
    let array = s.array("java.lang.Object[]", &all);
    holder(&mut s, "com.example.Fragments", "all", array);
    let l = leaks(s.bytes());
    let mut want = vec![addr(platform_gone), addr(support_gone), addr(destroyed), addr(reset)];
    want.sort();
    assert_eq!(reported(&l), want);
    let last = |o| instance(&l, o).trace.last().unwrap().clone();
    assert_eq!(last(platform_gone).reasons, ["Fragment#mFragmentManager is null"]);
    assert_eq!(last(platform_gone).labels, ["Fragment.mTag = details"]);
    assert_eq!(last(support_gone).reasons, ["Fragment#mFragmentManager is null"]);
    assert_eq!(last(destroyed).reasons, ["Fragment#mLifecycleRegistry.state is DESTROYED"]);
    assert_eq!(last(reset).reasons, ["Fragment#mLifecycleRegistry.state was reset to INITIALIZED after onDestroy()"]);
    // All four through Fragments.all[x]: one leak.
    assert_eq!(l.leaks.len(), 1);
    assert_eq!(l.leaks[0].count, 4);
}

// ---------------------------------------------------------------------------------------
// Views, contexts, windows.

/// The view classes (View, ViewGroup, FrameLayout, DecorView, ViewRootImpl), a window
/// and a DecorContext.
fn view_classes(s: &mut Scene) {
    s.class(
        "android.view.View",
        Some(OBJ),
        &[
            ("mParent", OBJECT),
            ("mAttachInfo", OBJECT),
            ("mWindowAttachCount", INT),
            ("mContext", OBJECT),
            ("mTag", OBJECT),
        ],
    );
    s.class("android.view.ViewGroup", Some("android.view.View"), &[("mChildren", OBJECT)]);
    s.class("android.widget.FrameLayout", Some("android.view.ViewGroup"), &[]);
    s.class("com.android.internal.policy.DecorView", Some("android.widget.FrameLayout"), &[]);
    s.class("android.view.ViewRootImpl", Some(OBJ), &[("mView", OBJECT), ("mContext", OBJECT)]);
    s.class("android.view.Window", Some(OBJ), &[("mDestroyed", BOOLEAN), ("mContext", OBJECT)]);
    s.class("com.android.internal.policy.PhoneWindow", Some("android.view.Window"), &[]);
    s.class(
        "com.android.internal.policy.DecorContext",
        Some("android.view.ContextThemeWrapper"),
        &[("mPhoneWindow", OBJECT)],
    );
}

#[test]
fn views_of_ended_windows_and_destroyed_activities_leak_attached_ones_do_not() {
    let mut s = Scene::new();
    framework(&mut s, 30, "Google");
    view_classes(&mut s);
    let app = s.instance("android.app.Application", &[]);
    let attach = s.instance(OBJ, &[]);
    let dead = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
    let live = s.instance("android.app.Activity", &[]);
    // a: a window's root view (parent: a ViewRootImpl), detached after being attached.
    let root_impl = s.instance("android.view.ViewRootImpl", &[]);
    let a = s.instance(
        "android.view.View",
        &[("mParent", V::Ref(root_impl)), ("mWindowAttachCount", V::Int(1)), ("mContext", V::Ref(app))],
    );
    s.set(root_impl, "mView", V::Ref(a));
    // b: a DecorView without parent, detached after being attached.
    let b = s.instance(
        "com.android.internal.policy.DecorView",
        &[("mWindowAttachCount", V::Int(2)), ("mContext", V::Ref(app))],
    );
    // c: a plain detached view of the application: maybe a cached view, not a leak.
    let c = s.instance("android.view.View", &[("mWindowAttachCount", V::Int(1)), ("mContext", V::Ref(app))]);
    // d: a parentless view whose context wraps a destroyed activity (through a theme wrapper).
    let wrapper = s.instance("android.view.ContextThemeWrapper", &[("mBase", V::Ref(dead))]);
    let d = s.instance("android.view.View", &[("mContext", V::Ref(wrapper))]);
    // e: a parentless view whose DecorContext's window belongs to a destroyed activity.
    let window = s.instance("com.android.internal.policy.PhoneWindow", &[("mContext", V::Ref(dead))]);
    let decor_context = s.instance(
        "com.android.internal.policy.DecorContext",
        &[("mBase", V::Ref(app)), ("mPhoneWindow", V::Ref(window))],
    );
    let e = s.instance("android.view.View", &[("mContext", V::Ref(decor_context))]);
    // f: an attached root view of a live activity's window, whose tag holds a watched-like
    // object: its verdict is "not leaking".
    let f_impl = s.instance("android.view.ViewRootImpl", &[("mContext", V::Ref(live))]);
    let f = s.instance(
        "android.view.View",
        &[
            ("mParent", V::Ref(f_impl)),
            ("mAttachInfo", V::Ref(attach)),
            ("mWindowAttachCount", V::Int(1)),
            ("mContext", V::Ref(live)),
        ],
    );
    s.set(f_impl, "mView", V::Ref(f));
    let g = s.instance(
        "android.view.View",
        &[("mParent", V::Ref(f)), ("mWindowAttachCount", V::Int(1)), ("mContext", V::Ref(live))],
    );
    s.set(f, "mTag", V::Ref(g));
    let array = s.array("java.lang.Object[]", &[a, b, c, d, e, f_impl]);
    holder(&mut s, "com.example.Views", "all", array);
    let l = leaks(s.bytes());
    let mut want = vec![addr(a), addr(b), addr(d), addr(e)];
    want.sort();
    assert_eq!(reported(&l), want, "{l:#?}");
    let last = |o| instance(&l, o).trace.last().unwrap().clone();
    assert_eq!(last(a).reasons, ["View detached yet still part of a window's view hierarchy"]);
    assert!(last(a).labels.contains(&"View#mWindowAttachCount = 1".to_string()));
    assert_eq!(last(d).reasons, ["View#mContext references a destroyed activity"]);
    assert_eq!(last(e).reasons, ["View#mContext references a destroyed activity"]);
    // The destroyed activity is reachable only through the leaking views: not reported
    // on its own.
    assert!(l.notes.iter().any(|n| n.starts_with("3 of the 7 leaking objects")), "{:?}", l.notes);
    // g, a detached child of an attached view: a leaking object found by no finder (it is
    // not a root view); its trace is not drawn, but the attached parent is judged in the
    // inspector directly.
    let mut a2 = analysis(s.bytes(), &Options::default());
    let mut h = heapscope::leaks::heap::Heap::new(&mut a2);
    let platform = heapscope::leaks::android::Platform::read(&mut h).unwrap();
    let cx = heapscope::leaks::inspect::Context { platform: &platform, watches: &[], running_threads: &[] };
    let fi = h.object_at(f).unwrap();
    let gi = h.object_at(g).unwrap();
    let fr = heapscope::leaks::inspect::inspect(&mut h, &cx, fi).unwrap();
    assert_eq!(fr.not_leaking, ["View attached"]);
    let gr = heapscope::leaks::inspect::inspect(&mut h, &cx, gi).unwrap();
    assert_eq!(gr.leaking, ["View detached yet still part of a window's view hierarchy"]);
}

#[test]
fn dialogs_services_view_models_windows_view_roots_and_queues() {
    let mut s = Scene::new();
    framework(&mut s, 18, "Google");
    view_classes(&mut s);
    s.class("android.app.Dialog", Some(OBJ), &[("mDecor", OBJECT), ("mCreated", BOOLEAN), ("mShowing", BOOLEAN)]);
    s.class("androidx.lifecycle.ViewModel", Some(OBJ), &[("mCleared", BOOLEAN)]);
    s.class("androidx.lifecycle.viewmodel.internal.ViewModelImpl", Some(OBJ), &[("isCleared", BOOLEAN)]);
    s.class("com.example.NewViewModel", Some(OBJ), &[]);
    s.class("android.os.MessageQueue", Some(OBJ), &[("mQuitting", BOOLEAN)]);
    s.class("com.example.Svc", Some("android.app.Service"), &[]);
    let decor = s.instance(OBJ, &[]);
    let dismissed = s.instance("android.app.Dialog", &[("mCreated", V::Bool(true))]);
    let showing = s.instance(
        "android.app.Dialog",
        &[("mCreated", V::Bool(true)), ("mShowing", V::Bool(true)), ("mDecor", V::Ref(decor))],
    );
    let never_shown = s.instance("android.app.Dialog", &[]);
    let running = s.instance("com.example.Svc", &[]);
    let stopped = s.instance("com.example.Svc", &[]);
    activity_thread(&mut s, &[running]);
    let cleared = s.instance("androidx.lifecycle.ViewModel", &[("mCleared", V::Bool(true))]);
    let in_use = s.instance("androidx.lifecycle.ViewModel", &[]);
    let window = s.instance("com.android.internal.policy.PhoneWindow", &[("mDestroyed", V::Bool(true))]);
    let open_window = s.instance("com.android.internal.policy.PhoneWindow", &[]);
    let removed_root = s.instance("android.view.ViewRootImpl", &[]);
    let quitting = s.instance("android.os.MessageQueue", &[("mQuitting", V::Bool(true))]);
    let looping = s.instance("android.os.MessageQueue", &[]);
    let all = [
        dismissed,
        showing,
        never_shown,
        running,
        stopped,
        cleared,
        in_use,
        window,
        open_window,
        removed_root,
        quitting,
        looping,
    ];
    let array = s.array("java.lang.Object[]", &all);
    holder(&mut s, "com.example.Things", "all", array);
    let l = leaks(s.bytes());
    let mut want: Vec<String> =
        [dismissed, stopped, cleared, window, removed_root, quitting].iter().map(|&o| addr(o)).collect();
    want.sort();
    assert_eq!(reported(&l), want);
    let last = |o| instance(&l, o).trace.last().unwrap().reasons.clone();
    assert_eq!(last(dismissed), ["Dialog was dismissed: Dialog#mDecor is null after it was created"]);
    assert_eq!(last(stopped), ["Service not held by ActivityThread"]);
    assert_eq!(last(cleared), ["ViewModel was cleared (onCleared() ran)"]);
    assert_eq!(last(window), ["Window#mDestroyed is true"]);
    assert_eq!(last(removed_root), ["ViewRootImpl#mView is null: removed from the window manager"]);
    assert_eq!(last(quitting), ["MessageQueue#mQuitting is true"]);
}

#[test]
fn older_and_newer_field_names_services_in_a_hashmap_view_model_impl_and_mquiting() {
    let mut s = Scene::new();
    framework(&mut s, 18, "Google");
    // Before API 19 ActivityThread.mServices is a java.util.HashMap.
    s.class("java.util.HashMap", Some(OBJ), &[("table", OBJECT)]);
    s.class("java.util.HashMap$HashMapEntry", Some(OBJ), &[("key", OBJECT), ("value", OBJECT), ("next", OBJECT)]);
    s.class("com.example.Svc", Some("android.app.Service"), &[]);
    s.class("androidx.lifecycle.ViewModel", Some(OBJ), &[("impl", OBJECT)]);
    s.class("androidx.lifecycle.viewmodel.internal.ViewModelImpl", Some(OBJ), &[("isCleared", BOOLEAN)]);
    s.class("android.os.MessageQueue", Some(OBJ), &[("mQuiting", BOOLEAN)]);
    let (r1, r2, stopped) =
        (s.instance("com.example.Svc", &[]), s.instance("com.example.Svc", &[]), s.instance("com.example.Svc", &[]));
    let e2 = s.instance("java.util.HashMap$HashMapEntry", &[("value", V::Ref(r2))]);
    let e1 = s.instance("java.util.HashMap$HashMapEntry", &[("value", V::Ref(r1)), ("next", V::Ref(e2))]);
    let table = s.array("java.lang.Object[]", &[0, e1, 0]);
    let map = s.instance("java.util.HashMap", &[("table", V::Ref(table))]);
    let thread = s.instance("android.app.ActivityThread", &[("mServices", V::Ref(map))]);
    s.static_field("android.app.ActivityThread", "sCurrentActivityThread", V::Ref(thread));
    let imp = s.instance("androidx.lifecycle.viewmodel.internal.ViewModelImpl", &[("isCleared", V::Bool(true))]);
    let vm = s.instance("androidx.lifecycle.ViewModel", &[("impl", V::Ref(imp))]);
    let q = s.instance("android.os.MessageQueue", &[("mQuiting", V::Bool(true))]);
    let array = s.array("java.lang.Object[]", &[r1, r2, stopped, vm, q]);
    holder(&mut s, "com.example.Things", "all", array);
    let l = leaks(s.bytes());
    let mut want: Vec<String> = [stopped, vm, q].iter().map(|&o| addr(o)).collect();
    want.sort();
    assert_eq!(reported(&l), want);
    assert_eq!(instance(&l, q).trace.last().unwrap().reasons, ["MessageQueue#mQuiting is true"]);
}

// ---------------------------------------------------------------------------------------
// Library leaks, by API level; the search visits them last.

/// An InputMethodManager singleton whose `mServedView` holds a destroyed activity's
/// window root view; with `app_path`, the app holds the same view through three objects.
fn imm_case(sdk: i32, app_path: bool) -> (Vec<u8>, u64) {
    let mut s = Scene::new();
    framework(&mut s, sdk, "Google");
    view_classes(&mut s);
    s.class("android.view.inputmethod.InputMethodManager", Some(OBJ), &[("mServedView", OBJECT)]);
    let dead = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
    let view = s.instance(
        "com.android.internal.policy.DecorView",
        &[("mContext", V::Ref(dead)), ("mWindowAttachCount", V::Int(1))],
    );
    s.set(dead, "mWindow", V::Ref(view));
    let imm = s.instance("android.view.inputmethod.InputMethodManager", &[("mServedView", V::Ref(view))]);
    s.static_field("android.view.inputmethod.InputMethodManager", "sInstance", V::Ref(imm));
    if app_path {
        s.class("com.example.Node", Some(OBJ), &[("next", OBJECT)]);
        let n3 = s.instance("com.example.Node", &[("next", V::Ref(view))]);
        let n2 = s.instance("com.example.Node", &[("next", V::Ref(n3))]);
        let n1 = s.instance("com.example.Node", &[("next", V::Ref(n2))]);
        holder(&mut s, "com.example.Cache", "head", n1);
    }
    (s.bytes(), view)
}

#[test]
fn a_known_framework_leak_is_a_library_leak_on_its_api_levels_only() {
    let (bytes, view) = imm_case(23, false);
    let l = leaks(bytes);
    let leak = leak_of(&l, view);
    assert_eq!(leak.kind, LeakKind::Library);
    let lib = leak.library_leak.as_ref().unwrap();
    assert_eq!(
        (lib.pattern.as_str(), lib.versions.as_str()),
        ("instance field android.view.inputmethod.InputMethodManager#mServedView", "API 15–28")
    );
    let t = &leak.instances[0].trace;
    assert_eq!(t[1].class_name, "android.view.inputmethod.InputMethodManager");
    assert_eq!(t[1].leaking, Leaking::No);
    assert_eq!(t[1].reasons, ["InputMethodManager is a singleton"]);
    assert_eq!(
        t[1].reference.as_ref().unwrap().library_leak.as_deref(),
        Some("instance field android.view.inputmethod.InputMethodManager#mServedView")
    );
    // printf '%s' 'instance field android.view.inputmethod.InputMethodManager#mServedView' | sha1sum
    assert_eq!(leak.signature, "b759503d90902a9087fb2015dd1ba196b41d7de0");

    // API 29: mServedView no longer leaks there: the same trace is the app's.
    let (bytes, view) = imm_case(29, false);
    let l = leaks(bytes);
    assert_eq!(leak_of(&l, view).kind, LeakKind::Application);

    // With an app path three objects longer, the search shows the app's path.
    let (bytes, view) = imm_case(23, true);
    let l = leaks(bytes);
    let leak = leak_of(&l, view);
    assert_eq!(leak.kind, LeakKind::Application);
    let names: Vec<&str> = leak.instances[0].trace.iter().map(|s| s.class_name.as_str()).collect();
    assert_eq!(
        names,
        [
            "com.example.Cache",
            "com.example.Node",
            "com.example.Node",
            "com.example.Node",
            "com.android.internal.policy.DecorView"
        ]
    );
}

#[test]
fn a_known_static_field_leak_and_a_manufacturers_build() {
    let mut s = Scene::new();
    framework(&mut s, 19, "samsung");
    s.class("android.media.AudioManager", Some(OBJ), &[]);
    s.class("android.widget.TextView", Some(OBJ), &[]);
    let dead = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
    let dead2 = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
    s.static_field("android.media.AudioManager", "mContext_static", V::Ref(dead));
    s.static_field("android.widget.TextView", "mLastHoveredView", V::Ref(dead2));
    let l = leaks(s.bytes());
    assert_eq!(leak_of(&l, dead).kind, LeakKind::Library);
    assert_eq!(leak_of(&l, dead).library_leak.as_ref().unwrap().manufacturers, ["samsung"]);
    assert_eq!(leak_of(&l, dead2).kind, LeakKind::Library);

    // Another maker: the same references are the app's problem.
    let mut s = Scene::new();
    framework(&mut s, 19, "Google");
    s.class("android.media.AudioManager", Some(OBJ), &[]);
    let dead = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
    s.static_field("android.media.AudioManager", "mContext_static", V::Ref(dead));
    let l = leaks(s.bytes());
    assert_eq!(leak_of(&l, dead).kind, LeakKind::Application);
}

// ---------------------------------------------------------------------------------------
// Stack locals, ignored threads, weak references.

#[test]
fn stack_locals_are_visited_last_and_the_main_threads_never() {
    let build = |thread: &str, field_path: bool| {
        let mut s = Scene::new();
        framework(&mut s, 30, "Google");
        s.class("com.example.Node", Some(OBJ), &[("next", OBJECT)]);
        let dead = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
        s.thread(thread, &[dead]);
        if field_path {
            let n2 = s.instance("com.example.Node", &[("next", V::Ref(dead))]);
            let n1 = s.instance("com.example.Node", &[("next", V::Ref(n2))]);
            holder(&mut s, "com.example.Cache", "head", n1);
        }
        (s.bytes(), dead)
    };
    // Only a worker's stack holds it: the trace goes through the thread.
    let (bytes, dead) = build("worker", false);
    let l = leaks(bytes);
    let t = &instance(&l, dead).trace;
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].class_name, "java.lang.Thread");
    assert_eq!(t[0].root_type.as_deref(), Some("Thread"));
    assert_eq!(t[0].reasons, ["a running thread (a thread GC root)"]);
    assert_eq!(t[0].labels, ["Thread name: 'worker'"]);
    let r = t[0].reference.as_ref().unwrap();
    assert_eq!((r.kind, r.name.as_str()), (ReferenceKind::Local, "<Java Local>"));
    // printf '%s' 'java.lang.Thread<Java Local>' | sha1sum  (the thread is NO: its local is the suspect)
    assert_eq!(l.leaks[0].signature, "42139447c04d40b15b813cf8ab7d34fe2903ff27");
    // A field path two objects longer wins over the stack local.
    let (bytes, dead) = build("worker", true);
    let l = leaks(bytes);
    assert_eq!(instance(&l, dead).trace[0].class_name, "com.example.Cache");
    // The main thread's stack is never followed.
    let (bytes, _) = build("main", false);
    let l = leaks(bytes);
    assert!(l.leaks.is_empty());
    assert!(l.notes.iter().any(|n| n.starts_with("1 of the 1 leaking objects")), "{:?}", l.notes);
}

#[test]
fn a_stack_frame_root_of_an_unknown_thread_is_visited_last() {
    let mut s = Scene::new();
    framework(&mut s, 30, "Google");
    s.class("com.example.Node", Some(OBJ), &[("next", OBJECT)]);
    let dead = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
    s.root_java_frame(dead);
    let only_frame = s.bytes();
    let n3 = s.instance("com.example.Node", &[("next", V::Ref(dead))]);
    let n2 = s.instance("com.example.Node", &[("next", V::Ref(n3))]);
    let n1 = s.instance("com.example.Node", &[("next", V::Ref(n2))]);
    holder(&mut s, "com.example.Cache", "head", n1);
    let l = leaks(only_frame);
    let t = &instance(&l, dead).trace;
    assert_eq!((t.len(), t[0].root_type.as_deref()), (1, Some("Java Local")));
    let l = leaks(s.bytes());
    assert_eq!(instance(&l, dead).trace.len(), 5);
}

#[test]
fn weak_and_soft_references_are_not_followed() {
    let mut s = Scene::new();
    framework(&mut s, 30, "Google");
    s.class("com.example.Node", Some(OBJ), &[("next", OBJECT)]);
    let dead = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
    let weak = s.instance("java.lang.ref.WeakReference", &[("referent", V::Ref(dead))]);
    let soft = s.instance("java.lang.ref.SoftReference", &[("referent", V::Ref(dead))]);
    let refs = s.array("java.lang.Object[]", &[weak, soft]);
    holder(&mut s, "com.example.Refs", "all", refs);
    let weakly_held = s.bytes();
    // A strong path four references long besides the two-reference weak ones.
    let n2 = s.instance("com.example.Node", &[("next", V::Ref(dead))]);
    let n1 = s.instance("com.example.Node", &[("next", V::Ref(n2))]);
    let array = s.array("java.lang.Object[]", &[n1]);
    holder(&mut s, "com.example.Cache", "all", array);
    assert!(leaks(weakly_held).leaks.is_empty());
    let l = leaks(s.bytes());
    let names: Vec<&str> = instance(&l, dead).trace.iter().map(|s| s.class_name.as_str()).collect();
    assert_eq!(
        names,
        ["com.example.Cache", "java.lang.Object[]", "com.example.Node", "com.example.Node", "android.app.Activity"]
    );
}

// ---------------------------------------------------------------------------------------
// Obfuscated dumps, sizes, the other tree, the outputs.

#[test]
fn an_obfuscated_dump_reads_with_its_mapping() {
    let mut s = Scene::new();
    framework(&mut s, 30, "Google");
    s.class("a.a", Some("android.app.Activity"), &[]);
    s.class("a.b", Some(OBJ), &[]);
    let dead = s.instance("a.a", &[("mDestroyed", V::Bool(true))]);
    s.static_field("a.b", "c", V::Ref(dead));
    let bytes = s.bytes();
    let mapping = heapscope::mapping::Mapping::parse_str(
        "com.example.MainActivity -> a.a:\ncom.example.Holder -> a.b:\n    com.example.MainActivity leaked -> c\n",
    )
    .unwrap();
    let mut a = analysis(bytes.clone(), &Options::default());
    heapscope::mapping::apply(&mut a, &mapping, None);
    let l = heapscope::leaks::find(&mut a).unwrap();
    let t = &instance(&l, dead).trace;
    assert_eq!(t[0].class_name, "com.example.Holder");
    assert_eq!(t[0].reference.as_ref().unwrap().name, "leaked");
    assert_eq!(t[1].class_name, "com.example.MainActivity");
    // printf '%s' 'com.example.Holderleaked' | sha1sum
    assert_eq!(l.leaks[0].signature, "cc61312f9851ab7cb6a319cb3c343811eceb045b");
    // Without the mapping the same leak has the obfuscated names (and another signature).
    let l = leaks(bytes);
    assert_eq!(instance(&l, dead).trace[0].class_name, "a.b");
}

#[test]
fn sizes_come_from_the_tree_in_use() {
    let (bytes, service, _) = service_binder(true);
    let mut a = analysis(bytes.clone(), &Options::default());
    let obj = a.object_at(service).unwrap();
    let mat = heapscope::leaks::find(&mut a).unwrap();
    assert_eq!(mat.tree, "mat");
    let i = instance(&mat, service);
    assert_eq!(i.retained_bytes, a.retained(obj));
    assert_eq!(i.retained_objects, 1);
    assert_eq!(mat.leaks[0].retained_bytes, i.retained_bytes);
    a.set_reading(Reading::Strength).unwrap();
    let strength = heapscope::leaks::find(&mut a).unwrap();
    assert_eq!(strength.tree, "strength");
    assert_eq!(instance(&strength, service).retained_bytes, a.retained(obj));
}

#[test]
fn kotlin_lifecycle_registry_androidx_fragment_1_0_context_impl_and_view_root_of_a_destroyed_activity() {
    let mut s = Scene::new();
    framework(&mut s, 33, "Google");
    view_classes(&mut s);
    s.class("androidx.lifecycle.Lifecycle$State", Some("java.lang.Enum"), &[]);
    // The registry after its conversion to Kotlin: `state`, not `mState`.
    s.class("androidx.lifecycle.LifecycleRegistry", Some(OBJ), &[("state", OBJECT)]);
    // androidx.fragment 1.0: no mMaxState, so INITIALIZED only means "never created".
    s.class(
        "androidx.fragment.app.Fragment",
        Some(OBJ),
        &[("mFragmentManager", OBJECT), ("mLifecycleRegistry", OBJECT), ("mCalled", BOOLEAN)],
    );
    let fragment_of = |s: &mut Scene, state: &str| {
        let st = s.enum_constant("androidx.lifecycle.Lifecycle$State", state);
        let r = s.instance("androidx.lifecycle.LifecycleRegistry", &[("state", V::Ref(st))]);
        s.instance("androidx.fragment.app.Fragment", &[("mLifecycleRegistry", V::Ref(r)), ("mCalled", V::Bool(true))])
    };
    let destroyed = fragment_of(&mut s, "DESTROYED");
    let initialized = fragment_of(&mut s, "INITIALIZED");
    let dead = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
    let impl_of_dead = s.instance("android.app.ContextImpl", &[("mOuterContext", V::Ref(dead))]);
    let view = s.instance("android.view.View", &[]);
    let root_of_dead = s.instance("android.view.ViewRootImpl", &[("mView", V::Ref(view)), ("mContext", V::Ref(dead))]);
    let array = s.array("java.lang.Object[]", &[destroyed, initialized, impl_of_dead, root_of_dead]);
    holder(&mut s, "com.example.Things", "all", array);
    let l = leaks(s.bytes());
    let mut want: Vec<String> = [destroyed, impl_of_dead, root_of_dead].iter().map(|&o| addr(o)).collect();
    want.sort();
    assert_eq!(reported(&l), want);
    let last = |o| instance(&l, o).trace.last().unwrap().reasons.clone();
    assert_eq!(last(destroyed), ["Fragment#mLifecycleRegistry.state is DESTROYED"]);
    assert_eq!(
        last(impl_of_dead),
        ["ContextImpl#mOuterContext is an instance of android.app.Activity with Activity#mDestroyed true"]
    );
    assert_eq!(
        last(root_of_dead),
        ["ViewRootImpl#mContext references a destroyed activity (a dialog or toast not dismissed?)"]
    );
}

#[test]
fn a_long_trace_keeps_its_ends_and_one_mark_in_the_signature() {
    let chain = |n: usize| {
        let mut s = Scene::new();
        framework(&mut s, 30, "Google");
        s.class("com.example.Node", Some(OBJ), &[("next", OBJECT)]);
        let dead = s.instance("android.app.Activity", &[("mDestroyed", V::Bool(true))]);
        let mut next = dead;
        for _ in 0..n {
            next = s.instance("com.example.Node", &[("next", V::Ref(next))]);
        }
        holder(&mut s, "com.example.Cache", "head", next);
        (s.bytes(), dead)
    };
    let (bytes, dead) = chain(500);
    let l = leaks(bytes);
    let t = &instance(&l, dead).trace;
    let max = heapscope::leaks::trace::MAX_TRACE_STEPS;
    assert_eq!(t.len(), max);
    // 502 steps (the class, 500 nodes, the activity): the middle 302 left out.
    assert_eq!(t[max / 2 - 1].elided_after, Some(502 - max as u64));
    assert_eq!(t.iter().filter(|s| s.elided_after.is_some()).count(), 1);
    assert_eq!(t[0].class_name, "com.example.Cache");
    assert_eq!(t[max - 1].class_name, "android.app.Activity");
    // Longer lists, one signature.
    let (bytes, _) = chain(800);
    assert_eq!(leaks(bytes).leaks[0].signature, l.leaks[0].signature);
    let (bytes, _) = chain(50);
    assert_ne!(leaks(bytes).leaks[0].signature, l.leaks[0].signature);
}
