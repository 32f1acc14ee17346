//! One small error type for the whole pipeline.
//!
//! Every error that comes from the input names the byte offset (in the decoded HPROF
//! stream) where reading went wrong and what was expected there, so a user with a
//! truncated or corrupt dump learns *where* it broke, not just *that* it broke.

use std::fmt;

use crate::text::one_line;

/// What went wrong, broadly: decides the CLI's exit status and how the page presents it
/// (the page's `ErrorKind` type is generated from this one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The input is not a usable HPROF stream (bad header, truncated, corrupt, hostile).
    Format,
    /// Reading the underlying file, gzip stream or Blob failed.
    Io,
    /// The analysis would need more memory than this platform can give it.
    Memory,
    /// The user cancelled.
    Cancelled,
    /// A question about an analyzed dump cannot be answered as asked: an address that
    /// names no kept object, a class address that is not a class object, a question about
    /// the tree not in use.
    Query,
    /// The program failed (a bug): the page's worker reports it when its WebAssembly
    /// instance stops (a panic, a trap), and for messages it cannot handle.
    Internal,
}

/// An error with the byte offset it refers to, when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// Offset in the decoded HPROF stream (for `.gz`, offset after decompression).
    pub offset: Option<u64>,
    pub message: String,
}

impl Error {
    /// A format error at `offset`: `message` says what was expected there.
    pub fn format(offset: u64, message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::Format, offset: Some(offset), message: one_line(message.into()) }
    }

    /// A format error that no byte offset locates (a whole file of the wrong kind, a line
    /// of a text file).
    pub fn invalid(message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::Format, offset: None, message: one_line(message.into()) }
    }

    pub fn io(message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::Io, offset: None, message: one_line(message.into()) }
    }

    pub fn memory(message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::Memory, offset: None, message: one_line(message.into()) }
    }

    /// A question that cannot be answered as asked (see [`ErrorKind::Query`]).
    pub fn query(message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::Query, offset: None, message: one_line(message.into()) }
    }

    pub fn cancelled() -> Error {
        Error { kind: ErrorKind::Cancelled, offset: None, message: "cancelled".into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(offset) => write!(f, "at byte {offset} (0x{offset:x}): {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::io(e.to_string())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_quoting_dump_text_stays_on_one_line() {
        let e = Error::format(7, "class a\nb\u{1b}[2J\u{2028}c");
        let text = e.to_string();
        assert_eq!(text, "at byte 7 (0x7): class a\\nb\\u{1b}[2J\\u{2028}c");
        assert!(!text.chars().any(|c| c.is_control()));
        assert_eq!(one_line("plain"), "plain");
    }
}
