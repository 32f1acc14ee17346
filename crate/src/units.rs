//! Sizes and counts as the messages meant for people write them: binary units with one
//! decimal ("30.6 MiB", "3.9 GiB") and counts with thousands separators ("26,000"). A
//! message about memory names both what is needed and what is available in these units,
//! so that two small figures never both read "0 MiB".

/// `n` with a comma between each group of three digits: 26000 → "26,000".
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `bytes` in the largest binary unit it fills, with one decimal and separators:
/// 1023 → "1,023 bytes", 20,000,000 → "19.1 MiB", 5 << 40 → "5,120.0 GiB".
pub fn binary_size(bytes: u64) -> String {
    const UNITS: [(u32, &str); 3] = [(30, "GiB"), (20, "MiB"), (10, "KiB")];
    for (shift, unit) in UNITS {
        if bytes >= 1 << shift {
            // Tenths of the unit, rounded half up, in integers (no float formatting).
            let tenths = (u128::from(bytes) * 10 + (1u128 << (shift - 1))) >> shift;
            return format!("{}.{} {unit}", count((tenths / 10) as u64), tenths % 10);
        }
    }
    format!("{} bytes", count(bytes))
}
