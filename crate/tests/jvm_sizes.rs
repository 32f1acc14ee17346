//! The JVM's sizes read from the dump, on dumps built here: one per object layout
//! (8-, 12- and 16-byte headers, 4- and 8-byte references, alignment 8 and 16), each with
//! a class the JVM injects a field into, and classes with one instance before a gap. The
//! objects are placed at addresses as the JVM lays them out, each taking the footprint
//! written by hand below (HotSpot's layout rules worked out per layout); the analysis must
//! read those footprints back from the addresses, and size by rule exactly what the
//! addresses cannot decide (a lone instance followed by a gap).

mod support;

use heapscope::analysis::{Options, Sizes};
use heapscope::model::Report;
use heapscope::source::MemorySource;
use support::hprof_builder::{Hprof, Value};
use support::placed::Placed;

const OBJ: u8 = 2;
const INT: u8 = 10;
const LONG: u8 = 11;
const BYTE: u8 = 8;

/// One layout and the footprints its objects take, worked out by hand from HotSpot's
/// layout (header, then primitives largest first, then references, each in the smallest
/// hole it fits, the end aligned).
struct Case {
    name: &'static str,
    header: u32,
    refs: u32,
    align: u64,
    /// Where byte[]/int[] elements start, long[] elements, references of an Object[].
    small_base: u64,
    long_base: u64,
    object_base: u64,
    /// java.lang.Object.
    object: u64,
    /// t.Pair { int a; long b; }
    pair: u64,
    /// java.lang.invoke.MemberName { clazz, name, type, method: references; int flags }
    /// plus the `vmindex` (8 bytes) HotSpot injects.
    member_name: u64,
    /// t.AppLoader extends java.lang.ClassLoader { parent } (plus the injected
    /// `loader_data`, 8 bytes) { name }: one instance, then a gap.
    app_loader: u64,
    /// t.Lone { int a; Object b; }: one instance, then a gap.
    lone: u64,
    /// A class object (mirror) of a class without statics.
    mirror: u64,
    /// t.Statics' mirror: its statics `static Object o; static long l;` after the mirror's
    /// own fields (the reference first, then the long, aligned).
    mirror_statics: u64,
}

const CASES: [Case; 5] = [
    // JDK 25 -XX:+UseCompactObjectHeaders: 8-byte headers; int[] data at 12, long[] at 16.
    Case {
        name: "compact headers",
        header: 8,
        refs: 4,
        align: 8,
        small_base: 12,
        long_base: 16,
        object_base: 12,
        object: 8,
        pair: 24,        // b@8, a@16, end 20
        member_name: 40, // vmindex@8, flags@16, refs@20..36
        app_loader: 24,  // loader_data@8, parent@16, name@20
        lone: 16,        // a@8, b@12
        mirror: 96,
        mirror_statics: 112, // o@96, l@104
    },
    // The default layout: 12-byte headers (compressed class pointers), 4-byte references.
    Case {
        name: "12-byte headers",
        header: 12,
        refs: 4,
        align: 8,
        small_base: 16,
        long_base: 16,
        object_base: 16,
        object: 16,
        pair: 24,        // b@16, a@12 (the header's gap)
        member_name: 40, // vmindex@16, flags@12, refs@24..40
        app_loader: 32,  // loader_data@16, parent@12, name@24, end 28
        lone: 24,        // a@12, b@16, end 20
        mirror: 112,
        mirror_statics: 128, // o@112, l@120
    },
    // JDK 17 -XX:-UseCompressedClassPointers: 16-byte headers, arrays' data at 24.
    Case {
        name: "16-byte headers",
        header: 16,
        refs: 4,
        align: 8,
        small_base: 24,
        long_base: 24,
        object_base: 24,
        object: 16,
        pair: 32,        // b@16, a@24, end 28
        member_name: 48, // vmindex@16, flags@24, refs@28..44
        app_loader: 32,  // loader_data@16, parent@24, name@28
        lone: 24,        // a@16, b@20
        mirror: 120,
        mirror_statics: 136, // o@120, l@128
    },
    // Compact headers without compressed oops (ZGC): 8-byte references.
    Case {
        name: "compact headers, 8-byte references",
        header: 8,
        refs: 8,
        align: 8,
        small_base: 12,
        long_base: 16,
        object_base: 16,
        object: 8,
        pair: 24,        // b@8, a@16, end 20
        member_name: 56, // vmindex@8, flags@16, refs@24..56
        app_loader: 32,  // loader_data@8, parent@16, name@24
        lone: 24,        // a@8, b@16
        mirror: 120,
        mirror_statics: 136, // o@120, l@128
    },
    // -XX:ObjectAlignmentInBytes=16 on the default layout.
    Case {
        name: "alignment 16",
        header: 12,
        refs: 4,
        align: 16,
        small_base: 16,
        long_base: 16,
        object_base: 16,
        object: 16,
        pair: 32,
        member_name: 48,
        app_loader: 32,
        lone: 32,
        mirror: 112,
        mirror_statics: 128,
    },
];

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// The dump of `c`: every object at the footprint `c` gives it. Returns the bytes and
/// the footprints placed per class (HPROF names).
fn build(c: &Case) -> Placed {
    let mut p = Placed::new(Hprof::new(8), 0x7_0000_0000);
    let r = |v: u64| Value::Obj(v);
    // Mirrors first (HotSpot writes every class first; their mirrors are objects too).
    p.class("java/lang/Object", "", &[], &[], c.mirror);
    p.class(
        "java/lang/Class",
        "java/lang/Object",
        &[("name", OBJ), ("classLoader", OBJ), ("classRedefinedCount", INT)],
        &[],
        c.mirror,
    );
    p.class("java/lang/ClassLoader", "java/lang/Object", &[("parent", OBJ)], &[], c.mirror);
    p.class("[B", "java/lang/Object", &[], &[], c.mirror);
    p.class("[I", "java/lang/Object", &[], &[], c.mirror);
    p.class("[J", "java/lang/Object", &[], &[], c.mirror);
    p.class("[Ljava/lang/Object;", "java/lang/Object", &[], &[], c.mirror);
    p.class("t/Pair", "java/lang/Object", &[("a", INT), ("b", LONG)], &[], c.mirror);
    p.class(
        "java/lang/invoke/MemberName",
        "java/lang/Object",
        &[("clazz", OBJ), ("name", OBJ), ("type", OBJ), ("flags", INT), ("method", OBJ)],
        &[],
        c.mirror,
    );
    p.class("t/AppLoader", "java/lang/ClassLoader", &[("name", OBJ)], &[], c.mirror);
    p.class("t/Lone", "java/lang/Object", &[("a", INT), ("b", OBJ)], &[], c.mirror);
    p.class("t/Statics", "java/lang/Object", &[], &[("o", Value::Obj(0)), ("l", Value::Long(7))], c.mirror_statics);
    // Then the heap, in address order.
    for _ in 0..5 {
        p.instance("java/lang/Object", &[], c.object);
    }
    for k in 0..40 {
        p.instance("t/Pair", &[Value::Int(k), Value::Long(k as i64)], c.pair);
    }
    for len in 0..=40u32 {
        p.primitive_array("[B", BYTE, len, align(c.small_base + len as u64, c.align));
    }
    for _ in 0..3 {
        p.instance("java/lang/invoke/MemberName", &[r(0), r(0), r(0), Value::Int(1), r(0)], c.member_name);
    }
    for len in 0..=20u32 {
        p.primitive_array("[I", INT, len, align(c.small_base + 4 * len as u64, c.align));
    }
    p.instance("t/Lone", &[Value::Int(1), r(0)], c.lone);
    p.gap(64);
    for len in 0..=6u32 {
        p.primitive_array("[J", LONG, len, align(c.long_base + 8 * len as u64, c.align));
    }
    for len in 0..=20u32 {
        p.object_array("[Ljava/lang/Object;", len, align(c.object_base + c.refs as u64 * len as u64, c.align));
    }
    // Own fields first, then the super class's (HPROF's order).
    p.instance("t/AppLoader", &[r(0), r(0)], c.app_loader);
    p.gap(64);
    p.instance("java/lang/Object", &[], c.object);
    p
}

/// The display name of an HPROF class name.
fn display(name: &str) -> String {
    match name {
        "[B" => "byte[]".into(),
        "[I" => "int[]".into(),
        "[J" => "long[]".into(),
        "[Ljava/lang/Object;" => "java.lang.Object[]".into(),
        n => n.replace('/', "."),
    }
}

fn report(bytes: Vec<u8>, sizes: Sizes) -> Report {
    let options = Options { sizes, ..Options::default() };
    let a = support::core(Box::new(MemorySource::new(bytes)), &options).expect("analysis");
    support::core_report(&a)
}

#[test]
fn every_layout_is_read_back_from_the_addresses() {
    for c in &CASES {
        let placed = build(c);
        let want = placed.placed.clone();
        let r = report(placed.into_bytes(), Sizes::default());
        let layout = r.dump.layout.as_ref().expect("the report states the layout");
        assert_eq!(layout.sizes, Sizes::Jvm, "{}: the JVM's sizes by default", c.name);
        assert!(layout.from_addresses, "{}: {}", c.name, layout.description);
        assert_eq!(
            (layout.header_bytes, layout.reference_bytes, layout.alignment_bytes as u64),
            (c.header, c.refs, c.align),
            "{}: {}",
            c.name,
            layout.description
        );
        let base = |e: &str| layout.array_bases.iter().find(|b| b.element == e).map(|b| b.bytes as u64);
        assert_eq!(
            (base("byte"), base("int"), base("long"), base("object")),
            (Some(c.small_base), Some(c.small_base), Some(c.long_base), Some(c.object_base)),
            "{}: array bases",
            c.name
        );
        // Every class's objects weigh what they were placed with: the histogram, by name.
        for (name, &(bytes, objects)) in &want {
            let row = r.histogram.iter().find(|h| h.class_name == display(name)).expect("a histogram row");
            assert_eq!((row.instances, row.shallow_bytes), (objects, bytes), "{}: {}", c.name, display(name));
        }
        // MAT's pseudo object for the bootstrap loader: no object of the JVM's.
        let loader = r.histogram.iter().find(|h| h.class_name == "java.lang.ClassLoader").expect("0x0's row");
        assert_eq!((loader.instances, loader.shallow_bytes), (1, 0), "{}", c.name);
        let total: u64 = want.values().map(|v| v.0).sum();
        assert_eq!(r.overview.used_heap_bytes, total, "{}: the used heap", c.name);
        // What the addresses could not decide is named: the lone instances before a gap,
        // sized by the rules (which the footprints above follow).
        let mut by_rule: Vec<&str> = layout.sized_by_rule.iter().map(|c| c.class_name.as_str()).collect();
        by_rule.sort();
        assert_eq!(by_rule, ["t.AppLoader", "t.Lone"], "{}: {}", c.name, layout.description);
        assert_eq!(layout.classes_sized_by_rule, 2);
        // MAT's model of the same objects, as `--sizes mat` computes it.
        let mat = report(build(c).into_bytes(), Sizes::Mat);
        assert_eq!(mat.dump.layout.as_ref().map(|l| l.sizes), Some(Sizes::Mat));
        assert_eq!(layout.mat_used_heap_bytes, Some(mat.overview.used_heap_bytes), "{}: MAT's used heap", c.name);
        let diff = layout.mat_difference.as_deref().expect("the difference in words");
        assert!(diff.starts_with("Eclipse MAT would report"), "{diff}");
        // Compact and 16-byte headers are not MAT's 12 (16 without compressed oops).
        let mat_header = if c.refs == 4 { 12 } else { 16 };
        assert_eq!(diff.contains("-byte object header"), c.header != mat_header, "{}: {diff}", c.name);
        eprintln!("{}: {}. {diff}", c.name, layout.description);
    }
}

#[test]
fn a_lone_instance_next_to_the_next_object_is_read_from_the_addresses() {
    // t.Lone with no gap after it, on every layout: measured, not sized by rule.
    for c in &CASES {
        let mut p = Placed::new(Hprof::new(8), 0x7_0000_0000);
        p.class("java/lang/Object", "", &[], &[], c.mirror);
        p.class("java/lang/Class", "java/lang/Object", &[], &[], c.mirror);
        p.class("[B", "java/lang/Object", &[], &[], c.mirror);
        p.class("[Ljava/lang/Object;", "java/lang/Object", &[], &[], c.mirror);
        p.class("t/Lone", "java/lang/Object", &[("a", INT), ("b", OBJ)], &[], c.mirror);
        for len in 0..=40u32 {
            p.primitive_array("[B", BYTE, len, align(c.small_base + len as u64, c.align));
        }
        // Object arrays show the reference size (as in every real dump).
        for len in 0..=20u32 {
            p.object_array("[Ljava/lang/Object;", len, align(c.object_base + c.refs as u64 * len as u64, c.align));
        }
        p.instance("t/Lone", &[Value::Int(1), Value::Obj(0)], c.lone);
        p.instance("java/lang/Object", &[], c.object);
        p.instance("java/lang/Object", &[], c.object);
        let r = report(p.into_bytes(), Sizes::Jvm);
        let row = r.histogram.iter().find(|h| h.class_name == "t.Lone").expect("t.Lone");
        assert_eq!(row.shallow_bytes, c.lone, "{}", c.name);
        let layout = r.dump.layout.as_ref().expect("layout");
        assert_eq!(layout.classes_sized_by_rule, 0, "{}: {:?}", c.name, layout.sized_by_rule);
    }
}

#[test]
fn identifiers_that_are_not_addresses_size_everything_by_rule() {
    // Every object 8 bytes after the one before: no array fits before the next object.
    let mut p = Placed::new(Hprof::new(8), 0x10_0000);
    p.class("java/lang/Object", "", &[], &[], 8);
    p.class("java/lang/Class", "java/lang/Object", &[], &[], 8);
    p.class("[B", "java/lang/Object", &[], &[], 8);
    p.class("t/Pair", "java/lang/Object", &[("a", INT), ("b", LONG)], &[], 8);
    for len in 0..=40u32 {
        p.primitive_array("[B", BYTE, len, 8);
    }
    for k in 0..10 {
        p.instance("t/Pair", &[Value::Int(k), Value::Long(0)], 8);
    }
    let r = report(p.into_bytes(), Sizes::Jvm);
    let layout = r.dump.layout.as_ref().expect("layout");
    assert!(!layout.from_addresses, "{}", layout.description);
    assert!(layout.description.contains("not addresses"), "{}", layout.description);
    // MAT's header assumption (8-byte ids, references 8 bytes: 16), HotSpot's packing:
    // b@16, a@24, end 28.
    assert_eq!(layout.header_bytes, 16);
    let row = |n: &str| r.histogram.iter().find(|h| h.class_name == n).expect(n).clone();
    assert_eq!(row("t.Pair").shallow_bytes, 10 * 32);
    // Arrays: the length after the header, the data word-aligned (24).
    assert_eq!(row("byte[]").shallow_bytes, (0..=40u64).map(|n| align(24 + n, 8)).sum::<u64>());
    let named: Vec<&str> = layout.sized_by_rule.iter().map(|c| c.class_name.as_str()).collect();
    for n in ["t.Pair", "byte[]", "java.lang.Class"] {
        assert!(named.contains(&n), "{n} is named among {named:?}");
    }
}

#[test]
fn android_sizes_come_from_the_class_records() {
    // ART: identifiers are addresses in size brackets (every object 32 bytes apart here):
    // the runtime's own instance size, written in each class record, is the size.
    let mut p = Placed::new(Hprof::android(), 0x1200_0000);
    p.class_sized("java.lang.Object", "", &[("shadow$_klass_", OBJ), ("shadow$_monitor_", INT)], &[], 32, 8);
    p.class_sized("java.lang.Class", "java.lang.Object", &[], &[], 32, 100);
    p.class_sized("byte[]", "java.lang.Object", &[], &[], 32, 0);
    p.class_sized("long[]", "java.lang.Object", &[], &[], 32, 0);
    p.class_sized("t.Node", "java.lang.Object", &[("next", OBJ), ("v", INT)], &[], 32, 16);
    p.class_sized("t.Odd", "java.lang.Object", &[("v", INT), ("w", INT), ("b", BYTE)], &[], 32, 17);
    for _ in 0..4 {
        p.instance("t.Node", &[Value::Obj(0), Value::Int(0), Value::Obj(0), Value::Int(0)], 32);
    }
    p.instance("t.Odd", &[Value::Int(0), Value::Int(0), Value::Byte(0), Value::Obj(0), Value::Int(0)], 32);
    for len in [0u32, 5, 20] {
        p.primitive_array("byte[]", BYTE, len, 32);
    }
    p.primitive_array("long[]", LONG, 2, 32);
    let r = report(p.into_bytes(), Sizes::Jvm);
    let layout = r.dump.layout.as_ref().expect("layout");
    assert_eq!((layout.vm.as_str(), layout.header_bytes, layout.reference_bytes), ("art", 8, 4));
    assert!(!layout.from_addresses);
    let row = |n: &str| r.histogram.iter().find(|h| h.class_name == n).expect(n).shallow_bytes;
    assert_eq!(row("t.Node"), 4 * 16);
    assert_eq!(row("t.Odd"), 24, "17 bytes, aligned to 8");
    // Arrays: an 8-byte header and the length, 8-byte elements at 16.
    assert_eq!(row("byte[]"), 16 + 24 + 32);
    assert_eq!(row("long[]"), 16 + 16);
    // Class objects: java.lang.Class's record size (100, aligned to 104).
    assert_eq!(row("java.lang.Class"), 6 * 104);
}

/// A JVM histogram name as heapscope displays it: `[B` → `byte[]`,
/// `[[Ljava.lang.Object;` → `java.lang.Object[][]`.
fn jvm_name(name: &str) -> String {
    let dims = name.bytes().take_while(|&b| b == b'[').count();
    if dims == 0 {
        // Hidden classes: the JVM writes `Shapes$$Lambda/0x…`, HPROF `Shapes$$Lambda+0x…`.
        return name.replace("/0x", "+0x");
    }
    let element = &name[dims..];
    let base = match element {
        "B" => "byte",
        "C" => "char",
        "D" => "double",
        "F" => "float",
        "I" => "int",
        "J" => "long",
        "S" => "short",
        "Z" => "boolean",
        e => e.strip_prefix('L').and_then(|e| e.strip_suffix(';')).unwrap_or(e),
    };
    format!("{base}{}", "[]".repeat(dims))
}

/// `jcmd PID GC.class_histogram`: (class name as displayed, instances, bytes), summed by name.
fn jvm_histogram(text: &str) -> std::collections::BTreeMap<String, (u64, u64)> {
    let mut out = std::collections::BTreeMap::new();
    for line in text.lines() {
        let mut w = line.split_whitespace();
        let (Some(num), Some(inst), Some(bytes), Some(name)) = (w.next(), w.next(), w.next(), w.next()) else {
            continue;
        };
        if !num.ends_with(':') {
            continue;
        }
        let (Ok(inst), Ok(bytes)) = (inst.parse::<u64>(), bytes.parse::<u64>()) else { continue };
        let e: &mut (u64, u64) = out.entry(jvm_name(name)).or_default();
        e.0 += inst;
        e.1 += bytes;
    }
    out
}

/// The layouts corpus (`../shared/corpus/layouts/`, see its README): every class whose
/// instance count equals the JVM's own histogram's has the JVM's shallow bytes, byte for
/// byte, on every layout. Classes whose counts differ (fillers, objects freed between the
/// histogram and the dump, objects MAT's reading discards) cannot be compared by bytes:
/// they are named, as are the classes sized by rule.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn the_layouts_corpus_matches_the_jvms_histogram() {
    let Some(corpus) = support::corpus_dir() else { return };
    let dir = corpus.join("layouts");
    let mut dumps: Vec<_> = std::fs::read_dir(&dir)
        .expect("layouts/")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.to_string_lossy().ends_with(".hprof.gz"))
        .collect();
    dumps.sort();
    assert!(dumps.len() >= 7, "the seven layout dumps of {}", dir.display());
    let mut failures = Vec::new();
    for path in &dumps {
        let stem = path.file_name().unwrap().to_string_lossy().trim_end_matches(".hprof.gz").to_string();
        let text = std::fs::read_to_string(dir.join(format!("{stem}.class_histogram.txt"))).expect("histogram");
        let jvm = jvm_histogram(&text);
        // Every object, as the JVM counts them (MAT's reading discards those unreachable
        // from the roots HPROF lists), then the default reading.
        for keep_unreachable in [true, false] {
            let stem = format!("{stem}{}", if keep_unreachable { " (--keep-unreachable)" } else { "" });
            let options = Options { keep_unreachable, ..Options::default() };
            let a = support::core(support::open_dump(path), &options).expect("analysis");
            let r = support::core_report(&a);
            let layout = r.dump.layout.as_ref().expect("layout");
            let mut ours: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
            for h in &r.histogram {
                let e = ours.entry(h.class_name.as_str()).or_default();
                e.0 += h.instances;
                e.1 += h.shallow_bytes;
            }
            let (mut matched, mut wrong, mut counts_differ, mut absent) = (0, Vec::new(), Vec::new(), Vec::new());
            for (name, &(inst, bytes)) in &jvm {
                match ours.get(name.as_str()) {
                    None => absent.push(name.clone()),
                    Some(&(i, _)) if i != inst => counts_differ.push(format!("{name} ({i} vs the JVM's {inst})")),
                    Some(&(_, b)) if b == bytes => matched += 1,
                    Some(&(_, b)) => wrong.push(format!("{name}: {b} bytes, the JVM's {bytes} ({inst} instances)")),
                }
            }
            let by_rule: Vec<String> =
                layout.sized_by_rule.iter().map(|c| format!("{} ({})", c.class_name, c.objects)).collect();
            eprintln!(
                "{stem}: {}. {matched} of {} classes equal the JVM's bytes; {} wrong; counts differ: {} [{}]; \
             not in ours: {} [{}]; sized by rule: {} [{}]; used heap {} vs the JVM's {}",
                layout.description,
                jvm.len(),
                wrong.len(),
                counts_differ.len(),
                counts_differ.join(", "),
                absent.len(),
                absent.join(", "),
                layout.classes_sized_by_rule,
                by_rule.join(", "),
                r.overview.used_heap_bytes,
                jvm.values().map(|v| v.1).sum::<u64>(),
            );
            assert_eq!(layout.sizes, Sizes::Jvm);
            assert!(layout.from_addresses, "{stem}: {}", layout.description);
            // The dump information says the layout and what MAT would report instead.
            let md = heapscope::render::markdown::render(&r);
            let line = md.lines().find(|l| l.starts_with("Object layout: ")).expect("the layout line");
            assert!(line.contains(&format!("{}-byte references", layout.reference_bytes)), "{line}");
            assert!(line.contains("Eclipse MAT would report"), "{stem}: {line}");
            // Not vacuous: most classes are compared, and the used heap is the JVM's within
            // what the classes whose counts differ account for.
            assert!(matched * 100 >= jvm.len() * 85, "{stem}: only {matched} of {} classes compared", jvm.len());
            let theirs: u64 = jvm.values().map(|v| v.1).sum();
            assert!(r.overview.used_heap_bytes.abs_diff(theirs) * 50 <= theirs, "{stem}: used heap");
            failures.extend(wrong.into_iter().map(|w| format!("{stem}: {w}")));
        }
    }
    assert!(failures.is_empty(), "classes whose bytes differ from the JVM's:\n{}", failures.join("\n"));
}

/// `compare` of two dumps of different layouts says so (compact headers against the
/// default layout), and of one dump against itself in the two sizes.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn compare_says_when_the_layouts_or_sizes_differ() {
    let Some(corpus) = support::corpus_dir() else { return };
    let load = |name: &str, sizes: Sizes| {
        let path = corpus.join("layouts").join(format!("{name}.hprof.gz"));
        let options = Options { sizes, ..Options::default() };
        heapscope::session::input::load(&path, &options, &mut heapscope::analysis::NoProgress).expect("loads")
    };
    let compact = load("jdk25_compact_serial", Sizes::Jvm);
    let legacy = load("jdk25_legacy_parallel", Sizes::Jvm);
    let options = heapscope::compare::Options::default();
    let cmp = heapscope::compare::compare(&legacy, &compact, &options).expect("comparable");
    let said = cmp.warnings.iter().find(|w| w.contains("different object layouts")).expect("the layouts differ");
    assert!(said.contains("compact object headers (8 bytes)") && said.contains("12-byte object headers"), "{said}");
    let same = heapscope::compare::compare(&compact, &compact, &options).unwrap();
    assert!(!same.warnings.iter().any(|w| w.contains("layout") || w.contains("sizes")), "{:?}", same.warnings);
    let mat = load("jdk25_compact_serial", Sizes::Mat);
    let cmp = heapscope::compare::compare(&mat, &compact, &options).unwrap();
    assert!(cmp.warnings.iter().any(|w| w.contains("Eclipse MAT's sizes")), "{:?}", cmp.warnings);
}
