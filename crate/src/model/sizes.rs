//! Which shallow sizes a report uses, and the object layout they come from.
//!
//! Two readings of an object's size:
//!
//! - **the JVM's** (the default): what the virtual machine that wrote the dump really
//!   uses for each object, as its own class histogram counts it: the object header the
//!   JVM used (8 bytes with compact object headers, 12 with compressed class pointers,
//!   16 without), the fields it injects that HPROF does not list, fields packed into
//!   gaps, a class object counted as the mirror with its static fields. Read from the
//!   dump's addresses where they decide, by the layout's rules where they cannot;
//! - **Eclipse MAT's** (`mat`): MAT 1.16.1's model, kept exactly so that every number
//!   can still be checked against MAT: a header of the identifier size plus the
//!   reference size, the fields the dump lists, a class object as its statics alone.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::report::ClassCount;

/// Which shallow sizes: the JVM's (default) or Eclipse MAT's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Sizes {
    /// What the JVM that wrote the dump uses for each object.
    #[default]
    Jvm,
    /// Eclipse MAT's model (12-byte headers with compressed oops, the fields the dump
    /// lists, class objects as their statics).
    Mat,
}

impl Sizes {
    /// The name in reports, JSON and on the command line: `jvm` or `mat`.
    pub fn name(self) -> &'static str {
        match self {
            Sizes::Jvm => "jvm",
            Sizes::Mat => "mat",
        }
    }

    /// The sizes named `s` (`jvm`, `mat`).
    pub fn parse(s: &str) -> Option<Sizes> {
        match s {
            "jvm" => Some(Sizes::Jvm),
            "mat" => Some(Sizes::Mat),
            _ => None,
        }
    }
}

/// How the JVM laid the dump's objects out, and which sizes the report uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectLayout {
    /// The sizes every number of the report is in.
    pub sizes: Sizes,
    /// The layout in words, e.g. "compact object headers (8 bytes), 4-byte references,
    /// 8-byte alignment; sizes from the dump's addresses".
    pub description: String,
    /// `hotspot` or `art` (Android).
    pub vm: String,
    /// Bytes of an object's header: 8 (compact object headers, or a 32-bit JVM, or
    /// Android), 12 (compressed class pointers), 16 (none).
    pub header_bytes: u32,
    /// Bytes of a reference inside an object: 4 (compressed oops) or 8.
    pub reference_bytes: u32,
    /// Objects start and end on multiples of this.
    pub alignment_bytes: u32,
    /// Where an array's elements start, per element type present in the dump.
    pub array_bases: Vec<ArrayBase>,
    /// True when the header, references and array bases were read from the distances
    /// between the dump's objects; false when assumed by the layout's rules (the dump's
    /// identifiers are not addresses, or it is an Android dump).
    pub from_addresses: bool,
    /// With the JVM's sizes: classes with objects whose size the addresses could not
    /// decide (sized by the layout's rules). Their count.
    #[serde(default)]
    pub classes_sized_by_rule: u64,
    /// The largest of them by shallow bytes (at most 20), with their kept objects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sized_by_rule: Vec<ClassCount>,
    /// With the JVM's sizes: the used heap in Eclipse MAT's model, for the same kept
    /// objects (exact when no array was discarded as unreachable; otherwise the discarded
    /// arrays' difference is estimated from their class's average).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mat_used_heap_bytes: Option<u64>,
    /// Where the two differ, in words: "Eclipse MAT would report 18.4 MiB (+10.8%): it
    /// assumes a 12-byte object header and omits fields the JVM injects".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mat_difference: Option<String>,
}

/// Where the elements of one kind of array start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArrayBase {
    /// `boolean`, `char`, …, `long`, or `object` for arrays of references.
    pub element: String,
    /// Offset of element 0 from the array's start: header, length, padding.
    pub bytes: u32,
}
