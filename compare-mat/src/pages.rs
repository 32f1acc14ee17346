//! The content of a MAT Leak Suspects report, typed: what each page of the archive says,
//! as numbers and names, read from the [`html`](super::html) of its pages.
//!
//! Sections are recognized by their headings (MAT 1.16.1's English titles), wherever they
//! stand: the same "Thread Stack" section appears on a suspect's page and on a page of its
//! own. A table this module does not know is kept as [`MatReport::unmodeled`] so that the
//! comparison can say so; the object rows of every table (a link `mat://object/0x…` with a
//! shallow and a retained column) are also collected as [`ObjectRow`]s, to be checked
//! against every object heapscope's report lists.
//!
//! Numbers are kept as MAT shows them ([`Shown`]): the text, its value, and whether MAT
//! marked it as a lower bound (`>= 1,024`). Display units (`29.3 MB`) and percentages are
//! kept as text; [`classify`](super::classify) turns them into the ranges they stand for.

use super::html::{Cell, Page, Row, Section, Table};

/// A number as MAT printed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub text: String,
    pub value: u64,
    /// MAT printed `>= value` (its quick lower bound).
    pub at_least: bool,
}

/// `1,234,567` or `>= 1,234` (grouping commas optional); None for anything else.
pub fn parse_count(text: &str) -> Option<Shown> {
    let t = text.trim();
    let (at_least, digits) = match t.strip_prefix(">=") {
        Some(rest) => (true, rest.trim()),
        None => (false, t),
    };
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit() || b == b',')
        || !digits.as_bytes()[0].is_ascii_digit()
    {
        return None;
    }
    let value = digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .try_fold(0u64, |v, d| v.checked_mul(10)?.checked_add(u64::from(d - b'0')))?;
    Some(Shown { text: t.to_string(), value, at_least })
}

/// `30,084,408 (97.98%)`: the bytes and the percentage's text (without `%`).
pub fn parse_size_percent(text: &str) -> Option<(u64, String)> {
    let t = text.trim();
    let open = t.find(" (")?;
    let bytes = parse_count(&t[..open])?;
    let pct = t[open + 2..].strip_suffix("%)")?;
    is_decimal(pct).then(|| (bytes.value, pct.to_string()))
}

/// A plain decimal number (`97.98`, `0`).
pub fn is_decimal(s: &str) -> bool {
    let mut parts = s.split('.');
    let int = parts.next().unwrap_or("");
    let frac = parts.next();
    parts.next().is_none()
        && !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit() || b == b',')
        && frac.map_or(true, |f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// An object named as MAT names it: `java.util.HashMap$Node[512] @ 0xfbda1118`,
/// `class corpus.X @ 0x…`, `java.lang.Thread @ 0x…  main`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectName {
    /// As printed before ` @ `: `class corpus.X`, `byte[3000000]`.
    pub label: String,
    pub address: u64,
    /// Text after the address (a thread's name, a string's value), if any.
    pub suffix: String,
}

impl ObjectName {
    /// For a class object, the class it is (`class X` → `X`).
    pub fn class_object_of(&self) -> Option<&str> {
        self.label.strip_prefix("class ")
    }

    /// The class name as heapscope writes it: array lengths dropped (`byte[3]` → `byte[]`).
    pub fn class_name(&self) -> String {
        let mut out = String::with_capacity(self.label.len());
        let mut in_brackets = false;
        for c in self.label.chars() {
            match c {
                '[' => {
                    in_brackets = true;
                    out.push('[');
                }
                ']' => {
                    in_brackets = false;
                    out.push(']');
                }
                _ if in_brackets && c.is_ascii_digit() => {}
                _ => out.push(c),
            }
        }
        out
    }
}

/// Parses `LABEL @ 0xADDR[ SUFFIX]`.
pub fn parse_object_name(text: &str) -> Option<ObjectName> {
    let t = text.trim();
    let at = t.find(" @ 0x")?;
    let label = t[..at].trim().to_string();
    let rest = &t[at + 5..];
    let hex_end = rest.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(rest.len());
    let address = u64::from_str_radix(&rest[..hex_end], 16).ok()?;
    Some(ObjectName { label, address, suffix: rest[hex_end..].trim().to_string() })
}

/// `0x1f` → 31.
pub fn parse_address(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim().strip_prefix("0x")?, 16).ok()
}

/// Where a row came from, for messages: `page › heading #row`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Origin {
    pub page: String,
    pub heading: String,
    /// 1-based row of the table (0: not a table row).
    pub row: usize,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.row > 0 {
            write!(f, "{} › {} #{}", self.page, self.heading, self.row)
        } else {
            write!(f, "{} › {}", self.page, self.heading)
        }
    }
}

/// A row of a table that names one object with its sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRow {
    pub origin: Origin,
    pub object: ObjectName,
    /// Tree depth (0 for flat tables).
    pub depth: usize,
    pub shallow: Option<Shown>,
    pub retained: Option<Shown>,
    /// The `Percentage` column's text without `%`.
    pub percent: Option<String>,
    /// MAT highlighted the row (the accumulation point of a path).
    pub selected: bool,
    /// Text of the cell besides the object (field names, `<Java Local>`, root types).
    pub strong: Vec<String>,
}

/// A row that names a class, a loader, a package or a thread group, with counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRow {
    pub origin: Origin,
    /// The label: class name, loader label, package part.
    pub name: String,
    /// The object the label links to (a class object, a loader), if any.
    pub address: Option<u64>,
    pub depth: usize,
    pub objects: Option<Shown>,
    pub shallow: Option<Shown>,
    pub retained: Option<Shown>,
    pub percent: Option<String>,
    /// The row's icon (package trees mark classes with another icon than packages).
    pub icon: Option<String>,
}

/// A `Total: …` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TotalsRow {
    pub origin: Origin,
    pub depth: usize,
    /// `Total: 25 of 813 entries; 788 more` → (25, Some(813)); `Total: 2 entries` → (2, None).
    pub shown: u64,
    pub of: Option<u64>,
    /// The numeric cells by column title.
    pub values: Vec<(String, Shown)>,
}

impl TotalsRow {
    /// MAT cut the table: it shows its first `shown` of `of` entries (`Total: 3 of 10
    /// entries; 7 more`), and its totals' values still add up all of them.
    pub fn cut(&self) -> bool {
        self.of.is_some_and(|of| of > self.shown)
    }

    /// How many entries the table has, as MAT says it.
    pub fn entries(&self) -> u64 {
        self.of.unwrap_or(self.shown)
    }

    /// `MAT's table shows its first 3 of 10 entries (…)`: the evidence of a cut.
    pub fn evidence(&self) -> String {
        format!(
            "MAT's table shows its first {} of {} entries ({}: \"Total: {} of {} entries; {} more\"); this is beyond them",
            self.shown,
            self.entries(),
            self.origin,
            self.shown,
            self.entries(),
            self.entries().saturating_sub(self.shown)
        )
    }
}

/// The totals row of a table's top level (the shallowest: a tree also totals each
/// expanded node's children).
pub fn top_totals(totals: &[TotalsRow]) -> Option<&TotalsRow> {
    totals.iter().min_by_key(|t| t.depth)
}

/// A table of group rows with its totals.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupTable {
    pub origin: Origin,
    pub rows: Vec<GroupRow>,
    pub totals: Vec<TotalsRow>,
}

impl GroupTable {
    /// The top level's totals row when MAT cut the table there.
    pub fn cut(&self) -> Option<&TotalsRow> {
        top_totals(&self.totals).filter(|t| t.cut())
    }

    /// A totals row at any level (a tree's node) that says MAT cut the rows there.
    pub fn any_cut(&self) -> Option<&TotalsRow> {
        self.totals.iter().find(|t| t.cut())
    }
}

/// A row of the thread overview (or a thread's properties).
#[derive(Debug, Clone, PartialEq, Eq)]
///
/// A field is None when MAT's table does not show it: a column the overview lacks, or a
/// property row beyond the rows a cut property table shows ([`ThreadRow::cut`]).
pub struct ThreadRow {
    pub origin: Origin,
    pub object: ObjectName,
    pub name: Option<String>,
    pub shallow: Option<Shown>,
    pub retained: Option<Shown>,
    pub max_locals_retained: Option<Shown>,
    pub context_class_loader: Option<String>,
    pub daemon: Option<String>,
    pub priority: Option<String>,
    pub state: Option<String>,
    pub state_value: Option<String>,
    /// Thread Properties: the table's totals row when MAT cut it (`Total: 3 of 10 entries;
    /// 7 more`: the properties after the third are not on the page).
    pub cut: Option<TotalsRow>,
}

/// A thread's stack as MAT prints it: the first line names the thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stack {
    pub origin: Origin,
    /// `owner-b-thread`, or `java.lang.Thread @ 0x… : owner-b-thread`.
    pub title: String,
    pub frames: Vec<String>,
}

/// "Thread Stack and Involved Local Variables": the thread, then its frames with locals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackLocals {
    pub origin: Origin,
    pub thread: Option<ObjectName>,
    pub frames: Vec<FrameRow>,
    /// The totals row of the frames when MAT cut them.
    pub frames_cut: Option<TotalsRow>,
}

/// A frame of [`StackLocals`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameRow {
    pub text: String,
    pub locals: Vec<ObjectRow>,
    /// MAT links the frame's locals ("All objects") without listing them on the page.
    pub collapsed: bool,
    /// The totals row of the frame's locals when MAT cut them.
    pub locals_cut: Option<TotalsRow>,
}

/// What a suspect's description says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SuspectSubject {
    /// "The class X, loaded by L, occupies …"
    Class { class: String, loader: String },
    /// "The thread T @ 0x… NAME keeps local variables with total size …"
    Thread { object: ObjectName },
    /// "The classloader/component L @ 0x… occupies …"
    Loader { object: Option<ObjectName>, label: String },
    /// "One instance of C loaded by L occupies …"
    Instance { class: String, loader: String },
    /// "N instances of C, loaded by L occupy …"
    Group { count: u64, class: String, loader: String },
    /// A description this reader does not know.
    Other { text: String },
}

/// The accumulation point a description names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccumulationPoint {
    /// "accumulated in class X": the point is the class object of X.
    pub is_class: bool,
    pub class: String,
    pub loader: String,
    pub retained: u64,
    pub percent: String,
}

/// "X @ 0x… retains N (P%) bytes" lines of a thread suspect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retains {
    pub object: ObjectName,
    pub retained: u64,
    pub percent: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    pub origin: Origin,
    /// The suspect's number (1-based).
    pub number: usize,
    pub subject: SuspectSubject,
    pub retained: Option<(u64, String)>,
    pub accumulation_point: Option<AccumulationPoint>,
    pub retains: Vec<Retains>,
}

/// One problem suspect's page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SuspectPage {
    pub page: String,
    pub number: usize,
    /// "Accumulated Objects in Dominator Tree": from the suspect down to the point
    /// (selected), then the point's biggest children.
    pub dominator_tree: Vec<ObjectRow>,
    /// "Accumulated Objects by Class in Dominator Tree".
    pub by_class: GroupTable,
    /// "All Accumulated Objects by Class" (the point's retained set) and its totals.
    pub retained_set: GroupTable,
    /// Group suspects: "Suspect Objects by Class".
    pub suspect_classes: GroupTable,
    /// Group suspects: "All Objects by Class Retained by Suspect Objects".
    pub suspects_retained_set: GroupTable,
}

/// A table this reader does not model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmodeled {
    pub origin: Origin,
    pub rows: usize,
}

/// Everything read from the archive.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MatReport {
    /// The pages read, in archive order.
    pub pages: Vec<String>,
    /// "Heap Dump Overview": (property, value) as shown.
    pub overview: Vec<(String, String)>,
    pub histogram: Option<GroupTable>,
    pub biggest_objects: Option<Vec<ObjectRow>>,
    /// The totals rows of the Biggest Objects table (`Total: 25 of 43 entries; 18 more`).
    pub biggest_objects_totals: Vec<TotalsRow>,
    pub top_classes: Option<GroupTable>,
    pub top_loaders: Option<GroupTable>,
    pub top_packages: Option<GroupTable>,
    pub threads: Option<Vec<ThreadRow>>,
    pub threads_totals: Vec<TotalsRow>,
    pub thread_properties: Vec<ThreadRow>,
    pub system_properties: Option<Vec<(String, String)>>,
    /// The System Properties table's totals row when MAT cut it.
    pub system_properties_cut: Option<TotalsRow>,
    pub descriptions: Vec<Description>,
    pub suspect_pages: Vec<SuspectPage>,
    pub stacks: Vec<Stack>,
    pub stack_locals: Vec<StackLocals>,
    /// Object rows of every table (paths, dominator trees, biggest objects, locals).
    pub objects: Vec<ObjectRow>,
    pub unmodeled: Vec<Unmodeled>,
}

/// The first `mat://object/` link of a cell: its address and text.
fn object_link(cell: &Cell) -> Option<(u64, &str)> {
    cell.links.iter().find_map(|l| Some((parse_address(l.href.strip_prefix("mat://object/")?)?, l.text.as_str())))
}

fn depth_of(cell: &Cell) -> usize {
    cell.prefix.trim().chars().count()
}

fn cell_text(row: &Row, col: Option<usize>) -> Option<&str> {
    Some(row.cells.get(col?)?.text.as_str())
}

fn shown(row: &Row, col: Option<usize>) -> Option<Shown> {
    parse_count(cell_text(row, col)?.lines().next()?)
}

fn percent(row: &Row, col: Option<usize>) -> Option<String> {
    let t = cell_text(row, col)?.trim().strip_suffix('%')?;
    is_decimal(t).then(|| t.to_string())
}

/// `Total: 25 of 813 entries; 788 more` / `Total: 2 entries`.
fn parse_totals_label(text: &str) -> Option<(u64, Option<u64>)> {
    let t = text.lines().find(|l| l.contains("Total:"))?;
    let t = &t[t.find("Total:")? + 6..];
    let mut words = t.split_whitespace();
    let shown = parse_count(words.next()?)?.value;
    let of = match words.next() {
        Some("of") => Some(parse_count(words.next()?)?.value),
        _ => None,
    };
    Some((shown, of))
}

fn totals(origin: &Origin, table: &Table, row: &Row) -> Option<TotalsRow> {
    let first = row.cells.first()?;
    let (shown_n, of) = parse_totals_label(&first.text)?;
    let values =
        table.header.iter().enumerate().skip(1).filter_map(|(i, h)| Some((h.clone(), shown(row, Some(i))?))).collect();
    Some(TotalsRow { origin: origin.clone(), depth: depth_of(first), shown: shown_n, of, values })
}

/// Every totals row of a table.
fn table_totals(origin: &Origin, table: &Table) -> Vec<TotalsRow> {
    table
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.class == "totals")
        .filter_map(|(i, row)| totals(&Origin { row: i + 1, ..origin.clone() }, table, row))
        .collect()
}

/// The table's top-level totals row when MAT cut the table there.
fn table_cut(origin: &Origin, table: &Table) -> Option<TotalsRow> {
    let all = table_totals(origin, table);
    top_totals(&all).filter(|t| t.cut()).cloned()
}

fn object_rows(origin: &Origin, table: &Table) -> Vec<ObjectRow> {
    let (sh, re, pc) = (table.column("Shallow Heap"), table.column("Retained Heap"), table.column("Percentage"));
    table
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.class != "totals")
        .filter_map(|(i, row)| {
            let first = row.cells.first()?;
            let (address, text) = object_link(first)?;
            let object = parse_object_name(text).filter(|o| o.address == address)?;
            Some(ObjectRow {
                origin: Origin { row: i + 1, ..origin.clone() },
                object,
                depth: depth_of(first),
                shallow: shown(row, sh),
                retained: shown(row, re),
                percent: percent(row, pc),
                selected: row.class == "selected",
                strong: first.strong.clone(),
            })
        })
        .collect()
}

/// Rows naming a class, loader or package: the first cell's first line is the name.
fn group_table(origin: &Origin, table: &Table) -> GroupTable {
    let col = |names: &[&str]| names.iter().find_map(|n| table.column(n));
    let (ob, sh, re, pc) = (
        col(&["Objects", "Number of Objects", "# Top Dominators"]),
        col(&["Shallow Heap", "Used Heap Size"]),
        col(&["Retained Heap", "Retained Heap Size"]),
        col(&["Retained Heap, %"]),
    );
    let mut out = GroupTable { origin: origin.clone(), ..GroupTable::default() };
    for (i, row) in table.rows.iter().enumerate() {
        let origin = Origin { row: i + 1, ..origin.clone() };
        if row.class == "totals" {
            out.totals.extend(totals(&origin, table, row));
            continue;
        }
        let Some(first) = row.cells.first() else { continue };
        // The name: the first line that is not the tree prefix.
        let prefix = first.prefix.trim();
        let name = first
            .text
            .lines()
            .map(|l| l.strip_prefix(prefix).unwrap_or(l).trim())
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string();
        let address = object_link(first).map(|(a, _)| a);
        out.rows.push(GroupRow {
            origin,
            name,
            address,
            depth: depth_of(first),
            objects: shown(row, ob),
            shallow: shown(row, sh),
            retained: shown(row, re),
            percent: percent(row, pc),
            icon: first.icon.clone(),
        });
    }
    out
}

fn thread_row(origin: Origin, cut: Option<TotalsRow>, get: impl Fn(&str) -> Option<String>) -> Option<ThreadRow> {
    let object = parse_object_name(&get("Object / Stack Frame")?)?;
    let count = |k: &str| get(k).and_then(|t| parse_count(&t));
    Some(ThreadRow {
        origin,
        object,
        name: get("Name"),
        shallow: count("Shallow Heap"),
        retained: count("Retained Heap"),
        max_locals_retained: count("Max. Locals' Retained Heap"),
        context_class_loader: get("Context Class Loader"),
        daemon: get("Is Daemon"),
        priority: get("Priority"),
        state: get("State"),
        state_value: get("State value"),
        cut,
    })
}

/// The text of a cell's object link if it has one (the thread's label), else its text.
fn label_text(cell: &Cell) -> String {
    object_link(cell).map(|(_, t)| t.to_string()).unwrap_or_else(|| cell.text.clone())
}

fn thread_table(origin: &Origin, table: &Table) -> (Vec<ThreadRow>, Vec<TotalsRow>) {
    let mut rows = Vec::new();
    let mut tot = Vec::new();
    for (i, row) in table.rows.iter().enumerate() {
        let origin = Origin { row: i + 1, ..origin.clone() };
        if row.class == "totals" {
            tot.extend(totals(&origin, table, row));
            continue;
        }
        // A thread is a top-level row; rows below it (its expanded frames and locals) are not.
        if row.cells.first().map_or(true, |c| depth_of(c) > 0) {
            continue;
        }
        let get = |k: &str| {
            let c = table.column(k)?;
            let cell = row.cells.get(c)?;
            Some(if c == 0 { label_text(cell) } else { cell.text.clone() })
        };
        rows.extend(thread_row(origin, None, get));
    }
    (rows, tot)
}

/// A two-column table without header: (key, value).
fn key_values(table: &Table) -> Vec<(String, String)> {
    table
        .rows
        .iter()
        .filter(|r| r.class != "totals")
        .filter_map(|r| {
            let k = r.cells.first()?.text.clone();
            let v = r.cells.get(1).map(|c| c.text.clone()).unwrap_or_default();
            Some((k, v))
        })
        .collect()
}

fn parse_description(origin: &Origin, number: usize, s: &Section) -> Description {
    let text = s.text.trim();
    let strong = &s.strong;
    let sizes: Vec<usize> =
        strong.iter().enumerate().filter(|(_, t)| parse_size_percent(t).is_some()).map(|(i, _)| i).collect();
    let at = |i: usize| strong.get(i).cloned().unwrap_or_default();
    let subject = if text.starts_with("The class ") {
        SuspectSubject::Class { class: at(0), loader: at(1) }
    } else if text.starts_with("The thread ") {
        match parse_object_name(&at(0)) {
            Some(object) => SuspectSubject::Thread { object },
            None => SuspectSubject::Other { text: text.lines().next().unwrap_or("").to_string() },
        }
    } else if text.starts_with("The classloader/component ") {
        SuspectSubject::Loader { object: parse_object_name(&at(0)), label: at(0) }
    } else if text.starts_with("One instance of ") {
        SuspectSubject::Instance { class: at(0), loader: at(1) }
    } else if let Some(count) =
        text.split(" instances of ").next().filter(|_| text.contains(" instances of ")).and_then(parse_count)
    {
        SuspectSubject::Group { count: count.value, class: at(0), loader: at(1) }
    } else {
        SuspectSubject::Other { text: text.lines().next().unwrap_or("").to_string() }
    };
    let retained = sizes.first().and_then(|&i| parse_size_percent(&strong[i]));
    let accumulation_point = sizes.get(1).filter(|&&i| i >= 2).and_then(|&i| {
        let (bytes, pct) = parse_size_percent(&strong[i])?;
        Some(AccumulationPoint {
            is_class: text.contains("accumulated in class "),
            class: at(i - 2),
            loader: at(i - 1),
            retained: bytes,
            percent: pct,
        })
    });
    let retains = text
        .lines()
        .filter_map(|l| {
            let (obj, rest) = l.split_once(" retains ")?;
            let object = parse_object_name(obj)?;
            let (retained, percent) = parse_size_percent(rest.strip_suffix(" bytes")?)?;
            Some(Retains { object, retained, percent })
        })
        .collect();
    Description { origin: origin.clone(), number, subject, retained, accumulation_point, retains }
}

fn parse_stack(origin: &Origin, pre: &str) -> Stack {
    let mut lines = pre.lines();
    let title = lines.next().unwrap_or("").trim().to_string();
    let frames = lines.map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
    Stack { origin: origin.clone(), title, frames }
}

fn parse_stack_locals(origin: &Origin, table: &Table) -> StackLocals {
    let rows = object_rows(origin, table);
    let mut out = StackLocals { origin: origin.clone(), thread: None, frames: Vec::new(), frames_cut: None };
    for (i, row) in table.rows.iter().enumerate() {
        let Some(first) = row.cells.first() else { continue };
        if row.class == "totals" {
            // The frames' totals (depth 1), or the last frame's locals' (depth 2).
            let Some(t) = totals(&Origin { row: i + 1, ..origin.clone() }, table, row).filter(|t| t.cut()) else {
                continue;
            };
            match t.depth {
                1 => out.frames_cut = Some(t),
                2 => {
                    if let Some(f) = out.frames.last_mut() {
                        f.locals_cut = Some(t);
                    }
                }
                _ => {}
            }
            continue;
        }
        let depth = depth_of(first);
        let line = first
            .text
            .lines()
            .map(|l| l.strip_prefix(first.prefix.trim()).unwrap_or(l).trim())
            .find(|l| !l.is_empty())
            .unwrap_or("");
        if depth == 0 {
            out.thread = object_link(first).and_then(|(_, t)| parse_object_name(t));
        } else if depth == 1 {
            let links_locals = first.links.iter().any(|l| l.text.starts_with("All objects"));
            out.frames.push(FrameRow {
                text: line.to_string(),
                locals: Vec::new(),
                collapsed: links_locals,
                locals_cut: None,
            });
        } else if let (Some(frame), Some(obj)) = (out.frames.last_mut(), rows.iter().find(|r| r.origin.row == i + 1)) {
            frame.locals.push(obj.clone());
            frame.collapsed = false;
        }
    }
    out
}

/// `Problem Suspect 3` → 3.
fn suspect_number(title: &str) -> Option<usize> {
    title.strip_prefix("Problem Suspect ")?.trim().parse().ok()
}

/// Reads the typed report from the archive's HTML pages (name, parsed page).
pub fn read(pages: &[(String, Page)]) -> MatReport {
    let mut m = MatReport::default();
    for (name, page) in pages {
        m.pages.push(name.clone());
        let page_suspect = suspect_number(&page.title);
        let mut suspect_page =
            page_suspect.map(|n| SuspectPage { page: name.clone(), number: n, ..SuspectPage::default() });
        for s in &page.sections {
            let origin = Origin { page: name.clone(), heading: s.heading.clone(), row: 0 };
            // Index page: a suspect's section holds its description.
            if let Some(n) = suspect_number(&s.heading) {
                m.descriptions.push(parse_description(&origin, n, s));
                continue;
            }
            if s.heading == "Description" {
                if let Some(n) = page_suspect {
                    m.descriptions.push(parse_description(&origin, n, s));
                }
                continue;
            }
            for pre in &s.pre {
                if s.heading.starts_with("Thread Stack") {
                    m.stacks.push(parse_stack(&origin, pre));
                }
            }
            for table in &s.tables {
                let objects = object_rows(&origin, table);
                let modeled = match s.heading.as_str() {
                    "Heap Dump Overview" => {
                        m.overview = key_values(table);
                        true
                    }
                    "System Properties" => {
                        m.system_properties =
                            Some(key_values(table).into_iter().filter(|(k, _)| !k.is_empty()).collect());
                        m.system_properties_cut = table_cut(&origin, table);
                        true
                    }
                    "Class Histogram" => {
                        m.histogram = Some(group_table(&origin, table));
                        true
                    }
                    "Biggest Objects" => {
                        m.biggest_objects = Some(objects.clone());
                        m.biggest_objects_totals = table_totals(&origin, table);
                        true
                    }
                    "Biggest Top-Level Dominator Classes" => {
                        m.top_classes = Some(group_table(&origin, table));
                        true
                    }
                    "Biggest Top-Level Dominator Class Loaders" => {
                        m.top_loaders = Some(group_table(&origin, table));
                        true
                    }
                    "Biggest Top-Level Dominator Packages" => {
                        m.top_packages = Some(group_table(&origin, table));
                        true
                    }
                    "Thread Overview" => {
                        let (rows, tot) = thread_table(&origin, table);
                        m.threads = Some(rows);
                        m.threads_totals = tot;
                        true
                    }
                    "Thread Properties" => {
                        let kv = key_values(table);
                        let get = |k: &str| kv.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
                        m.thread_properties.extend(thread_row(origin.clone(), table_cut(&origin, table), get));
                        true
                    }
                    "Thread Stack and Involved Local Variables" => {
                        m.stack_locals.push(parse_stack_locals(&origin, table));
                        true
                    }
                    "Accumulated Objects in Dominator Tree" => {
                        if let Some(p) = &mut suspect_page {
                            p.dominator_tree = objects.clone();
                        }
                        suspect_page.is_some()
                    }
                    "Accumulated Objects by Class in Dominator Tree" => {
                        if let Some(p) = &mut suspect_page {
                            p.by_class = group_table(&origin, table);
                        }
                        suspect_page.is_some()
                    }
                    "All Accumulated Objects by Class" => {
                        if let Some(p) = &mut suspect_page {
                            p.retained_set = group_table(&origin, table);
                        }
                        suspect_page.is_some()
                    }
                    "Suspect Objects by Class" => {
                        if let Some(p) = &mut suspect_page {
                            p.suspect_classes = group_table(&origin, table);
                        }
                        suspect_page.is_some()
                    }
                    "All Objects by Class Retained by Suspect Objects" => {
                        if let Some(p) = &mut suspect_page {
                            p.suspects_retained_set = group_table(&origin, table);
                        }
                        suspect_page.is_some()
                    }
                    // Paths: their objects are checked one by one (below).
                    "Shortest Paths To the Accumulation Point" | "Common Path To the Accumulation Point" => true,
                    _ => false,
                };
                if !modeled && !table.rows.is_empty() && objects.is_empty() {
                    m.unmodeled.push(Unmodeled { origin: origin.clone(), rows: table.rows.len() });
                }
                if s.heading != "Biggest Objects" {
                    m.objects.extend(objects);
                }
            }
        }
        if let Some(p) = suspect_page {
            m.suspect_pages.push(p);
        }
    }
    m.descriptions.sort_by(|a, b| a.number.cmp(&b.number).then(a.origin.page.cmp(&b.origin.page)));
    m.suspect_pages.sort_by_key(|p| p.number);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_sizes() {
        assert_eq!(parse_count("1,234,567").map(|s| s.value), Some(1_234_567));
        let s = parse_count(">= 30,300,200").unwrap();
        assert_eq!((s.value, s.at_least), (30_300_200, true));
        assert_eq!(parse_count("0").map(|s| s.value), Some(0));
        assert!(parse_count("").is_none() && parse_count("1.5").is_none() && parse_count(",1").is_none());
        assert!(parse_count("99999999999999999999999").is_none());
        assert_eq!(parse_size_percent("30,084,408 (97.98%)"), Some((30_084_408, "97.98".into())));
        assert_eq!(parse_size_percent("264 (0.01%)"), Some((264, "0.01".into())));
        assert!(parse_size_percent("264 (x%)").is_none());
    }

    #[test]
    fn object_names() {
        let o = parse_object_name("java.util.HashMap$Node[512] @ 0xfbda1118").unwrap();
        assert_eq!(
            (o.address, o.class_name().as_str(), o.suffix.as_str()),
            (0xfbda1118, "java.util.HashMap$Node[]", "")
        );
        let o = parse_object_name("class corpus.S02StaticMapLeak @ 0xfab193e0").unwrap();
        assert_eq!(o.class_object_of(), Some("corpus.S02StaticMapLeak"));
        let o = parse_object_name("java.lang.Thread @ 0xf86cbb38 owner-b-thread").unwrap();
        assert_eq!((o.label.as_str(), o.suffix.as_str()), ("java.lang.Thread", "owner-b-thread"));
        assert_eq!(parse_object_name("byte[][] @ 0x10").unwrap().class_name(), "byte[][]");
        assert!(parse_object_name("no address").is_none());
    }

    #[test]
    fn totals_labels() {
        assert_eq!(parse_totals_label("Total: 25 of 813 entries; 788 more"), Some((25, Some(813))));
        assert_eq!(parse_totals_label("..\\\nTotal: 2 entries"), Some((2, None)));
        assert_eq!(parse_totals_label("Total: 1,572 entries"), Some((1572, None)));
    }
}
