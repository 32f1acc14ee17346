//! What a leak suspect found, said in the application's terms (added fields only: the
//! suspects themselves, their sizes and their accumulation points are MAT's, unchanged).
//!
//! - **Held in** (`held_in`) and **each holds** (`each_holds`): where the memory is held,
//!   named as a developer names it (`com.acme.ui.EventBus.INSTANCE.listeners`), and what
//!   each accumulated object holds: see [`super::held_in`].
//! - **Accumulated objects by class** (`accumulated`): the objects the accumulation point
//!   immediately dominates, grouped by class, as MAT's "Accumulated Objects by Class in
//!   Dominator Tree" table (count, shallow and retained sums, the biggest few).
//! - **Biggest members** (`biggest_members`) of a group suspect, threads by name.
//! - For a suspect that is a class object, the class it stands for and that class's loader
//!   (`represented_class`, `represented_loader`), not `java.lang.Class`'s.
//!
//! Cost: one pass over the accumulation point's dominated children (bounded by the object
//! count, done once per suspect: at most 10), and what [`super::held_in`] reads back.

use std::collections::BTreeMap;

use super::held_in;
use crate::analysis::{loader_label, object_ref, Analysis};
use crate::error::Result;
use crate::model::format::parse_address;
use crate::model::threads::ThreadInfo;
use crate::model::{EachHolds, HeldByFrame, LinkedChain, Member, MemberGroup, Report, Structure, Suspect, SuspectKind};
use crate::query;

/// Groups of accumulated objects kept per suspect (the largest) at the default detail.
pub const MAX_GROUPS: usize = 20;
/// Objects listed per group.
pub const GROUP_EXAMPLES: usize = 3;
/// Members listed for a group suspect at the default detail.
pub const MAX_MEMBERS: usize = 20;

/// The objects `ap` immediately dominates, grouped by class, largest retained first (at
/// most `max_groups` groups).
pub fn accumulated(a: &Analysis, ap: u32, max_groups: usize) -> Vec<MemberGroup> {
    // class → (objects, shallow, retained, the biggest few)
    let mut groups: BTreeMap<u32, (u64, u64, u64, Vec<u32>)> = BTreeMap::new();
    for k in a.dominated(ap) {
        let g = groups.entry(a.class_of(k)).or_default();
        g.0 += 1;
        g.1 += a.shallow(k);
        g.2 += a.retained(k);
        a.keep_largest(&mut g.3, k, GROUP_EXAMPLES);
    }
    let mut out: Vec<(u32, MemberGroup)> = groups
        .into_iter()
        .map(|(c, (objects, shallow_bytes, retained_bytes, biggest))| {
            (
                c,
                MemberGroup {
                    class_name: a.class_name(c).to_string(),
                    objects,
                    shallow_bytes,
                    retained_bytes,
                    biggest: biggest.into_iter().map(|k| object_ref(a, k)).collect(),
                },
            )
        })
        .collect();
    out.sort_by(|(cx, x), (cy, y)| {
        y.retained_bytes.cmp(&x.retained_bytes).then(x.class_name.cmp(&y.class_name)).then(cx.cmp(cy))
    });
    out.truncate(max_groups);
    out.into_iter().map(|(_, g)| g).collect()
}

/// The biggest `members` (already largest retained first, at most `max`), threads with
/// their names.
pub fn biggest_members(a: &Analysis, threads: &[ThreadInfo], members: &[u32], max: usize) -> Vec<Member> {
    members
        .iter()
        .take(max)
        .map(|&m| {
            let object = object_ref(a, m);
            let name = threads.iter().find(|t| t.address == object.address).and_then(|t| t.name.clone());
            Member { object, name }
        })
        .collect()
}

/// The class a class-object suspect stands for, and its loader.
pub fn represented(a: &Analysis, object: u32) -> (Option<String>, Option<String>) {
    match a.class_represented_by(object) {
        Some(c) => (Some(a.class_name(c).to_string()), Some(loader_label(a, c))),
        None => (None, None),
    }
}

/// Fills in what a report built from `a` says in the application's terms (reading the dump
/// back): each suspect's `held_in`, `each_holds`, the entries of what `held_in` names, the
/// frame that holds it and its headline, and each growth point's `held_in` and entries
/// (see [`super::held_in`], [`super::frames`]).
pub fn annotate(report: &mut Report, a: &mut Analysis) -> Result<()> {
    let used = report.overview.used_heap_bytes;
    for k in 0..report.leak_suspects.suspects.len() {
        let s = &report.leak_suspects.suspects[k];
        if s.kind == SuspectKind::SingleObject {
            let Some(obj) = parse_address(&s.object.address).and_then(|x| query::find(a, x)) else { continue };
            let Some(st) = s.structure.clone() else { continue };
            let found = single(a, &report.threads, obj, st)?;
            let mut subtree = report.leak_suspects.suspects[k].dominator_subtree.take();
            for n in subtree.iter_mut().flat_map(|t| t.nodes.iter_mut()) {
                if let Some(c) = n.chain.as_mut() {
                    super::structure::name_chains(a, std::slice::from_mut(c))?;
                }
            }
            let s = &mut report.leak_suspects.suspects[k];
            s.dominator_subtree = subtree;
            s.held_in = found.held_in;
            s.accumulation_point_elements = found.entries;
            s.each_holds = found.each_holds;
            s.frame = found.frame;
            s.structure = Some(found.structure);
            s.headline = headline(s, used, found.holds.as_deref());
            continue;
        }
        let Some(chain) = chain_of(a, s) else {
            let s = &mut report.leak_suspects.suspects[k];
            s.headline = headline(s, used, None);
            continue;
        };
        let named = held_in::name_chain(a, &report.threads, &chain)?;
        let ap = s.accumulation_point.as_ref().and_then(|p| parse_address(&p.address)).and_then(|x| query::find(a, x));
        let (entries, each_holds) = match ap {
            Some(ap) => (held_in::entries(a, &chain, ap, named.as_ref())?, held_in::each_holds(a, ap)?),
            None => (None, None),
        };
        let s = &mut report.leak_suspects.suspects[k];
        s.held_in = named.map(|n| n.text);
        if ap.is_some() {
            s.accumulation_point_elements = entries;
        }
        s.each_holds = each_holds;
        s.headline = headline(s, used, None);
    }
    for k in 0..report.growth_points.len() {
        let Some(top) = parse_address(&report.growth_points[k].address).and_then(|x| query::find(a, x)) else {
            continue;
        };
        let (point, st) = super::structure::structure(a, top, 1);
        let found = single(a, &report.threads, top, st)?;
        let g = &mut report.growth_points[k];
        g.accumulation_point = object_ref(a, point);
        g.held_in = found.held_in;
        g.elements = found.entries;
    }
    Ok(())
}

/// What a single suspect (or a top-level dominator) found, in the application's terms.
struct Single {
    held_in: Option<String>,
    entries: Option<u64>,
    each_holds: Option<EachHolds>,
    frame: Option<HeldByFrame>,
    structure: Structure,
    /// What the object named holds, when it is not the structure's point (a class's
    /// static field's object).
    holds: Option<Vec<MemberGroup>>,
}

/// `obj`'s structure `st` named: the frame holding it (a thread's), where it is held,
/// what its point's biggest group each holds, the entries of what the name ends at.
fn single(a: &mut Analysis, threads: &[ThreadInfo], obj: u32, mut st: Structure) -> Result<Single> {
    let path = super::structure::walk(a, obj);
    let point = *path.last().expect("the walk starts at the object");
    super::structure::name_chains(a, &mut st.chains)?;
    let mut frame = super::frames::held_by_frame(a, threads, &st);
    if let Some(f) = frame.as_mut() {
        super::frames::describe_local(a, f)?;
    }
    // What the name ends at: the walk's end, or the first node of the chain whose nodes
    // are the point's biggest group (a list held by a static field or a local).
    let mut named_path = path.clone();
    let mut holds = None;
    // (A collection's own nodes are its internals: the name stops at the collection.)
    let one_chain = chain_group(&st)
        .filter(|c| st.groups.first().is_some_and(|g| c.nodes * 2 > g.objects))
        .filter(|_| !held_in::is_collection(a, point));
    if let Some(first) = one_chain.and_then(|c| parse_address(&c.first.address)).and_then(|x| a.object_at(x)) {
        named_path.push(first);
    } else if a.class_represented_by(point).is_some() {
        // A class's statics: the biggest of what they hold, named by its static field, and
        // what it holds (`com.acme.orders.OrderService.ORDERS holds …`).
        if let Some(m) = crate::query::chains::largest_member(a, point) {
            named_path.push(m.object);
            holds = Some(
                super::structure::members(a, m.object, GROUP_EXAMPLES).groups.into_iter().map(|(_, g)| g).collect(),
            );
        }
    }
    let named = match &frame {
        Some(f) => {
            // From the local down: `main, in Foo.run (Foo.java:3)` is said by the frame.
            let start = named_path[1..].iter().position(|&x| format!("0x{:x}", a.address(x)) == f.local.address);
            match start {
                Some(i) => {
                    let local = named_path[1 + i];
                    let text = crate::model::names::simple_name(a.class_name(a.class_of(local))).to_string();
                    held_in::name_steps(a, &named_path, 1 + i, text)?
                }
                None => None,
            }
        }
        _ => held_in::name_chain(a, threads, &named_path)?,
    };
    let entries = match &named {
        Some(n) if n.end < named_path.len() => match crate::values::elements::element_count(a, named_path[n.end])? {
            Some(e) => Some(e),
            None => crate::values::elements::element_count(a, point)?,
        },
        _ => crate::values::elements::element_count(a, point)?,
    };
    let held_in = match (&frame, named) {
        (Some(f), Some(n)) => Some(format!("{}: {}", super::frames::held_in(f), n.text)),
        (Some(f), None) => Some(super::frames::held_in(f)),
        (None, n) => n.map(|n| n.text),
    };
    let each_holds = match holds {
        Some(_) => None,
        None => held_in::each_holds(a, point)?,
    };
    Ok(Single { held_in, entries, each_holds, frame, structure: st, holds })
}

/// The longest chain of the structure's biggest group, when that group is mostly chains'
/// nodes.
fn chain_group(st: &Structure) -> Option<&LinkedChain> {
    let g = st.groups.first()?;
    let nodes: u64 = st.chains.iter().filter(|c| c.class_name == g.class_name).map(|c| c.nodes).sum();
    if nodes * 2 <= g.objects {
        return None;
    }
    st.chains.iter().find(|c| c.class_name == g.class_name)
}

/// "a" or "an" before a name, as it is read out.
fn article(name: &str) -> &'static str {
    match name.chars().next() {
        Some(c) if "aeiouAEIOU".contains(c) => "an",
        _ => "a",
    }
}

/// The suspect in one sentence (see [`Suspect::headline`]): where it is held, what the
/// biggest group of what it holds is, each and together, and that part's share of the
/// used heap `used`; a linked structure whose nodes each hold one object is read through
/// (`a ListBuffer holding 1,561 × JCCompilationUnit`).
pub fn headline(s: &Suspect, used: u64, holds: Option<&[MemberGroup]>) -> Option<String> {
    use crate::model::format::{basis_points, binary_size, format_bp, thousands};
    if s.kind == SuspectKind::GroupOfObjects {
        // The group itself: its members, each and together, and where they are held.
        let n = s.instances.max(1);
        let what = format!(
            "{} × {}, about {} each ({}, {} of the heap)",
            thousands(s.instances),
            crate::model::names::simple_name(&s.class_name),
            binary_size(s.retained_bytes / n),
            binary_size(s.retained_bytes),
            format_bp(basis_points(s.retained_bytes, used))
        );
        return Some(match &s.held_in {
            Some(h) => format!("{h} holds {what}"),
            None => format!("{what}, held by no single object"),
        });
    }
    let held = s.held_in.as_ref()?;
    let groups = match (holds, &s.structure) {
        (Some(h), _) => h,
        (None, Some(st)) => &st.groups,
        (None, None) => &s.accumulated,
    };
    let Some(g) = groups.first() else {
        return Some(format!(
            "{held} retains {} ({} of the heap)",
            binary_size(s.retained_bytes),
            format_bp(basis_points(s.retained_bytes, used))
        ));
    };
    if g.objects == 1 {
        // One object: `X.F holds an ArrayList (295.8 KiB, 22.58% of the heap), which holds …`.
        let simple = crate::model::names::simple_name(&g.class_name);
        let which = match &s.each_holds {
            Some(e) => format!(", which holds {} {} by {}", article(&e.class_name), e.class_name, e.field),
            None => String::new(),
        };
        return Some(format!(
            "{held} holds {} {simple} ({}, {} of the heap){which}",
            article(simple),
            binary_size(g.retained_bytes),
            format_bp(basis_points(g.retained_bytes, used))
        ));
    }
    let average = g.retained_bytes / g.objects.max(1);
    // "each" when they are all the same size (the biggest is the average), else "about".
    let same =
        g.biggest.first().is_some_and(|b| b.retained_bytes == average && average * g.objects == g.retained_bytes);
    let size = format!(
        "{}{} each ({}, {} of the heap)",
        if same { "" } else { "about " },
        binary_size(average),
        binary_size(g.retained_bytes),
        format_bp(basis_points(g.retained_bytes, used))
    );
    let linked = if holds.is_some() { None } else { s.structure.as_ref().and_then(chain_group) };
    let (what, each) = match (&s.each_holds, linked) {
        // A linked structure's nodes, each holding one element: the elements.
        (Some(e), Some(c)) => (
            format!(
                "{} × {}, linked through {}.{}, {size}",
                thousands(g.objects),
                crate::model::names::simple_name(&e.class_name),
                crate::model::names::simple_name(&c.class_name),
                c.field.as_deref().unwrap_or("…")
            ),
            String::new(),
        ),
        (Some(e), None) => (
            format!("{} × {}, {size}", thousands(g.objects), crate::model::names::simple_name(&g.class_name)),
            format!("; each holds {} {} by {}", article(&e.class_name), e.class_name, e.field),
        ),
        (None, Some(c)) => (
            format!(
                "{} × {}, linked through {}.{}, {size}",
                thousands(g.objects),
                crate::model::names::simple_name(&g.class_name),
                crate::model::names::simple_name(&c.class_name),
                c.field.as_deref().unwrap_or("…")
            ),
            String::new(),
        ),
        (None, None) => (
            format!("{} × {}, {size}", thousands(g.objects), crate::model::names::simple_name(&g.class_name)),
            String::new(),
        ),
    };
    // Held by a frame: `main, in Foo.run (Foo.java:3): a ListBuffer holding …`; shared by
    // the stack: the local reaching the most of it.
    if let Some(f) = s.frame.as_ref().filter(|f| f.how == "reaches") {
        let local = crate::model::names::simple_name(&f.local.class_name);
        let reach = f.reach_bytes.unwrap_or(0);
        let holding = match (&f.chain, &f.elements) {
            (Some(c), Some(e)) => format!(
                " of {} × {}, linked through {}.{},",
                thousands(e.objects),
                crate::model::names::simple_name(&e.class_name),
                crate::model::names::simple_name(&c.class_name),
                c.field.as_deref().unwrap_or("…")
            ),
            (None, Some(e)) => {
                format!(" holding {} × {},", thousands(e.objects), crate::model::names::simple_name(&e.class_name))
            }
            _ => String::new(),
        };
        return Some(format!(
            "{}: {} {local}{holding} reaching {} ({} of the heap) of the {} the thread holds",
            super::frames::held_in(f),
            article(local),
            binary_size(reach),
            format_bp(basis_points(reach, used)),
            binary_size(s.retained_bytes)
        ));
    }
    if let Some(f) = &s.frame {
        let head = super::frames::held_in(f);
        if let Some(rest) = held.strip_prefix(&head).and_then(|r| r.strip_prefix(": ")) {
            let verb =
                if rest.contains('.') { format!("{rest} holds") } else { format!("{} {rest} holding", article(rest)) };
            return Some(format!("{head}: {verb} {what}{each}"));
        }
    }
    Some(format!("{held} holds {what}{each}"))
}

/// The chain a suspect's name is read from: a single suspect's whole dominator chain down
/// to its accumulation point (the report keeps at most 40 steps of it), a group's shared
/// reference path as the report has it (None when steps were left out of it, or an
/// object is not found).
fn chain_of(a: &Analysis, s: &Suspect) -> Option<Vec<u32>> {
    if s.kind == SuspectKind::SingleObject {
        let obj = parse_address(&s.object.address).and_then(|x| query::find(a, x))?;
        let (point, chain) = super::suspects::single_accumulation_point(a, obj);
        // The walk that found the report's accumulation point finds it again.
        return match (point, &s.accumulation_point) {
            (Some(p), Some(ap)) if parse_address(&ap.address) == Some(a.address(p)) => Some(chain),
            (None, None) => Some(chain),
            _ => None,
        };
    }
    if s.chain_omitted > 0 {
        return None;
    }
    s.chain.iter().map(|o| parse_address(&o.address).and_then(|x| query::find(a, x))).collect()
}
