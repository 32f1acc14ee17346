//! What people read, from the [`model`](crate::model) alone: documents rendered as Markdown
//! ([`markdown`]) or one self-contained HTML file ([`html`]); the report as a document
//! ([`document`]) with its feature sections ([`threads`], [`waste`], [`leaks`]); leak traces and
//! classes-up rows as terminal text ([`holders`]); the sections beyond MAT's pages
//! ([`sections`]) and `md-graphs`' pictures ([`graphs`]). Text from the dump is untrusted:
//! every renderer escapes all of it for its format ([`escape`]).

pub mod document;
pub mod escape;
pub mod graphs;
pub mod holders;
pub mod html;
pub mod leaks;
pub mod markdown;
pub mod sections;
pub mod suspects;
pub mod threads;
pub mod waste;

use crate::model::Detail;

/// How the report is rendered for people.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// `--detail`'s caps (the histogram's and the other tables' rows).
    pub detail: Detail,
    /// `md-graphs`: bars, sparklines and trees drawn with characters beside the tables.
    pub graphs: bool,
}
