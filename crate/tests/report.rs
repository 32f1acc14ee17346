//! The report's contract: the committed JSON Schemas equal the derived ones, the JSON is
//! deterministic and bounded, it round-trips, and the Markdown carries the sections a
//! reader expects.

mod support;

use std::path::Path;

use heapscope::analysis::{Options, Sizes};
use heapscope::render::{html, markdown};
use heapscope::report::{self, Report, SourceInfo};

fn repo_file(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn committed_report_schema_equals_the_derived_one() {
    let committed = repo_file("schema/report.schema.json");
    assert!(
        committed == report::json_schema(),
        "schema/report.schema.json is stale: regenerate it with `cargo run --release -- schema > schema/report.schema.json` \
         (and bump SCHEMA_VERSION if a field was removed, renamed, retyped or changed meaning)"
    );
}

#[test]
fn committed_query_schema_equals_the_derived_one() {
    let committed = repo_file("schema/query.schema.json");
    assert!(
        committed == heapscope::session::query::json_schema(),
        "schema/query.schema.json is stale: regenerate it with `cargo run --release -- schema --queries > schema/query.schema.json`"
    );
}

/// A corpus dump's report in Eclipse MAT's sizes (its numbers are MAT's, spot-checked here).
fn report_of(name: &str, dir: &str) -> Option<Report> {
    let corpus = support::corpus_dir()?;
    let path = corpus.join(dir).join(format!("{name}.hprof.gz"));
    let options = Options { sizes: Sizes::Mat, ..Options::default() };
    let s = support::session(support::open_dump(&path), &options).unwrap();
    let info = SourceInfo {
        file_name: Some(format!("{name}.hprof.gz")),
        file_bytes: std::fs::metadata(&path).unwrap().len(),
        gzip: true,
    };
    Some(support::built_report(&s, &info))
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn json_is_deterministic_and_round_trips() {
    let Some(first) = report_of("s02_static_map_leak_serial", "dumps") else { return };
    let second = report_of("s02_static_map_leak_serial", "dumps").unwrap();
    let (a, b) = (report::to_json(&first), report::to_json(&second));
    assert_eq!(a, b, "two analyses of the same dump gave different JSON");
    let back: Report = serde_json::from_str(&a).expect("the JSON parses back into a Report");
    assert_eq!(back, first);
    assert_eq!(first.schema_version, report::SCHEMA_VERSION);
    // The numbers are MAT's (also checked in parity.rs): spot-check the summary.
    assert_eq!(first.overview.objects, 18_724);
    assert_eq!(first.overview.used_heap_bytes, 30_705_704);
    assert_eq!(first.overview.classes, 813);
    assert_eq!(first.leak_suspects.suspects.len(), 1);
    let s = &first.leak_suspects.suspects[0];
    assert_eq!(s.object.address, "0xfab193e0");
    assert_eq!(s.retained_bytes, 30_084_408);
    assert_eq!(s.accumulation_point.as_ref().unwrap().address, "0xfbda1118");
    assert_eq!(s.object.class_of_object.as_deref(), Some("corpus.S02StaticMapLeak"));
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn no_list_grows_with_the_object_count() {
    // One million list nodes: the JSON must not hold anything per object.
    let Some(r) = report_of("s06_linked_list_1m_serial", "dumps") else { return };
    let json = report::to_json(&r);
    assert_eq!(r.overview.objects, 1_013_573);
    assert_eq!(r.histogram.len() as u64, r.overview.classes);
    assert!(r.top_dominators.len() <= 100);
    let s = &r.leak_suspects.suspects[0];
    assert!(s.accumulation_point.is_none(), "the 1,000,000-deep chain has no accumulation point within 1000 steps");
    assert_eq!(s.chain.len(), 40, "chain capped at 40 entries");
    assert_eq!(s.chain_omitted, 1001 - 40);
    assert!(json.len() < 400_000, "report JSON is {} bytes for 757 classes", json.len());
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn markdown_has_the_sections_of_mats_reports() {
    let Some(r) = report_of("s03_threadlocal_leak_serial", "dumps") else { return };
    let md = markdown::render(&r);
    for needle in [
        "# Heap dump analysis: s03\\_threadlocal\\_leak\\_serial.hprof.gz",
        "## System Overview",
        "### Heap Summary",
        "| Used heap | 15,296,832 bytes",
        "### GC Roots by Type",
        "| System Class | 755 |",
        "### Unreachable Objects",
        "### Classes by Retained Heap",
        "## Leak Suspects",
        "### Problem Suspect 1",
        "### Problem Suspect 2",
        "java.lang.Thread @ 0xfd5e09a0",
        "**Accumulation point:** byte\\[\\]\\[\\] @ 0xfd5edd58",
        "## Top Consumers",
        "### Biggest Packages",
    ] {
        assert!(md.contains(needle), "Markdown lacks {needle:?}:\n{md}");
    }
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn android_roots_keep_their_own_names_with_mats_beside() {
    let Some(r) = report_of("ahat_test_dump_8e3b7d7", "android") else { return };
    assert_eq!(r.dump.platform, "Android");
    assert_eq!(r.dump.format, "JAVA PROFILE 1.0.3");
    let get =
        |n: &str| r.overview.gc_roots_by_type.iter().find(|t| t.name == n).map(|t| (t.mat_name.clone(), t.objects));
    assert_eq!(get("Interned String"), Some(("Unknown".into(), 246)));
    assert_eq!(get("Debugger"), Some(("Unknown".into(), 107)));
    assert_eq!(get("VM Internal"), Some(("Unknown".into(), 7)));
    assert_eq!(get("System Class"), Some(("System Class".into(), 1106)));
}

/// The tags of an HTML text, in order (`<p class="x">` gives "p", `</p>` gives "/p").
fn tags(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find(|c: char| c.is_whitespace() || c == '>').unwrap_or(rest.len());
        out.push(rest[..end].to_ascii_lowercase());
    }
    out
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn html_report_has_the_markdown_content_and_only_its_own_markup() {
    let Some(mut r) = report_of("s03_threadlocal_leak_serial", "dumps") else { return };
    let page = html::render(&r);
    for needle in [
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        "<title>Heap dump analysis: s03_threadlocal_leak_serial.hprof.gz</title>",
        "<h2>System Overview</h2>",
        "<tr><td>Used heap</td><td class=\"num\">15,296,832 bytes (14.6 MiB)</td></tr>",
        "<tr><td>System Class</td><td class=\"num\">755</td></tr>",
        "<h3>Problem Suspect 2</h3>",
        "<p><strong>Accumulation point:</strong> byte[][] @ 0xfd5edd58 — retains",
        "<h3>Biggest Packages</h3>",
    ] {
        assert!(page.contains(needle), "HTML lacks {needle:?}:\n{page}");
    }
    // Same blocks as the Markdown: one table per Markdown table.
    let md = markdown::render(&r);
    assert_eq!(page.matches("<table>").count(), md.matches("\n|---").count() + md.matches("\n|--:").count());

    // Names from the dump that are markup stay text.
    let hostile = "<script>alert(1)</script><img src=x onerror=\"alert(2)\">' & \"";
    r.histogram[0].class_name = hostile.into();
    r.leak_suspects.suspects[0].description = hostile.into();
    r.source.file_name = Some(hostile.into());
    r.warnings.push(hostile.into());
    let page = html::render(&r);
    let allowed = [
        "!doctype", "html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3", "p", "strong", "table",
        "thead", "tbody", "tr", "th", "td", "ul", "li", "footer",
    ];
    for tag in tags(&page) {
        let name = tag.trim_start_matches('/');
        assert!(allowed.contains(&name), "unexpected tag <{tag}> in the HTML report");
    }
    let escaped =
        "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;&#39; &amp; &quot;";
    assert_eq!(page.matches(escaped).count(), 5, "title, heading, histogram row, suspect, warning");
}
