//! What the analysis says, in the forms people and tools read.

pub mod parity;
pub mod suspects;
