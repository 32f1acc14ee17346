//! Duplicate strings against Eclipse MAT's (`duplicate_strings` in
//! `../shared/corpus/expected/*.json`: totals and the groups wasting the most), and against
//! a brute-force grouping of random strings in dumps built with the HPROF builder.

mod support;

use std::collections::BTreeMap;

use heapscope::analysis::{Options, Sizes};
use heapscope::waste::TOP_STRING_GROUPS;
use proptest::prelude::*;
use serde_json::Value;
use support::hprof_builder::{ClassDef, Hprof, Value as V};
use support::mat_strings;

/// Characters of a duplicate-string value MAT shows.
const TOP_VALUE_CHARS: usize = 1024;

#[test]
fn duplicate_strings_match_mat() {
    let Some(corpus) = support::corpus_dir() else { return };
    let cases = support::expected_cases(&corpus);
    support::check_every_dump_expected(&corpus, "duplicate strings");
    let mut failures = Vec::new();
    let mut groups_compared = 0;
    for (expected, dump, keep, android) in &cases {
        let name = expected.file_name().unwrap().to_string_lossy().to_string();
        let exp: Value = serde_json::from_slice(&std::fs::read(expected).unwrap()).unwrap();
        let exp = &exp["duplicate_strings"];
        let options = Options { keep_unreachable: *keep, sizes: Sizes::Mat, ..Options::default() };
        let s = support::session(support::open_dump(dump), &options).expect("analysis");
        let a = &s.analysis;
        let act = serde_json::to_value(&s.features().waste.duplicate_strings).unwrap();
        let mut out = Vec::new();
        // The waste report counts the objects the reachability walk keeps, before the tree
        // exists: they must be the tree's kept objects.
        let kept = heapscope::waste::Kept::new(&a.heap, &a.strengths, *keep).unwrap();
        let differ = (0..a.object_count() as u32).filter(|&v| kept.has(v) != a.is_kept(v)).count();
        if differ > 0 {
            out.push(format!("{differ} objects kept by the walk and not by the tree, or the reverse"));
        }
        for (e, k) in [
            ("strings", "strings"),
            ("unresolved", "unresolved"),
            ("distinct_values", "distinct_values"),
            ("duplicated_values", "duplicated_values"),
            ("total_wasted", "wasted_bytes"),
        ] {
            if exp[e] != act[k] {
                out.push(format!("{e}: expected {}, got {}", exp[e], act[k]));
            }
        }
        let before = groups_compared;
        let numbers = |g: &Value, names: [&str; 5]| names.map(|n| g[n].as_u64().unwrap_or(u64::MAX));
        let exp_top: Vec<&Value> = exp["top"].as_array().unwrap().iter().collect();
        let act_top: Vec<&Value> = act["groups"].as_array().unwrap().iter().collect();
        let want = exp_top.len().min(TOP_STRING_GROUPS);
        if act_top.len() != want {
            out.push(format!("groups listed: expected {want}, got {}", act_top.len()));
        }
        // MAT breaks ties of waste and count by value; heapscope picks its top groups before
        // reading values, so a tie across the cut may be filled by other members of the tie.
        let cut = act_top.last().map(|g| (g["wasted_bytes"].as_u64().unwrap(), g["count"].as_u64().unwrap()));
        let exp_names = ["count", "wasted", "strings_shallow", "arrays_shallow", "distinct_arrays"];
        let act_names = ["count", "wasted_bytes", "strings_shallow_bytes", "arrays_shallow_bytes", "distinct_arrays"];
        // MAT read Android dumps converted by hprof-conv and shows ART's compressed strings
        // (a byte[] value) as byte pairs: ours (the characters the program holds) are
        // turned into MAT's rendering by its rules (support::mat_strings) to be compared.
        let mut shown: Vec<(String, &Value)> = Vec::new();
        let mut session = s;
        for g in &act_top {
            let value = g["value"].as_str().unwrap();
            let mat = if *android {
                let mut units = mat_strings::unescape(value);
                let cut = units.len() == TOP_VALUE_CHARS + 3 && value.ends_with("...");
                if cut {
                    units.truncate(TOP_VALUE_CHARS);
                }
                let first = g["sample"][0]["address"].as_str().unwrap();
                let bytes = mat_strings::value_is_bytes(&mut session.analysis, first);
                if cut && bytes {
                    out.push(format!("group {value:?}: a compressed string cut at 1024 characters; MAT's pairs cannot be rebuilt from it"));
                    continue;
                }
                match mat_strings::art(&units, bytes, TOP_VALUE_CHARS) {
                    Some(m) => m + if cut { "..." } else { "" },
                    None => {
                        out.push(format!("group {value:?}: MAT shows no value for it, yet it is grouped"));
                        continue;
                    }
                }
            } else {
                value.to_string()
            };
            shown.push((mat, *g));
        }
        let by_value: BTreeMap<&str, &Value> = shown.iter().map(|(v, g)| (v.as_str(), *g)).collect();
        for (i, e) in exp_top[..want].iter().enumerate() {
            let value = e["value"].as_str().unwrap();
            match by_value.get(value) {
                Some(g) => {
                    groups_compared += 1;
                    if numbers(e, exp_names) != numbers(g, act_names) {
                        out.push(format!(
                            "group {value:?}: expected {:?}, got {:?}",
                            numbers(e, exp_names),
                            numbers(g, act_names)
                        ));
                    }
                    if shown.iter().position(|x| x.0 == value) != Some(i)
                        && cut != Some((e["wasted"].as_u64().unwrap(), e["count"].as_u64().unwrap()))
                    {
                        out.push(format!("group {value:?} is not at position {i}"));
                    }
                }
                None if cut == Some((e["wasted"].as_u64().unwrap(), e["count"].as_u64().unwrap())) => {}
                None => out.push(format!("group {value:?} ({}) missing", e["count"])),
            }
        }
        eprintln!(
            "{name}: {} groups compared (values{}, counts, sizes)",
            groups_compared - before,
            if *android { " as MAT renders ours" } else { "" }
        );
        if !out.is_empty() {
            failures.push(format!(
                "{name}: {} mismatches:\n    {}",
                out.len(),
                out[..out.len().min(12)].join("\n    ")
            ));
        }
    }
    eprintln!("duplicate strings: {groups_compared} groups compared with MAT on {} files", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A string of a generated dump: which text, whether it shares the array of an earlier
/// string with the same text, whether a GC root reaches it.
#[derive(Debug, Clone)]
struct Spec {
    text: usize,
    share: bool,
    reachable: bool,
}

/// Texts with collisions MAT's rules create: equal first 1024 characters with different
/// tails (grouped), exactly 1024 characters (not cut), non-Latin-1 text (UTF-16).
fn texts() -> Vec<Vec<u16>> {
    let s = |t: &str| t.encode_utf16().collect::<Vec<u16>>();
    let long = "ab".repeat(512);
    vec![
        s(""),
        s("main"),
        s("ALPHA-0123"),
        s("a\nb\u{7f}"),
        s("дубликат-Δ"),
        s(&long),
        s(&format!("{long}X")),
        s(&format!("{long}tail-one")),
        s(&format!("{long}tail-two")),
        s(&format!("{}Δ-long", "д".repeat(1100))),
        s(&format!("{}Δ-other", "д".repeat(1100))),
        s("\u{ff}\u{e9}latin"),
    ]
}

/// A HotSpot dump (JDK 9+ layout with `coder`, or JDK 8's `char[]` values) holding the
/// strings; reachable ones are held by an Object[] that a JNI global root names. With
/// `descending`, the value arrays come in descending address order (heap regions dumped
/// out of order: pass 2 meets them out of object order).
fn dump(specs: &[Spec], jdk8: bool, descending: bool) -> (Vec<u8>, Vec<u64>, Vec<u64>) {
    let texts = texts();
    let mut h = Hprof::new(8);
    for (id, name) in [
        (1, "java/lang/Object"),
        (2, "java/lang/String"),
        (3, "value"),
        (4, "coder"),
        (5, "[B"),
        (6, "[Ljava/lang/Object;"),
        (7, "[C"),
    ] {
        h.string(id, name);
    }
    for (serial, (class, name)) in [(0x100, 1), (0x200, 2), (0x300, 5), (0x400, 6), (0x500, 7)].into_iter().enumerate()
    {
        h.load_class(serial as u32 + 1, class, name);
    }
    let mut seg = h.segment_builder();
    let mut string = ClassDef::new(0x200, 0x100).field(3, 2);
    if !jdk8 {
        string = string.field(4, 8);
    }
    for c in [
        ClassDef::new(0x100, 0),
        string,
        ClassDef::new(0x300, 0x100),
        ClassDef::new(0x400, 0x100),
        ClassDef::new(0x500, 0x100),
    ] {
        seg.class_dump(&c);
    }
    let (mut strings, mut arrays) = (Vec::new(), Vec::new());
    for (k, spec) in specs.iter().enumerate() {
        let sid = 0x10_0000 + 0x40 * k as u64;
        let text = &texts[spec.text];
        let earlier = (0..k).find(|&j| specs[j].text == spec.text);
        let array = match (spec.share, earlier) {
            (true, Some(j)) => arrays[j],
            _ => {
                let aid = if descending { 0x300_0000 - 0x1_0000 * k as u64 } else { 0x100_0000 + 0x1_0000 * k as u64 };
                let latin1 = !jdk8 && text.iter().all(|&u| u < 256);
                let (ty, data): (u8, Vec<u8>) = if jdk8 {
                    (5, text.iter().flat_map(|u| u.to_be_bytes()).collect())
                } else if latin1 {
                    (8, text.iter().map(|&u| u as u8).collect())
                } else {
                    (8, text.iter().flat_map(|u| u.to_le_bytes()).collect())
                };
                let n = if ty == 5 { text.len() } else { data.len() };
                seg.primitive_array_header(aid, ty, n as u32).raw(&data);
                aid
            }
        };
        let coder = !jdk8 && !texts[spec.text].iter().all(|&u| u < 256);
        let mut values = vec![V::Obj(array)];
        if !jdk8 {
            values.push(V::Byte(coder as i8));
        }
        seg.instance(sid, 0x200, &values);
        strings.push(sid);
        arrays.push(array);
    }
    let held: Vec<u64> = specs.iter().zip(&strings).filter(|(s, _)| s.reachable).map(|(_, &id)| id).collect();
    seg.object_array(0x9_0000, 0x400, &held).root_jni_global(0x9_0000, 1);
    h.segment(&seg).heap_dump_end();
    (h.into_bytes(), strings, arrays)
}

/// MAT's text of a value (independent of the crate's): 32–126 as is, else `\uXXXX`, at
/// most 1024 characters, then "...".
fn mat_value(units: &[u16]) -> String {
    let mut s: String = units
        .iter()
        .take(1024)
        .map(|&u| if (32..127).contains(&u) { (u as u8 as char).to_string() } else { format!("\\u{u:04x}") })
        .collect();
    if units.len() > 1024 {
        s.push_str("...");
    }
    s
}

fn check_against_brute_force(specs: &[Spec], jdk8: bool, descending: bool) -> Result<(), TestCaseError> {
    let (bytes, strings, arrays) = dump(specs, jdk8, descending);
    let s = support::session_of(bytes);
    let a = &s.analysis;
    let texts = texts();
    // Brute force: kept strings grouped by MAT's text.
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (k, s) in specs.iter().enumerate() {
        if s.reachable {
            groups.entry(mat_value(&texts[s.text])).or_default().push(k);
        }
    }
    let obj = |id: u64| a.object_at(id).expect("object");
    let mut expected: BTreeMap<String, [u64; 5]> = BTreeMap::new();
    let mut total = 0;
    for (value, members) in &groups {
        if members.len() < 2 {
            continue;
        }
        let strings_shallow: u64 = members.iter().map(|&k| a.shallow(obj(strings[k]))).sum();
        let mut distinct: Vec<u64> = members.iter().map(|&k| arrays[k]).collect();
        distinct.sort();
        distinct.dedup();
        let arrays_shallow: u64 = distinct.iter().map(|&x| a.shallow(obj(x))).sum();
        let first = *members.iter().min_by_key(|&&k| strings[k]).unwrap();
        let wasted = strings_shallow + arrays_shallow - a.shallow(obj(strings[first])) - a.shallow(obj(arrays[first]));
        total += wasted;
        expected.insert(
            value.clone(),
            [members.len() as u64, wasted, strings_shallow, arrays_shallow, distinct.len() as u64],
        );
    }
    let d = &s.features().waste.duplicate_strings;
    let actual: BTreeMap<String, [u64; 5]> = d
        .groups
        .iter()
        .map(|g| {
            (
                g.value.clone(),
                [g.count, g.wasted_bytes, g.strings_shallow_bytes, g.arrays_shallow_bytes, g.distinct_arrays],
            )
        })
        .collect();
    prop_assert_eq!(&actual, &expected);
    prop_assert_eq!(d.strings, specs.iter().filter(|s| s.reachable).count() as u64);
    prop_assert_eq!(d.distinct_values, groups.len() as u64);
    prop_assert_eq!(d.duplicated_values, expected.len() as u64);
    prop_assert_eq!(d.wasted_bytes, total);
    prop_assert_eq!(d.unresolved, 0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn duplicate_strings_equal_brute_force_grouping(
        specs in prop::collection::vec((0usize..12, any::<bool>(), prop::bool::weighted(0.8)).prop_map(|(text, share, reachable)| Spec { text, share, reachable }), 0..40),
        jdk8 in any::<bool>(),
        descending in any::<bool>(),
    ) {
        check_against_brute_force(&specs, jdk8, descending)?;
    }
}
