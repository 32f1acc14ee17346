//! Who holds an object, named: the leak trace with its dominators marked, the other ways
//! of each unmarked stretch, and the classes-up rows ([`crate::holders`] finds them; this
//! reads the names of the steps back from the dump).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::paths::via;
use crate::analysis::{object_ref, Analysis};
use crate::error::{Error, Result};
use crate::holders::classes_up::{Columns, Row, WHOLE_HEAP};
use crate::holders::referrer_index::ReferrerIndex;
use crate::holders::{self, ways};
use crate::model::{ObjectRef, PathRun, Reading};
use crate::readback::object::root_kinds;

/// Independent paths listed per stretch unless asked otherwise.
pub const DEFAULT_MAX_PATHS: u32 = 10;
/// A longer trace keeps its first [`TRACE_HEAD`] and last [`TRACE_TAIL`] steps (a
/// million-deep linked list is not read as a million lines, nor named by a million
/// record reads).
pub const MAX_TRACE_STEPS: usize = 1000;
pub const TRACE_HEAD: usize = 100;
pub const TRACE_TAIL: usize = 900;
/// Stretches searched at most, nearest the object first; the others come with no paths
/// and `has_more`.
pub const MAX_STRETCHES: usize = 100;
/// Steps of the other ways named at most per answer (each name is a record read back
/// from the dump); past it `via` is empty.
pub const MAX_NAMED_STEPS: usize = 5000;

/// One step of a leak trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TraceStep {
    pub object: ObjectRef,
    /// How this object references the next step: field names, `[index]`, `<class>`…
    pub via: Vec<String>,
    /// GC root kinds, on the first step.
    pub gc_root: Vec<String>,
    /// Every path from the GC roots to the object goes through this step (the object
    /// itself is not marked). The lowest marked step is the object's dominator; none
    /// marked: the whole heap dump holds it, nothing in particular. A run's objects are
    /// all marked or all not.
    pub dominates: bool,
    /// When the step stands for a run of the trace: objects of one class in a row, each
    /// holding the next through one field (a linked structure read as one), from
    /// `object` to `run.last` (whose `via` is this step's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<PathRun>,
}

/// One step of another way through a stretch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WayStep {
    pub object: ObjectRef,
    /// How this object references the next step (empty past the first 5,000 steps named
    /// in one answer).
    pub via: Vec<String>,
    /// GC root kinds, when the path starts at a GC root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gc_root: Vec<String>,
}

/// The independent ways through one stretch of unmarked steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Stretch {
    /// The marked step above the stretch; None: the GC roots.
    pub from: Option<ObjectRef>,
    /// The marked step below it, or the object.
    pub to: ObjectRef,
    /// Internally vertex-disjoint paths from `from` (or a GC root) to `to`, each listed
    /// top first, both ends included.
    pub paths: Vec<Vec<WayStep>>,
    /// The search stopped at the limit asked for: there may or may not be more.
    pub has_more: bool,
}

/// The leak trace of an object and the other ways of each of its unmarked stretches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Paths {
    pub object: ObjectRef,
    /// A shortest path from a GC root, root first, the object last.
    pub trace: Vec<TraceStep>,
    /// Steps left out of a trace longer than 1,000 steps (a run counting as one), between
    /// its first 100 and its last 900 (0: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub elided_steps: u64,
    pub stretches: Vec<Stretch>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The leak trace of `obj` in the tree in use (`index` is its referrer index) and, for
/// each stretch, at most `max` independent paths (`max` 0: the stretches only, each with
/// `has_more`).
pub fn paths(a: &mut Analysis, index: &ReferrerIndex, obj: u32, max: usize) -> Result<Paths> {
    paths_along(a, index, shortest_trace(a, index, obj)?, max)
}

/// A shortest path from a GC root to `obj` in the tree in use (root first), avoiding the
/// references the tree's view avoids when another path exists.
pub fn shortest_trace(a: &Analysis, index: &ReferrerIndex, obj: u32) -> Result<Vec<u32>> {
    let tree = a.reading;
    let view = holders::view(a, tree);
    ways::trace(index, &view.avoid, obj)?
        .ok_or_else(|| Error::query(format!("no GC root reaches 0x{:x} in the {} tree", a.address(obj), tree.name())))
}

/// [`paths`] along a given `trace` (a path from a GC root to its last object, root first:
/// the shortest one, or the leak trace's): its steps named, those dominating the object
/// marked in the tree in use, and at most `max` independent paths through each stretch.
pub fn paths_along(a: &mut Analysis, index: &ReferrerIndex, trace: Vec<u32>, max: usize) -> Result<Paths> {
    let obj = *trace.last().ok_or_else(|| Error::query("an empty path".to_string()))?;
    let tree = a.reading;
    let (marks, found) = {
        let view = holders::view(a, tree);
        let marks = ways::marks(view.idom, &trace);
        let mut found = Vec::new();
        let all = ways::stretches(&marks);
        let searched = all.len().saturating_sub(MAX_STRETCHES);
        for (k, s) in all.into_iter().enumerate() {
            let w = if k >= searched {
                ways::independent_paths(index, s.from.map(|i| trace[i]), trace[s.to], max)?
            } else {
                ways::Ways { paths: Vec::new(), has_more: true }
            };
            found.push((s, w));
        }
        (marks, found)
    };
    // A linked structure on the way is one step (as many marks as one: runs split where
    // the marks change): (first, last, field) of each step.
    let runs = super::paths::runs(a, &trace, Some(&marks))?;
    let folded = super::paths::folded_steps(&runs, trace.len());
    let shown: Vec<usize> = if folded.len() > MAX_TRACE_STEPS {
        (0..TRACE_HEAD).chain(folded.len() - TRACE_TAIL..folded.len()).collect()
    } else {
        (0..folded.len()).collect()
    };
    let mut steps = Vec::with_capacity(shown.len());
    for &k in &shown {
        let (first, last, field) = &folded[k];
        let via = match trace.get(last + 1) {
            Some(&next) => via(a, trace[*last], next)?,
            None => Vec::new(),
        };
        steps.push(TraceStep {
            object: object_ref(a, trace[*first]),
            via,
            gc_root: if *first == 0 { root_kinds(a, trace[0]) } else { Vec::new() },
            dominates: marks[*first],
            run: field.as_ref().map(|f| PathRun {
                nodes: (last - first + 1) as u64,
                field: f.clone(),
                last: object_ref(a, trace[*last]),
            }),
        });
    }
    let mut budget = MAX_NAMED_STEPS;
    let mut stretches = Vec::with_capacity(found.len());
    for (s, w) in found {
        let mut named = Vec::with_capacity(w.paths.len());
        for p in &w.paths {
            named.push(way_steps(a, p, s.from.is_none(), &mut budget)?);
        }
        stretches.push(Stretch {
            from: s.from.map(|i| object_ref(a, trace[i])),
            to: object_ref(a, trace[s.to]),
            paths: named,
            has_more: w.has_more,
        });
    }
    let elided_steps = (folded.len() - steps.len()) as u64;
    Ok(Paths { object: object_ref(a, obj), trace: steps, elided_steps, stretches })
}

/// The independent paths from `from` (None: the GC roots) to `to` in `tree`, at most
/// `max` (one stretch, asked for when a person opens it).
pub fn held_how_else(
    a: &mut Analysis,
    index: &ReferrerIndex,
    from: Option<u32>,
    to: u32,
    max: usize,
) -> Result<Stretch> {
    let w = ways::independent_paths(index, from, to, max)?;
    let mut budget = MAX_NAMED_STEPS;
    let mut named = Vec::with_capacity(w.paths.len());
    for p in &w.paths {
        named.push(way_steps(a, p, from.is_none(), &mut budget)?);
    }
    Ok(Stretch { from: from.map(|f| object_ref(a, f)), to: object_ref(a, to), paths: named, has_more: w.has_more })
}

fn way_steps(a: &mut Analysis, path: &[u32], from_roots: bool, budget: &mut usize) -> Result<Vec<WayStep>> {
    let mut out = Vec::with_capacity(path.len());
    for (i, &x) in path.iter().enumerate() {
        let via = match path.get(i + 1) {
            Some(&next) if *budget > 0 => {
                *budget -= 1;
                via(a, x, next)?
            }
            _ => Vec::new(),
        };
        let gc_root = if i == 0 && from_roots { root_kinds(a, x) } else { Vec::new() };
        out.push(WayStep { object: object_ref(a, x), via, gc_root });
    }
    Ok(out)
}

/// A row of the classes-up view (the reverse dominator tree).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClassRow {
    /// The class, or "the whole heap dump" for the row of the tree's root.
    pub class_name: String,
    /// The class object's address (links to the instances, names the row in a
    /// `classes_up` path); None for the whole heap dump's row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_address: Option<String>,
    /// Distinct objects on the row.
    pub objects: u64,
    /// Shallow bytes of the objects at the bottom of the row's columns.
    pub weight_bytes: u64,
    /// The rows above (the classes of the objects dominating this row's), heaviest first,
    /// when asked for.
    pub above: Vec<ClassRow>,
}

/// Rows of the classes-up view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClassesUp {
    pub rows: Vec<ClassRow>,
}

/// The name of the row of the dominator tree's root.
pub const WHOLE_HEAP_NAME: &str = "the whole heap dump";

fn columns(a: &Analysis, tree: Reading) -> Columns<'_, impl Fn(u32) -> u32 + '_, impl Fn(u32) -> u64 + '_> {
    Columns { idom: holders::view(a, tree).idom, class_of: move |v| a.class_of(v), shallow: move |v| a.shallow(v) }
}

/// The class rows (`path` empty) or the rows directly above the row named by `path`
/// (class indices from the bottom up), `limit` heaviest, each with `depth` levels above.
pub fn classes_up(a: &Analysis, tree: Reading, path: &[u32], depth: usize, limit: usize) -> Result<ClassesUp> {
    let tree = holders::resolve(a, Some(tree))?;
    let cols = columns(a, tree);
    let mut rows = if path.is_empty() {
        let mut rows = cols.class_rows(a.class_count())?;
        rows.truncate(limit);
        if depth > 0 {
            let (offsets, order) = cols.instances_by_class(a.class_count())?;
            for r in &mut rows {
                let c = r.class as usize;
                let entries = cols.class_entries(&order[offsets[c] as usize..offsets[c + 1] as usize])?;
                r.above = cols.rows_above(entries, depth)?;
            }
        }
        rows
    } else {
        cols.rows_above(cols.entries(path)?, depth + 1)?
    };
    rows.truncate(limit);
    Ok(ClassesUp { rows: rows.iter().map(|r| class_row(a, r)).collect() })
}

/// The class rows of the classes named `class_name` (several loaders: several rows),
/// each with `depth` levels above.
pub fn classes_up_from(a: &Analysis, tree: Reading, class_name: &str, depth: usize) -> Result<ClassesUp> {
    let tree = holders::resolve(a, Some(tree))?;
    let cols = columns(a, tree);
    let mut rows: Vec<Row> =
        cols.class_rows(a.class_count())?.into_iter().filter(|r| a.class_name(r.class) == class_name).collect();
    for r in &mut rows {
        r.above = cols.rows_above(cols.entries(&[r.class])?, depth)?;
    }
    Ok(ClassesUp { rows: rows.iter().map(|r| class_row(a, r)).collect() })
}

/// Converts a row tree without recursion (rows nest as deep as asked).
fn class_row(a: &Analysis, top: &Row) -> ClassRow {
    let leaf = |r: &Row| {
        let (class_name, class_address) = if r.class == WHOLE_HEAP {
            (WHOLE_HEAP_NAME.to_string(), None)
        } else {
            (a.class_name(r.class).to_string(), a.class_object(r.class).map(|o| format!("0x{:x}", a.address(o))))
        };
        ClassRow { class_name, class_address, objects: r.objects, weight_bytes: r.weight, above: Vec::new() }
    };
    // Post-order with an explicit stack: (row, converted children so far).
    let mut stack: Vec<(&Row, Vec<ClassRow>)> = vec![(top, Vec::new())];
    loop {
        let (row, done) = stack.last().map(|(r, d)| (*r, d.len())).expect("non-empty");
        if done < row.above.len() {
            stack.push((&row.above[done], Vec::new()));
            continue;
        }
        let (row, children) = stack.pop().expect("non-empty");
        let mut converted = leaf(row);
        converted.above = children;
        match stack.last_mut() {
            Some((_, siblings)) => siblings.push(converted),
            None => return converted,
        }
    }
}

/// The JSON Schema of `heapscope paths --format json`, committed at `schema/paths.schema.json`.
pub fn paths_json_schema() -> String {
    crate::model::json::schema_text::<Paths>()
}

/// The JSON Schema of `heapscope classes-up --format json`, committed at
/// `schema/classes-up.schema.json`.
pub fn classes_up_json_schema() -> String {
    crate::model::json::schema_text::<ClassesUp>()
}
