//! The file header: format string, identifier size, timestamp.

use super::cursor::{be_u32, be_u64, Cursor};
use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum HprofVersion {
    /// "JAVA PROFILE 1.0.1"
    V101,
    /// "JAVA PROFILE 1.0.2" (HotSpot since JDK 6; also hprof-conv output)
    V102,
    /// "JAVA PROFILE 1.0.3" (Android ART, read without hprof-conv)
    V103,
}

impl HprofVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            HprofVersion::V101 => "JAVA PROFILE 1.0.1",
            HprofVersion::V102 => "JAVA PROFILE 1.0.2",
            HprofVersion::V103 => "JAVA PROFILE 1.0.3",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: HprofVersion,
    pub id_size: u32,
    /// Milliseconds since the epoch when the dump was written.
    pub timestamp_ms: u64,
    /// Length of the header in bytes (offset of the first record).
    pub len: u64,
}

impl Header {
    /// Reads the header at the cursor's position (offset 0).
    pub fn read(c: &mut Cursor) -> Result<Header> {
        const MAGIC: &[u8] = b"JAVA PROFILE 1.0.";
        if !c.ensure(1)? {
            return Err(Error::format(0, "the file is empty; expected an HPROF header \"JAVA PROFILE 1.0.x\""));
        }
        c.ensure(MAGIC.len() + 2)?;
        let w = c.window();
        let n = w.len().min(MAGIC.len());
        if w[..n] == MAGIC[..n] && w.len() < MAGIC.len() + 2 {
            return Err(Error::format(
                w.len() as u64,
                format!(
                    "file ends after {} bytes, inside the header: expected \"JAVA PROFILE 1.0.x\" and a NUL",
                    w.len()
                ),
            ));
        }
        if w[..n] != MAGIC[..n] {
            let shown: String =
                w.iter().take(18).map(|&b| if (0x20..0x7f).contains(&b) { b as char } else { '.' }).collect();
            return Err(Error::format(
                0,
                format!("not an HPROF heap dump: expected \"JAVA PROFILE 1.0.x\", found \"{shown}\""),
            ));
        }
        let version = match (w[MAGIC.len()], w[MAGIC.len() + 1]) {
            (b'1', 0) => HprofVersion::V101,
            (b'2', 0) => HprofVersion::V102,
            (b'3', 0) => HprofVersion::V103,
            _ => return Err(Error::format(
                MAGIC.len() as u64,
                "unsupported HPROF version: expected \"JAVA PROFILE 1.0.1\", \"1.0.2\" or \"1.0.3\" followed by NUL",
            )),
        };
        c.advance(MAGIC.len() + 2);
        let at = c.pos();
        c.need(12, "the identifier size and timestamp of the header")?;
        let id_size = be_u32(c.window(), 0);
        let timestamp_ms = be_u64(c.window(), 4);
        if id_size != 4 && id_size != 8 {
            return Err(Error::format(at, format!("identifier size is {id_size}; expected 4 or 8")));
        }
        c.advance(12);
        Ok(Header { version, id_size, timestamp_ms, len: c.pos() })
    }
}
