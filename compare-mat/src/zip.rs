//! A small, strict zip reader: enough for the report archives Eclipse MAT writes
//! (stored or deflated members, no encryption, no zip64, no multi-disk archives).
//!
//! The archive is read from its central directory (found through the end-of-central-
//! directory record at the end of the file), so a member is whatever the directory
//! says, not whatever a local header claims. Every size is bounded ([`Limits`]) before
//! anything is allocated or inflated, and each member's CRC-32 is checked. Anything
//! malformed is an [`Error`] naming the byte offset in the archive where it was found;
//! nothing here panics on any input.

use crate::{Error, Result};

const EOCD_SIGNATURE: u32 = 0x0605_4b50;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const EOCD_LEN: usize = 22;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;
/// The EOCD record may be followed by a comment of at most 65,535 bytes.
const MAX_COMMENT: usize = 0xffff;

/// Bounds on what an archive may hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_entries: usize,
    /// Largest uncompressed member.
    pub max_member_bytes: u64,
    /// Largest sum of the uncompressed members read.
    pub max_total_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        // MAT's Leak Suspects archives hold a few dozen members of at most a few MB.
        Limits { max_entries: 10_000, max_member_bytes: 64 << 20, max_total_bytes: 512 << 20 }
    }
}

/// One member, as the central directory describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub method: u16,
    pub crc32: u32,
    pub compressed_size: u64,
    pub size: u64,
    /// Offset of the member's local header.
    pub local_offset: u64,
    /// Offset of the member's central-directory record (for messages).
    pub central_offset: u64,
}

/// An archive held in memory.
pub struct Archive<'a> {
    bytes: &'a [u8],
    pub entries: Vec<Entry>,
    limits: Limits,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at.checked_add(2)?)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

fn truncated(offset: usize, what: &str) -> Error {
    Error::format(offset as u64, format!("zip: truncated {what}"))
}

impl<'a> Archive<'a> {
    /// Reads the central directory of `bytes`.
    pub fn parse(bytes: &'a [u8]) -> Result<Archive<'a>> {
        Archive::parse_with(bytes, Limits::default())
    }

    pub fn parse_with(bytes: &'a [u8], limits: Limits) -> Result<Archive<'a>> {
        if bytes.len() < EOCD_LEN {
            return Err(Error::format(
                0,
                format!("zip: {} bytes is too short for a zip archive (the end record alone is 22)", bytes.len()),
            ));
        }
        // The end record: scanned backwards over the longest possible comment.
        let lowest = bytes.len().saturating_sub(EOCD_LEN + MAX_COMMENT);
        let eocd = (lowest..=bytes.len() - EOCD_LEN)
            .rev()
            .find(|&at| {
                u32_at(bytes, at) == Some(EOCD_SIGNATURE)
                    && u16_at(bytes, at + 20).is_some_and(|c| at + EOCD_LEN + c as usize == bytes.len())
            })
            .ok_or_else(|| {
                Error::format(
                    bytes.len() as u64,
                    "zip: no end-of-central-directory record (not a zip archive, or cut off)",
                )
            })?;
        let field16 = |off: usize| u16_at(bytes, eocd + off).ok_or_else(|| truncated(eocd, "end record"));
        let field32 = |off: usize| u32_at(bytes, eocd + off).ok_or_else(|| truncated(eocd, "end record"));
        let (disk, cd_disk) = (field16(4)?, field16(6)?);
        let (on_disk, total) = (field16(8)?, field16(10)?);
        let (cd_size, cd_offset) = (field32(12)? as usize, field32(16)? as usize);
        if disk != 0 || cd_disk != 0 || on_disk != total {
            return Err(Error::format(eocd as u64, "zip: multi-disk archives are not supported"));
        }
        if total == 0xffff || cd_offset == 0xffff_ffff || cd_size == 0xffff_ffff {
            return Err(Error::format(eocd as u64, "zip: zip64 archives are not supported"));
        }
        if total as usize > limits.max_entries {
            return Err(Error::format(
                eocd as u64 + 10,
                format!("zip: {total} members, more than the {} allowed", limits.max_entries),
            ));
        }
        let cd_end = cd_offset.checked_add(cd_size).filter(|&e| e <= eocd).ok_or_else(|| {
            Error::format(
                eocd as u64 + 12,
                format!("zip: central directory at {cd_offset} of {cd_size} bytes runs past the end record at {eocd}"),
            )
        })?;
        let mut entries = Vec::new();
        entries.try_reserve(total as usize).map_err(|_| Error::memory("zip: cannot allocate the member list"))?;
        let mut at = cd_offset;
        for i in 0..total {
            if at + CENTRAL_LEN > cd_end {
                return Err(truncated(at, &format!("central directory (member {} of {total})", i + 1)));
            }
            if u32_at(bytes, at) != Some(CENTRAL_SIGNATURE) {
                return Err(Error::format(
                    at as u64,
                    format!("zip: expected a central-directory record (member {} of {total})", i + 1),
                ));
            }
            let g16 = |off: usize| u16_at(bytes, at + off).unwrap_or(0);
            let g32 = |off: usize| u32_at(bytes, at + off).unwrap_or(0);
            let flags = g16(8);
            let method = g16(10);
            let crc32 = g32(16);
            let compressed_size = g32(20) as u64;
            let size = g32(24) as u64;
            let (name_len, extra_len, comment_len) = (g16(28) as usize, g16(30) as usize, g16(32) as usize);
            let local_offset = g32(42) as u64;
            let record_end = at + CENTRAL_LEN + name_len + extra_len + comment_len;
            if record_end > cd_end {
                return Err(truncated(at, "central-directory record"));
            }
            let name = String::from_utf8_lossy(&bytes[at + CENTRAL_LEN..at + CENTRAL_LEN + name_len]).into_owned();
            if flags & 1 != 0 {
                return Err(Error::format(at as u64 + 8, format!("zip: member {name:?} is encrypted")));
            }
            if size > limits.max_member_bytes {
                return Err(Error::format(
                    at as u64 + 24,
                    format!("zip: member {name:?} is {size} bytes, more than the {} allowed", limits.max_member_bytes),
                ));
            }
            entries.push(Entry { name, method, crc32, compressed_size, size, local_offset, central_offset: at as u64 });
            at = record_end;
        }
        Ok(Archive { bytes, entries, limits })
    }

    /// The member named `name`, if the archive has it.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The uncompressed bytes of `entry`, checked against its size and CRC-32.
    pub fn read(&self, entry: &Entry) -> Result<Vec<u8>> {
        let b = self.bytes;
        let at = entry.local_offset as usize;
        if u32_at(b, at) != Some(LOCAL_SIGNATURE) {
            return Err(Error::format(at as u64, format!("zip: expected the local header of {:?}", entry.name)));
        }
        let (name_len, extra_len) = match (u16_at(b, at + 26), u16_at(b, at + 28)) {
            (Some(n), Some(e)) => (n as usize, e as usize),
            _ => return Err(truncated(at, "local header")),
        };
        let data = at + LOCAL_LEN + name_len + extra_len;
        let end = data.checked_add(entry.compressed_size as usize).filter(|&e| e <= b.len()).ok_or_else(|| {
            Error::format(
                data as u64,
                format!(
                    "zip: the data of {:?} ({} bytes) runs past the end of the archive",
                    entry.name, entry.compressed_size
                ),
            )
        })?;
        let raw = &b[data..end];
        let out = match entry.method {
            0 => {
                if entry.compressed_size != entry.size {
                    return Err(Error::format(
                        entry.central_offset + 20,
                        format!("zip: stored member {:?} has different sizes", entry.name),
                    ));
                }
                raw.to_vec()
            }
            8 => {
                let limit = (entry.size as usize).min(self.limits.max_member_bytes as usize);
                miniz_oxide::inflate::decompress_to_vec_with_limit(raw, limit.max(1)).map_err(|e| {
                    Error::format(
                        data as u64,
                        format!("zip: member {:?} does not inflate ({:?})", entry.name, e.status),
                    )
                })?
            }
            m => {
                return Err(Error::format(
                    entry.central_offset + 10,
                    format!(
                        "zip: member {:?} uses compression method {m} (only stored and deflate are read)",
                        entry.name
                    ),
                ))
            }
        };
        if out.len() as u64 != entry.size {
            return Err(Error::format(
                data as u64,
                format!(
                    "zip: member {:?} inflates to {} bytes, the directory says {}",
                    entry.name,
                    out.len(),
                    entry.size
                ),
            ));
        }
        if crc32fast::hash(&out) != entry.crc32 {
            return Err(Error::format(data as u64, format!("zip: member {:?} fails its CRC-32 check", entry.name)));
        }
        Ok(out)
    }

    /// Every member whose name satisfies `want`, as text (lossy UTF-8), in directory order;
    /// the total read is bounded by the limits.
    pub fn read_texts(&self, want: impl Fn(&str) -> bool) -> Result<Vec<(String, String)>> {
        let mut total = 0u64;
        let mut out = Vec::new();
        for e in self.entries.iter().filter(|e| want(&e.name)) {
            total += e.size;
            if total > self.limits.max_total_bytes {
                return Err(Error::format(
                    e.central_offset,
                    format!("zip: the members read add up to more than {} bytes", self.limits.max_total_bytes),
                ));
            }
            let bytes = self.read(e)?;
            out.push((e.name.clone(), String::from_utf8_lossy(&bytes).into_owned()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An archive built by hand: (name, data, deflate?).
    pub(crate) fn build(members: &[(&str, &[u8], bool)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data, deflate) in members {
            let body = if *deflate { miniz_oxide::deflate::compress_to_vec(data, 6) } else { data.to_vec() };
            let crc = crc32fast::hash(data);
            let offset = out.len() as u32;
            let method: u16 = if *deflate { 8 } else { 0 };
            out.extend_from_slice(&LOCAL_SIGNATURE.to_le_bytes());
            out.extend_from_slice(&[20, 0, 0, 0]);
            out.extend_from_slice(&method.to_le_bytes());
            out.extend_from_slice(&[0; 4]);
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&body);
            central.extend_from_slice(&CENTRAL_SIGNATURE.to_le_bytes());
            central.extend_from_slice(&[20, 0, 20, 0, 0, 0]);
            central.extend_from_slice(&method.to_le_bytes());
            central.extend_from_slice(&[0; 4]);
            central.extend_from_slice(&crc.to_le_bytes());
            central.extend_from_slice(&(body.len() as u32).to_le_bytes());
            central.extend_from_slice(&(data.len() as u32).to_le_bytes());
            central.extend_from_slice(&(name.len() as u16).to_le_bytes());
            central.extend_from_slice(&[0; 12]);
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let cd_offset = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(&EOCD_SIGNATURE.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&cd_offset.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out
    }

    #[test]
    fn reads_stored_and_deflated_members() {
        let text = "<html>".repeat(100);
        let zip = build(&[("a.txt", b"plain", false), ("pages/b.html", text.as_bytes(), true)]);
        let archive = Archive::parse(&zip).unwrap();
        assert_eq!(archive.entries.len(), 2);
        assert_eq!(archive.read(archive.entry("a.txt").unwrap()).unwrap(), b"plain");
        let texts = archive.read_texts(|n| n.ends_with(".html")).unwrap();
        assert_eq!(texts, vec![("pages/b.html".to_string(), text)]);
    }

    #[test]
    fn every_truncation_is_an_error_never_a_panic() {
        let zip = build(&[("a.txt", b"plain", false), ("b.html", "<p>x</p>".repeat(50).as_bytes(), true)]);
        for len in 0..zip.len() {
            let cut = &zip[..len];
            match Archive::parse(cut) {
                Err(e) => assert!(e.offset.is_some(), "{len}: {e}"),
                Ok(a) => {
                    for entry in &a.entries {
                        let _ = a.read(entry);
                    }
                }
            }
        }
        // Every single-byte corruption too.
        for i in 0..zip.len() {
            let mut bad = zip.clone();
            bad[i] ^= 0xa5;
            if let Ok(a) = Archive::parse(&bad) {
                for entry in &a.entries {
                    let _ = a.read(entry);
                }
            }
        }
    }

    #[test]
    fn corrupt_data_fails_its_crc() {
        let mut zip = build(&[("a.txt", b"plain text", false)]);
        zip[LOCAL_LEN + 5] ^= 1; // inside the stored data
        let a = Archive::parse(&zip).unwrap();
        let e = a.read(&a.entries[0]).unwrap_err();
        assert!(e.message.contains("CRC-32"), "{e}");
        assert_eq!(e.offset, Some((LOCAL_LEN + 5) as u64));
    }

    #[test]
    fn not_a_zip() {
        let e = Archive::parse(b"PK\x03\x04 this is not really a zip archive at all").err().expect("refused");
        assert!(e.message.contains("end-of-central-directory"), "{e}");
        assert!(Archive::parse(b"").is_err());
    }

    #[test]
    fn oversized_members_are_refused_before_inflating() {
        let zip = build(&[("big", &[0u8; 4096], true)]);
        let limits = Limits { max_member_bytes: 1000, ..Limits::default() };
        let e = Archive::parse_with(&zip, limits).err().expect("refused");
        assert!(e.message.contains("more than the 1000 allowed"), "{e}");
    }
}
