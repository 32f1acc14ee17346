//! What leaked: LeakCanary's reading of a heap dump (its heap library Shark, as
//! `shark-cli analyze` runs it), on any dump heapscope reads.
//!
//! 1. **Find the leaking objects** ([`finders`]): the referents of LeakCanary's watch
//!    references, and Android objects whose lifecycle has ended (read with
//!    [`android`]'s knowledge of the framework's fields across versions).
//! 2. **Trace each** ([`path`], with [`rules`]): the shortest path from a GC root over
//!    strong references only, visiting known library-leak references, stack locals and
//!    the roots held only that way last, so that the app's own path shows whenever one
//!    exists.
//! 3. **Judge every step** ([`inspect`], [`trace`]): leaking YES / NO / UNKNOWN with
//!    reasons, "no" propagated towards the root and "yes" towards the leaking object;
//!    the references between the last "no" and the first "yes" are the suspects.
//! 4. **Group** by signature (the SHA-1 of the suspect references, [`sha1`]), library
//!    leaks ([`library`]: the known leaks of the framework, of manufacturers' builds and
//!    of libraries) apart; each leak's retained size and object count from the dominator
//!    tree in use; the application's leaks first, the biggest first.
//! 5. **Any object's leak trace** ([`route`]), for the inspector: the path the same search
//!    takes to it, and why a shortest path is not that one.
//!
//! Output: [`crate::model::leaks::Leaks`] (JSON, schema `schema/leaks.schema.json`), drawn as text the
//! way LeakCanary prints a trace, or as the report's "Leaks" section (`crate::render::leaks`).
//!
//! Everything the finder learns about the dump comes through [`heap::Heap`], its one
//! door into the core. Cost: nothing beyond a few class-name lookups when the dump has
//! neither LeakCanary's classes nor Android's lifecycle classes; otherwise one scan of the
//! class column, the candidates' records read back in batches, and one breadth-first
//! search that stops when every leaking object is reached (see [`path`] for its memory).

pub mod android;
pub mod finders;
pub mod heap;
pub mod inspect;
pub mod library;
pub mod path;
pub mod route;
pub mod rules;
pub mod sha1;
pub mod trace;

use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::error::Result;
use crate::model::leaks as model;
use heap::Heap;
use model::{AndroidBuild, Leak, LeakInstance, Leaks, LibraryLeak, MAX_INSTANCES, MAX_LEAKS};

/// Leaking objects traced at most (the rest are counted in the notes).
pub const MAX_TRACED: usize = 2000;

/// Finds the leaks of an analyzed dump; retained sizes come from the tree in use.
pub fn find(a: &mut Analysis) -> Result<Leaks> {
    let mut h = Heap::new(a);
    let platform = android::Platform::read(&mut h)?;
    let found = finders::find(&mut h, &platform)?;
    let mut notes = looked_for(&found.seen, &platform);
    let android = platform
        .is_android
        .then(|| AndroidBuild { sdk_int: platform.sdk, manufacturer: platform.manufacturer.clone() });
    let tree = h.reading_name().to_string();
    if found.candidates.is_empty() {
        if !found.seen.watch_classes.is_empty() || !found.seen.lifecycle_classes.is_empty() {
            notes.push("No object is watched and still set, and none has ended its lifecycle: nothing leaks by LeakCanary's reading.".into());
        }
        return Ok(Leaks { leaks: Vec::new(), notes, tree, android });
    }

    let priorities = rules::build(&mut h, &platform)?;
    let targets: Vec<u32> = found.candidates.iter().map(|c| c.obj).collect();
    let paths = path::shortest_paths(&h, &priorities, &targets)?;

    let watches: Vec<(u32, model::Watch)> =
        found.candidates.iter().filter_map(|c| Some((c.obj, c.watch.clone()?))).collect();
    let mut running: Vec<u32> = h
        .gc_roots()
        .into_iter()
        .filter(|(_, k)| k.contains(crate::records::heap::RootKind::ThreadObject))
        .map(|(o, _)| o)
        .collect();
    running.sort_unstable();
    let cx = inspect::Context { platform: &platform, watches: &watches, running_threads: &running };

    // The biggest first, as many as can be traced.
    let mut reached: Vec<(u32, Vec<u32>)> = paths.found;
    reached.sort_by_key(|(o, _)| (std::cmp::Reverse(h.retained(*o)), *o));
    let untraced = reached.len().saturating_sub(MAX_TRACED);
    reached.truncate(MAX_TRACED);

    let mut inspected = HashMap::new();
    // signature → (leak, its instances)
    let mut groups: Vec<(Leak, Vec<LeakInstance>)> = Vec::new();
    let mut by_signature: HashMap<String, usize> = HashMap::new();
    for (obj, path) in &reached {
        let t = trace::build(&mut h, &priorities, &cx, &mut inspected, path)?;
        let candidate = &found.candidates[found.candidates.binary_search_by_key(obj, |c| c.obj).expect("a candidate")];
        let (bytes, objects) = (h.retained(*obj), h.retained_objects(*obj)?);
        let instance = LeakInstance {
            object: format!("0x{:x}", h.address(*obj)),
            class_name: h.object_class_name(*obj).to_string(),
            found_by: candidate.found_by,
            watch: candidate.watch.clone(),
            retained_bytes: bytes,
            retained_objects: objects,
            trace: t.steps,
        };
        let k = *by_signature.entry(t.signature.clone()).or_insert_with(|| {
            let library_leak = t.library.map(|k| {
                let known = &library::KNOWN_LEAKS[k as usize];
                LibraryLeak {
                    pattern: known.pattern.text(),
                    versions: known.versions(),
                    manufacturers: known.manufacturers.iter().map(|m| m.to_string()).collect(),
                    cause: known.cause.to_string(),
                }
            });
            groups.push((
                Leak {
                    signature: t.signature.clone(),
                    kind: t.kind,
                    description: t.description.clone(),
                    count: 0,
                    retained_bytes: 0,
                    retained_objects: 0,
                    library_leak,
                    instances: Vec::new(),
                },
                Vec::new(),
            ));
            groups.len() - 1
        });
        let (leak, instances) = &mut groups[k];
        leak.count += 1;
        // Leaking objects are leaves of the search: none dominates another, so their
        // retained sets are disjoint and add up.
        leak.retained_bytes += bytes;
        leak.retained_objects += objects;
        instances.push(instance);
    }
    let mut leaks: Vec<Leak> = groups
        .into_iter()
        .map(|(mut leak, mut instances)| {
            // Watched objects first (their watch key identifies the leak), then the biggest.
            let order = |i: &LeakInstance| {
                (
                    i.found_by,
                    std::cmp::Reverse(i.retained_bytes),
                    u64::from_str_radix(i.object.trim_start_matches("0x"), 16).unwrap_or(0),
                )
            };
            instances.sort_by_key(order);
            instances.truncate(MAX_INSTANCES);
            leak.instances = instances;
            leak
        })
        .collect();
    leaks.sort_by(|x, y| {
        (x.kind, std::cmp::Reverse(x.retained_bytes), &x.signature).cmp(&(
            y.kind,
            std::cmp::Reverse(y.retained_bytes),
            &y.signature,
        ))
    });
    let more = leaks.len().saturating_sub(MAX_LEAKS);
    leaks.truncate(MAX_LEAKS);

    let unreached = found.candidates.len() - reached.len() - untraced;
    if unreached > 0 {
        notes.push(format!(
            "{unreached} of the {} leaking objects found are not reported on their own: no strong path reaches them except through another leaking object, or none at all (held only weakly, softly or by finalizers, they will be collected)",
            found.candidates.len()
        ));
    }
    if untraced > 0 {
        notes.push(format!(
            "{untraced} more leaking objects were found than the {MAX_TRACED} traced (the biggest were traced)"
        ));
    }
    if more > 0 {
        notes.push(format!("{more} more leaks (smaller ones) are not listed"));
    }
    Ok(Leaks { leaks, notes, tree, android })
}

/// The notes on what was looked for.
fn looked_for(seen: &finders::Seen, platform: &android::Platform) -> Vec<String> {
    let mut notes = Vec::new();
    if seen.watch_classes.is_empty() {
        notes.push(format!(
            "No LeakCanary watch references: neither {} nor {} is a class of this dump.",
            finders::WATCH_CLASSES[0],
            finders::WATCH_CLASSES[1]
        ));
    } else {
        let mut n = format!(
            "LeakCanary watch references ({}): {} in the dump, {} still pointing at an object",
            seen.watch_classes.join(", "),
            seen.watch_refs,
            seen.watch_set
        );
        if seen.watch_not_retained > 0 {
            n.push_str(&format!(
                ", of which {} not yet retained (retainedUptimeMillis = -1: watched too recently to be a leak)",
                seen.watch_not_retained
            ));
        }
        n.push('.');
        notes.push(n);
    }
    if seen.lifecycle_classes.is_empty() {
        notes.push("No Android lifecycle classes (android.app.Activity, Fragment, View, Dialog, Service, ViewModel, Window, ViewRootImpl): nothing to look for by lifecycle; this is not an Android app's dump.".into());
    } else {
        notes.push(format!(
            "Android objects looked at for an ended lifecycle: {} (of {}).",
            seen.lifecycle_examined,
            seen.lifecycle_classes.join(", ")
        ));
        if platform.is_android
            && platform.alive_services.is_none()
            && seen.lifecycle_classes.contains(&android::SERVICE)
        {
            notes.push("ActivityThread.mServices could not be read: services were not judged.".into());
        }
    }
    if seen.watch_classes.is_empty() && seen.lifecycle_classes.is_empty() {
        notes.push(
            "Without either, there is no object known to be leaking: the leak suspects (Eclipse MAT's) show where the memory accumulates instead.".into(),
        );
    }
    notes
}

/// The JSON Schema of [`Leaks`], as committed at `schema/leaks.schema.json`.
pub fn json_schema() -> String {
    crate::model::json::schema_text::<Leaks>()
}

/// The leaks as JSON text (deterministic).
pub fn to_json(leaks: &Leaks) -> String {
    crate::model::json::to_text(leaks)
}
