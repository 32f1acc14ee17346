//! Tests of the browser bindings (`heapscope::wasm`), run in headless Chromium inside a
//! dedicated worker, where `FileReaderSync` exists:
//!
//!     scripts/test-wasm.sh   (cargo test --manifest-path tests/wasm/Cargo.toml --target wasm32-unknown-unknown)
//!
//! (`.cargo/config.toml` makes `wasm-bindgen-test-runner` the runner; the script
//! points it at Debian's chromedriver.) Natively this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use heapscope::analysis::{self, Options};
use heapscope::report::{self, SourceInfo};
use heapscope::source::{auto_decompress, ByteSource, MemorySource};
use heapscope::wasm::{
    memory_bytes, memory_limit, wasm_peak_estimate, BlobSource, Session, DEFAULT_CHUNK_SIZE, FETCHED, MEMORY_MARGIN,
    SEEK_FETCH, WASM_FIXED_BYTES, WASM_MAX_MEMORY, WASM_PEAK_BYTES_PER_OBJECT,
};
use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;
use web_sys::Blob;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

/// Deterministic bytes that differ at every offset modulo 251 and across 64 KiB blocks.
fn pattern(n: usize) -> Vec<u8> {
    let mut x: u32 = 0x1234_5678;
    (0..n)
        .map(|i| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8 ^ (i % 251) as u8
        })
        .collect()
}

fn blob_of(parts: &[&[u8]]) -> Blob {
    let seq = Array::new();
    for p in parts {
        seq.push(&Uint8Array::from(*p));
    }
    Blob::new_with_u8_array_sequence(&seq).expect("Blob")
}

fn read_all(src: &mut dyn ByteSource, buf_size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; buf_size];
    loop {
        let n = src.read(&mut buf).expect("read");
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// A gzip member (RFC 1952) around `data`, as `gzip` writes it (the reader checks the
/// CRC-32 and size in its trailer).
fn gzip_member(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 9));
    out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// A small but complete heap: java.lang.Object, Class, String, byte[], Object[], a class
/// `demo.Holder` whose static `items` holds an Object[] of 30 `demo.Item`s, each with a
/// String `name`. Ids are `id_size` bytes.
fn tiny_hprof(id_size: u32) -> Vec<u8> {
    let id = |x: u64| -> Vec<u8> {
        if id_size == 8 {
            x.to_be_bytes().to_vec()
        } else {
            (x as u32).to_be_bytes().to_vec()
        }
    };
    let mut v = b"JAVA PROFILE 1.0.2\0".to_vec();
    v.extend_from_slice(&id_size.to_be_bytes());
    v.extend_from_slice(&1_700_000_000_123u64.to_be_bytes());
    let mut records: Vec<(u8, Vec<u8>)> = Vec::new();
    let mut strings: Vec<&str> = Vec::new();
    let mut string = |records: &mut Vec<(u8, Vec<u8>)>, text: &'static str| -> u64 {
        if let Some(i) = strings.iter().position(|s| *s == text) {
            return 0x10_000 + i as u64;
        }
        strings.push(text);
        let sid = 0x10_000 + strings.len() as u64 - 1;
        records.push((0x01, [id(sid), text.as_bytes().to_vec()].concat()));
        sid
    };
    let mut seg: Vec<u8> = Vec::new();
    // (class id, name, super, statics (name, type, value), instance fields (name, type))
    let classes: [(u64, &str, u64, Vec<(&'static str, u8, u64)>, Vec<(&'static str, u8)>); 7] = [
        (0x100, "java/lang/Object", 0, vec![], vec![]),
        (0x110, "java/lang/Class", 0x100, vec![], vec![]),
        (0x120, "java/lang/String", 0x100, vec![], vec![("value", 2), ("coder", 8)]),
        (0x130, "[B", 0x100, vec![], vec![]),
        (0x140, "[Ljava/lang/Object;", 0x100, vec![], vec![]),
        (0x150, "demo/Holder", 0x100, vec![("items", 2, 0x3000), ("count", 10, 30)], vec![]),
        (0x160, "demo/Item", 0x100, vec![], vec![("name", 2), ("size", 10)]),
    ];
    for (serial, (cid, name, sup, statics, fields)) in classes.iter().enumerate() {
        let nid = string(&mut records, name);
        records.push((
            0x02,
            [(serial as u32 + 1).to_be_bytes().to_vec(), id(*cid), 0u32.to_be_bytes().to_vec(), id(nid)].concat(),
        ));
        seg.push(0x20);
        seg.extend(id(*cid));
        seg.extend(0u32.to_be_bytes());
        seg.extend(id(*sup));
        for _ in 0..5 {
            seg.extend(id(0)); // loader, signers, protection domain, reserved ×2
        }
        seg.extend(0u32.to_be_bytes()); // instance size
        seg.extend(0u16.to_be_bytes()); // constant pool
        seg.extend((statics.len() as u16).to_be_bytes());
        for (sname, ty, value) in statics {
            let snid = string(&mut records, sname);
            seg.extend(id(snid));
            seg.push(*ty);
            if *ty == 2 {
                seg.extend(id(*value));
            } else {
                seg.extend((*value as u32).to_be_bytes());
            }
        }
        seg.extend((fields.len() as u16).to_be_bytes());
        for (fname, ty) in fields {
            let fnid = string(&mut records, fname);
            seg.extend(id(fnid));
            seg.push(*ty);
        }
        seg.push(0x05); // ROOT STICKY CLASS
        seg.extend(id(*cid));
    }
    let mut items = Vec::new();
    for i in 0..30u64 {
        let item = 0x4000 + i * 0x40;
        let name = 0x8000 + i * 0x40;
        let chars = 0xC000 + i * 0x40;
        items.push(item);
        // demo.Item: name (String), size (int)
        seg.push(0x21);
        seg.extend(id(item));
        seg.extend(0u32.to_be_bytes());
        seg.extend(id(0x160));
        let body = [id(name), (i as u32 * 10).to_be_bytes().to_vec()].concat();
        seg.extend((body.len() as u32).to_be_bytes());
        seg.extend(body);
        // java.lang.String: value (byte[]), coder (LATIN1)
        seg.push(0x21);
        seg.extend(id(name));
        seg.extend(0u32.to_be_bytes());
        seg.extend(id(0x120));
        let body = [id(chars), vec![0u8]].concat();
        seg.extend((body.len() as u32).to_be_bytes());
        seg.extend(body);
        let text = format!("item number {i:02}");
        seg.push(0x23);
        seg.extend(id(chars));
        seg.extend(0u32.to_be_bytes());
        seg.extend((text.len() as u32).to_be_bytes());
        seg.push(8);
        seg.extend(text.as_bytes());
    }
    seg.push(0x22);
    seg.extend(id(0x3000));
    seg.extend(0u32.to_be_bytes());
    seg.extend((items.len() as u32).to_be_bytes());
    seg.extend(id(0x140));
    for it in &items {
        seg.extend(id(*it));
    }
    records.push((0x1C, seg));
    records.push((0x2C, Vec::new()));
    for (tag, body) in records {
        v.push(tag);
        v.extend_from_slice(&0u32.to_be_bytes());
        v.extend_from_slice(&(body.len() as u32).to_be_bytes());
        v.extend_from_slice(&body);
    }
    v
}

fn js_field(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).expect("property")
}

#[wasm_bindgen_test]
fn blob_source_reads_small_slices_after_a_seek_and_whole_chunks_when_sequential() {
    const MIB: usize = 1 << 20;
    let data = pattern(40 * MIB);
    let mut src = BlobSource::new(blob_of(&[&data]), 16 * MIB).unwrap();
    let fetched = || FETCHED.load(std::sync::atomic::Ordering::Relaxed) as usize;
    let before = fetched();
    let mut got = Vec::new();
    let mut out = [0u8; 100];
    // 100 bytes at 0 (a whole chunk: a pass starts there), at 20 MiB and at 30 MiB (far
    // from where the last slice ended: a slice of SEEK_FETCH each).
    for at in [0, 20 * MIB, 30 * MIB] {
        src.skip((at - src.input_pos() as usize) as u64).unwrap();
        assert_eq!(src.read(&mut out).unwrap(), 100);
        got.push((at, out.to_vec()));
    }
    assert_eq!(fetched() - before, 16 * MIB + 2 * SEEK_FETCH);
    // The rest read sequentially: each byte once more, in growing slices.
    let rest = read_all(&mut src, 4096);
    assert!(rest == data[30 * MIB + 100..], "the rest differs");
    assert_eq!(fetched() - before, 16 * MIB + SEEK_FETCH + (10 * MIB));
    for (at, bytes) in got {
        assert!(bytes == data[at..at + 100], "bytes at {at} differ");
    }
}

#[wasm_bindgen_test]
fn blob_source_gives_identical_bytes_for_odd_chunk_and_buffer_sizes() {
    let data = pattern(200_003);
    // The Blob is made of uneven parts, so its own internal boundaries fall anywhere too.
    let blob = blob_of(&[&data[..1], &data[1..65_537], &data[65_537..]]);
    for chunk in [4093, 65_536, 65_537, 1 << 20] {
        for buf in [1, 13, 4096, 65_537, 300_000] {
            let mut src = BlobSource::new(blob.clone(), chunk).unwrap();
            assert_eq!(src.len(), Some(data.len() as u64));
            let out = read_all(&mut src, buf);
            assert!(out == data, "chunk {chunk}, buffer {buf}: bytes differ");
            assert_eq!(src.input_pos(), data.len() as u64);
        }
    }
    // Tiny chunks (every FileReaderSync call returns a few bytes) on a smaller blob.
    let small = pattern(5_003);
    let blob = blob_of(&[&small[..100], &small[100..]]);
    for (chunk, buf) in [(1, 7), (7, 1), (7, 13), (7, 4096), (13, 7)] {
        let mut src = BlobSource::new(blob.clone(), chunk).unwrap();
        assert!(read_all(&mut src, buf) == small, "chunk {chunk}, buffer {buf}: bytes differ");
    }
}

/// With the page's read-ahead (a global `heapscopeReadAhead(start, end)`; here a stand-in
/// serving the bytes from a JS copy and refusing every third call, which the source then
/// reads itself), sequential reads into big buffers, with a long skip, get the exact bytes,
/// each byte fetched once, and the source holds no chunk buffer of its own; small reads
/// still get them.
#[wasm_bindgen_test]
fn blob_source_with_read_ahead_reads_into_the_callers_buffer_without_a_chunk_buffer() {
    use heapscope::wasm::heap_stats::allocated;
    const MIB: usize = 1 << 20;
    let data = pattern(40 * MIB + 12_345);
    let global = js_sys::global();
    Reflect::set(&global, &"__readAheadBytes".into(), &Uint8Array::from(&data[..])).unwrap();
    Reflect::set(&global, &"__readAheadCalls".into(), &JsValue::from_f64(0.0)).unwrap();
    let serve = js_sys::Function::new_with_args(
        "start, end",
        "const n = ++globalThis.__readAheadCalls; return n % 3 === 0 ? undefined : globalThis.__readAheadBytes.slice(start, end);",
    );
    Reflect::set(&global, &"heapscopeReadAhead".into(), &serve).unwrap();
    let blob = blob_of(&[&data[..5 * MIB + 7], &data[5 * MIB + 7..]]);
    let fetched = || FETCHED.load(std::sync::atomic::Ordering::Relaxed) as usize;
    for size in [4 * MIB, 4 * MIB - 4097, 100_000, 20 * MIB] {
        let mut out = vec![0u8; size];
        let mut src = BlobSource::new(blob.clone(), 16 * MIB).unwrap();
        let (held, before) = (allocated(), fetched());
        let mut at = 0;
        // Reads of the caller's whole buffer and of part of it (a parser's window keeps
        // the tail of a record it has not finished); both at least 64 KiB, the smallest
        // read that skips the chunk buffer.
        let mut skipped = 0;
        for k in 0.. {
            if k == 3 {
                // A long skip (a large array a pass does not need): slices after it grow
                // again from a small one.
                skipped = src.skip(3 * MIB as u64).unwrap() as usize;
                at += skipped;
            }
            let want = if k % 2 == 0 { size } else { size - size / 3 };
            let n = src.read(&mut out[..want]).unwrap();
            if n == 0 {
                break;
            }
            assert!(out[..n] == data[at..at + n], "buffer {size}: bytes {at}..{} differ", at + n);
            at += n;
        }
        assert_eq!(at, data.len(), "buffer {size}: the whole blob");
        assert_eq!(
            fetched() - before,
            data.len() - skipped,
            "buffer {size}: each byte fetched once, but those skipped"
        );
        assert!(
            allocated() < held + MIB,
            "buffer {size}: the source holds {} bytes more after reading",
            allocated() - held
        );
    }
    let calls = Reflect::get(&global, &"__readAheadCalls".into()).unwrap().as_f64().unwrap();
    // Small reads go through the chunk buffer (and the read-ahead) as before.
    let mut src = BlobSource::new(blob, 16 * MIB).unwrap();
    let small = read_all(&mut src, 1000);
    for key in ["heapscopeReadAhead", "__readAheadBytes", "__readAheadCalls"] {
        Reflect::delete_property(&global, &key.into()).unwrap();
    }
    assert!(calls >= 20.0, "the read-ahead served the big reads ({calls} calls)");
    assert!(small == data, "small reads: bytes differ");
}

#[wasm_bindgen_test]
fn blob_source_read_at_skip_and_rewind_seek() {
    let data = pattern(100_000);
    let blob = blob_of(&[&data]);
    let mut src = BlobSource::new(blob, 4096).unwrap();

    // read_at: inside one chunk, across chunk boundaries, at the end, past the end.
    for (offset, len) in
        [(0u64, 10usize), (4090, 20), (12_345, 50_000), (99_990, 10), (99_995, 100), (100_000, 5), (250_000, 5)]
    {
        let mut buf = vec![0u8; len];
        let n = src.read_at(offset, &mut buf).unwrap();
        let start = (offset as usize).min(data.len());
        let expect = &data[start..(start + len).min(data.len())];
        assert_eq!(n, expect.len(), "read_at({offset}, {len})");
        assert!(&buf[..n] == expect, "read_at({offset}, {len}) bytes");
    }

    // read_at leaves the sequential position alone.
    let mut a = [0u8; 100];
    assert_eq!(src.read(&mut a).unwrap(), 100);
    let mut far = [0u8; 8];
    src.read_at(90_000, &mut far).unwrap();
    assert!(far[..] == data[90_000..90_008]);
    let mut b = [0u8; 100];
    assert_eq!(src.read(&mut b).unwrap(), 100);
    assert!(b[..] == data[100..200]);
    assert_eq!(src.input_pos(), 200);

    // skip is a seek: within the chunk, past it, and clamped at the end.
    assert_eq!(src.skip(50).unwrap(), 50);
    let mut c = [0u8; 10];
    src.read(&mut c).unwrap();
    assert!(c[..] == data[250..260]);
    assert_eq!(src.skip(70_000).unwrap(), 70_000);
    let mut d = [0u8; 3000];
    let n = src.read(&mut d).unwrap();
    assert!(n > 0 && d[..n] == data[70_260..70_260 + n]);
    let pos = src.input_pos();
    assert_eq!(src.skip(1 << 40).unwrap(), data.len() as u64 - pos);
    assert_eq!(src.read(&mut d).unwrap(), 0);

    // rewind starts again from 0.
    src.rewind().unwrap();
    assert!(read_all(&mut src, 777) == data);
}

#[wasm_bindgen_test]
fn gzip_blob_decodes_through_auto_decompress() {
    let data = pattern(300_000);
    // Two members back to back, as the JDK's -gz option writes them.
    let gz = [gzip_member(&data[..123_456]), gzip_member(&data[123_456..])].concat();
    for chunk in [1000, 65_536, 16 << 20] {
        let blob = blob_of(&[&gz]);
        let src = BlobSource::new(blob, chunk).unwrap();
        let mut dec = auto_decompress(Box::new(src)).unwrap();
        assert_eq!(dec.len(), None);
        assert_eq!(dec.input_len(), Some(gz.len() as u64));
        assert!(read_all(dec.as_mut(), 10_000) == data, "chunk {chunk}");
        assert_eq!(dec.input_pos(), gz.len() as u64);
        // read_at on gzip decodes from the start (no index into the stream).
        let mut buf = [0u8; 16];
        assert_eq!(dec.read_at(200_000, &mut buf).unwrap(), 16);
        assert!(buf[..] == data[200_000..200_016]);
    }
    // A plain blob is passed through untouched.
    let plain = auto_decompress(Box::new(BlobSource::new(blob_of(&[&data]), 4096).unwrap())).unwrap();
    assert_eq!(plain.len(), Some(data.len() as u64));
}

/// The report the core itself makes of `bytes` (what the CLI would print), for comparison.
fn native_report_json(bytes: &[u8], file_name: &str, file_bytes: u64, gzip: bool) -> String {
    let src = auto_decompress(Box::new(MemorySource::new(bytes.to_vec()))).unwrap();
    let info = SourceInfo { file_name: Some(file_name.to_string()), file_bytes, gzip };
    let mut session =
        heapscope::session::Session::open(src, &Options::default(), &mut analysis::NoProgress, info).unwrap();
    report::to_json(session.report().unwrap())
}

fn file_of(bytes: &[u8], name: &str) -> Blob {
    let seq = Array::new();
    seq.push(&Uint8Array::from(bytes));
    web_sys::File::new_with_u8_array_sequence(&seq, name).expect("File").into()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[wasm_bindgen_test]
fn session_open_gives_the_cli_report_and_answers_queries() {
    let hprof = tiny_hprof(8);
    let gz = gzip_member(&hprof);
    for (bytes, name, gzip) in [(&hprof, "tiny.hprof", false), (&gz, "tiny.hprof.gz", true)] {
        let calls: Rc<RefCell<Vec<JsValue>>> = Rc::default();
        let sink = calls.clone();
        let cb = Closure::<dyn FnMut(JsValue)>::new(move |info: JsValue| sink.borrow_mut().push(info));
        let options = js_sys::Object::new();
        Reflect::set(&options, &"chunkSize".into(), &JsValue::from_f64(1000.0)).unwrap();
        let mut session = Session::open(
            file_of(bytes, name),
            options.into(),
            Some(cb.as_ref().unchecked_ref::<js_sys::Function>().clone()),
        )
        .unwrap_or_else(|e| panic!("open failed: {:?}", js_field(&e, "text")));
        assert!(session.has_dump());

        // The report: byte for byte what the core (and so `heapscope analyze --format json`) writes.
        let report_json = session.report_json();
        assert!(
            report_json == native_report_json(bytes, name, bytes.len() as u64, gzip),
            "{name}: report differs from the core's"
        );
        let report = json(&report_json);
        assert_eq!(report["source"]["file_name"], name);
        assert_eq!(report["source"]["gzip"], gzip);
        assert_eq!(report["source"]["hprof_bytes"], hprof.len() as u64);
        assert_eq!(report["overview"]["classes"], 7);
        // 7 class objects + 30 items + 30 strings + 30 byte[] + 1 Object[].
        assert_eq!(report["overview"]["objects"], 98);
        assert!(session.markdown().starts_with("# Heap dump analysis: tiny.hprof"));

        // Progress: the core's phases, input bytes against the file's size.
        let calls = calls.borrow();
        let phases: Vec<String> = calls.iter().map(|c| js_field(c, "phase").as_string().unwrap()).collect();
        assert!(phases.iter().any(|p| p.starts_with("pass 1")), "{phases:?}");
        assert!(phases.iter().any(|p| p.starts_with("pass 2")), "{phases:?}");
        let last = calls.last().unwrap();
        assert_eq!(js_field(last, "bytesTotal").as_f64(), Some(bytes.len() as f64));
        assert!(js_field(last, "objects").as_f64().is_some());

        // The dominator tree, a page at a time: the Holder class object retains everything.
        let top = ask(&mut session, r#"{"query":"children","limit":3}"#).unwrap();
        assert_eq!(top["parent"], serde_json::Value::Null);
        assert_eq!(top["nodes"].as_array().unwrap().len(), 3);
        let holder = &top["nodes"][0]["object"];
        assert_eq!(holder["class_of_object"], "demo.Holder");
        let holder_addr = holder["address"].as_str().unwrap().to_string();
        let kids =
            ask(&mut session, &format!(r#"{{"query":"children","parent":"{holder_addr}","limit":10}}"#)).unwrap();
        assert_eq!(kids["parent"], holder_addr.as_str());
        assert_eq!(kids["nodes"][0]["object"]["class_name"], "java.lang.Object[]");
        let items = ask(&mut session, r#"{"query":"children","parent":"0x3000","offset":5,"limit":10}"#).unwrap();
        assert_eq!(items["total"], 30);
        assert_eq!(items["offset"], 5);
        assert_eq!(items["nodes"].as_array().unwrap().len(), 10);
        let groups = ask(&mut session, r#"{"query":"children_by_class","parent":"0x3000","limit":5}"#).unwrap();
        assert_eq!(groups[0]["class_name"], "demo.Item");
        assert_eq!(groups[0]["objects"], 30);

        // Instances of a class, by its class object's address (a histogram row's).
        let inst = ask(&mut session, r#"{"query":"instances","class":"0x160","limit":7}"#).unwrap();
        assert_eq!(inst["class_name"], "demo.Item");
        assert_eq!(inst["total"], 30);
        assert_eq!(inst["objects"].as_array().unwrap().len(), 7);

        // One object read back from the file: fields, a string's text, a class's statics.
        let item = ask(&mut session, r#"{"query":"object","object":"0x4040"}"#).unwrap();
        assert_eq!(item["object"]["class_name"], "demo.Item");
        let fields = item["fields"].as_array().unwrap();
        assert!(fields.iter().any(|f| f["name"] == "size" && f["value"] == "10"), "{fields:?}");
        assert!(fields.iter().any(|f| f["name"] == "name" && f["reference"]["class_name"] == "java.lang.String"));
        let name_addr = fields.iter().find(|f| f["name"] == "name").unwrap()["value"].as_str().unwrap().to_string();
        let text = ask(&mut session, &format!(r#"{{"query":"object","object":"{name_addr}"}}"#)).unwrap();
        assert_eq!(text["text"], "item number 01");
        let class = ask(&mut session, r#"{"query":"object","object":"0x150"}"#).unwrap();
        assert!(class["fields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "count" && f["value"] == "30" && f["is_static"] == true));

        // The path from a GC root: the class (a sticky-class root) → items → [1] → the item.
        let path = ask(&mut session, r#"{"query":"path_to_root","object":"0x4040"}"#).unwrap();
        let steps = path.as_array().unwrap();
        assert_eq!(steps.len(), 3, "{path}");
        assert_eq!(steps[0]["gc_root"][0], "System Class");
        assert_eq!(steps[0]["via"][0], "items");
        assert_eq!(steps[1]["via"][0], "[1]");
        assert_eq!(steps[2]["object"]["address"], "0x4040");

        assert_eq!(ask(&mut session, r#"{"query":"find","object":"0x4040"}"#).unwrap()["class_name"], "demo.Item");
        assert_eq!(ask(&mut session, r#"{"query":"find","object":"0x4041"}"#).unwrap(), serde_json::Value::Null);
    }
}

#[wasm_bindgen_test]
fn queries_name_what_is_wrong() {
    let mut session = Session::open(file_of(&tiny_hprof(4), "t.hprof"), JsValue::UNDEFINED, None).unwrap();
    for err in [
        ask(&mut session, r#"{"query":"object","object":"0x12345"}"#).unwrap_err(),
        ask(&mut session, r#"{"query":"object","object":"not an address"}"#).unwrap_err(),
        ask(&mut session, r#"{"query":"children","parent":"0x1","limit":5}"#).unwrap_err(),
        ask(&mut session, r#"{"query":"instances","class":"0x4000","limit":5}"#).unwrap_err(),
    ] {
        let text = js_field(&err, "text").as_string().unwrap();
        assert!(text.contains("address") || text.contains("no object") || text.contains("not a class"), "{text}");
    }
    // A saved report opens without its dump; the queries then say they need it.
    let mut saved = Session::from_report_json(&session.report_json()).unwrap();
    assert!(!saved.has_dump());
    assert!(saved.report_json() == session.report_json());
    assert!(saved.markdown() == session.markdown());
    let err = ask(&mut saved, r#"{"query":"children","limit":10}"#).unwrap_err();
    assert!(js_field(&err, "text").as_string().unwrap().contains("needs the heap dump"));
    let err = Session::from_report_json("{\"not\": \"a report\"}").err().expect("error");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("format"));
}

#[wasm_bindgen_test]
fn session_open_errors_are_plain_objects_with_offsets() {
    let hprof = tiny_hprof(8);
    // Not a dump: refused at byte 0.
    let err = Session::open(file_of(b"PK\x03\x04 a zip, not a dump", "x.zip"), JsValue::UNDEFINED, None)
        .err()
        .expect("error");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("format"));
    assert_eq!(js_field(&err, "offset").as_f64(), Some(0.0));
    // Cut inside the header: an error naming the offset.
    let err = Session::open(file_of(&hprof[..25], "cut.hprof"), JsValue::UNDEFINED, None).err().expect("error");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("format"));
    assert!(js_field(&err, "text").as_string().unwrap().starts_with("at byte"));
    // Cut inside the heap: a report of what came before, marked incomplete with the offset.
    let cut = hprof.len() - 700;
    let session = Session::open(file_of(&hprof[..cut], "cut.hprof"), JsValue::UNDEFINED, None)
        .unwrap_or_else(|e| panic!("{:?}", js_field(&e, "text")));
    let report = json(&session.report_json());
    assert_eq!(report["complete"], false);
    assert!(report["incomplete"]["offset"].as_u64().unwrap() <= cut as u64, "{}", report["incomplete"]);
    // Truncated gzip: the offset is in the decoded stream.
    let gz = gzip_member(&hprof);
    match Session::open(file_of(&gz[..gz.len() / 2], "cut.hprof.gz"), JsValue::UNDEFINED, None) {
        Err(err) => assert!(js_field(&err, "offset").as_f64().is_some()),
        Ok(s) => assert_eq!(json(&s.report_json())["complete"], false),
    }
    // A progress callback that throws stops the run as "cancelled".
    let cb = Closure::<dyn FnMut(JsValue) -> Result<(), JsValue>>::new(|_| Err(JsValue::from_str("stop")));
    let err = Session::open(
        file_of(&hprof, "t.hprof"),
        JsValue::UNDEFINED,
        Some(cb.as_ref().unchecked_ref::<js_sys::Function>().clone()),
    )
    .err()
    .expect("error");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("cancelled"));
    // Options of the wrong shape are an error (a request that cannot be served as asked), not a panic.
    let err = Session::open(file_of(&hprof, "t.hprof"), JsValue::from_str("fast please"), None).err().expect("error");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("query"));
}

#[wasm_bindgen_test]
fn a_dump_bigger_than_the_memory_limit_is_refused_before_allocating() {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"memoryLimit".into(), &JsValue::from_f64(1000.0)).unwrap();
    let err = Session::open(file_of(&tiny_hprof(8), "t.hprof"), options.into(), None).err().expect("error");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("memory"), "{:?}", js_field(&err, "text"));
    // Without a requested limit, the limit is what the wasm memory can still grow by.
    let limit = memory_limit(None);
    assert!(limit + memory_bytes() + MEMORY_MARGIN <= WASM_MAX_MEMORY);
    assert!(limit > 1 << 30, "a fresh instance can give the analysis more than 1 GiB ({limit})");
    assert_eq!(memory_limit(Some(5)), 5);
}

#[wasm_bindgen_test]
fn the_page_estimates_the_wasm_memory_peak_not_the_allocators() {
    // tiny_hprof: 7 class objects, 30 items, 30 strings, 30 byte[], one Object[] (98), and
    // maybe the pseudo object 0x0 of the bootstrap loader: 98 or 99 objects.
    let (low, high) = (98u64, 99u64);
    assert!(WASM_PEAK_BYTES_PER_OBJECT > analysis::PEAK_BYTES_PER_OBJECT);
    let open = |limit: u64| {
        let options = js_sys::Object::new();
        Reflect::set(&options, &"memoryLimit".into(), &JsValue::from_f64(limit as f64)).unwrap();
        Session::open(file_of(&tiny_hprof(8), "t.hprof"), options.into(), None)
    };
    // Enough for the allocator's figure, not for the wasm memory's: refused after pass 1.
    let err = open(WASM_FIXED_BYTES + high * analysis::PEAK_BYTES_PER_OBJECT).err().expect("refused");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("memory"), "{:?}", js_field(&err, "text"));
    // The estimate: a fixed part and a part per object.
    assert_eq!(wasm_peak_estimate(low, false), WASM_FIXED_BYTES + low * WASM_PEAK_BYTES_PER_OBJECT);
    // With read-ahead the source holds no chunk buffer.
    assert_eq!(
        wasm_peak_estimate(low, true),
        WASM_FIXED_BYTES - DEFAULT_CHUNK_SIZE as u64 + low * WASM_PEAK_BYTES_PER_OBJECT
    );
    let err = open(wasm_peak_estimate(low, false) - 1).err().expect("refused");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("memory"), "{:?}", js_field(&err, "text"));
    let err = open(high * WASM_PEAK_BYTES_PER_OBJECT).err().expect("refused without the fixed part");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("memory"), "{:?}", js_field(&err, "text"));
    assert!(open(wasm_peak_estimate(high, false)).is_ok());
}

#[wasm_bindgen_test]
fn phase_stats_say_what_each_pass_read_and_held() {
    let hprof = tiny_hprof(8);
    let session = Session::open(file_of(&hprof, "t.hprof"), JsValue::UNDEFINED, None).unwrap();
    let records = json(&session.phase_stats());
    let records = records.as_array().expect("an array");
    let phases: Vec<&str> = records.iter().map(|r| r["phase"].as_str().unwrap()).collect();
    assert_eq!(&phases[..2], &[analysis::Phase::Pass1.name(), analysis::Phase::Pass2.name()]);
    assert_eq!(phases.last(), Some(&analysis::Phase::Report.name()));
    // Pass 1 reads the whole file once; pass 2 finds it still buffered (one chunk) and
    // reads nothing again.
    assert_eq!(records[0]["bytesRead"].as_u64(), Some(hprof.len() as u64));
    assert_eq!(records[1]["bytesRead"].as_u64(), Some(0));
    let mut last_end = 0.0;
    for r in records {
        let (start, end) = (r["startMs"].as_f64().unwrap(), r["endMs"].as_f64().unwrap());
        assert!(start <= end && last_end <= start, "{r}");
        last_end = end;
        let (allocated, peak, memory) =
            (r["allocated"].as_u64().unwrap(), r["peakAllocated"].as_u64().unwrap(), r["memory"].as_u64().unwrap());
        assert!(allocated <= peak && peak <= memory && memory <= memory_bytes(), "{r}");
    }
}

/// Asks a query (its JSON) and returns the answer's `answer` field, checking it answers
/// the query asked.
fn ask(session: &mut Session, query: &str) -> Result<serde_json::Value, JsValue> {
    let q: serde_json::Value = serde_json::from_str(query).unwrap();
    let a = json(&session.query(query)?);
    assert_eq!(a["query"], q["query"], "{a}");
    Ok(a["answer"].clone())
}

#[wasm_bindgen_test]
fn malformed_queries_are_errors() {
    let mut session = Session::open(file_of(&tiny_hprof(4), "t.hprof"), JsValue::UNDEFINED, None).unwrap();
    for q in [r#"{"query":"no_such_query"}"#, r#"{"query":"children"}"#, "not json"] {
        let err = session.query(q).unwrap_err();
        assert!(js_field(&err, "text").as_string().unwrap().contains("not a heapscope query"), "{q}");
    }
}

/// The page's comparison is the CLI's: the same library call on the same two reports,
/// byte for byte, in every format; incomparable sides are a `format` error.
#[wasm_bindgen_test]
fn compare_with_baseline_writes_what_the_cli_writes() {
    let (base, cur) = (tiny_hprof(8), tiny_hprof(8));
    let session = Session::open(file_of(&cur, "cur.hprof"), JsValue::UNDEFINED, None).unwrap();
    let base_json = native_report_json(&base, "base.hprof", base.len() as u64, false);
    let (b, c) = (
        heapscope::compare::read_report_json(&base_json).unwrap(),
        heapscope::compare::read_report_json(&session.report_json()).unwrap(),
    );
    let options = heapscope::compare::Options { sort: heapscope::compare::SortKey::Shallow, top: Some(3) };
    let native = heapscope::compare::compare(&b, &c, &options).unwrap();
    assert_eq!(
        session.compare_with_baseline(&base_json, "json", "shallow", Some(3)).unwrap(),
        heapscope::compare::to_json(&native)
    );
    assert_eq!(
        session.compare_with_baseline(&base_json, "md", "shallow", Some(3)).unwrap(),
        heapscope::compare::document::markdown(&native, Some(3))
    );
    assert_eq!(
        session.compare_with_baseline(&base_json, "html", "shallow", Some(3)).unwrap(),
        heapscope::compare::document::html(&native, Some(3))
    );
    let parsed = json(&session.compare_with_baseline(&base_json, "json", "retained", None).unwrap());
    assert_eq!(parsed["leaders"].as_array().unwrap().len(), 0, "the same program state: no growth");
    assert_eq!(parsed["classes_changed"], 0);

    let other = tiny_hprof(4);
    let other_json = native_report_json(&other, "other.hprof", other.len() as u64, false);
    let err = session.compare_with_baseline(&other_json, "json", "retained", None).err().expect("4-byte vs 8-byte ids");
    assert_eq!(js_field(&err, "kind"), "format");
    assert!(js_field(&err, "message").as_string().unwrap().contains("4-byte ids"));
    assert!(session.compare_with_baseline(&base_json, "pdf", "retained", None).is_err());
}

/// What the page's comparison view asks besides the comparison: whether a saved report can
/// be a side (refused in `heapscope compare`'s words: `report::from_json`), and the
/// comparison's stable loader names of the current report (`compare::loaders`).
#[wasm_bindgen_test]
fn a_comparison_side_is_checked_and_loaders_named_as_the_cli_does() {
    let cur = tiny_hprof(8);
    let session = Session::open(file_of(&cur, "cur.hprof"), JsValue::UNDEFINED, None).unwrap();
    assert!(Session::check_report_json(&session.report_json()).is_ok());
    let mut old = json(&session.report_json());
    old["schema_version"] = serde_json::json!(heapscope::report::SCHEMA_VERSION + 7);
    let old = old.to_string();
    let err = Session::check_report_json(&old).unwrap_err();
    assert_eq!(js_field(&err, "kind"), "format");
    let cli = heapscope::compare::read_report_json(&old).unwrap_err().message;
    assert!(cli.contains("schema version"), "{cli}");
    assert_eq!(js_field(&err, "message").as_string().unwrap(), cli);
    assert!(Session::check_report_json("not json").is_err());

    let names: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&session.stable_loader_names().unwrap()).unwrap();
    let report = heapscope::compare::read_report_json(&session.report_json()).unwrap();
    assert_eq!(names, heapscope::compare::loaders::stable_names(&report.histogram));
    assert_eq!(names.get("<system class loader>").map(String::as_str), Some("<system class loader>"));
}

/// The page's warm-up analyzes its synthetic dump the way a dropped file is analyzed (a
/// `Blob` through `Session::open`, so the optimized code sees the same indirect-call
/// targets): every round counts the objects the dump's construction writes.
#[wasm_bindgen_test]
fn warm_up_analyzes_the_synthetic_dump_as_a_dropped_file() {
    use heapscope::warm_up::{CLASSES, OBJECTS_PER_CUSTOMER};
    let fetched = FETCHED.load(std::sync::atomic::Ordering::Relaxed);
    let objects = heapscope::wasm::warm_up(20, 2).map_err(|e| format!("{e:?}")).unwrap();
    // The customers' objects, the table, the loader and its array, the class objects and
    // MAT's pseudo object 0x0 for the bootstrap loader.
    assert_eq!(objects, (20 * OBJECTS_PER_CUSTOMER + 3 + CLASSES as u64 + 1) as f64);
    // Each round read the dump from a blob (once: so small a file stays buffered for
    // pass 2), not from memory.
    let dump_bytes = heapscope::warm_up::customers_dump(20).len() as u64;
    assert!(FETCHED.load(std::sync::atomic::Ordering::Relaxed) - fetched >= 2 * dump_bytes);
}
