//! Pass 1: read the whole dump once and build the index.
//!
//! Kept from pass 1: the strings that name classes and fields, the class table, the GC
//! root records, the thread objects, and the identifier of every object (turned into the
//! dense, address-ordered index of [`ids::IdMap`]). Per-object facts that need the class
//! table (class, size, references) are left to pass 2, which sees each record again.
//!
//! Two layout facts are detected here, as MAT does: compressed oops (with 8-byte ids, an
//! object array starting inside the previous object array's 8-byte-reference extent means
//! references are 4 bytes) and the object alignment (GCD of address differences).

pub mod classes;
pub mod ids;
pub mod jvm_sizes;
pub mod layout;
pub mod locate;
pub mod sink;
pub mod stacks;
pub mod u64map;

use std::collections::{BTreeMap, HashMap};

use crate::error::{Error, Result};
use crate::records::heap::{ClassDump, RootKind, Visitor, WalkEnd};
use crate::records::{Cursor, Header};
use classes::{ClassInfo, ClassTable, Layout};
use ids::{IdCollector, IdMap};
use jvm_sizes::evidence::ArrayEvidence;
use jvm_sizes::{JvmLayout, Sizes};
use locate::Locator;
pub use sink::Pass1Sink;
use stacks::Stacks;
use u64map::U64Map;

/// A GC root record as read.
#[derive(Debug, Clone, Copy)]
pub struct RootRecord {
    pub id: u64,
    pub kind: RootKind,
    pub thread_serial: Option<u32>,
}

/// A THREAD OBJECT record.
#[derive(Debug, Clone, Copy)]
pub struct ThreadRecord {
    pub id: u64,
    pub serial: u32,
    pub stack_serial: u32,
}

/// Progress callback of the passes: (input bytes consumed, objects so far).
pub type Tick<'a> = &'a mut dyn FnMut(u64, u64) -> Result<()>;

/// Everything pass 1 produces.
pub struct Index {
    pub header: Header,
    /// MAT's sizing parameters.
    pub layout: Layout,
    /// The JVM's object layout, as the dump's addresses show it ([`jvm_sizes`]).
    pub jvm: JvmLayout,
    /// Which sizes pass 2 stores (the JVM's unless set otherwise before it).
    pub sizes: Sizes,
    pub ids: IdMap,
    pub classes: ClassTable,
    /// Class object id → index in `classes.classes`.
    pub class_by_id: U64Map,
    /// Index in `classes.classes` of `java.lang.Class`, `java.lang.ClassLoader`, if present.
    pub java_lang_class: Option<u32>,
    pub java_lang_classloader: Option<u32>,
    /// Class index of each primitive array type, by HPROF basic type (4..=11).
    pub primitive_array_class: [Option<u32>; 12],
    pub roots: Vec<RootRecord>,
    pub threads: Vec<ThreadRecord>,
    /// Stack traces, their frames and the frame of each frame-local root.
    pub stacks: Stacks,
    pub strings: Strings,
    /// How the walk ended: complete, or where it broke off.
    pub end: WalkEnd,
    /// Offset where pass 2 must stop (the first byte pass 1 could not use).
    pub stop_at: Option<u64>,
    pub counts: Counts,
    pub warnings: Vec<String>,
    /// Where object records are, to read one again later.
    pub locator: Locator,
    /// Heap-dump snapshots in the file (0 when it holds no heap dump).
    pub snapshots: u32,
    /// The snapshot indexed (1-based), or None: every heap record.
    pub snapshot: Option<u32>,
    /// Estimated objects per class (by class index), from a sample of pass 1's records:
    /// pass 2 picks the classes its class column stores in one byte from it
    /// ([`crate::graph::columns::ClassColumn::new`]); only memory depends on it.
    pub class_weights: Vec<u64>,
    /// Field names shown instead of the dump's: (declaring class index, name string id) →
    /// name. Empty unless a deobfuscation mapping was applied (`crate::mapping`).
    pub field_renames: BTreeMap<(u32, u64), String>,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Counts {
    pub instances: u64,
    pub object_arrays: u64,
    pub primitive_arrays: u64,
    pub class_dumps: u64,
    /// Instances of a class loaded as `java/lang/String` (to size the waste report's
    /// list of strings before pass 2).
    pub string_instances: u64,
    pub segments: u64,
    pub bytes: u64,
}

/// The STRING records, kept in one arena.
#[derive(Default)]
pub struct Strings {
    arena: Vec<u8>,
    by_id: HashMap<u64, (u32, u32)>,
}

impl Strings {
    pub fn get(&self, id: u64) -> Option<&str> {
        let &(a, n) = self.by_id.get(&id)?;
        std::str::from_utf8(&self.arena[a as usize..(a + n) as usize]).ok()
    }

    /// The string, with invalid UTF-8 replaced, or a placeholder naming the id.
    pub fn name(&self, id: u64) -> String {
        match self.by_id.get(&id) {
            Some(&(a, n)) => String::from_utf8_lossy(&self.arena[a as usize..(a + n) as usize]).into_owned(),
            None => format!("<unknown string 0x{id:x}>"),
        }
    }

    fn add(&mut self, id: u64, utf8: &[u8]) {
        if self.arena.len() + utf8.len() > u32::MAX as usize {
            return;
        }
        let at = self.arena.len() as u32;
        self.arena.extend_from_slice(utf8);
        self.by_id.insert(id, (at, utf8.len() as u32));
    }
}

struct Pass1<'a, S: Pass1Sink> {
    id_size: u32,
    strings: Strings,
    class_names: HashMap<u64, u64>,
    /// Class ids loaded with the name `java/lang/String` (one per loader that has one).
    string_classes: Vec<u64>,
    classes: Vec<ClassInfo>,
    class_by_id: U64Map,
    ids: IdCollector,
    roots: Vec<RootRecord>,
    threads: Vec<ThreadRecord>,
    stacks: Stacks,
    counts: Counts,
    // Compressed-oops detection over object arrays in file order.
    prev_array: Option<(u64, u64)>,
    /// What the distances between arrays and the next record say about the layout.
    arrays: ArrayEvidence,
    compressed_oops: bool,
    warnings: Vec<String>,
    tick: Tick<'a>,
    locator: Locator,
    /// The snapshot to index (1-based), or None for every heap record.
    snapshot: Option<u32>,
    /// Heap-dump snapshots met so far.
    snapshots: u32,
    sink: &'a mut S,
    /// Whether the sink wants the primitive arrays' bodies.
    primitive_data: bool,
    /// Class id → sampled instances and object arrays (one record in [`SAMPLE`] of each).
    class_sample: HashMap<u64, u64>,
    /// Primitive arrays per basic type (exact: no lookup needed).
    primitive_arrays: [u64; 12],
}

/// One record in `SAMPLE` is counted by class: enough to rank the classes for the class
/// column's palette, at a 16th of the lookups.
const SAMPLE: u64 = 16;

impl<S: Pass1Sink> Pass1<'_, S> {
    #[inline]
    fn object(&mut self, id: u64, offset: u64) -> Result<()> {
        self.locator.object(id, offset);
        self.ids.push(id)
    }
}

impl<S: Pass1Sink> Visitor for Pass1<'_, S> {
    const INSTANCE_FIELDS: bool = false;
    const ARRAY_ELEMENTS: bool = false;
    // The bytes go by anyway: a sink may read them (then pass 2 need not).
    const PRIMITIVE_DATA: bool = true;

    // Without a sink that wants them, nothing reads the bodies: skipped in place.
    #[inline(always)]
    fn primitive_data(&mut self, _id: u64) -> bool {
        self.primitive_data
    }

    // Called only when the sink wants the bodies (see `primitive_data`).
    #[inline]
    fn primitive_array_data(&mut self, data: &[u8]) -> Result<()> {
        self.sink.primitive_array_data(data);
        Ok(())
    }

    fn heap_dump(&mut self, snapshot: u32) -> bool {
        self.snapshots = self.snapshots.max(snapshot);
        self.snapshot.map_or(true, |s| s == snapshot)
    }

    fn tick(&mut self, input_pos: u64) -> Result<()> {
        (self.tick)(input_pos, self.ids.len() as u64)
    }

    fn string(&mut self, id: u64, utf8: &[u8], _offset: u64) -> Result<()> {
        self.strings.add(id, utf8);
        Ok(())
    }

    fn load_class(&mut self, serial: u32, class_id: u64, _stack: u32, name_id: u64) -> Result<()> {
        self.class_names.insert(class_id, name_id);
        if self.strings.get(name_id) == Some("java/lang/String") {
            self.string_classes.push(class_id);
        }
        self.stacks.class_names.insert(serial, name_id);
        Ok(())
    }

    fn stack_frame(
        &mut self,
        frame_id: u64,
        method: u64,
        signature: u64,
        source_file: u64,
        class_serial: u32,
        line: i32,
    ) -> Result<()> {
        self.stacks.frames.insert(frame_id, stacks::Frame { method, signature, source_file, class_serial, line });
        Ok(())
    }

    fn stack_trace(&mut self, serial: u32, thread_serial: u32, frames: &[u8], id_size: usize) -> Result<()> {
        let frames = frames.chunks_exact(id_size).map(|w| crate::records::cursor::be_id(w, 0, id_size)).collect();
        self.stacks.traces.push(stacks::Trace { serial, thread_serial, frames });
        Ok(())
    }

    fn frame_root(&mut self, kind: RootKind, id: u64, thread_serial: u32, frame: u32, offset: u64) -> Result<()> {
        self.stacks.locals.push(stacks::FrameLocal { thread_serial, frame, id });
        self.root(kind, id, Some(thread_serial), offset)
    }

    fn segment(&mut self, offset: u64, len: u32) -> Result<()> {
        self.counts.segments += 1;
        self.locator.segment(offset + 9, offset + 9 + len as u64);
        Ok(())
    }

    fn root(&mut self, kind: RootKind, id: u64, thread_serial: Option<u32>, _offset: u64) -> Result<()> {
        self.roots.push(RootRecord { id, kind, thread_serial });
        Ok(())
    }

    fn thread_object(&mut self, id: u64, serial: u32, stack_serial: u32, _offset: u64) -> Result<()> {
        self.threads.push(ThreadRecord { id, serial, stack_serial });
        self.roots.push(RootRecord { id, kind: RootKind::ThreadObject, thread_serial: Some(serial) });
        Ok(())
    }

    fn class_dump(&mut self, c: &ClassDump, offset: u64) -> Result<()> {
        self.counts.class_dumps += 1;
        self.locator.object(c.id, offset);
        let index = self.classes.len() as u32;
        if self.class_by_id.insert_if_absent(c.id, index) != index {
            self.warnings.push(format!(
                "class 0x{:x} is dumped twice (again at byte {offset}); the first definition is used",
                c.id
            ));
            return Ok(());
        }
        self.classes.push(ClassInfo {
            id: c.id,
            name: String::new(),
            super_id: c.super_id,
            loader_id: c.loader_id,
            super_index: None,
            fields: c.fields.clone(),
            statics: c.statics.clone(),
            offset,
            instance_size: 0,
            class_object_size: 0,
            hprof_instance_size: c.instance_size,
            sizes: Default::default(),
            field_bytes: 0,
            refs: (0, 0),
            special_refs: Vec::new(),
            special_statics: Vec::new(),
        });
        Ok(())
    }

    #[inline(always)]
    fn instance(&mut self, id: u64, class_id: u64, _n: u32, _fields: &[u8], offset: u64) -> Result<()> {
        self.counts.instances += 1;
        self.arrays.instance(id);
        self.counts.string_instances += self.string_classes.contains(&class_id) as u64;
        if self.counts.instances % SAMPLE == 0 {
            *self.class_sample.entry(class_id).or_default() += SAMPLE;
        }
        self.object(id, offset)
    }

    fn object_array(&mut self, id: u64, class_id: u64, len: u32, offset: u64) -> Result<()> {
        self.counts.object_arrays += 1;
        self.arrays.array(id, crate::records::basic_type::OBJECT, len);
        if self.counts.object_arrays % SAMPLE == 0 {
            *self.class_sample.entry(class_id).or_default() += SAMPLE;
        }
        self.object(id, offset)?;
        if self.id_size == 8 && !self.compressed_oops {
            if let Some((start, end)) = self.prev_array {
                if id > start && id < end {
                    self.compressed_oops = true;
                }
            }
            self.prev_array = Some((id, id.saturating_add(16 + len as u64 * 8)));
        }
        Ok(())
    }

    #[inline(always)]
    fn primitive_array(&mut self, id: u64, ty: u8, len: u32, _has_data: bool, offset: u64) -> Result<()> {
        self.counts.primitive_arrays += 1;
        self.arrays.array(id, ty, len);
        if let Some(k) = self.primitive_arrays.get_mut(ty as usize) {
            *k += 1;
        }
        if self.primitive_data {
            self.sink.primitive_array(ty)?;
        }
        self.object(id, offset)
    }
}

/// Runs pass 1 over `c` (positioned at offset 0), indexing the heap records of
/// `snapshot` only (1-based; None: all of them), telling `sink` what it wants to know.
pub fn pass1<S: Pass1Sink>(c: &mut Cursor, tick: Tick, snapshot: Option<u32>, sink: &mut S) -> Result<Index> {
    let header = Header::read(c)?;
    let mut p = Pass1 {
        id_size: header.id_size,
        strings: Strings::default(),
        class_names: HashMap::new(),
        string_classes: Vec::new(),
        classes: Vec::new(),
        class_by_id: U64Map::with_capacity(1024),
        ids: IdCollector::default(),
        roots: Vec::new(),
        threads: Vec::new(),
        stacks: Stacks::default(),
        counts: Counts::default(),
        prev_array: None,
        arrays: ArrayEvidence::new(header.id_size),
        compressed_oops: false,
        warnings: Vec::new(),
        tick,
        locator: Locator::default(),
        snapshot,
        snapshots: 0,
        primitive_data: sink.wants_primitive_data(),
        sink,
        class_sample: HashMap::new(),
        primitive_arrays: [0; 12],
    };
    let end = crate::records::heap::walk(c, &header, &mut p, None)?;
    let stop_at = match &end {
        WalkEnd::Complete { .. } => None,
        // Pass 2 stops at the start of the record that broke, so that both passes see
        // exactly the same records.
        WalkEnd::Broken { stop_at, .. } => Some(*stop_at),
    };
    p.counts.bytes = c.pos();
    if let (WalkEnd::Complete { .. }, None, Some(total)) = (&end, c.source().len(), c.source().input_len()) {
        // A gzip stream ended cleanly before the end of the file: gzip(1) ignores
        // trailing garbage too, but say so.
        let used = c.source().input_pos();
        if used < total {
            p.warnings.push(format!(
                "{} bytes after the end of the gzip data (at compressed byte {used}) were ignored",
                total - used
            ));
        }
    }
    p.locator.finish(stop_at.unwrap_or(c.pos()));
    let Pass1 {
        strings,
        class_names,
        mut classes,
        class_by_id,
        mut ids,
        roots,
        threads,
        stacks,
        counts,
        compressed_oops,
        arrays,
        warnings,
        locator,
        snapshots,
        sink,
        class_sample,
        primitive_arrays,
        ..
    } = p;
    // Before the ids' chunks are freed (what the sink keeps is placed first).
    sink.walk_done()?;

    // Names.
    for c in classes.iter_mut() {
        c.name = match class_names.get(&c.id) {
            Some(&name_id) => classes::display_name(&strings.name(name_id)),
            None => format!("unknown-name@0x{:x}", c.id),
        };
    }

    // Every class object is an object too, and MAT's pseudo object 0x0 stands for the
    // bootstrap class loader.
    for c in &classes {
        ids.push(c.id)?;
    }
    let object_alignment = object_alignment(ids.iter());
    ids.push(0)?;
    let ids: IdMap = ids.finish()?;

    let ref_size = if header.id_size == 8 && compressed_oops { 4 } else { header.id_size };
    let layout = Layout { id_size: header.id_size, ref_size, object_alignment };
    let mut table = ClassTable::finish(classes, layout, |id| class_by_id.get(id))?;
    table.mark_special_fields(|id| strings.name(id));
    let vm = if jvm_sizes::is_art(header.version == crate::records::HprofVersion::V103, &table) {
        jvm_sizes::Vm::Art
    } else {
        jvm_sizes::Vm::HotSpot
    };
    let jvm = JvmLayout::infer(&arrays, &layout, vm);

    let find = |name: &str| table.classes.iter().position(|c| c.name == name).map(|i| i as u32);
    let java_lang_class = find("java.lang.Class");
    let java_lang_classloader = find("java.lang.ClassLoader");
    let mut primitive_array_class = [None; 12];
    for (t, slot) in primitive_array_class.iter_mut().enumerate() {
        if let Some(p) = crate::records::basic_type::primitive_name(t as u8) {
            *slot = find(&format!("{p}[]"));
        }
    }
    let mut class_weights = vec![0u64; table.classes.len()];
    for (id, k) in class_sample {
        if let Some(c) = class_by_id.get(id) {
            class_weights[c as usize] += k;
        }
    }
    for (ty, &k) in primitive_arrays.iter().enumerate() {
        if let Some(c) = primitive_array_class[ty] {
            class_weights[c as usize] += k;
        }
    }
    if let Some(c) = java_lang_class {
        class_weights[c as usize] += table.classes.len() as u64;
    }
    // An incomplete dump is reported once, as the report's `incomplete` (not a warning).
    Ok(Index {
        header,
        layout,
        jvm,
        sizes: Sizes::Jvm,
        ids,
        classes: table,
        class_by_id,
        java_lang_class,
        java_lang_classloader,
        primitive_array_class,
        roots,
        threads,
        stacks,
        strings,
        end,
        stop_at,
        counts,
        warnings,
        locator,
        snapshots,
        snapshot,
        class_weights,
        field_renames: BTreeMap::new(),
    })
}

impl Index {
    /// The alignment every shallow size of the analysis is a multiple of (its sizes'
    /// reading: MAT's detected alignment, or the JVM layout's).
    pub fn size_alignment(&self) -> u32 {
        match self.sizes {
            Sizes::Mat => self.layout.object_alignment,
            Sizes::Jvm => self.jvm.alignment,
        }
    }
}

/// GCD of the differences between object addresses, clamped to [8, 256] (MAT's rule).
fn object_alignment(mut ids: impl Iterator<Item = u64>) -> u32 {
    let Some(first) = ids.find(|&x| x != 0) else { return 8 };
    let mut g = 0u64;
    for x in ids {
        if x == 0 {
            continue;
        }
        let d = x.abs_diff(first);
        if d != 0 {
            g = gcd(g, d);
            if g <= 8 {
                return 8;
            }
        }
    }
    if g == 0 {
        8
    } else {
        g.clamp(8, 256) as u32
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[allow(dead_code)]
fn _assert_error_is_send() {
    fn f<T: Send>() {}
    f::<Error>();
}
