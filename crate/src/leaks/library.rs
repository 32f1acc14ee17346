//! Known leaks in the Android framework, in manufacturers' builds of it and in common
//! libraries: references that hold an app's object past its life for reasons the app
//! cannot fix in its own code (a system singleton keeping the last view it saw, a binder
//! stub the other process still holds). A trace through one is a *library leak*: reported
//! apart from the app's own leaks, and the path search visits these references last, so
//! that the app's own path is shown whenever there is one.
//!
//! The table is data, written from public bug reports and platform sources as facts (which
//! class, which field, which Android versions and builds, why), in our own words. The
//! same references are in LeakCanary's `AndroidReferenceMatchers`, the most complete public
//! list; platform API levels are the `android.os.Build.VERSION.SDK_INT` of the dump.
//!
//! Also here: references a trace never takes, because they hold nothing in the app's
//! sense (the main thread's ever-changing stack, LeakCanary's own bookkeeping).

/// Which reference a known leak goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// The instance field `field` of `class` or of a subclass of it.
    InstanceField(&'static str, &'static str),
    /// The static field `field` of `class`.
    StaticField(&'static str, &'static str),
    /// A JNI global reference (a GC root held by native code) to an instance of `class`
    /// (or of a subclass, when the bool is set).
    NativeGlobal(&'static str, bool),
}

impl Pattern {
    /// The pattern as LeakCanary writes it (its library-leak signature is the SHA-1 of
    /// this text).
    pub fn text(&self) -> String {
        match self {
            Pattern::InstanceField(c, f) => format!("instance field {c}#{f}"),
            Pattern::StaticField(c, f) => format!("static field {c}#{f}"),
            Pattern::NativeGlobal(c, _) => format!("native global variable referencing {c}"),
        }
    }
}

/// One known leak.
#[derive(Debug, Clone, Copy)]
pub struct KnownLeak {
    pub pattern: Pattern,
    /// The platform API levels it happens on, inclusive (None: every level).
    pub sdk: Option<(u32, u32)>,
    /// The device manufacturers (`android.os.Build.MANUFACTURER`) whose builds have it;
    /// empty: every build.
    pub manufacturers: &'static [&'static str],
    /// Why, in one line.
    pub cause: &'static str,
}

const ALL: Option<(u32, u32)> = None;
const fn api(lo: u32, hi: u32) -> Option<(u32, u32)> {
    Some((lo, hi))
}
/// No upper bound known (still present in the latest release checked).
const LATEST: u32 = u32::MAX;

const fn field(class: &'static str, field: &'static str, sdk: Option<(u32, u32)>, cause: &'static str) -> KnownLeak {
    KnownLeak { pattern: Pattern::InstanceField(class, field), sdk, manufacturers: &[], cause }
}
const fn statik(class: &'static str, field: &'static str, sdk: Option<(u32, u32)>, cause: &'static str) -> KnownLeak {
    KnownLeak { pattern: Pattern::StaticField(class, field), sdk, manufacturers: &[], cause }
}
const fn native(class: &'static str, sdk: Option<(u32, u32)>, cause: &'static str) -> KnownLeak {
    KnownLeak { pattern: Pattern::NativeGlobal(class, false), sdk, manufacturers: &[], cause }
}
const fn on(mut leak: KnownLeak, manufacturers: &'static [&'static str]) -> KnownLeak {
    leak.manufacturers = manufacturers;
    leak
}

const SAMSUNG: &[&str] = &["samsung"];
const LG: &[&str] = &["LGE"];

const IMM_LAST_VIEW: &str = "InputMethodManager, a process-wide singleton, keeps the last view that took keyboard input until another view asks for it";
const CLIPBOARD_NATIVE: &str =
    "Samsung's clipboard manager callbacks are held by native code for their IPC and keep their outer objects";

/// The known leaks.
pub const KNOWN_LEAKS: &[KnownLeak] = &[
    // The binder stub of a bound service (or of any IPC callback) is held by a JNI global
    // reference for as long as the process on the other side keeps its proxy: LeakCanary
    // 1.x's tests exclude a leak held only that way (root class android.os.Binder).
    KnownLeak {
        pattern: Pattern::NativeGlobal("android.os.Binder", true),
        sdk: ALL,
        manufacturers: &[],
        cause: "the system holds a binder stub (a bound service's, an IPC callback's) through native code until the process on the other side releases its proxy, so whatever the stub references stays too",
    },
    // Android framework.
    field("android.app.Activity$1", "this$0", api(29, 29), "Android 10's IRequestFinishCallback stub, an anonymous class inside Activity, is kept by another process after the activity is destroyed"),
    field("android.app.ActivityThread", "mNewActivities", api(19, 33), "ActivityThread lists new activities until the main thread next goes idle"),
    field("android.widget.Editor$SpanController", "this$0", api(1, 19), "before KitKat a TextView's saved state copied its text with the editor's spans, which point back at the view"),
    field("android.widget.Editor$EasyEditSpanController", "this$0", api(1, 19), "before KitKat a TextView's saved state copied its text with the editor's spans, which point back at the view"),
    statik("android.media.session.MediaSessionLegacyHelper", "sInstance", api(21, 21), "the singleton keeps the context it was first created with (fixed in 5.1)"),
    statik("android.text.TextLine", "sCached", api(1, 22), "the pool of recycled TextLine objects was not cleared on recycle, so it kept the last text and its spans"),
    field("android.os.Message", "obj", api(1, 30), "an idle HandlerThread keeps the last message it handled as a stack local; template messages of dialogs hold their listeners (fixed in Android 12)"),
    field("android.view.inputmethod.InputMethodManager", "mNextServedView", api(15, 33), IMM_LAST_VIEW),
    field("android.view.inputmethod.InputMethodManager", "mServedView", api(15, 28), IMM_LAST_VIEW),
    field("android.view.inputmethod.InputMethodManager", "mServedInputConnection", api(15, 27), IMM_LAST_VIEW),
    field("android.view.inputmethod.InputMethodManager", "mCurRootView", api(15, 28), "InputMethodManager keeps the root view of the last focused window after its activity is destroyed"),
    field("android.view.inputmethod.InputMethodManager", "mImeInsetsConsumer", api(31, LATEST), "InputMethodManager does not clear its insets consumer when the activity is destroyed"),
    on(field("android.view.inputmethod.InputMethodManager", "mLastSrvView", api(23, 28), "Huawei's InputMethodManager adds a field keeping the last served view"), &["HUAWEI"]),
    field("android.hardware.input.InputManager", "mLateInitContext", api(33, 33), "the InputManager singleton keeps the context it was initialized with, which can be an activity"),
    field("android.animation.LayoutTransition$1", "val$parent", api(14, 22), "LayoutTransition's pre-draw listener keeps the parent ViewGroup until the window is destroyed"),
    field("android.view.textservice.SpellCheckerSession$1", "this$0", api(16, 24), "a spell checker session closed before its service connected keeps its handler, and so the activity"),
    field("android.widget.SpellChecker$1", "this$0", api(22, 22), "a queued spell-check runnable keeps a detached view of a destroyed activity"),
    field("android.support.v7.internal.widget.ActivityChooserModel", "mActivityChoserModelPolicy", api(15, 22), "ActivityChooserModel keeps the last policy it was given, which can be an activity"),
    field("android.widget.ActivityChooserModel", "mActivityChoserModelPolicy", ALL, "ActivityChooserModel keeps the last policy it was given, which can be an activity"),
    field("android.media.projection.MediaProjection$MediaProjectionCallback", "this$0", api(22, 28), "another process holds the projection callback, which holds a MediaProjection whose context is an activity"),
    field("android.speech.SpeechRecognizer$InternalListener", "this$0", api(1, 20), "before Android 5 the recognizer's listener was an inner class keeping the recognizer and its activity context"),
    field("android.accounts.AccountManager$AmsTask$Response", "this$1", api(1, 27), "the response stub is held by native code and keeps its task, which keeps the activity passed to AccountManager"),
    field("android.media.MediaScannerConnection", "mContext", api(1, 22), "MediaScannerConnection.scanFile() keeps the context it is given while the service stays connected"),
    field("android.os.UserManager", "mContext", api(18, 25), "UserManager caches its first instance with the context it was created with, which can be an activity's"),
    field("android.appwidget.AppWidgetHost$Callbacks", "this$0", api(1, 21), "the widget host's callbacks stub is held by native code and keeps the host and its context"),
    field("android.media.AudioManager$1", "this$0", api(1, 22), "before Android 6 AudioManager kept the context it was created with, an activity when a VideoView asked for audio focus"),
    field("android.widget.Editor$Blink", "this$0", api(1, 23), "the cursor blink posts delayed messages that keep an editor of a dismissed dialog"),
    statik("android.net.ConnectivityManager", "sInstance", api(1, 23), "the first ConnectivityManager is cached statically with the context it was created with"),
    field("android.view.accessibility.AccessibilityNodeInfo", "mOriginalText", api(26, 27), "pooled AccessibilityNodeInfo objects keep their original text, whose spans hold the view hierarchy"),
    field("android.app.assist.AssistStructure$ViewNodeText", "mText", api(24, LATEST), "assistant and autofill structures keep text spans that hold views"),
    field("android.widget.AccessibilityIterators$LineTextSegmentIterator", "mLayout", api(27, 27), "the accessibility iterator keeps a text layout whose spans hold views"),
    field("android.hardware.biometrics.BiometricPrompt", "mFingerprintManager", api(28, 28), "BiometricPrompt keeps a FingerprintManager that keeps a destroyed activity"),
    field("android.widget.Magnifier$InternalPopupWindow", "mCallback", api(28, 28), "the magnifier's frame callback is held by the renderer after the activity is destroyed"),
    field("com.android.internal.policy.BackdropFrameRenderer", "mDecorView", api(24, 26), "the backdrop renderer thread can outlive its window and keep the decor view"),
    field("android.view.ViewGroup$ViewLocationHolder", "mRoot", api(28, 28), "Android 9's ViewLocationHolder does not clear its root on clear()"),
    field("android.view.accessibility.AccessibilityNodeIdManager", "mIdsToViews", api(28, 29), "views detached before they were attached stay in the accessibility id map"),
    field("android.speech.tts.TextToSpeech", "mContext", api(24, 24), "TextToSpeech keeps its context after shutdown(), and another process keeps it"),
    field("android.speech.tts.TtsEngines", "mContext", api(24, 24), "TextToSpeech keeps its context after shutdown(), and another process keeps it"),
    native("android.view.inputmethod.InputMethodManager$ControlledInputConnectionWrapper", ALL, "the input connection wrapper is held by native code"),
    native("android.widget.Toast$TN", ALL, "a toast's TN is held by native code for the IPC that shows it"),
    field("android.app.ApplicationPackageManager$HasSystemFeatureQuery", "this$0", api(29, 29), "a developer preview made HasSystemFeatureQuery an inner class of the package manager"),
    field("android.companion.CompanionDeviceService$Stub", "this$0", api(31, 31), "the service's stub keeps the service after it is destroyed"),
    native("android.graphics.animation.RenderNodeAnimator", api(31, 32), "a ripple animation running when its view is detached is not ended, and native code keeps the animator"),
    native("android.media.PlayerBase$1", api(24, 27), "an inner app-ops callback of PlayerBase is held by native code"),
    field("android.net.ConnectivityManager$CallbackHandler", "this$0", api(33, 33), "callback handlers, held statically, keep a ConnectivityManager created with an activity context"),
    field("android.nfc.cardemulation.HostApduService$MsgHandler", "this$0", api(29, 33), "the message handler outlives the HostApduService it belongs to"),
    native("android.app.AppOpsManager$3", api(31, 32), "an app-ops callback stub is held by native code until the caller's side is collected"),
    field("android.view.ViewGroup", "mPreSortedChildren", api(30, 30), "a temporary list of children is not cleared after use"),
    field("android.view.ViewGroup", "mCurrentDragChild", api(29, 30), "a view dragged and then detached stays the current drag child"),
    field("android.app.ActivityTransitionState", "mExitingToView", api(28, 29), "shared element transitions keep the view used in the transition"),
    field("android.animation.AnimationHandler", "mAnimatorRequestors", api(33, 33), "the AnimationHandler singleton keeps a destroyed activity's view root as a requestor"),
    native("android.app.job.JobService$1", api(1, 23), "JobService's binder stub keeps the service"),
    native("android.service.dreams.DreamService$1", api(33, LATEST), "DreamService's binder stub keeps the service"),
    // Manufacturers' builds.
    on(statik("com.samsung.android.smartclip.SpenGestureManager", "mContext", api(19, 19), "a static context field keeps an activity"), SAMSUNG),
    on(field("android.sec.clipboard.ClipboardUIManager", "mContext", api(19, 21), "the clipboard UI singleton keeps an activity context"), SAMSUNG),
    on(native("com.samsung.android.content.clipboard.SemClipboardManager$1", api(19, 28), CLIPBOARD_NATIVE), SAMSUNG),
    on(native("com.samsung.android.content.clipboard.SemClipboardManager$3", api(19, 28), CLIPBOARD_NATIVE), SAMSUNG),
    on(field("android.sec.clipboard.ClipboardExManager", "mContext", api(23, 23), "a native paste callback keeps the clipboard manager, whose context is a destroyed activity"), SAMSUNG),
    on(field("android.sec.clipboard.ClipboardExManager", "mPersonaManager", api(23, 23), "a native paste callback keeps the clipboard manager, whose persona manager keeps a destroyed activity"), SAMSUNG),
    on(field("android.widget.TextView$IClipboardDataPasteEventImpl", "this$0", api(22, 22), "a native paste callback keeps a detached TextView"), SAMSUNG),
    on(field("com.samsung.android.emergencymode.SemEmergencyManager", "mContext", api(19, 24), "the emergency mode singleton keeps a decor context"), SAMSUNG),
    on(field("com.samsung.android.knox.SemPersonaManager", "mContext", api(24, 24), "the persona manager keeps an activity context"), SAMSUNG),
    on(field("android.app.SemAppIconSolution", "mContext", api(28, 29), "the app icon helper keeps an activity context"), SAMSUNG),
    on(statik("com.android.org.chromium.android_webview.AwResource", "sResources", api(19, 19), "the WebView's resources are set from an activity's and never cleared"), SAMSUNG),
    on(statik("android.widget.TextView", "mLastHoveredView", api(19, 31), "a static field keeps the last hovered view"), SAMSUNG),
    on(field("android.os.PersonaManager", "mContext", api(19, 19), "the persona manager, reachable from the app's resources, keeps an activity"), SAMSUNG),
    on(field("android.content.res.Resources", "mContext", api(19, 19), "resources held statically carry a context that is an activity (AOSP's Resources has no context)"), SAMSUNG),
    on(field("android.view.ViewConfiguration", "mContext", api(19, 19), "cached view configurations carry an activity context (AOSP's has none)"), SAMSUNG),
    on(statik("android.media.AudioManager", "mContext_static", api(19, 19), "a static context field of AudioManager keeps an activity"), SAMSUNG),
    on(statik("android.app.ActivityManager", "mContext", api(22, 23), "a static context field of ActivityManager keeps an activity"), SAMSUNG),
    on(statik("android.widget.TextView", "mTargetView", api(27, 27), "a static field keeps detached views"), SAMSUNG),
    on(field("com.android.internal.policy.MultiWindowDecorSupport", "mWindow", api(26, 29), "the decor view's multi-window helper keeps a destroyed window"), SAMSUNG),
    on(field("android.view.inputmethod.InputMethodManager", "mCurrentInputConnection", api(28, 30), "InputMethodManager keeps its input connection after the activity is destroyed"), SAMSUNG),
    on(statik("android.gestureboost.GestureBoostManager", "mContext", api(24, 25), "the gesture boost singleton keeps an activity context"), &["HUAWEI"]),
    on(statik("android.widget.BubblePopupHelper", "sHelper", api(19, 22), "a static helper for text bubbles keeps the last focused view"), LG),
    on(field("com.lge.systemservice.core.LGContext", "mContext", api(21, 21), "a singleton keeps an activity context"), LG),
    on(field("com.lge.systemservice.core.SmartCoverManager", "mContext", api(27, 27), "a native callback keeps the smart cover manager and its activity context"), LG),
    on(field("android.view.inputmethod.InputMethodManager", "mLastFocusView", api(29, 29), "InputMethodManager keeps the last focused view after it is detached"), LG),
    on(field("com.nvidia.ControllerMapper.MapperClient$ServiceClient", "this$0", api(19, 19), "a handler of the controller mapper keeps its client and the activity context"), &["NVIDIA"]),
    on(statik("android.hardware.SystemSensorManager", "mAppContextImpl", api(19, 22), "the sensor manager stores the context it is created with in a static field"), &["LENOVO", "vivo"]),
    on(statik("android.app.Instrumentation", "mRecommendActivity", api(21, 22), "FlymeOS keeps a recommendation activity statically"), &["Meizu"]),
    on(field("android.app.admin.DevicePolicyManager$SettingsObserver", "this$0", api(19, 22), "a content observer held by a binder keeps the device policy manager and its context"), &["motorola"]),
    on(field("android.app.ExtendedStatusBarManager", "mContext", api(30, LATEST), "the status bar manager keeps a decor context of a destroyed activity"), &["SHARP"]),
    on(statik("com.oneplus.util.OemSceneCallBlocker", "sContext", api(28, 28), "a static context field keeps an activity"), &["OnePlus"]),
    on(statik("android.os.PerfMonitor", "mLastCallback", api(30, 30), "a static field keeps the last click callback"), &["OnePlus"]),
    on(field("android.text.method.TextKeyListener", "mContext", api(28, 28), "Razer's TextKeyListener, held statically, adds a context field"), &["Razer"]),
    on(statik("android.content.res.ResourcesImpl", "mAppContext", api(30, LATEST), "a static context field added to ResourcesImpl keeps lower contexts such as a service"), &["HMD Global", "INFINIX", "LENOVO", "Xiaomi"]),
    // Libraries.
    statik("com.facebook.flipper.plugins.inspector.descriptors.ApplicationDescriptor", "editedDelegates", ALL, "Flipper's inspector keeps root views after they are detached"),
];

/// Instance fields a trace never follows (the object they reference is held for
/// bookkeeping, and a longer path says what really holds it).
pub const IGNORED_FIELDS: &[(&str, &str)] = &[
    // LeakCanary's own references to the resumed activity and the application.
    ("leakcanary.internal.InternalLeakCanary", "resumedActivity"),
    ("leakcanary.internal.InternalLeakCanary", "application"),
    // The display event receiver keeps the main message queue for its native peer.
    ("android.view.Choreographer$FrameDisplayEventReceiver", "mMessageQueue"),
];

/// Threads whose stack locals a trace never follows: the main thread's stack changes all
/// the time (a longer path says what really holds the object), the finalizer watchdog
/// holds what is about to be collected, LeakCanary's own thread holds what it dumps.
pub const IGNORED_THREADS: &[&str] = &["main", "FinalizerWatchdogDaemon", "LeakCanary-Heap-Dump"];

impl KnownLeak {
    /// Whether the leak applies to a dump of API level `sdk` from `manufacturer` (an
    /// unknown level or maker: it may).
    pub fn applies(&self, sdk: Option<u32>, manufacturer: Option<&str>) -> bool {
        let level = match (self.sdk, sdk) {
            (Some((lo, hi)), Some(s)) => lo <= s && s <= hi,
            _ => true,
        };
        let maker = match manufacturer {
            Some(m) if !self.manufacturers.is_empty() => self.manufacturers.iter().any(|x| x.eq_ignore_ascii_case(m)),
            _ => true,
        };
        level && maker
    }

    /// The API levels as text: "every version", "API 19–33", "API 31 and later".
    pub fn versions(&self) -> String {
        match self.sdk {
            None => "every version".into(),
            Some((1, hi)) => format!("up to API {hi}"),
            Some((lo, LATEST)) => format!("API {lo} and later"),
            Some((lo, hi)) if lo == hi => format!("API {lo}"),
            Some((lo, hi)) => format!("API {lo}–{hi}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_well_formed() {
        for k in KNOWN_LEAKS {
            if let Some((lo, hi)) = k.sdk {
                assert!(lo <= hi, "{:?}", k.pattern);
            }
            assert!(!k.cause.is_empty() && !k.cause.ends_with('.'), "{:?}", k.pattern);
            let name = match k.pattern {
                Pattern::InstanceField(c, _) | Pattern::StaticField(c, _) | Pattern::NativeGlobal(c, _) => c,
            };
            assert!(name.contains('.') && !name.contains('/'), "{name}");
        }
        // No pattern twice (a second entry would never be reported).
        for (i, a) in KNOWN_LEAKS.iter().enumerate() {
            assert!(KNOWN_LEAKS[i + 1..].iter().all(|b| b.pattern != a.pattern), "{:?} twice", a.pattern);
        }
    }

    #[test]
    fn versions_and_makers_filter() {
        let imm = KNOWN_LEAKS
            .iter()
            .find(|k| k.pattern == Pattern::InstanceField("android.view.inputmethod.InputMethodManager", "mServedView"))
            .unwrap();
        assert!(imm.applies(Some(23), None) && !imm.applies(Some(29), None) && imm.applies(None, None));
        assert_eq!(imm.versions(), "API 15–28");
        let huawei = KNOWN_LEAKS
            .iter()
            .find(|k| {
                k.pattern == Pattern::InstanceField("android.view.inputmethod.InputMethodManager", "mLastSrvView")
            })
            .unwrap();
        assert!(
            huawei.applies(Some(25), Some("HUAWEI"))
                && !huawei.applies(Some(25), Some("samsung"))
                && huawei.applies(Some(25), None)
        );
        assert_eq!(
            Pattern::NativeGlobal("android.os.Binder", true).text(),
            "native global variable referencing android.os.Binder"
        );
        assert_eq!(Pattern::StaticField("a.B", "c").text(), "static field a.B#c");
    }
}
