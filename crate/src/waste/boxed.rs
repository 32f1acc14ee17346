//! Boxed numbers: kept instances of `java.lang.Integer`, `Long`, `Short`, `Byte`,
//! `Character`, `Double`, `Float` and `Boolean`, per class: count, shallow bytes,
//! distinct values, and the instances beyond one per value (what sharing one instance per
//! value, as `valueOf`'s caches do for small values, would save).
//!
//! Pass 2 notes each one's value bits and object (12 bytes per boxed instance); grouping
//! sorts each class's values once.

use crate::index::layout::own_fields;
use crate::index::Index;
use crate::records::basic_type;

/// The boxed classes and the type of their `value` field.
pub const CLASSES: [(&str, u8); 8] = [
    ("java.lang.Integer", basic_type::INT),
    ("java.lang.Long", basic_type::LONG),
    ("java.lang.Short", basic_type::SHORT),
    ("java.lang.Byte", basic_type::BYTE),
    ("java.lang.Character", basic_type::CHAR),
    ("java.lang.Double", basic_type::DOUBLE),
    ("java.lang.Float", basic_type::FLOAT),
    ("java.lang.Boolean", basic_type::BOOLEAN),
];

/// Values listed per class.
pub const TOP_VALUES: usize = 10;

/// Where a boxed class's value is: which of [`CLASSES`], the field's byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub which: u8,
    pub offset: usize,
    pub size: usize,
}

/// One boxed instance: its value's bits and its object. 12 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct Entry {
    pub value: u64,
    pub obj: u32,
}

/// Per class: its boxed layout, if it is one of [`CLASSES`] with its `value` field.
pub fn layouts(index: &Index) -> Vec<Option<Layout>> {
    let id_size = index.header.id_size;
    index
        .classes
        .classes
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let which = CLASSES.iter().position(|b| b.0 == c.name)?;
            let ty = CLASSES[which].1;
            // The boxes are final and extend Number/Object, which have no instance fields.
            let f = own_fields(c, k as u32, 0, 0, id_size).find(|f| index.field_is(f.decl, ty, &["value"]))?;
            Some(Layout { which: which as u8, offset: f.offset, size: f.size })
        })
        .collect()
}

/// The value bits of an instance (0 when the record is short).
pub fn value(l: &Layout, fields: &[u8]) -> u64 {
    fields.get(l.offset..l.offset + l.size).map_or(0, |b| b.iter().fold(0u64, |v, &x| v << 8 | x as u64))
}

/// One class's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    pub which: u8,
    pub count: u64,
    pub shallow: u64,
    pub distinct: u64,
    pub wasted: u64,
    /// (value bits, instances), most first, then by value (as Java orders it).
    pub top: Vec<(u64, u64)>,
}

/// Java's order of values of class `which` given as bits (signed numbers; floats by
/// their total order: negative ones with the bits reversed).
fn java_key(which: u8, bits: u64) -> i128 {
    match CLASSES[which as usize].1 {
        basic_type::INT => bits as u32 as i32 as i128,
        basic_type::LONG => bits as i64 as i128,
        basic_type::SHORT => bits as u16 as i16 as i128,
        basic_type::BYTE => bits as u8 as i8 as i128,
        basic_type::FLOAT => {
            let b = bits as u32;
            if b >> 31 == 1 {
                -((b & 0x7fff_ffff) as i128) - 1
            } else {
                b as i128
            }
        }
        basic_type::DOUBLE => {
            if bits >> 63 == 1 {
                -((bits & 0x7fff_ffff_ffff_ffff) as i128) - 1
            } else {
                bits as i128
            }
        }
        _ => bits as i128,
    }
}

/// The value as Java prints it.
pub fn text(which: u8, bits: u64) -> String {
    match CLASSES[which as usize].1 {
        basic_type::INT => (bits as u32 as i32).to_string(),
        basic_type::LONG => (bits as i64).to_string(),
        basic_type::SHORT => (bits as u16 as i16).to_string(),
        basic_type::BYTE => (bits as u8 as i8).to_string(),
        basic_type::BOOLEAN => (bits != 0).to_string(),
        basic_type::CHAR => match bits as u16 {
            c @ 32..=126 => format!("'{}'", c as u8 as char),
            c => format!("'\\u{c:04x}'"),
        },
        basic_type::FLOAT => java_float(f32::from_bits(bits as u32) as f64, true),
        _ => java_float(f64::from_bits(bits), false),
    }
}

/// A float as Java's `toString` shows the common cases: `1.0`, `-2.5`, `NaN`,
/// `Infinity`; otherwise Rust's shortest round-trip digits.
fn java_float(x: f64, single: bool) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let s = if single { format!("{}", x as f32) } else { format!("{x}") };
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// Groups each class's kept instances by value: `entries` per class ([`CLASSES`] order).
pub fn group(entries: &mut [Vec<Entry>; 8], kept: impl Fn(u32) -> bool, shallow: impl Fn(u32) -> u64) -> Vec<Row> {
    let mut rows = Vec::new();
    for (which, list) in entries.iter_mut().enumerate() {
        list.retain(|e| kept(e.obj));
        if list.is_empty() {
            continue;
        }
        let mut row = Row { which: which as u8, ..Row::default() };
        for e in list.iter() {
            row.count += 1;
            row.shallow += shallow(e.obj);
        }
        list.sort_unstable_by_key(|e| e.value);
        let mut i = 0;
        let mut runs: Vec<(u64, u64)> = Vec::new();
        while i < list.len() {
            let v = list[i].value;
            let mut j = i;
            while j < list.len() && list[j].value == v {
                // All but the first instance of the value.
                if j > i {
                    row.wasted += shallow(list[j].obj);
                }
                j += 1;
            }
            row.distinct += 1;
            runs.push((v, (j - i) as u64));
            if runs.len() >= 4 * TOP_VALUES {
                runs.sort_by(|x, y| y.1.cmp(&x.1).then(java_key(which as u8, x.0).cmp(&java_key(which as u8, y.0))));
                runs.truncate(TOP_VALUES);
            }
            i = j;
        }
        runs.sort_by(|x, y| y.1.cmp(&x.1).then(java_key(which as u8, x.0).cmp(&java_key(which as u8, y.0))));
        runs.truncate(TOP_VALUES);
        row.top = runs;
        rows.push(row);
    }
    // By wasted bytes, then name.
    rows.sort_by(|x, y| y.wasted.cmp(&x.wasted).then(CLASSES[x.which as usize].0.cmp(CLASSES[y.which as usize].0)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_java_prints_them() {
        assert_eq!(text(0, (-5i32) as u32 as u64), "-5");
        assert_eq!(text(1, i64::MIN as u64), "-9223372036854775808");
        assert_eq!(text(4, 'a' as u64), "'a'");
        assert_eq!(text(4, 0x434), "'\\u0434'");
        assert_eq!(text(5, 1.5f64.to_bits()), "1.5");
        assert_eq!(text(5, 2.0f64.to_bits()), "2.0");
        assert_eq!(text(6, (-0.25f32).to_bits() as u64), "-0.25");
        assert_eq!(text(7, 1), "true");
        assert!(java_key(0, (-1i32) as u32 as u64) < java_key(0, 1));
        assert!(java_key(5, (-1.0f64).to_bits()) < java_key(5, 0.5f64.to_bits()));
    }
}
