//! What a suspect says it found, and the dominator tree grouped by class, against Eclipse
//! MAT's own per-object table (`../shared/corpus/expected/*.objects.tsv.gz`: class, shallow,
//! retained and immediate dominator of every object, as MAT computed them) and the corpus
//! manifest's construction of the dumps.

mod support;

use std::collections::BTreeMap;

use heapscope::analysis::{Options, Sizes};
use heapscope::model::SuspectKind;
use heapscope::report::Report;
use heapscope::session::{Answer, Query, Session};

struct MatObject {
    address: String,
    class: String,
    shallow: u64,
    retained: u64,
    dominator: String,
}

fn mat_objects(name: &str) -> Vec<MatObject> {
    let corpus = support::corpus_dir().unwrap();
    let text =
        String::from_utf8(support::gunzip(&corpus.join("expected").join(format!("{name}.objects.tsv.gz")))).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            MatObject {
                address: f[0].into(),
                class: f[1].into(),
                shallow: f[2].parse().unwrap(),
                retained: f[3].parse().unwrap(),
                dominator: f[4].into(),
            }
        })
        .collect()
}

/// MAT's objects dominated by `parent` ("root": the top level), grouped by class: (objects,
/// shallow sum, retained sum).
fn mat_groups<'m>(objects: impl Iterator<Item = &'m MatObject>) -> BTreeMap<String, (u64, u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for o in objects {
        let e = out.entry(o.class.clone()).or_default();
        e.0 += 1;
        e.1 += o.shallow;
        e.2 += o.retained;
    }
    out
}

/// A corpus dump's session in Eclipse MAT's sizes (checked against MAT's tables here).
fn report_of(name: &str) -> Option<(Session, Report)> {
    let corpus = support::corpus_dir()?;
    let mut s = support::session(
        support::open_dump(&corpus.join("dumps").join(format!("{name}.hprof.gz"))),
        &Options { sizes: Sizes::Mat, ..Options::default() },
    )
    .unwrap();
    let r = s.report().unwrap().clone();
    Some((s, r))
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s02_suspect_names_the_static_map_and_lists_what_it_holds() {
    let name = "s02_static_map_leak_serial";
    let Some((_, r)) = report_of(name) else { return };
    let s = &r.leak_suspects.suspects[0];
    // The manifest: static `corpus.S02StaticMapLeak.CACHE`, a HashMap (named without its
    // internal `table`) of 300 entries, each value a byte[100,000].
    assert_eq!(s.held_in.as_deref(), Some("corpus.S02StaticMapLeak.CACHE"));
    assert_eq!(s.accumulation_point_elements, Some(300));
    let each = s.each_holds.as_ref().expect("each node holds its value");
    assert_eq!((each.class_name.as_str(), each.field.as_str()), ("byte[]", "value"));
    assert_eq!(s.represented_class.as_deref(), Some("corpus.S02StaticMapLeak"));
    assert!(
        s.represented_loader.as_deref().unwrap().starts_with("jdk.internal.loader.ClassLoaders$AppClassLoader @ 0x"),
        "{:?}",
        s.represented_loader
    );
    // Accumulated objects: MAT's objects whose immediate dominator is the accumulation point.
    let ap = s.accumulation_point.as_ref().unwrap();
    let mat = mat_objects(name);
    let expected = mat_groups(mat.iter().filter(|o| o.dominator == ap.address));
    let actual: BTreeMap<String, (u64, u64, u64)> =
        s.accumulated.iter().map(|g| (g.class_name.clone(), (g.objects, g.shallow_bytes, g.retained_bytes))).collect();
    assert_eq!(actual, expected);
    // 300 entries, each holding a byte[100,000]: every node retains at least one entry.
    let nodes = &s.accumulated[0];
    assert_eq!(nodes.class_name, "java.util.HashMap$Node");
    assert!(nodes.retained_bytes >= 300 * 100_000);
    for w in nodes.biggest.windows(2) {
        assert!(w[0].retained_bytes >= w[1].retained_bytes);
    }
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn group_suspect_lists_its_biggest_members() {
    let name = "s01_hello_serial_live";
    let Some((_, r)) = report_of(name) else { return };
    let mat = mat_objects(name);
    for s in r.leak_suspects.suspects.iter().filter(|s| s.kind == SuspectKind::GroupOfObjects) {
        let mut members: Vec<&MatObject> =
            mat.iter().filter(|o| o.dominator == "root" && o.class == s.class_name).collect();
        assert_eq!(members.len() as u64, s.instances, "{}", s.class_name);
        members.sort_by_key(|m| std::cmp::Reverse(m.retained));
        assert_eq!(s.biggest_members.len(), 20.min(members.len()));
        for (m, e) in s.biggest_members.iter().zip(&members) {
            // Ties may come in another order: the sizes match position by position.
            assert_eq!(m.object.retained_bytes, e.retained, "{}", s.class_name);
            assert_eq!(m.object.class_name, s.class_name);
        }
    }
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn thread_suspects_are_named_by_their_thread() {
    let Some((_, r)) = report_of("s03_threadlocal_leak_serial") else { return };
    // The manifest: threads `leaky-pool-1` and `leaky-pool-2` retain the leak.
    let held: Vec<&str> = r.leak_suspects.suspects.iter().filter_map(|s| s.held_in.as_deref()).collect();
    assert!(held.iter().any(|h| h.starts_with("Thread(\"leaky-pool-1\")")), "{held:?}");
    assert!(held.iter().any(|h| h.starts_with("Thread(\"leaky-pool-2\")")), "{held:?}");
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn dominator_tree_grouped_by_class_matches_mats_table() {
    for name in ["s02_static_map_leak_serial", "s07_wide_array_serial"] {
        let Some((mut a, _)) = report_of(name) else { return };
        let mat = mat_objects(name);
        let by_address: BTreeMap<&str, &MatObject> = mat.iter().map(|o| (o.address.as_str(), o)).collect();
        // Level 0, then the biggest group of each level, three levels down.
        let mut path: Vec<String> = Vec::new();
        let mut level: Vec<&MatObject> = mat.iter().filter(|o| o.dominator == "root").collect();
        for depth in 0..3 {
            let Answer::DominatorGroups(g) =
                a.answer(&Query::DominatorGroups { path: path.clone(), limit: 10_000 }).unwrap()
            else {
                panic!()
            };
            let expected = mat_groups(level.iter().copied());
            let actual: BTreeMap<String, (u64, u64, u64)> = g
                .groups
                .iter()
                .map(|x| (x.class_name.clone(), (x.objects, x.shallow_bytes, x.retained_bytes)))
                .collect();
            assert_eq!(actual, expected, "{name} level {depth}");
            assert_eq!(g.total as usize, expected.len());
            let Some(top) = g.groups.iter().find(|x| x.children > 0) else { break };
            let members: std::collections::HashSet<&str> =
                level.iter().filter(|o| o.class == top.class_name).map(|o| o.address.as_str()).collect();
            level = mat.iter().filter(|o| members.contains(o.dominator.as_str())).collect();
            assert_eq!(level.len() as u64, top.children, "{name} level {depth}: children of {}", top.class_name);
            assert!(top.biggest.iter().all(|b| by_address.contains_key(b.address.as_str())));
            path.push(top.class_address.clone());
        }
    }
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn only_a_single_class_object_suspect_stands_for_its_class() {
    // s01: groups of java.lang.Class objects (MAT's expected suspects): a group is not one class.
    let Some((_, r)) = report_of("s01_hello_serial_live") else { return };
    for s in &r.leak_suspects.suspects {
        match s.kind {
            SuspectKind::GroupOfObjects => {
                assert_eq!((&s.represented_class, &s.represented_loader), (&None, &None), "{}", s.class_name)
            }
            SuspectKind::SingleObject => assert_eq!(s.represented_class.is_some(), s.object.class_of_object.is_some()),
        }
    }
}

/// The listener leak's suspect is the class loader (it dominates everything); its
/// headline starts at `EventBus`'s static field, not at the loader's `classes` vector, and
/// stops at the list (its internal `array` is the library's); every listener holds one
/// Screen by `this$0`.
#[test]
fn a_listener_leak_is_named_from_the_static_field_with_what_each_listener_holds() {
    use heapscope::render::markdown;
    let mut s = support::session_of(support::listener_leak::listener_leak(150));
    let r = s.report().unwrap().clone();
    let suspect = &r.leak_suspects.suspects[0];
    assert_eq!(suspect.object.class_name, "jdk.internal.loader.ClassLoaders$AppClassLoader");
    assert_eq!(suspect.held_in.as_deref(), Some("com.acme.ui.EventBus.INSTANCE.listeners"));
    let top = &suspect.accumulated[0];
    assert_eq!((top.class_name.as_str(), top.objects), ("com.acme.ui.Screen$1", 150));
    let each = suspect.each_holds.as_ref().expect("each listener holds its Screen");
    assert_eq!((each.class_name.as_str(), each.field.as_str()), ("com.acme.ui.Screen", "this$0"));
    // Each Screen and its byte[1,000], in a layout without compressed references (8-byte
    // ids and no hint of compression): a 16-byte header and one 8-byte reference, and a
    // 24-byte array header before 1,000 bytes.
    assert_eq!(each.retained_bytes, 150 * (24 + 1_024));
    // The list's entries: its array's 150 elements.
    assert_eq!(suspect.accumulation_point_elements, Some(150));
    // The listeners together, each 1,072 bytes (itself and its Screen, 24 bytes each: a
    // 16-byte header and one reference; the Screen's 1,024-byte array), and their share
    // of the heap: the sizes and the percentage are of the same objects.
    assert_eq!(top.retained_bytes, 150 * (24 + 24 + 1_024));
    let share = (top.retained_bytes * 20_000 + r.overview.used_heap_bytes) / (2 * r.overview.used_heap_bytes);
    let headline = format!(
        "com.acme.ui.EventBus.INSTANCE.listeners holds 150 × Screen$1, 1.0 KiB each (157.0 KiB, {}.{:02}% of the heap); \
         each holds a com.acme.ui.Screen by this$0",
        share / 100,
        share % 100
    );
    let headline = headline.as_str();
    assert_eq!(heapscope::render::suspects::headline(suspect).as_deref(), Some(headline));
    let md = markdown::render(&r);
    // Markdown escapes `$` (a math delimiter in some renderers).
    assert!(md.contains(&format!("**{}**", headline.replace('$', "\\$"))), "{md}");
    let json = heapscope::report::to_json(&r);
    assert!(json.contains("\"held_in\": \"com.acme.ui.EventBus.INSTANCE.listeners\""));
}
