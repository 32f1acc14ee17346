//! Android heaps (HEAP DUMP INFO records) on the corpus's ART dumps, against the manifest:
//! leak_service_binder has heaps `zygote` (37,431 objects) and `app` (3,342), counting
//! instance and array records (its 3,645 classes are the rest of its 44,418 objects);
//! the ahat dump has one heap, `app`. HotSpot dumps name no heap.

mod support;

use heapscope::analysis::Options;
use heapscope::model::HeapCount;
use heapscope::render::markdown;
use heapscope::report::{self, Report};

fn report_of(rel: &str, keep_unreachable: bool) -> Option<Report> {
    let path = support::corpus_dir()?.join(rel);
    let options = Options { keep_unreachable, ..Options::default() };
    let s = support::session(support::open_dump(&path), &options).unwrap();
    Some(support::built_report(&s, &report::SourceInfo::default()))
}

fn heap<'a>(heaps: &'a [HeapCount], name: &str) -> &'a HeapCount {
    heaps.iter().find(|h| h.name == name).unwrap_or_else(|| panic!("no heap {name} in {heaps:?}"))
}

/// The class objects of a heap: the `java.lang.Class` row's count in it.
fn class_objects(r: &Report, name: &str) -> u64 {
    let row = r.histogram.iter().find(|row| row.class_name == "java.lang.Class").unwrap();
    row.heaps.iter().find(|h| h.name == name).map_or(0, |h| h.objects)
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn leakcanary_heaps_are_the_manifests() {
    // Every object kept: each heap holds the manifest's instance and array records plus
    // its class objects; the 3,645 classes split between the two heaps.
    let Some(r) = report_of("android/leakcanary_leak_service_binder.hprof.gz", true) else { return };
    let names: Vec<&str> = r.overview.heaps.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["zygote", "app"]);
    let (zygote, app) = (heap(&r.overview.heaps, "zygote"), heap(&r.overview.heaps, "app"));
    assert_eq!(zygote.objects - class_objects(&r, "zygote"), 37_431);
    assert_eq!(app.objects - class_objects(&r, "app"), 3_342);
    assert_eq!(class_objects(&r, "zygote") + class_objects(&r, "app"), 3_645);
    // Everything but MAT's pseudo object 0x0 (the bootstrap loader, no record) is in a heap.
    assert_eq!(zygote.objects + app.objects, r.overview.objects - 1);
    assert_eq!(r.overview.objects, 44_418 + 1);
    consistent(&r);
}

/// Heaps add up: per heap, the histogram's per-class counts sum to the heap's; per class,
/// the heaps' counts are at most the class's (the pseudo object is in none).
fn consistent(r: &Report) {
    for h in &r.overview.heaps {
        let objects: u64 =
            r.histogram.iter().flat_map(|row| &row.heaps).filter(|x| x.name == h.name).map(|x| x.objects).sum();
        let bytes: u64 =
            r.histogram.iter().flat_map(|row| &row.heaps).filter(|x| x.name == h.name).map(|x| x.shallow_bytes).sum();
        assert_eq!((objects, bytes), (h.objects, h.shallow_bytes), "{}", h.name);
    }
    for row in &r.histogram {
        let n: u64 = row.heaps.iter().map(|h| h.objects).sum();
        assert!(n == row.instances || n + 1 == row.instances, "{}: {n} of {}", row.class_name, row.instances);
    }
    let used: u64 = r.overview.heaps.iter().map(|h| h.shallow_bytes).sum();
    assert!(used <= r.overview.used_heap_bytes);
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn leakcanary_default_counts_reachable_objects() {
    let Some(r) = report_of("android/leakcanary_leak_service_binder.hprof.gz", false) else { return };
    let objects: u64 = r.overview.heaps.iter().map(|h| h.objects).sum();
    assert_eq!(objects, r.overview.objects - 1);
    consistent(&r);
    let md = markdown::render(&r);
    assert!(md.contains("| Heaps | zygote: ") && md.contains("; app: "), "{md}");
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn ahat_has_one_heap_app_and_hotspot_none() {
    let Some(r) = report_of("android/ahat_test_dump_8e3b7d7.hprof.gz", false) else { return };
    assert_eq!(r.overview.heaps.len(), 1);
    let app = heap(&r.overview.heaps, "app");
    assert_eq!(app.objects, r.overview.objects - 1);
    consistent(&r);
    let Some(r) = report_of("dumps/s02_static_map_leak_serial.hprof.gz", false) else { return };
    assert!(r.overview.heaps.is_empty() && r.histogram.iter().all(|row| row.heaps.is_empty()));
    assert!(!report::to_json(&r).contains("\"heaps\""));
}
