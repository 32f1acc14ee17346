//! The members of a duplicate-string group and their holders (the `duplicate_string_members`
//! query the page's Waste view asks), on s09 (MANIFEST.md: 20,000 + 1 interned
//! "duplicate-string-value-ALPHA-0123456789", 5,000 "duplicate-BETA", 2,000 UTF-16
//! "дубликат-ΔΕΛΤΑ", 3,000 "shared-backing-array" sharing one byte[], held by the ArrayList
//! `STRINGS`), checked against MAT's groups (`duplicate_strings` in the expected file: value,
//! count, first member) and against an independent scan: every kept `java.lang.String`'s
//! text read back through the inspector's reading (`object` query), grouped by text; each
//! holder against a brute-force scan of every object's references.

mod support;

use std::collections::BTreeMap;

use heapscope::readback::object::object_details;
use heapscope::session::{Answer, Query, Session};
use heapscope::waste::members::GroupMembers;
use serde_json::Value;

fn members(s: &mut Session, object: &str, offset: u32, limit: u32, holders: u32) -> GroupMembers {
    match s.answer(&Query::DuplicateStringMembers { object: object.into(), offset, limit, holders }).expect("answer") {
        Answer::DuplicateStringMembers(m) => m,
        other => panic!("unexpected answer {other:?}"),
    }
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s09_group_members_match_mat_and_a_scan_of_every_string() {
    let Some(corpus) = support::corpus_dir() else { return };
    let expected: Value =
        serde_json::from_slice(&std::fs::read(corpus.join("expected/s09_duplicate_strings_serial.json")).unwrap())
            .unwrap();
    let bytes = support::gunzip(&corpus.join("dumps/s09_duplicate_strings_serial.hprof.gz"));
    let mut session = support::session_of(bytes);
    let a = &mut session.analysis;

    // The independent reading: every kept String's text through the inspector, as MAT shows it.
    let string_class: Vec<u32> =
        (0..a.class_count() as u32).filter(|&c| a.class_name(c) == "java.lang.String").collect();
    let strings: Vec<u32> =
        (0..a.object_count() as u32).filter(|&v| string_class.contains(&a.class_of(v)) && a.is_kept(v)).collect();
    assert!(strings.len() > 40_000, "s09 keeps over 41,000 strings: {}", strings.len());
    let mut by_text: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for &s in &strings {
        let d = object_details(a, s).expect("string read back");
        let Some(text) = d.text else { continue };
        by_text.entry(mat_text(&text)).or_default().push(s);
    }

    let top = expected["duplicate_strings"]["top"].as_array().unwrap();
    let mut checked = 0;
    for g in top.iter().take(8) {
        let value = g["value"].as_str().unwrap();
        let count = g["count"].as_u64().unwrap();
        // The group as the report names it: its sample's first string.
        let group = session
            .features()
            .waste
            .duplicate_strings
            .groups
            .iter()
            .find(|x| x.value == value)
            .unwrap_or_else(|| panic!("group {value:?} in the report"));
        let first = group.sample[0].address.clone();
        assert_eq!(first, g["first_object"].as_str().unwrap(), "{value:?}: the lowest-address member");
        let m = members(&mut session, &first, 0, 50, 5);
        let a = &session.analysis;
        assert_eq!(m.value, value);
        assert_eq!(m.total, count, "{value:?}: members, MAT's count");
        let scanned = &by_text[value];
        assert_eq!(scanned.len() as u64, count, "{value:?}: the scan agrees with MAT");
        let want: Vec<String> = scanned.iter().take(50).map(|&s| format!("0x{:x}", a.address(s))).collect();
        let got: Vec<String> = m.members.iter().map(|x| x.object.address.clone()).collect();
        assert_eq!(got, want, "{value:?}: the first 50 members by address");
        // A later page, from any member of the group.
        if count > 60 {
            let later = members(&mut session, &got[7], 50, 10, 0);
            let a = &session.analysis;
            let want: Vec<String> =
                scanned.iter().skip(50).take(10).map(|&s| format!("0x{:x}", a.address(s))).collect();
            assert_eq!(
                later.members.iter().map(|x| x.object.address.clone()).collect::<Vec<_>>(),
                want,
                "{value:?}: members 50..60"
            );
            assert!(later.members.iter().all(|x| x.holders.is_empty()));
        }
        // Holders: every object with a reference to the member, by a scan of all references.
        let a = &session.analysis;
        for member in m.members.iter().take(3) {
            let s =
                a.object_at(u64::from_str_radix(member.object.address.trim_start_matches("0x"), 16).unwrap()).unwrap();
            let mut holders = Vec::new();
            for v in 0..a.object_count() as u32 {
                if !a.is_kept(v) {
                    continue;
                }
                let mut refers = false;
                a.heap.refs.for_each(v, |t| refers |= t == s);
                if refers {
                    holders.push(v);
                }
            }
            assert_eq!(member.holders_total, holders.len() as u64, "{value:?}: holders of {}", member.object.address);
            assert!(member.holders.len() == holders.len().min(5));
            for h in &member.holders {
                let hv =
                    a.object_at(u64::from_str_radix(h.object.address.trim_start_matches("0x"), 16).unwrap()).unwrap();
                assert!(
                    holders.contains(&hv),
                    "{value:?}: {} does not reference {}",
                    h.object.address,
                    member.object.address
                );
                assert!(!h.via.is_empty(), "{value:?}: how {} holds the string", h.object.address);
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 8);
    // MANIFEST: the 20,000 ALPHA strings are held by STRINGS' array, one slot each.
    let alpha = session.features().waste.duplicate_strings.groups[0].sample[1].address.clone();
    let m = members(&mut session, &alpha, 0, 3, 5);
    let h = &m.members[1].holders[0];
    assert_eq!(h.object.class_name, "java.lang.Object[]");
    assert!(h.via[0].starts_with('['), "an array slot: {:?}", h.via);

    // Not a string: an error saying so, not a panic.
    let q = Query::DuplicateStringMembers { object: h.object.address.clone(), offset: 0, limit: 5, holders: 0 };
    let e = session.answer(&q).expect_err("an Object[] has no duplicate group");
    assert!(e.to_string().contains("not a kept java.lang.String"), "{e}");
}

/// `text` as MAT shows a String's value (its UTF-16 units written as MAT writes them, at
/// most 1024, then "...").
fn mat_text(text: &str) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let cut = if units.len() > 1024 { "..." } else { "" };
    support::mat_strings::escape(&units[..units.len().min(1024)]) + cut
}
