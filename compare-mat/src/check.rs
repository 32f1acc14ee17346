//! Field-by-field comparison of a MAT report ([`MatReport`]) with heapscope's report of
//! the same dump, into a [`Verdict`].
//!
//! What is compared with what:
//! - **Heap Dump Overview**: used heap (MAT's unit band), objects, classes, class loaders,
//!   GC roots, identifier size, compressed oops, file length, date and time (when MAT
//!   printed them in UTC) with `overview`, `dump` and `source`;
//! - **Class Histogram**: each row, keyed by its class object's address, with `histogram`
//!   (name, instances, shallow, MAT's quick retained size), its position, and the totals;
//! - **Top Consumers**: biggest objects (in order), classes, class loaders and the package
//!   tree with `top_consumers`;
//! - **Thread Overview** and each suspect's thread properties, stacks and stack locals
//!   with `threads`;
//! - **System Properties** with `system_properties` (`[{key, value}]`);
//! - **Leak suspects**: each description (index page and suspect page: what the suspect
//!   is, its retained size and share, its accumulation point), its dominator path, its
//!   accumulated objects by class, its retained-set totals, with `leak_suspects`;
//! - **every object row** of every table (paths, dominator trees, locals) with every
//!   object the report lists anywhere: class, shallow and retained size, share.
//!
//! A row present on one side only is a FAIL, unless the other side does not list such
//! rows by design; that is said, with the reason, as NoCounterpart.
//!
//! MAT shows the first rows of a long table (25 in its reports) and says so in its totals
//! row: `Total: 3 of 10 entries; 7 more`. Every table is compared on the rows MAT shows, in
//! MAT's order, and on the count where MAT prints it (the `of`); the totals' sums add up
//! all entries, shown or not. What lies beyond the rows shown (ours' further rows, a
//! property row cut off, an empty cell) is not on the page and is never a FAIL: ours' rows
//! there are Truncated when they sort after MAT's last row (a row of ours that MAT would
//! have shown among its first still FAILs), and a number MAT does not print is not
//! compared. A number MAT prints and ours differs from is a FAIL, cut or not.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::classify::{self, mat_byte_pairs, mat_string, percent, storage_band, Reason, Tier, Verdict};
use super::pages::*;
use crate::ours::{Consumer, HistogramRow, MemberGroup, ObjectRef, Report, Suspect, SuspectKind, ThreadInfo};

/// An object heapscope's report lists, and where.
#[derive(Debug, Clone)]
struct Known {
    class_name: String,
    class_of_object: Option<String>,
    shallow: u64,
    retained: u64,
    retained_bp: u32,
}

fn address_of(s: &str) -> Option<u64> {
    parse_address(s)
}

fn hex(a: u64) -> String {
    format!("0x{a:x}")
}

/// Every object the report lists (top dominators, suspects and their chains and
/// accumulated objects, top consumers, threads and their locals, growth points).
fn known_objects(r: &Report) -> BTreeMap<u64, Known> {
    let mut map = BTreeMap::new();
    let mut add = |o: &ObjectRef| {
        if let Some(a) = address_of(&o.address) {
            map.entry(a).or_insert_with(|| Known {
                class_name: o.class_name.clone(),
                class_of_object: o.class_of_object.clone(),
                shallow: o.shallow_bytes,
                retained: o.retained_bytes,
                retained_bp: o.retained_bp,
            });
        }
    };
    r.top_dominators.iter().for_each(&mut add);
    r.top_consumers.objects.iter().for_each(&mut add);
    for s in &r.leak_suspects.suspects {
        add(&s.object);
        s.accumulation_point.iter().for_each(&mut add);
        s.chain.iter().for_each(&mut add);
        s.accumulated.iter().flat_map(|g| &g.biggest).for_each(&mut add);
        s.biggest_members.iter().map(|m| &m.object).for_each(&mut add);
    }
    for t in &r.threads {
        add(&ObjectRef {
            address: t.address.clone(),
            class_name: t.class_name.clone(),
            class_of_object: None,
            shallow_bytes: t.shallow_bytes,
            retained_bytes: t.retained_bytes,
            retained_bp: t.retained_bp,
        });
        t.frames.iter().flat_map(|f| &f.locals).for_each(&mut add);
        t.other_locals.iter().for_each(&mut add);
    }
    r.growth_points.iter().map(|g| &g.accumulation_point).for_each(&mut add);
    map
}

/// What the comparison reads from our side.
pub struct Ours<'a> {
    pub report: &'a Report,
    /// The whole JSON, for sections newer than this build's model.
    pub raw: &'a Value,
    /// Some thread's name, as MAT shows it, is ours' name read as little-endian byte
    /// pairs (at least two of them): MAT read ART's one-byte strings as UTF-16.
    pub art_strings: bool,
}

/// Whether MAT's thread overview shows ours' names of ART strings as byte pairs.
pub fn art_strings(m: &MatReport, r: &Report) -> bool {
    let Some(rows) = &m.threads else { return false };
    rows.iter().any(|row| {
        r.threads.iter().any(|t| {
            address_of(&t.address) == Some(row.object.address)
                && t.name.as_deref().is_some_and(|n| {
                    let Some(shown) = row.name.as_deref() else { return false };
                    n.chars().count() >= 4 && mat_string(n) != shown && mat_byte_pairs(n).as_deref() == Some(shown)
                })
        })
    })
}

impl Ours<'_> {
    /// The dump is an Android (ART) dump, which MAT can only read converted by
    /// `hprof-conv`: ours says so (HPROF 1.0.3), or it is a converted one whose strings
    /// MAT shows as byte pairs (`art_strings`, proven on the thread names).
    fn converted(&self) -> bool {
        self.report.dump.format == "JAVA PROFILE 1.0.3" || self.art_strings
    }

    fn used(&self) -> u64 {
        self.report.overview.used_heap_bytes
    }
}

/// A string of the dump as MAT shows it: MATCH when ours renders the same, ConvertedInput
/// when MAT read a converted ART dump and ours' byte pairs render the same, Rounding when
/// MAT cut it short (`...`) after the same start.
fn dump_string(v: &mut Verdict, ours: &Ours, field: String, mat: &str, value: &str) {
    // The page is HTML: runs of white space show as one space, and none at the ends.
    let rendered = html_text(&mat_string(value));
    if rendered == mat {
        v.push(field, mat, value, Tier::Match);
    } else if let Some(pairs) = mat_byte_pairs(value).filter(|p| ours.converted() && p == mat) {
        v.explain(field, mat, value, Reason::ConvertedInput, format!("an ART dump ({}): MAT reads its one-byte strings as UTF-16 units, little-endian byte pairs of ours: {pairs:?}", ours.report.dump.format));
    } else if ours.converted()
        && mat.is_empty()
        && value.chars().count() % 2 == 1
        && mat_byte_pairs(&format!("{value} ")).is_some()
    {
        v.explain(field, mat, value, Reason::ConvertedInput, format!("an ART dump: MAT reads one-byte strings as byte pairs, and a string of odd length ({}) has no whole last pair: MAT shows none", value.chars().count()));
    } else if let Some(start) = mat.strip_suffix("...").filter(|s| !s.is_empty() && rendered.starts_with(s)) {
        v.explain(
            field,
            mat,
            value,
            Reason::Rounding,
            format!("MAT shows the first {} characters then \"...\"; ours begins with them", start.chars().count()),
        );
    } else {
        v.fail(field, mat, value);
    }
}

/// Text as an HTML page shows it: white space runs as one space, trimmed.
fn html_text(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The evidence for a number MAT's table does not print (an empty cell).
const NO_NUMBER: &str = "MAT's cell holds no number: nothing to compare";

/// A count MAT shows, against ours. A count MAT does not show (an empty cell) is not
/// compared: nothing is on the page to differ from.
fn count_field(v: &mut Verdict, field: String, mat: &Option<Shown>, ours: u64) {
    match mat {
        Some(s) if s.at_least => classify::at_least(v, field, s.value, ours),
        Some(s) => v.equal(field, s.value, ours),
        None => not_shown(v, field, ours.to_string(), None, NO_NUMBER),
    }
}

/// A field MAT's page does not show: Truncated when its table is cut (`cut`: the field is
/// beyond the rows MAT shows), else NoCounterpart with `otherwise` as the evidence.
fn not_shown(v: &mut Verdict, field: String, ours: String, cut: Option<&TotalsRow>, otherwise: &str) {
    match cut {
        Some(t) => v.explain(field, "(not shown)", ours, Reason::Truncated, t.evidence()),
        None => v.explain(field, "(not shown)", ours, Reason::NoCounterpart, otherwise),
    }
}

/// Something ours lists beyond the rows of a table MAT cut (`cut`): Truncated when it
/// sorts after the last row MAT shows (`ours_key` ≤ `mat_last`, the sort key of MAT's
/// table), else a FAIL: MAT would have shown it among its first rows.
fn beyond_cut(
    v: &mut Verdict,
    field: String,
    ours: String,
    cut: &TotalsRow,
    ours_key: u64,
    mat_last: Option<u64>,
    key_name: &str,
) {
    match mat_last {
        Some(last) if ours_key > last => v.fail(field, "missing", ours),
        Some(last) => v.explain(
            field,
            "(not shown)",
            ours,
            Reason::Truncated,
            format!("{}; ours' {key_name} {ours_key} ≤ {last}, the last row MAT shows", cut.evidence()),
        ),
        None => v.explain(field, "(not shown)", ours, Reason::Truncated, cut.evidence()),
    }
}

pub fn compare(m: &MatReport, ours: &Ours) -> Verdict {
    let mut v = Verdict::default();
    let known = known_objects(ours.report);
    overview(&mut v, m, ours);
    histogram(&mut v, m, ours);
    top_consumers(&mut v, m, ours);
    threads(&mut v, m, ours);
    system_properties(&mut v, m, ours);
    top_components(&mut v, m, ours);
    suspects(&mut v, m, ours);
    stacks(&mut v, m, ours);
    objects(&mut v, m, ours, &known);
    for u in &m.unmodeled {
        v.explain(
            format!("unmodeled table {}", u.origin),
            format!("{} rows", u.rows),
            "",
            Reason::NoCounterpart,
            "a table this comparison does not model and whose rows name no object: heapscope's report has no such list",
        );
    }
    v
}

/// Days since 1970-01-01 → (year, month 1–12, day).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// MAT's medium date and time (en_US, UTC) of a timestamp.
fn mat_date_time(ms: u64) -> (String, String) {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let secs = (ms / 1000) as i64;
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    let (h, mi, se) = (s / 3600, s / 60 % 60, s % 60);
    let h12 = if h % 12 == 0 { 12 } else { h % 12 };
    let ampm = if h < 12 { "AM" } else { "PM" };
    (format!("{} {d}, {y}", MONTHS[(mo - 1) as usize]), format!("{h12}:{mi:02}:{se:02} {ampm} UTC"))
}

fn overview(v: &mut Verdict, m: &MatReport, ours: &Ours) {
    let r = ours.report;
    let o = &r.overview;
    if m.overview.is_empty() {
        v.fail("overview", "(MAT's Heap Dump Overview)", "not found in the archive");
    }
    for (key, val) in &m.overview {
        let field = format!("overview.{key}");
        let num = parse_count(val).map(|s| s.value);
        let exact = |v: &mut Verdict, ours_n: u64| match num {
            Some(n) => v.equal(field.clone(), n, ours_n),
            None => v.fail(field.clone(), val.clone(), ours_n.to_string()),
        };
        match key.as_str() {
            "Used heap dump" => match storage_band(val) {
                Some(band) if band.contains(o.used_heap_bytes) => v.explain(
                    field,
                    val.clone(),
                    o.used_heap_bytes.to_string(),
                    Reason::Rounding,
                    format!("MAT prints bytes 1024-based with one fraction digit; {val:?} stands for {band} bytes"),
                ),
                _ => v.fail(field, val.clone(), o.used_heap_bytes.to_string()),
            },
            "Number of objects" => exact(v, o.objects),
            "Number of classes" => exact(v, o.classes),
            "Number of class loaders" => exact(v, o.class_loaders),
            "Number of GC roots" => exact(v, o.gc_roots),
            "Identifier size" => v.equal(field, val.clone(), format!("{}-bit", r.dump.id_size * 8)),
            "Compressed object pointers" => v.equal(field, val.clone(), r.dump.compressed_oops.to_string()),
            "File length" if ours.converted() => v.explain(
                field,
                val.clone(),
                r.source.hprof_bytes.to_string(),
                Reason::ConvertedInput,
                format!("ours read the ART dump itself ({}, {} bytes); MAT cannot, and read its hprof-conv'd copy", r.dump.format, r.source.hprof_bytes),
            ),
            "File length" => exact(v, r.source.hprof_bytes),
            // MAT prints them in its own time zone: comparable when that is UTC.
            "Date" | "Time" if m.overview.iter().any(|(k, t)| k == "Time" && t.ends_with(" UTC")) => {
                let (date, time) = mat_date_time(r.dump.timestamp_ms);
                let mine = if key == "Date" { date } else { time };
                let norm = |s: &str| s.replace(['\u{202f}', '\u{a0}'], " ");
                v.equal(field, norm(val), mine);
            }
            _ => v.explain(field, val.clone(), "", Reason::NoCounterpart, "a property heapscope's report does not hold (MAT's parser name, JVM version text, file path, time zone other than UTC)"),
        }
    }
}

fn histogram(v: &mut Verdict, m: &MatReport, ours: &Ours) {
    let Some(h) = &m.histogram else {
        v.fail("histogram", "(MAT's Class Histogram)", "not found in the archive");
        return;
    };
    let rows = &ours.report.histogram;
    let by_address: BTreeMap<u64, usize> =
        rows.iter().enumerate().filter_map(|(i, r)| Some((address_of(&r.class_address)?, i))).collect();
    // MAT's page prints (and sorts by) the quick retained size of the class's instances and
    // its class object: ours' `retained_bytes_with_class` (a report without it: MAT's API
    // value, which then differs where a class object dominates its instances).
    let shown = |r: &HistogramRow| r.retained_bytes_with_class.unwrap_or(r.retained_bytes_min);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&x, &y| {
        let (x, y) = (&rows[x], &rows[y]);
        shown(y).cmp(&shown(x)).then(y.shallow_bytes.cmp(&x.shallow_bytes)).then(x.class_name.cmp(&y.class_name))
    });
    let position: BTreeMap<usize, usize> = order.iter().enumerate().map(|(p, &j)| (j, p)).collect();
    for (i, row) in h.rows.iter().enumerate() {
        let key = format!("histogram[{}]", row.name);
        let Some(&j) = row.address.and_then(|a| by_address.get(&a)) else {
            v.fail(format!("{key} ({})", row.address.map(hex).unwrap_or_default()), "row", "missing");
            continue;
        };
        let ours_row = &rows[j];
        v.equal(format!("{key}.class"), row.name.clone(), ours_row.class_name.clone());
        count_field(v, format!("{key}.instances"), &row.objects, ours_row.instances);
        count_field(v, format!("{key}.shallow"), &row.shallow, ours_row.shallow_bytes);
        // `>= N` is MAT's quick retained size of the instances and the class object: ours
        // holds that same number, exactly.
        match &row.retained {
            Some(s) => v.equal(format!("{key}.retained (MAT's quick value, >= shown)"), s.value, shown(ours_row)),
            None => not_shown(v, format!("{key}.retained"), shown(ours_row).to_string(), None, NO_NUMBER),
        }
        // Position: the same class at the same place (ours' rows ordered as MAT's page
        // orders them), or a class with the same sort key.
        let field = format!("histogram#{}.order", i + 1);
        match order.get(i).map(|&k| &rows[k]) {
            Some(at) if at.class_address == ours_row.class_address => {
                v.push(field, row.name.clone(), at.class_name.clone(), Tier::Match)
            }
            Some(at) if row.retained.as_ref().is_some_and(|s| s.value == shown(at)) => v.explain(
                field,
                row.name.clone(),
                at.class_name.clone(),
                Reason::TieBreak,
                format!(
                    "both retain {} (the sort key); ours lists {} at #{}",
                    shown(at),
                    row.name,
                    position.get(&j).map_or(0, |p| p + 1)
                ),
            ),
            Some(at) => v.fail(field, row.name.clone(), at.class_name.clone()),
            None => v.fail(field, row.name.clone(), "(no row)"),
        }
    }
    // MAT shows the first rows (compared above, in order) and says how many there are.
    for t in &h.totals {
        v.equal("histogram.total entries", t.entries(), rows.len() as u64);
        for (col, s) in &t.values {
            match col.as_str() {
                "Objects" => v.equal("histogram.total objects", s.value, rows.iter().map(|r| r.instances).sum::<u64>()),
                "Shallow Heap" => {
                    v.equal("histogram.total shallow", s.value, rows.iter().map(|r| r.shallow_bytes).sum::<u64>())
                }
                _ => v.explain(
                    format!("histogram.total {col}"),
                    s.text.clone(),
                    "",
                    Reason::NoCounterpart,
                    "a total MAT prints for this column",
                ),
            }
        }
    }
}

/// Compares a table of named groups with ours' consumers (name, objects, retained, bp).
fn consumers(v: &mut Verdict, ours: &Ours, what: &str, mat: &GroupTable, list: &[Consumer]) {
    let used = ours.used();
    let mut seen = BTreeSet::new();
    for row in &mat.rows {
        let key = format!("top_consumers.{what}[{}]", row.name);
        let Some(c) = list.iter().find(|c| c.name == row.name) else {
            v.fail(key, "row", "missing");
            continue;
        };
        seen.insert(c.name.clone());
        count_field(v, format!("{key}.objects"), &row.objects, c.objects);
        count_field(v, format!("{key}.retained"), &row.retained, c.retained_bytes);
        if let Some(p) = &row.percent {
            percent(v, format!("{key}.retained %"), p, c.retained_bp, c.retained_bytes, used);
        }
        if let Some(s) = &row.shallow {
            v.explain(
                format!("{key}.shallow"),
                s.text.clone(),
                "",
                Reason::NoCounterpart,
                "heapscope's consumers hold objects and retained size, not the shallow sum",
            );
        }
    }
    let cut = mat.cut();
    let mat_last = mat.rows.iter().filter_map(|r| r.retained.as_ref().map(|s| s.value)).min();
    for c in list.iter().filter(|c| !seen.contains(&c.name)) {
        let key = format!("top_consumers.{what}[{}]", c.name);
        let ours = format!("{} objects, {} retained", c.objects, c.retained_bytes);
        match cut {
            Some(t) => beyond_cut(v, key, ours, t, c.retained_bytes, mat_last, "retained size"),
            None => v.fail(key, "missing", ours),
        }
    }
    if let Some(t) = cut {
        v.equal(format!("top_consumers.{what}.total entries"), t.entries(), list.len() as u64);
    }
    for t in &mat.totals {
        // A cut table's totals add up all its entries, not only the rows shown.
        let rows: Vec<_> = list.iter().filter(|c| cut.is_some() || mat.rows.iter().any(|r| r.name == c.name)).collect();
        for (col, s) in &t.values {
            let key = format!("top_consumers.{what}.total {col}");
            match col.as_str() {
                "Number of Objects" => v.equal(key, s.value, rows.iter().map(|c| c.objects).sum::<u64>()),
                "Retained Heap Size" => v.equal(key, s.value, rows.iter().map(|c| c.retained_bytes).sum::<u64>()),
                _ => v.explain(
                    key,
                    s.text.clone(),
                    "",
                    Reason::NoCounterpart,
                    "heapscope's consumers hold objects and retained size, not the shallow sum",
                ),
            }
        }
    }
}

fn top_consumers(v: &mut Verdict, m: &MatReport, ours: &Ours) {
    let t = &ours.report.top_consumers;
    let used = ours.used();
    match &m.biggest_objects {
        None => v.fail("top_consumers.objects", "(MAT's Biggest Objects)", "not found in the archive"),
        Some(rows) => {
            // MAT shows the first rows of its list; its count is its totals row's (`Total: 25
            // of 43 entries; 18 more`: 43), or the rows when it prints none (a single row).
            let totals = top_totals(&m.biggest_objects_totals);
            let count = totals.map_or(rows.len() as u64, TotalsRow::entries);
            v.equal("top_consumers.objects count", count, t.objects.len() as u64);
            if let Some(cut) = totals.filter(|c| c.cut()) {
                let last = rows.iter().filter_map(|r| r.retained.as_ref().map(|s| s.value)).min();
                for (i, o) in t.objects.iter().enumerate().skip(rows.len()) {
                    let ours = format!("{} {} ({} retained)", o.class_name, o.address, o.retained_bytes);
                    let key = format!("top_consumers.objects#{}", i + 1);
                    beyond_cut(v, key, ours, cut, o.retained_bytes, last, "retained size");
                }
            }
            for (i, row) in rows.iter().enumerate() {
                let key = format!("top_consumers.objects#{}", i + 1);
                match t.objects.get(i) {
                    None => v.fail(key, hex(row.object.address), "missing"),
                    Some(o) => {
                        v.equal(format!("{key}.address"), hex(row.object.address), o.address.clone());
                        object_fields(v, &key, row, &known_of(o), used);
                    }
                }
            }
        }
    }
    match &m.top_classes {
        Some(g) => consumers(v, ours, "classes", g, &t.classes),
        None => {
            v.fail("top_consumers.classes", "(MAT's Biggest Top-Level Dominator Classes)", "not found in the archive")
        }
    }
    match &m.top_loaders {
        Some(g) => consumers(v, ours, "class_loaders", g, &t.class_loaders),
        None => v.fail(
            "top_consumers.class_loaders",
            "(MAT's Biggest Top-Level Dominator Class Loaders)",
            "not found in the archive",
        ),
    }
    match &m.top_packages {
        Some(g) => packages(v, ours, g),
        None => {
            v.fail("top_consumers.packages", "(MAT's Biggest Top-Level Dominator Packages)", "not found in the archive")
        }
    }
}

fn packages(v: &mut Verdict, ours: &Ours, g: &GroupTable) {
    let list = &ours.report.top_consumers.packages;
    let used = ours.used();
    let Some(root) = g.rows.first() else {
        v.fail("top_consumers.packages", "(empty)", format!("{} rows", list.len()));
        return;
    };
    // The root `<all>`: every top-level dominator.
    count_field(v, "top_consumers.packages[<all>].retained".into(), &root.retained, used);
    count_field(
        v,
        "top_consumers.packages[<all>].top dominators".into(),
        &root.objects,
        ours.report.overview.top_level_dominators,
    );
    let package_icon = root.icon.clone();
    let mut path: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for row in &g.rows[1..] {
        path.truncate(row.depth.saturating_sub(1));
        let full = if path.is_empty() { row.name.clone() } else { format!("{}.{}", path.join("."), row.name) };
        path.push(row.name.clone());
        let key = format!("top_consumers.packages[{full}]");
        if row.icon != package_icon {
            let retained = row.retained.as_ref().map(|s| s.text.clone()).unwrap_or_default();
            v.explain(key, retained, "", Reason::NoCounterpart, "a class leaf of MAT's package tree (other icon than the packages'): heapscope's package list holds packages only");
            continue;
        }
        let Some(c) = list.iter().find(|c| c.name == full) else {
            v.fail(key, "row", "missing");
            continue;
        };
        seen.insert(full.clone());
        count_field(v, format!("{key}.retained"), &row.retained, c.retained_bytes);
        count_field(v, format!("{key}.top dominators"), &row.objects, c.objects);
        if let Some(p) = &row.percent {
            percent(v, format!("{key}.retained %"), p, c.retained_bp, c.retained_bytes, used);
        }
    }
    for c in list.iter().filter(|c| !seen.contains(&c.name)) {
        let key = format!("top_consumers.packages[{}]", c.name);
        let ours_text = format!("{} objects, {} retained", c.objects, c.retained_bytes);
        if c.name == "<default package>" {
            v.explain(key, "", ours_text, Reason::NoCounterpart, "MAT puts classes without a package (and primitive arrays) directly under <all> as class leaves; heapscope sums them as <default package>");
        } else if let Some(cut) = g.any_cut() {
            // MAT cut a level of its tree: a package beyond the rows shown there.
            let last = g.rows.iter().filter_map(|r| r.retained.as_ref().map(|s| s.value)).min();
            beyond_cut(v, key, ours_text, cut, c.retained_bytes, last, "retained size");
        } else {
            v.fail(key, "missing", ours_text);
        }
    }
    if !g.totals.is_empty() {
        v.explain(
            "top_consumers.packages totals",
            format!("{} total rows", g.totals.len()),
            "",
            Reason::NoCounterpart,
            "sums of the rows shown above each total, each of which is compared on its own",
        );
    }
}

fn known_of(o: &ObjectRef) -> Known {
    Known {
        class_name: o.class_name.clone(),
        class_of_object: o.class_of_object.clone(),
        shallow: o.shallow_bytes,
        retained: o.retained_bytes,
        retained_bp: o.retained_bp,
    }
}

/// Class, shallow, retained and share of one object row against one of ours' objects.
fn object_fields(v: &mut Verdict, key: &str, row: &ObjectRow, k: &Known, used: u64) {
    match row.object.class_object_of() {
        Some(c) => v.equal(
            format!("{key}.class"),
            format!("class {c}"),
            format!("class {}", k.class_of_object.as_deref().unwrap_or(&k.class_name)),
        ),
        None => v.equal(format!("{key}.class"), row.object.class_name(), k.class_name.clone()),
    }
    if row.shallow.is_some() {
        count_field(v, format!("{key}.shallow"), &row.shallow, k.shallow);
    }
    if row.retained.is_some() {
        count_field(v, format!("{key}.retained"), &row.retained, k.retained);
    }
    if let Some(p) = &row.percent {
        percent(v, format!("{key}.retained %"), p, k.retained_bp, k.retained, used);
    }
}

fn thread_fields(v: &mut Verdict, ours: &Ours, key: &str, row: &ThreadRow, t: &ThreadInfo) {
    // What MAT's table does not show (a property after the rows of a cut table, a column
    // the table lacks) is not compared.
    let absent = |v: &mut Verdict, what: &str, mine: String| {
        not_shown(
            v,
            format!("{key}.{what}"),
            mine,
            row.cut.as_ref(),
            "MAT's thread table shows no such column or property",
        )
    };
    let mine_name = t.name.as_deref().unwrap_or("");
    match &row.name {
        Some(name) => dump_string(v, ours, format!("{key}.name"), name, mine_name),
        None => absent(v, "name", mine_name.to_string()),
    }
    v.equal(format!("{key}.class"), row.object.label.clone(), t.class_name.clone());
    for (what, shown, mine) in
        [("shallow", &row.shallow, t.shallow_bytes), ("retained", &row.retained, t.retained_bytes)]
    {
        match (shown, &row.cut) {
            (None, Some(_)) => absent(v, what, mine.to_string()),
            _ => count_field(v, format!("{key}.{what}"), shown, mine),
        }
    }
    let texts = [
        ("context class loader", &row.context_class_loader, t.context_class_loader.clone().unwrap_or_default()),
        ("daemon", &row.daemon, t.daemon.map(|d| d.to_string()).unwrap_or_default()),
        ("priority", &row.priority, t.priority.map(|p| p.to_string()).unwrap_or_default()),
    ];
    for (what, shown, mine) in texts {
        match shown {
            Some(text) => v.equal(format!("{key}.{what}"), text.clone(), mine),
            None => absent(v, what, mine),
        }
    }
    for (what, text) in [("state", &row.state), ("state value", &row.state_value)] {
        if let Some(text) = text.as_ref().filter(|t| !t.is_empty()) {
            v.explain(
                format!("{key}.{what}"),
                text.clone(),
                "",
                Reason::NoCounterpart,
                "heapscope's thread overview does not decode the thread status",
            );
        }
    }
    if let Some(s) = &row.max_locals_retained {
        v.explain(
            format!("{key}.max locals retained"),
            s.text.clone(),
            "",
            Reason::NoCounterpart,
            "heapscope lists each local with its retained size, not their maximum",
        );
    }
}

fn find_thread<'a>(ours: &'a Ours, address: u64) -> Option<&'a ThreadInfo> {
    ours.report.threads.iter().find(|t| address_of(&t.address) == Some(address))
}

fn threads(v: &mut Verdict, m: &MatReport, ours: &Ours) {
    let Some(rows) = &m.threads else {
        v.fail("threads", "(MAT's Thread Overview)", "not found in the archive");
        return;
    };
    let mut seen = BTreeSet::new();
    for row in rows {
        let key = format!("threads[{}]", hex(row.object.address));
        match find_thread(ours, row.object.address) {
            None => v.fail(key, row.name.clone().unwrap_or_default(), "missing"),
            Some(t) => {
                seen.insert(row.object.address);
                thread_fields(v, ours, &key, row, t);
            }
        }
    }
    // A cut overview (`Total: 3 of 10 entries; 7 more`) shows the threads retaining most:
    // ours' others must sort after its last row.
    let totals = top_totals(&m.threads_totals);
    let cut = totals.filter(|t| t.cut());
    let last = rows.iter().filter_map(|r| r.retained.as_ref().map(|s| s.value)).min();
    for t in &ours.report.threads {
        if !address_of(&t.address).is_some_and(|a| seen.contains(&a)) {
            let key = format!("threads[{}]", t.address);
            let name = t.name.clone().unwrap_or_default();
            match cut {
                Some(c) => beyond_cut(v, key, name, c, t.retained_bytes, last, "retained heap"),
                None => v.fail(key, "missing", name),
            }
        }
    }
    // The totals row adds up every entry, shown or not.
    if let Some(t) = totals {
        for (col, s) in &t.values {
            let key = format!("threads.total {col}");
            match col.as_str() {
                "Shallow Heap" => {
                    v.equal(key, s.value, ours.report.threads.iter().map(|t| t.shallow_bytes).sum::<u64>())
                }
                "Retained Heap" => {
                    v.equal(key, s.value, ours.report.threads.iter().map(|t| t.retained_bytes).sum::<u64>())
                }
                _ => v.explain(
                    key,
                    s.text.clone(),
                    "",
                    Reason::NoCounterpart,
                    "a total of a column heapscope does not hold",
                ),
            }
        }
        v.equal("threads.total entries", t.entries(), ours.report.threads.len() as u64);
    }
    for row in &m.thread_properties {
        let key = format!("thread properties[{}] ({})", hex(row.object.address), row.origin.page);
        match find_thread(ours, row.object.address) {
            None => v.fail(key, row.name.clone().unwrap_or_default(), "missing"),
            Some(t) => thread_fields(v, ours, &key, row, t),
        }
    }
}

fn system_properties(v: &mut Verdict, m: &MatReport, ours: &Ours) {
    let Some(rows) = &m.system_properties else {
        if ours.raw.get("system_properties").is_some() {
            v.explain(
                "system_properties",
                "",
                "present",
                Reason::NoCounterpart,
                "this MAT report has no System Properties page",
            );
        }
        return;
    };
    let Some(list) = ours.raw.get("system_properties").and_then(Value::as_array) else {
        for (k, val) in rows {
            v.fail(
                format!("system_properties[{k}]"),
                val.clone(),
                "missing (the report has no system_properties section)",
            );
        }
        return;
    };
    let mine: Vec<(String, String)> = list
        .iter()
        .filter_map(|e| {
            Some((
                e.get("key")?.as_str()?.to_string(),
                e.get("value").and_then(Value::as_str).unwrap_or("").to_string(),
            ))
        })
        .collect();
    let mut seen = BTreeSet::new();
    for (k, val) in rows {
        let key = format!("system_properties[{k}]");
        // MAT shows keys rendered like values: find ours by its rendering.
        match mine.iter().position(|(mk, _)| {
            mk == k || mat_string(mk) == *k || (ours.converted() && mat_byte_pairs(mk).as_deref() == Some(k))
        }) {
            None => v.fail(key, val.clone(), "missing"),
            Some(i) => {
                seen.insert(i);
                dump_string(v, ours, key, val, &mine[i].1);
            }
        }
    }
    for (i, (k, val)) in mine.iter().enumerate() {
        if !seen.contains(&i) {
            let key = format!("system_properties[{k}]");
            match &m.system_properties_cut {
                Some(cut) => v.explain(key, "(not shown)", val.clone(), Reason::Truncated, cut.evidence()),
                None => v.fail(key, "missing", val.clone()),
            }
        }
    }
    if let Some(cut) = &m.system_properties_cut {
        v.equal("system_properties.total entries", cut.entries(), mine.len() as u64);
    }
}

fn top_components(v: &mut Verdict, m: &MatReport, ours: &Ours) {
    if let Some(tc) = ours.raw.get("top_components") {
        let n = tc.as_array().map(Vec::len).unwrap_or(0);
        let _ = m;
        v.explain(
            "top_components",
            "",
            format!("{n} entries"),
            Reason::NoCounterpart,
            "MAT's Leak Suspects report has no Top Components page (that is MAT's separate top_components report)",
        );
    }
}

fn ap_text(o: &ObjectRef) -> String {
    format!(
        "{} {} ({} retained)",
        o.class_of_object.as_ref().map(|c| format!("class {c}")).unwrap_or_else(|| o.class_name.clone()),
        o.address,
        o.retained_bytes
    )
}

fn suspects(v: &mut Verdict, m: &MatReport, ours: &Ours) {
    let list = &ours.report.leak_suspects.suspects;
    let used = ours.used();
    let numbers: BTreeSet<usize> =
        m.descriptions.iter().map(|d| d.number).chain(m.suspect_pages.iter().map(|p| p.number)).collect();
    v.equal("leak_suspects count", numbers.len() as u64, list.len() as u64);
    for d in &m.descriptions {
        let key = format!("suspect#{} ({})", d.number, d.origin.page);
        let Some(s) = list.get(d.number - 1) else {
            v.fail(key, "suspect", "missing");
            continue;
        };
        let single = s.kind == SuspectKind::SingleObject;
        match &d.subject {
            SuspectSubject::Class { class, loader } => {
                v.equal(
                    format!("{key}.kind"),
                    "single_object (a class)",
                    if single { "single_object (a class)" } else { "group_of_objects" },
                );
                v.equal(
                    format!("{key}.class"),
                    class.clone(),
                    s.represented_class.clone().unwrap_or_else(|| format!("(not a class object: {})", s.class_name)),
                );
                v.equal(format!("{key}.loader"), loader.clone(), s.represented_loader.clone().unwrap_or_default());
            }
            SuspectSubject::Thread { object } => {
                v.equal(
                    format!("{key}.kind"),
                    "single_object",
                    if single { "single_object" } else { "group_of_objects" },
                );
                v.equal(format!("{key}.object"), hex(object.address), s.object.address.clone());
                v.equal(format!("{key}.class"), object.label.clone(), s.class_name.clone());
            }
            SuspectSubject::Loader { object, label } => {
                v.equal(
                    format!("{key}.kind"),
                    "single_object",
                    if single { "single_object" } else { "group_of_objects" },
                );
                match object {
                    Some(o) => v.equal(format!("{key}.object"), hex(o.address), s.object.address.clone()),
                    None => v.fail(format!("{key}.object"), label.clone(), s.object.address.clone()),
                }
            }
            SuspectSubject::Instance { class, loader } => {
                v.equal(
                    format!("{key}.kind"),
                    "single_object",
                    if single { "single_object" } else { "group_of_objects" },
                );
                v.equal(format!("{key}.class"), class.clone(), s.class_name.clone());
                v.equal(format!("{key}.loader"), loader.clone(), s.loader.clone());
            }
            SuspectSubject::Group { count, class, loader } => {
                v.equal(
                    format!("{key}.kind"),
                    "group_of_objects",
                    if single { "single_object" } else { "group_of_objects" },
                );
                v.equal(format!("{key}.class"), class.clone(), s.class_name.clone());
                v.equal(format!("{key}.loader"), loader.clone(), s.loader.clone());
                v.equal(format!("{key}.instances"), *count, s.instances);
            }
            SuspectSubject::Other { text } => v.fail(format!("{key}.description"), text.clone(), s.description.clone()),
        }
        match &d.retained {
            Some((bytes, pct)) => {
                v.equal(format!("{key}.retained"), *bytes, s.retained_bytes);
                percent(v, format!("{key}.retained %"), pct, s.retained_bp, s.retained_bytes, used);
            }
            None => v.fail(format!("{key}.retained"), "(no size)", s.retained_bytes.to_string()),
        }
        match (&d.accumulation_point, &s.accumulation_point) {
            (Some(ap), Some(o)) => {
                let k = format!("{key}.accumulation_point");
                if ap.is_class {
                    v.equal(
                        format!("{k}.class"),
                        format!("class {}", ap.class),
                        format!("class {}", o.class_of_object.as_deref().unwrap_or(&o.class_name)),
                    );
                } else {
                    v.equal(format!("{k}.class"), ap.class.clone(), o.class_name.clone());
                }
                v.equal(format!("{k}.retained"), ap.retained, o.retained_bytes);
                percent(v, format!("{k}.retained %"), &ap.percent, o.retained_bp, o.retained_bytes, used);
                v.explain(
                    format!("{k}.loader"),
                    ap.loader.clone(),
                    "",
                    Reason::NoCounterpart,
                    "heapscope's accumulation point names its class, not the class's loader",
                );
            }
            (Some(ap), None) => {
                v.fail(format!("{key}.accumulation_point"), format!("{} ({} retained)", ap.class, ap.retained), "none")
            }
            (None, Some(o)) => v.fail(format!("{key}.accumulation_point"), "none", ap_text(o)),
            (None, None) => v.push(format!("{key}.accumulation_point"), "none", "none", Tier::Match),
        }
        for r in &d.retains {
            let k = format!("{key}.local {}", hex(r.object.address));
            let known = known_objects(ours.report);
            match known.get(&r.object.address) {
                Some(o) => {
                    v.equal(format!("{k}.retained"), r.retained, o.retained);
                    percent(v, format!("{k}.retained %"), &r.percent, o.retained_bp, o.retained, used);
                }
                None => v.fail(k, r.retained.to_string(), "missing"),
            }
        }
    }
    for p in &m.suspect_pages {
        let key = format!("suspect#{} ({})", p.number, p.page);
        let Some(s) = list.get(p.number - 1) else { continue };
        // The dominator path from the suspect down to the accumulation point (selected).
        if s.kind == SuspectKind::SingleObject && s.chain_omitted == 0 {
            if let Some(sel) = p.dominator_tree.iter().position(|r| r.selected) {
                let mat_chain: Vec<String> = p.dominator_tree[..=sel].iter().map(|r| hex(r.object.address)).collect();
                let mine: Vec<String> = s.chain.iter().map(|o| o.address.clone()).collect();
                v.equal(format!("{key}.chain"), mat_chain.join(" → "), mine.join(" → "));
            }
        }
        // Accumulated objects by class: the objects the accumulation point dominates
        // directly. Without a point MAT groups the suspect's own; ours has no such list.
        let Some(ap) = &s.accumulation_point else {
            for row in &p.by_class.rows {
                v.explain(format!("{key}.accumulated[{}]", row.name), row.retained.as_ref().map(|r| r.text.clone()).unwrap_or_default(), "", Reason::NoCounterpart, "no accumulation point: MAT groups the suspect's own dominated objects, heapscope groups an accumulation point's only");
            }
            retained_set_total(v, &format!("{key}.suspect's retained set"), &p.retained_set, Some(s.retained_bytes));
            suspect_objects(v, &key, p, s);
            continue;
        };
        accumulated(v, &key, &p.by_class, &s.accumulated);
        // The retained set of the accumulation point: its shallow total is the point's retained size.
        retained_set_total(
            v,
            &format!("{key}.accumulation point's retained set"),
            &p.retained_set,
            Some(ap.retained_bytes),
        );
        suspect_objects(v, &key, p, s);
    }
}

/// How many groups each side lists at most (MAT's table and heapscope's `accumulated`).
const ACCUMULATED_CAP: usize = 20;

/// MAT's "Accumulated Objects by Class in Dominator Tree" against ours' groups. Both lists
/// stop at [`ACCUMULATED_CAP`] groups: a group one side lists and the other does not is a
/// tie when it retains exactly as much as the smallest group of the full list.
fn accumulated(v: &mut Verdict, key: &str, mat: &GroupTable, list: &[MemberGroup]) {
    let retained = |r: &GroupRow| r.retained.as_ref().map(|x| x.value);
    let mat_min = mat.rows.iter().filter_map(retained).min();
    let ours_min = list.iter().map(|g| g.retained_bytes).min();
    let mut seen = BTreeSet::new();
    for row in &mat.rows {
        let k = format!("{key}.accumulated[{}]", row.name);
        match list.iter().find(|g| g.class_name == row.name) {
            Some(g) => {
                seen.insert(g.class_name.clone());
                count_field(v, format!("{k}.objects"), &row.objects, g.objects);
                count_field(v, format!("{k}.shallow"), &row.shallow, g.shallow_bytes);
                count_field(v, format!("{k}.retained"), &row.retained, g.retained_bytes);
            }
            None if list.len() >= ACCUMULATED_CAP && retained(row).is_some() && retained(row) == ours_min => v.explain(
                k,
                row.retained.as_ref().map(|r| r.text.clone()).unwrap_or_default(),
                "",
                Reason::TieBreak,
                format!("both lists stop at {ACCUMULATED_CAP} groups; this one retains {}, as much as heapscope's smallest listed group", ours_min.unwrap_or(0)),
            ),
            None => v.fail(k, "row", "missing"),
        }
    }
    for g in list.iter().filter(|g| !seen.contains(&g.class_name)) {
        let k = format!("{key}.accumulated[{}]", g.class_name);
        let ours = format!("{} objects, {} retained", g.objects, g.retained_bytes);
        if mat.rows.len() >= ACCUMULATED_CAP && Some(g.retained_bytes) == mat_min {
            v.explain(k, "", ours, Reason::TieBreak, format!("both lists stop at {ACCUMULATED_CAP} groups; this one retains {}, as much as MAT's smallest listed group", g.retained_bytes));
        } else if let Some(cut) = mat.cut() {
            beyond_cut(v, k, ours, cut, g.retained_bytes, mat_min, "retained size");
        } else {
            v.fail(k, "missing", ours);
        }
    }
}

/// A group suspect's "Suspect Objects by Class" and the retained set of its members.
/// MAT's retained size there is the retained set of all members together, which may
/// exceed the sum of their own retained sizes (what the description and ours give,
/// compared above); it cannot be smaller.
fn suspect_objects(v: &mut Verdict, key: &str, p: &SuspectPage, s: &Suspect) {
    let joint = |v: &mut Verdict, k: String, shown: &Shown| {
        if shown.value >= s.retained_bytes {
            v.explain(k, shown.text.clone(), s.retained_bytes.to_string(), Reason::NoCounterpart, format!("the retained set of the {} members together; heapscope holds the sum of their own retained sizes, {} ≤ {}", s.instances, s.retained_bytes, shown.value));
        } else {
            v.fail(
                k,
                shown.text.clone(),
                format!("{} (the members' own retained sizes add up to more)", s.retained_bytes),
            );
        }
    };
    for row in &p.suspect_classes.rows {
        let k = format!("{key}.suspect objects[{}]", row.name);
        v.equal(format!("{k}.class"), row.name.clone(), s.class_name.clone());
        count_field(v, format!("{k}.objects"), &row.objects, s.instances);
        if let Some(r) = &row.retained {
            joint(v, format!("{k}.retained (together)"), r);
        }
        if let Some(sh) = &row.shallow {
            v.explain(
                format!("{k}.shallow"),
                sh.text.clone(),
                "",
                Reason::NoCounterpart,
                "heapscope's suspect holds its retained size, not its members' shallow sum",
            );
        }
    }
    let t = &p.suspects_retained_set;
    if let Some(total) =
        t.totals.iter().find_map(|t| t.values.iter().find(|(c, _)| c == "Shallow Heap").map(|(_, s)| s.clone()))
    {
        joint(v, format!("{key}.suspects' retained set shallow total"), &total);
    }
    if !t.rows.is_empty() {
        v.explain(
            format!("{key}.suspects' retained set ({} class rows)", t.rows.len()),
            format!("{} rows", t.rows.len()),
            "",
            Reason::NoCounterpart,
            "heapscope's report does not break a retained set down by class",
        );
    }
}

fn retained_set_total(v: &mut Verdict, key: &str, t: &GroupTable, ours: Option<u64>) {
    if t.rows.is_empty() && t.totals.is_empty() {
        return;
    }
    let total = t.totals.iter().find_map(|t| t.values.iter().find(|(c, _)| c == "Shallow Heap").map(|(_, s)| s.value));
    // A single row has no totals row: its shallow sum is the total.
    let total = total.or_else(|| (t.rows.len() == 1).then(|| t.rows[0].shallow.as_ref().map(|s| s.value)).flatten());
    match (total, ours) {
        (Some(m), Some(o)) => v.equal(format!("{key} shallow total"), m, o),
        (Some(m), None) => v.fail(format!("{key} shallow total"), m.to_string(), "none"),
        (None, _) => {}
    }
    v.explain(
        format!("{key} ({} class rows)", t.rows.len()),
        format!("{} rows", t.rows.len()),
        "",
        Reason::NoCounterpart,
        "heapscope's report does not break a retained set down by class; its total is compared above",
    );
}

fn stacks(v: &mut Verdict, m: &MatReport, ours: &Ours) {
    for st in &m.stacks {
        let key = format!("stack ({})", st.origin);
        // `Class @ 0x… : name` names the thread; a bare name is matched by name.
        let by_address = st
            .title
            .split_once(" : ")
            .and_then(|(obj, _)| parse_object_name(obj))
            .and_then(|o| find_thread(ours, o.address));
        let name = st.title.split_once(" : ").map(|(_, n)| n).unwrap_or(&st.title).to_string();
        let frames_of = |t: &ThreadInfo| t.frames.iter().map(|f| f.frame.clone()).collect::<Vec<_>>();
        let rendered = |t: &ThreadInfo| {
            let n = t.name.as_deref().unwrap_or("");
            mat_string(n) == name || (ours.converted() && mat_byte_pairs(n).as_deref() == Some(name.as_str()))
        };
        let candidates: Vec<&ThreadInfo> = match by_address {
            Some(t) => vec![t],
            None => ours.report.threads.iter().filter(|t| rendered(t)).collect(),
        };
        let thread = candidates.iter().find(|t| frames_of(t) == st.frames).or(candidates.first());
        match thread {
            None => v.fail(key, st.title.clone(), "no thread of that name"),
            Some(t) => {
                v.equal(format!("{key}.frames"), st.frames.len() as u64, t.frames.len() as u64);
                for (i, f) in st.frames.iter().enumerate() {
                    v.equal(
                        format!("{key}.frame#{}", i + 1),
                        f.clone(),
                        t.frames.get(i).map(|x| x.frame.clone()).unwrap_or_default(),
                    );
                }
            }
        }
    }
    for sl in &m.stack_locals {
        let key = format!("stack locals ({})", sl.origin);
        let Some(t) = sl.thread.as_ref().and_then(|o| find_thread(ours, o.address)) else {
            v.fail(key, sl.thread.as_ref().map(|o| hex(o.address)).unwrap_or_default(), "missing");
            continue;
        };
        // A cut stack shows its first frames (compared in order) and says how many there are.
        let frames = sl.frames_cut.as_ref().map_or(sl.frames.len() as u64, TotalsRow::entries);
        v.equal(format!("{key}.frames"), frames, t.frames.len() as u64);
        for (i, frame) in sl.frames.iter().enumerate() {
            let k = format!("{key}.frame#{}", i + 1);
            let Some(f) = t.frames.get(i) else {
                v.fail(k, frame.text.clone(), "missing");
                continue;
            };
            v.equal(k.clone(), frame.text.clone(), f.frame.clone());
            let mut mine: Vec<String> = f.locals.iter().map(|o| o.address.clone()).collect();
            mine.sort();
            if frame.collapsed && !mine.is_empty() {
                v.explain(format!("{k}.locals"), "(collapsed: \"All objects\" link)", mine.join(" "), Reason::NoCounterpart, "MAT's page links this frame's locals without listing them (only the significant frame is expanded)");
                continue;
            }
            let mut mat: Vec<String> = frame.locals.iter().map(|r| hex(r.object.address)).collect();
            mat.sort();
            match &frame.locals_cut {
                // MAT shows some of the frame's locals: each is one of ours, and the count is ours'.
                Some(cut) => {
                    let unknown: Vec<&String> = mat.iter().filter(|a| !mine.contains(a)).collect();
                    if unknown.is_empty() {
                        v.explain(
                            format!("{k}.locals"),
                            mat.join(" "),
                            mine.join(" "),
                            Reason::Truncated,
                            format!("{}; each local MAT shows is one of ours", cut.evidence()),
                        );
                    } else {
                        v.fail(format!("{k}.locals"), mat.join(" "), mine.join(" "));
                    }
                    v.equal(format!("{k}.locals count"), cut.entries(), mine.len() as u64);
                }
                None => v.equal(format!("{k}.locals"), mat.join(" "), mine.join(" ")),
            }
        }
    }
}

fn objects(v: &mut Verdict, m: &MatReport, ours: &Ours, known: &BTreeMap<u64, Known>) {
    let used = ours.used();
    for row in &m.objects {
        let key = format!("object {} ({})", hex(row.object.address), row.origin);
        match known.get(&row.object.address) {
            Some(k) => object_fields(v, &key, row, k, used),
            None => {
                let shown = format!(
                    "{} shallow, {} retained",
                    row.shallow.as_ref().map(|s| s.text.as_str()).unwrap_or("-"),
                    row.retained.as_ref().map(|s| s.text.as_str()).unwrap_or("-")
                );
                v.explain(key, shown, "", Reason::NoCounterpart, "heapscope's report lists this object nowhere (its object lists are bounded: top dominators, suspects' chains and biggest groups, thread locals)");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mat_dates() {
        // 2026-11-29T15:40:07Z, the time of the corpus's s02 dump as MAT printed it.
        let ms = 1_795_966_807_000;
        assert_eq!(mat_date_time(ms), ("Nov 29, 2026".to_string(), "3:40:07 PM UTC".to_string()));
        assert_eq!(mat_date_time(0), ("Jan 1, 1970".to_string(), "12:00:00 AM UTC".to_string()));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }
}
