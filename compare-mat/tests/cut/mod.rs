//! MAT's report pages with a table cut the way MAT cuts a long table: its first rows, then
//! the totals row `Total: K of N entries; N−K more` (its sums still over all N entries).
//! Shared by compare-mat's tests and the CLI's (`crate/tests/compare_mat.rs`).

use std::path::Path;

use compare_mat::pages::MatReport;
use compare_mat::{html, pages};

/// The HTML pages of a corpus dump's MAT report: (name, text).
pub fn mat_pages(corpus: &Path, name: &str) -> Vec<(String, String)> {
    let bytes = std::fs::read(corpus.join("expected").join(format!("{name}_Leak_Suspects.zip"))).unwrap();
    let archive = compare_mat::zip::Archive::parse(&bytes).unwrap();
    archive.read_texts(|n| n == "index.html" || (n.starts_with("pages/") && n.ends_with(".html"))).unwrap()
}

pub fn read(texts: &[(String, String)]) -> MatReport {
    let parsed: Vec<(String, html::Page)> = texts.iter().map(|(n, t)| (n.clone(), html::parse(t))).collect();
    pages::read(&parsed)
}

/// `page` with the table after `heading` cut to its first `keep` rows, its totals row
/// relabelled as MAT labels a cut table (`Total: 3 of 10 entries; 7 more`, or `of` the
/// given count) and its sums kept (MAT's totals add up every entry).
pub fn cut_table(page: &str, heading: &str, keep: usize, of: Option<u64>) -> String {
    let h = page.find(heading).unwrap_or_else(|| panic!("{heading:?} on the page"));
    let tbody = h + page[h..].find("<tbody").unwrap();
    let body_start = tbody + page[tbody..].find('>').unwrap() + 1;
    let body_end = tbody + page[tbody..].find("</tbody>").unwrap();
    let body = &page[body_start..body_end];
    let mut rows: Vec<&str> = Vec::new();
    let mut rest = body;
    while let Some(i) = rest[1..].find("<tr").map(|i| i + 1) {
        rows.push(&rest[..i]);
        rest = &rest[i..];
    }
    rows.push(rest);
    let (totals, rows): (Vec<&str>, Vec<&str>) = rows.into_iter().partition(|r| r.starts_with("<tr class=\"totals\""));
    assert_eq!(totals.len(), 1, "{heading}: one totals row");
    assert!(keep < rows.len(), "{heading}: {} rows, keep {keep}", rows.len());
    let label_at = totals[0].find("Total: ").unwrap();
    let label_end = label_at + totals[0][label_at..].find('<').unwrap();
    let n: u64 = of.unwrap_or_else(|| {
        totals[0][label_at + 7..label_end].split_whitespace().next().unwrap().replace(',', "").parse().unwrap()
    });
    let label = format!("Total: {keep} of {n} entries; {} more", n - keep as u64);
    let new_totals = format!("{}{label}{}", &totals[0][..label_at], &totals[0][label_end..]);
    format!("{}{}{}{}", &page[..body_start], rows[..keep].concat(), new_totals, &page[body_end..])
}

pub fn with_page(texts: &[(String, String)], name: &str, change: impl Fn(&str) -> String) -> Vec<(String, String)> {
    let mut out = texts.to_vec();
    let page = out.iter_mut().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} in the archive"));
    page.1 = change(&page.1);
    out
}
