//! The graphs the dominator search runs on give the same edges whether scanned whole
//! (`Graph::for_each_edge`, which may read the reference lists sequentially) or node by
//! node (`Graph::for_each_successor`), in the same order, on every corpus dump: the
//! search relies on that (see `heapscope::dominators::Graph`).

mod support;

use heapscope::analysis::Options;
use heapscope::dominators::Graph;

type EdgeList = Vec<(u32, u32)>;

fn edges_both_ways<G: Graph>(g: &G) -> (EdgeList, EdgeList) {
    let mut whole = Vec::new();
    g.for_each_edge(|v, t| whole.push((v, t)));
    let mut by_node = Vec::new();
    for v in 0..g.node_count() as u32 {
        g.for_each_successor(v, |t| by_node.push((v, t)));
    }
    (whole, by_node)
}

#[test]
#[cfg_attr(heapscope_no_corpus, ignore = "needs the shared corpus (../shared/corpus), which is absent")]
fn whole_scan_matches_per_node_successors_on_every_corpus_dump() {
    let Some(corpus) = support::corpus_dir() else { return };
    let dumps = support::corpus_dumps(&corpus);
    let mut special = 0;
    for dump in &dumps {
        let a = support::core(support::open_dump(dump), &Options::default()).unwrap();
        let (whole, by_node) = edges_both_ways(&a.dominator_graph());
        assert!(whole == by_node, "{}: MAT's graph", dump.display());
        let (whole, by_node) = edges_both_ways(&a.strength_graph());
        assert!(whole == by_node, "{}: the strength-aware graph", dump.display());
        special += usize::from((0..a.object_count() as u32).any(|v| a.heap.has_special_edges(v)));
    }
    // Some dumps have weak/soft references or owner rules: the scan's other branch.
    assert!(special > 0, "no dump with special edges");
}
