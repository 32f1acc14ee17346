//! How numbers are written for people, the same in every rendering: whole numbers (counts
//! and byte sizes alike) with thousands separators, basis points as percentages, sizes in
//! binary units; and addresses as every output writes them.

/// Basis points of `part` in `whole` (100 bp = 1%), rounded to nearest (half up).
pub fn basis_points(part: u64, whole: u64) -> u32 {
    if whole == 0 {
        0
    } else {
        ((part as u128 * 20_000 + whole as u128) / (2 * whole as u128)) as u32
    }
}

/// A whole number (a count, a size in bytes) with thousands separators: `1234567` →
/// `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Basis points as a percentage with two decimals: `1234` → `12.34%`.
pub fn format_bp(bp: u32) -> String {
    format!("{}.{:02}%", bp / 100, bp % 100)
}

/// `bytes` in the largest binary unit it fills, with one decimal (rounded half up) and
/// separators: 1023 → "1,023 bytes", 20,000,000 → "19.1 MiB", 5 << 40 → "5,120.0 GiB"
/// (two small figures never both read "0 MiB").
pub fn binary_size(bytes: u64) -> String {
    const UNITS: [(u32, &str); 3] = [(30, "GiB"), (20, "MiB"), (10, "KiB")];
    for (shift, unit) in UNITS {
        if bytes >= 1 << shift {
            // Tenths of the unit, rounded half up, in integers (no float formatting).
            let tenths = (u128::from(bytes) * 10 + (1u128 << (shift - 1))) >> shift;
            return format!("{}.{} {unit}", thousands((tenths / 10) as u64), tenths % 10);
        }
    }
    format!("{} bytes", thousands(bytes))
}

/// Parses an address as every output writes it: "0x1f00" (or "1f00"), hexadecimal.
pub fn parse_address(s: &str) -> Option<u64> {
    let s = s.trim();
    u64::from_str_radix(s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s), 16).ok()
}
