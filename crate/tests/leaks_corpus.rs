//! The leak finder on the corpus (checked against what its dumps hold by construction,
//! `../shared/corpus/MANIFEST.md`), its committed JSON Schema, its place in the report
//! (JSON, Markdown, HTML) and the command line.

#[path = "support/scene.rs"]
mod scene;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use heapscope::analysis::{analyze, NoProgress, Options};
use heapscope::model::leaks::{FoundBy, LeakKind, Leaking, Leaks, ReferenceKind};
use heapscope::report::{self, SourceInfo};
use heapscope::source::MemorySource;
use scene::{Scene, BOOLEAN, OBJECT, V};

fn repo_file(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn committed_leaks_schema_equals_the_derived_one() {
    assert!(
        repo_file("schema/leaks.schema.json") == heapscope::leaks::json_schema(),
        "schema/leaks.schema.json is stale: regenerate it with `cargo run --release -- schema --leaks > schema/leaks.schema.json`"
    );
}

fn leaks_of(path: &Path, mapping: Option<&Path>) -> Leaks {
    let mut a = analyze(support::open_dump(path), &Options::default(), &mut NoProgress, &mut ()).unwrap();
    if let Some(m) = mapping {
        let m = heapscope::mapping::Mapping::parse(std::io::BufReader::new(std::fs::File::open(m).unwrap())).unwrap();
        heapscope::mapping::apply(&mut a, &m, None);
    }
    heapscope::leaks::find(&mut a).unwrap()
}

fn android(name: &str) -> Option<PathBuf> {
    Some(support::corpus_dir()?.join("android").join(name))
}

/// LeakCanary 1.x watching `LeakyService` (key b3abfae6-…), which the app also keeps
/// through the binders in its static `LeakyService.leakAllTheBinders`: the app's leak,
/// traced from the class through that list and `LeakyService$MyBinder.service`.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn the_leakcanary_dump_leaks_the_watched_service_through_the_apps_list_of_binders() {
    let Some(dump) = android("leakcanary_leak_service_binder.hprof.gz") else { return };
    let l = leaks_of(&dump, None);
    let watched: Vec<_> = l
        .leaks
        .iter()
        .flat_map(|x| x.instances.iter().map(move |i| (x, i)))
        .filter(|(_, i)| i.found_by == FoundBy::Watched)
        .collect();
    assert_eq!(watched.len(), 1, "{l:#?}");
    let (leak, i) = watched[0];
    assert_eq!(leak.kind, LeakKind::Application);
    assert_eq!(i.class_name, "com.example.leakcanary.LeakyService");
    assert_eq!(i.watch.as_ref().unwrap().key, "b3abfae6-2c53-42e1-b8c1-96b0558dbeae");
    // LeakCanary 1.x records no uptimes: no durations.
    assert_eq!(i.watch.as_ref().unwrap().watch_duration_ms, None);
    let t = &i.trace;
    assert_eq!(t[0].class_name, "com.example.leakcanary.LeakyService", "the trace starts at the class's static field");
    assert_eq!(t[0].root_type.as_deref(), Some("System Class"));
    let r0 = t[0].reference.as_ref().unwrap();
    assert_eq!((r0.kind, r0.name.as_str()), (ReferenceKind::StaticField, "leakAllTheBinders"));
    let n = t.len();
    assert_eq!(t[n - 2].class_name, "com.example.leakcanary.LeakyService$MyBinder");
    assert_eq!(t[n - 2].reference.as_ref().unwrap().name, "service");
    assert_eq!(t[n - 1].leaking, Leaking::Yes);
    assert!(t[n - 1].reasons.iter().any(|r| r.starts_with("ObjectWatcher was watching this")));
    assert!(t.iter().all(|s| s.root_type.is_none() || s.object == t[0].object));
    assert!(l.leaks.iter().all(|x| x.kind == LeakKind::Application), "the app's list holds every binder");
    assert_eq!(l.android.as_ref().unwrap().sdk_int, Some(19));
    // Deterministic.
    assert_eq!(heapscope::leaks::to_json(&l), heapscope::leaks::to_json(&leaks_of(&dump, None)));
}

/// ahat's test dumps (with and without its R8 mapping, and hprof-conv'd): a host ART
/// program with weak, soft and phantom references but no Android framework and no
/// LeakCanary: nothing to report, and the notes say why.
#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn the_ahat_dumps_have_nothing_to_look_for() {
    let Some(dir) = android("") else { return };
    let map = dir.join("ahat_test_dump_8e3b7d7.map");
    for (name, mapping) in [
        ("ahat_test_dump_8e3b7d7", Some(&map)),
        ("ahat_test_dump_8e3b7d7", None),
        ("ahat_test_dump_base_8e3b7d7", Some(&map)),
        ("ahat_test_dump_8e3b7d7_hprofconv", None),
    ] {
        let l = leaks_of(&dir.join(format!("{name}.hprof.gz")), mapping.map(|m| m.as_path()));
        assert!(l.leaks.is_empty(), "{name}");
        assert!(l.notes.iter().any(|n| n.starts_with("No LeakCanary watch references")), "{name}: {:?}", l.notes);
        assert!(l.notes.iter().any(|n| n.starts_with("No Android lifecycle classes")), "{name}: {:?}", l.notes);
        assert!(l.android.is_none(), "{name}");
    }
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn java_dumps_say_what_was_looked_for() {
    let Some(corpus) = support::corpus_dir() else { return };
    for name in ["s01_hello_serial_live", "s04_references_serial_all", "s05_finalizer_serial_all"] {
        let l = leaks_of(&corpus.join("dumps").join(format!("{name}.hprof.gz")), None);
        assert!(l.leaks.is_empty(), "{name}");
        assert_eq!(l.notes.len(), 3, "{name}: {:?}", l.notes);
        assert!(l.notes[2].contains("leak suspects"), "{name}: {:?}", l.notes);
    }
}

// ---------------------------------------------------------------------------------------
// The report and the command line.

/// A destroyed activity of a class whose name is markup, held by a static field.
fn markup_dump() -> Vec<u8> {
    let mut s = Scene::new();
    s.class("android.content.Context", Some("java.lang.Object"), &[]);
    s.class("android.content.ContextWrapper", Some("android.content.Context"), &[("mBase", OBJECT)]);
    s.class("android.app.Activity", Some("android.content.ContextWrapper"), &[("mDestroyed", BOOLEAN)]);
    s.class("com.example.<img src=x onerror=alert(1)>", Some("android.app.Activity"), &[]);
    s.class("com.example.Holder", Some("java.lang.Object"), &[]);
    let a = s.instance("com.example.<img src=x onerror=alert(1)>", &[("mDestroyed", V::Bool(true))]);
    s.static_field("com.example.Holder", "held", V::Ref(a));
    s.bytes()
}

#[test]
fn the_report_has_a_leaks_section_before_the_leak_suspects() {
    let a = analyze(Box::new(MemorySource::new(markup_dump())), &Options::default(), &mut NoProgress, &mut ()).unwrap();
    let info = SourceInfo { file_name: Some("scene.hprof".into()), file_bytes: 0, gzip: false };
    let r = support::core_report(&a);
    assert!(r.leaks.is_none());
    // Without leaks the JSON has no key (older readers keep working).
    assert!(!report::to_json(&r).contains("\"leaks\""));
    // The session finds them for its report.
    let source = Box::new(MemorySource::new(markup_dump()));
    let mut s = heapscope::session::Session::open(source, &Options::default(), &mut NoProgress, info).unwrap();
    let r = s.report().unwrap().clone();
    assert_eq!(r.leaks.as_ref(), Some(s.leaks().unwrap()));
    assert_eq!(r.leaks.as_ref().unwrap().leaks.len(), 1);
    let json = report::to_json(&r);
    let back = report::from_json(&json).unwrap();
    assert_eq!(back, r);
    let md = heapscope::render::markdown::render(&r);
    let (leaks_at, suspects_at) = (md.find("## Leaks").expect("a Leaks section"), md.find("## Leak Suspects").unwrap());
    assert!(leaks_at < suspects_at);
    assert!(md.contains("╰→ com.example.<img src=x onerror=alert(1)> instance"), "the trace is code, shown as it is");
    assert!(md.contains("~~~~"));
    // Outside the code block, the name is escaped.
    assert!(md.contains("com.example.&lt;img src=x onerror=alert(1)&gt;"));
    let html = heapscope::render::html::render(&r);
    assert!(!html.contains("<img"), "markup from the dump stays text");
    assert!(html.contains("<pre>") && html.contains("&lt;img src=x onerror=alert(1)&gt; instance"));
    assert!(html.find("<h2>Leaks</h2>").unwrap() < html.find("<h2>Leak Suspects</h2>").unwrap());
}

fn heapscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_heapscope")).args(args).output().expect("heapscope runs")
}

#[test]
fn the_leaks_command_draws_traces_writes_json_and_markdown() {
    let dir = support::TempDir::new("leaks-cli");
    let dump = dir.path().join("scene.hprof");
    std::fs::write(&dump, markup_dump()).unwrap();
    let d = dump.to_str().unwrap();
    let out = heapscope(&["leaks", "-q", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "1 application leak, 0 library leaks",
        "┬───",
        "│ GC Root: System class",
        "├─ com.example.Holder class",
        "│    ↓ static Holder.held",
        "│                    ~~~~",
        "╰→ com.example.<img src=x onerror=alert(1)> instance",
        "Leaking: YES (Activity#mDestroyed is true)",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    let json_path = dir.path().join("leaks.json");
    let out = heapscope(&["leaks", "-q", d, "-o", json_path.to_str().unwrap()]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(json["leaks"][0]["kind"], "application");
    assert_eq!(json["leaks"][0]["instances"][0]["found_by"], "lifecycle");
    assert_eq!(json["leaks"][0]["instances"][0]["watch"], serde_json::Value::Null);
    assert_eq!(json["leaks"][0]["instances"][0]["trace"][0]["root_type"], "System Class");
    assert_eq!(json["leaks"][0]["instances"][0]["trace"][0]["reference"]["kind"], "static_field");
    assert_eq!(json["leaks"][0]["instances"][0]["trace"][1]["leaking"], "YES");
    assert!(json["leaks"][0]["instances"][0]["trace"][1].get("reference").is_none());
    let out = heapscope(&["leaks", "-q", d, "--format", "md", "--tree", "strength"]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.starts_with("# Leaks: scene.hprof") && md.contains("strength dominator tree"), "{md}");
    // The schema command prints the committed schema.
    let out = heapscope(&["schema", "--leaks"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), repo_file("schema/leaks.schema.json"));
    // analyze: the section in the report; nothing on a piped stderr.
    let out = heapscope(&["analyze", d, "--format", "json"]);
    assert!(out.status.success());
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["leaks"]["leaks"][0]["count"], 1);
    // On a terminal (script(1) from util-linux gives one), the one-line summary; none with
    // --quiet.
    let report = dir.path().join("r.md");
    let tty = |extra: &str| {
        let cmd = format!("'{}' analyze '{d}' -o '{}' {extra}", env!("CARGO_BIN_EXE_heapscope"), report.display());
        let o = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("script(1) runs");
        assert!(o.status.success(), "{cmd}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let shown = tty("");
    assert!(
        shown.contains("heapscope: leaks: 1 application leak (16 bytes retained), 0 library leaks, 1 leaking object"),
        "{shown}"
    );
    assert!(!tty("--quiet").contains("leaks:"));
    assert!(std::fs::read_to_string(&report).unwrap().contains("## Leaks"));
}
