//! The leaks section as data: what `heapscope leaks --format json` prints and what the
//! report's `leaks` field holds, described by the JSON Schema committed at
//! `schema/leaks.schema.json` (`heapscope schema --leaks`).
//!
//! Deterministic (no maps, no floats) and bounded: at most [`MAX_LEAKS`] leaks, each with
//! at most [`MAX_INSTANCES`] instances drawn (`count` says how many there are). Addresses
//! are `0x…` strings; names come from the dump and are untrusted text.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Leaks listed at most (the biggest first).
pub const MAX_LEAKS: usize = 100;
/// Instances of one leak drawn at most.
pub const MAX_INSTANCES: usize = 20;

/// What the leak finder found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Leaks {
    /// The application's leaks first, then the library leaks; within each, the biggest
    /// retained size first.
    pub leaks: Vec<Leak>,
    /// What was looked for, and why nothing (or not everything) was found.
    pub notes: Vec<String>,
    /// The dominator tree the retained sizes come from: `mat` or `strength`.
    pub tree: String,
    /// The Android platform of the dump, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub android: Option<AndroidBuild>,
}

/// The `android.os.Build` values of the dump.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AndroidBuild {
    /// `Build.VERSION.SDK_INT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_int: Option<u32>,
    /// `Build.MANUFACTURER`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manufacturer: Option<String>,
}

/// Whose bug a leak is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LeakKind {
    /// The app's own code holds the object.
    Application,
    /// The trace goes through a known leak of the Android framework or a library.
    Library,
}

/// Leaking objects with one cause: the same suspect references (or the same library
/// leak), so the same signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Leak {
    /// LeakCanary's signature: the SHA-1 (hex) of the suspect references' class and field
    /// names (array indices as `[x]`), or of the library leak's pattern.
    pub signature: String,
    pub kind: LeakKind,
    /// One line: what leaks, and through which reference.
    pub description: String,
    /// Leaking objects with this signature.
    pub count: u64,
    /// What they retain together, in the tree of `tree`.
    pub retained_bytes: u64,
    pub retained_objects: u64,
    /// The known leak a library leak goes through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_leak: Option<LibraryLeak>,
    /// The leaking objects: watched ones first, then the biggest (at most [`MAX_INSTANCES`]).
    pub instances: Vec<LeakInstance>,
}

/// A known leak of the framework or a library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LibraryLeak {
    /// `instance field C#f`, `static field C#f` or `native global variable referencing C`.
    pub pattern: String,
    /// Which Android versions have it ("every version", "API 15–28", …).
    pub versions: String,
    /// Whose builds have it (empty: every build).
    pub manufacturers: Vec<String>,
    /// Why, in one line.
    pub cause: String,
}

/// How a leaking object was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FoundBy {
    /// LeakCanary's watch reference (`KeyedWeakReference`) still points at it.
    Watched,
    /// An Android object whose lifecycle has ended (a destroyed activity, …).
    Lifecycle,
}

/// One leaking object and its trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeakInstance {
    pub object: String,
    pub class_name: String,
    pub found_by: FoundBy,
    /// The watch reference, for watched objects (null otherwise).
    pub watch: Option<Watch>,
    /// What it retains, in the tree of `tree`.
    pub retained_bytes: u64,
    pub retained_objects: u64,
    /// The shortest strong path from a GC root, root first, the leaking object last.
    pub trace: Vec<LeakStep>,
}

/// LeakCanary's watch reference of an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Watch {
    /// `KeyedWeakReference.key`.
    pub key: String,
    /// Why it was watched (`description`, `name` in LeakCanary 1.x).
    pub description: String,
    /// How long it had been watched when the heap was dumped (LeakCanary 2's
    /// `heapDumpUptimeMillis` minus `watchUptimeMillis`), when the dump says.
    pub watch_duration_ms: Option<i64>,
    /// How long it had been retained (since `retainedUptimeMillis`), when the dump says.
    pub retained_duration_ms: Option<i64>,
}

/// Whether an object of a trace is leaking, as Shark's inspectors decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Leaking {
    #[serde(rename = "YES")]
    Yes,
    #[serde(rename = "NO")]
    No,
    #[serde(rename = "UNKNOWN")]
    Unknown,
}

impl Leaking {
    pub fn text(self) -> &'static str {
        match self {
            Leaking::Yes => "YES",
            Leaking::No => "NO",
            Leaking::Unknown => "UNKNOWN",
        }
    }
}

/// What an object of a trace is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    Instance,
    /// A class object (its static fields hold what follows).
    Class,
    ObjectArray,
    PrimitiveArray,
}

/// One object of a leak trace, and the reference from it to the next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeakStep {
    pub object: String,
    /// The object's class (for a class object, the class it stands for).
    pub class_name: String,
    pub object_kind: ObjectKind,
    /// The GC root kind, on the first step ("JNI Global", "System Class", …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_type: Option<String>,
    /// The reference to the next step (absent on the last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<TraceReference>,
    pub leaking: Leaking,
    /// Why it is (or is not) leaking; empty when unknown.
    pub reasons: Vec<String>,
    /// What the inspectors noted about it, without a verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// Whether the reference to the next step is a suspect: between the last object not
    /// leaking and the first leaking one (LeakCanary underlines these with `~~~`).
    pub suspect: bool,
    /// Steps of a long trace left out after this one (the reference above leads to the
    /// first of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elided_after: Option<u64>,
}

/// How a reference of a trace is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceKind {
    InstanceField,
    StaticField,
    ArrayElement,
    /// A stack local of a thread.
    Local,
}

/// A reference from one step of a trace to the next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceReference {
    pub kind: ReferenceKind,
    /// The field's name, the array index, or `<Java Local>`.
    pub name: String,
    /// The class that declares the field (the array's class, the thread's class).
    pub declared_by: String,
    /// A known library leak goes through this reference: its pattern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_leak: Option<String>,
}
