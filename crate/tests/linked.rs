//! Linked structures read as one (issue 42): builder dumps of every chain shape — a cons
//! list, a doubly linked list, hash buckets with a long chain, a cycle, a 1,000,000-node
//! chain — and a running frame's working set, each checked against its construction:
//! the structure's members and chains, what each node holds, the headline, the folded
//! reference paths, the dominator-tree queries and the triage's verdict.

mod support;

use heapscope::model::{Report, SuspectKind};
use heapscope::query::paths::PathStep;
use heapscope::session::{Answer, Query, Session};
use support::dump::{hex, Dump, BYTE, INT, OBJ};
use support::hprof_builder::{Hprof, Value as V};

/// A dump with `java.lang.Class`, `byte[]`, every class a sticky root (so static fields
/// hold what they reference).
fn dump() -> Dump {
    let mut d = Dump::new(Hprof::new(8));
    d.sticky_classes = true;
    d.class("java.lang.Class", "java.lang.Object", &[]);
    d.primitive_array_class(BYTE);
    d
}

/// An element holding a byte array of `n` bytes.
fn elem(d: &mut Dump, n: u32) -> u64 {
    let b = d.prim(BYTE, n, &vec![7u8; n as usize]);
    d.obj("c.Elem", &[("data", V::Obj(b))])
}

/// `n` rounded up to the builder dumps' object alignment (their ids are 64 bytes apart).
fn align(n: u64) -> u64 {
    n.div_ceil(64) * 64
}

fn report(s: &mut Session) -> Report {
    s.report().expect("report").clone()
}

fn path_to_root(s: &mut Session, obj: u64) -> Vec<PathStep> {
    match s.answer(&Query::PathToRoot { object: hex(obj) }).expect("path") {
        Answer::PathToRoot(p) => p,
        other => panic!("{other:?}"),
    }
}

fn children(s: &mut Session, parent: u64, folded: bool) -> heapscope::query::tree::Children {
    match s.answer(&Query::Children { parent: Some(hex(parent)), offset: 0, limit: 10_000, folded }).expect("children")
    {
        Answer::Children(c) => c,
        other => panic!("{other:?}"),
    }
}

/// `c.App.LIST` → a cons list of `N` nodes (`head` an element, `tail` the next).
#[test]
fn a_cons_list_is_one_structure_of_its_nodes() {
    const N: usize = 300;
    let mut d = dump();
    d.class("c.Elem", "java.lang.Object", &[("data", OBJ)]);
    d.class("c.Cons", "java.lang.Object", &[("head", OBJ), ("tail", OBJ)]);
    let mut nodes = vec![0u64; N];
    let mut next = 0;
    for i in (0..N).rev() {
        let e = elem(&mut d, 1_000 + i as u32);
        next = d.obj("c.Cons", &[("head", V::Obj(e)), ("tail", V::Obj(next))]);
        nodes[i] = next;
    }
    d.class_with_statics("c.App", "java.lang.Object", &[], &[("LIST", V::Obj(nodes[0]))]);
    let app = d.classes["c.App"];
    let mut s = d.analyze();
    let r = report(&mut s);
    let sus = &r.leak_suspects.suspects[0];
    assert_eq!(sus.kind, SuspectKind::SingleObject);
    assert_eq!(sus.object.address, hex(app));
    // MAT's walk steps down the list node by node; ours stops at the class, whose
    // members are the list's N nodes.
    let st = sus.structure.as_ref().expect("a structure");
    assert_eq!(st.point.address, hex(app));
    assert_eq!(st.members, N as u64);
    assert_eq!(st.chains.len(), 1);
    assert_eq!(st.chains[0].first.address, hex(nodes[0]));
    assert_eq!(st.chains[0].nodes, N as u64);
    assert_eq!(st.chains[0].field.as_deref(), Some("tail"));
    let g = &st.groups[0];
    assert_eq!((g.class_name.as_str(), g.objects), ("c.Cons", N as u64));
    // Each node is what it holds besides the rest of the list: itself (a 16-byte header,
    // two 8-byte references), its element (header and a reference) and the element's
    // array (24-byte header and its bytes); the builder's objects are 64 bytes apart, so
    // the object alignment is 64.
    let own = |i: usize| align(32) + align(24) + align(24 + 1_000 + i as u64);
    assert_eq!(g.retained_bytes, (0..N).map(own).sum::<u64>());
    let each = sus.each_holds.as_ref().expect("each node holds an element");
    assert_eq!((each.class_name.as_str(), each.field.as_str()), ("c.Elem", "head"));
    assert_eq!(sus.held_in.as_deref(), Some("c.App.LIST"));
    let headline = sus.headline.as_deref().unwrap();
    assert!(headline.starts_with("c.App.LIST holds 300 × Elem, linked through Cons.tail, about "), "{headline}");
    // The subtree lists the nodes side by side, the rest counted with their chain.
    let t = sus.dominator_subtree.as_ref().unwrap();
    assert_eq!(t.nodes[0].object.address, hex(app));
    assert_eq!(t.nodes.iter().filter(|n| n.depth == 1).count(), 20);
    assert!(t.nodes.iter().filter(|n| n.depth == 1).all(|n| n.object.class_name == "c.Cons"));
    assert_eq!(t.nodes[0].omitted_children, N as u64 - 20);
    assert_eq!(t.nodes[0].chain.as_ref().map(|c| c.nodes), Some(N as u64));

    // The tree view: the class's members are the N nodes; unfolded, its one child.
    let folded = children(&mut s, app, true);
    assert_eq!(folded.total, N as u64);
    assert!(folded.nodes.iter().all(|n| n.chain.as_ref().is_some_and(|c| c.nodes == N as u64)));
    assert_eq!(folded.total_retained_bytes, (0..N).map(own).sum::<u64>());
    assert_eq!(children(&mut s, app, false).total, 1);

    // The path to the last node: the class, the run of the N - 1 nodes before it, it.
    let p = path_to_root(&mut s, nodes[N - 1]);
    assert_eq!(p.len(), 3, "{p:#?}");
    assert_eq!(p[0].object.address, hex(app));
    assert_eq!(p[0].via, ["LIST"]);
    let run = p[1].run.as_ref().expect("a run");
    assert_eq!((run.nodes, run.field.as_str()), (N as u64 - 1, "tail"));
    assert_eq!(p[1].object.address, hex(nodes[0]));
    assert_eq!(run.last.address, hex(nodes[N - 2]));
    assert_eq!(p[1].via, ["tail"]);
    assert_eq!(p[2].object.address, hex(nodes[N - 1]));
}

/// `c.App.LIST` → a doubly linked list (`first`, `last`, `size`) of `N` nodes (`item`,
/// `next`, `prev`): the list dominates every node, and a path into the middle walks the
/// nodes from the nearer end.
#[test]
fn a_doubly_linked_list_holds_its_nodes_and_paths_walk_them_as_one() {
    const N: usize = 200;
    let mut d = dump();
    d.class("c.Elem", "java.lang.Object", &[("data", OBJ)]);
    d.class("c.DList", "java.lang.Object", &[("first", OBJ), ("last", OBJ), ("size", INT)]);
    d.class("c.DNode", "java.lang.Object", &[("item", OBJ), ("next", OBJ), ("prev", OBJ)]);
    // Ids are addresses: allocate every node first, then write them with their links.
    let elems: Vec<u64> = (0..N).map(|_| elem(&mut d, 500)).collect();
    let ids: Vec<u64> = (0..N).map(|_| d.id()).collect();
    for i in 0..N {
        let next = if i + 1 < N { ids[i + 1] } else { 0 };
        let prev = if i > 0 { ids[i - 1] } else { 0 };
        let values = [("item", V::Obj(elems[i])), ("next", V::Obj(next)), ("prev", V::Obj(prev))];
        let cls = d.classes["c.DNode"];
        let fields: Vec<V> = values.iter().map(|(_, v)| *v).collect();
        d.seg.instance(ids[i], cls, &fields);
    }
    let list = d.obj("c.DList", &[("first", V::Obj(ids[0])), ("last", V::Obj(ids[N - 1])), ("size", V::Int(N as i32))]);
    d.class_with_statics("c.App", "java.lang.Object", &[], &[("LIST", V::Obj(list))]);
    let mut s = d.analyze();
    let r = report(&mut s);
    let sus = &r.leak_suspects.suspects[0];
    let st = sus.structure.as_ref().unwrap();
    assert_eq!(st.point.address, hex(list));
    assert_eq!(st.members, N as u64);
    assert!(st.chains.is_empty(), "no node dominates the next: {:?}", st.chains);
    assert_eq!((st.groups[0].class_name.as_str(), st.groups[0].objects), ("c.DNode", N as u64));
    assert_eq!(sus.held_in.as_deref(), Some("c.App.LIST"));
    assert_eq!(sus.accumulation_point_elements, Some(N as u64), "the list's size");
    let each = sus.each_holds.as_ref().unwrap();
    assert_eq!((each.class_name.as_str(), each.field.as_str()), ("c.Elem", "item"));
    // Into the first half from `first`, by `next`; into the second from `last`, by `prev`.
    let i = N / 4;
    let p = path_to_root(&mut s, ids[i]);
    assert_eq!(p.len(), 4, "{p:#?}");
    assert_eq!(p[1].object.address, hex(list));
    let run = p[2].run.as_ref().unwrap();
    assert_eq!((run.nodes, run.field.as_str()), (i as u64, "next"));
    assert_eq!(
        (p[2].object.address.as_str(), run.last.address.as_str()),
        (hex(ids[0]).as_str(), hex(ids[i - 1]).as_str())
    );
    let j = N - 6;
    let p = path_to_root(&mut s, ids[j]);
    let run = p[2].run.as_ref().unwrap();
    assert_eq!((run.nodes, run.field.as_str()), ((N - 1 - j) as u64, "prev"));
    assert_eq!(p[2].object.address, hex(ids[N - 1]));
}

/// `c.App.MAP` → a hash map (`table`, `size`) whose table has 20 buckets of one node and
/// one bucket of a 20-node chain (`next`), each node holding a value array.
#[test]
fn a_hash_bucket_chain_counts_as_entries() {
    const CHAIN: usize = 20;
    const SINGLES: usize = 20;
    let mut d = dump();
    d.class("c.Map", "java.lang.Object", &[("table", OBJ), ("size", INT)]);
    d.class("c.Node", "java.lang.Object", &[("value", OBJ), ("next", OBJ)]);
    let mut slots = vec![0u64; 32];
    let mut next = 0;
    let mut chain = Vec::new();
    for _ in 0..CHAIN {
        let v = d.prim(BYTE, 1_000, &[1; 1_000]);
        next = d.obj("c.Node", &[("value", V::Obj(v)), ("next", V::Obj(next))]);
        chain.push(next);
    }
    slots[0] = next;
    for k in 0..SINGLES {
        let v = d.prim(BYTE, 1_000, &[2; 1_000]);
        slots[k + 1] = d.obj("c.Node", &[("value", V::Obj(v)), ("next", V::Obj(0))]);
    }
    let table = d.objects("c.Node[]", &slots);
    let map = d.obj("c.Map", &[("table", V::Obj(table)), ("size", V::Int((CHAIN + SINGLES) as i32))]);
    d.class_with_statics("c.App", "java.lang.Object", &[], &[("MAP", V::Obj(map))]);
    let mut s = d.analyze();
    let r = report(&mut s);
    let sus = &r.leak_suspects.suspects[0];
    let st = sus.structure.as_ref().unwrap();
    // MAT's point: the table, with 21 nodes below it (one per bucket); ours counts all 40.
    assert_eq!(st.point.address, hex(table));
    assert_eq!(sus.accumulation_point.as_ref().map(|p| p.address.as_str()), Some(hex(table).as_str()));
    assert_eq!(sus.accumulated[0].objects, SINGLES as u64 + 1);
    assert_eq!(st.members, (CHAIN + SINGLES) as u64);
    assert_eq!(st.chains[0].nodes, CHAIN as u64);
    assert_eq!(st.chains[0].first.address, hex(chain[CHAIN - 1]));
    assert_eq!(st.chains[0].field.as_deref(), Some("next"));
    assert_eq!((st.groups[0].class_name.as_str(), st.groups[0].objects), ("c.Node", (CHAIN + SINGLES) as u64));
    assert_eq!(sus.held_in.as_deref(), Some("c.App.MAP"));
    assert_eq!(sus.accumulation_point_elements, Some((CHAIN + SINGLES) as u64));
    let each = sus.each_holds.as_ref().unwrap();
    assert_eq!((each.class_name.as_str(), each.field.as_str()), ("byte[]", "value"));
}

/// `c.App.RING` → a circular list of `N` nodes: the last node's link back to the first is
/// no chain step (the first is not below it), so the chain ends, whole.
#[test]
fn a_cycle_is_read_once() {
    const N: usize = 100;
    let mut d = dump();
    d.class("c.Elem", "java.lang.Object", &[("data", OBJ)]);
    d.class("c.Ring", "java.lang.Object", &[("item", OBJ), ("next", OBJ)]);
    let elems: Vec<u64> = (0..N).map(|_| elem(&mut d, 200)).collect();
    let ids: Vec<u64> = (0..N).map(|_| d.id()).collect();
    let cls = d.classes["c.Ring"];
    for i in 0..N {
        d.seg.instance(ids[i], cls, &[V::Obj(elems[i]), V::Obj(ids[(i + 1) % N])]);
    }
    d.class_with_statics("c.App", "java.lang.Object", &[], &[("RING", V::Obj(ids[0]))]);
    let mut s = d.analyze();
    let r = report(&mut s);
    let st = r.leak_suspects.suspects[0].structure.as_ref().unwrap();
    assert_eq!(st.members, N as u64);
    assert_eq!((st.chains[0].nodes, st.chains[0].first.address.as_str()), (N as u64, hex(ids[0]).as_str()));
    let p = path_to_root(&mut s, ids[N - 1]);
    assert_eq!(p.len(), 3);
    assert_eq!(p[1].run.as_ref().map(|r| r.nodes), Some(N as u64 - 1));
}

/// `c.App.HEAD` → 1,000,000 nodes, each holding the next (no recursion, linear time).
#[test]
fn a_million_node_chain_is_one_step() {
    const N: usize = 1_000_000;
    let mut d = dump();
    d.class("c.Link", "java.lang.Object", &[("next", OBJ), ("value", INT)]);
    let ids: Vec<u64> = (0..N).map(|_| d.id()).collect();
    let cls = d.classes["c.Link"];
    for i in 0..N {
        let next = if i + 1 < N { ids[i + 1] } else { 0 };
        d.seg.instance(ids[i], cls, &[V::Obj(next), V::Int(i as i32)]);
    }
    d.class_with_statics("c.App", "java.lang.Object", &[], &[("HEAD", V::Obj(ids[0]))]);
    let app = d.classes["c.App"];
    let mut s = d.analyze();
    let r = report(&mut s);
    let sus = &r.leak_suspects.suspects[0];
    assert_eq!(sus.object.address, hex(app));
    // MAT's walk gives up after 1,000 steps; this one stops at the class, one step.
    assert!(sus.accumulation_point.is_none());
    let st = sus.structure.as_ref().unwrap();
    assert_eq!(st.path.len(), 1);
    assert_eq!(st.members, N as u64);
    assert_eq!(st.chains[0].nodes, N as u64);
    assert_eq!(st.chains[0].field.as_deref(), Some("next"));
    // A node: a 16-byte header, an 8-byte reference and a 4-byte int, aligned.
    assert_eq!((st.groups[0].objects, st.groups[0].retained_bytes), (N as u64, align(28) * N as u64));
    assert_eq!(sus.held_in.as_deref(), Some("c.App.HEAD"));
    assert!(sus
        .headline
        .as_deref()
        .unwrap()
        .starts_with("c.App.HEAD holds 1,000,000 × Link, linked through Link.next, 64 bytes each"));
    let p = path_to_root(&mut s, ids[N - 1]);
    assert_eq!(p.len(), 3);
    assert_eq!(p[1].run.as_ref().map(|r| r.nodes), Some(N as u64 - 1));
    assert_eq!(children(&mut s, app, true).total, N as u64);
}

/// A STACK FRAME record: `id`, the method's class serial, its name, source and line.
fn frame(d: &mut Dump, id: u64, class_serial: u32, method: &str, source: &str, line: i32) {
    let (m, sig, src) = (d.name(method), d.name("()V"), d.name(source));
    let mut body = Vec::new();
    for x in [id, m, sig, src] {
        body.extend_from_slice(&x.to_be_bytes());
    }
    body.extend_from_slice(&class_serial.to_be_bytes());
    body.extend_from_slice(&line.to_be_bytes());
    d.h.record(0x04, &body);
}

/// A thread whose frames hold a buffer (`first`, `last`, `count`) of a cons list of
/// elements: the innermost frame holding it and its caller both have it as a local.
#[test]
fn a_running_frames_working_set_names_the_frame_and_the_structure() {
    const N: usize = 150;
    let mut d = dump();
    d.class("java.lang.Thread", "java.lang.Object", &[]);
    d.class("c.Elem", "java.lang.Object", &[("data", OBJ)]);
    d.class("c.Cons", "java.lang.Object", &[("head", OBJ), ("tail", OBJ)]);
    d.class("c.ListBuffer", "java.lang.Object", &[("first", OBJ), ("last", OBJ), ("count", INT)]);
    // The Worker class's LOAD CLASS serial names the frames' class.
    d.class("c.Worker", "java.lang.Object", &[]);
    let worker_serial = d.classes.len() as u32;
    let mut nodes = vec![0u64; N];
    let mut next = 0;
    for i in (0..N).rev() {
        let e = elem(&mut d, 2_000);
        next = d.obj("c.Cons", &[("head", V::Obj(e)), ("tail", V::Obj(next))]);
        nodes[i] = next;
    }
    let buffer = d.obj(
        "c.ListBuffer",
        &[("first", V::Obj(nodes[0])), ("last", V::Obj(nodes[N - 1])), ("count", V::Int(N as i32))],
    );
    let small = elem(&mut d, 100);
    let thread = d.obj("java.lang.Thread", &[]);
    // Frames, innermost first: inner (a small local), collect (the buffer), run (the buffer).
    frame(&mut d, 0xF1, worker_serial, "inner", "Worker.java", 10);
    frame(&mut d, 0xF2, worker_serial, "collect", "Worker.java", 42);
    frame(&mut d, 0xF3, worker_serial, "run", "Worker.java", 7);
    let mut trace = Vec::new();
    trace.extend_from_slice(&7u32.to_be_bytes());
    trace.extend_from_slice(&1u32.to_be_bytes());
    trace.extend_from_slice(&3u32.to_be_bytes());
    for f in [0xF1u64, 0xF2, 0xF3] {
        trace.extend_from_slice(&f.to_be_bytes());
    }
    d.h.record(0x05, &trace);
    d.seg.root_thread_object(thread, 1, 7);
    d.seg.root_java_frame(small, 1, 0);
    d.seg.root_java_frame(buffer, 1, 1);
    d.seg.root_java_frame(buffer, 1, 2);
    let mut s = d.analyze();
    let r = report(&mut s);
    let sus = &r.leak_suspects.suspects[0];
    assert_eq!(sus.object.address, hex(thread));
    let f = sus.frame.as_ref().expect("the frame holding it");
    assert_eq!(f.frame.short, "Worker.collect (Worker.java:42)");
    assert_eq!((f.frame.file.as_deref(), f.frame.line), (Some("Worker.java"), Some(42)));
    assert_eq!(f.depth, 1);
    assert_eq!((f.local.address.as_str(), f.how.as_str()), (hex(buffer).as_str(), "local"));
    assert_eq!(f.also_in.iter().map(|x| x.short.as_str()).collect::<Vec<_>>(), ["Worker.run (Worker.java:7)"]);
    let st = sus.structure.as_ref().unwrap();
    assert_eq!(st.point.address, hex(buffer));
    // The buffer's members: the list's nodes (its `last` holds the last one itself).
    assert_eq!(st.members, N as u64);
    assert_eq!(sus.accumulation_point_elements, Some(N as u64), "the buffer's count");
    let headline = sus.headline.as_deref().unwrap();
    let thread_name = format!("thread {}", hex(thread));
    assert!(
        headline.starts_with(&format!(
            "{thread_name}'s stack, in Worker.collect (Worker.java:42) and 1 more frame: a ListBuffer holding 150 × Elem, linked through Cons.tail"
        )),
        "{headline}"
    );
    let t = r.oom_triage.as_ref().unwrap();
    assert_eq!(t.verdict, heapscope::model::LeakVerdict::WorkingSet);
    assert_eq!(t.accumulation_points, 1);
    assert!(t.verdict_text.contains("nothing leaked"), "{}", t.verdict_text);
    assert!(t.verdict_text.contains(headline), "the triage says the answer: {}", t.verdict_text);
}
