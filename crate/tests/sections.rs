//! The report's sections beyond MAT's pages, on dumps built here, against their
//! construction and brute-force definitions: a single suspect's root path (a shortest
//! reference path from a GC root, found by a breadth-first search over the references as
//! built; the suspect a top-level dominator by the definition of dominance), its
//! dominator subtree (each listed object's parent its immediate dominator, its retained
//! size the shallow sizes of what it dominates, by the definition), and `--detail`'s caps
//! on both, as the seed's table gives them.

mod support;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use heapscope::model::{Detail, DominatorSubtree, Report, SuspectKind};
use support::dump::{hex, leak_dump, Dump, LeakDump, NODES, OBJ};
use support::hprof_builder::{Hprof, Value as V};

/// The references as built, by object.
struct Graph {
    out: BTreeMap<u64, Vec<(u64, String)>>,
    roots: Vec<u64>,
}

impl Graph {
    fn new(edges: &[(u64, u64, String)], roots: &[u64]) -> Graph {
        let mut out: BTreeMap<u64, Vec<(u64, String)>> = BTreeMap::new();
        for (from, to, how) in edges {
            out.entry(*from).or_default().push((*to, how.clone()));
        }
        Graph { out, roots: roots.to_vec() }
    }

    /// Objects reachable from the roots without passing `without`.
    fn reachable(&self, without: Option<u64>) -> BTreeSet<u64> {
        let mut seen = BTreeSet::new();
        let mut queue: VecDeque<u64> = self.roots.iter().copied().filter(|&r| Some(r) != without).collect();
        seen.extend(queue.iter().copied());
        while let Some(v) = queue.pop_front() {
            for (w, _) in self.out.get(&v).into_iter().flatten() {
                if Some(*w) != without && seen.insert(*w) {
                    queue.push_back(*w);
                }
            }
        }
        seen
    }

    /// By the definition: d dominates v when every path from a root to v passes d.
    fn strict_dominators(&self, v: u64) -> BTreeSet<u64> {
        self.reachable(None).into_iter().filter(|&d| d != v && !self.reachable(Some(d)).contains(&v)).collect()
    }

    /// The strict dominator of `v` that all its other strict dominators dominate.
    fn idom(&self, v: u64) -> Option<u64> {
        let doms = self.strict_dominators(v);
        doms.iter().copied().find(|&d| doms.iter().all(|&e| e == d || self.strict_dominators(d).contains(&e)))
    }

    /// The objects `v` dominates, itself included.
    fn dominated(&self, v: u64) -> BTreeSet<u64> {
        let all = self.reachable(None);
        let gone = self.reachable(Some(v));
        all.difference(&gone).copied().collect()
    }

    /// Length (in objects) of a shortest reference path from a root to `v`.
    fn shortest_path_len(&self, v: u64) -> usize {
        let mut dist: BTreeMap<u64, usize> = self.roots.iter().map(|&r| (r, 1)).collect();
        let mut queue: VecDeque<u64> = self.roots.iter().copied().collect();
        while let Some(u) = queue.pop_front() {
            for (w, _) in self.out.get(&u).into_iter().flatten() {
                if !dist.contains_key(w) {
                    dist.insert(*w, dist[&u] + 1);
                    queue.push_back(*w);
                }
            }
        }
        dist[&v]
    }

    fn edge_names(&self, from: u64, to: u64) -> Vec<String> {
        self.out.get(&from).into_iter().flatten().filter(|(w, _)| *w == to).map(|(_, n)| n.clone()).collect()
    }
}

fn report_at(dump: Dump, detail: Detail) -> Report {
    let mut s = dump.analyze();
    s.set_detail(detail);
    s.report().expect("report").clone()
}

fn built(fillers: usize) -> (LeakDump, Graph) {
    let l = leak_dump(fillers);
    let g = Graph::new(&l.edges, &l.roots);
    (l, g)
}

fn address(v: u64) -> String {
    hex(v)
}

/// The parent of each listed node: the nearest node before it one level up.
fn parents(t: &DominatorSubtree) -> Vec<Option<String>> {
    let mut stack: Vec<String> = Vec::new();
    t.nodes
        .iter()
        .map(|n| {
            stack.truncate(n.depth as usize);
            let p = stack.last().cloned();
            stack.push(n.object.address.clone());
            p
        })
        .collect()
}

#[test]
fn single_suspect_root_path_is_a_shortest_path_from_a_gc_root() {
    let (l, g) = built(10);
    let holder = l.holder;
    let r = report_at(l.dump, Detail::DEFAULT);
    let s = &r.leak_suspects.suspects;
    assert_eq!(s.len(), 1, "{s:#?}");
    let s = &s[0];
    assert_eq!(s.kind, SuspectKind::SingleObject);
    assert_eq!(s.object.address, address(holder));
    // The suspect is a top-level dominator: no object dominates it (so its dominator chain
    // up is itself alone, and the path to a root has to be a reference path).
    assert_eq!(g.strict_dominators(holder), BTreeSet::new());
    let p = s.root_path.as_ref().expect("a single suspect has a root path");
    assert_eq!(p.omitted, 0);
    assert_eq!(p.steps.len(), g.shortest_path_len(holder));
    // Holder ← h of Anchor (a JNI global), the shorter of the two ways.
    let addresses: Vec<&str> = p.steps.iter().map(|st| st.object.address.as_str()).collect();
    assert_eq!(addresses, [address(holder), address(l.anchor)]);
    assert!(g.roots.contains(&l.anchor));
    for w in p.steps.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let from = u64::from_str_radix(b.object.address.trim_start_matches("0x"), 16).unwrap();
        let to = u64::from_str_radix(a.object.address.trim_start_matches("0x"), 16).unwrap();
        assert_eq!(a.held_by, g.edge_names(from, to));
    }
    assert_eq!(p.steps[0].object.class_name, "leak.Holder");
    assert_eq!(p.steps[1].object.class_name, "leak.Anchor");
    assert!(p.steps[1].held_by.is_empty());
    assert_eq!(p.root_types, ["JNI Global"]);
    assert!(p.why_alive.contains("leak.Holder") && p.why_alive.contains("JNI Global"), "{}", p.why_alive);
}

/// Two chains of 40 and 45 objects from two roots to one holder of a big array (the
/// holder a top-level dominator 41 objects from its nearest root), the chains' objects of
/// `classes` in turn: (dump, graph, holder, roots).
fn chained(classes: &[&str]) -> (Vec<u8>, Graph, u64, Vec<u64>) {
    let mut d = Dump::new(Hprof::new(8));
    d.primitive_array_class(support::dump::BYTE);
    for c in classes {
        d.class(c, "java.lang.Object", &[("next", OBJ)]);
    }
    d.class("c.Holder", "java.lang.Object", &[("data", OBJ)]);
    let big = d.prim(support::dump::BYTE, 50_000, &[7; 50_000]);
    let holder = d.obj("c.Holder", &[("data", V::Obj(big))]);
    let mut edges = vec![(holder, big, "data".to_string())];
    let mut roots = Vec::new();
    for len in [40, 45] {
        let mut next = holder;
        for k in 0..len {
            let o = d.obj(classes[k % classes.len()], &[("next", V::Obj(next))]);
            edges.push((o, next, "next".to_string()));
            next = o;
        }
        roots.push(next);
        d.root(next);
    }
    let g = Graph::new(&edges, &roots);
    (d.into_bytes(), g, holder, roots)
}

#[test]
fn long_root_paths_keep_both_ends_within_the_cap() {
    // Links of two classes in turn: no linked structure of one class to read as one.
    let (bytes, g, holder, roots) = chained(&["c.LinkA", "c.LinkB"]);
    let full = g.shortest_path_len(holder);
    assert_eq!(full, 41);
    for (detail, cap) in [(Detail::MINIMAL, 10), (Detail::DEFAULT, 30), (Detail::MAX, 200)] {
        let mut s = support::session_of(bytes.clone());
        s.set_detail(detail);
        let r = s.report().unwrap();
        let sus = &r.leak_suspects.suspects[0];
        assert_eq!(sus.object.address, hex(holder));
        let p = sus.root_path.as_ref().unwrap();
        let listed = full.min(cap);
        assert_eq!(p.steps.len(), listed, "cap {cap}");
        assert_eq!(p.omitted as usize, full - listed, "cap {cap}");
        assert_eq!(p.steps[0].object.address, hex(holder));
        assert!(roots.iter().any(|&r| hex(r) == p.steps.last().unwrap().object.address));
        assert!(p.steps.iter().all(|st| st.run.is_none()));
        assert!(p
            .steps
            .iter()
            .all(|st| st.object.class_name == "c.Holder" || st.held_by == ["next"] || st.held_by.is_empty()));
    }
}

#[test]
fn a_linked_structure_on_a_root_path_is_one_step() {
    // Links of one class: the 39 between the holder and the root are one step.
    let (bytes, g, holder, roots) = chained(&["c.Link"]);
    let full = g.shortest_path_len(holder);
    assert_eq!(full, 41);
    for detail in [Detail::MINIMAL, Detail::DEFAULT, Detail::MAX] {
        let mut s = support::session_of(bytes.clone());
        s.set_detail(detail);
        let r = s.report().unwrap();
        let sus = &r.leak_suspects.suspects[0];
        assert_eq!(sus.object.address, hex(holder));
        let p = sus.root_path.as_ref().unwrap();
        // The holder, the run (never the path's ends: the root is a link too), the root.
        assert_eq!(p.steps.len(), 3, "{detail:?}");
        assert_eq!(p.omitted, 0);
        assert_eq!(p.steps[0].object.address, hex(holder));
        let run = p.steps[1].run.as_ref().expect("the links as one step");
        assert_eq!((run.nodes as usize, run.field.as_str()), (full - 2, "next"));
        assert_eq!(p.steps[0].held_by, ["next"]);
        assert_eq!(p.steps[1].held_by, ["next"]);
        assert!(roots.iter().any(|&r| hex(r) == p.steps.last().unwrap().object.address));
        assert!(p.why_alive.contains("39 × c.Link linked by next"), "{}", p.why_alive);
    }
}

#[test]
fn dominator_subtree_is_the_dominator_tree_by_its_definition() {
    let (l, g) = built(10);
    let (holder, array, nodes, bytes) = (l.holder, l.array, l.nodes.clone(), l.bytes.clone());
    let r = report_at(l.dump, Detail::MAX);
    let s = &r.leak_suspects.suspects[0];
    let t = s.dominator_subtree.as_ref().expect("a single suspect has a subtree");
    let top = s
        .accumulation_point
        .as_ref()
        .map_or(holder, |ap| u64::from_str_radix(ap.address.trim_start_matches("0x"), 16).unwrap());
    assert!(top == holder || top == array, "{top:x}");
    assert_eq!(t.nodes[0].object.address, hex(top));
    assert_eq!(t.nodes[0].depth, 0);
    // At max detail everything the subtree's root dominates is listed, once.
    assert!(!t.truncated);
    let listed: BTreeSet<String> = t.nodes.iter().map(|n| n.object.address.clone()).collect();
    assert_eq!(listed.len(), t.nodes.len());
    let want: BTreeSet<String> = g.dominated(top).into_iter().map(hex).collect();
    assert_eq!(listed, want);
    assert!(want.contains(&hex(nodes[7])) && want.contains(&hex(bytes[29])));
    // Each node's parent is its immediate dominator; its retained size is the shallow
    // sizes of what it dominates.
    let shallow: BTreeMap<String, u64> =
        t.nodes.iter().map(|n| (n.object.address.clone(), n.object.shallow_bytes)).collect();
    for (n, parent) in t.nodes.iter().zip(parents(t)) {
        let v = u64::from_str_radix(n.object.address.trim_start_matches("0x"), 16).unwrap();
        if let Some(p) = parent {
            assert_eq!(Some(p), g.idom(v).map(hex), "{}", n.object.address);
        }
        let retained: u64 = g.dominated(v).into_iter().map(|u| shallow[&hex(u)]).sum();
        assert_eq!(n.object.retained_bytes, retained, "{}", n.object.address);
        assert_eq!(n.omitted_children, 0);
    }
    // Children largest first: a Node retains its 2,000-byte array.
    for b in &bytes {
        assert!(shallow[&hex(*b)] >= 2_000);
    }

    // --detail minimal: at most 10 children per object; what is left out is counted.
    let (l, _) = built(10);
    let r = report_at(l.dump, Detail::MINIMAL);
    let s = &r.leak_suspects.suspects[0];
    let t = s.dominator_subtree.as_ref().unwrap();
    assert!(t.truncated);
    let full = report_at(leak_dump(10).dump, Detail::MAX);
    let full = full.leak_suspects.suspects[0].dominator_subtree.clone().unwrap();
    let retained_max: BTreeMap<String, u64> =
        full.nodes.iter().map(|n| (n.object.address.clone(), n.object.retained_bytes)).collect();
    let arr = t.nodes.iter().find(|n| n.object.address == hex(array)).expect("the array is listed");
    let listed_children: Vec<&str> = t
        .nodes
        .iter()
        .zip(parents(t))
        .filter(|(_, p)| p.as_deref() == Some(hex(array).as_str()))
        .map(|(n, _)| n.object.address.as_str())
        .collect();
    assert_eq!(listed_children.len(), Detail::MINIMAL.children);
    assert_eq!(arr.omitted_children as usize, NODES - Detail::MINIMAL.children);
    let omitted_retained: u64 = nodes
        .iter()
        .map(|&n| hex(n))
        .filter(|a| !listed_children.contains(&a.as_str()))
        .map(|a| retained_max[&a])
        .sum();
    assert_eq!(arr.omitted_retained_bytes, omitted_retained);
}
