//! How much a report lists: `--detail minimal|default|max`, one preset scaling seven
//! caps. `default` keeps the report readable (a suspect's dominator subtree is its 40
//! biggest objects; the page's dominator tree opens the rest); the caps bound every list
//! that would otherwise grow with the dump.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A preset of the seven caps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DetailLevel {
    Minimal,
    #[default]
    Default,
    Max,
}

/// The seven caps (see [`DetailLevel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail {
    /// Objects of each single suspect's root path (the suspect up to its GC root; steps
    /// beyond are left out in the middle).
    pub root_path: usize,
    /// Class histogram rows in Markdown and HTML (the JSON has every class).
    pub histogram: usize,
    /// Rows of the other ranked tables in Markdown and HTML (Biggest Objects, unreachable
    /// classes), and in every format the heap composition's packages and loaders and a top
    /// component's classes.
    pub rows: usize,
    /// Objects of each single suspect's dominator subtree.
    pub subtree_nodes: usize,
    /// Levels of that subtree below its root.
    pub subtree_depth: usize,
    /// System properties in Markdown and HTML (the JSON has them all).
    pub properties: usize,
    /// Children listed per object: a subtree node's children, a suspect's accumulated
    /// object groups and a group suspect's biggest members.
    pub children: usize,
}

impl Detail {
    pub const MINIMAL: Detail = Detail {
        root_path: 10,
        histogram: 15,
        rows: 5,
        subtree_nodes: 20,
        subtree_depth: 5,
        properties: 15,
        children: 10,
    };
    pub const DEFAULT: Detail = Detail {
        root_path: 30,
        histogram: 50,
        rows: 20,
        subtree_nodes: 40,
        subtree_depth: 10,
        properties: 50,
        children: 20,
    };
    pub const MAX: Detail = Detail {
        root_path: 200,
        histogram: 500,
        rows: 100,
        subtree_nodes: 100_000,
        subtree_depth: 50,
        properties: 500,
        children: 100,
    };

    pub fn of(level: DetailLevel) -> Detail {
        match level {
            DetailLevel::Minimal => Detail::MINIMAL,
            DetailLevel::Default => Detail::DEFAULT,
            DetailLevel::Max => Detail::MAX,
        }
    }
}

impl Default for Detail {
    fn default() -> Detail {
        Detail::DEFAULT
    }
}
