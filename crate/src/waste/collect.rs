//! What pass 2 gathers for the waste report while it reads the dump, without a pass of
//! its own and without a heap allocation per object:
//!
//! - every primitive array with data: the 64-bit hash of its type and contents that
//!   pass 1 computed ([`super::prehash`]: pass 2 skips the bodies), 8 bytes per array in
//!   place in pass 1's array, and a bit per object saying which are kept; `byte[]` and `char[]` longer than 1024 bytes
//!   also get the hashes of their first 1024 and 2048 bytes (MAT cuts string values at
//!   1024 characters), in a side table (such arrays are few);
//! - every `java.lang.String` instance: its object index, its value array's index and
//!   its coder (JDK 9+) — 12 bytes per string.
//!
//! At the end of pass 2 ([`Collector::finish`]) each string's array is replaced in place
//! by the array's hash (found by its rank among the kept arrays' bits: the hashes are in
//! object order, reordered in place when arrays came out of order), and the hashes are
//! filtered in place down to the arrays no String reads, which then become the report's
//! 12-byte (hash, object) entries. A string's value array is found again later from the
//! reference graph.

use super::hash::{hash_bytes, mix, TRUNCATED};
use crate::bits::BitSet;
use crate::error::{Error, Result};
use crate::index::ids::IdMap;
use crate::index::Index;
use crate::readback::locate::read_arrays_each;
use crate::readback::strings::{plan, ByteOrder, Decoding, Fields};
use crate::records::basic_type;
use crate::records::cursor::be_id;
use crate::rules::strings::{reading, STRING_FIELDS};
use crate::source::ByteSource;

/// A String whose value array was found: its grouping key. 12 bytes (packed): during
/// pass 2 the key holds the value array's object index and the reading, and is replaced
/// in place by the value's hash when pass 2 ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct StringEntry {
    /// Equal for strings MAT shows with the same text (up to hash collisions) once
    /// [`SHARED`] is masked off; its two low bits are the string's [`reading`], the next
    /// is [`LONG`], then [`SHARED`].
    pub key: u64,
    pub string: u32,
}

impl StringEntry {
    pub fn key(&self) -> u64 {
        self.key
    }
    pub fn string(&self) -> u32 {
        self.string
    }
}

/// Pass 2's findings, joined.
#[derive(Debug, Default)]
pub struct Collected {
    /// Strings with a value array of the dump, by key.
    pub strings: Vec<StringEntry>,
    /// Strings whose value is null, not an array of the dump, or a `byte[]` of odd length
    /// read two bytes per character (MAT shows no value for them).
    pub unresolved: Vec<u32>,
    /// Strings whose value is a window of their array: by array until they are hashed
    /// ([`resolve_windows`] reads the arrays again), then by string, for the texts of the
    /// groups they head.
    pub pending: Vec<Window>,
    /// (string, array) of the strings whose array other strings share too; by string.
    pub shared: Vec<(u32, u32)>,
    /// Primitive arrays with data that no String reads, in object order.
    pub arrays: Vec<super::arrays::Entry>,
    /// Boxed numbers, per class of [`super::boxed::CLASSES`].
    pub boxed: [Vec<super::boxed::Entry>; 8],
    /// Collection instances, and the lengths of the object arrays that may back them.
    pub collections: Vec<super::collections::Entry>,
    pub lens: Vec<(u32, u32)>,
    /// Per class: its collection layout, if any.
    pub collection_layouts: Vec<Option<super::collections::Layout>>,
    /// (object, trace position) of the objects allocated at a trace with frames.
    pub sites: Vec<(u32, u32)>,
}

use super::prehash::{LONG_ARRAY, ODD_BYTES};

/// Key bit of strings whose arrays may differ in length within their group (longer than
/// 1024 bytes, or windows): their arrays are looked up one by one.
pub const LONG: u64 = 4;
/// Key bit of strings whose value array other strings share too (listed in
/// [`Collected::shared`]): not part of the value, so grouping masks it off. A flag in
/// the entry, read as the entries are grouped, spares a lookup per string in object
/// order scattered by the sort.
pub const SHARED: u64 = 8;
/// Key bits that are not the value's hash.
const FLAGS: u64 = 15;

/// A string reading `count` chars of `array` from `offset` (JDK ≤ 6, old Android).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub string: u32,
    pub array: u32,
    pub offset: u32,
    pub count: u32,
}

/// Per String class: byte offsets of `value` and `coder` in an instance's field data.
#[derive(Debug, Clone, Copy)]
struct StringLayout {
    value: usize,
    coder: Option<usize>,
    /// `offset` and `count` (JDK ≤ 6, old Android): the value is a window of the array.
    window: Option<(usize, usize)>,
    /// `value` is the class's only reference field: pass 2's resolved references give it.
    only_reference: bool,
}

/// The default collector collects nothing (what a sink holds before pass 2 starts).
#[derive(Default)]
pub struct Collector {
    id_size: usize,
    /// Per class: Some for `java.lang.String` classes.
    string_classes: Vec<Option<StringLayout>>,
    /// Pass 1's hashes of the primitive arrays, taken in record order, and, kept in the
    /// same array, the hash of every primitive array with data (its object marked);
    /// [`Collector::finish`] reads them in object order and turns those no String reads
    /// into [`Collected::arrays`].
    hashes: super::prehash::ArrayHashes,
    /// (array, Latin-1 key, two-byte key) of arrays longer than 1024 bytes.
    long_arrays: Vec<(u32, u64, u64)>,
    /// Strings as met; keys filled in by [`Collector::finish`].
    strings: Vec<StringEntry>,
    /// Strings whose value is null or not an object of the dump.
    unresolved: Vec<u32>,
    /// Strings of a class with `offset` and `count`: (string, value id, offset, count).
    windows: Vec<(u32, u64, u32, u32)>,
    /// Per class: what its instances are to the waste report ([`STRING`], [`BOXED`],
    /// [`COLLECTION`], or 0).
    kinds: Vec<u8>,
    boxed_layouts: Vec<Option<super::boxed::Layout>>,
    boxed: [Vec<super::boxed::Entry>; 8],
    collection_layouts: Vec<Option<super::collections::Layout>>,
    collections: Vec<super::collections::Entry>,
    /// Per class: whether its object arrays' lengths are kept.
    backing_classes: Vec<bool>,
    lens: Vec<(u32, u32)>,
    /// (serial, trace position) of the traces with frames; the serial of the object
    /// record being read; (object, trace position) of objects allocated at one.
    site_traces: Vec<(u32, u32)>,
    serial: u32,
    /// The last serial found without frames: HotSpot gives every object the serial of
    /// one empty trace, asked for again and again.
    frameless: u32,
    sites: Vec<(u32, u32)>,
    /// The first allocation that failed (reported by [`Collector::finish`]).
    failed: Option<Error>,
    /// False for the default collector: nothing is collected.
    on: bool,
}

/// [`Collector`]'s kinds of classes.
const STRING: u8 = 1;
const BOXED: u8 = 2;
const COLLECTION: u8 = 3;

/// Pushes with growth by an eighth (not doubling): these vectors are the largest of
/// pass 2 and their unused capacity would count at its peak.
fn push<T>(v: &mut Vec<T>, x: T) -> Result<()> {
    if v.len() == v.capacity() {
        v.try_reserve_exact((v.len() / 8).max(4096)).map_err(|_| {
            Error::memory("out of memory collecting arrays and strings for the waste report".to_string())
        })?;
    }
    v.push(x);
    Ok(())
}

impl Collector {
    /// `on` false: a collector that collects nothing ([`crate::analysis::Options::core_only`]).
    pub fn new(index: &Index, mut hashes: super::prehash::ArrayHashes, on: bool) -> Result<Collector> {
        if on {
            hashes.start(index.ids.len())?;
        }
        let id_size = index.header.id_size as usize;
        let table = &index.classes;
        let string_classes = (0..table.classes.len() as u32)
            .map(|c| {
                if table.classes[c as usize].name != "java.lang.String" {
                    return None;
                }
                // The most derived field of each name, and whether `value` is the only reference.
                let [value, coder, offset, count] = index.field_offsets(c, STRING_FIELDS);
                let references =
                    table.instance_fields(c, id_size as u32).filter(|f| f.decl.ty == basic_type::OBJECT).count();
                Some(StringLayout { value: value?, coder, window: offset.zip(count), only_reference: references == 1 })
            })
            .collect::<Vec<Option<StringLayout>>>();
        let boxed_layouts = super::boxed::layouts(index);
        let collection_layouts = super::collections::layouts(index);
        let kinds = (0..table.classes.len())
            .map(|c| {
                if !on {
                    0
                } else if string_classes[c].is_some() {
                    STRING
                } else if boxed_layouts[c].is_some() {
                    BOXED
                } else if collection_layouts[c].is_some() {
                    COLLECTION
                } else {
                    0
                }
            })
            .collect();
        // Sized from pass 1's count of String instances: no growth (and no copying, nor
        // the hole a moved vector leaves in a wasm memory) while pass 2 reads. The arrays'
        // entries are pass 1's hashes, filled in place (`ArrayHashes::keep`).
        let reserve = |what| Error::memory(format!("out of memory reserving the waste report's {what}"));
        let mut strings = Vec::new();
        if on {
            strings.try_reserve_exact(index.counts.string_instances as usize).map_err(|_| reserve("strings"))?;
        }
        Ok(Collector {
            id_size,
            string_classes,
            hashes,
            long_arrays: Vec::new(),
            strings,
            unresolved: Vec::new(),
            windows: Vec::new(),
            kinds,
            boxed_layouts,
            boxed: Default::default(),
            collection_layouts,
            collections: Vec::new(),
            backing_classes: if on { super::collections::backing_array_classes(index) } else { Vec::new() },
            lens: Vec::new(),
            site_traces: if on { super::sites::traces_with_frames(index) } else { Vec::new() },
            serial: 0,
            frameless: 0,
            sites: Vec::new(),
            failed: None,
            on,
        })
    }

    /// Whether instances of `class` matter to the waste report (checked per instance:
    /// keep it cheap).
    #[inline]
    pub fn wants(&self, class: u32) -> bool {
        self.kinds.get(class as usize).is_some_and(|&k| k != 0)
    }

    /// An instance of a class it [`Collector::wants`], with its field data and the object
    /// indices its non-null reference fields resolved to, in field order.
    pub fn instance(&mut self, obj: u32, class: u32, fields: &[u8], ids: &IdMap, references: &[u32]) -> Result<()> {
        match self.kinds[class as usize] {
            STRING => self.string(obj, class, fields, ids, references),
            BOXED => {
                let Some(l) = self.boxed_layouts[class as usize] else { return Ok(()) };
                push(
                    &mut self.boxed[l.which as usize],
                    super::boxed::Entry { value: super::boxed::value(&l, fields), obj },
                )
            }
            _ => {
                let Some(l) = &self.collection_layouts[class as usize] else { return Ok(()) };
                let e = super::collections::entry(l, obj, fields, ids, self.id_size);
                push(&mut self.collections, e)
            }
        }
    }

    /// An object array of class `class` (its length is kept when it may back a collection).
    #[inline]
    pub fn object_array(&mut self, obj: u32, class: u32, len: u32) -> Result<()> {
        if self.backing_classes.get(class as usize).copied().unwrap_or(false) {
            push(&mut self.lens, (obj, len))?;
        }
        Ok(())
    }

    /// The allocation serial of the next object record (not 0).
    #[inline]
    pub fn allocation_serial(&mut self, serial: u32) {
        // Without traces with frames (or for the serial of a trace found without) no
        // serial is kept, and [`Collector::allocated`] has nothing to do.
        if !self.site_traces.is_empty() && serial != self.frameless {
            self.serial = serial;
        }
    }

    /// Object `obj` was defined by the record whose serial came last (`u32::MAX`: the
    /// record defines no object).
    #[inline(always)]
    pub fn allocated(&mut self, obj: u32) {
        // Called for every object: most dumps record no serials.
        if self.serial != 0 {
            self.allocated_at(obj);
        }
    }

    #[inline(never)]
    fn allocated_at(&mut self, obj: u32) {
        let serial = std::mem::take(&mut self.serial);
        if obj == u32::MAX || self.site_traces.is_empty() {
            return;
        }
        let Ok(k) = self.site_traces.binary_search_by_key(&serial, |p| p.0) else {
            self.frameless = serial;
            return;
        };
        let trace = self.site_traces[k].1;
        if let Err(e) = push(&mut self.sites, (obj, trace)) {
            self.failed.get_or_insert(e);
        }
    }

    /// The end of a primitive array record (`obj` None when it is not kept, e.g. a
    /// second definition): its hash comes from pass 1 ([`super::prehash`]).
    #[inline(always)]
    pub fn array(&mut self, obj: Option<u32>, has_data: bool) -> Result<()> {
        // Called for every primitive array: the test inline, the work out of line.
        if !self.on {
            return Ok(());
        }
        self.array_on(obj, has_data)
    }

    #[inline(never)]
    fn array_on(&mut self, obj: Option<u32>, has_data: bool) -> Result<()> {
        let Some((_, heads)) = self.hashes.take() else {
            // Pass 1 saw every record pass 2 sees.
            return Err(Error::io("the input changed between the two passes: more primitive arrays than pass 1 read"));
        };
        let (Some(obj), true) = (obj, has_data) else { return Ok(()) };
        self.hashes.keep(obj)?;
        // Only byte[] and char[] of more than 1024 bytes have heads.
        if let Some((short, long)) = heads {
            push(&mut self.long_arrays, (obj, short, long))?;
        }
        Ok(())
    }

    /// A String instance (`class` is a String class) with its field data.
    pub fn string(&mut self, obj: u32, class: u32, fields: &[u8], ids: &IdMap, references: &[u32]) -> Result<()> {
        let Some(Some(layout)) = self.string_classes.get(class as usize) else { return Ok(()) };
        let value =
            if layout.value + self.id_size <= fields.len() { be_id(fields, layout.value, self.id_size) } else { 0 };
        if let Some((offset, count)) = layout.window {
            let int =
                |at: usize| fields.get(at..at + 4).map_or(0, |b| u32::from_be_bytes(b.try_into().expect("4 bytes")));
            return push(&mut self.windows, (obj, value, int(offset), int(count)));
        }
        let coder = match layout.coder {
            Some(at) if at < fields.len() => fields[at].min(reading::UTF16),
            Some(_) => reading::LATIN1,
            None => reading::NO_CODER,
        };
        // The value's index: already resolved with the references (its only one), or looked up.
        let array = match value {
            0 => None,
            _ if layout.only_reference => references.first().copied(),
            _ => ids.index_of(value),
        };
        match array {
            Some(array) => {
                push(&mut self.strings, StringEntry { key: (array as u64) << 2 | coder as u64, string: obj })
            }
            None => push(&mut self.unresolved, obj),
        }
    }

    /// Replaces each string's array by its value's hash; frees the per-array vectors.
    pub fn finish(self, ids: &IdMap) -> Result<Collected> {
        let Collector {
            hashes,
            mut long_arrays,
            mut strings,
            mut unresolved,
            windows,
            boxed,
            collections,
            lens,
            collection_layouts,
            sites,
            failed,
            on,
            ..
        } = self;
        if let Some(e) = failed {
            return Err(e);
        }
        if !on {
            return Ok(Collected::default());
        }
        let kept_arrays = hashes.into_kept()?;
        long_arrays.sort_unstable_by_key(|p| p.0);
        // Arrays that several strings share (two bits per array: seen, seen again).
        let mut seen = BitSet::new(kept_arrays.len(), "the waste report's array marks")?;
        let mut again = BitSet::new(kept_arrays.len(), "the waste report's array marks")?;
        for e in &strings {
            if let Some(at) = kept_arrays.position((e.key >> 2) as u32) {
                if !seen.insert_new(at as u32) {
                    again.insert(at as u32);
                }
            }
        }
        let mut shared = Vec::new();
        let mut failed = Ok(());
        strings.retain_mut(|e| {
            let (array, coder) = ((e.key >> 2) as u32, (e.key & 3) as u8);
            let hash = kept_arrays.position(array).map(|at| (at, kept_arrays.hash(at)));
            // Not an array with data, or a byte[] of odd length read two bytes per character
            // (MAT shows no value; a JDK 9+ UTF-16 array is never odd).
            let Some((at, hash)) = hash.filter(|&(_, h)| coder == reading::LATIN1 || h & ODD_BYTES == 0) else {
                if let Err(x) = push(&mut unresolved, e.string) {
                    failed = Err(x);
                }
                return false;
            };
            // Only arrays flagged long have heads (most have not: no search for them).
            let long = if hash & LONG_ARRAY != 0 {
                long_arrays.binary_search_by_key(&array, |p| p.0).ok().map(|k| long_arrays[k])
            } else {
                None
            };
            let content = match (long, coder) {
                (Some((_, short, _)), reading::LATIN1) => short,
                (Some((_, _, long)), _) => long,
                (None, _) => hash,
            };
            let is_shared = again.contains(at as u32);
            if is_shared {
                if let Err(x) = push(&mut shared, (e.string, array)) {
                    failed = Err(x);
                }
            }
            e.key = (mix(content, coder as u64) & !FLAGS)
                | if long.is_some() { LONG } else { 0 }
                | if is_shared { SHARED } else { 0 }
                | coder as u64;
            true
        });
        failed?;
        drop((long_arrays, again));
        shared.sort_unstable();
        // Left in object order: the kept ones are picked sequentially before the sort by key.
        strings.shrink_to_fit();
        let mut pending = Vec::new();
        for (s, value, offset, count) in windows {
            match (value != 0).then(|| ids.index_of(value)).flatten() {
                Some(array) => push(&mut pending, Window { string: s, array, offset, count })?,
                None => push(&mut unresolved, s)?,
            }
        }
        pending.sort_unstable_by_key(|w| w.array);
        // Arrays that no String reads (windows' arrays are read too).
        let mut w = 0usize;
        let arrays = kept_arrays.into_entries(|at, obj| {
            if seen.contains(at as u32) {
                return false;
            }
            while w < pending.len() && pending[w].array < obj {
                w += 1;
            }
            !(w < pending.len() && pending[w].array == obj)
        })?;
        drop(seen);
        Ok(Collected {
            strings,
            unresolved,
            pending,
            shared,
            arrays,
            boxed,
            collections,
            lens,
            collection_layouts,
            sites,
        })
    }
}

/// Hashes the windows of [`Collected::pending`] by reading their arrays again in one
/// forward walk (dumps of JDK ≤ 6 and old Android only, others have no windows and read
/// nothing), each array up to the end of the furthest window shown in it; leaves the
/// windows sorted by string. Returns the source.
///
/// The key is MAT's text of the window ([`Decoding::Mat`], at most 1024 characters):
/// the bytes MAT reads, their encoding and whether MAT marks a cut.
pub fn resolve_windows(c: &mut Collected, index: &Index, source: Box<dyn ByteSource>) -> Result<Box<dyn ByteSource>> {
    if c.pending.is_empty() {
        return Ok(source);
    }
    let max = super::strings::MAX_VALUE_CHARS;
    let fields = |w: &Window| Fields::of_reading(reading::NO_CODER, Some((w.offset, w.count)));
    // By array: each array once, read up to the end of its furthest window.
    let (mut arrays, mut limits): (Vec<u32>, Vec<usize>) = (Vec::new(), Vec::new());
    for w in &c.pending {
        let bound = fields(w).bytes_bound(max);
        match arrays.last() {
            Some(&last) if last == w.array => {
                let l = limits.last_mut().expect("one limit per array");
                *l = (*l).max(bound);
            }
            _ => {
                arrays.push(w.array);
                limits.push(bound);
            }
        }
    }
    let (source, data) = read_arrays_each(index, source, &arrays, &limits)?;
    drop(limits);
    let order = ByteOrder::of(index);
    for w in &c.pending {
        let k = arrays.partition_point(|&x| x < w.array);
        let f = fields(w);
        let found = data.get(k).and_then(|d| d.as_ref()).and_then(|array| {
            let p = plan(&f, array.ty, array.len, order, Decoding::Mat, max)?;
            let bytes = array.data.get(p.start as usize..p.end() as usize)?;
            let tag = array.ty as u64 | (p.units as u64) << 8 | if p.cut { TRUNCATED } else { 0 };
            Some(hash_bytes(bytes, tag))
        });
        let Some(content) = found else {
            push(&mut c.unresolved, w.string)?;
            continue;
        };
        let reading = f.reading();
        push(
            &mut c.strings,
            StringEntry { key: (mix(content, reading as u64) & !FLAGS) | LONG | reading as u64, string: w.string },
        )?;
    }
    c.pending.sort_unstable_by_key(|w| w.string);
    Ok(source)
}
