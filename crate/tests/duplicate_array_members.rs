//! The members of a duplicate-array group and their holders (the `duplicate_array_members`
//! query the page's Waste view asks when an array group opens): on a dump built with the
//! HPROF builder whose groups are known by construction, and on the corpus against the
//! report's own grouping (pass 2's hashes, an independent reading of the same arrays).

mod support;

use heapscope::session::{Answer, Query, Session};
use heapscope::waste::members::ArrayGroupMembers;
use support::hprof_builder::{ClassDef, Hprof, Value as V};

fn members(
    s: &mut Session,
    object: &str,
    offset: u32,
    limit: u32,
    holders: u32,
) -> heapscope::error::Result<ArrayGroupMembers> {
    match s.answer(&Query::DuplicateArrayMembers { object: object.into(), offset, limit, holders })? {
        Answer::DuplicateArrayMembers(m) => Ok(m),
        other => panic!("unexpected answer {other:?}"),
    }
}

const INT: u8 = 10;
const BYTE: u8 = 8;

fn int_data(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

/// Object ids of the built dump.
mod id {
    pub const HOLDER: u64 = 0x5000;
    pub const ROOT_ARRAY: u64 = 0x6000;
    /// int[] {1, 2, 3}: the first held by HOLDER.f, the others by ROOT_ARRAY.
    pub const SAME: [u64; 4] = [0x1000, 0x1100, 0x1200, 0x1300];
    /// int[] {1, 2, 3} held by nothing: not kept.
    pub const GARBAGE: u64 = 0x1400;
    /// int[] {1, 2, 4}: alone.
    pub const OTHER: u64 = 0x1500;
    /// byte[] "abc" ×2 held by ROOT_ARRAY, and one more read by STRING.
    pub const BYTES: [u64; 2] = [0x2000, 0x2100];
    pub const BACKING: u64 = 0x2200;
    pub const STRING: u64 = 0x3000;
}

fn built() -> Session {
    let mut h = Hprof::new(8);
    for (i, name) in [
        "java/lang/Object",
        "java/lang/String",
        "value",
        "coder",
        "[I",
        "[B",
        "[Ljava/lang/Object;",
        "corpus/Holder",
        "f",
    ]
    .iter()
    .enumerate()
    {
        h.string(i as u64 + 1, name);
    }
    let classes = [(0x100u64, 1u64), (0x200, 2), (0x300, 5), (0x310, 6), (0x400, 7), (0x500, 8)];
    for (serial, &(class, name)) in classes.iter().enumerate() {
        h.load_class(serial as u32 + 1, class, name);
    }
    let mut seg = h.segment_builder();
    for c in [
        ClassDef::new(0x100, 0),
        ClassDef::new(0x200, 0x100).field(3, 2).field(4, 8),
        ClassDef::new(0x300, 0x100),
        ClassDef::new(0x310, 0x100),
        ClassDef::new(0x400, 0x100),
        ClassDef::new(0x500, 0x100).field(9, 2),
    ] {
        seg.class_dump(&c);
    }
    for &a in id::SAME.iter().chain([&id::GARBAGE]) {
        seg.primitive_array_header(a, INT, 3).raw(&int_data(&[1, 2, 3]));
    }
    seg.primitive_array_header(id::OTHER, INT, 3).raw(&int_data(&[1, 2, 4]));
    for a in id::BYTES.into_iter().chain([id::BACKING]) {
        seg.primitive_array_header(a, BYTE, 3).raw(b"abc");
    }
    seg.instance(id::STRING, 0x200, &[V::Obj(id::BACKING), V::Byte(0)]);
    seg.instance(id::HOLDER, 0x500, &[V::Obj(id::SAME[0])]);
    let held = [id::HOLDER, id::SAME[1], id::SAME[2], id::SAME[3], id::OTHER, id::BYTES[0], id::BYTES[1], id::STRING];
    seg.object_array(id::ROOT_ARRAY, 0x400, &held).root_jni_global(id::ROOT_ARRAY, 1);
    h.segment(&seg).heap_dump_end();
    support::session_of(h.into_bytes())
}

fn hex(id: u64) -> String {
    format!("0x{id:x}")
}

#[test]
fn built_dump_groups_are_the_constructed_ones() {
    let mut a = built();
    // From any member: the four kept int[] {1, 2, 3}, by address; not the unreachable one.
    for from in id::SAME {
        let m = members(&mut a, &hex(from), 0, 10, 5).expect("members");
        assert_eq!((m.class_name.as_str(), m.length, m.total, m.offset), ("int[]", 3, 4, 0));
        assert_eq!(m.members.iter().map(|x| x.object.address.clone()).collect::<Vec<_>>(), id::SAME.map(hex).to_vec());
    }
    let m = members(&mut a, &hex(id::SAME[0]), 0, 10, 5).unwrap();
    // Holders: HOLDER by its field f; the others by ROOT_ARRAY's slots 1, 2, 3.
    let first = &m.members[0];
    assert_eq!(first.holders_total, 1);
    assert_eq!(
        (first.holders[0].object.address.as_str(), first.holders[0].via.clone()),
        (hex(id::HOLDER).as_str(), vec!["f".to_string()])
    );
    for (k, x) in m.members.iter().enumerate().skip(1) {
        assert_eq!(x.holders_total, 1);
        assert_eq!(x.holders[0].object.address, hex(id::ROOT_ARRAY));
        assert_eq!(x.holders[0].via, vec![format!("[{k}]")]);
    }
    // A page: members 1..3, without holders.
    let page = members(&mut a, &hex(id::SAME[3]), 1, 2, 0).unwrap();
    assert_eq!((page.total, page.offset), (4, 1));
    assert_eq!(
        page.members.iter().map(|x| x.object.address.clone()).collect::<Vec<_>>(),
        vec![hex(id::SAME[1]), hex(id::SAME[2])]
    );
    assert!(page.members.iter().all(|x| x.holders.is_empty() && x.holders_total == 1));
    // Contents differing in one element: a group of one.
    assert_eq!(members(&mut a, &hex(id::OTHER), 0, 10, 0).unwrap().total, 1);
    // The byte[] a String reads is not a member of the equal byte[]s' group.
    let b = members(&mut a, &hex(id::BYTES[1]), 0, 10, 0).unwrap();
    assert_eq!(b.members.iter().map(|x| x.object.address.clone()).collect::<Vec<_>>(), id::BYTES.map(hex).to_vec());
    // Errors, not panics: the String's array, a String, an object array, garbage.
    let e = members(&mut a, &hex(id::BACKING), 0, 10, 0).expect_err("a String's value");
    assert!(e.to_string().contains("duplicate-string group"), "{e}");
    for not in [id::STRING, id::ROOT_ARRAY, id::GARBAGE] {
        assert!(members(&mut a, &hex(not), 0, 10, 0).is_err(), "0x{not:x}");
    }
    // The report's groups agree (pass 2's hashes).
    let report: Vec<(String, u64, u64, String)> = a
        .features()
        .waste
        .duplicate_arrays
        .groups
        .iter()
        .map(|g| (g.class_name.clone(), g.length, g.count, g.sample[0].address.clone()))
        .collect();
    assert!(report.contains(&("int[]".into(), 3, 4, hex(id::SAME[0]))), "{report:?}");
    assert!(report.contains(&("byte[]".into(), 3, 2, hex(id::BYTES[0]))), "{report:?}");
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s09_array_groups_match_the_report() {
    let Some(corpus) = support::corpus_dir() else { return };
    let bytes = support::gunzip(&corpus.join("dumps/s09_duplicate_strings_serial.hprof.gz"));
    let mut a = support::session_of(bytes);
    let groups = a.features().waste.duplicate_arrays.groups.clone();
    assert!(groups.len() >= 5, "s09 has duplicate arrays: {}", groups.len());
    for g in groups.iter().take(10) {
        let m = members(&mut a, &g.sample.last().unwrap().address, 0, 3, 2).expect("members");
        assert_eq!(
            (m.class_name.as_str(), m.length, m.total),
            (g.class_name.as_str(), g.length, g.count),
            "group of {}",
            g.sample[0].address
        );
        let want: Vec<String> = g.sample.iter().map(|o| o.address.clone()).collect();
        assert_eq!(
            m.members.iter().map(|x| x.object.address.clone()).collect::<Vec<_>>(),
            want,
            "the first members by address"
        );
        for x in &m.members {
            assert!(x.holders.len() as u64 == x.holders_total.min(2));
        }
    }
}
