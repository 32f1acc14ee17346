//! A real program's OutOfMemoryError answered in its own terms (issue 42): the javadoc
//! dump of `../shared/corpus/realapp/` against its construction (its README) and Eclipse
//! MAT's numbers (`realapp/expected/`); `render --detail` against `analyze --detail`; a
//! dump cut short.

mod support;

use heapscope::analysis::Options;
use heapscope::model::{Detail, LeakVerdict};
use heapscope::report::{self, SourceInfo};
use heapscope::session::{Answer, Query, Session};
use serde_json::Value as Json;
use support::dump::{Dump, BYTE, OBJ};
use support::hprof_builder::{Hprof, Value as V};

/// `n` with thousands separators: 1561 → "1,561".
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn mat_sizes() -> Options {
    Options { sizes: heapscope::analysis::Sizes::Mat, ..Options::default() }
}

fn session_at(path: &std::path::Path, detail: Detail) -> Session {
    let info = SourceInfo {
        file_name: path.file_name().map(|n| n.to_string_lossy().to_string()),
        file_bytes: std::fs::metadata(path).unwrap().len(),
        gzip: true,
    };
    let mut s =
        // In Eclipse MAT's sizes: the numbers here are checked against MAT's.
        Session::open(support::open_dump(path), &mat_sizes(), &mut heapscope::analysis::NoProgress, info)
            .expect("analysis");
    s.set_detail(detail);
    s
}

/// The int field `name` of the object at `address`, read back from the dump.
fn int_field(s: &mut Session, address: &str, name: &str) -> i64 {
    let Answer::Object(o) = s.answer(&Query::Object { object: address.to_string() }).unwrap() else { panic!() };
    o.fields.iter().find(|f| f.name == name && !f.is_static).unwrap().value.parse().unwrap()
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn javadoc_out_of_memory_names_the_frame_the_list_and_its_units() {
    let Some(corpus) = support::corpus_dir() else { return };
    let dir = corpus.join("realapp");
    let mat: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected/javadoc17_xml_oom.json")).unwrap()).unwrap();
    let mut s = session_at(&dir.join("dumps/javadoc17_xml_oom.hprof.gz"), Detail::DEFAULT);
    let r = s.report().unwrap().clone();

    // MAT's one suspect: the main thread, its retained size.
    let mat_suspect = &mat["leak_suspects"]["suspects"][0];
    assert_eq!(r.leak_suspects.suspects.len(), 1);
    let sus = &r.leak_suspects.suspects[0];
    assert_eq!(sus.object.address, mat_suspect["object"].as_str().unwrap());
    assert_eq!(sus.retained_bytes, mat_suspect["retained"].as_u64().unwrap());

    // The frame: the README's `JavadocTool.parse (JavadocTool.java:288)`, whose caller
    // `JavadocTool.getEnvironment` holds the same ListBuffer; MAT's thread overview lists
    // exactly those two frames with that local.
    let f = sus.frame.as_ref().expect("a running frame holds it");
    assert_eq!(f.thread_name.as_deref(), Some("main"));
    assert_eq!(f.local.class_name, "com.sun.tools.javac.util.ListBuffer");
    assert_eq!(f.how, "local");
    assert_eq!(f.frame.short, "JavadocTool.parse (JavadocTool.java:288)");
    assert_eq!(f.frame.method, "jdk.javadoc.internal.tool.JavadocTool.parse");
    assert_eq!((f.frame.file.as_deref(), f.frame.line), (Some("JavadocTool.java"), Some(288)));
    let also: Vec<&str> = f.also_in.iter().map(|x| x.short.as_str()).collect();
    assert_eq!(also, ["JavadocTool.getEnvironment (JavadocTool.java:169)"]);
    let main = mat["threads"]["threads"].as_array().unwrap().iter().find(|t| t["name"] == "main").unwrap();
    let mat_frames: Vec<&str> = main["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|fr| fr["locals"].as_array().unwrap().iter().any(|l| l.as_str() == Some(f.local.address.as_str())))
        .map(|fr| fr["text"].as_str().unwrap())
        .collect();
    assert_eq!(mat_frames.len(), 2, "{mat_frames:?}");
    assert!(
        mat_frames[0].starts_with("at jdk.javadoc.internal.tool.JavadocTool.parse(")
            && mat_frames[0].ends_with("(JavadocTool.java:288)")
    );
    assert!(
        mat_frames[1].starts_with("at jdk.javadoc.internal.tool.JavadocTool.getEnvironment(")
            && mat_frames[1].ends_with("(JavadocTool.java:169)")
    );
    assert_eq!(
        f.depth as usize,
        main["frames"].as_array().unwrap().iter().position(|fr| fr["text"] == mat_frames[0]).unwrap()
    );

    // The structure: the ListBuffer, whose members are its `count` List nodes, a chain by
    // `tail` (its last node also held by the buffer's `last`), each holding a parsed
    // file's JCCompilationUnit by `head`; MAT's histogram has one unit more (the file
    // being parsed, in a frame of its own).
    let count = int_field(&mut s, &f.local.address, "count") as u64;
    let st = sus.structure.as_ref().unwrap();
    assert_eq!(st.point.address, f.local.address);
    assert_eq!(st.members, count);
    assert_eq!(st.chains[0].class_name, "com.sun.tools.javac.util.List");
    assert_eq!(st.chains[0].field.as_deref(), Some("tail"));
    assert_eq!(st.chains[0].nodes, count - 1);
    assert_eq!((st.groups[0].class_name.as_str(), st.groups[0].objects), ("com.sun.tools.javac.util.List", count));
    let each = sus.each_holds.as_ref().unwrap();
    assert_eq!(
        (each.class_name.as_str(), each.field.as_str()),
        ("com.sun.tools.javac.tree.JCTree$JCCompilationUnit", "head")
    );
    let units = mat["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["class"] == "com.sun.tools.javac.tree.JCTree$JCCompilationUnit")
        .unwrap()["instances"]
        .as_u64()
        .unwrap();
    assert_eq!(count + 1, units);
    assert_eq!(sus.accumulation_point_elements, Some(count));
    // What the nodes hold together is what the buffer retains without itself.
    assert_eq!(st.groups[0].retained_bytes, st.point.retained_bytes - st.point.shallow_bytes);
    let headline = sus.headline.as_deref().unwrap();
    let expected = format!(
        "main's stack, in JavadocTool.parse (JavadocTool.java:288) and 1 more frame: a ListBuffer holding {} × \
         JCTree$JCCompilationUnit, linked through List.tail, about ",
        thousands(count)
    );
    assert!(headline.starts_with(&expected), "{headline}");

    // The triage tells the same story: a working set, one place, nothing leaked.
    let t = r.oom_triage.as_ref().unwrap();
    assert_eq!(t.verdict, LeakVerdict::WorkingSet);
    assert_eq!((t.suspects, t.accumulation_points), (1, 1));
    assert!(t.verdict_text.contains(headline) && t.verdict_text.contains("nothing leaked"), "{}", t.verdict_text);

    // Readable at the default detail: at most 600 lines, the answer in the first screen.
    let md = heapscope::render::markdown::render(&r);
    let lines: Vec<&str> = md.lines().collect();
    assert!(lines.len() <= 600, "{} lines", lines.len());
    let first = lines[..24].join("\n").replace('\\', "");
    assert!(first.contains(headline), "{first}");
    // A local held in two slots of one frame is listed once.
    let parse_frame = md.find("JavadocTool.parse(Ljava").unwrap();
    let next_frame = parse_frame + md[parse_frame..].find("| at ").unwrap();
    assert_eq!(md[parse_frame..next_frame].matches(&f.local.address).count(), 1);
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn render_applies_the_detail_caps_as_analyze_does() {
    let Some(corpus) = support::corpus_dir() else { return };
    // (dump, the detail a report is saved at, the detail it is rendered at).
    let cases = [
        ("realapp/dumps/javadoc17_xml_oom.hprof.gz", Detail::DEFAULT, Detail::MINIMAL),
        ("dumps/s03_threadlocal_leak_serial.hprof.gz", Detail::MAX, Detail::DEFAULT),
        ("dumps/s03_threadlocal_leak_serial.hprof.gz", Detail::MAX, Detail::MINIMAL),
        ("android/ahat_test_dump_8e3b7d7.hprof.gz", Detail::MAX, Detail::DEFAULT),
        ("android/ahat_test_dump_8e3b7d7.hprof.gz", Detail::DEFAULT, Detail::MINIMAL),
    ];
    for (name, saved_at, asked) in cases {
        let path = corpus.join(name);
        let saved = session_at(&path, saved_at).report().unwrap().clone();
        let built = session_at(&path, asked).report().unwrap().clone();
        let cut = report::caps::within(&saved, &asked);
        assert_eq!(report::to_json(&cut), report::to_json(&built), "{name}: {saved_at:?} cut to {asked:?}");
        // And what the command line writes from them, Markdown included.
        let md = |r| {
            heapscope::render::markdown::render_with(
                r,
                &heapscope::render::RenderOptions { detail: asked, graphs: false },
            )
        };
        assert_eq!(md(&cut), md(&built), "{name}");
        assert_eq!(report::caps::within(&built, &asked), built, "{name}: cutting to its own caps changes nothing");
    }
}

/// A dump with a list reached only from a static field, whose class record comes last:
/// cut anywhere before it, the list's nodes have no GC root in the part read.
fn listed_dump() -> Vec<u8> {
    let mut d = Dump::new(Hprof::new(8));
    d.class("java.lang.Class", "java.lang.Object", &[]);
    d.primitive_array_class(BYTE);
    d.class("c.Cons", "java.lang.Object", &[("head", OBJ), ("tail", OBJ)]);
    let mut next = 0;
    for i in 0..200u32 {
        let b = d.prim(BYTE, 100 + i, &vec![3; 100 + i as usize]);
        next = d.obj("c.Cons", &[("head", V::Obj(b)), ("tail", V::Obj(next))]);
    }
    d.class_with_statics("c.App", "java.lang.Object", &[], &[("LIST", V::Obj(next))]);
    d.sticky_classes = true;
    d.into_bytes()
}

#[test]
fn a_dump_cut_short_discards_nothing_it_cannot_know_is_garbage() {
    let bytes = listed_dump();
    let whole = support::session_of(bytes.clone()).report().unwrap().clone();
    assert!(whole.complete);
    assert_eq!(whole.overview.unreachable.objects, 0);
    let records = |r: &heapscope::model::Report| {
        let c = &r.overview.records;
        c.instances + c.object_arrays + c.primitive_arrays + c.classes
    };
    // The whole dump keeps every record's object (and the pseudo objects the analysis adds).
    let extra = whole.overview.objects - records(&whole);
    assert!(extra <= 1, "{extra}");
    for cut in [bytes.len() / 3, bytes.len() / 2, bytes.len() * 3 / 4, bytes.len() - 40] {
        let mut s = support::session(
            Box::new(heapscope::source::MemorySource::new(bytes[..cut].to_vec())),
            &Options::default(),
        )
        .unwrap();
        let r = s.report().unwrap().clone();
        assert!(!r.complete, "cut at {cut}");
        // Every object read is kept (the whole dump reaches them all): none discarded.
        assert_eq!(r.overview.unreachable.objects, 0, "cut at {cut}");
        assert_eq!(r.overview.objects, records(&r) + extra, "cut at {cut}");
        let t = r.oom_triage.as_ref().unwrap();
        assert_eq!(t.verdict, LeakVerdict::Incomplete, "cut at {cut}");
        let c = t.cut.as_ref().unwrap();
        assert_eq!(c.offset, r.incomplete.as_ref().unwrap().offset);
        // What no root in the part read reaches: before the class with the static field,
        // the list's nodes and arrays read, and the class object of `byte[]` (an array
        // class: with no sticky-class record read, only the other classes are roots).
        let unrooted =
            r.reachability.iter().find(|x| x.strength == heapscope::model::StrengthName::Unreachable).unwrap();
        assert_eq!((c.unrooted_objects, c.unrooted_bytes), (unrooted.objects, unrooted.shallow_bytes));
        if cut <= bytes.len() / 2 {
            assert_eq!(
                c.unrooted_objects,
                r.overview.records.instances + r.overview.records.primitive_arrays + 1,
                "cut at {cut}"
            );
        }
        assert!(t.verdict_text.starts_with("No verdict: the dump ends at byte"), "{}", t.verdict_text);
    }
}
