//! Tables MAT cut (`Total: 3 of 10 entries; 7 more`) are compared on the rows MAT shows,
//! in order, and on the count MAT prints; what MAT does not print is never a FAIL, and a
//! changed number still is.
//!
//! MAT's side: real pages of the corpus's exported reports
//! (`../shared/corpus/expected/NAME_Leak_Suspects.zip`), with one table cut the way MAT
//! cuts its tables (its first rows, then a totals row `Total: K of N entries; N−K more`
//! whose sums still add up all N entries). Our side: a report holding what MAT's full,
//! uncut page shows (every thread, every biggest object, every consumer), so that only the
//! cut can make a difference.

mod cut;

use std::path::{Path, PathBuf};

use compare_mat::pages::{self, MatReport, TotalsRow};
use compare_mat::{Reason, Tier, Verdict};
use cut::{cut_table, mat_pages, read, with_page};
use serde_json::{json, Value};

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if dir.join("expected").is_dir() {
        return Some(dir);
    }
    let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"));
    assert!(!ci, "the shared corpus is not at {} and CI is set", dir.display());
    eprintln!("SKIPPED (no corpus): the shared corpus is not at {}", dir.display());
    None
}

fn hex(a: u64) -> String {
    format!("0x{a:x}")
}

fn bp(percent: &Option<String>) -> u32 {
    percent.as_deref().map_or(0, |p| (p.parse::<f64>().unwrap() * 100.0).round() as u32)
}

/// Ours: what MAT's uncut report shows of the threads, the biggest objects and the
/// top-level dominator classes (the sections these tests cut).
fn ours_from(m: &MatReport) -> Value {
    let threads: Vec<Value> = m
        .threads
        .as_ref()
        .unwrap()
        .iter()
        .map(|t| {
            json!({
                "address": hex(t.object.address),
                "name": t.name,
                "class_name": t.object.label,
                "shallow_bytes": t.shallow.as_ref().unwrap().value,
                "retained_bytes": t.retained.as_ref().unwrap().value,
                "daemon": t.daemon.as_deref().map(|d| d == "true"),
                "priority": t.priority.as_deref().and_then(|p| p.parse::<i32>().ok()),
                "context_class_loader": t.context_class_loader.clone().filter(|c| !c.is_empty()),
            })
        })
        .collect();
    let objects: Vec<Value> = m
        .biggest_objects
        .as_ref()
        .unwrap()
        .iter()
        .map(|o| {
            json!({
                "address": hex(o.object.address),
                "class_name": o.object.class_name(),
                "class_of_object": o.object.class_object_of(),
                "shallow_bytes": o.shallow.as_ref().unwrap().value,
                "retained_bytes": o.retained.as_ref().unwrap().value,
            })
        })
        .collect();
    let classes: Vec<Value> = m
        .top_classes
        .as_ref()
        .unwrap()
        .rows
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "objects": c.objects.as_ref().unwrap().value,
                "retained_bytes": c.retained.as_ref().unwrap().value,
                "retained_bp": bp(&c.percent),
            })
        })
        .collect();
    let used = m.top_packages.as_ref().and_then(|p| p.rows.first()).and_then(|r| r.retained.as_ref()).unwrap().value;
    json!({
        "schema_version": 1,
        "overview": {"used_heap_bytes": used},
        "threads": threads,
        "top_consumers": {"objects": objects, "classes": classes},
    })
}

fn compare(m: &MatReport, ours: &Value) -> Verdict {
    let (r, raw) = compare_mat::read_ours(&ours.to_string(), 1).unwrap();
    compare_mat::compare(m, &r, &raw)
}

/// The items whose field starts with `prefix`.
fn items<'a>(v: &'a Verdict, prefix: &'a str) -> impl Iterator<Item = &'a compare_mat::Item> + 'a {
    v.items.iter().filter(move |i| i.field.starts_with(prefix))
}

fn fails(v: &Verdict, prefix: &str) -> Vec<String> {
    items(v, prefix)
        .filter(|i| i.tier == Tier::Fail)
        .map(|i| format!("{}: MAT {} vs ours {}", i.field, i.mat, i.ours))
        .collect()
}

fn tier<'a>(v: &'a Verdict, field: &str) -> &'a Tier {
    &v.items.iter().find(|i| i.field == field).unwrap_or_else(|| panic!("no item {field}")).tier
}

fn truncated(t: &Tier) -> bool {
    matches!(t, Tier::Explainable { reason: Reason::Truncated, .. })
}

/// s03's Thread Overview (10 threads) cut to its first 3: the three compared field by
/// field, ours' seven others beyond the cut (EXPLAINABLE), the count 10 = 10; a changed
/// number in a shown row, a thread of ours that MAT would have shown, and a changed
/// "of" still FAIL.
#[test]
fn a_cut_thread_overview_is_compared_on_its_rows_and_its_count() {
    let Some(corpus) = corpus() else { return };
    let full = mat_pages(&corpus, "s03_threadlocal_leak_serial");
    let whole = read(&full);
    let ours = ours_from(&whole);
    assert_eq!(ours["threads"].as_array().unwrap().len(), 10);
    // The uncut overview: every thread matches.
    assert_eq!(fails(&compare(&whole, &ours), "threads"), Vec::<String>::new());

    let page = "pages/Thread_Overview5.html";
    let cut_pages = with_page(&full, page, |p| cut_table(p, "</a> Thread Overview <", 3, None));
    assert!(cut_pages.iter().any(|(_, t)| t.contains("Total: 3 of 10 entries; 7 more")));
    let m = read(&cut_pages);
    assert_eq!(m.threads.as_ref().unwrap().len(), 3);
    let top = pages::top_totals(&m.threads_totals).unwrap();
    assert_eq!((top.shown, top.of, top.cut(), top.entries()), (3, Some(10), true, 10));

    let v = compare(&m, &ours);
    assert_eq!(fails(&v, "threads"), Vec::<String>::new());
    let beyond: Vec<_> = items(&v, "threads[").filter(|i| truncated(&i.tier)).collect();
    assert_eq!(beyond.len(), 7, "{beyond:?}");
    assert_eq!(tier(&v, "threads.total entries"), &Tier::Match);
    assert_eq!(tier(&v, "threads.total Retained Heap"), &Tier::Match);
    let first = &whole.threads.as_ref().unwrap()[0];
    let key = format!("threads[{}]", hex(first.object.address));
    assert_eq!(tier(&v, &format!("{key}.retained")), &Tier::Match);

    // A changed number in a shown row.
    let mut changed = ours.clone();
    let r = &mut changed["threads"][1]["retained_bytes"];
    *r = json!(r.as_u64().unwrap() + 1);
    let v = compare(&m, &changed);
    let second = hex(whole.threads.as_ref().unwrap()[1].object.address);
    assert_eq!(tier(&v, &format!("threads[{second}].retained")), &Tier::Fail);
    // A thread beyond the cut retaining more than the last row MAT shows: MAT would show it.
    let mut changed = ours.clone();
    let r = &mut changed["threads"][9]["retained_bytes"];
    *r = json!(first.retained.as_ref().unwrap().value);
    let v = compare(&m, &changed);
    let tenth = hex(whole.threads.as_ref().unwrap()[9].object.address);
    assert_eq!(tier(&v, &format!("threads[{tenth}]")), &Tier::Fail);
    // MAT says 11 entries, ours has 10.
    let m11 = read(&with_page(&full, page, |p| cut_table(p, "</a> Thread Overview <", 3, Some(11))));
    assert_eq!(tier(&compare(&m11, &ours), "threads.total entries"), &Tier::Fail);
}

/// A shown thread row whose Retained Heap cell MAT left empty: not compared (EXPLAINABLE),
/// where it used to be "(no number)" FAIL; the other fields of the row still compare.
#[test]
fn a_thread_row_without_a_number_is_not_a_fail() {
    let Some(corpus) = corpus() else { return };
    let full = mat_pages(&corpus, "s03_threadlocal_leak_serial");
    let whole = read(&full);
    let ours = ours_from(&whole);
    let page = "pages/Thread_Overview5.html";
    let first = &whole.threads.as_ref().unwrap()[0];
    let shown = first.retained.as_ref().unwrap().text.clone();
    let cut_pages = with_page(&full, page, |p| {
        let p = cut_table(p, "</a> Thread Overview <", 3, None);
        p.replacen(&format!("<td align=\"right\">{shown}</td>"), "<td align=\"right\"></td>", 1)
    });
    let m = read(&cut_pages);
    assert!(m.threads.as_ref().unwrap()[0].retained.is_none());
    let v = compare(&m, &ours);
    assert_eq!(fails(&v, "threads"), Vec::<String>::new());
    let key = format!("threads[{}]", hex(first.object.address));
    assert!(matches!(tier(&v, &format!("{key}.retained")), Tier::Explainable { reason: Reason::NoCounterpart, .. }));
    assert_eq!(tier(&v, &format!("{key}.shallow")), &Tier::Match);
}

/// s07's Thread Properties table (MAT shows 9 of its 10 rows) cut to 3: Object, Name and
/// Shallow Heap compare; Retained Heap, the loader, daemon and priority are not on the
/// page (EXPLAINABLE, truncated) — the held-out "(no number) vs 20005392"; a changed
/// shallow size still FAILs.
#[test]
fn a_cut_thread_properties_table_compares_the_properties_it_shows() {
    let Some(corpus) = corpus() else { return };
    let full = mat_pages(&corpus, "s07_wide_array_g1");
    let whole = read(&full);
    let ours = ours_from(&whole);
    let page = "pages/35.html";
    let key = format!("thread properties[0xf86cbb38] ({page})");
    assert_eq!(fails(&compare(&whole, &ours), "thread properties"), Vec::<String>::new());
    let m = read(&with_page(&full, page, |p| cut_table(p, "</a> Thread Properties <", 3, Some(10))));
    let props = m.thread_properties.iter().find(|t| t.origin.page == page).unwrap();
    assert!(props.retained.is_none() && props.priority.is_none());
    assert_eq!(props.cut.as_ref().map(|c| (c.shown, c.of)), Some((3, Some(10))));
    let v = compare(&m, &ours);
    assert_eq!(fails(&v, "thread properties"), Vec::<String>::new());
    assert_eq!(tier(&v, &format!("{key}.shallow")), &Tier::Match);
    assert_eq!(tier(&v, &format!("{key}.name")), &Tier::Match);
    for what in ["retained", "context class loader", "daemon", "priority"] {
        assert!(truncated(tier(&v, &format!("{key}.{what}"))), "{what}");
    }
    let mut changed = ours.clone();
    let t = changed["threads"].as_array_mut().unwrap().iter_mut().find(|t| t["address"] == "0xf86cbb38").unwrap();
    t["shallow_bytes"] = json!(t["shallow_bytes"].as_u64().unwrap() + 8);
    assert_eq!(tier(&compare(&m, &changed), &format!("{key}.shallow")), &Tier::Fail);
}

/// Top Consumers' Biggest Objects cut to MAT's first rows: the shown rows compare in
/// order, the count is MAT's "of" (`Total: 1 of 3 entries`; and the held-out shape,
/// 3 shown of 43 where ours lists 43), ours' objects beyond the cut are EXPLAINABLE; a
/// changed size of a shown row, a different "of", and an object of ours beyond the cut
/// retaining more than MAT's last row FAIL.
#[test]
fn cut_biggest_objects_compare_the_rows_shown_and_the_count_printed() {
    let Some(corpus) = corpus() else { return };
    let full = mat_pages(&corpus, "ahat_test_dump_8e3b7d7");
    let whole = read(&full);
    let ours = ours_from(&whole);
    assert_eq!(ours["top_consumers"]["objects"].as_array().unwrap().len(), 3);
    assert_eq!(fails(&compare(&whole, &ours), "top_consumers.objects"), Vec::<String>::new());
    let page = "pages/Top_Consumers6.html";
    let heading = "</a> Biggest Objects <";

    let m = read(&with_page(&full, page, |p| cut_table(p, heading, 1, None)));
    assert_eq!(m.biggest_objects.as_ref().unwrap().len(), 1);
    let v = compare(&m, &ours);
    assert_eq!(fails(&v, "top_consumers.objects"), Vec::<String>::new());
    assert_eq!(tier(&v, "top_consumers.objects count"), &Tier::Match);
    assert_eq!(tier(&v, "top_consumers.objects#1.retained"), &Tier::Match);
    assert!(truncated(tier(&v, "top_consumers.objects#2")) && truncated(tier(&v, "top_consumers.objects#3")));

    // MAT 3 shown of 43, ours 43 (40 more, each smaller than MAT's last row).
    let m43 = read(&with_page(&full, page, |p| cut_table(p, heading, 2, Some(43))));
    let mut ours43 = ours.clone();
    let list = ours43["top_consumers"]["objects"].as_array_mut().unwrap();
    for i in 0..40u64 {
        list.push(json!({"address": hex(0x7000_0000 + 16 * i), "class_name": "byte[]", "shallow_bytes": 16, "retained_bytes": 16}));
    }
    let v = compare(&m43, &ours43);
    assert_eq!(fails(&v, "top_consumers.objects"), Vec::<String>::new());
    assert_eq!(tier(&v, "top_consumers.objects count"), &Tier::Match);
    assert_eq!(items(&v, "top_consumers.objects#").filter(|i| truncated(&i.tier)).count(), 41);
    // Without the 40: MAT's 43 against ours' 3 is a changed number.
    assert_eq!(tier(&compare(&m43, &ours), "top_consumers.objects count"), &Tier::Fail);

    // A changed number in the shown row.
    let mut changed = ours.clone();
    let r = &mut changed["top_consumers"]["objects"][0]["retained_bytes"];
    *r = json!(r.as_u64().unwrap() - 1);
    assert_eq!(tier(&compare(&m, &changed), "top_consumers.objects#1.retained"), &Tier::Fail);
    // Ours' third object retaining more than MAT's last shown row: out of MAT's order.
    let mut changed = ours.clone();
    changed["top_consumers"]["objects"][2]["retained_bytes"] = json!(2_000_000);
    assert_eq!(tier(&compare(&m, &changed), "top_consumers.objects#3"), &Tier::Fail);
}

/// Biggest Top-Level Dominator Classes cut to the first row: ours' other classes are
/// beyond the cut, the count is MAT's "of", the totals still add up every class.
#[test]
fn a_cut_consumer_table_compares_its_rows_count_and_totals() {
    let Some(corpus) = corpus() else { return };
    let full = mat_pages(&corpus, "ahat_test_dump_8e3b7d7");
    let whole = read(&full);
    let ours = ours_from(&whole);
    assert_eq!(fails(&compare(&whole, &ours), "top_consumers.classes"), Vec::<String>::new());
    let page = "pages/Top_Consumers6.html";
    let m = read(&with_page(&full, page, |p| cut_table(p, "</a> Biggest Top-Level Dominator Classes <", 1, None)));
    let cut: &TotalsRow = m.top_classes.as_ref().unwrap().cut().unwrap();
    assert_eq!((cut.shown, cut.entries()), (1, 3));
    let v = compare(&m, &ours);
    assert_eq!(fails(&v, "top_consumers.classes"), Vec::<String>::new());
    assert_eq!(tier(&v, "top_consumers.classes.total entries"), &Tier::Match);
    assert_eq!(tier(&v, "top_consumers.classes.total Retained Heap Size"), &Tier::Match);
    assert!(truncated(tier(&v, "top_consumers.classes[java.io.PrintStream]")));
    let mut changed = ours.clone();
    changed["top_consumers"]["classes"][1]["retained_bytes"] = json!(5_000_000);
    let v = compare(&m, &changed);
    assert_eq!(tier(&v, "top_consumers.classes[java.lang.Class]"), &Tier::Fail);
    assert_eq!(tier(&v, "top_consumers.classes.total Retained Heap Size"), &Tier::Fail);
}
