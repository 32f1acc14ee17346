//! Which running frame holds a suspect's memory: a thread that retains most of the heap
//! is a program's working set, and the answer is the frame and its local variable
//! (`main, in JavaCompiler.parseFiles (JavaCompiler.java:1006): ListBuffer`), not the
//! thread object.
//!
//! Terms: the suspect is a thread whose stack was recorded; the *target* is what holds its
//! memory below the thread: the first step of the suspect's walk below the thread (see
//! [`super::structure`]), or, when the walk stops at the thread itself, the first node of
//! the longest chain among the thread's members when that chain's nodes are its biggest
//! group. The frames holding the target are the frames whose local variables are the
//! target (`local`), else whose local variables reference it (`references`). Of those,
//! the innermost is named; the others are the frames the memory is shared with (the
//! stack holds it).
//!
//! Cost: the frames' locals are a few hundred at most; one pass over each local's
//! references when no local is the target.

use crate::analysis::{object_ref, Analysis};
use crate::error::Result;
use crate::model::format::parse_address;
use crate::model::threads::ThreadInfo;
use crate::model::{FrameName, HeldByFrame, Structure};

/// A frame's text as MAT prints it (`at pkg.Class.method(Lsig;)V (File.java:12)`), named.
pub fn frame_name(text: &str) -> FrameName {
    let body = text.strip_prefix("at ").unwrap_or(text);
    let method = body.split('(').next().unwrap_or(body).trim().to_string();
    // The source is in the last parentheses: "(File.java:12)", "(File.java)",
    // "(File.java(Native Method))".
    let source = body
        .rfind(" (")
        .map(|i| body[i + 2..].strip_suffix(')').unwrap_or(&body[i + 2..]).to_string())
        .unwrap_or_default();
    let (file, line) = match source.rsplit_once(':') {
        Some((f, l)) if l.parse::<u32>().is_ok() => (Some(f.to_string()), l.parse().ok()),
        _ if !source.is_empty() => (Some(source.split('(').next().unwrap_or(&source).to_string()), None),
        _ => (None, None),
    };
    // The simple class name and the method: "JavaCompiler.parseFiles".
    let mut parts = method.rsplitn(3, '.');
    let m = parts.next().unwrap_or("");
    let short_method = match parts.next() {
        Some(class) => format!("{class}.{m}"),
        None => m.to_string(),
    };
    let short = if source.is_empty() { short_method } else { format!("{short_method} ({source})") };
    FrameName { method, short, file, line }
}

/// The frame holding the memory of the single suspect whose structure is `s` (see the
/// module's documentation), if the suspect is a thread with a recorded stack.
pub fn held_by_frame(a: &Analysis, threads: &[ThreadInfo], s: &Structure) -> Option<HeldByFrame> {
    let thread_ref = s.path.first()?;
    let t = threads.iter().find(|t| t.address == thread_ref.address && !t.frames.is_empty())?;
    let find = |o: &crate::model::ObjectRef| parse_address(&o.address).and_then(|x| a.object_at(x));
    let target = match s.path.get(1) {
        Some(o) => find(o)?,
        None => {
            // The walk stopped at the thread: its biggest group, when a chain's nodes,
            // else the local reaching the most of the thread's memory.
            let g = s.groups.first()?;
            match s.chains.first().filter(|c| c.class_name == g.class_name && c.nodes * 2 > g.objects) {
                Some(c) => find(&c.first)?,
                None => return reaching_most(a, t, find(thread_ref)?),
            }
        }
    };
    let target_address = format!("0x{:x}", a.address(target));
    // A thread's own object among its frames' locals (`this` of Thread.run) holds its
    // fields (thread locals), not a frame's working set.
    let own = |l: &&crate::model::ObjectRef| l.address != t.address;
    // Frames (innermost first) holding the target as a local, else referencing it.
    let mut holding: Vec<(usize, &crate::model::ObjectRef)> = t
        .frames
        .iter()
        .enumerate()
        .filter_map(|(k, f)| f.locals.iter().filter(own).find(|l| l.address == target_address).map(|l| (k, l)))
        .collect();
    let mut how = "local";
    if holding.is_empty() {
        how = "references";
        for (k, f) in t.frames.iter().enumerate() {
            let mut seen: Vec<&str> = Vec::new();
            for l in f.locals.iter().filter(own) {
                if seen.contains(&l.address.as_str()) {
                    continue;
                }
                seen.push(&l.address);
                let Some(lo) = find(l) else { continue };
                let mut hit = false;
                a.for_each_reference(lo, |w| hit |= w == target);
                if hit {
                    holding.push((k, l));
                    break;
                }
            }
        }
    }
    let &(depth, local) = holding.first()?;
    Some(HeldByFrame {
        thread_name: t.name.clone(),
        thread: t.address.clone(),
        frame: frame_name(&t.frames[depth].frame),
        depth: depth as u32,
        local: if how == "local" { local.clone() } else { object_ref(a, find(local)?) },
        how: how.to_string(),
        reach_bytes: None,
        chain: None,
        elements: None,
        also_in: holding[1..].iter().map(|&(k, _)| frame_name(&t.frames[k].frame)).collect(),
    })
}

/// Local variables whose reach is measured at most (the biggest first, see
/// [`reaching_most`]).
const REACH_CANDIDATES: usize = 8;

/// When the thread's memory is spread over many objects that its frames share (no member
/// holds 70%): the frame whose local variable reaches the most of it. Reach is measured
/// through the thread's own objects (those it dominates), not through objects of a class
/// with a single instance (a program's services, such as a compiler's context, reach
/// everything and say nothing), as the retained size of what a breadth-first search from
/// the local visits. Measured for the [`REACH_CANDIDATES`] locals that directly hold the
/// most of the thread's memory (a chain's nodes and an array's elements included); None
/// when they reach under half of it.
///
/// Cost: one pass over the objects the thread dominates (a bit each, allocated fallibly),
/// and one search per candidate over those objects.
fn reaching_most(a: &Analysis, t: &ThreadInfo, thread: u32) -> Option<HeldByFrame> {
    let n = a.object_count();
    let words = n.div_ceil(64);
    let mut inside = crate::alloc::try_filled(words, 0u64, "the thread's objects").ok()?;
    let bit = |bits: &[u64], v: u32| bits[v as usize / 64] >> (v % 64) & 1 == 1;
    let mut stack = vec![thread];
    while let Some(v) = stack.pop() {
        inside[v as usize / 64] |= 1 << (v % 64);
        for k in a.dominated(v) {
            crate::alloc::try_push(&mut stack, k, "the thread's objects").ok()?;
        }
    }
    let single = |v: u32| a.classes.get(a.class_of(v) as usize).is_some_and(|c| c.instances == 1);
    let is_member = |w: u32| a.immediate_dominator(w) == Some(Some(thread));
    // Candidates: distinct locals inside the thread, not services, by what they hold
    // directly (themselves, or the members they or their chain's nodes reference).
    let mut candidates: Vec<(u64, u32)> = Vec::new();
    for f in &t.frames {
        for l in &f.locals {
            let Some(o) = parse_address(&l.address).and_then(|x| a.object_at(x)) else { continue };
            if !bit(&inside, o) || single(o) || candidates.iter().any(|&(_, c)| c == o) {
                continue;
            }
            let mut direct = if is_member(o) { a.retained(o) } else { 0 };
            let mut node = Some(o);
            while let Some(x) = node {
                a.for_each_reference(x, |w| {
                    if w != o && is_member(w) {
                        direct += a.retained(w);
                    }
                });
                node = crate::query::chains::link(a, x).filter(|&y| a.class_of(y) == a.class_of(o));
            }
            candidates.push((direct, o));
        }
    }
    candidates.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    candidates.truncate(REACH_CANDIDATES);
    let mut seen = crate::alloc::try_filled(words, 0u64, "the objects reached").ok()?;
    let mut best: Option<(u64, u32)> = None;
    for &(_, start) in &candidates {
        let mut visited: Vec<u32> = vec![start];
        seen[start as usize / 64] |= 1 << (start % 64);
        let mut at = 0;
        while at < visited.len() {
            let v = visited[at];
            at += 1;
            let mut failed = false;
            a.for_each_reference(v, |w| {
                if bit(&inside, w) && !bit(&seen, w) && !single(w) && w != thread {
                    seen[w as usize / 64] |= 1 << (w % 64);
                    failed |= crate::alloc::try_push(&mut visited, w, "the objects reached").is_err();
                }
            });
            if failed {
                return None;
            }
        }
        // What the visited objects retain: the tops of the visited part of the tree.
        let reach: u64 = visited
            .iter()
            .filter(|&&w| match a.immediate_dominator(w) {
                Some(Some(d)) => !bit(&seen, d),
                _ => true,
            })
            .map(|&w| a.retained(w))
            .sum();
        for &w in &visited {
            seen[w as usize / 64] &= !(1 << (w % 64));
        }
        if best.map_or(true, |(r, _)| reach > r) {
            best = Some((reach, start));
        }
    }
    let (reach, local) = best?;
    if reach * 2 < a.retained(thread) {
        return None;
    }
    let address = format!("0x{:x}", a.address(local));
    let holding: Vec<usize> = t
        .frames
        .iter()
        .enumerate()
        .filter(|(_, f)| f.locals.iter().any(|l| l.address == address))
        .map(|(k, _)| k)
        .collect();
    let &depth = holding.first()?;
    Some(HeldByFrame {
        thread_name: t.name.clone(),
        thread: t.address.clone(),
        frame: frame_name(&t.frames[depth].frame),
        depth: depth as u32,
        local: object_ref(a, local),
        how: "reaches".to_string(),
        reach_bytes: Some(reach),
        chain: None,
        elements: None,
        also_in: holding[1..].iter().map(|&k| frame_name(&t.frames[k].frame)).collect(),
    })
}

/// Elements counted per class at most (the nodes of a chain, an array's slots).
const MAX_ELEMENT_SCAN: usize = 10_000_000;

/// For a local that reaches the memory (see [`reaching_most`]): the chain it heads and
/// what its nodes (or its slots, for an array) reference one each, the field named by one
/// record read back.
pub fn describe_local(a: &mut Analysis, f: &mut HeldByFrame) -> Result<()> {
    if f.how != "reaches" {
        return Ok(());
    }
    let Some(local) = parse_address(&f.local.address).and_then(|x| a.object_at(x)) else { return Ok(()) };
    let chain = crate::query::chains::chain_from(a, local);
    let nodes = if a.class_name(a.class_of(local)).ends_with("[]") { vec![local] } else { Vec::new() };
    // class → (objects referenced, one node referencing one)
    let mut by_class: std::collections::BTreeMap<u32, (u64, u32, u32)> = std::collections::BTreeMap::new();
    let mut node = Some(local);
    let mut scanned = 0usize;
    while let Some(x) = node {
        let c = a.class_of(x);
        a.for_each_reference(x, |w| {
            let wc = a.class_of(w);
            if wc != c && a.class_object(c) != Some(w) && a.class_represented_by(w).is_none() {
                let e = by_class.entry(wc).or_insert((0, x, w));
                e.0 += 1;
            }
        });
        scanned += 1;
        node = if nodes.is_empty() && scanned < MAX_ELEMENT_SCAN { crate::query::chains::link(a, x) } else { None };
    }
    let Some((&class, &(objects, from, to))) = by_class.iter().max_by_key(|(&c, &(n, _, _))| (n, std::cmp::Reverse(c)))
    else {
        return Ok(());
    };
    if chain.nodes > 1 {
        f.chain = Some(crate::model::LinkedChain {
            first: f.local.clone(),
            class_name: a.class_name(a.class_of(local)).to_string(),
            field: crate::query::chains::link_field(a, local)?,
            nodes: chain.nodes,
        });
    }
    // Most nodes hold one such element (an array: any number).
    if nodes.is_empty() && objects * 2 < chain.nodes {
        return Ok(());
    }
    let field = if nodes.is_empty() {
        crate::query::paths::via(a, from, to)?.into_iter().find(|n| !n.starts_with('<') && !n.starts_with('['))
    } else {
        None
    };
    f.elements = Some(crate::model::Elements { class_name: a.class_name(class).to_string(), objects, field });
    Ok(())
}

/// How the frame is named in the headline: `main, in JavadocTool.parse (JavadocTool.java:288)`,
/// or, when several frames hold it, `main's stack, in … and 1 more frame`.
pub fn held_in(f: &HeldByFrame) -> String {
    let thread = f.thread_name.clone().unwrap_or_else(|| format!("thread {}", f.thread));
    match f.also_in.len() {
        0 => format!("{thread}, in {}", f.frame.short),
        n => format!("{thread}'s stack, in {} and {n} more {}", f.frame.short, if n == 1 { "frame" } else { "frames" }),
    }
}

#[cfg(test)]
mod tests {
    use super::frame_name;

    #[test]
    fn frames_named_as_developers_read_them() {
        let f = frame_name("at jdk.javadoc.internal.tool.JavadocTool.parse(Ljava/lang/Iterable;Lcom/sun/tools/javac/util/ListBuffer;Z)V (JavadocTool.java:288)");
        assert_eq!(f.method, "jdk.javadoc.internal.tool.JavadocTool.parse");
        assert_eq!(f.short, "JavadocTool.parse (JavadocTool.java:288)");
        assert_eq!((f.file.as_deref(), f.line), (Some("JavadocTool.java"), Some(288)));
        let f = frame_name("at java.lang.Object.wait(J)V (Object.java(Native Method))");
        assert_eq!(f.short, "Object.wait (Object.java(Native Method))");
        assert_eq!((f.file.as_deref(), f.line), (Some("Object.java"), None));
        let f = frame_name("at Main.main([Ljava/lang/String;)V (Main.java)");
        assert_eq!(f.short, "Main.main (Main.java)");
        assert_eq!(f.line, None);
    }
}
