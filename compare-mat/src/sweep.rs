//! `dev sweep-aggregate`: many `compare mat` results (`*.diff.json`) folded into one gate.
//!
//! The gate passes only when no comparison has a FAIL **and** at least [`N_MIN`] real
//! comparisons against a MAT report ran (a file counts as real when it says `"real": true`
//! and compared at least one field). The report lists the count, every EXPLAINABLE item
//! with its reason and evidence (the audit), and every FAIL.

use serde_json::Value;

use crate::{Error, ErrorKind, MarkdownEscape, Result};

/// Real MAT comparisons needed for the gate to pass.
pub const N_MIN: usize = 15;

/// One `*.diff.json`, read.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub real: bool,
    pub matches: u64,
    pub explainable: u64,
    pub fail: u64,
    /// (field, mat, ours, reason, evidence).
    pub explained: Vec<[String; 5]>,
    /// (field, mat, ours).
    pub failed: Vec<[String; 3]>,
}

#[derive(Debug, Clone)]
pub struct Sweep {
    pub entries: Vec<Entry>,
}

fn field_text(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Reads one `*.diff.json` (the text of `compare mat --format json`).
pub fn read_entry(name: &str, text: &str) -> Result<Entry> {
    let bad = |m: String| Error { kind: ErrorKind::Format, offset: None, message: format!("{name}: {m}") };
    let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let summary =
        v.get("summary").ok_or_else(|| bad("no \"summary\": not written by compare mat --format json".into()))?;
    let n = |k: &str| summary.get(k).and_then(Value::as_u64).ok_or_else(|| bad(format!("summary.{k} is not a count")));
    let list = |k: &str| v.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    Ok(Entry {
        name: name.to_string(),
        real: v.get("real").and_then(Value::as_bool) == Some(true),
        matches: n("match")?,
        explainable: n("explainable")?,
        fail: n("fail")?,
        explained: list("explainable")
            .iter()
            .map(|e| ["field", "mat", "ours", "reason", "evidence"].map(|k| field_text(e, k)))
            .collect(),
        failed: list("fail").iter().map(|e| ["field", "mat", "ours"].map(|k| field_text(e, k))).collect(),
    })
}

impl Sweep {
    /// The `*.diff.json` texts (name, text), in any order: sorted by name here.
    pub fn from_texts(mut files: Vec<(String, String)>) -> Result<Sweep> {
        files.sort();
        let entries = files.iter().map(|(n, t)| read_entry(n, t)).collect::<Result<Vec<_>>>()?;
        Ok(Sweep { entries })
    }

    /// Comparisons that really ran against a MAT report.
    pub fn real(&self) -> usize {
        self.entries.iter().filter(|e| e.real && e.matches + e.explainable + e.fail > 0).count()
    }

    pub fn fails(&self) -> u64 {
        self.entries.iter().map(|e| e.fail.max(e.failed.len() as u64)).sum()
    }

    pub fn passed(&self) -> bool {
        self.fails() == 0 && self.real() >= N_MIN
    }

    /// The gate's report (Markdown), its text escaped by `escape`.
    pub fn render(&self, escape: MarkdownEscape) -> String {
        use std::fmt::Write;
        let md_cell = |s: &str| super::md_cell(s, escape);
        let mut s = String::new();
        let _ = writeln!(s, "# heapscope vs Eclipse MAT, sweep: {}\n", if self.passed() { "PASS" } else { "FAIL" });
        let _ = writeln!(
            s,
            "{} real MAT comparisons (at least {N_MIN} needed), {} FAIL, {} EXPLAINABLE, {} MATCH.\n",
            self.real(),
            self.fails(),
            self.entries.iter().map(|e| e.explainable).sum::<u64>(),
            self.entries.iter().map(|e| e.matches).sum::<u64>()
        );
        if self.real() < N_MIN {
            let _ = writeln!(s, "**Too few real comparisons: {} of {N_MIN}.**\n", self.real());
        }
        let _ = writeln!(s, "| comparison | real | MATCH | EXPLAINABLE | FAIL |\n|---|---|---:|---:|---:|");
        for e in &self.entries {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                md_cell(&e.name),
                if e.real { "yes" } else { "no" },
                e.matches,
                e.explainable,
                e.fail
            );
        }
        let _ = writeln!(s, "\n## FAIL ({})\n", self.fails());
        let mut any = false;
        for e in &self.entries {
            for [field, mat, ours] in &e.failed {
                if !any {
                    let _ = writeln!(s, "| comparison | field | MAT | heapscope |\n|---|---|---|---|");
                    any = true;
                }
                let _ =
                    writeln!(s, "| {} | {} | {} | {} |", md_cell(&e.name), md_cell(field), md_cell(mat), md_cell(ours));
            }
        }
        if !any {
            let _ = writeln!(s, "None.");
        }
        let _ = writeln!(s, "\n## EXPLAINABLE audit\n");
        let mut any = false;
        for e in &self.entries {
            for [field, mat, ours, reason, evidence] in &e.explained {
                if !any {
                    let _ = writeln!(
                        s,
                        "| comparison | field | MAT | heapscope | reason | evidence |\n|---|---|---|---|---|---|"
                    );
                    any = true;
                }
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} |",
                    md_cell(&e.name),
                    md_cell(field),
                    md_cell(mat),
                    md_cell(ours),
                    md_cell(reason),
                    md_cell(evidence)
                );
            }
        }
        if !any {
            let _ = writeln!(s, "None.");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(real: bool, m: u64, e: u64, f: u64) -> String {
        let fails: Vec<String> =
            (0..f).map(|i| format!("{{\"field\":\"f{i}\",\"mat\":\"1\",\"ours\":\"2\"}}")).collect();
        format!(
            "{{\"real\":{real},\"summary\":{{\"match\":{m},\"explainable\":{e},\"fail\":{f}}},\"explainable\":[{{\"field\":\"x\",\"mat\":\"29.3 MB\",\"ours\":\"30705704\",\"reason\":\"rounding\",\"evidence\":\"band\"}}],\"fail\":[{}]}}",
            fails.join(",")
        )
    }

    #[test]
    fn gate_needs_n_min_real_comparisons_and_no_fail() {
        let ok = |n: usize| (0..n).map(|i| (format!("d{i:02}.diff.json"), diff(true, 10, 1, 0))).collect::<Vec<_>>();
        assert!(Sweep::from_texts(ok(N_MIN)).unwrap().passed());
        assert!(!Sweep::from_texts(ok(N_MIN - 1)).unwrap().passed());
        let mut one_fail = ok(N_MIN + 2);
        one_fail[3].1 = diff(true, 10, 1, 1);
        let s = Sweep::from_texts(one_fail).unwrap();
        assert!(!s.passed());
        assert!(s.render(|t| t.replace('|', "\\|")).contains("| d03.diff.json | f0 | 1 | 2 |"));
        // Files that are not real comparisons do not count.
        let mut not_real = ok(N_MIN - 1);
        not_real.push(("x.diff.json".into(), diff(false, 10, 0, 0)));
        not_real.push(("empty.diff.json".into(), diff(true, 0, 0, 0)));
        assert_eq!(Sweep::from_texts(not_real.clone()).unwrap().real(), N_MIN - 1);
        assert!(!Sweep::from_texts(not_real).unwrap().passed());
    }

    #[test]
    fn malformed_files_are_errors() {
        assert!(read_entry("a", "{").is_err());
        assert!(read_entry("a", "{\"summary\":{\"match\":1}}").is_err());
        assert!(read_entry("a", "[]").is_err());
    }
}
