//! A small HPROF writer for tests: well-formed dumps built record by record, plus raw
//! escape hatches ([`Hprof::raw`], [`Hprof::record_with_len`], [`Segment::raw`]) for
//! crafting broken ones.
//!
//! ```ignore
//! let mut h = Hprof::new(8);
//! h.string(1, "java/lang/Object").load_class(1, 0x100, 1);
//! let mut seg = h.segment_builder();
//! seg.class_dump(&ClassDef::new(0x100, 0)).root_sticky_class(0x100);
//! h.segment(&seg).heap_dump_end();
//! let bytes = h.into_bytes();
//! ```
//!
//! [`Hprof::len`] and [`Segment::len`] give the offset the next record will start at,
//! so a test can say exactly which byte an error message must name (a segment's body
//! starts 9 bytes after the segment record's own offset).

use heapscope::records::{basic_type, tag};

/// Writes a big-endian identifier of `id_size` bytes.
fn put_id(out: &mut Vec<u8>, id: u64, id_size: usize) {
    if id_size == 8 {
        out.extend_from_slice(&id.to_be_bytes());
    } else {
        out.extend_from_slice(&(id as u32).to_be_bytes());
    }
}

/// A field or static value, with its HPROF basic type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Obj(u64),
    Bool(bool),
    Char(u16),
    Float(f32),
    Double(f64),
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
}

impl Value {
    pub fn ty(self) -> u8 {
        match self {
            Value::Obj(_) => basic_type::OBJECT,
            Value::Bool(_) => basic_type::BOOLEAN,
            Value::Char(_) => basic_type::CHAR,
            Value::Float(_) => basic_type::FLOAT,
            Value::Double(_) => basic_type::DOUBLE,
            Value::Byte(_) => basic_type::BYTE,
            Value::Short(_) => basic_type::SHORT,
            Value::Int(_) => basic_type::INT,
            Value::Long(_) => basic_type::LONG,
        }
    }

    pub fn write(self, out: &mut Vec<u8>, id_size: usize) {
        match self {
            Value::Obj(id) => put_id(out, id, id_size),
            Value::Bool(b) => out.push(b as u8),
            Value::Char(c) => out.extend_from_slice(&c.to_be_bytes()),
            Value::Float(f) => out.extend_from_slice(&f.to_be_bytes()),
            Value::Double(d) => out.extend_from_slice(&d.to_be_bytes()),
            Value::Byte(b) => out.extend_from_slice(&b.to_be_bytes()),
            Value::Short(s) => out.extend_from_slice(&s.to_be_bytes()),
            Value::Int(i) => out.extend_from_slice(&i.to_be_bytes()),
            Value::Long(l) => out.extend_from_slice(&l.to_be_bytes()),
        }
    }
}

/// Field values of an INSTANCE DUMP, in dump order (the class's own fields first, then
/// its super class's).
pub fn field_bytes(values: &[Value], id_size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        v.write(&mut out, id_size);
    }
    out
}

/// A CLASS DUMP: class object id, super class, loader, statics and instance fields.
#[derive(Debug, Clone)]
pub struct ClassDef {
    pub id: u64,
    pub super_id: u64,
    pub loader_id: u64,
    /// The "instance size" field (MAT ignores it; heapscope too).
    pub instance_size: u32,
    /// (name string id, value)
    pub statics: Vec<(u64, Value)>,
    /// (name string id, basic type)
    pub fields: Vec<(u64, u8)>,
}

impl ClassDef {
    pub fn new(id: u64, super_id: u64) -> ClassDef {
        ClassDef { id, super_id, loader_id: 0, instance_size: 0, statics: Vec::new(), fields: Vec::new() }
    }
    pub fn loader(mut self, loader_id: u64) -> ClassDef {
        self.loader_id = loader_id;
        self
    }
    pub fn static_field(mut self, name_id: u64, value: Value) -> ClassDef {
        self.statics.push((name_id, value));
        self
    }
    pub fn field(mut self, name_id: u64, ty: u8) -> ClassDef {
        self.fields.push((name_id, ty));
        self
    }
}

/// The sub-records of one HEAP DUMP SEGMENT.
pub struct Segment {
    out: Vec<u8>,
    id_size: usize,
}

impl Segment {
    pub fn new(id_size: usize) -> Segment {
        Segment { out: Vec::new(), id_size }
    }

    /// Bytes so far: the offset, within the segment's body, of the next sub-record.
    pub fn len(&self) -> u64 {
        self.out.len() as u64
    }

    pub fn body(&self) -> &[u8] {
        &self.out
    }

    /// Appends bytes as they are (for broken sub-records).
    pub fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.out.extend_from_slice(bytes);
        self
    }

    pub fn id(&mut self, id: u64) -> &mut Self {
        put_id(&mut self.out, id, self.id_size);
        self
    }

    pub fn u1(&mut self, v: u8) -> &mut Self {
        self.out.push(v);
        self
    }

    pub fn u2(&mut self, v: u16) -> &mut Self {
        self.out.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub fn u4(&mut self, v: u32) -> &mut Self {
        self.out.extend_from_slice(&v.to_be_bytes());
        self
    }

    fn id_root(&mut self, sub: u8, id: u64) -> &mut Self {
        self.u1(sub).id(id)
    }

    pub fn root_unknown(&mut self, id: u64) -> &mut Self {
        self.id_root(0xFF, id)
    }
    pub fn root_jni_global(&mut self, id: u64, jni_ref: u64) -> &mut Self {
        self.u1(0x01).id(id).id(jni_ref)
    }
    pub fn root_jni_local(&mut self, id: u64, thread_serial: u32, frame: u32) -> &mut Self {
        self.u1(0x02).id(id).u4(thread_serial).u4(frame)
    }
    pub fn root_java_frame(&mut self, id: u64, thread_serial: u32, frame: u32) -> &mut Self {
        self.u1(0x03).id(id).u4(thread_serial).u4(frame)
    }
    pub fn root_native_stack(&mut self, id: u64, thread_serial: u32) -> &mut Self {
        self.u1(0x04).id(id).u4(thread_serial)
    }
    pub fn root_sticky_class(&mut self, id: u64) -> &mut Self {
        self.id_root(0x05, id)
    }
    pub fn root_thread_block(&mut self, id: u64, thread_serial: u32) -> &mut Self {
        self.u1(0x06).id(id).u4(thread_serial)
    }
    pub fn root_monitor_used(&mut self, id: u64) -> &mut Self {
        self.id_root(0x07, id)
    }
    pub fn root_thread_object(&mut self, id: u64, thread_serial: u32, stack_serial: u32) -> &mut Self {
        self.u1(0x08).id(id).u4(thread_serial).u4(stack_serial)
    }

    /// ART root kinds that carry only an id: 0x89 interned string, 0x8A finalizing,
    /// 0x8B debugger, 0x8C reference cleanup, 0x8D VM internal, 0x90 unreachable.
    pub fn art_root(&mut self, sub: u8, id: u64) -> &mut Self {
        assert!(matches!(sub, 0x89..=0x8D | 0x90), "not an id-only ART root: 0x{sub:02x}");
        self.id_root(sub, id)
    }
    /// ART 0x8E JNI monitor root.
    pub fn art_jni_monitor(&mut self, id: u64, thread_serial: u32, frame: u32) -> &mut Self {
        self.u1(0x8E).id(id).u4(thread_serial).u4(frame)
    }
    /// ART 0xFE: the following objects belong to heap `heap_id` (named by a STRING).
    pub fn heap_dump_info(&mut self, heap_id: u32, name_id: u64) -> &mut Self {
        self.u1(0xFE).u4(heap_id).id(name_id)
    }

    pub fn class_dump(&mut self, c: &ClassDef) -> &mut Self {
        self.u1(0x20).id(c.id).u4(0).id(c.super_id).id(c.loader_id).id(0).id(0).id(0).id(0).u4(c.instance_size);
        self.u2(0); // constant pool
        self.u2(c.statics.len() as u16);
        for &(name, v) in &c.statics {
            self.id(name).u1(v.ty());
            v.write(&mut self.out, self.id_size);
        }
        self.u2(c.fields.len() as u16);
        for &(name, ty) in &c.fields {
            self.id(name).u1(ty);
        }
        self
    }

    /// INSTANCE DUMP with the given field values.
    pub fn instance(&mut self, id: u64, class_id: u64, values: &[Value]) -> &mut Self {
        let bytes = field_bytes(values, self.id_size);
        self.instance_raw(id, class_id, bytes.len() as u32, &bytes)
    }

    /// INSTANCE DUMP whose length field says `n` whatever `bytes` holds.
    pub fn instance_raw(&mut self, id: u64, class_id: u64, n: u32, bytes: &[u8]) -> &mut Self {
        self.u1(0x21).id(id).u4(0).id(class_id).u4(n).raw(bytes)
    }

    pub fn object_array(&mut self, id: u64, class_id: u64, elements: &[u64]) -> &mut Self {
        self.object_array_header(id, class_id, elements.len() as u32);
        for &e in elements {
            self.id(e);
        }
        self
    }

    /// Just the head of an OBJECT ARRAY DUMP claiming `n` elements (none written).
    pub fn object_array_header(&mut self, id: u64, class_id: u64, n: u32) -> &mut Self {
        self.u1(0x22).id(id).u4(0).u4(n).id(class_id)
    }

    /// PRIMITIVE ARRAY DUMP of `n` elements of type `ty`, zero-filled.
    pub fn primitive_array(&mut self, id: u64, ty: u8, n: u32) -> &mut Self {
        let size = basic_type::primitive_size(ty).expect("a primitive type") as usize;
        self.primitive_array_header(id, ty, n);
        self.out.resize(self.out.len() + n as usize * size, 0);
        self
    }

    /// Just the head of a PRIMITIVE ARRAY DUMP (type not checked, no data).
    pub fn primitive_array_header(&mut self, id: u64, ty: u8, n: u32) -> &mut Self {
        self.u1(0x23).id(id).u4(0).u4(n).u1(ty)
    }

    /// ART 0xC3: a primitive array without its data.
    pub fn primitive_array_nodata(&mut self, id: u64, ty: u8, n: u32) -> &mut Self {
        self.u1(0xC3).id(id).u4(0).u4(n).u1(ty)
    }
}

/// A whole dump: header, then top-level records.
pub struct Hprof {
    out: Vec<u8>,
    id_size: usize,
}

impl Hprof {
    /// A HotSpot-style dump ("JAVA PROFILE 1.0.2") with `id_size`-byte ids.
    pub fn new(id_size: u32) -> Hprof {
        Hprof::with_header("JAVA PROFILE 1.0.2", id_size, 1_700_000_000_000)
    }

    /// An Android ART dump ("JAVA PROFILE 1.0.3", 4-byte ids).
    pub fn android() -> Hprof {
        Hprof::with_header("JAVA PROFILE 1.0.3", 4, 1_700_000_000_000)
    }

    /// Any header: `version` is written with its NUL, then the id size and timestamp as
    /// given (so an invalid id size can be written too; records then use 8-byte ids
    /// unless the size is 4).
    pub fn with_header(version: &str, id_size: u32, timestamp_ms: u64) -> Hprof {
        let mut out = Vec::new();
        out.extend_from_slice(version.as_bytes());
        out.push(0);
        out.extend_from_slice(&id_size.to_be_bytes());
        out.extend_from_slice(&timestamp_ms.to_be_bytes());
        Hprof { out, id_size: if id_size == 4 { 4 } else { 8 } }
    }

    pub fn id_size(&self) -> usize {
        self.id_size
    }

    /// Bytes so far: the offset of the next record.
    pub fn len(&self) -> u64 {
        self.out.len() as u64
    }

    pub fn bytes(&self) -> &[u8] {
        &self.out
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }

    /// Appends bytes as they are.
    pub fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.out.extend_from_slice(bytes);
        self
    }

    /// A record whose length field says `len`, whatever `body` holds.
    pub fn record_with_len(&mut self, tag: u8, len: u32, body: &[u8]) -> &mut Self {
        self.out.push(tag);
        self.out.extend_from_slice(&0u32.to_be_bytes()); // microseconds since the header
        self.out.extend_from_slice(&len.to_be_bytes());
        self.raw(body)
    }

    pub fn record(&mut self, tag: u8, body: &[u8]) -> &mut Self {
        self.record_with_len(tag, body.len() as u32, body)
    }

    pub fn string(&mut self, id: u64, text: &str) -> &mut Self {
        let mut body = Vec::new();
        put_id(&mut body, id, self.id_size);
        body.extend_from_slice(text.as_bytes());
        self.record(tag::STRING, &body)
    }

    pub fn load_class(&mut self, serial: u32, class_id: u64, name_id: u64) -> &mut Self {
        let mut body = serial.to_be_bytes().to_vec();
        put_id(&mut body, class_id, self.id_size);
        body.extend_from_slice(&0u32.to_be_bytes()); // stack trace serial
        put_id(&mut body, name_id, self.id_size);
        self.record(tag::LOAD_CLASS, &body)
    }

    /// A STACK TRACE without frames for `thread_serial`.
    pub fn stack_trace(&mut self, serial: u32, thread_serial: u32) -> &mut Self {
        let mut body = serial.to_be_bytes().to_vec();
        body.extend_from_slice(&thread_serial.to_be_bytes());
        body.extend_from_slice(&0u32.to_be_bytes());
        self.record(tag::STACK_TRACE, &body)
    }

    /// An empty segment builder with this dump's id size.
    pub fn segment_builder(&self) -> Segment {
        Segment::new(self.id_size)
    }

    /// A HEAP DUMP SEGMENT holding `seg`'s sub-records.
    pub fn segment(&mut self, seg: &Segment) -> &mut Self {
        self.record(tag::HEAP_DUMP_SEGMENT, seg.body())
    }

    pub fn heap_dump_end(&mut self) -> &mut Self {
        self.record(tag::HEAP_DUMP_END, &[])
    }
}
