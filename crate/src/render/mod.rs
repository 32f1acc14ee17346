//! What people read, from the [`model`](crate::model) alone: documents rendered as Markdown
//! ([`markdown`]) or one self-contained HTML file ([`html`]); the report as a document
//! ([`document`]) with its feature sections ([`threads`], [`waste`], [`leaks`]); leak traces and
//! classes-up rows as terminal text ([`holders`]). Text from the dump is untrusted: every
//! renderer escapes all of it for its format ([`escape`]).

pub mod document;
pub mod escape;
pub mod holders;
pub mod html;
pub mod leaks;
pub mod markdown;
pub mod suspects;
pub mod threads;
pub mod waste;
