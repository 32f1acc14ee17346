//! heapscope's side of the comparison: its JSON report, read as any script reads it.
//!
//! Only the fields the comparison looks at are named here; every other field of the
//! report is ignored, so a report with sections newer than this reader is still read. A
//! field missing from the report reads as empty or zero (and then fails to match MAT's
//! page, which says so). The report's JSON Schema (`heapscope schema`) is the contract
//! both sides keep.

use serde::Deserialize;

/// The parts of heapscope's report the comparison reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Report {
    pub source: Source,
    pub dump: DumpInfo,
    pub overview: Overview,
    pub histogram: Vec<HistogramRow>,
    pub top_dominators: Vec<ObjectRef>,
    pub leak_suspects: LeakSuspects,
    pub top_consumers: TopConsumers,
    pub threads: Vec<ThreadInfo>,
    pub growth_points: Vec<GrowthPoint>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Source {
    /// Size of the HPROF data read (after decompression).
    pub hprof_bytes: u64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct DumpInfo {
    /// The header's format string, e.g. "JAVA PROFILE 1.0.2".
    pub format: String,
    pub id_size: u32,
    /// When the dump was written (milliseconds since 1970).
    pub timestamp_ms: u64,
    pub compressed_oops: bool,
    /// The object layout and which sizes the report is in (absent: MAT's, in reports
    /// written before heapscope read the layout).
    pub layout: Option<Layout>,
}

/// The report's object layout (`dump.layout`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Layout {
    /// `jvm` or `mat`: the sizes every number of the report is in.
    pub sizes: String,
    /// The layout in words.
    pub description: String,
    /// With the JVM's sizes: what MAT's model would report instead, in words.
    pub mat_difference: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Overview {
    pub objects: u64,
    pub used_heap_bytes: u64,
    pub classes: u64,
    pub class_loaders: u64,
    pub gc_roots: u64,
    pub top_level_dominators: u64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HistogramRow {
    pub class_name: String,
    pub class_address: String,
    pub instances: u64,
    pub shallow_bytes: u64,
    /// MAT's quick retained size of the instances.
    pub retained_bytes_min: u64,
    /// The quick retained size MAT's report prints (`>= N`): instances and class object.
    pub retained_bytes_with_class: Option<u64>,
}

/// An object as the report lists it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ObjectRef {
    pub address: String,
    pub class_name: String,
    /// For a class object: the class it is.
    pub class_of_object: Option<String>,
    pub shallow_bytes: u64,
    pub retained_bytes: u64,
    /// Retained size in basis points of the used heap.
    pub retained_bp: u32,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LeakSuspects {
    pub suspects: Vec<Suspect>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SuspectKind {
    #[default]
    SingleObject,
    GroupOfObjects,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Suspect {
    pub kind: SuspectKind,
    pub object: ObjectRef,
    pub class_name: String,
    pub loader: String,
    pub instances: u64,
    pub retained_bytes: u64,
    pub retained_bp: u32,
    pub accumulation_point: Option<ObjectRef>,
    /// Single: the dominator chain from the suspect down to the accumulation point.
    pub chain: Vec<ObjectRef>,
    pub chain_omitted: u64,
    pub description: String,
    /// What the accumulation point immediately dominates, grouped by class.
    pub accumulated: Vec<MemberGroup>,
    /// Group: its biggest members.
    pub biggest_members: Vec<Member>,
    /// When the suspect is a class object: the class it stands for, and its loader.
    pub represented_class: Option<String>,
    pub represented_loader: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct MemberGroup {
    pub class_name: String,
    pub objects: u64,
    pub shallow_bytes: u64,
    pub retained_bytes: u64,
    pub biggest: Vec<ObjectRef>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Member {
    pub object: ObjectRef,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TopConsumers {
    pub objects: Vec<ObjectRef>,
    pub classes: Vec<Consumer>,
    pub class_loaders: Vec<Consumer>,
    pub packages: Vec<Consumer>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Consumer {
    pub name: String,
    pub objects: u64,
    pub retained_bytes: u64,
    pub retained_bp: u32,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ThreadInfo {
    pub name: Option<String>,
    pub address: String,
    pub class_name: String,
    pub daemon: Option<bool>,
    pub priority: Option<i32>,
    pub context_class_loader: Option<String>,
    pub shallow_bytes: u64,
    pub retained_bytes: u64,
    pub retained_bp: u32,
    /// The stack, innermost frame first.
    pub frames: Vec<ThreadFrame>,
    /// Objects held in frames the stack trace does not list.
    pub other_locals: Vec<ObjectRef>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ThreadFrame {
    /// The frame as MAT prints it.
    pub frame: String,
    /// The objects this frame holds.
    pub locals: Vec<ObjectRef>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GrowthPoint {
    pub accumulation_point: ObjectRef,
}
