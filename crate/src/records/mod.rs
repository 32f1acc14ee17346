//! The HPROF binary format, read as a stream of records.
//!
//! ```text
//! file    = header record*
//! header  = "JAVA PROFILE 1.0.1" | "...1.0.2" | "...1.0.3" (Android ART), NUL,
//!           u4 identifier size (4 or 8), u8 milliseconds since the epoch
//! record  = u1 tag, u4 microseconds since the header's time, u4 body length, body
//! ```
//! All integers are big-endian; "id" is an identifier of the header's size (an object
//! address, or the id of a STRING record). The records this analyzer reads:
//!
//! | tag  | record             | body                                                        |
//! |------|--------------------|-------------------------------------------------------------|
//! | 0x01 | STRING             | id, UTF-8 bytes (the rest of the body)                      |
//! | 0x02 | LOAD CLASS         | u4 class serial, id class object, u4 stack serial, id name  |
//! | 0x04 | STACK FRAME        | id frame, id method, id signature, id source, u4 class serial, i4 line |
//! | 0x05 | STACK TRACE        | u4 serial, u4 thread serial, u4 n, n × id frame             |
//! | 0x0C | HEAP DUMP          | heap sub-records (below)                                    |
//! | 0x1C | HEAP DUMP SEGMENT  | heap sub-records; large dumps have many segments            |
//! | 0x2C | HEAP DUMP END      | empty                                                       |
//!
//! Other known tags (0x03, 0x06, 0x07, 0x0A, 0x0B, 0x0D, 0x0E) are skipped by length. A tag
//! outside the format is an error: it almost always means the reader lost its place.
//!
//! Heap sub-records are not length-prefixed: each must be consumed exactly, so an unknown
//! sub-tag is a hard error with its offset. See [`heap`] for their layouts.

pub mod cursor;
pub mod header;
pub mod heap;

pub use cursor::Cursor;
pub use header::{Header, HprofVersion};

/// Top-level record tags.
pub mod tag {
    pub const STRING: u8 = 0x01;
    pub const LOAD_CLASS: u8 = 0x02;
    pub const UNLOAD_CLASS: u8 = 0x03;
    pub const STACK_FRAME: u8 = 0x04;
    pub const STACK_TRACE: u8 = 0x05;
    pub const ALLOC_SITES: u8 = 0x06;
    pub const HEAP_SUMMARY: u8 = 0x07;
    pub const START_THREAD: u8 = 0x0A;
    pub const END_THREAD: u8 = 0x0B;
    pub const HEAP_DUMP: u8 = 0x0C;
    pub const CPU_SAMPLES: u8 = 0x0D;
    pub const CONTROL_SETTINGS: u8 = 0x0E;
    pub const HEAP_DUMP_SEGMENT: u8 = 0x1C;
    pub const HEAP_DUMP_END: u8 = 0x2C;

    /// Whether `t` is a top-level tag of the format (known, even if not used).
    pub fn is_known(t: u8) -> bool {
        matches!(t, 0x01..=0x07 | 0x0A..=0x0E | 0x1C | 0x2C)
    }
}

/// HPROF basic types (field and array element types) and their sizes.
pub mod basic_type {
    pub const OBJECT: u8 = 2;
    pub const BOOLEAN: u8 = 4;
    pub const CHAR: u8 = 5;
    pub const FLOAT: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const BYTE: u8 = 8;
    pub const SHORT: u8 = 9;
    pub const INT: u8 = 10;
    pub const LONG: u8 = 11;

    /// Size in bytes of a value of primitive type `t` (None for OBJECT and invalid types).
    pub fn primitive_size(t: u8) -> Option<u32> {
        match t {
            BOOLEAN | BYTE => Some(1),
            CHAR | SHORT => Some(2),
            FLOAT | INT => Some(4),
            DOUBLE | LONG => Some(8),
            _ => None,
        }
    }

    /// Size in the dump of a value of type `t` (references take `id_size` bytes).
    pub fn value_size(t: u8, id_size: u32) -> Option<u32> {
        if t == OBJECT {
            Some(id_size)
        } else {
            primitive_size(t)
        }
    }

    /// Java name of a primitive type, e.g. "int".
    pub fn primitive_name(t: u8) -> Option<&'static str> {
        Some(match t {
            BOOLEAN => "boolean",
            CHAR => "char",
            FLOAT => "float",
            DOUBLE => "double",
            BYTE => "byte",
            SHORT => "short",
            INT => "int",
            LONG => "long",
            _ => return None,
        })
    }

    /// JVM descriptor letter of a primitive array type, e.g. 'B' for byte.
    pub fn descriptor(t: u8) -> Option<u8> {
        Some(match t {
            BOOLEAN => b'Z',
            CHAR => b'C',
            FLOAT => b'F',
            DOUBLE => b'D',
            BYTE => b'B',
            SHORT => b'S',
            INT => b'I',
            LONG => b'J',
            _ => return None,
        })
    }
}
