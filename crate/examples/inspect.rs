use heapscope::analysis::{analyze, NoProgress, Options};
use heapscope::source::{auto_decompress, FileSource};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let src = auto_decompress(Box::new(FileSource::open(args[1].as_ref()).unwrap())).unwrap();
    let mut a = analyze(src, &Options::default(), &mut NoProgress).unwrap();
    let obj = heapscope::session::find(&a, heapscope::session::parse_address(&args[2]).unwrap()).expect("object");
    let t = std::time::Instant::now();
    let d = heapscope::session::object_details(&mut a, obj).unwrap();
    println!("{}", serde_json::to_string_pretty(&d).unwrap());
    eprintln!("details {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let p = heapscope::session::path_to_root(&mut a, obj).unwrap();
    for s in &p { println!("{} {} {:?} via {:?}", s.object.address, s.object.class_name, s.gc_root, s.via); }
    eprintln!("path {:?}", t.elapsed());
}
