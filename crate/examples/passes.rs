use heapscope::records::Cursor;
use heapscope::source::{auto_decompress, FileSource};
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = auto_decompress(Box::new(FileSource::open(path.as_ref()).unwrap())).unwrap();
    let mut c = Cursor::new(src);
    let t = Instant::now();
    let mut tick = |_a: u64, _b: u64| Ok(());
    let index = heapscope::index::pass1(&mut c, &mut tick).unwrap();
    eprintln!("pass1 {:?} objects {} classes {} roots {} layout {:?} end {:?}", t.elapsed(), index.ids.len(), index.classes.classes.len(), index.roots.len(), index.layout, index.end);
    let t = Instant::now();
    let heap = heapscope::graph::pass2(&mut c, index, &mut tick).unwrap();
    eprintln!("pass2 {:?} edges {} graph bytes {} warnings {:?}", t.elapsed(), heap.refs.edge_count(), heap.refs.memory_bytes(), heap.warnings);
    // in-degree stats
    let n = heap.object_count();
    let mut indeg = vec![0u8; n];
    for v in 0..n as u32 { heap.for_each_reference(v, |t| { let d = &mut indeg[t as usize]; *d = d.saturating_add(1); }); }
    let mut hist = [0u64; 4];
    for &d in &indeg { hist[(d as usize).min(3)] += 1; }
    eprintln!("indegree 0/1/2/3+: {:?}", hist);
}
