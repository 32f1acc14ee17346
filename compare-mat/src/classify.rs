//! The three tiers of the comparison with MAT, and the proofs behind the middle one.
//!
//! Every field compared lands in exactly one tier:
//! - **MATCH**: ours equals what MAT shows;
//! - **EXPLAINABLE**: not equal, but a check in this module proves one of the enumerated
//!   [`Reason`]s, and the [`Item`] carries the evidence (the band, the inequality, the
//!   tied key, why there is no counterpart);
//! - **FAIL**: anything else. A row MAT shows that ours lacks is a FAIL.
//!
//! No tolerance is implicit: a number is only ever accepted inside the exact range MAT's
//! own formatting could have printed it from.
//!
//! MAT's formats (Eclipse MAT 1.16.1, as found in its exported reports):
//! - counts and byte sizes in tables: `#,##0` (exact integers);
//! - the quick retained size of the class histogram: `>= #,##0` (a lower bound);
//! - percentages: two fraction digits, `97.98%`;
//! - "Used heap dump" of the Heap Dump Overview: `Units.Storage`: the unit is B below
//!   1,024 bytes, KB below 1,024², MB below 1,024³, else GB (1024-based), the value a
//!   `NumberFormat` with at most one fraction digit, no grouping, trailing zeros dropped
//!   (`29.3 MB`, `1 MB`, `540.2 KB`, `512 B`). So `1 MB` still stands for one fraction
//!   digit of precision: [0.95, 1.05] MB, not [0.5, 1.5].

use std::fmt;

/// Why a difference is benign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// MAT's display rounding: ours lies in the range MAT's shown value stands for.
    Rounding,
    /// MAT shows a lower bound (`>= N`) and ours satisfies it.
    AtLeast,
    /// Entries with identical sort keys in another order.
    TieBreak,
    /// The field or row exists on one side only, by design of the other side.
    NoCounterpart,
    /// MAT read a converted copy of an Android (ART) dump (`hprof-conv`), not the dump
    /// itself: its file length and its rendering of the dump's strings (byte pairs read
    /// as UTF-16 units) are the copy's, proven by recomputing them from ours.
    ConvertedInput,
    /// MAT's table shows only its first rows (`Total: 3 of 10 entries; 7 more`): a row or
    /// a property beyond them is not on MAT's page, and ours' is consistent with the cut
    /// (it sorts after the last row MAT shows).
    Truncated,
    /// Ours is in the JVM's sizes (its object layout, read from the dump), MAT's in its
    /// own model: a field a size enters differs for that reason.
    Layout,
}

impl Reason {
    pub fn name(self) -> &'static str {
        match self {
            Reason::Rounding => "rounding",
            Reason::AtLeast => "at_least",
            Reason::TieBreak => "tie_break",
            Reason::NoCounterpart => "no_counterpart",
            Reason::ConvertedInput => "converted_input",
            Reason::Truncated => "truncated",
            Reason::Layout => "layout",
        }
    }

    pub const ALL: [Reason; 6] = [
        Reason::Rounding,
        Reason::AtLeast,
        Reason::TieBreak,
        Reason::NoCounterpart,
        Reason::ConvertedInput,
        Reason::Truncated,
        Reason::Layout,
    ];
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One field's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tier {
    Match,
    Explainable { reason: Reason, evidence: String },
    Fail,
}

/// A compared field: what MAT shows, what ours says, and the tier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub field: String,
    pub mat: String,
    pub ours: String,
    pub tier: Tier,
}

/// All items of one comparison.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    pub items: Vec<Item>,
}

impl Verdict {
    pub fn push(&mut self, field: impl Into<String>, mat: impl Into<String>, ours: impl Into<String>, tier: Tier) {
        self.items.push(Item { field: field.into(), mat: mat.into(), ours: ours.into(), tier });
    }

    /// MATCH when equal, else FAIL.
    pub fn equal<T: PartialEq + fmt::Display>(&mut self, field: impl Into<String>, mat: T, ours: T) {
        let tier = if mat == ours { Tier::Match } else { Tier::Fail };
        self.push(field, mat.to_string(), ours.to_string(), tier);
    }

    pub fn fail(&mut self, field: impl Into<String>, mat: impl Into<String>, ours: impl Into<String>) {
        self.push(field, mat, ours, Tier::Fail);
    }

    pub fn explain(
        &mut self,
        field: impl Into<String>,
        mat: impl Into<String>,
        ours: impl Into<String>,
        reason: Reason,
        evidence: impl Into<String>,
    ) {
        self.push(field, mat, ours, Tier::Explainable { reason, evidence: evidence.into() });
    }

    pub fn count(&self, want: impl Fn(&Tier) -> bool) -> usize {
        self.items.iter().filter(|i| want(&i.tier)).count()
    }

    pub fn matches(&self) -> usize {
        self.count(|t| matches!(t, Tier::Match))
    }

    pub fn explainable(&self) -> usize {
        self.count(|t| matches!(t, Tier::Explainable { .. }))
    }

    pub fn fails(&self) -> usize {
        self.count(|t| matches!(t, Tier::Fail))
    }
}

/// An inclusive range of integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    pub low: u64,
    pub high: u64,
}

impl Band {
    pub fn contains(self, v: u64) -> bool {
        self.low <= v && v <= self.high
    }
}

impl fmt::Display for Band {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.low, self.high)
    }
}

/// A decimal as (mantissa, fraction digits): `29.3` → (293, 1). Grouping commas allowed.
pub fn parse_decimal(s: &str) -> Option<(u64, u32)> {
    let s = s.trim();
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty()
        || !int.as_bytes()[0].is_ascii_digit()
        || !int.bytes().all(|b| b.is_ascii_digit() || b == b',')
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || (s.contains('.') && frac.is_empty())
        || frac.len() > 6
    {
        return None;
    }
    let digits = int.bytes().chain(frac.bytes()).filter(u8::is_ascii_digit);
    let mantissa = digits.into_iter().try_fold(0u64, |v, d| v.checked_mul(10)?.checked_add(u64::from(d - b'0')))?;
    Some((mantissa, frac.len() as u32))
}

/// The bytes `Units.Storage` text (`29.3 MB`) can stand for: values whose quotient by the
/// unit rounds, at one fraction digit, to the shown value (both ends included, whatever
/// the rounding mode), and for which MAT picks that unit.
pub fn storage_band(text: &str) -> Option<Band> {
    let (number, unit) = text.trim().rsplit_once(' ')?;
    let (divider, unit_range): (u128, Band) = match unit {
        "B" => (1, Band { low: 0, high: 1023 }),
        "KB" => (1 << 10, Band { low: 1 << 10, high: (1 << 20) - 1 }),
        "MB" => (1 << 20, Band { low: 1 << 20, high: (1 << 30) - 1 }),
        "GB" => (1 << 30, Band { low: 1 << 30, high: u64::MAX }),
        _ => return None,
    };
    let (mantissa, digits) = parse_decimal(number)?;
    // MAT's precision is one fraction digit, however many it printed.
    if digits > 1 {
        return None;
    }
    let m = u128::from(mantissa) * if digits == 0 { 10 } else { 1 };
    if unit == "B" {
        // Bytes are integers: `512 B` is 512 exactly.
        if m % 10 != 0 {
            return None;
        }
        let v = (m / 10) as u64;
        return Some(Band { low: v, high: v });
    }
    // value·10 ∈ [m − ½, m + ½]  ⇔  20·bytes ∈ [(2m − 1)·divider, (2m + 1)·divider].
    let low = (2 * m).saturating_sub(1) * divider;
    let high = (2 * m + 1) * divider;
    let low = low.div_ceil(20);
    let high = high / 20;
    let low = u64::try_from(low).ok()?.max(unit_range.low);
    let high = u64::try_from(high).unwrap_or(u64::MAX).min(unit_range.high);
    (low <= high).then_some(Band { low, high })
}

/// Whether `part / whole`, as a percentage, lies in the range MAT's two-digit
/// `shown` (`97.98`) stands for: [shown − 0.005, shown + 0.005] (both ends included).
pub fn percent_band_holds(shown: &str, part: u64, whole: u64) -> Option<bool> {
    let (mantissa, digits) = parse_decimal(shown)?;
    if whole == 0 {
        return Some(part == 0 && mantissa == 0);
    }
    // part/whole·100·10^d ∈ [m − ½, m + ½]  ⇔  200·10^d·part ∈ [(2m − 1)·whole, (2m + 1)·whole].
    let scale = 200 * 10u128.pow(digits);
    let x = scale * u128::from(part);
    let m = u128::from(mantissa);
    let low = (2 * m).saturating_sub(1) * u128::from(whole);
    let high = (2 * m + 1) * u128::from(whole);
    Some(low <= x && x <= high)
}

/// heapscope's percentage text of basis points (`9798` → `97.98`).
pub fn bp_text(bp: u32) -> String {
    format!("{}.{:02}", bp / 100, bp % 100)
}

/// A percentage: MATCH when ours (basis points) prints as MAT's text, EXPLAINABLE
/// (rounding) when ours' exact ratio lies in MAT's band, else FAIL.
pub fn percent(v: &mut Verdict, field: impl Into<String>, mat: &str, ours_bp: u32, part: u64, whole: u64) {
    let field = field.into();
    let ours = bp_text(ours_bp);
    if parse_decimal(mat) == parse_decimal(&ours) {
        v.push(field, format!("{mat}%"), format!("{ours}%"), Tier::Match);
    } else if percent_band_holds(mat, part, whole) == Some(true) {
        v.explain(
            field,
            format!("{mat}%"),
            format!("{ours}%"),
            Reason::Rounding,
            format!(
                "{part}/{whole} = {:.4}% lies within MAT's two-digit display band [{mat} − 0.005, {mat} + 0.005]%",
                part as f64 * 100.0 / whole as f64
            ),
        );
    } else {
        v.fail(field, format!("{mat}%"), format!("{ours}% ({part}/{whole})"));
    }
}

/// MAT's `>= N` against an exact value of ours: equal is MATCH, above is EXPLAINABLE.
pub fn at_least(v: &mut Verdict, field: impl Into<String>, mat: u64, ours: u64) {
    let field = field.into();
    let shown = format!(">= {mat}");
    if ours == mat {
        v.push(field, shown, ours.to_string(), Tier::Match);
    } else if ours > mat {
        v.explain(
            field,
            shown,
            ours.to_string(),
            Reason::AtLeast,
            format!("MAT prints a lower bound; ours {ours} ≥ {mat}"),
        );
    } else {
        v.fail(field, shown, ours.to_string());
    }
}

/// MAT's rendering of a string (its `PrettyPrinter`): printable ASCII as is, every other
/// UTF-16 unit as `\uXXXX` (four lower-case hex digits).
pub fn mat_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut buf = [0u16; 2];
    for c in s.chars() {
        for &u in c.encode_utf16(&mut buf).iter() {
            if (32..127).contains(&u) {
                out.push(u as u8 as char);
            } else {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

/// How MAT renders a string of a converted ART dump: its bytes (one per character, as
/// ART stores compressed strings) read in little-endian pairs as UTF-16 units.
pub fn mat_byte_pairs(s: &str) -> Option<String> {
    let bytes: Vec<u8> = s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect::<Option<_>>()?;
    if bytes.len() % 2 != 0 {
        return None;
    }
    let mut out = String::new();
    for p in bytes.chunks(2) {
        let u = u16::from(p[0]) | u16::from(p[1]) << 8;
        if (32..127).contains(&u) {
            out.push(u as u8 as char);
        } else {
            out.push_str(&format!("\\u{u:04x}"));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What MAT 1.16.1 printed as "Used heap dump" for every corpus dump (its System
    /// Overview pages), with the exact shallow total MAT computed for the same dump
    /// (`total_shallow_heap` of its expected JSON).
    const CORPUS: [(&str, u64); 23] = [
        ("1.8 MB", 1855992),   // ahat_test_dump_8e3b7d7
        ("1.8 MB", 1855992),   // ahat_test_dump_8e3b7d7_hprofconv
        ("1 MB", 1096120),     // ahat_test_dump_base_8e3b7d7
        ("2.2 MB", 2267088),   // leakcanary_leak_service_binder
        ("540.2 KB", 553184),  // s01_hello_serial_all
        ("538.8 KB", 551736),  // s01_hello_serial_live
        ("29.7 MB", 31120704), // s02_static_map_leak_g1
        ("29.6 MB", 31029448), // s02_static_map_leak_nocoops
        ("29.3 MB", 30705704), // s02_static_map_leak_serial
        ("14.6 MB", 15296832), // s03_threadlocal_leak_serial
        ("8 MB", 8403952),     // s04_references_serial_all
        ("5.5 MB", 5801368),   // s04_references_serial_live
        ("2.6 MB", 2680672),   // s05_finalizer_serial_all
        ("31.3 MB", 32801384), // s06_linked_list_1m_nocoops
        ("23.4 MB", 24551808), // s06_linked_list_1m_serial
        ("16.3 MB", 17055008), // s07_wide_array_g1
        ("15.9 MB", 16627480), // s07_wide_array_serial
        ("21.8 MB", 22903656), // s07_wide_array_zgc
        ("6.1 MB", 6344944),   // s08_many_classes_serial_all
        ("3.3 MB", 3427368),   // s09_duplicate_strings_serial
        ("982.7 KB", 1006256), // s10_garbage_cycles_g1_all
        ("564.6 KB", 578152),  // s10_garbage_cycles_serial_all
        ("61.6 MB", 64543048), // s11_oom_serial
    ];

    #[test]
    fn storage_bands_follow_mats_one_digit_precision() {
        for (text, bytes) in CORPUS {
            let band = storage_band(text).unwrap();
            assert!(band.contains(bytes), "{text}: {band} should hold {bytes}");
        }
        // 29.3 MB = [29.25, 29.35] MiB.
        assert_eq!(storage_band("29.3 MB"), Some(Band { low: 30_670_848, high: 30_775_705 }));
        // One byte outside either end is refused.
        let b = storage_band("29.3 MB").unwrap();
        assert!(!b.contains(b.low - 1) && !b.contains(b.high + 1));
        // 29.25 MiB exactly is 30,670,848 bytes: it would print 29.2 or 29.3 depending on
        // the rounding mode; the band's inclusive ends accept either side's exact tie.
        assert!(storage_band("29.2 MB").unwrap().contains(30_670_848));
        // A neighbouring corpus figure is outside: s02_g1's 31,120,704 bytes is 29.68 MB.
        assert!(!b.contains(31_120_704));
        // "1 MB" is [0.95, 1.05] MB intersected with MB's range: from 1,048,576 (below,
        // MAT would print KB) to 1.05 MiB.
        assert_eq!(storage_band("1 MB"), Some(Band { low: 1 << 20, high: 1_101_004 }));
        assert!(!storage_band("1 MB").unwrap().contains(1_048_575));
        assert_eq!(storage_band("512 B"), Some(Band { low: 512, high: 512 }));
        assert_eq!(storage_band("12.5 KB"), Some(Band { low: 12_749, high: 12_851 }));
        assert_eq!(storage_band("1,023.9 KB").map(|b| b.contains(1_048_473)), Some(true));
        assert!(storage_band("1.25 MB").is_none(), "MAT never prints two fraction digits");
        assert!(storage_band("12 XB").is_none() && storage_band("MB").is_none() && storage_band("1.5 B").is_none());
    }

    #[test]
    fn percent_bands() {
        // s02: the suspect's 30,084,408 of 30,705,704 bytes is 97.9766…% → "97.98".
        assert_eq!(percent_band_holds("97.98", 30_084_408, 30_705_704), Some(true));
        assert_eq!(percent_band_holds("97.97", 30_084_408, 30_705_704), Some(false));
        // Exactly on the half: 3/20000 = 0.015% → "0.01" (half-even, half-down) and "0.02"
        // (half-up) are both possible; 1/8000 = 0.0125% is "0.01" only.
        assert_eq!(percent_band_holds("0.01", 3, 20_000), Some(true));
        assert_eq!(percent_band_holds("0.02", 3, 20_000), Some(true));
        assert_eq!(percent_band_holds("0.03", 3, 20_000), Some(false));
        assert_eq!(percent_band_holds("0.01", 1, 8000), Some(true));
        assert_eq!(percent_band_holds("0.02", 1, 8000), Some(false));
        assert_eq!(percent_band_holds("100.00", 5, 5), Some(true));
        let mut v = Verdict::default();
        percent(&mut v, "p", "97.98", 9798, 30_084_408, 30_705_704);
        // Ours rounds 0.015% half up to 2 bp; MAT printed "0.01": within its band.
        percent(&mut v, "q", "0.01", 2, 3, 20_000);
        percent(&mut v, "r", "0.05", 2, 3, 20_000);
        assert_eq!((v.matches(), v.explainable(), v.fails()), (1, 1, 1));
    }

    #[test]
    fn lower_bounds() {
        let mut v = Verdict::default();
        at_least(&mut v, "a", 100, 100);
        at_least(&mut v, "b", 100, 101);
        at_least(&mut v, "c", 100, 99);
        assert_eq!(v.items.iter().map(|i| i.tier.clone()).collect::<Vec<_>>()[0], Tier::Match);
        assert!(matches!(v.items[1].tier, Tier::Explainable { reason: Reason::AtLeast, .. }));
        assert_eq!(v.items[2].tier, Tier::Fail);
    }

    #[test]
    fn strings_as_mat_prints_them() {
        assert_eq!(mat_string("a\nb"), "a\\u000ab");
        assert_eq!(mat_string("é~"), "\\u00e9~");
        assert_eq!(mat_byte_pairs("main").as_deref(), Some("\\u616d\\u6e69"));
        assert_eq!(mat_byte_pairs("odd"), None);
    }
}
