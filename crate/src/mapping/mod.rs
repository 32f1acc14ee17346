//! ProGuard/R8 mapping files (`mapping.txt`): deobfuscating class, field and method names.
//!
//! A mapping lists each renamed class at column 0 as `original.Name -> obfuscated:`,
//! followed by its members, indented: fields as `type originalName -> obfuscatedName`,
//! methods as `[start:end:]returnType originalName(args)[:line[:line]] -> obfuscatedName`.
//! Lines starting with `#` (at any indentation) are comments or R8's JSON metadata, of
//! which the class's source file and a method's synthesized mark are kept.
//!
//! [`Mapping::parse`] reads the file line by line (each line at most [`MAX_LINE`] bytes,
//! memory linear in the file) and never panics: a malformed line is an error naming its
//! line number. [`apply`] renames an analyzed dump's classes to their original names (the
//! report, histogram and queries then show only original names; array classes
//! `o[]` become `Outer$Inner[]`) and gives the index the original names of their declared
//! fields for the inspector and paths (`Index::field_renames`). Applying again (another
//! mapping) starts from the dump's own names. Cost: O(classes + fields) after an O(file)
//! parse. Stack frames (threads, allocation sites) are retraced with the method lines'
//! line ranges by [`retrace`].

use std::collections::BTreeMap;
use std::io::BufRead;

pub mod retrace;

use crate::analysis::Analysis;
use crate::error::{Error, Result};
pub use retrace::{MethodLine, RetracedFrame};

/// Longest line accepted (R8 lines with inlining metadata stay far below it).
pub const MAX_LINE: usize = 64 << 10;

/// The members of one class in a mapping.
#[derive(Debug, Clone, Default)]
pub struct ClassMapping {
    /// The original (source) name, dotted: `com.example.Foo$Bar`.
    pub original: String,
    /// Obfuscated field name → original name.
    pub fields: BTreeMap<String, String>,
    /// Obfuscated method name → original names (several when R8 merged overloads
    /// into one obfuscated name; the order is the file's).
    pub methods: BTreeMap<String, Vec<String>>,
    /// The source file R8 recorded for the class (`# {"id":"sourceFile",…}`).
    pub source_file: Option<String>,
    /// The method lines with their line ranges, in the file's order (for retracing
    /// frames: [`retrace`]).
    pub lines: Vec<MethodLine>,
}

/// A parsed mapping, keyed by obfuscated class name.
#[derive(Debug, Clone, Default)]
pub struct Mapping {
    pub classes: BTreeMap<String, ClassMapping>,
    /// Original class name → obfuscated name.
    pub obfuscated_of: BTreeMap<String, String>,
}

fn error(line: u64, message: impl std::fmt::Display) -> Error {
    Error::invalid(format!("mapping file, line {line}: {message}"))
}

impl Mapping {
    /// Parses a mapping from text (the page hands the file's text over).
    pub fn parse_str(text: &str) -> Result<Mapping> {
        Mapping::parse(text.as_bytes())
    }

    /// Parses a mapping, streaming its lines.
    pub fn parse(mut reader: impl BufRead) -> Result<Mapping> {
        let mut mapping = Mapping::default();
        // The obfuscated name of the class the member lines belong to.
        let mut current: Option<String> = None;
        // Whether the current class had member lines yet (its source file comes before).
        let mut members_seen = false;
        // Whether the last member line was a method's (R8's synthesized mark follows it).
        let mut last_was_method = false;
        let mut buf = Vec::new();
        let mut line_no = 0u64;
        loop {
            buf.clear();
            let n = std::io::Read::take(&mut reader, MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut buf)
                .map_err(|e| Error::io(format!("cannot read the mapping file: {e}")))?;
            if n == 0 {
                break;
            }
            line_no += 1;
            if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
                return Err(error(line_no, format!("line longer than {MAX_LINE} bytes")));
            }
            let line = std::str::from_utf8(&buf).map_err(|_| error(line_no, "not UTF-8 text"))?;
            let line = line.trim_end_matches(['\n', '\r']);
            let trimmed = line.trim();
            if let Some(comment) = trimmed.strip_prefix('#') {
                if let Some(class) = current.as_ref().and_then(|c| mapping.classes.get_mut(c)) {
                    metadata(class, comment, members_seen, last_was_method);
                }
                continue;
            }
            if trimmed.is_empty() {
                continue;
            }
            let indented = line.starts_with([' ', '\t']);
            if !indented {
                let (original, obfuscated) = parse_class_line(trimmed).map_err(|m| error(line_no, m))?;
                let entry = mapping.classes.entry(obfuscated.to_string()).or_default();
                entry.original = original.to_string();
                mapping.obfuscated_of.insert(original.to_string(), obfuscated.to_string());
                current = Some(obfuscated.to_string());
                members_seen = false;
                last_was_method = false;
            } else {
                let Some(class) = current.as_ref().and_then(|c| mapping.classes.get_mut(c)) else {
                    return Err(error(line_no, "a member line before any class line"));
                };
                let (left, obfuscated) = split_arrow(trimmed)
                    .ok_or_else(|| error(line_no, "expected `type name -> obfuscated` (no ` -> `)"))?;
                check_name(obfuscated).map_err(|m| error(line_no, m))?;
                members_seen = true;
                last_was_method = left.contains('(');
                if let Some(paren) = left.find('(') {
                    class.lines.push(retrace::parse_method_line(left, obfuscated).map_err(|m| error(line_no, m))?);
                    let name = member_name(&left[..paren]).map_err(|m| error(line_no, m))?;
                    // Inlined methods carry their declaring class: `com.a.B.m`. Keep `m`.
                    let name = name.rsplit('.').next().unwrap_or(name);
                    let originals = class.methods.entry(obfuscated.to_string()).or_default();
                    if !originals.iter().any(|o| o == name) {
                        originals.push(name.to_string());
                    }
                } else {
                    let name = member_name(left).map_err(|m| error(line_no, m))?;
                    class.fields.insert(obfuscated.to_string(), name.to_string());
                }
            }
        }
        Ok(mapping)
    }

    /// The original name of a class given its obfuscated display name (arrays included:
    /// `o[][]` → `Outer$Inner[][]`), if the mapping renames it.
    pub fn class_name(&self, obfuscated: &str) -> Option<String> {
        let base = obfuscated.trim_end_matches("[]");
        let dims = (obfuscated.len() - base.len()) / 2;
        let original = &self.classes.get(base)?.original;
        Some(format!("{original}{}", "[]".repeat(dims)))
    }

    /// The original name of field `obfuscated` declared by class `class` (obfuscated name).
    pub fn field_name(&self, class: &str, obfuscated: &str) -> Option<&str> {
        self.classes.get(class)?.fields.get(obfuscated).map(String::as_str)
    }

    /// The original name of method `obfuscated` of class `class` (obfuscated name):
    /// `a|b` when R8 gave several methods the same obfuscated name.
    pub fn method_name(&self, class: &str, obfuscated: &str) -> Option<String> {
        self.classes.get(class)?.methods.get(obfuscated).map(|m| m.join("|"))
    }
}

/// R8's metadata in a comment (`# {"id":"sourceFile","fileName":"Foo.java"}`, `#
/// {"id":"com.android.tools.r8.synthesized"}`): the class's source file before its
/// members, a method's synthesized mark after it. Other comments are ignored.
fn metadata(class: &mut ClassMapping, comment: &str, members_seen: bool, last_was_method: bool) {
    let text = comment.trim();
    if !text.starts_with('{') {
        return;
    }
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else { return };
    match value.get("id").and_then(|v| v.as_str()) {
        Some("sourceFile") if !members_seen => {
            if let Some(file) = value.get("fileName").and_then(|v| v.as_str()) {
                class.source_file = Some(file.to_string());
            }
        }
        Some("com.android.tools.r8.synthesized") if last_was_method => {
            if let Some(last) = class.lines.last_mut() {
                last.synthesized = true;
            }
        }
        _ => {}
    }
}

fn split_arrow(s: &str) -> Option<(&str, &str)> {
    let (l, r) = s.split_once(" -> ")?;
    Some((l.trim(), r.trim()))
}

fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("`{name}` is not a name"));
    }
    Ok(())
}

/// `original -> obfuscated:`.
fn parse_class_line(line: &str) -> std::result::Result<(&str, &str), String> {
    let body = line.strip_suffix(':').ok_or("a class line must end with `:` (`original -> obfuscated:`)")?;
    let (original, obfuscated) = split_arrow(body).ok_or("expected `original -> obfuscated:` (no ` -> `)")?;
    check_name(original)?;
    check_name(obfuscated)?;
    Ok((original, obfuscated))
}

/// The name in `[start:end:]type name`: the last whitespace-separated word.
fn member_name(left: &str) -> std::result::Result<&str, String> {
    let mut words = left.split_whitespace();
    let name = words.next_back().ok_or("missing the member's name")?;
    if words.next_back().is_none() {
        return Err(format!("expected `type name` before ` -> `, found `{left}`"));
    }
    Ok(name)
}

/// Whether a class name looks like an obfuscator's: its simple name (after the last `.`
/// or `$`, arrays aside) is one or two lower-case ASCII letters, as R8 and ProGuard name
/// what they rename (`a`, `a.b`, `com.example.ab`, `Outer$c`; not Android's `R$id`).
pub fn looks_obfuscated(name: &str) -> bool {
    let base = name.trim_end_matches("[]");
    let simple = base.rsplit(['.', '$']).next().unwrap_or(base);
    // Android's resource classes (`R$id`, `R$string`) keep their short names.
    let resources = base.rsplit('.').next().is_some_and(|s| s.starts_with("R$"));
    !resources && (1..=2).contains(&simple.len()) && simple.bytes().all(|b| b.is_ascii_lowercase())
}

/// Classes a mapping must name before its fit is judged (fewer say little either way).
const FIT_MIN_CLASSES: u64 = 10;

/// A mapping applied to an analysis: the dump's own class names (to apply another
/// mapping later), how many classes were renamed, and whether the mapping fits the dump.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    /// The class names as the dump wrote them, by class index.
    pub dump_names: Vec<String>,
    /// Classes renamed.
    pub renamed: u64,
    /// Classes of the dump whose own names look obfuscated ([`looks_obfuscated`]).
    pub obfuscated: u64,
    /// Of those, the ones the mapping renamed.
    pub obfuscated_renamed: u64,
    /// Classes renamed that declare a field the mapping does not list for them (an R8
    /// mapping lists every field of a class it names).
    pub fields_unknown: u64,
    /// Classes renamed that declare fields, each of them listed by the mapping.
    pub fields_known: u64,
    /// What is wrong with the fit, when the mapping matches almost none of the dump's
    /// classes (then it is probably another build's).
    pub warning: Option<String>,
}

/// A count with thousands separators.
fn count(n: u64) -> String {
    crate::model::format::thousands(n)
}

impl Applied {
    /// The warning on the fit of the mapping (None: it fits, or too little to tell).
    fn judge(&self) -> Option<String> {
        const ANOTHER: &str = "it is probably another build's mapping";
        if self.renamed == 0 {
            return Some(format!(
                "the mapping names none of the dump's {} classes: {ANOTHER} (no name was changed)",
                count(self.dump_names.len() as u64)
            ));
        }
        if self.obfuscated >= FIT_MIN_CLASSES && self.obfuscated_renamed * 10 < self.obfuscated {
            return Some(format!(
                "the mapping renames only {} of the dump's {} classes whose names look obfuscated (a, a.b, …): {ANOTHER}",
                count(self.obfuscated_renamed),
                count(self.obfuscated)
            ));
        }
        let with_fields = self.fields_unknown + self.fields_known;
        if with_fields >= FIT_MIN_CLASSES / 2 && self.fields_unknown > self.fields_known {
            return Some(format!(
                "{} of the {} classes with fields the mapping renames declare fields it does not list: {ANOTHER}, and the names it gave may be wrong",
                count(self.fields_unknown),
                count(with_fields)
            ));
        }
        None
    }
}

/// Renames the classes (and fields: `Index::field_renames`) of `analysis` as `mapping`
/// says, starting from the dump's own names (`previous`: what an earlier call returned,
/// whose mapping this one replaces).
pub fn apply(analysis: &mut Analysis, mapping: &Mapping, previous: Option<Applied>) -> Applied {
    let index = &mut analysis.heap.index;
    let classes = &mut index.classes.classes;
    let dump_names = match previous {
        Some(previous) => previous.dump_names,
        None => classes.iter().map(|c| c.name.clone()).collect(),
    };
    let strings = &index.strings;
    let mut renames = BTreeMap::new();
    let mut applied = Applied { dump_names, ..Applied::default() };
    for (k, class) in classes.iter_mut().enumerate() {
        let dump_name = &applied.dump_names[k];
        let obfuscated = looks_obfuscated(dump_name);
        applied.obfuscated += obfuscated as u64;
        class.name = match mapping.class_name(dump_name) {
            Some(original) => {
                applied.renamed += 1;
                applied.obfuscated_renamed += obfuscated as u64;
                original
            }
            None => dump_name.clone(),
        };
        let Some(members) = mapping.classes.get(dump_name.as_str()) else { continue };
        let ids = class.fields.iter().map(|f| f.name_id).chain(class.statics.iter().map(|s| s.name_id));
        let (mut unknown, mut known) = (false, false);
        for id in ids {
            let name = strings.name(id);
            match members.fields.get(&name) {
                Some(original) => {
                    known = true;
                    renames.insert((k as u32, id), original.clone());
                }
                // ART's own fields of every object and class are in no mapping.
                None => unknown |= !(name.starts_with('$') || name.starts_with("shadow$")),
            }
        }
        applied.fields_unknown += unknown as u64;
        applied.fields_known += (known && !unknown) as u64;
    }
    index.field_renames = renames;
    applied.warning = applied.judge();
    applied
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# compiler: R8\n\
        com.example.Outer$Inner -> a.b:\n\
        # {\"id\":\"sourceFile\",\"fileName\":\"Outer.java\"}\n\
        \x20   java.lang.String label -> a\n\
        \x20     # {\"id\":\"com.android.tools.r8.residualsignature\"}\n\
        \x20   int count -> b\n\
        \x20   1:4:void doIt(int):10:13 -> c\n\
        \x20   void doIt(long) -> c\n\
        \x20   5:5:void com.example.Other.helper():20:20 -> d\n\
        Plain -> Plain:\n";

    #[test]
    fn parses_classes_fields_and_methods() {
        let m = Mapping::parse_str(SAMPLE).unwrap();
        assert_eq!(m.class_name("a.b").as_deref(), Some("com.example.Outer$Inner"));
        assert_eq!(m.class_name("a.b[][]").as_deref(), Some("com.example.Outer$Inner[][]"));
        assert_eq!(m.class_name("Plain").as_deref(), Some("Plain"));
        assert_eq!(m.class_name("a.c"), None);
        assert_eq!(m.field_name("a.b", "a"), Some("label"));
        assert_eq!(m.field_name("a.b", "b"), Some("count"));
        assert_eq!(m.method_name("a.b", "c").as_deref(), Some("doIt"));
        assert_eq!(m.method_name("a.b", "d").as_deref(), Some("helper"));
    }

    #[test]
    fn obfuscated_names_are_one_or_two_lower_case_letters() {
        for name in ["a", "a.b", "com.example.ab", "Outer$c", "a[]", "a.b.c[][]"] {
            assert!(looks_obfuscated(name), "{name}");
        }
        for name in ["A", "abc", "java.lang.String", "R$id", "Outer$1", "a.Bc", "int[]", "x1"] {
            assert!(!looks_obfuscated(name), "{name}");
        }
    }

    #[test]
    fn bad_lines_are_errors_with_their_line_number() {
        let cases: [(&[u8], u64); 6] = [
            (b"a -> b\n", 1),
            (b"a -> b:\n  int x\n", 2),
            (b"# c\n  int x -> y\n", 2),
            (b"a -> b:\n  x -> y\n", 2),
            (b"a ->  :\n", 1),
            (b"a -> b:\n\n\xff -> c:\n", 3),
        ];
        for (text, line) in cases {
            let e = Mapping::parse(text).unwrap_err();
            assert!(e.message.contains(&format!("line {line}:")), "{text:?}: {}", e.message);
        }
        let long = format!("a -> b:\n  int {} -> c\n", "x".repeat(MAX_LINE));
        let e = Mapping::parse_str(&long).unwrap_err();
        assert!(e.message.contains("line 2:") && e.message.contains("longer"), "{}", e.message);
    }

    #[test]
    fn never_panics_on_arbitrary_bytes() {
        // Every prefix of a valid file, and byte soup: parse or error, never panic.
        for end in 0..SAMPLE.len() {
            let _ = Mapping::parse(&SAMPLE.as_bytes()[..end]);
        }
        let mut x = 0x2545_f491_u32;
        for _ in 0..200 {
            let bytes: Vec<u8> = (0..300)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    b"ab.:- >\n\t#()[]$"[(x % 15) as usize]
                })
                .collect();
            let _ = Mapping::parse(bytes.as_slice());
        }
    }
}
