//! Which reading of the heap a dominator tree (and every retained size from it) is.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A dominator tree, i.e. a reading of the heap: Eclipse MAT's (the default), or the
/// strength-aware one (see [`crate::strength`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// Eclipse MAT's: every reference holds what it points at (`Reference.referent`
    /// too); unreachable objects are discarded unless kept.
    #[default]
    Mat,
    /// The strength-aware tree: a reference weaker than strong holds an object only
    /// when nothing firmer does; uncollected garbage is part of the tree.
    Strength,
}

impl Reading {
    /// The name in reports, JSON and on the command line: `mat` or `strength`.
    pub fn name(self) -> &'static str {
        match self {
            Reading::Mat => "mat",
            Reading::Strength => "strength",
        }
    }

    /// The reading named `s` (`mat`, `strength`).
    pub fn parse(s: &str) -> Option<Reading> {
        match s {
            "mat" => Some(Reading::Mat),
            "strength" => Some(Reading::Strength),
            _ => None,
        }
    }
}
