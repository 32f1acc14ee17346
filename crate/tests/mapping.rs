//! ProGuard/R8 deobfuscation on the corpus's R8-obfuscated ahat dump, checked against the
//! dump's own mapping file (`ahat_test_dump_8e3b7d7.map`), read here by a separate,
//! minimal reading of its class and field lines, and the manifest's description
//! (`Main.a` is a `DumpedStuff`, class `o` is `StackSmasher`, DumpedStuff's field `d` is
//! basicString "hello, world").

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use heapscope::analysis::{Analysis, Options};
use heapscope::mapping::Mapping;
use heapscope::query::paths::via;
use heapscope::readback::object::object_details;
use heapscope::render::markdown;
use heapscope::report;
use heapscope::session::Session;

const DUMP: &str = "android/ahat_test_dump_8e3b7d7.hprof.gz";
const MAP: &str = "android/ahat_test_dump_8e3b7d7.map";

fn corpus() -> Option<PathBuf> {
    support::corpus_dir()
}

/// obfuscated class → (original class, obfuscated field → original field), from the
/// file's unindented `a -> b:` lines and indented `type name -> x` lines without `(`.
fn read_map(text: &str) -> BTreeMap<String, (String, BTreeMap<String, String>)> {
    let mut out = BTreeMap::new();
    let mut current = None;
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            let (orig, obf) = line.trim_end_matches(':').split_once(" -> ").unwrap();
            out.insert(obf.to_string(), (orig.to_string(), BTreeMap::new()));
            current = Some(obf.to_string());
        } else if !line.contains('(') {
            let (left, obf) = line.trim().split_once(" -> ").unwrap();
            let orig = left.split(' ').next_back().unwrap();
            out.get_mut(current.as_ref().unwrap()).unwrap().1.insert(obf.to_string(), orig.to_string());
        }
    }
    out
}

fn session(dir: &std::path::Path) -> Session {
    support::session(support::open_dump(&dir.join(DUMP)), &Options::default()).unwrap()
}

fn base(name: &str) -> (&str, usize) {
    let b = name.trim_end_matches("[]");
    (b, (name.len() - b.len()) / 2)
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn histogram_has_the_original_names() {
    let Some(dir) = corpus() else { return };
    let text = std::fs::read_to_string(dir.join(MAP)).unwrap();
    let map = read_map(&text);
    let plain = session(&dir);
    let mut mapped = session(&dir);
    let renamed = mapped.apply_mapping(&Mapping::parse_str(&text).unwrap()).unwrap();
    let info = report::SourceInfo { file_name: None, file_bytes: 0, gzip: true };
    let (before, after) = (support::built_report(&plain, &info), support::built_report(&mapped, &info));
    assert_eq!(before.histogram.len(), after.histogram.len());
    let after_by_address: BTreeMap<_, _> = after.histogram.iter().map(|r| (r.class_address.as_str(), r)).collect();
    let mut seen = 0u64;
    for row in &before.histogram {
        let now = after_by_address[&row.class_address.as_str()];
        assert_eq!((now.instances, now.shallow_bytes), (row.instances, row.shallow_bytes));
        let (b, dims) = base(&row.class_name);
        match map.get(b) {
            Some((orig, _)) => {
                assert_eq!(now.class_name, format!("{orig}{}", "[]".repeat(dims)), "{}", row.class_name);
                seen += 1;
            }
            None => assert_eq!(now.class_name, row.class_name),
        }
    }
    // Every class line of the map whose class is in the dump was applied (the classes
    // table counts classes without instances too, so it is at least the histogram's).
    assert!(renamed >= seen && seen > 10, "renamed {renamed}, in the histogram {seen}");
    // The manifest's facts: `o` is StackSmasher (two 10,000-deep chains), DumpedStuff
    // (kept as is by R8) holds them.
    let smasher =
        after.histogram.iter().find(|r| r.class_name == "DumpedStuff$StackSmasher").expect("StackSmasher row");
    assert!(smasher.instances >= 20_000, "{}", smasher.instances);
    assert!(!after.histogram.iter().any(|r| r.class_name == "o"));
    assert!(after.histogram.iter().any(|r| r.class_name == "DumpedStuff"));
    // The report's renderings carry the names too.
    assert!(markdown::render(&after).contains("DumpedStuff\\$StackSmasher"));
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn inspector_fields_and_path_names_are_original() {
    let Some(dir) = corpus() else { return };
    let text = std::fs::read_to_string(dir.join(MAP)).unwrap();
    let map = read_map(&text);
    let mut s = session(&dir);
    s.apply_mapping(&Mapping::parse_str(&text).unwrap()).unwrap();
    let a = &mut s.analysis;
    let stuff_fields = &map["DumpedStuff"].1;
    let stuff = (0..a.object_count() as u32)
        .find(|&o| a.is_kept(o) && a.class_name(a.class_of(o)) == "DumpedStuff")
        .expect("a DumpedStuff instance");
    let details = object_details(a, stuff).unwrap();
    let names: Vec<&str> = details.fields.iter().map(|f| f.name.as_str()).collect();
    // Every field DumpedStuff declares in the map shows under its original name: instance
    // fields on the instance, static fields on the class object.
    let class_object = a.class_object(a.class_of(stuff)).unwrap();
    let statics = object_details(a, class_object).unwrap().fields;
    for original in stuff_fields.values() {
        assert!(
            names.contains(&original.as_str()) || statics.iter().any(|f| f.is_static && &f.name == original),
            "{original} missing from {names:?}"
        );
    }
    assert!(statics.iter().any(|f| f.name == "modifiedStaticField"));
    let object_of = |a: &Analysis, name: &str| {
        let r = details.fields.iter().find(|f| f.name == name).and_then(|f| f.reference.clone()).expect(name);
        a.object_at(u64::from_str_radix(r.address.trim_start_matches("0x"), 16).unwrap()).unwrap()
    };
    assert_eq!(stuff_fields["d"], "basicString");
    let basic = object_of(a, "basicString");
    assert_eq!(object_details(a, basic).unwrap().text.as_deref(), Some("hello, world"));
    // A path step names the field by its original name: DumpedStuff.stackSmasher (`I`),
    // StackSmasher.child (`o.a`).
    assert_eq!((stuff_fields["I"].as_str(), map["o"].1["a"].as_str()), ("stackSmasher", "child"));
    let smasher = object_of(a, "stackSmasher");
    assert!(via(a, stuff, smasher).unwrap().contains(&"stackSmasher".to_string()));
    let child = object_details(a, smasher)
        .unwrap()
        .fields
        .iter()
        .find(|f| f.name == "child")
        .and_then(|f| f.reference.clone())
        .expect("child");
    let child = a.object_at(u64::from_str_radix(child.address.trim_start_matches("0x"), 16).unwrap()).unwrap();
    assert_eq!(via(a, smasher, child).unwrap(), vec!["child".to_string()]);
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn cli_mapping_flag() {
    let Some(dir) = corpus() else { return };
    let bin = env!("CARGO_BIN_EXE_heapscope");
    let out = Command::new(bin)
        .args(["-q", "analyze", "-f", "json", "--mapping"])
        .arg(dir.join(MAP))
        .arg(dir.join(DUMP))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> =
        json["histogram"].as_array().unwrap().iter().map(|r| r["class_name"].as_str().unwrap()).collect();
    assert!(names.contains(&"DumpedStuff$StackSmasher") && names.contains(&"DumpedStuff$ObjectTree[]"), "{names:?}");
    assert!(!names.contains(&"o") && !names.contains(&"l[]"));
    // The dump's own mapping fits: no warning, and no class left that looks obfuscated
    // but what the mapping does not name.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("mapping"), "{err}");
    assert!(
        json["warnings"].as_array().unwrap().iter().all(|w| !w.as_str().unwrap().contains("mapping")),
        "{}",
        json["warnings"]
    );
    // A bad mapping: status 1, the message names the file and the line.
    let tmp = support::TempDir::new("mapping");
    let bad = tmp.path().join("bad.txt");
    std::fs::write(&bad, "a -> b:\n    int\n").unwrap();
    let out = Command::new(bin).args(["-q", "analyze", "--mapping"]).arg(&bad).arg(dir.join(DUMP)).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt") && err.contains("line 2"), "{err}");
}

/// A mapping that matches almost none of the dump's classes is applied with a warning on
/// stderr and in the report, whichever way it misses: it names none of them; it renames one
/// of the 24 whose names look obfuscated; it renames them all but lists none of their fields.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn cli_warns_when_a_mapping_matches_almost_none_of_the_dumps_classes() {
    let Some(dir) = corpus() else { return };
    let bin = env!("CARGO_BIN_EXE_heapscope");
    let tmp = support::TempDir::new("mapping-fit");
    let run = |map: &str| -> (String, serde_json::Value) {
        let file = tmp.path().join("mapping.txt");
        std::fs::write(&file, map).unwrap();
        let out = Command::new(bin)
            .args(["-q", "analyze", "-f", "json", "--mapping"])
            .arg(&file)
            .arg(dir.join(DUMP))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (String::from_utf8_lossy(&out.stderr).into_owned(), serde_json::from_slice(&out.stdout).unwrap())
    };
    // The dump's class names that look obfuscated (one or two lower-case letters after
    // the last `.` or `$`), read from the report without a mapping.
    let (_, plain) = run("# no class\n");
    let obfuscated: Vec<String> = plain["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["class_name"].as_str().unwrap().to_string())
        .filter(|n| !n.ends_with("[]"))
        .filter(|n| {
            let simple = n.rsplit(['.', '$']).next().unwrap();
            (1..=2).contains(&simple.len()) && simple.chars().all(|c| c.is_ascii_lowercase())
        })
        .collect();
    assert!(obfuscated.len() >= 20, "{obfuscated:?}");
    assert_eq!(plain["overview"]["obfuscated_classes"].as_u64(), Some(24), "arrays of them included");
    let cases = [
        ("com.example.Other -> zz:\n".to_string(), "names none of the dump's"),
        (
            format!("com.example.Other -> {}:\n", obfuscated[0]),
            "renames only 1 of the dump's 24 classes whose names look obfuscated",
        ),
        (
            obfuscated.iter().enumerate().map(|(k, n)| format!("com.example.C{k} -> {n}:\n")).collect::<String>(),
            "classes with fields the mapping renames declare fields it does not list",
        ),
    ];
    for (map, want) in cases {
        let (err, json) = run(&map);
        assert!(err.contains("heapscope: warning: ") && err.contains(want), "{want}: {err}");
        assert!(
            json["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains(want)),
            "{want}: {}",
            json["warnings"]
        );
    }
}

/// The map's method lines with line ranges, read separately: (obfuscated class,
/// obfuscated method) → (minified start, end, original start, end) in file order, and
/// each class's recorded source file (obfuscated class → file).
#[allow(clippy::type_complexity)]
fn read_ranges(text: &str) -> (BTreeMap<(String, String), Vec<(u32, u32, u32, u32)>>, BTreeMap<String, String>) {
    let mut ranges: BTreeMap<(String, String), Vec<(u32, u32, u32, u32)>> = BTreeMap::new();
    let mut files = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        let t = line.trim();
        if !line.starts_with(' ') && !t.starts_with('#') && !t.is_empty() {
            current = t.trim_end_matches(':').split_once(" -> ").unwrap().1.to_string();
        } else if let Some(file) = t.strip_prefix("# {\"id\":\"sourceFile\",\"fileName\":\"") {
            files.insert(current.clone(), file.trim_end_matches("\"}").to_string());
        } else if line.starts_with(' ') && t.contains('(') && !t.starts_with('#') {
            let (left, obf) = t.split_once(" -> ").unwrap();
            let n: Vec<&str> = left.split(':').collect();
            // `a:b:ret name(args):x:y`: five parts with both ranges.
            if n.len() == 5 {
                let p = |i: usize| n[i].parse::<u32>().unwrap();
                ranges.entry((current.clone(), obf.to_string())).or_default().push((p(0), p(1), p(3), p(4)));
            }
        }
    }
    (ranges, files)
}

/// With its mapping, no allocation site, thread frame or other JSON field of the report
/// keeps an obfuscated class name or R8's `go/retraceme` placeholder: each site frame is
/// the map's original class, with the line its range gives and the source file it records.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn allocation_sites_and_every_name_of_the_report_are_retraced() {
    let Some(dir) = corpus() else { return };
    let text = std::fs::read_to_string(dir.join(MAP)).unwrap();
    let map = read_map(&text);
    let (ranges, files) = read_ranges(&text);
    let mut plain = session(&dir);
    let mut mapped = session(&dir);
    mapped.apply_mapping(&Mapping::parse_str(&text).unwrap()).unwrap();
    let before = plain.report().unwrap().clone();
    let after = mapped.report().unwrap().clone();
    assert!(before.allocation_sites.recorded && before.allocation_sites.sites.len() > 10);
    assert_eq!(before.allocation_sites.sites.len(), after.allocation_sites.sites.len());
    let mut retraced = 0;
    for (b, a) in before.allocation_sites.sites.iter().zip(&after.allocation_sites.sites) {
        assert_eq!((b.objects, b.shallow_bytes), (a.objects, a.shallow_bytes));
        // No inlined frames in this map: one frame for one.
        assert_eq!(b.frames.len(), a.frames.len(), "{:?} → {:?}", b.frames, a.frames);
        for (fb, fa) in b.frames.iter().zip(&a.frames) {
            let (class, method, sig, location) = frame_parts(fb).unwrap();
            let Some(line) = location.strip_prefix("go/retraceme ").and_then(|l| l.rsplit_once(':')).map(|(_, l)| l)
            else {
                assert_eq!(fb, fa, "a frame R8 did not write is kept");
                continue;
            };
            let line: u32 = line.parse().unwrap();
            let r = &ranges[&(class.clone(), method.clone())];
            let hits: Vec<_> = r.iter().filter(|(a, b, ..)| *a <= line && line <= *b).collect();
            assert_eq!(hits.len(), 1, "{fb}");
            let (a0, _, x, y) = *hits[0];
            let original = if x == y { x } else { x + (line - a0) };
            let class_name = map.get(&class).map_or(class.clone(), |(o, _)| o.clone());
            assert_eq!(*fa, format!("at {class_name}.{method}{sig} ({}:{original})", files[&class]), "{fb}");
            retraced += 1;
        }
        for c in &a.classes {
            assert!(
                !map.iter().any(|(obf, (orig, _))| obf != orig && base(&c.class_name).0 == obf),
                "{}",
                c.class_name
            );
        }
    }
    assert!(retraced > 5, "{retraced} frames retraced");
    // Every string of the JSON report: no obfuscated class name, no placeholder frame.
    let json: serde_json::Value = serde_json::from_str(&heapscope::report::to_json(&after)).unwrap();
    let mut strings = Vec::new();
    let mut stack = vec![(String::new(), &json)];
    while let Some((path, v)) = stack.pop() {
        match v {
            serde_json::Value::Object(o) => stack.extend(o.iter().map(|(k, v)| (format!("{path}.{k}"), v))),
            serde_json::Value::Array(a) => stack.extend(a.iter().map(|v| (format!("{path}[]"), v))),
            serde_json::Value::String(s) => strings.push((path, s.clone())),
            _ => {}
        }
    }
    // The fields that name a class (`Name`, `class Name`, `Name @ 0x…`) or a frame.
    let names_a_class = |path: &str| {
        ["class_name", "class_of_object", "loader", "represented_class", "represented_loader", "frames[]", "frame"]
            .iter()
            .any(|k| path.ends_with(&format!(".{k}")))
            || path.starts_with(".top_consumers.classes[]")
    };
    let mut checked = 0;
    for (path, s) in &strings {
        assert!(!s.contains("go/retraceme"), "{path}: {s}");
        if !names_a_class(path) {
            continue;
        }
        let class = match frame_parts(s) {
            Some((c, ..)) => c,
            None => s.strip_prefix("class ").unwrap_or(s).split(" @ ").next().unwrap().to_string(),
        };
        assert!(!map.iter().any(|(obf, (orig, _))| obf != orig && base(&class).0 == obf), "{path}: {s}");
        checked += 1;
    }
    assert!(checked > 1_000, "{checked} names checked");
}

/// `at CLASS.METHOD(SIG) (LOCATION)` taken apart.
fn frame_parts(s: &str) -> Option<(String, String, String, String)> {
    let rest = s.strip_prefix("at ")?;
    let open = rest.find('(')?;
    let (qualified, tail) = rest.split_at(open);
    let dot = qualified.rfind('.')?;
    let (sig, location) = tail.split_once(" (")?;
    Some((
        qualified[..dot].to_string(),
        qualified[dot + 1..].to_string(),
        sig.to_string(),
        location.strip_suffix(')')?.to_string(),
    ))
}

/// A thread whose stack R8 obfuscated: `a.a` at minified line 2 is `helper` inlined into
/// `run` (the two lines of the map with range 1:3), `b.c` at line 6 is `Strings.format`
/// (another class's method) inlined into `work`, whose parameter type is obfuscated too;
/// `java.lang.Thread.run` is not in the map. The expected frames are read off the map
/// below by its rules (an original range `x:y` maps `a + k` to `x + k`; a caller's single
/// `:x` is the call's line; a file recorded for the class, else the outer class's name).
#[test]
fn thread_frames_are_retraced_with_inlined_methods_expanded() {
    use heapscope::records::basic_type::OBJECT;
    use heapscope::records::tag;
    use support::hprof_builder::{ClassDef, Hprof, Value};
    let map = "com.example.Worker -> a:\n\
        # {\"id\":\"sourceFile\",\"fileName\":\"Worker.java\"}\n\
        \x20   1:3:void helper(int):10:12 -> a\n\
        \x20   1:3:void run():20 -> a\n\
        \x20   4:4:void run():25 -> a\n\
        com.example.Util -> b:\n\
        \x20   5:7:java.lang.String com.example.Strings.format(java.lang.Object[]):30:32 -> c\n\
        \x20   5:7:void work(com.example.Util):40 -> c\n";
    let mut h = Hprof::new(8);
    let strings = [
        (1, "java/lang/Object"),
        (2, "java/lang/Thread"),
        (3, "a"),
        (4, "b"),
        (10, "a"),
        (11, "()V"),
        (12, "go/retraceme 0123abcd"),
        (13, "c"),
        (14, "(Lb;)V"),
        (15, "SourceFile"),
        (16, "run"),
        (17, "Thread.java"),
        (18, "name"),
    ];
    for (id, text) in strings {
        h.string(id, text);
    }
    for (serial, class, name) in [(1, 0x100, 1), (2, 0x108, 2), (3, 0x110, 3), (4, 0x118, 4)] {
        h.load_class(serial, class, name);
    }
    // STACK FRAME: id, method, signature, source file, class serial, line.
    let frame = |h: &mut Hprof, id: u64, method: u64, sig: u64, file: u64, class: u32, line: i32| {
        let mut body = Vec::new();
        for v in [id, method, sig, file] {
            body.extend_from_slice(&v.to_be_bytes());
        }
        body.extend_from_slice(&class.to_be_bytes());
        body.extend_from_slice(&line.to_be_bytes());
        h.record(tag::STACK_FRAME, &body);
    };
    frame(&mut h, 0x51, 10, 11, 12, 3, 2);
    frame(&mut h, 0x52, 13, 14, 15, 4, 6);
    frame(&mut h, 0x53, 16, 11, 17, 2, 750);
    let mut trace = Vec::new();
    trace.extend_from_slice(&7u32.to_be_bytes());
    trace.extend_from_slice(&1u32.to_be_bytes());
    trace.extend_from_slice(&3u32.to_be_bytes());
    for f in [0x51u64, 0x52, 0x53] {
        trace.extend_from_slice(&f.to_be_bytes());
    }
    h.record(tag::STACK_TRACE, &trace);
    let (thread, local) = (0x1000, 0x2000);
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(0x100, 0))
        .class_dump(&ClassDef::new(0x108, 0x100).field(18, OBJECT))
        .class_dump(&ClassDef::new(0x110, 0x100))
        .class_dump(&ClassDef::new(0x118, 0x100));
    for c in [0x100, 0x108, 0x110, 0x118] {
        seg.root_sticky_class(c);
    }
    seg.instance(thread, 0x108, &[Value::Obj(0)]).root_thread_object(thread, 1, 7);
    // A local of the first frame (the physical frame `a.a`).
    seg.instance(local, 0x110, &[]).root_java_frame(local, 1, 0);
    h.segment(&seg).heap_dump_end();

    let mut s = support::session_of(h.into_bytes());
    let plain: Vec<String> = s.features().threads[0].frames.iter().map(|f| f.frame.clone()).collect();
    assert_eq!(
        plain,
        [
            "at a.a()V (go/retraceme 0123abcd:2)",
            "at b.c(Lb;)V (SourceFile:6)",
            "at java.lang.Thread.run()V (Thread.java:750)"
        ]
    );
    s.apply_mapping(&Mapping::parse_str(map).unwrap()).unwrap();
    let t = &s.features().threads[0];
    let frames: Vec<&str> = t.frames.iter().map(|f| f.frame.as_str()).collect();
    assert_eq!(
        frames,
        [
            "at com.example.Worker.helper(I)V (Worker.java:11)",
            "at com.example.Worker.run()V (Worker.java:20)",
            "at com.example.Strings.format([Ljava/lang/Object;)Ljava/lang/String; (Strings.java:31)",
            "at com.example.Util.work(Lcom/example/Util;)V (Util.java:40)",
            "at java.lang.Thread.run()V (Thread.java:750)"
        ]
    );
    // The local stays with the method the stack ran (the last of its inlined frames).
    let locals: Vec<usize> = t.frames.iter().map(|f| f.locals.len()).collect();
    assert_eq!(locals, [0, 1, 0, 0, 0]);
    assert_eq!(t.frames[1].locals[0].class_name, "com.example.Worker");
    // The report's JSON and Markdown have them too.
    let json = heapscope::report::to_json(s.report().unwrap());
    assert!(json.contains("com.example.Worker.helper(I)V (Worker.java:11)") && !json.contains("go/retraceme"));
}

/// `compare --mapping`: the corpus's base and current ahat dumps (one program, one
/// mapping, as the manifest says) compare with their original names: no class row keeps
/// an obfuscated name of the map, and `DumpedStuff$StackSmasher` (obfuscated `o`) is a row
/// on both sides.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn cli_compare_applies_the_mapping_to_both_dumps() {
    let Some(dir) = corpus() else { return };
    let map = read_map(&std::fs::read_to_string(dir.join(MAP)).unwrap());
    let out = Command::new(env!("CARGO_BIN_EXE_heapscope"))
        .args(["-q", "compare", "-f", "json", "--mapping"])
        .arg(dir.join(MAP))
        .arg(dir.join("android/ahat_test_dump_base_8e3b7d7.hprof.gz"))
        .arg(dir.join(DUMP))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["classes"].as_array().unwrap();
    for r in rows {
        let name = r["class_name"].as_str().unwrap();
        assert!(!map.iter().any(|(obf, (orig, _))| obf != orig && base(name).0 == obf), "{name}");
    }
    let smasher = rows.iter().find(|r| r["class_name"] == "DumpedStuff$StackSmasher").expect("a row");
    assert_eq!(smasher["status"], "both");
}
