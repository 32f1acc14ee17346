//! The queries (crate/src/query/) on corpus dumps and built dumps, checked against
//! independent computations: the dump's construction, definitions computed here.

mod support;

use std::collections::BTreeMap;

use heapscope::analysis::{loader_label, Analysis, Options};
use heapscope::model::names::package_of;
use heapscope::query::grouping::{histogram_groups, HistogramGrouping};
use heapscope::session::Session;

fn analysis_of(dir: &str, name: &str) -> Option<Analysis> {
    let corpus = support::corpus_dir()?;
    let path = corpus.join(dir).join(format!("{name}.hprof.gz"));
    Some(support::core(support::open_dump(&path), &Options::default()).unwrap())
}

/// A session (the analysis with its features) over a corpus dump.
fn session_of(dir: &str, name: &str) -> Option<Session> {
    let corpus = support::corpus_dir()?;
    let path = corpus.join(dir).join(format!("{name}.hprof.gz"));
    Some(support::session(support::open_dump(&path), &Options::default()).unwrap())
}

/// The group's quick retained size by definition: every kept object of the group with no
/// object of the same group among its dominators counts with its retained size. Walks
/// each object's dominator chain (quadratic in the depth: small dumps only).
fn groups_by_definition(a: &Analysis, key: impl Fn(u32) -> Option<String>) -> BTreeMap<String, (u64, u64, u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64, u64, u64)> = BTreeMap::new();
    for c in 0..a.class_count() as u32 {
        if a.class_object(c).is_some_and(|o| a.is_kept(o)) {
            let e = out.entry(key(c).unwrap()).or_default();
            e.0 += 1;
            e.1 += a.classes[c as usize].instances;
            e.2 += a.classes[c as usize].shallow;
        }
    }
    let group_of_object = |v: u32| {
        let c = a.class_of(v);
        a.class_object(c).filter(|&o| a.is_kept(o)).and_then(|_| key(c))
    };
    for v in 0..a.object_count() as u32 {
        if !a.is_kept(v) {
            continue;
        }
        let Some(g) = group_of_object(v) else { continue };
        let mut up = a.immediate_dominator(v).flatten();
        let mut covered = false;
        while let Some(d) = up {
            if group_of_object(d).as_deref() == Some(g.as_str()) {
                covered = true;
                break;
            }
            up = a.immediate_dominator(d).flatten();
        }
        if !covered {
            out.get_mut(&g).unwrap().3 += a.retained(v);
        }
    }
    out
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn histogram_groups_equal_their_definition() {
    for (dir, name) in [
        ("dumps", "s02_static_map_leak_serial"),
        ("dumps", "s08_many_classes_serial_all"),
        ("android", "ahat_test_dump_8e3b7d7"),
    ] {
        let Some(a) = analysis_of(dir, name) else { return };
        for by in [HistogramGrouping::Package, HistogramGrouping::ClassLoader] {
            let groups = histogram_groups(&a, by).unwrap();
            let expected = groups_by_definition(&a, |c| {
                Some(match by {
                    HistogramGrouping::Package => match package_of(a.class_name(c)) {
                        "" => "<default package>".to_string(),
                        p => p.to_string(),
                    },
                    HistogramGrouping::ClassLoader => loader_label(&a, c),
                })
            });
            let got: BTreeMap<String, (u64, u64, u64, u64)> = groups
                .iter()
                .map(|g| (g.name.clone(), (g.classes, g.instances, g.shallow_bytes, g.retained_bytes_min)))
                .collect();
            assert_eq!(got.len(), groups.len(), "{name} {by:?}: group names are unique");
            assert_eq!(got, expected, "{name} {by:?}");
            assert!(
                groups.windows(2).all(|w| w[0].retained_bytes_min >= w[1].retained_bytes_min),
                "{name} {by:?}: largest first"
            );
            // Every object is in one group and no group's lower bound exceeds the heap.
            assert_eq!(
                groups.iter().map(|g| g.instances).sum::<u64>(),
                a.classes.iter().map(|c| c.instances).sum::<u64>()
            );
            assert!(groups.iter().all(|g| g.retained_bytes_min <= a.used_heap));
        }
    }
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn loaders_of_the_many_classes_dump() {
    // s08: 200 + 300 generated classes in two named loaders that stay reachable.
    let Some(a) = analysis_of("dumps", "s08_many_classes_serial_all") else { return };
    let groups = histogram_groups(&a, HistogramGrouping::ClassLoader).unwrap();
    let gen: Vec<_> = groups.iter().filter(|g| g.name.starts_with("corpus.ClassGen$GenLoader @ ")).collect();
    let mut counts: Vec<u64> = gen.iter().map(|g| g.classes).collect();
    counts.sort_unstable();
    assert_eq!(counts, vec![200, 300], "{gen:?}");
    let packages = histogram_groups(&a, HistogramGrouping::Package).unwrap();
    let classes = |name: &str| packages.iter().find(|g| g.name == name).map(|g| g.classes);
    assert_eq!(classes("dyn.kept"), Some(200));
    assert_eq!(classes("dyn.leaked"), Some(300));
    assert_eq!(classes("dyn.garbage"), None, "the garbage loader's classes are unreachable");
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn referrers_are_the_objects_whose_fields_point_here() {
    use heapscope::holders::Cache;
    use heapscope::model::Reading;
    use heapscope::query::referrers::referrers;
    use heapscope::readback::object::object_details;
    let Some(mut a) = analysis_of("dumps", "s02_static_map_leak_serial") else { return };
    let mut cache = Cache::default();
    let index = cache.index(&a, Reading::Mat).unwrap();
    // The accumulation point: only the HashMap whose `table` it is.
    let table = a.object_at(0xfbda1118).unwrap();
    let r = referrers(&a, index, table, 10);
    assert_eq!(r.total, 1);
    assert_eq!(r.largest.iter().map(|o| o.address.as_str()).collect::<Vec<_>>(), ["0xfab19bb0"]);
    // For the 40 biggest objects: each referrer, read back from the dump, has a field
    // (or static, or element) holding the object, or is an instance of the class it is.
    let mut objects: Vec<u32> = (0..a.object_count() as u32).filter(|&v| a.is_kept(v)).collect();
    objects.sort_by_key(|&v| std::cmp::Reverse(a.retained(v)));
    let mut checked = 0;
    for &x in objects.iter().take(40) {
        let address = format!("0x{:x}", a.address(x));
        let r = referrers(&a, index, x, 1000);
        assert!(r.largest.len() as u64 == r.total.min(1000));
        assert!(r.largest.windows(2).all(|w| w[0].retained_bytes >= w[1].retained_bytes));
        for o in &r.largest {
            let v = a.object_at(u64::from_str_radix(&o.address[2..], 16).unwrap()).unwrap();
            let holds = object_details(&mut a, v).unwrap().fields.iter().any(|f| f.value == address);
            let instance_of = a.class_represented_by(x) == Some(a.class_of(v));
            assert!(holds || instance_of, "{} is listed as referencing {address}", o.address);
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} referrers checked");
}

/// Element 5,000 of s07's `Object[500000]` (static `WIDE`): the path to it names the
/// array slot, read from the record (the inspector shows only the first 1,000 elements).
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn a_path_through_a_wide_array_names_the_slot() {
    use heapscope::readback::locate::{Record, RecordHead};
    use heapscope::session::{Answer, Query};
    let Some(mut s) = session_of("dumps", "s07_wide_array_serial") else { return };
    let a = &mut s.analysis;
    let wide = (0..a.object_count() as u32)
        .find(|&v| {
            a.is_kept(v) && a.class_name(a.class_of(v)) == "java.lang.Object[]" && a.dominated_count(v) == 500_000
        })
        .expect("WIDE");
    let wide_addr = format!("0x{:x}", a.address(wide));
    // The 5,001st element, read from the array's record.
    let Some(Record { head: RecordHead::ObjectArray { len, elements_at, .. }, .. }) =
        heapscope::readback::object::read_record(a, wide).unwrap()
    else {
        panic!("WIDE is an object array")
    };
    assert_eq!(len, 500_000);
    let mut element = 0;
    heapscope::readback::fields::array_elements(
        a.source.as_deref_mut().unwrap(),
        elements_at,
        len,
        8,
        5_000,
        |_, id| {
            element = id;
            std::ops::ControlFlow::Break(())
        },
    )
    .unwrap();
    let Answer::PathToRoot(path) = s.answer(&Query::PathToRoot { object: format!("0x{element:x}") }).unwrap() else {
        panic!()
    };
    let at = path.iter().position(|s| s.object.address == wide_addr).expect("the path goes through WIDE");
    assert_eq!(path[at].via, ["[5000]"], "{path:?}");
    assert_eq!(path[at + 1].object.address, format!("0x{element:x}"));
    assert_eq!(path[at + 1].object.class_name, "corpus.S07WideArray$Small");
    // The step before names the static field.
    assert_eq!(path[at - 1].via, ["WIDE"], "{path:?}");
}

/// An instance record shorter than its class chain declares: the fields before the gap
/// are shown, the inspector says the record is short, and no field of a super class is
/// decoded at the place of the one that did not fit.
#[test]
fn a_short_instance_record_is_reported_not_misread() {
    use heapscope::session::{Answer, Query};
    use support::hprof_builder::{ClassDef, Hprof, Value};
    let (object, class, loader, top, middle, bottom) = (0x100u64, 0x110, 0x120, 0x130, 0x140, 0x150);
    let mut h = Hprof::new(8);
    for (id, text) in [
        (1, "java/lang/Object"),
        (2, "java/lang/Class"),
        (3, "java/lang/ClassLoader"),
        (4, "Top"),
        (5, "Middle"),
        (6, "Bottom"),
        (7, "d"),
        (8, "a"),
        (9, "c"),
    ] {
        h.string(id, text);
    }
    for (serial, (id, name)) in
        [(object, 1), (class, 2), (loader, 3), (top, 4), (middle, 5), (bottom, 6)].into_iter().enumerate()
    {
        h.load_class(serial as u32 + 1, id, name);
    }
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(object, 0));
    seg.class_dump(&ClassDef::new(class, object));
    seg.class_dump(&ClassDef::new(loader, object));
    seg.class_dump(&ClassDef::new(top, object).field(7, 10)); // int d
    seg.class_dump(&ClassDef::new(middle, top).field(8, 11)); // long a
    seg.class_dump(&ClassDef::new(bottom, middle).field(9, 11)); // long c
    for id in [object, class, loader, top, middle, bottom] {
        seg.root_sticky_class(id);
    }
    // Bottom's c (8 bytes), then 6 bytes: Middle's a (8) does not fit, Top's d (4) would.
    let mut fields = Vec::new();
    Value::Long(7).write(&mut fields, 8);
    fields.extend_from_slice(&[0xAB; 6]);
    seg.instance_raw(0x1000, bottom, fields.len() as u32, &fields);
    seg.root_jni_global(0x1000, 0x9999);
    h.segment(&seg).heap_dump_end();
    let mut s = support::session_of(h.into_bytes());
    let Answer::Object(details) = s.answer(&Query::Object { object: "0x1000".into() }).unwrap() else { panic!() };
    let shown: Vec<(&str, &str)> = details.fields.iter().map(|f| (f.name.as_str(), f.value.as_str())).collect();
    assert_eq!(shown, [("c", "7")], "only the field that fits");
    let problem = details.problem.expect("the short record is reported");
    assert!(problem.contains("short") && problem.contains("14 bytes") && problem.contains("at byte 8"), "{problem}");
}

/// The dominator tree's children as the page is given them (the tree keeps each list in
/// address order; the queries order it), against the definition: every kept object
/// whose immediate dominator is the parent, largest retained first, then by address.
/// Checked for the virtual root, the 25 nodes with the most children (s07's
/// `Object[500000]` among them) and every 997th node with children: the pages of
/// `children` end to end, `largest_dominated`, and each class's biggest in
/// `children_by_class`.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn children_come_largest_first_as_defined() {
    use heapscope::query::tree::{children, children_by_class};
    for name in ["s07_wide_array_serial", "s02_static_map_leak_serial"] {
        let Some(a) = analysis_of("dumps", name) else { return };
        let n = a.object_count();
        let mut by_parent: BTreeMap<Option<u32>, Vec<u32>> = BTreeMap::new();
        for v in 0..n as u32 {
            if let Some(p) = a.immediate_dominator(v) {
                by_parent.entry(p).or_default().push(v);
            }
        }
        for list in by_parent.values_mut() {
            list.sort_by_key(|&v| (std::cmp::Reverse(a.retained(v)), v));
        }
        let mut widest: Vec<Option<u32>> = by_parent.keys().copied().filter(|p| p.is_some()).collect();
        widest.sort_by_key(|&p| std::cmp::Reverse(by_parent[&p].len()));
        let mut parents: Vec<Option<u32>> = vec![None];
        parents.extend(widest.iter().take(25));
        parents.extend(widest.iter().skip(25).step_by(997));
        assert!(by_parent[&widest[0]].len() >= 1000, "{name}: no wide node");
        let address = |v: u32| format!("0x{:x}", a.address(v));
        for &p in &parents {
            let want = &by_parent[&p];
            let mut got = Vec::new();
            let mut offset = 0;
            loop {
                let page = children(&a, p, offset, 997).unwrap();
                assert_eq!(page.total as usize, want.len(), "{name}, {p:?}");
                assert_eq!(
                    page.total_retained_bytes,
                    want.iter().map(|&v| a.retained(v)).sum::<u64>(),
                    "{name}, {p:?}"
                );
                if page.nodes.is_empty() {
                    break;
                }
                offset += page.nodes.len();
                got.extend(page.nodes.into_iter().map(|t| t.object.address));
            }
            assert_eq!(got, want.iter().map(|&v| address(v)).collect::<Vec<_>>(), "{name}, children of {p:?}");
            if let Some(p) = p {
                assert_eq!(a.largest_dominated(p), want.first().copied(), "{name}, largest child of {p}");
            }
            for g in children_by_class(&a, p, usize::MAX) {
                let of_class: Vec<String> = want
                    .iter()
                    .filter(|&&v| a.class_name(a.class_of(v)) == g.class_name)
                    .take(20)
                    .map(|&v| address(v))
                    .collect();
                assert_eq!(
                    g.largest.into_iter().map(|t| t.object.address).collect::<Vec<_>>(),
                    of_class,
                    "{name}, {p:?}, class {}",
                    g.class_name
                );
            }
        }
    }
}
