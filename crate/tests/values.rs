//! Values beside references, collections as entries and merged paths to GC roots
//! (crate/src/values/, crate/src/query/merge_paths.rs), against the corpus's construction
//! (../shared/corpus/MANIFEST.md), against dumps built here with known contents (JDK 6, 8,
//! 9+ and Android strings, boxed values, threads, enums, collections), and against a
//! brute-force definition of the merged paths.

mod support;

use std::collections::{HashMap, VecDeque};

use heapscope::analysis::{Analysis, Options};
use heapscope::model::format::parse_address;
use heapscope::session::{Answer, Query, Session};
use heapscope::values::entries::{Entries, EntriesKind};
use support::dump::{hex, Dump, BOOL, BYTE, CHAR, INT, LONG, OBJ};
use support::hprof_builder::{Hprof, Value as V};

fn corpus(dir: &str, name: &str) -> Option<Session> {
    let path = support::corpus_dir()?.join(dir).join(format!("{name}.hprof.gz"));
    Some(support::session(support::open_dump(&path), &Options::default()).unwrap())
}

fn ask(a: &mut Session, q: Query) -> Answer {
    a.answer(&q).unwrap()
}

fn texts(a: &mut Session, ids: &[String]) -> Vec<Option<String>> {
    let Answer::Values(v) = ask(a, Query::Values { objects: ids.to_vec() }) else { panic!() };
    assert_eq!(v.len(), ids.len());
    v.into_iter().map(|v| v.text).collect()
}

fn entries(a: &mut Session, o: &str, offset: u32, limit: u32) -> Entries {
    let Answer::Entries(e) = ask(a, Query::Entries { object: o.into(), offset, limit }) else { panic!() };
    e
}

/// The address held by static field `field` of the class named `class`.
fn static_ref(a: &mut Session, class: &str, field: &str) -> String {
    let co = class_object(a, class);
    let Answer::Object(d) = ask(a, Query::Object { object: co }) else { panic!() };
    d.fields.iter().find(|f| f.name == field).and_then(|f| f.reference.as_ref()).expect("field").address.clone()
}

fn class_object(s: &Session, class: &str) -> String {
    let a = &s.analysis;
    let c = (0..a.class_count() as u32).find(|&c| a.class_name(c) == class).expect("class");
    format!("0x{:x}", a.address(a.class_object(c).unwrap()))
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s02_map_values_and_entries_match_the_construction() {
    let Some(mut a) = corpus("dumps", "s02_static_map_leak_serial") else { return };
    // MANIFEST: CACHE is a HashMap of 300 entries key-0000..key-0299 -> byte[100,000].
    let map = static_ref(&mut a, "corpus.S02StaticMapLeak", "CACHE");
    assert_eq!(texts(&mut a, std::slice::from_ref(&map)), vec![Some("size=300".to_string())]);
    let e = entries(&mut a, &map, 0, 1000);
    assert_eq!(e.kind, Some(EntriesKind::Map));
    assert_eq!((e.total, e.size, e.complete, e.entries.len()), (300, Some(300), true, 300));
    let mut keys: Vec<String> = e.entries.iter().map(|x| x.key.as_ref().unwrap().text.clone().unwrap()).collect();
    keys.sort();
    let want: Vec<String> = (0..300).map(|i| format!("key-{i:04}")).collect();
    assert_eq!(keys, want);
    let mut sum = 0;
    for x in &e.entries {
        sum += x.retained_bytes;
        let v = x.value.as_ref().unwrap().reference.as_ref().unwrap();
        assert_eq!(v.class_name, "byte[]");
        assert!(v.shallow_bytes >= 100_000);
        // The entry retains its node, key and 100,000-byte value, and not the rest of its
        // chain (each value is held by one entry only).
        assert!(x.retained_bytes > v.shallow_bytes && x.retained_bytes < 2 * v.shallow_bytes, "{x:?}");
        assert_eq!(x.node.as_ref().unwrap().class_name, "java.util.HashMap$Node");
    }
    // The entries split the map's table's retained size (MANIFEST: the map retains the
    // 30,000,000 bytes of values; the table retains every node).
    let Answer::Object(m) = ask(&mut a, Query::Object { object: map.clone() }) else { panic!() };
    let table = m.fields.iter().find(|f| f.name == "table").unwrap().reference.clone().unwrap();
    assert_eq!(sum, table.retained_bytes - table.shallow_bytes);
    // Paged: the same entries in the same order.
    let p = entries(&mut a, &map, 290, 50);
    assert_eq!((p.total, p.offset, p.entries.len()), (300, 290, 10));
    assert_eq!(p.entries[0], e.entries[290]);
    // Each node shows its key (the table's non-null slots).
    let Answer::Object(m) = ask(&mut a, Query::Object { object: map.clone() }) else { panic!() };
    let table = m.fields.iter().find(|f| f.name == "table").unwrap().reference.clone().unwrap().address;
    let Answer::Object(t) = ask(&mut a, Query::Object { object: table }) else { panic!() };
    let nodes: Vec<String> = t.fields.iter().filter_map(|f| f.reference.as_ref().map(|r| r.address.clone())).collect();
    assert!(nodes.len() > 100);
    for text in texts(&mut a, &nodes) {
        let text = text.unwrap();
        assert!(text.len() == 8 && text.starts_with("key-") && text[4..].parse::<u32>().unwrap() < 300, "{text}");
    }
    // NAMES: an ArrayList of 1,000 short strings.
    let names = static_ref(&mut a, "corpus.S02StaticMapLeak", "NAMES");
    assert_eq!(texts(&mut a, std::slice::from_ref(&names)), vec![Some("size=1000".to_string())]);
    let l = entries(&mut a, &names, 0, 2000);
    assert_eq!((l.kind, l.total, l.entries.len()), (Some(EntriesKind::List), 1000, 1000));
    assert!(l.entries.iter().enumerate().all(|(i, x)| x.index == i as u64
        && x.value.as_ref().unwrap().reference.as_ref().unwrap().class_name == "java.lang.String"));
    // A class object's text is its name.
    let co = class_object(&a, "corpus.S02StaticMapLeak");
    assert_eq!(texts(&mut a, &[co]), vec![Some("corpus.S02StaticMapLeak".to_string())]);
}

/// Merged paths by definition: every object's path is its chain of first-reaching
/// parents in a breadth-first search from the roots that skips the excluded references;
/// a node's count is the number of objects whose chain contains it.
fn merged_by_definition(a: &Analysis, targets: &[u32]) -> HashMap<u32, u64> {
    let n = a.object_count();
    let mut parent = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    let mut roots: Vec<u32> = a.roots.iter().map(|r| r.0).collect();
    roots.sort_unstable();
    for &r in &roots {
        parent[r as usize] = u32::MAX - 1;
        queue.push_back(r);
    }
    while let Some(u) = queue.pop_front() {
        a.for_each_reference(u, |v| {
            if parent[v as usize] == u32::MAX && !a.is_path_excluded_reference(u, v) {
                parent[v as usize] = u;
                queue.push_back(v);
            }
        });
    }
    let mut count = HashMap::new();
    for &t in targets {
        let mut x = t;
        if parent[x as usize] == u32::MAX {
            continue;
        }
        loop {
            *count.entry(x).or_insert(0) += 1;
            let p = parent[x as usize];
            if p == u32::MAX - 1 {
                break;
            }
            x = p;
        }
    }
    count
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn s07_merged_paths_match_the_construction_and_the_definition() {
    let Some(mut a) = corpus("dumps", "s07_wide_array_serial") else { return };
    // MANIFEST: an ArrayList of 1,000 Shared, referenced only by owner-A and owner-B.
    let shared = class_object(&a, "corpus.S07WideArray$Shared");
    let Answer::MergePaths(m) = ask(&mut a, Query::MergePaths { class: Some(shared), objects: vec![], limit: 2000 })
    else {
        panic!()
    };
    assert_eq!((m.objects, m.considered, m.capped, m.unreached), (1000, 1000, false, 0));
    let roots: Vec<_> = m.nodes.iter().filter(|x| x.parent.is_none()).collect();
    assert_eq!(roots.len(), 1);
    assert_eq!(roots[0].count, 1000);
    let list = m.nodes.iter().find(|x| x.object.class_name == "java.util.ArrayList").expect("the shared list");
    assert_eq!(list.count, 1000);
    let array = m.nodes.iter().find(|x| x.object.class_name == "java.lang.Object[]").expect("its array");
    assert_eq!((array.count, array.children), (1000, 1000));
    assert_eq!(m.nodes.iter().filter(|x| x.target).count(), 50, "50 children listed of the 1,000");
    assert!(m.truncated);
    let owner = m.nodes.iter().find(|x| x.object.class_name == "corpus.S07WideArray$Owner").expect("an owner");
    assert_eq!(owner.count, 1000);
    assert!(list.via.iter().any(|v| v == "shared"), "{:?}", list.via);
    // Counts by definition, node by node.
    let an = &a.analysis;
    let c = (0..an.class_count() as u32).find(|&c| an.class_name(c) == "corpus.S07WideArray$Shared").unwrap();
    let targets: Vec<u32> = (0..an.object_count() as u32).filter(|&o| an.class_of(o) == c && an.is_kept(o)).collect();
    let def = merged_by_definition(an, &targets);
    for x in &m.nodes {
        let o = an.object_at(parse_address(&x.object.address).unwrap()).unwrap();
        assert_eq!(Some(&x.count), def.get(&o), "{}", x.object.address);
    }
    // The two owners: two paths, two objects.
    let owners = class_object(&a, "corpus.S07WideArray$Owner");
    let Answer::MergePaths(m) = ask(&mut a, Query::MergePaths { class: Some(owners), objects: vec![], limit: 100 })
    else {
        panic!()
    };
    assert_eq!(m.objects, 2);
    assert_eq!(m.nodes.iter().filter(|x| x.parent.is_none()).map(|x| x.count).sum::<u64>(), 2);
    assert_eq!(m.nodes.iter().filter(|x| x.target).count(), 2);
    // 500,000 Small: capped at 100,000, all through WIDE's array.
    let small = class_object(&a, "corpus.S07WideArray$Small");
    let Answer::MergePaths(m) = ask(&mut a, Query::MergePaths { class: Some(small), objects: vec![], limit: 100 })
    else {
        panic!()
    };
    assert_eq!((m.objects, m.considered, m.capped), (500_000, 100_000, true));
    let wide = m.nodes.iter().find(|x| x.object.class_name == "java.lang.Object[]").unwrap();
    assert_eq!(wide.count, 100_000);
}

/// Strings of every layout, with the texts they were built from.
#[test]
fn strings_of_every_layout_read_as_built() {
    let long: String = (0..150).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    let cases: Vec<(&str, String)> = vec![
        ("jdk9", "hello".into()),
        ("jdk9", "дубликат-Δ".into()),
        ("jdk9", long.clone()),
        ("jdk8", "plain chars".into()),
        ("jdk8", "ΔΕΛΤΑ\n".into()),
    ];
    // JDK 9+: byte[] value and a coder; JDK 8: char[] value.
    for (layout, text) in cases {
        let mut d = Dump::new(Hprof::new(8));
        let units: Vec<u16> = text.encode_utf16().collect();
        let array = if layout == "jdk8" {
            d.class("java.lang.String", "java.lang.Object", &[("value", OBJ), ("hash", INT)]);
            d.prim(CHAR, units.len() as u32, &units.iter().flat_map(|u| u.to_be_bytes()).collect::<Vec<u8>>())
        } else {
            d.class("java.lang.String", "java.lang.Object", &[("value", OBJ), ("hash", INT), ("coder", BYTE)]);
            if units.iter().all(|&u| u < 256) {
                let bytes: Vec<u8> = units.iter().map(|&u| u as u8).collect();
                d.prim(BYTE, bytes.len() as u32, &bytes)
            } else {
                let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
                d.prim(BYTE, bytes.len() as u32, &bytes)
            }
        };
        let utf16 = units.iter().any(|&u| u >= 256);
        let s = if layout == "jdk8" {
            d.obj("java.lang.String", &[("value", V::Obj(array))])
        } else {
            d.obj("java.lang.String", &[("value", V::Obj(array)), ("coder", V::Byte(utf16 as i8))])
        };
        d.root(s);
        let mut a = d.analyze();
        // Printable characters as they are, controls (U+0000–U+001F, U+007F–U+009F) as
        // `\uXXXX`; after 100 UTF-16 units, "…".
        let want: String = String::from_utf16_lossy(&units[..units.len().min(100)])
            .chars()
            .map(|c| {
                if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) {
                    format!("\\u{:04x}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect::<String>()
            + if units.len() > 100 { "…" } else { "" };
        assert_eq!(texts(&mut a, &[hex(s)]), vec![Some(want)], "{layout} {text:?}");
    }
}

#[test]
fn old_and_android_strings_read_as_built() {
    // JDK 6 / old Android: a window (offset, count) of a shared char[].
    let mut d = Dump::new(Hprof::new(4));
    d.class("java.lang.String", "java.lang.Object", &[("value", OBJ), ("offset", INT), ("count", INT), ("hash", INT)]);
    let units: Vec<u16> = "prefix-window-suffix".encode_utf16().collect();
    let array = d.prim(CHAR, units.len() as u32, &units.iter().flat_map(|u| u.to_be_bytes()).collect::<Vec<u8>>());
    let s = d.obj("java.lang.String", &[("value", V::Obj(array)), ("offset", V::Int(7)), ("count", V::Int(6))]);
    d.root(s);
    let mut a = d.analyze();
    assert_eq!(texts(&mut a, &[hex(s)]), vec![Some("window".to_string())]);
    // Android (1.0.3): count without offset; compressed byte[] and char[] values.
    let mut d = Dump::new(Hprof::android());
    d.class("java.lang.String", "java.lang.Object", &[("count", INT), ("hash", INT), ("value", OBJ)]);
    let bytes = d.prim(BYTE, 7, b"android");
    let s1 = d.obj("java.lang.String", &[("value", V::Obj(bytes)), ("count", V::Int(14))]);
    let chars: Vec<u8> = "Δx".encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
    let c = d.prim(CHAR, 2, &chars);
    let s2 = d.obj("java.lang.String", &[("value", V::Obj(c)), ("count", V::Int(5))]);
    d.root(s1);
    d.root(s2);
    let mut a = d.analyze();
    assert_eq!(texts(&mut a, &[hex(s1), hex(s2)]), vec![Some("android".to_string()), Some("Δx".to_string())]);
}

/// Boxed values, a thread, an enum, a class, collections' sizes and a node's key.
#[test]
fn class_specific_texts_read_as_built() {
    let mut d = Dump::new(Hprof::new(8));
    d.class("java.lang.String", "java.lang.Object", &[("value", OBJ), ("hash", INT), ("coder", BYTE)]);
    let string = |d: &mut Dump, s: &str| {
        let a = d.prim(BYTE, s.len() as u32, s.as_bytes());
        d.obj("java.lang.String", &[("value", V::Obj(a))])
    };
    d.class("java.lang.Number", "java.lang.Object", &[]);
    d.class("java.lang.Integer", "java.lang.Number", &[("value", INT)]);
    d.class("java.lang.Long", "java.lang.Number", &[("value", LONG)]);
    d.class("java.lang.Character", "java.lang.Object", &[("value", CHAR)]);
    d.class("java.lang.Boolean", "java.lang.Object", &[("value", BOOL)]);
    d.class("java.lang.Thread", "java.lang.Object", &[("name", OBJ), ("priority", INT)]);
    d.class("app.Worker", "java.lang.Thread", &[("job", OBJ)]);
    d.class("java.lang.Enum", "java.lang.Object", &[("name", OBJ), ("ordinal", INT)]);
    d.class("app.Color", "java.lang.Enum", &[]);
    d.class("java.util.AbstractMap", "java.lang.Object", &[]);
    d.class("java.util.HashMap", "java.util.AbstractMap", &[("table", OBJ), ("size", INT)]);
    d.class("java.util.LinkedHashMap", "java.util.HashMap", &[("head", OBJ)]);
    d.class(
        "java.util.HashMap$Node",
        "java.lang.Object",
        &[("hash", INT), ("key", OBJ), ("value", OBJ), ("next", OBJ)],
    );
    d.class("java.util.LinkedHashMap$Entry", "java.util.HashMap$Node", &[("before", OBJ), ("after", OBJ)]);
    d.class("java.util.HashSet", "java.lang.Object", &[("map", OBJ)]);
    let items = [
        d.obj("java.lang.Integer", &[("value", V::Int(-42))]),
        d.obj("java.lang.Long", &[("value", V::Long(1 << 40))]),
        d.obj("java.lang.Character", &[("value", V::Char('z' as u16))]),
        d.obj("java.lang.Boolean", &[("value", V::Bool(true))]),
    ];
    let tname = string(&mut d, "worker-7");
    let thread = d.obj("app.Worker", &[("name", V::Obj(tname))]);
    let ename = string(&mut d, "RED");
    let red = d.obj("app.Color", &[("name", V::Obj(ename))]);
    let key = string(&mut d, "the-key");
    let node = d.obj("java.util.LinkedHashMap$Entry", &[("key", V::Obj(key))]);
    let boxed_key = d.obj("java.util.HashMap$Node", &[("key", V::Obj(items[0]))]);
    let enum_key = d.obj("java.util.HashMap$Node", &[("key", V::Obj(red))]);
    let map = d.obj("java.util.LinkedHashMap", &[("size", V::Int(3))]);
    let set = d.obj("java.util.HashSet", &[("map", V::Obj(map))]);
    let mut all: Vec<u64> = items.to_vec();
    all.extend([thread, red, node, boxed_key, enum_key, map, set]);
    let holder = d.objects("java.lang.Object[]", &all);
    d.root(holder);
    let int_class = d.classes["java.lang.Integer"];
    let mut a = d.analyze();
    let mut ids: Vec<String> = all.iter().map(|&x| hex(x)).collect();
    ids.push(hex(int_class));
    ids.push(hex(holder));
    let want = [
        "-42",
        "1099511627776",
        "z",
        "true",
        "worker-7",
        "RED",
        "the-key",
        "-42",
        "RED",
        "size=3",
        "size=3",
        "java.lang.Integer",
    ];
    let mut want: Vec<Option<String>> = want.iter().map(|s| Some(s.to_string())).collect();
    want.push(None);
    assert_eq!(texts(&mut a, &ids), want);
}

/// A small deterministic generator (no dependency on the crate's randomness).
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Collections built with known contents read back as those contents, in iteration order.
#[test]
fn collections_read_as_their_entries() {
    for seed in 1..6u64 {
        let mut rng = Rng(seed * 0x9e37_79b9_7f4a_7c15);
        let mut d = Dump::new(Hprof::new(8));
        d.class("java.lang.Integer", "java.lang.Object", &[("value", INT)]);
        d.class("java.util.HashMap", "java.lang.Object", &[("table", OBJ), ("size", INT)]);
        d.class(
            "java.util.HashMap$Node",
            "java.lang.Object",
            &[("hash", INT), ("key", OBJ), ("value", OBJ), ("next", OBJ)],
        );
        d.class("java.util.HashSet", "java.lang.Object", &[("map", OBJ)]);
        d.class("java.util.ArrayList", "java.lang.Object", &[("elementData", OBJ), ("size", INT)]);
        d.class("java.util.ArrayDeque", "java.lang.Object", &[("elements", OBJ), ("head", INT), ("tail", INT)]);
        d.class("java.util.LinkedList", "java.lang.Object", &[("size", INT), ("first", OBJ), ("last", OBJ)]);
        d.class("java.util.LinkedList$Node", "java.lang.Object", &[("item", OBJ), ("next", OBJ), ("prev", OBJ)]);
        d.class("java.util.TreeMap", "java.lang.Object", &[("root", OBJ), ("size", INT)]);
        d.class(
            "java.util.TreeMap$Entry",
            "java.lang.Object",
            &[("key", OBJ), ("value", OBJ), ("left", OBJ), ("right", OBJ), ("parent", OBJ)],
        );
        let n = 1 + rng.next(60) as usize;
        let ints: Vec<u64> = (0..n).map(|i| d.obj("java.lang.Integer", &[("value", V::Int(i as i32 * 7))])).collect();
        let text = |i: usize| (i * 7).to_string();
        // HashMap: buckets with chains; iteration order is bucket by bucket, chain order.
        let buckets = 1 + rng.next(16) as usize;
        let mut chains: Vec<Vec<usize>> = vec![Vec::new(); buckets];
        for i in 0..n {
            chains[rng.next(buckets as u64) as usize].push(i);
        }
        let mut heads = vec![0u64; buckets];
        let mut map_order = Vec::new();
        for (b, chain) in chains.iter().enumerate() {
            let mut next = 0;
            for &i in chain.iter().rev() {
                next = d.obj(
                    "java.util.HashMap$Node",
                    &[("key", V::Obj(ints[i])), ("value", V::Obj(ints[(i + 1) % n])), ("next", V::Obj(next))],
                );
            }
            heads[b] = next;
            map_order.extend(chain.iter().copied());
        }
        let table = d.objects("java.util.HashMap$Node[]", &heads);
        let map = d.obj("java.util.HashMap", &[("table", V::Obj(table)), ("size", V::Int(n as i32))]);
        let set = d.obj("java.util.HashSet", &[("map", V::Obj(map))]);
        // ArrayList with spare capacity.
        let cap = n + rng.next(5) as usize;
        let mut data = ints.clone();
        data.resize(cap, 0);
        let ed = d.objects("java.lang.Object[]", &data);
        let list = d.obj("java.util.ArrayList", &[("elementData", V::Obj(ed)), ("size", V::Int(n as i32))]);
        // ArrayDeque wrapping around the end.
        let len = n + 1 + rng.next(4) as usize;
        let head = rng.next(len as u64) as usize;
        let mut ring = vec![0u64; len];
        for (k, &x) in ints.iter().enumerate() {
            ring[(head + k) % len] = x;
        }
        let ringa = d.objects("java.lang.Object[]", &ring);
        let deque = d.obj(
            "java.util.ArrayDeque",
            &[("elements", V::Obj(ringa)), ("head", V::Int(head as i32)), ("tail", V::Int(((head + n) % len) as i32))],
        );
        // LinkedList.
        let mut next = 0;
        for &x in ints.iter().rev() {
            next = d.obj("java.util.LinkedList$Node", &[("item", V::Obj(x)), ("next", V::Obj(next))]);
        }
        let linked = d.obj("java.util.LinkedList", &[("size", V::Int(n as i32)), ("first", V::Obj(next))]);
        // TreeMap: a random binary search tree over 0..n (in order: ascending).
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.next(i as u64 + 1) as usize);
        }
        let mut left = vec![usize::MAX; n];
        let mut right = vec![usize::MAX; n];
        for &k in &order[1..] {
            let mut at = order[0];
            loop {
                let side = if k < at { &mut left } else { &mut right };
                if side[at] == usize::MAX {
                    side[at] = k;
                    break;
                }
                at = side[at];
            }
        }
        // Children before parents: write nodes from the deepest.
        let mut ids = vec![0u64; n];
        let mut post = Vec::new();
        let mut stack = vec![(order[0], false)];
        while let Some((k, done)) = stack.pop() {
            if done {
                post.push(k);
                continue;
            }
            stack.push((k, true));
            for c in [left[k], right[k]] {
                if c != usize::MAX {
                    stack.push((c, false));
                }
            }
        }
        for k in post {
            let l = if left[k] == usize::MAX { 0 } else { ids[left[k]] };
            let r = if right[k] == usize::MAX { 0 } else { ids[right[k]] };
            ids[k] = d.obj(
                "java.util.TreeMap$Entry",
                &[
                    ("key", V::Obj(ints[k])),
                    ("value", V::Obj(ints[(k + 1) % n])),
                    ("left", V::Obj(l)),
                    ("right", V::Obj(r)),
                ],
            );
        }
        let tree = d.obj("java.util.TreeMap", &[("root", V::Obj(ids[order[0]])), ("size", V::Int(n as i32))]);
        let arr = d.objects("java.lang.Object[]", &[0, ints[0], 0, ints[n - 1]]);
        for r in [map, set, list, deque, linked, tree, arr] {
            d.root(r);
        }
        let mut a = d.analyze();
        let keys = |e: &Entries| {
            e.entries
                .iter()
                .map(|x| x.key.as_ref().and_then(|k| k.text.clone()).unwrap_or_default())
                .collect::<Vec<_>>()
        };
        let values = |e: &Entries| {
            e.entries
                .iter()
                .map(|x| x.value.as_ref().and_then(|k| k.text.clone()).unwrap_or_default())
                .collect::<Vec<_>>()
        };
        let e = entries(&mut a, &hex(map), 0, 1000);
        assert_eq!((e.kind, e.total, e.complete), (Some(EntriesKind::Map), n as u64, true), "seed {seed}");
        assert_eq!(keys(&e), map_order.iter().map(|&i| text(i)).collect::<Vec<_>>(), "seed {seed}");
        assert_eq!(values(&e), map_order.iter().map(|&i| text((i + 1) % n)).collect::<Vec<_>>(), "seed {seed}");
        let e = entries(&mut a, &hex(set), 0, 1000);
        assert_eq!(e.kind, Some(EntriesKind::Set));
        assert_eq!(keys(&e), map_order.iter().map(|&i| text(i)).collect::<Vec<_>>());
        assert!(e.entries.iter().all(|x| x.value.is_none()));
        let in_order: Vec<String> = (0..n).map(text).collect();
        for (what, coll) in [("list", list), ("deque", deque), ("linked", linked)] {
            let e = entries(&mut a, &hex(coll), 0, 1000);
            assert_eq!((e.kind, e.total), (Some(EntriesKind::List), n as u64), "{what} seed {seed}");
            assert_eq!(values(&e), in_order, "{what} seed {seed}");
        }
        let e = entries(&mut a, &hex(tree), 0, 1000);
        assert_eq!(keys(&e), in_order, "tree seed {seed}");
        assert_eq!(values(&e), (0..n).map(|i| text((i + 1) % n)).collect::<Vec<_>>());
        let e = entries(&mut a, &hex(arr), 0, 1000);
        assert_eq!(e.kind, Some(EntriesKind::Array));
        assert_eq!(e.entries.iter().map(|x| x.index).collect::<Vec<_>>(), vec![1, 3]);
        // Not a collection: no kind, a note, no panic.
        let e = entries(&mut a, &hex(ints[0]), 0, 10);
        assert_eq!(e.kind, None);
        assert!(e.note.is_some());
    }
}

/// A node whose fields do not read as a map node: the walk stops with a note, no panic.
#[test]
fn unexpected_layouts_fall_back() {
    let mut d = Dump::new(Hprof::new(8));
    d.class("java.util.HashMap", "java.lang.Object", &[("table", OBJ), ("size", INT)]);
    d.class("java.util.HashMap$Odd", "java.lang.Object", &[("other", OBJ)]);
    let odd = d.obj("java.util.HashMap$Odd", &[]);
    let table = d.objects("java.util.HashMap$Node[]", &[odd, 0]);
    let map = d.obj("java.util.HashMap", &[("table", V::Obj(table)), ("size", V::Int(1))]);
    d.class("java.util.ArrayList", "java.lang.Object", &[("weird", INT)]);
    let list = d.obj("java.util.ArrayList", &[]);
    d.root(map);
    d.root(list);
    let mut a = d.analyze();
    let e = entries(&mut a, &hex(map), 0, 10);
    assert!(!e.complete && e.note.is_some() && e.entries.is_empty(), "{e:?}");
    let e = entries(&mut a, &hex(list), 0, 10);
    assert_eq!(e.kind, None);
}
