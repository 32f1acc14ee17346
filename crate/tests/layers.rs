//! The crate's modules form a pipeline, and every import points down it: a module may use
//! only the modules listed before it in [`LAYERS`] (and its own submodules). This test
//! reads every `.rs` file under `crate/src` (the command line's own crate, `bin/`, aside),
//! resolves each `crate::…` and `super::…` path in its code — `use` lines and inline
//! paths alike, test code included, comments not — to the top-level module it names, and
//! fails on any path that names a module listed after the file's own. It also checks that
//! the list names every top-level module, and that the README's layout table lists them
//! in the same order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The pipeline, in order: each module may import only those before it.
const LAYERS: &[&str] = &[
    "text",
    "error",
    "alloc",
    "bits",
    "big_blocks",
    "model",
    "source",
    "records",
    "rules",
    "index",
    "graph",
    "dominators",
    "retained",
    "strength",
    "analysis",
    "readback",
    "search",
    "holders",
    "query",
    "values",
    "mapping",
    "threads",
    "heaps",
    "waste",
    "leaks",
    "report",
    "render",
    "compare",
    "session",
    "warm_up",
    "fuzzing",
    "wasm",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, with its module path (`["records", "heap"]`).
fn files(dir: &Path, module: &[String], out: &mut Vec<(PathBuf, Vec<String>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("src is readable").map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if module.is_empty() && name == "bin" {
                continue;
            }
            let mut m = module.to_vec();
            m.push(name);
            files(&path, &m, out);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let mut m = module.to_vec();
            if stem != "mod" && stem != "lib" {
                m.push(stem.to_string());
            }
            out.push((path, m));
        }
    }
}

/// The code of `text` without comments (line comments, doc comments, block comments)
/// and without the contents of string literals (a message may mention `crate::x`).
fn code(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'"' {
            // A string literal (raw strings of this crate hold no `"` before their end).
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal ('"' would otherwise open a string).
            let close = b[i + 1..].iter().position(|&c| c == b'\'').map_or(b.len(), |p| i + 1 + p);
            i = close + 1;
            out.push_str("' '");
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The top-level modules the code of a file at `module` names through `crate::` and
/// `super::` paths (a `crate::{a::x, b}` group names each of its items), each with the
/// line it is on.
fn imports(text: &str, module: &[String]) -> Vec<(String, usize)> {
    let code = code(text);
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < code.len() {
        let boundary = at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        let tail = &code[at..];
        if boundary && tail.starts_with("crate::") {
            let t = &tail["crate::".len()..];
            if let Some(group) = t.strip_prefix('{') {
                // The group's top-level items, up to its closing brace.
                let mut depth = 0;
                let mut item_start = 0;
                for (k, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            found.push((first_segment(&group[item_start..k]), line_of(at)));
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            found.push((first_segment(&group[item_start..k]), line_of(at)));
                            item_start = k + 1;
                        }
                        _ => {}
                    }
                }
            } else {
                found.push((first_segment(t), line_of(at)));
            }
        } else if boundary && tail.starts_with("super::") {
            // `super::` climbs from the file's module (for `mod.rs`, the folder's).
            let mut t = tail;
            let mut up = 0;
            while let Some(r) = t.strip_prefix("super::") {
                up += 1;
                t = r;
            }
            let base = &module[..module.len().saturating_sub(up)];
            let target = match base.first() {
                Some(top) => top.clone(),
                None => first_segment(t),
            };
            found.push((target, line_of(at)));
        }
        at += tail.chars().next().map_or(1, char::len_utf8);
    }
    found.retain(|(t, _)| !t.is_empty() && t != "self");
    found
}

fn first_segment(t: &str) -> String {
    let t = t.trim_start();
    t.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// Every import that runs back up the pipeline: (file, line, its module, the module named).
fn violations(all: &[(PathBuf, Vec<String>)]) -> Vec<String> {
    let rank: BTreeMap<&str, usize> = LAYERS.iter().enumerate().map(|(k, m)| (*m, k)).collect();
    let mut out = Vec::new();
    for (path, module) in all {
        let Some(own) = module.first() else { continue };
        let text = std::fs::read_to_string(path).unwrap();
        out.extend(check(&text, module, &rank).into_iter().map(|(line, target)| {
            format!("{}:{line}: `{own}` imports `{target}`, which comes after it", path.display())
        }));
    }
    out
}

/// The lines of one file (at `module`) that import a module after its own.
fn check(text: &str, module: &[String], rank: &BTreeMap<&str, usize>) -> Vec<(usize, String)> {
    let own = &module[0];
    let Some(&own_rank) = rank.get(own.as_str()) else { return vec![(0, format!("{own} (not in LAYERS)"))] };
    imports(text, module)
        .into_iter()
        .filter(|(t, _)| t != own)
        .filter_map(|(t, line)| match rank.get(t.as_str()) {
            Some(&r) if r > own_rank => Some((line, t)),
            _ => None,
        })
        .collect()
}

#[test]
fn every_import_points_down_the_pipeline() {
    let mut all = Vec::new();
    files(&src(), &[], &mut all);
    let bad = violations(&all);
    assert!(bad.is_empty(), "imports that run back up the pipeline:\n{}", bad.join("\n"));
}

#[test]
fn lib_declares_every_module_in_pipeline_order() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let declared: Vec<String> = code(&lib)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ").or_else(|| l.trim().strip_prefix("mod ")))
        .map(|m| m.trim_end_matches(';').trim().to_string())
        .collect();
    let listed: Vec<String> = LAYERS.iter().map(|s| s.to_string()).collect();
    assert_eq!(declared, listed, "crate/src/lib.rs must declare the modules of LAYERS, in that order");
}

#[test]
fn the_readme_lists_the_layers_in_order() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    // The layout table: rows whose first cell names modules in backquotes.
    let start = readme.find("## Layout").expect("the README has a Layout section");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let mut named = Vec::new();
    for line in section[..end].lines().filter(|l| l.starts_with('|')) {
        let first = line.split('|').nth(1).unwrap_or("");
        for part in first.split('`').skip(1).step_by(2) {
            let m = part.trim_end_matches('/');
            if LAYERS.contains(&m) {
                named.push(m.to_string());
            }
        }
    }
    let listed: Vec<String> = LAYERS.iter().map(|s| s.to_string()).collect();
    assert_eq!(named, listed, "the README's layout table must name every module, in pipeline order");
}

#[test]
fn a_planted_upward_import_is_caught() {
    let rank: BTreeMap<&str, usize> = LAYERS.iter().enumerate().map(|(k, m)| (*m, k)).collect();
    let records = vec!["records".to_string(), "heap".to_string()];
    let planted = "use crate::error::Result;\nuse crate::report;\n";
    assert_eq!(check(planted, &records, &rank), vec![(2, "report".to_string())]);
    // Inline paths, grouped imports, `super::super::` from a nested file, test code.
    let inline = "fn f() { let _ = crate::session::Session::open; }\n";
    assert_eq!(check(inline, &records, &rank), vec![(1, "session".to_string())]);
    let grouped = "use crate::{\n    error::Result,\n    query::{find, object},\n};\n";
    assert_eq!(check(grouped, &records, &rank), vec![(1, "query".to_string())]);
    let nested = vec!["index".to_string(), "classes".to_string(), "x".to_string()];
    assert_eq!(check("use super::super::super::waste::Kept;\n", &nested, &rank), vec![(1, "waste".to_string())]);
    assert_eq!(check("#[cfg(test)]\nmod tests {\n    use crate::analysis::Analysis;\n}\n", &records, &rank).len(), 1);
    // Comments and strings do not count.
    assert!(
        check("// use crate::report;\n/// [`crate::session`]\nlet s = \"crate::wasm\";\n", &records, &rank).is_empty()
    );
}
