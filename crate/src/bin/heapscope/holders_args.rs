//! What `paths` and `classes-up` share: which tree, and the output format.

use clap::ValueEnum;
use heapscope::model::Reading;

/// Which dominator tree the question is about.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeArg {
    /// Eclipse MAT's (every reference counts, Reference.referent too)
    Mat,
    /// The strength-aware one (a weak, soft, phantom, finalizer, cache, thread-local or
    /// stack reference counts only when nothing firmer holds the object; uncollected
    /// garbage is part of the tree)
    Strength,
}

impl TreeArg {
    pub fn tree(self) -> Reading {
        match self {
            TreeArg::Mat => Reading::Mat,
            TreeArg::Strength => Reading::Strength,
        }
    }
}

/// How the answer is printed.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextOrJson {
    /// For a terminal
    Text,
    /// For scripts (schema: heapscope schema --paths / --classes-up)
    Json,
}

pub fn to_json<T: serde::Serialize>(v: &T) -> String {
    heapscope::model::json::to_text(v)
}
