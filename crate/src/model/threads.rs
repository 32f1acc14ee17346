//! The thread overview, as data (see [`crate::threads`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::report::ObjectRef;

/// One thread of the overview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreadInfo {
    /// The `name` field's text (a String, or a char[] in old JDKs); None when absent.
    pub name: Option<String>,
    pub address: String,
    pub class_name: String,
    /// The `daemon` field (JDK 19+: `holder.daemon`), where the dump has it.
    pub daemon: Option<bool>,
    /// The `priority` field (JDK 19+: `holder.priority`), where the dump has it.
    pub priority: Option<i32>,
    /// The `contextClassLoader` field: `ClassName @ 0x…`, None when null or absent.
    pub context_class_loader: Option<String>,
    pub shallow_bytes: u64,
    /// MAT's retained size (the dominator tree's).
    pub retained_bytes: u64,
    pub retained_bp: u32,
    /// The retained size in the strength-aware dominator tree, when the report's tree is
    /// MAT's and the strength-aware one was computed too (absent otherwise; with
    /// `--tree strength` `retained_bytes` is that tree's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strength_retained_bytes: Option<u64>,
    /// Whether the dump recorded a stack trace for the thread (it may have no frames).
    pub has_stack: bool,
    /// The stack, innermost frame first.
    pub frames: Vec<ThreadFrame>,
    /// Objects the thread's stack holds in frames the stack trace does not list (all of
    /// them when no stack was recorded).
    pub other_locals: Vec<ObjectRef>,
}

/// One frame of a thread's stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreadFrame {
    /// The frame as MAT prints it: `at pkg.Class.method(Lsig;)V (File.java:12)`,
    /// `(File.java(Native Method))` for a native method, `(File.java)` without a line.
    pub frame: String,
    /// The objects this frame holds (Java-frame and JNI-local roots), in dump order.
    pub locals: Vec<ObjectRef>,
}
