//! A document for people, as data: a title and a list of headings, paragraphs, notes,
//! tables and lists. Reports, comparisons and feature sections are built as documents
//! ([`crate::render`]), and each renderer (Markdown, HTML) writes any document out, escaping
//! all text for its format: the text here is plain and untrusted (it comes from the dump).

/// A run of text in a paragraph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    Text(String),
    Strong(String),
}

/// How a table column is aligned: numbers right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// Level 1 to 3.
    Heading(u8, String),
    Paragraph(Vec<Inline>),
    /// A call-out (the incomplete-dump warning).
    Note(Vec<Inline>),
    Table {
        columns: Vec<(String, Align)>,
        rows: Vec<Vec<String>>,
    },
    List(Vec<String>),
    /// Preformatted lines (a leak trace), shown as they are.
    Code(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The document's title (also its first heading).
    pub title: String,
    pub blocks: Vec<Block>,
}
