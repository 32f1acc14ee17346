//! The class table: every CLASS DUMP, its name, and the numbers derived from it
//! (MAT's shallow sizes, where the references sit inside an instance's field bytes).

use super::jvm_sizes::ClassSizes;
use crate::error::{Error, Result};
use crate::records::basic_type;
use crate::records::heap::{FieldDecl, StaticField};

/// One class of the dump (one CLASS DUMP record).
#[derive(Debug, Clone, Default)]
pub struct ClassInfo {
    /// Address of the class object.
    pub id: u64,
    /// Display name in MAT's form: `java.lang.String`, `byte[]`, `java.lang.Object[][]`.
    pub name: String,
    pub super_id: u64,
    pub loader_id: u64,
    /// Index of the super class in the class table.
    pub super_index: Option<u32>,
    pub fields: Vec<FieldDecl>,
    pub statics: Vec<StaticField>,
    /// File offset of the CLASS DUMP record.
    pub offset: u64,
    /// The shallow size of an instance in the analysis' sizes (MAT's after pass 1; the
    /// JVM's after pass 2 unless MAT's were asked for).
    pub instance_size: u64,
    /// The shallow size of the class object itself, likewise (MAT's: its statics,
    /// aligned; the JVM's: its mirror).
    pub class_object_size: u64,
    /// The "instance size" of the CLASS DUMP record (MAT ignores it; Android's runtime
    /// writes its own instance size there).
    pub hprof_instance_size: u32,
    /// Both readings' sizes and how the JVM's were found.
    pub sizes: ClassSizes,
    /// Bytes of field values an INSTANCE DUMP of this class carries (own + inherited).
    pub field_bytes: u32,
    /// Range in [`ClassTable::ref_offsets`] of the reference fields' byte offsets.
    pub refs: (u32, u32),
    /// Positions within `refs` (and, for the class object, indices of `statics`) of the
    /// fields that are not plain strong references, with their flags: the
    /// [`crate::rules::strength::Strength`] they hold at, plus [`crate::rules::edges::MAT_EXCLUDED`]
    /// when leak-suspect paths do not follow them (`Reference.referent`, ...).
    pub special_refs: Vec<(u32, u8)>,
    pub special_statics: Vec<(u32, u8)>,
}

impl ClassInfo {
    pub fn is_array(&self) -> bool {
        self.name.ends_with("[]")
    }
}

/// MAT's display name for a class name as written in the dump.
///
/// HotSpot writes `java/lang/String`, `[B`, `[[Ljava/lang/Object;`; ART writes dotted
/// names and sometimes `byte[]` already. All become `java.lang.String`, `byte[]`,
/// `java.lang.Object[][]`.
pub fn display_name(raw: &str) -> String {
    let dims = raw.bytes().take_while(|&b| b == b'[').count();
    if dims == 0 {
        return raw.replace('/', ".");
    }
    let rest = &raw[dims..];
    let base = match rest.as_bytes() {
        [b'L', .., b';'] => rest[1..rest.len() - 1].replace('/', "."),
        [b'Z'] => "boolean".into(),
        [b'C'] => "char".into(),
        [b'F'] => "float".into(),
        [b'D'] => "double".into(),
        [b'B'] => "byte".into(),
        [b'S'] => "short".into(),
        [b'I'] => "int".into(),
        [b'J'] => "long".into(),
        _ => rest.replace('/', "."),
    };
    let mut s = base;
    for _ in 0..dims {
        s.push_str("[]");
    }
    s
}

#[inline]
pub fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// The sizing parameters MAT derives from the dump (DESIGN.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub id_size: u32,
    /// Size of a reference inside an object: 4 with compressed oops, else `id_size`.
    pub ref_size: u32,
    pub object_alignment: u32,
}

impl Layout {
    pub fn object_array_size(&self, len: u64) -> u64 {
        let (id, r) = (self.id_size as u64, self.ref_size as u64);
        align_up(id + r + 4 + len * r, self.object_alignment as u64)
    }

    pub fn primitive_array_size(&self, elem_size: u32, len: u64) -> u64 {
        let (id, r) = (self.id_size as u64, self.ref_size as u64);
        align_up(align_up(id + r + 4, r) + len * elem_size as u64, self.object_alignment as u64)
    }
}

pub struct ClassTable {
    pub classes: Vec<ClassInfo>,
    /// Byte offsets of reference fields inside instance field data, per class (see `refs`).
    pub ref_offsets: Vec<u32>,
    /// Name (string id) of each entry of `ref_offsets`.
    pub ref_names: Vec<u64>,
}

impl ClassTable {
    /// Resolves super classes and computes sizes and reference offsets.
    ///
    /// `index_of` maps a class object id to its position in `classes`.
    ///
    /// Super chains come from the dump, so they are checked before anything follows
    /// them: a chain that loops, or is deeper than [`MAX_CLASS_DEPTH`], is an error. All
    /// the work here is linear in the number of classes plus the entries produced, and
    /// the entries (a class's reference fields, inherited ones included) are capped by
    /// `ref_offsets_budget`: a dump cannot make this quadratic.
    pub fn finish(
        mut classes: Vec<ClassInfo>,
        layout: Layout,
        index_of: impl Fn(u64) -> Option<u32>,
    ) -> Result<ClassTable> {
        let n = classes.len();
        for c in classes.iter_mut() {
            c.super_index = if c.super_id == 0 { None } else { index_of(c.super_id) };
        }
        let order = supers_first(&classes)?;

        let (id_size, ref_size) = (layout.id_size as u64, layout.ref_size as u64);
        let budget = ref_offsets_budget(&classes);
        let mut ref_offsets: Vec<u32> = Vec::new();
        let mut ref_names: Vec<u64> = Vec::new();
        // MAT's recursive size before alignment, per class (a subclass adds to its super's).
        let mut unaligned_size = vec![0u64; n];
        for &k in &order {
            let k = k as usize;
            // MAT's recursive instance size and the field bytes an INSTANCE DUMP carries.
            let own: u64 = classes[k]
                .fields
                .iter()
                .map(|f| {
                    if f.ty == basic_type::OBJECT {
                        ref_size
                    } else {
                        basic_type::primitive_size(f.ty).unwrap_or(0) as u64
                    }
                })
                .sum();
            let own_dump: u64 = classes[k]
                .fields
                .iter()
                .map(|f| basic_type::value_size(f.ty, id_size as u32).unwrap_or(0) as u64)
                .sum();
            let (unaligned, dump_bytes) = match classes[k].super_index {
                None => (id_size + ref_size, own_dump),
                Some(s) => {
                    let sup = &classes[s as usize];
                    (align_up(own + unaligned_size[s as usize], ref_size), own_dump + sup.field_bytes as u64)
                }
            };
            // Reference offsets inside instance data: own fields first, then the super's
            // (already computed: supers come first in `order`), shifted past the own ones.
            let start = ref_offsets.len();
            let inherited = classes[k].super_index.map(|s| classes[s as usize].refs).unwrap_or((0, 0));
            if start + classes[k].fields.len() + (inherited.1 - inherited.0) as usize > budget {
                let c = &classes[k];
                return Err(Error::format(
                    c.offset,
                    format!("class {} (0x{:x}) and its super classes declare more reference fields than {budget} for the whole dump; expected a Java class hierarchy", c.name, c.id),
                ));
            }
            for f in super::layout::own_fields(&classes[k], k as u32, 0, 0, id_size as u32)
                .filter(|f| f.decl.ty == basic_type::OBJECT)
            {
                ref_offsets.push(f.offset.min(u32::MAX as usize) as u32);
                ref_names.push(f.decl.name_id);
            }
            for i in inherited.0 as usize..inherited.1 as usize {
                ref_offsets.push((ref_offsets[i] as u64 + own_dump).min(u32::MAX as u64) as u32);
                ref_names.push(ref_names[i]);
            }
            let c = &mut classes[k];
            c.refs = (start as u32, ref_offsets.len() as u32);
            unaligned_size[k] = unaligned;
            c.instance_size = align_up(unaligned, layout.object_alignment as u64);
            c.field_bytes = dump_bytes.min(u32::MAX as u64) as u32;
            let statics: u64 = c
                .statics
                .iter()
                .map(|f| {
                    if f.ty == basic_type::OBJECT {
                        ref_size
                    } else {
                        basic_type::primitive_size(f.ty).unwrap_or(0) as u64
                    }
                })
                .sum();
            c.class_object_size = align_up(statics, layout.object_alignment as u64);
            c.sizes.mat_instance = c.instance_size;
            c.sizes.mat_class_object = c.class_object_size;
        }
        debug_assert_eq!(order.len(), n);
        Ok(ClassTable { classes, ref_offsets, ref_names })
    }

    /// Every class index, each super class before its subclasses (the table was checked
    /// by [`ClassTable::finish`]: no loop).
    pub fn supers_first(&self) -> Vec<u32> {
        supers_first(&self.classes).unwrap_or_else(|_| (0..self.classes.len() as u32).collect())
    }

    pub fn ref_offsets_of(&self, class: u32) -> &[u32] {
        let (a, b) = self.classes[class as usize].refs;
        &self.ref_offsets[a as usize..b as usize]
    }

    /// For every class, whether it is `ancestor_name` or a subclass of it; linear in the
    /// number of classes (each super chain is walked once, answers are shared).
    pub fn all_extending(&self, ancestor_name: &str) -> Vec<bool> {
        const UNKNOWN: u8 = 2;
        let n = self.classes.len();
        let mut state = vec![UNKNOWN; n];
        let mut chain = Vec::new();
        for start in 0..n {
            chain.clear();
            let mut cur = Some(start as u32);
            let mut answer = 0u8;
            while let Some(c) = cur {
                let c = c as usize;
                if state[c] != UNKNOWN {
                    answer = state[c];
                    break;
                }
                if self.classes[c].name == ancestor_name {
                    answer = 1;
                    break;
                }
                chain.push(c);
                if chain.len() > n {
                    break;
                }
                cur = self.classes[c].super_index;
            }
            for &c in &chain {
                state[c] = answer;
            }
            if state[start] == UNKNOWN {
                state[start] = answer;
            }
        }
        state.into_iter().map(|s| s == 1).collect()
    }

    /// Marks the fields that are not plain strong references (see `special_refs`):
    ///
    /// - the fields MAT's leak-suspect paths skip: `java.lang.ref.Reference.referent`,
    ///   `java.lang.ref.Finalizer.unfinalized`, `java.lang.Runtime.<Unfinalized>`. As in MAT
    ///   a more specific entry replaces a general one (a Finalizer skips only `unfinalized`);
    /// - the strength of every reference field by [`crate::rules::strength`]'s rules.
    ///
    /// Both recognise classes by their super class chain, supers first (linear; `extends`
    /// per class and entry would be quadratic on deep chains).
    pub fn mark_special_fields(&mut self, name_of: impl Fn(u64) -> String) {
        use crate::rules::edges::{MAT_EXCLUDED, MAT_EXCLUDED_FIELDS as EXCLUDES, OWNER};
        use crate::rules::owners::OWNER_FIELDS;
        use crate::rules::strength::{CACHE_FIELDS, FIELD_RULES, STATIC_RULES, STRONG};
        let order = supers_first(&self.classes).unwrap_or_default();
        // Which EXCLUDES classes each class is or extends, one bit each.
        let mut matched = vec![0u8; self.classes.len()];
        // The strength of every entry of `ref_offsets`: a class's inherited entries copy its
        // super's (same order, after its own, see `finish`), then its own rules apply.
        let mut entry = vec![STRONG; self.ref_offsets.len()];
        let rules = || FIELD_RULES.iter().chain(CACHE_FIELDS);
        for &k in &order {
            let c = &self.classes[k as usize];
            let mut bits = c.super_index.map(|s| matched[s as usize]).unwrap_or(0);
            for (i, (class, _)) in EXCLUDES.iter().enumerate() {
                if c.name == *class {
                    bits |= 1 << i;
                }
            }
            matched[k as usize] = bits;
            let (a, b) = c.refs;
            if let Some(s) = c.super_index {
                let (sa, sb) = self.classes[s as usize].refs;
                // (`finish` gave every class its own entries plus all its super's.)
                let inherited = (sb - sa).min(b - a);
                let own = (b - a) - inherited;
                for i in 0..inherited {
                    entry[(a + own + i) as usize] = entry[(sa + i) as usize];
                }
            }
            // The field a name means is the most derived one (own fields come first): a
            // rule on `Finalizer.next` is not about the inherited `Reference.next`.
            for r in rules().filter(|r| r.class == c.name) {
                if let Some(i) = (a..b).find(|&i| name_of(self.ref_names[i as usize]) == r.field) {
                    entry[i as usize] = r.strength as u8;
                }
            }
            for (_, field) in OWNER_FIELDS.iter().filter(|r| r.0 == c.name) {
                if let Some(i) = (a..b).find(|&i| name_of(self.ref_names[i as usize]) == *field) {
                    entry[i as usize] |= OWNER;
                }
            }
        }
        for (k, &bits) in matched.iter().enumerate() {
            // The last (most specific) exclusion that applies.
            let excluded = (bits != 0).then(|| EXCLUDES[7 - bits.leading_zeros() as usize].1);
            let c = &self.classes[k];
            let (a, b) = c.refs;
            let refs: Vec<(u32, u8)> = (a..b)
                .filter_map(|i| {
                    let mut f = entry[i as usize];
                    if excluded.is_some_and(|x| name_of(self.ref_names[i as usize]) == x) {
                        f |= MAT_EXCLUDED;
                    }
                    (f != STRONG).then_some((i - a, f))
                })
                .collect();
            let static_rules = excluded.is_some() || STATIC_RULES.iter().any(|r| r.class == c.name);
            let statics: Vec<(u32, u8)> = c
                .statics
                .iter()
                .enumerate()
                .filter(|(_, s)| static_rules && s.ty == basic_type::OBJECT)
                .filter_map(|(i, s)| {
                    let name = name_of(s.name_id);
                    let mut f = STATIC_RULES
                        .iter()
                        .find(|r| r.class == c.name && r.field == name)
                        .map_or(STRONG, |r| r.strength as u8);
                    if excluded == Some(name.as_str()) {
                        f |= MAT_EXCLUDED;
                    }
                    (f != STRONG).then_some((i as u32, f))
                })
                .collect();
            self.classes[k].special_refs = refs;
            self.classes[k].special_statics = statics;
        }
    }
}

/// Deepest class hierarchy accepted. Real ones are a few dozen classes deep; the limit
/// keeps every walk up a super chain (here, in reports, in queries) short.
pub const MAX_CLASS_DEPTH: usize = 1000;

/// The classes in an order where every super class comes before its subclasses.
///
/// Errors when a super chain loops back on itself or is deeper than [`MAX_CLASS_DEPTH`],
/// naming the CLASS DUMP record where it starts.
fn supers_first(classes: &[ClassInfo]) -> Result<Vec<u32>> {
    const NEW: u8 = 0;
    const ON_CHAIN: u8 = 1;
    const DONE: u8 = 2;
    let n = classes.len();
    let mut state = vec![NEW; n];
    let mut depth = vec![0u32; n];
    let mut order = Vec::with_capacity(n);
    let mut chain: Vec<u32> = Vec::new();
    for start in 0..n {
        chain.clear();
        let mut k = start;
        // Up the chain to a finished class (or the top).
        let base_depth = loop {
            match state[k] {
                DONE => break depth[k] + 1,
                ON_CHAIN => {
                    let c = &classes[start];
                    let at = &classes[k];
                    return Err(Error::format(
                        c.offset,
                        format!(
                            "class {} (0x{:x}) has a super class chain that loops back to class {} (0x{:x}); expected it to end at a class without super class",
                            c.name, c.id, at.name, at.id
                        ),
                    ));
                }
                _ => {}
            }
            state[k] = ON_CHAIN;
            chain.push(k as u32);
            match classes[k].super_index {
                Some(s) => k = s as usize,
                None => break 0,
            }
        };
        for (i, &k) in chain.iter().rev().enumerate() {
            let d = base_depth as usize + i;
            if d >= MAX_CLASS_DEPTH {
                let c = &classes[start];
                return Err(Error::format(
                    c.offset,
                    format!("class {} (0x{:x}) has more than {MAX_CLASS_DEPTH} super classes; expected a Java class hierarchy", c.name, c.id),
                ));
            }
            depth[k as usize] = d as u32;
            state[k as usize] = DONE;
            order.push(k);
        }
    }
    Ok(order)
}

/// Most reference-field entries (inherited ones counted per subclass) the class table
/// may hold: generous for real hierarchies (the corpus needs ~1.2 per declared field and at
/// most 12,000 in all), small
/// enough that a crafted dump cannot turn a few kilobytes of class records into
/// gigabytes of tables.
fn ref_offsets_budget(classes: &[ClassInfo]) -> usize {
    let declared: usize = classes.iter().map(|c| c.fields.len()).sum();
    (1 << 22) + 8 * declared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(display_name("java/lang/String"), "java.lang.String");
        assert_eq!(display_name("[B"), "byte[]");
        assert_eq!(display_name("[[I"), "int[][]");
        assert_eq!(display_name("[Ljava/lang/Object;"), "java.lang.Object[]");
        assert_eq!(display_name("[[Ljava/util/HashMap$Node;"), "java.util.HashMap$Node[][]");
        assert_eq!(display_name("java.lang.String"), "java.lang.String");
        assert_eq!(display_name("byte[]"), "byte[]");
    }

    #[test]
    fn array_sizes() {
        let coops = Layout { id_size: 8, ref_size: 4, object_alignment: 8 };
        assert_eq!(coops.object_array_size(500_000), 2_000_016);
        assert_eq!(coops.primitive_array_size(1, 100_000), 100_016);
        assert_eq!(coops.primitive_array_size(8, 16_384), 131_088);
        let wide = Layout { id_size: 8, ref_size: 8, object_alignment: 8 };
        assert_eq!(wide.object_array_size(500_000), 4_000_024);
        assert_eq!(wide.primitive_array_size(1, 3), 32);
    }
}
