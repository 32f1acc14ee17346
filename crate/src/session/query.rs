//! Every question the page, the worker and the CLI ask about an analyzed dump is a
//! variant of [`Query`], and its answer the variant of the same name of [`Answer`].
//! [`Session::answer`] is the one entry point: the wasm session's `query` method and the
//! CLI's `inspect` both go through it.
//!
//! Adding a query: a variant in [`Query`] (named fields, documented), the variant of the
//! same name in [`Answer`], the function in the module of its concern, one arm in
//! [`Session::answer`]; then `heapscope schema --queries > schema/query.schema.json` and
//! `node scripts/gen-types.mjs` (tests fail until both are current), and the page asks it
//! with `queries.ask({query: '…', …})`, typed from the generated types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Session;
use crate::analysis::object_ref;
use crate::error::Result;
use crate::leaks::route::LeakTracePath;
use crate::model::format::parse_address;
use crate::model::{ObjectRef, Reading};
use crate::query::grouped::{self, DominatorGroups};
use crate::query::grouping::{self, HistogramGroup, HistogramGrouping, Instances};
use crate::query::holders::{self, ClassesUp, Paths, Stretch};
use crate::query::merge_paths::{self, MergedPaths};
use crate::query::paths::{self, PathStep};
use crate::query::referrers::{self, Referrers};
use crate::query::tree::{self, Children, ClassGroup};
use crate::query::{class, find, object, MAX_DEPTH, MAX_PAGE};
use crate::readback::object::{object_details, ObjectDetails};
use crate::values::entries::{self, Entries};
use crate::values::ObjectValue;
use crate::waste::members::{self, ArrayGroupMembers, GroupMembers};

/// A question about the analyzed dump. Objects are named by address (`"0x1f00"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "query", rename_all = "snake_case")]
pub enum Query {
    /// A page of the children of `parent` in the dominator tree (none: the top-level
    /// dominators), largest retained first; linked structures read as one unless
    /// `folded` is false (a chain's nodes side by side under what holds it, see
    /// `TreeNode.chain`).
    Children {
        #[serde(default)]
        parent: Option<String>,
        #[serde(default)]
        offset: u32,
        limit: u32,
        #[serde(default = "yes", skip_serializing_if = "is_yes")]
        folded: bool,
    },
    /// The children of `parent` grouped by class, largest group first (linked structures
    /// read as one unless `folded` is false).
    ChildrenByClass {
        #[serde(default)]
        parent: Option<String>,
        limit: u32,
        #[serde(default = "yes", skip_serializing_if = "is_yes")]
        folded: bool,
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
        tree: Option<Reading>,
    },
    /// The leak trace of `object` (a shortest path from a GC root, each step marked when
    /// it dominates the object) and at most `max` independent paths through each of its
    /// unmarked stretches (`max` 0: the stretches only).
    Paths {
        object: String,
        /// The dominator tree asked about (absent: the one in use; another is an error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tree: Option<Reading>,
        #[serde(default)]
        max: u32,
    },
    /// The path LeakCanary's leak trace takes to `object` (strong references only, known
    /// library-leak references, stack locals and the roots held only that way last), beside
    /// the shortest one of `paths`, and why the leak trace does not take that one.
    LeakTracePath {
        object: String,
        /// The dominator tree asked about (absent: the one in use; another is an error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tree: Option<Reading>,
    },
    /// The independent paths from `from` (none: the GC roots) to `to`, at most `max`:
    /// "held how else?" for one stretch of a leak trace.
    HeldHowElse {
        #[serde(default)]
        from: Option<String>,
        to: String,
        /// The dominator tree asked about (absent: the one in use; another is an error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tree: Option<Reading>,
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
        tree: Option<Reading>,
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

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
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
    LeakTracePath(LeakTracePath),
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

/// Every query and answer type, for the JSON Schema the page's types are generated from.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QueryTypes {
    pub query: Query,
    pub answer: Answer,
}

/// The JSON Schema of the queries and answers, as committed at `schema/query.schema.json`.
pub fn json_schema() -> String {
    crate::model::json::schema_text::<QueryTypes>()
}

impl Session {
    /// Answers `q` about the dump analyzed. Reading records back needs the dump's byte
    /// source, hence `&mut`. An address that names no kept object is an error saying so
    /// (of kind [`ErrorKind::Query`](crate::error::ErrorKind::Query)).
    pub fn answer(&mut self, q: &Query) -> Result<Answer> {
        let page = |n: u32| n.min(MAX_PAGE) as usize;
        Ok(match q {
            Query::Children { parent, offset, limit, folded } => {
                let a = &self.analysis;
                let parent = parent.as_deref().map(|p| object(a, p)).transpose()?;
                Answer::Children(tree::children_in(a, parent, *offset as usize, page(*limit), *folded)?)
            }
            Query::ChildrenByClass { parent, limit, folded } => {
                let a = &self.analysis;
                let parent = parent.as_deref().map(|p| object(a, p)).transpose()?;
                Answer::ChildrenByClass(match folded {
                    true => tree::members_by_class(a, parent, page(*limit))?,
                    false => tree::children_by_class(a, parent, page(*limit)),
                })
            }
            Query::DominatorGroups { path, limit } => {
                let a = &self.analysis;
                let mut classes = Vec::with_capacity(path.len());
                for c in path {
                    classes.push(class(a, c)?);
                }
                Answer::DominatorGroups(grouped::dominator_groups(a, &classes, path.clone(), page(*limit))?)
            }
            Query::Referrers { object: o, limit, tree } => {
                let obj = object(&self.analysis, o)?;
                self.holders_index(*tree)?;
                let index = self.holders.get(self.analysis.reading).expect("built above");
                Answer::Referrers(referrers::referrers(&self.analysis, index, obj, page(*limit)))
            }
            Query::Paths { object: o, tree, max } => {
                let obj = object(&self.analysis, o)?;
                self.holders_index(*tree)?;
                let index = self.holders.get(self.analysis.reading).expect("built above");
                Answer::Paths(holders::paths(&mut self.analysis, index, obj, page(*max))?)
            }
            Query::LeakTracePath { object: o, tree } => {
                let obj = object(&self.analysis, o)?;
                self.holders_index(*tree)?;
                let index = self.holders.get(self.analysis.reading).expect("built above");
                let shortest = holders::shortest_trace(&self.analysis, index, obj)?;
                let (path, why) = crate::leaks::route::leak_trace_path(&mut self.analysis, obj, &shortest)?;
                let same = path.as_deref() == Some(shortest.as_slice());
                let steps = path.as_ref().map_or(0, |p| p.len() as u64);
                let path = path.map(|p| holders::paths_along(&mut self.analysis, index, p, 0)).transpose()?;
                Answer::LeakTracePath(LeakTracePath {
                    path,
                    steps,
                    shortest_steps: shortest.len() as u64,
                    same,
                    why_not_shortest: if same { Vec::new() } else { why },
                })
            }
            Query::HeldHowElse { from, to, tree, max } => {
                let from = from.as_deref().map(|f| object(&self.analysis, f)).transpose()?;
                let to = object(&self.analysis, to)?;
                self.holders_index(*tree)?;
                let index = self.holders.get(self.analysis.reading).expect("built above");
                Answer::HeldHowElse(holders::held_how_else(&mut self.analysis, index, from, to, page(*max))?)
            }
            Query::ClassesUp { path, tree, depth, limit } => {
                let a = &self.analysis;
                let mut classes = Vec::with_capacity(path.len());
                for c in path {
                    classes.push(class(a, c)?);
                }
                let tree = crate::holders::resolve(a, *tree)?;
                let depth = (*depth).min(MAX_DEPTH) as usize;
                Answer::ClassesUp(holders::classes_up(a, tree, &classes, depth, page(*limit))?)
            }
            Query::HistogramGroups { by } => Answer::HistogramGroups(grouping::histogram_groups(&self.analysis, *by)?),
            Query::Instances { class: c, offset, limit } => {
                let a = &self.analysis;
                let c = class(a, c)?;
                Answer::Instances(grouping::instances(a, c, *offset as usize, page(*limit))?)
            }
            Query::Object { object: o } => {
                let obj = object(&self.analysis, o)?;
                Answer::Object(object_details(&mut self.analysis, obj)?)
            }
            Query::PathToRoot { object: o } => {
                let obj = object(&self.analysis, o)?;
                Answer::PathToRoot(paths::path_to_root(&mut self.analysis, obj)?)
            }
            Query::DuplicateStringMembers { object: o, offset, limit, holders } => {
                let obj = object(&self.analysis, o)?;
                self.holders_index(None)?;
                let index = self.holders.get(self.analysis.reading).expect("built above");
                let holders = (*holders).min(members::MAX_HOLDERS) as usize;
                Answer::DuplicateStringMembers(members::group_members(
                    &mut self.analysis,
                    index,
                    obj,
                    *offset as usize,
                    page(*limit),
                    holders,
                )?)
            }
            Query::DuplicateArrayMembers { object: o, offset, limit, holders } => {
                let obj = object(&self.analysis, o)?;
                self.holders_index(None)?;
                let index = self.holders.get(self.analysis.reading).expect("built above");
                let holders = (*holders).min(members::MAX_HOLDERS) as usize;
                Answer::DuplicateArrayMembers(members::array_group_members(
                    &mut self.analysis,
                    index,
                    obj,
                    *offset as usize,
                    page(*limit),
                    holders,
                )?)
            }
            Query::Find { object: o } => {
                let a = &self.analysis;
                Answer::Find(parse_address(o).and_then(|addr| find(a, addr)).map(|v| object_ref(a, v)))
            }
            Query::Values { objects } => {
                let ids: Vec<u64> = objects.iter().map(|o| parse_address(o).unwrap_or(0)).collect();
                Answer::Values(crate::values::values(&mut self.analysis, &ids)?)
            }
            Query::Entries { object: o, offset, limit } => {
                let obj = object(&self.analysis, o)?;
                Answer::Entries(entries::entries(&mut self.analysis, obj, *offset as usize, page(*limit))?)
            }
            Query::MergePaths { class: c, objects, limit } => {
                let a = &self.analysis;
                let mut set = match c {
                    Some(c) => merge_paths::instances_of(a, class(a, c)?),
                    None => Vec::new(),
                };
                for o in objects {
                    set.push(object(a, o)?);
                }
                Answer::MergePaths(merge_paths::merge_paths(&mut self.analysis, &set, page(*limit))?)
            }
        })
    }

    /// Builds the referrer index of `tree` (checked to be the tree in use) if needed.
    fn holders_index(&mut self, tree: Option<Reading>) -> Result<()> {
        self.referrer_index(tree).map(|_| ())
    }
}
