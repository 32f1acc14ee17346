//! Stack frames retraced through a mapping, as R8's `retrace` does: the obfuscated class,
//! method and line of a frame become the original class, method, source file and line,
//! and one frame becomes several where R8 inlined methods into it.
//!
//! What a mapping says about a method (R8's documented format, `doc/retrace.md` in R8's
//! sources, and ProGuard's): a member line `[a:b:]type name(args)[:x[:y]] -> obfuscated`
//! maps the obfuscated method's (minified) lines `a..b` to the original lines `x..y`;
//! `name` may be qualified (`com.a.B.m`) when the code comes from another class. Lines
//! with the same minified range, one after the other, are one inline stack, innermost
//! first: the first is the inlined method, each next one its caller (whose single `:x` is
//! the line of the call). A line without `a:b:` maps no particular lines.
//!
//! Retracing a frame at minified line `L` (R8's rules):
//! - the candidates are the obfuscated method's lines whose range holds `L`; when none
//!   does, its lines without a range; when there are none either, all its lines, and the
//!   line is then unknown. A frame without a line takes the lines without a range first;
//! - the original line of a candidate: `L` itself when the line gives no minified range
//!   or no original one; else `x` when its original range is one line (or the caller's
//!   single `:x`), `x + (L - a)` for a range;
//! - several inline stacks among the candidates (overloads R8 gave one name) leave the
//!   frame ambiguous: one frame naming each method (`a|b`), the line kept only when they
//!   agree;
//! - frames R8 marked synthesized (`com.android.tools.r8.synthesized`) are left out of
//!   an inline stack that has other frames;
//! - the source file is the one the mapping records for the original class (R8's
//!   `sourceFile` metadata); else, as R8 infers it, the outer class's simple name with
//!   `.java` (`.kt` for a `…Kt` class when the frame's file was a Kotlin one or had no
//!   extension), since an obfuscated frame's file (`SourceFile`, R8's
//!   `go/retraceme <map id>` placeholder) names nothing. `Native Method` stays.
//!
//! The method's JVM descriptor comes from the original signature in the mapping
//! (`void <init>(boolean)` → `(Z)V`); where the mapping has none for the method, the
//! frame's own descriptor with its obfuscated class names mapped.

use super::Mapping;
use crate::model::names::simple_name;

/// One method line of a class in a mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodLine {
    /// The obfuscated method name.
    pub obfuscated: String,
    /// Minified lines `a:b:` (None when the line has none).
    pub minified: Option<(u32, u32)>,
    /// The class the code comes from when the name is qualified (`com.a.B.m`: `com.a.B`).
    pub class: Option<String>,
    /// The original method name.
    pub name: String,
    /// The original signature as a JVM descriptor (`(Z)V`), when its types read as Java
    /// types.
    pub descriptor: Option<String>,
    /// Original lines `:x:y` (`:x` is `x..x`), None when the line gives none.
    pub original: Option<(u32, u32)>,
    /// R8 marked the method synthesized.
    pub synthesized: bool,
}

/// One frame after retracing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetracedFrame {
    pub class: String,
    pub method: String,
    /// The JVM descriptor, `(Z)V`.
    pub descriptor: String,
    pub source_file: String,
    /// A line when positive; otherwise the frame's own code (0 none, -1 unknown, -2
    /// compiled, -3 native).
    pub line: i32,
}

fn number(s: &str) -> Result<u32, String> {
    s.trim().parse::<u32>().map_err(|_| format!("`{s}` is not a line number"))
}

/// Reads `[a:b:]type name(args)[:x[:y]]` (the part before ` -> `).
pub fn parse_method_line(left: &str, obfuscated: &str) -> Result<MethodLine, String> {
    let open = left.find('(').ok_or("a method without `(`")?;
    let close = left[open..].find(')').map(|i| open + i).ok_or("a method without `)`")?;
    let head = &left[..open];
    // Leading line numbers: `a:b:` (or `a:`), before the return type.
    let mut parts: Vec<&str> = head.split(':').collect();
    let declaration = parts.pop().unwrap_or_default();
    let minified = match parts.as_slice() {
        [] => None,
        [a] => {
            let a = number(a)?;
            Some((a, a))
        }
        [a, b] => Some((number(a)?, number(b)?)),
        _ => return Err(format!("expected `start:end:` before the method, found `{head}`")),
    };
    let mut words = declaration.split_whitespace();
    let qualified = words.next_back().ok_or("missing the method's name")?;
    let return_type = words.next_back().ok_or("expected `type name(args)`")?;
    let (class, name) = match qualified.rfind('.') {
        Some(i) => (Some(qualified[..i].to_string()), qualified[i + 1..].to_string()),
        None => (None, qualified.to_string()),
    };
    let args: Vec<&str> = left[open + 1..close].split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let descriptor = descriptor(return_type, &args);
    let tail = left[close + 1..].trim();
    let original = if tail.is_empty() {
        None
    } else {
        let t = tail.strip_prefix(':').ok_or_else(|| format!("unexpected `{tail}` after the arguments"))?;
        match t.split(':').collect::<Vec<_>>().as_slice() {
            [x] => {
                let x = number(x)?;
                Some((x, x))
            }
            [x, y] => Some((number(x)?, number(y)?)),
            _ => return Err(format!("expected `:line` or `:start:end` after the arguments, found `{tail}`")),
        }
    };
    Ok(MethodLine {
        obfuscated: obfuscated.to_string(),
        minified,
        class,
        name,
        descriptor,
        original,
        synthesized: false,
    })
}

/// A Java type name as a JVM descriptor: `int[]` → `[I`, `java.lang.String` →
/// `Ljava/lang/String;` (None for what is not a type name).
fn type_descriptor(t: &str) -> Option<String> {
    let base = t.trim_end_matches("[]");
    let dims = (t.len() - base.len()) / 2;
    if base.is_empty() || base.contains(|c: char| c.is_whitespace() || c == '[' || c == ']') {
        return None;
    }
    let one = match base {
        "boolean" => "Z".to_string(),
        "byte" => "B".to_string(),
        "char" => "C".to_string(),
        "short" => "S".to_string(),
        "int" => "I".to_string(),
        "long" => "J".to_string(),
        "float" => "F".to_string(),
        "double" => "D".to_string(),
        "void" if dims == 0 => "V".to_string(),
        "void" => return None,
        class => format!("L{};", class.replace('.', "/")),
    };
    Some(format!("{}{one}", "[".repeat(dims)))
}

/// `(args)return` as a JVM descriptor.
fn descriptor(return_type: &str, args: &[&str]) -> Option<String> {
    let mut s = String::from("(");
    for a in args {
        s.push_str(&type_descriptor(a)?);
    }
    s.push(')');
    s.push_str(&type_descriptor(return_type)?);
    Some(s)
}

/// The original line of `l` at minified line `at` (R8's rule, see the module's doc).
fn original_line(l: &MethodLine, at: Option<u32>) -> Option<u32> {
    match (l.minified, l.original) {
        (None, _) | (_, None) => at,
        (Some(_), Some((x, y))) if x == y => Some(x),
        (Some((a, _)), Some((x, _))) => at.map(|at| x.saturating_add(at.saturating_sub(a))),
    }
}

/// R8's inferred source file for `class` (an original name), from the frame's own file.
pub fn infer_source_file(class: &str, frame_file: &str) -> String {
    if frame_file == "Native Method" {
        return frame_file.to_string();
    }
    let file_name = frame_file.rsplit('/').next().unwrap_or(frame_file);
    let extension = file_name.rfind('.').map_or("", |i| &file_name[i + 1..]);
    let simple = simple_name(class);
    let outer = simple.split('$').next().unwrap_or(simple);
    match outer.strip_suffix("Kt") {
        Some(stem) if extension.is_empty() || extension == "kt" => format!("{stem}.kt"),
        _ if extension == "kt" => format!("{outer}.kt"),
        _ => format!("{outer}.java"),
    }
}

impl Mapping {
    /// The source file of an original class: the mapping's record of it, else inferred.
    fn source_file_of(&self, original: &str, frame_file: &str) -> String {
        self.obfuscated_of
            .get(original)
            .and_then(|o| self.classes.get(o))
            .and_then(|c| c.source_file.clone())
            .unwrap_or_else(|| infer_source_file(original, frame_file))
    }

    /// A JVM descriptor with its obfuscated class names replaced by the original ones.
    pub fn deobfuscate_descriptor(&self, descriptor: &str) -> String {
        let mut out = String::with_capacity(descriptor.len());
        let mut rest = descriptor;
        while let Some(l) = rest.find('L') {
            let Some(end) = rest[l..].find(';').map(|e| l + e) else { break };
            out.push_str(&rest[..=l]);
            let internal = &rest[l + 1..end];
            match self.class_name(&internal.replace('/', ".")) {
                Some(original) => out.push_str(&original.replace('.', "/")),
                None => out.push_str(internal),
            }
            out.push(';');
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// Retraces one frame: `class` is the frame's class as the dump names it (dotted),
    /// `method` and `descriptor` its method, `source_file` and `line` as the dump gives
    /// them (see [`RetracedFrame::line`]). Innermost first; None when the mapping does not
    /// know the class (the frame stays as it is).
    pub fn retrace_frame(
        &self,
        class: &str,
        method: &str,
        descriptor: &str,
        source_file: &str,
        line: i32,
    ) -> Option<Vec<RetracedFrame>> {
        let c = self.classes.get(class)?;
        let at = u32::try_from(line).ok().filter(|&l| l > 0);
        let keep_code = |l: Option<u32>| match l {
            Some(l) => i32::try_from(l).unwrap_or(0),
            None if line > 0 => 0,
            None => line,
        };
        let frame = |m: &MethodLine, l: Option<u32>| {
            let class = m.class.clone().unwrap_or_else(|| c.original.clone());
            RetracedFrame {
                source_file: self.source_file_of(&class, source_file),
                method: m.name.clone(),
                descriptor: m.descriptor.clone().unwrap_or_else(|| self.deobfuscate_descriptor(descriptor)),
                class,
                line: keep_code(l),
            }
        };
        let lines: Vec<(usize, &MethodLine)> =
            c.lines.iter().enumerate().filter(|(_, l)| l.obfuscated == method).collect();
        let contains = |l: &MethodLine, at: u32| l.minified.is_some_and(|(a, b)| a <= at && at <= b);
        let mut chosen: Vec<(usize, &MethodLine)> = match at {
            Some(at) => lines.iter().copied().filter(|(_, l)| contains(l, at)).collect(),
            None => Vec::new(),
        };
        let mut position = at;
        if chosen.is_empty() {
            chosen = lines.iter().copied().filter(|(_, l)| l.minified.is_none()).collect();
        }
        if chosen.is_empty() {
            chosen = lines;
            position = None;
        }
        if chosen.is_empty() {
            // The class is renamed but the method is not in the mapping.
            return Some(vec![RetracedFrame {
                class: c.original.clone(),
                method: method.to_string(),
                descriptor: self.deobfuscate_descriptor(descriptor),
                source_file: self.source_file_of(&c.original, source_file),
                line,
            }]);
        }
        // Inline stacks: runs of adjacent lines with one minified range.
        let mut stacks: Vec<Vec<&MethodLine>> = Vec::new();
        let mut last: Option<usize> = None;
        for (i, l) in chosen {
            let same = last.is_some_and(|j| j + 1 == i)
                && stacks
                    .last()
                    .and_then(|s| s.last())
                    .is_some_and(|p| p.minified == l.minified && l.minified.is_some());
            match stacks.last_mut() {
                Some(s) if same => s.push(l),
                _ => stacks.push(vec![l]),
            }
            last = Some(i);
        }
        if stacks.len() == 1 || stacks.iter().all(|s| s.len() == 1 && same_method(s[0], stacks[0][0])) {
            let mut stack = stacks.swap_remove(0);
            if stack.iter().any(|m| !m.synthesized) {
                stack.retain(|m| !m.synthesized);
            }
            return Some(stack.iter().map(|m| frame(m, original_line(m, position))).collect());
        }
        let mut names: Vec<&str> = Vec::new();
        for s in &stacks {
            if !names.contains(&s[0].name.as_str()) {
                names.push(&s[0].name);
            }
        }
        let first = stacks[0][0];
        let lines: Vec<Option<u32>> = stacks.iter().map(|s| original_line(s[0], position)).collect();
        let line = if lines.windows(2).all(|w| w[0] == w[1]) { lines[0] } else { None };
        let class = first.class.clone().unwrap_or_else(|| c.original.clone());
        Some(vec![RetracedFrame {
            source_file: self.source_file_of(&class, source_file),
            class,
            method: names.join("|"),
            descriptor: if stacks.iter().all(|s| s[0].descriptor == first.descriptor) {
                first.descriptor.clone().unwrap_or_else(|| self.deobfuscate_descriptor(descriptor))
            } else {
                self.deobfuscate_descriptor(descriptor)
            },
            line: keep_code(line),
        }])
    }
}

fn same_method(x: &MethodLine, y: &MethodLine) -> bool {
    x.class == y.class && x.name == y.name && x.descriptor == y.descriptor && x.original == y.original
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_lines_read_as_r8_writes_them() {
        let l = parse_method_line("35:35:void <init>(boolean):46:46", "<init>").unwrap();
        assert_eq!((l.minified, l.original), (Some((35, 35)), Some((46, 46))));
        assert_eq!((l.name.as_str(), l.descriptor.as_deref(), l.class), ("<init>", Some("(Z)V"), None));
        let l = parse_method_line("4:4:void run(example.Foo):2", "a").unwrap();
        assert_eq!(
            (l.minified, l.original, l.descriptor.as_deref()),
            (Some((4, 4)), Some((2, 2)), Some("(Lexample/Foo;)V"))
        );
        let l = parse_method_line("4:4:int[][] example.Foo.lambda$main$0(java.lang.String[],long):225", "a").unwrap();
        assert_eq!((l.class.as_deref(), l.name.as_str()), (Some("example.Foo"), "lambda$main$0"));
        assert_eq!(l.descriptor.as_deref(), Some("([Ljava/lang/String;J)[[I"));
        let l = parse_method_line("void m()", "b").unwrap();
        assert_eq!((l.minified, l.original, l.descriptor.as_deref()), (None, None, Some("()V")));
        for bad in ["x:1:void m()", "1:2:3:void m()", "1:2:void m():x", "1:2:void m():1:2:3", "m()", "void m("] {
            assert!(parse_method_line(bad, "a").is_err(), "{bad}");
        }
    }

    #[test]
    fn lines_map_by_range_single_line_and_identity() {
        let at = |left: &str, l: u32| original_line(&parse_method_line(left, "a").unwrap(), Some(l));
        assert_eq!(at("54:56:void m():82:84", 55), Some(83));
        assert_eq!(at("1:8:void m():42:42", 5), Some(42));
        assert_eq!(at("1:3:void m()", 2), Some(2));
        assert_eq!(at("void m()", 7), Some(7));
        // Without minified lines R8 keeps the frame's line.
        assert_eq!(at("void m():12", 7), Some(7));
    }

    #[test]
    fn source_files_are_inferred_as_r8_does() {
        assert_eq!(infer_source_file("com.a.Outer$Inner", "go/retraceme 0123abcd"), "Outer.java");
        assert_eq!(infer_source_file("com.a.UtilsKt", "SourceFile"), "Utils.kt");
        assert_eq!(infer_source_file("com.a.UtilsKt", "x.java"), "UtilsKt.java");
        assert_eq!(infer_source_file("com.a.Foo", "a.kt"), "Foo.kt");
        assert_eq!(infer_source_file("com.a.Foo", "Native Method"), "Native Method");
    }
}
