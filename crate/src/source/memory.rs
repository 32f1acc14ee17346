//! A byte slice as a source: tests, and small dumps already in memory.

use super::ByteSource;
use crate::error::Result;

pub struct MemorySource<B: AsRef<[u8]>> {
    bytes: B,
    pos: usize,
}

impl<B: AsRef<[u8]>> MemorySource<B> {
    pub fn new(bytes: B) -> Self {
        MemorySource { bytes, pos: 0 }
    }
}

impl<B: AsRef<[u8]>> ByteSource for MemorySource<B> {
    fn len(&self) -> Option<u64> {
        Some(self.bytes.as_ref().len() as u64)
    }

    fn input_pos(&self) -> u64 {
        self.pos as u64
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let rest = &self.bytes.as_ref()[self.pos..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }

    fn skip(&mut self, n: u64) -> Result<u64> {
        let rest = (self.bytes.as_ref().len() - self.pos) as u64;
        let k = n.min(rest);
        self.pos += k as usize;
        Ok(k)
    }

    fn rewind(&mut self) -> Result<()> {
        self.pos = 0;
        Ok(())
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let bytes = self.bytes.as_ref();
        let start = (offset.min(bytes.len() as u64)) as usize;
        let n = (bytes.len() - start).min(buf.len());
        buf[..n].copy_from_slice(&bytes[start..start + n]);
        Ok(n)
    }
}
