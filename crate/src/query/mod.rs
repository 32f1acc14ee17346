//! Questions asked after the report, lazily: every question the page, the worker and the
//! CLI ask about an analyzed dump is a variant of [`Query`], and its answer the variant of
//! the same name of [`Answer`]. [`answer`] is the one entry point: the wasm session's
//! `query` method and the CLI's `inspect` both go through it.
//!
//! Adding a query: a variant in [`Query`] (named fields, documented), the variant of the
//! same name in [`Answer`], the function in the module of its concern, one arm in
//! [`answer`]; then `heapscope schema --queries > schema/query.schema.json` and
//! `node scripts/gen-types.mjs` (tests fail until both are current), and the page asks it
//! with `queries.ask({query: '…', …})`, typed from the generated types.
//!
//! The modules, one concern each: [`tree`] (the dominator tree a page at a time),
//! [`grouped`] (the dominator tree grouped by class at every level),
//! [`object`] (an object's fields read back from the dump), [`paths`] (a path from a GC
//! root), [`referrers`] (incoming references), [`grouping`] (histogram groups and a
//! class's instances), [`duplicates`] (a duplicate-string or duplicate-array group's members and their holders), [`holders`] (the leak trace with its dominators marked, the other
//! ways of holding an object, the classes-up rows). Every answer is bounded: a page of children, the first elements of
//! an array, the first characters of a string.

pub mod duplicates;
pub mod grouped;
pub mod grouping;
pub mod holders;
pub(crate) mod levels;
pub mod merge_paths;
pub mod object;
pub mod paths;
pub mod referrers;
pub mod tree;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::error::{Error, Result};
use crate::holders::Tree;
use crate::report::build::object_ref;
use crate::report::model::ObjectRef;

pub use crate::values::entries::{Entries, EntriesKind, Entry, Slot};
pub use crate::values::ObjectValue;
pub use duplicates::{ArrayGroupMembers, GroupMember, GroupMembers, Holder};
pub use grouped::{DominatorGroup, DominatorGroups};
pub use grouping::{HistogramGroup, HistogramGrouping, Instances};
pub use holders::{ClassRow, ClassesUp, Paths, Stretch, TraceStep, WayStep};
pub use merge_paths::{MergedNode, MergedPaths};
pub use object::{FieldValue, ObjectDetails};
pub use paths::PathStep;
pub use referrers::Referrers;
pub use tree::{Children, ClassGroup, TreeNode};

/// The most one answer may list (a page of children, instances, referrers).
pub const MAX_PAGE: u32 = 10_000;

/// A question about the analyzed dump. Objects are named by address (`"0x1f00"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "query", rename_all = "snake_case")]
pub enum Query {
    /// A page of the children of `parent` in the dominator tree (none: the top-level
    /// dominators), largest retained first.
    Children {
        #[serde(default)]
        parent: Option<String>,
        #[serde(default)]
        offset: u32,
        limit: u32,
    },
    /// The children of `parent` grouped by class, largest group first.
    ChildrenByClass {
        #[serde(default)]
        parent: Option<String>,
        limit: u32,
    },
    /// The dominator tree grouped by class (MAT's "group by class"): the groups below
    /// `path` (class object addresses of the groups opened, from the top level down;
    /// empty: the top level), the `limit` largest.
    DominatorGroups {
        #[serde(default)]
        path: Vec<String>,
        limit: u32,
    },
    /// The objects referencing `object`: how many, and the `limit` retaining the most
    /// (from the referrer index, built on the first question that needs it).
    Referrers {
        object: String,
        limit: u32,
        /// The dominator tree asked about (absent: the one in use; another is an error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tree: Option<Tree>,
    },
    /// The leak trace of `object` (a shortest path from a GC root, each step marked when
    /// it dominates the object) and at most `max` independent paths through each of its
    /// unmarked stretches (`max` 0: the stretches only).
    Paths {
        object: String,
        /// The dominator tree asked about (absent: the one in use; another is an error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tree: Option<Tree>,
        #[serde(default)]
        max: u32,
    },
    /// The independent paths from `from` (none: the GC roots) to `to`, at most `max`:
    /// "held how else?" for one stretch of a leak trace.
    HeldHowElse {
        #[serde(default)]
        from: Option<String>,
        to: String,
        /// The dominator tree asked about (absent: the one in use; another is an error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tree: Option<Tree>,
        max: u32,
    },
    /// Classes up (the reverse dominator tree): the class rows (`path` empty) or the rows
    /// directly above the row named by `path` (class object addresses, the bottom class
    /// first, then each row stepped up to), the `limit` heaviest, each with `depth` more
    /// levels above it.
    ClassesUp {
        #[serde(default)]
        path: Vec<String>,
        /// The dominator tree asked about (absent: the one in use; another is an error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tree: Option<Tree>,
        #[serde(default)]
        depth: u32,
        limit: u32,
    },
    /// The histogram's classes grouped by package or class loader.
    HistogramGroups { by: HistogramGrouping },
    /// A page of the instances of the class whose class object is at `class` (a
    /// histogram row's `class_address`), largest retained first.
    Instances {
        class: String,
        #[serde(default)]
        offset: u32,
        limit: u32,
    },
    /// The object's fields read back from the dump, its dominator and GC root kinds.
    Object { object: String },
    /// A shortest reference path from a GC root to `object`, root first, avoiding
    /// `Reference.referent` and the finalizer links when another path exists.
    PathToRoot { object: String },
    /// The kept object at `object`, if there is one.
    Find { object: String },
    /// The strings of the duplicate-string group of `object` (a `java.lang.String`: the
    /// report's groups name theirs in `sample`), by address from `offset`, at most
    /// `limit`, each with its `holders` (at most 20) retaining the most.
    DuplicateStringMembers {
        object: String,
        #[serde(default)]
        offset: u32,
        limit: u32,
        #[serde(default)]
        holders: u32,
    },
    /// The arrays of the duplicate-array group of `object` (a primitive array no String
    /// reads: the report's groups name theirs in `sample`), by address from `offset`, at
    /// most `limit`, each with its `holders` (at most 20) retaining the most.
    DuplicateArrayMembers {
        object: String,
        #[serde(default)]
        offset: u32,
        limit: u32,
        #[serde(default)]
        holders: u32,
    },
    /// The text each object shows beside a reference to it, as MAT's name resolvers give
    /// it (a String's value, a boxed number, a class's, thread's or enum's name, a
    /// collection's size, a map node's key): the first 500 objects, in order.
    Values { objects: Vec<String> },
    /// A page of the entries of a collection (key → value, index → element), each with
    /// its retained size; a non-collection answers with no `kind`.
    Entries {
        object: String,
        #[serde(default)]
        offset: u32,
        limit: u32,
    },
    /// The shortest paths from the GC roots to the instances of `class` (its class
    /// object's address) or to `objects`, merged by prefix, at most `limit` nodes.
    MergePaths {
        #[serde(default)]
        class: Option<String>,
        #[serde(default)]
        objects: Vec<String>,
        limit: u32,
    },
}

/// The answer to a [`Query`], under the same name. (One answer exists at a time, on its
/// way to JSON: the size difference between variants costs nothing.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "query", content = "answer", rename_all = "snake_case")]
pub enum Answer {
    Children(Children),
    ChildrenByClass(Vec<ClassGroup>),
    DominatorGroups(DominatorGroups),
    Referrers(Referrers),
    Paths(Paths),
    HeldHowElse(Stretch),
    ClassesUp(ClassesUp),
    HistogramGroups(Vec<HistogramGroup>),
    Instances(Instances),
    Object(ObjectDetails),
    PathToRoot(Vec<PathStep>),
    Find(Option<ObjectRef>),
    DuplicateStringMembers(GroupMembers),
    DuplicateArrayMembers(ArrayGroupMembers),
    Values(Vec<ObjectValue>),
    Entries(Entries),
    MergePaths(MergedPaths),
}

/// Answers `q` about the dump analyzed in `a`. Reading records back needs the dump's
/// byte source, hence `&mut`. An address that names no kept object is an error saying so.
pub fn answer(a: &mut Analysis, q: &Query) -> Result<Answer> {
    let page = |n: u32| n.min(MAX_PAGE) as usize;
    Ok(match q {
        Query::Children { parent, offset, limit } => {
            let parent = parent.as_deref().map(|p| object(a, p)).transpose()?;
            Answer::Children(tree::children(a, parent, *offset as usize, page(*limit))?)
        }
        Query::ChildrenByClass { parent, limit } => {
            let parent = parent.as_deref().map(|p| object(a, p)).transpose()?;
            Answer::ChildrenByClass(tree::children_by_class(a, parent, page(*limit)))
        }
        Query::DominatorGroups { path, limit } => {
            let mut classes = Vec::with_capacity(path.len());
            for c in path {
                classes.push(class(a, c)?);
            }
            Answer::DominatorGroups(grouped::dominator_groups(a, &classes, path.clone(), page(*limit))?)
        }
        Query::Referrers { object: o, limit, tree } => {
            let tree = crate::holders::resolve(a, *tree)?;
            Answer::Referrers(referrers::referrers(a, tree, object(a, o)?, page(*limit))?)
        }
        Query::Paths { object: o, tree, max } => {
            let tree = crate::holders::resolve(a, *tree)?;
            let obj = object(a, o)?;
            Answer::Paths(holders::paths(a, tree, obj, page(*max))?)
        }
        Query::HeldHowElse { from, to, tree, max } => {
            let from = from.as_deref().map(|f| object(a, f)).transpose()?;
            let to = object(a, to)?;
            let tree = crate::holders::resolve(a, *tree)?;
            Answer::HeldHowElse(holders::held_how_else(a, tree, from, to, page(*max))?)
        }
        Query::ClassesUp { path, tree, depth, limit } => {
            let mut classes = Vec::with_capacity(path.len());
            for c in path {
                classes.push(class(a, c)?);
            }
            let tree = crate::holders::resolve(a, *tree)?;
            Answer::ClassesUp(holders::classes_up(a, tree, &classes, (*depth).min(MAX_DEPTH) as usize, page(*limit))?)
        }
        Query::HistogramGroups { by } => Answer::HistogramGroups(grouping::histogram_groups(a, *by)?),
        Query::Instances { class, offset, limit } => {
            let class = self::class(a, class)?;
            Answer::Instances(grouping::instances(a, class, *offset as usize, page(*limit))?)
        }
        Query::Object { object: o } => {
            let obj = object(a, o)?;
            Answer::Object(object::object_details(a, obj)?)
        }
        Query::PathToRoot { object: o } => {
            let obj = object(a, o)?;
            Answer::PathToRoot(paths::path_to_root(a, obj)?)
        }
        Query::DuplicateStringMembers { object: o, offset, limit, holders } => {
            let obj = object(a, o)?;
            Answer::DuplicateStringMembers(duplicates::group_members(
                a,
                obj,
                *offset as usize,
                page(*limit),
                (*holders).min(duplicates::MAX_HOLDERS) as usize,
            )?)
        }
        Query::DuplicateArrayMembers { object: o, offset, limit, holders } => {
            let obj = object(a, o)?;
            Answer::DuplicateArrayMembers(duplicates::array_group_members(
                a,
                obj,
                *offset as usize,
                page(*limit),
                (*holders).min(duplicates::MAX_HOLDERS) as usize,
            )?)
        }
        Query::Find { object: o } => {
            Answer::Find(parse_address(o).and_then(|addr| find(a, addr)).map(|v| object_ref(a, v)))
        }
        Query::Values { objects } => Answer::Values(crate::values::values(
            a,
            &objects.iter().map(|o| parse_address(o).unwrap_or(0)).collect::<Vec<_>>(),
        )?),
        Query::Entries { object: o, offset, limit } => {
            let obj = object(a, o)?;
            Answer::Entries(crate::values::entries::entries(a, obj, *offset as usize, page(*limit))?)
        }
        Query::MergePaths { class: c, objects, limit } => {
            let mut set = match c {
                Some(c) => merge_paths::instances_of(a, class(a, c)?),
                None => Vec::new(),
            };
            for o in objects {
                set.push(object(a, o)?);
            }
            Answer::MergePaths(merge_paths::merge_paths(a, &set, page(*limit))?)
        }
    })
}

/// Parses "0x1f00", "1f00" (hexadecimal, as addresses are written everywhere).
pub fn parse_address(s: &str) -> Option<u64> {
    let s = s.trim();
    u64::from_str_radix(s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s), 16).ok()
}

/// The kept object at `address`.
pub fn find(a: &Analysis, address: u64) -> Option<u32> {
    a.object_at(address).filter(|&o| a.is_kept(o))
}

/// The kept object named by `address`, or an error saying why there is none.
pub fn object(a: &Analysis, address: &str) -> Result<u32> {
    let addr = parse_address(address)
        .ok_or_else(|| query_error(format!("{:?} is not an address (hex, e.g. 0x7f3a1000)", address)))?;
    find(a, addr).ok_or_else(|| {
        query_error(format!("no object at 0x{addr:x} in this dump (or it is unreachable and was discarded)"))
    })
}

/// The class whose class object is at `address`.
pub fn class(a: &Analysis, address: &str) -> Result<u32> {
    let class_object = object(a, address)?;
    a.class_represented_by(class_object).ok_or_else(|| query_error(format!("{} is not a class object", address.trim())))
}

/// The most levels one classes-up question opens at once.
pub const MAX_DEPTH: u32 = 64;

fn query_error(message: String) -> Error {
    Error::io(message)
}

/// Every query and answer type, for the JSON Schema the page's types are generated from.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QueryTypes {
    pub query: Query,
    pub answer: Answer,
}

/// The JSON Schema of the queries and answers, as committed at `schema/query.schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(QueryTypes);
    let mut s = serde_json::to_string_pretty(&schema).expect("schema serializes");
    s.push('\n');
    s
}
