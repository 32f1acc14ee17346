//! GC root kinds as sets, their names (heapscope's and Eclipse MAT's) and how firmly
//! each holds its object.

use super::strength::{Strength, STRONG};
use crate::records::heap::RootKind;

/// A set of root kinds, one bit per [`RootKind`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RootKinds(pub u32);

impl RootKinds {
    pub fn bit(kind: RootKind) -> u32 {
        1 << (kind as u32)
    }
    pub fn with(self, kind: RootKind) -> RootKinds {
        RootKinds(self.0 | Self::bit(kind))
    }
    pub fn contains(self, kind: RootKind) -> bool {
        self.0 & Self::bit(kind) != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn iter(self) -> impl Iterator<Item = RootKind> {
        ALL_KINDS.into_iter().filter(move |&k| self.contains(k))
    }
}

pub const ALL_KINDS: [RootKind; 17] = [
    RootKind::Unknown,
    RootKind::JniGlobal,
    RootKind::JniLocal,
    RootKind::JavaFrame,
    RootKind::NativeStack,
    RootKind::StickyClass,
    RootKind::ThreadBlock,
    RootKind::MonitorUsed,
    RootKind::ThreadObject,
    RootKind::InternedString,
    RootKind::Finalizing,
    RootKind::Debugger,
    RootKind::ReferenceCleanup,
    RootKind::VmInternal,
    RootKind::JniMonitor,
    RootKind::ArtUnreachable,
    RootKind::Unreachable,
];

/// The root type name MAT shows (for ART dumps, as MAT sees them after hprof-conv,
/// which turns every ART-only kind into ROOT UNKNOWN).
pub fn mat_name(kind: RootKind) -> &'static str {
    match kind {
        RootKind::JniGlobal => "JNI Global",
        RootKind::JniLocal => "JNI Local",
        RootKind::JavaFrame => "Java Local",
        RootKind::NativeStack => "Native Stack",
        RootKind::StickyClass => "System Class",
        RootKind::ThreadBlock => "Thread Block",
        RootKind::MonitorUsed => "Busy Monitor",
        RootKind::ThreadObject => "Thread",
        RootKind::Unreachable => "Unreachable",
        _ => "Unknown",
    }
}

/// heapscope's own name for a root kind: MAT's, except that ART's kinds keep theirs.
pub fn name(kind: RootKind) -> &'static str {
    match kind {
        RootKind::InternedString => "Interned String",
        RootKind::Finalizing => "Finalizing",
        RootKind::Debugger => "Debugger",
        RootKind::ReferenceCleanup => "Reference Cleanup",
        RootKind::VmInternal => "VM Internal",
        RootKind::JniMonitor => "JNI Monitor",
        RootKind::ArtUnreachable => "ART Unreachable",
        k => mat_name(k),
    }
}

/// The strength of a GC root: the thread-local kinds (a stack frame, a JNI local, a native
/// stack, a blocked thread — roots of threads the dump does not name) hold only until
/// the thread lets go, so they are `Local`; every other kind is `Strong`. An object
/// named by several kinds gets the firmest.
pub fn root_strength(kinds: RootKinds) -> u8 {
    let local = RootKinds::bit(RootKind::JavaFrame)
        | RootKinds::bit(RootKind::JniLocal)
        | RootKinds::bit(RootKind::NativeStack)
        | RootKinds::bit(RootKind::ThreadBlock);
    if kinds.0 & !local != 0 || kinds.is_empty() {
        STRONG
    } else {
        Strength::Local as u8
    }
}
