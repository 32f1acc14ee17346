//! Reads the HTML pages of a MAT report into sections, tables, rows and cells.
//!
//! Not a general HTML parser: MAT writes well-formed, regular pages (one `<title>`,
//! headings `h1`–`h6` that open sections, `<table class="result">` with a `<thead>` row
//! of `<th>` and `<tbody>` rows of `<td>`, `<pre>` blocks for stacks), and this reader
//! keeps exactly what the comparison needs from them:
//! - a [`Section`] per heading: its text, the links of its text, its tables and `<pre>`s;
//! - per table cell: the text (entities decoded, `<br>`/`<li>`/`<p>` as line breaks), the
//!   text before its first element (the tree indentation MAT draws with `.`, `|`, `+`,
//!   `\`), its links, its icon and its `<strong>` texts.
//!
//! Anything unexpected (unclosed tags, stray text) is tolerated: the page's content, not
//! its markup, is what gets compared, and a missing table then shows as a missing row.

/// A link: its target and its text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Link {
    pub href: String,
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cell {
    /// The whole text, trimmed; line breaks where MAT breaks lines.
    pub text: String,
    /// Text before the cell's first element: the tree indentation of tree tables.
    pub prefix: String,
    pub links: Vec<Link>,
    /// The `src` of the first image (MAT's row icon).
    pub icon: Option<String>,
    pub strong: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    /// The `class` attribute of the `<tr>` (`totals`, `selected`, or empty).
    pub class: String,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Row>,
}

impl Table {
    /// Index of the column titled `title`.
    pub fn column(&self, title: &str) -> Option<usize> {
        self.header.iter().position(|h| h == title)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Section {
    /// 1–6 for `h1`–`h6`; 0 for what comes before the first heading.
    pub level: u8,
    pub heading: String,
    /// Text outside tables and `<pre>`s.
    pub text: String,
    pub strong: Vec<String>,
    pub links: Vec<Link>,
    pub tables: Vec<Table>,
    pub pre: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    pub title: String,
    pub sections: Vec<Section>,
}

/// Decodes the character references MAT writes (named ones of HTML 4 it uses, and numeric).
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest[1..].find(|c: char| c == ';' || c == '&' || c.is_whitespace()).map(|j| j + 1);
        let decoded = match end {
            Some(j) if rest.as_bytes()[j] == b';' => {
                let name = &rest[1..j];
                let ch = match name {
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "amp" => Some('&'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    "nbsp" => Some('\u{a0}'),
                    "raquo" => Some('»'),
                    "laquo" => Some('«'),
                    _ if name.starts_with("#x") || name.starts_with("#X") => {
                        u32::from_str_radix(&name[2..], 16).ok().and_then(char::from_u32)
                    }
                    _ if name.starts_with('#') => name[1..].parse::<u32>().ok().and_then(char::from_u32),
                    _ => None,
                };
                ch.map(|c| (c, j + 1))
            }
            _ => None,
        };
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// One tag: its lower-case name, whether it closes, and its attributes (values decoded).
struct Tag {
    name: String,
    closing: bool,
    attrs: Vec<(String, String)>,
}

impl Tag {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Parses the tag starting at `s[0] == '<'`; returns it and its length, or None when `s`
/// does not start a tag (a lone `<` is text).
fn parse_tag(s: &str) -> Option<(Tag, usize)> {
    let b = s.as_bytes();
    let mut i = 1;
    let closing = b.get(i) == Some(&b'/');
    if closing {
        i += 1;
    }
    let start = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric()) {
        i += 1;
    }
    if i == start {
        return None;
    }
    let name = s[start..i].to_ascii_lowercase();
    let mut attrs = Vec::new();
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        if i >= b.len() {
            return Some((Tag { name, closing, attrs }, b.len()));
        }
        if b[i] == b'>' {
            return Some((Tag { name, closing, attrs }, i + 1));
        }
        let an = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let attr_name = s[an..i].to_ascii_lowercase();
        if i == an {
            i += 1;
            continue;
        }
        let mut value = String::new();
        if b.get(i) == Some(&b'=') {
            i += 1;
            match b.get(i) {
                Some(&q) if q == b'"' || q == b'\'' => {
                    let end = s[i + 1..].find(q as char).map(|j| i + 1 + j).unwrap_or(b.len());
                    value = decode_entities(&s[i + 1..end]);
                    i = (end + 1).min(b.len());
                }
                _ => {
                    let v = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                        i += 1;
                    }
                    value = decode_entities(&s[v..i]);
                }
            }
        }
        attrs.push((attr_name, value));
    }
}

/// Where text goes while reading.
#[derive(Default)]
struct State {
    page: Page,
    section: Section,
    in_title: bool,
    in_heading: bool,
    pre_depth: usize,
    pre: String,
    table: Option<Table>,
    in_head_row: bool,
    row: Option<Row>,
    cell: Option<Cell>,
    /// The cell has seen an element (its prefix is complete).
    cell_started: bool,
    link: Option<Link>,
    strong_depth: usize,
    strong: String,
}

impl State {
    fn text(&mut self, t: &str) {
        if self.in_title {
            self.page.title.push_str(t);
            return;
        }
        if self.pre_depth > 0 {
            self.pre.push_str(t);
            return;
        }
        let t = collapse_spaces(t);
        if self.in_heading {
            self.section.heading.push_str(&t);
        } else if let Some(cell) = &mut self.cell {
            if !self.cell_started {
                cell.prefix.push_str(&t);
            }
            cell.text.push_str(&t);
        } else if self.table.is_none() {
            self.section.text.push_str(&t);
        }
        if let Some(link) = &mut self.link {
            link.text.push_str(&t);
        }
        if self.strong_depth > 0 {
            self.strong.push_str(&t);
        }
    }

    fn line_break(&mut self) {
        if self.pre_depth > 0 {
            return;
        }
        if let Some(cell) = &mut self.cell {
            cell.text.push('\n');
        } else if self.table.is_none() && !self.in_heading {
            self.section.text.push('\n');
        }
    }

    fn end_cell(&mut self) {
        if let Some(mut cell) = self.cell.take() {
            cell.text = tidy(&cell.text);
            if let Some(row) = &mut self.row {
                row.cells.push(cell);
            }
        }
    }

    fn end_row(&mut self) {
        self.end_cell();
        if let Some(row) = self.row.take() {
            if let Some(table) = &mut self.table {
                if self.in_head_row || (table.header.is_empty() && table.rows.is_empty() && row.class == "header") {
                    table.header = row.cells.into_iter().map(|c| c.text).collect();
                } else {
                    table.rows.push(row);
                }
            }
        }
        self.in_head_row = false;
    }

    fn end_table(&mut self) {
        self.end_row();
        if let Some(t) = self.table.take() {
            self.section.tables.push(t);
        }
    }

    fn new_section(&mut self, level: u8) {
        self.end_table();
        let done = std::mem::take(&mut self.section);
        if done.level > 0 || !done.text.trim().is_empty() || !done.tables.is_empty() || !done.pre.is_empty() {
            self.page.sections.push(finish_section(done));
        }
        self.section.level = level;
    }
}

fn finish_section(mut s: Section) -> Section {
    s.heading = tidy(&s.heading);
    s.text = tidy(&s.text);
    s
}

/// Runs of white space as one space (HTML's rendering), keeping the text's ends.
fn collapse_spaces(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut space = false;
    for c in t.chars() {
        if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
            space = true;
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// Each line trimmed, empty lines dropped.
fn tidy(t: &str) -> String {
    t.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
}

/// Reads one page.
pub fn parse(html: &str) -> Page {
    let mut st = State::default();
    let mut rest = html;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            st.text(&decode_entities(rest));
            break;
        };
        if lt > 0 {
            st.text(&decode_entities(&rest[..lt]));
            rest = &rest[lt..];
        }
        if rest.starts_with("<!--") {
            rest = rest.find("-->").map(|e| &rest[e + 3..]).unwrap_or("");
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            rest = rest.find('>').map(|e| &rest[e + 1..]).unwrap_or("");
            continue;
        }
        let Some((tag, len)) = parse_tag(rest) else {
            st.text("<");
            rest = &rest[1..];
            continue;
        };
        rest = &rest[len..];
        if !tag.closing && (tag.name == "script" || tag.name == "style") {
            let close = format!("</{}", tag.name);
            rest = rest.to_ascii_lowercase().find(&close).map(|e| &rest[e..]).unwrap_or("");
            continue;
        }
        handle(&mut st, &tag);
    }
    st.new_section(0);
    st.page.title = tidy(&st.page.title);
    st.page
}

fn handle(st: &mut State, tag: &Tag) {
    if st.cell.is_some() && tag.name != "td" && tag.name != "th" {
        st.cell_started = true;
    }
    let heading_level = match tag.name.as_str() {
        "h1" => 1,
        "h2" => 2,
        "h3" => 3,
        "h4" => 4,
        "h5" => 5,
        "h6" => 6,
        _ => 0,
    };
    match (tag.name.as_str(), tag.closing) {
        ("title", c) => st.in_title = !c,
        (_, false) if heading_level > 0 => {
            st.new_section(heading_level);
            st.in_heading = true;
        }
        (_, true) if heading_level > 0 => st.in_heading = false,
        ("pre", false) => st.pre_depth += 1,
        ("pre", true) => {
            st.pre_depth = st.pre_depth.saturating_sub(1);
            if st.pre_depth == 0 {
                let text = std::mem::take(&mut st.pre);
                st.section.pre.push(text);
            }
        }
        ("table", false) => {
            st.end_table();
            st.table = Some(Table::default());
        }
        ("table", true) => st.end_table(),
        ("thead", false) => st.in_head_row = true,
        ("thead", true) => st.in_head_row = false,
        ("tr", false) => {
            let in_head = st.in_head_row;
            st.end_row();
            st.in_head_row = in_head;
            if st.table.is_some() {
                st.row = Some(Row { class: tag.attr("class").unwrap_or("").to_string(), cells: Vec::new() });
            }
        }
        ("tr", true) => {
            let in_head = st.in_head_row;
            st.end_row();
            st.in_head_row = in_head;
        }
        ("td" | "th", false) => {
            st.end_cell();
            if st.row.is_some() {
                st.cell = Some(Cell::default());
                st.cell_started = false;
            }
        }
        ("td" | "th", true) => st.end_cell(),
        ("a", false) => {
            if let Some(href) = tag.attr("href") {
                st.link = Some(Link { href: href.to_string(), text: String::new() });
            }
        }
        ("a", true) => {
            if let Some(mut link) = st.link.take() {
                link.text = tidy(&link.text.replace('\n', " "));
                if let Some(cell) = &mut st.cell {
                    cell.links.push(link);
                } else if st.table.is_none() && !st.in_heading {
                    st.section.links.push(link);
                }
            }
        }
        ("img", false) => {
            if let (Some(cell), Some(src)) = (&mut st.cell, tag.attr("src")) {
                if cell.icon.is_none() {
                    cell.icon = Some(src.to_string());
                }
            }
        }
        ("strong" | "b", false) => {
            if st.strong_depth == 0 {
                st.strong.clear();
            }
            st.strong_depth += 1;
        }
        ("strong" | "b", true) if st.strong_depth > 0 => {
            st.strong_depth -= 1;
            if st.strong_depth == 0 {
                let text = tidy(&std::mem::take(&mut st.strong));
                if let Some(cell) = &mut st.cell {
                    cell.strong.push(text);
                } else if st.table.is_none() && !st.in_heading {
                    st.section.strong.push(text);
                }
            }
        }
        ("br" | "li" | "p" | "ul" | "div", _) => st.line_break(),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities() {
        assert_eq!(decode_entities("&lt;system class loader&gt;"), "<system class loader>");
        assert_eq!(decode_entities("a &amp; b &#65;&#x42; &raquo; &bogus; & x"), "a & b AB » &bogus; & x");
        assert_eq!(decode_entities("&gt;= 30,300,200"), ">= 30,300,200");
    }

    #[test]
    fn sections_tables_and_tree_cells() {
        let page = parse(concat!(
            "<html><head><title>Top &amp; Consumers</title><script>if (a<b) {}</script></head><body>",
            "<h5 id=\"i7\"><a href=\"#\">x</a> Class Histogram <a href=\"mat://query/histogram\"></a></h5>",
            "<div><table class=\"result\"><thead><tr><th>Class Name</th><th>Objects</th></tr></thead><tbody class=\"tree\">",
            "<tr><td><img src=\"../icons/i7.gif\" alt=\"\"><a href=\"mat://object/0xfaaa11a0\">java.lang.Class</a><br><a href=\"q\">All objects</a></td><td align=\"right\">822</td></tr>",
            "<tr class=\"selected\"><td>..+<img src=\"i6.gif\"><ul><li><strong>table</strong> <a href=\"mat://object/0x10\">java.util.HashMap @ 0x10</a></li></ul></td><td>&gt;= 1,024</td></tr>",
            "<tr class=\"totals\"><td><ul><li>Total: 2 entries</li></ul></td><td>846</td></tr></tbody></table></div>",
            "<h5>Thread Stack</h5><pre>main\n  at a.B.c()V (B.java:1)\n</pre>",
            "<div class=\"important\"><p>The class <strong><q>corpus.X</q></strong> occupies <strong>1,000 (3.50%)</strong> bytes.</p>",
            "<a href=\"../pages/18.html\">Details &raquo;</a></div></body></html>",
        ));
        assert_eq!(page.title, "Top & Consumers");
        assert_eq!(page.sections.len(), 2);
        let s = &page.sections[0];
        assert_eq!((s.level, s.heading.as_str()), (5, "x Class Histogram"));
        let t = &s.tables[0];
        assert_eq!(t.header, vec!["Class Name", "Objects"]);
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[0].cells[0].text, "java.lang.Class\nAll objects");
        assert_eq!(t.rows[0].cells[0].links[0].href, "mat://object/0xfaaa11a0");
        assert_eq!(t.rows[0].cells[0].icon.as_deref(), Some("../icons/i7.gif"));
        assert_eq!(t.rows[1].class, "selected");
        assert_eq!(t.rows[1].cells[0].prefix, "..+");
        assert_eq!(t.rows[1].cells[0].strong, vec!["table"]);
        assert_eq!(t.rows[1].cells[1].text, ">= 1,024");
        assert_eq!(t.rows[2].class, "totals");
        let s = &page.sections[1];
        assert_eq!(s.pre, vec!["main\n  at a.B.c()V (B.java:1)\n"]);
        assert_eq!(s.strong, vec!["corpus.X", "1,000 (3.50%)"]);
        assert!(s.text.starts_with("The class corpus.X occupies 1,000 (3.50%) bytes."), "{}", s.text);
        assert_eq!(s.links[0].href, "../pages/18.html");
    }

    #[test]
    fn garbage_does_not_panic() {
        for s in [
            "<",
            "<<a",
            "<a href=\"x",
            "&",
            "&#xffffffff;",
            "<td>x</tr></table><tr><td>",
            "<pre><pre></pre>",
            "</strong></a>",
            "<!--",
            "<h1",
        ] {
            let _ = parse(s);
        }
    }
}
