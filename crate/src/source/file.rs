//! A file on disk (native builds only): plain reads, real seeks for skips.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{read_fully, ByteSource};
use crate::error::{Error, Result};

pub struct FileSource {
    file: File,
    len: u64,
    pos: u64,
    /// The file mapped in memory (Unix, regular files), read in place by the cursor.
    map: Option<std::sync::Arc<super::Mapped>>,
}

impl FileSource {
    pub fn open(path: &Path) -> Result<FileSource> {
        let file = File::open(path).map_err(|e| Error::io(format!("cannot open {}: {e}", path.display())))?;
        FileSource::from_file(file)
    }

    /// An already open file (e.g. a temporary copy of standard input), read from its
    /// start; mapped in memory when it is a regular file and the system allows.
    pub fn from_file(file: File) -> Result<FileSource> {
        let mut s = FileSource::unmapped(file)?;
        #[cfg(unix)]
        if s.file.metadata()?.is_file() {
            s.map = super::Mapped::map(&s.file, s.len).map(std::sync::Arc::new);
        }
        Ok(s)
    }

    /// `file` read with plain reads only (never mapped).
    pub fn unmapped(mut file: File) -> Result<FileSource> {
        let len = file.metadata()?.len();
        file.seek(SeekFrom::Start(0))?;
        Ok(FileSource { file, len, pos: 0, map: None })
    }
}

impl ByteSource for FileSource {
    fn len(&self) -> Option<u64> {
        Some(self.len)
    }

    fn input_pos(&self) -> u64 {
        self.pos
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        loop {
            match self.file.read(buf) {
                Ok(n) => {
                    self.pos += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(format!("read failed at byte {}: {e}", self.pos))),
            }
        }
    }

    fn skip(&mut self, n: u64) -> Result<u64> {
        let k = n.min(self.len.saturating_sub(self.pos));
        self.file.seek(SeekFrom::Current(k as i64))?;
        self.pos += k;
        Ok(k)
    }

    fn rewind(&mut self) -> Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        self.pos = 0;
        Ok(())
    }

    fn mapped(&self) -> Option<std::sync::Arc<super::Mapped>> {
        self.map.clone()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        self.file.seek(SeekFrom::Start(offset.min(self.len)))?;
        self.pos = offset.min(self.len);
        read_fully(self, buf)
    }
}
