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

use heapscope::error::ErrorKind;
use heapscope::source::{auto_decompress, ByteSource, MemorySource};
use heapscope::wasm::{scan, BlobSource, JsProgress, Session};
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

/// A gzip member (RFC 1952) around `data`, as `gzip` writes it (CRC not checked here).
fn gzip_member(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 9));
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// A small well-formed HPROF stream: header, a string, a class, a heap dump segment, the end.
fn tiny_hprof(id_size: u32) -> Vec<u8> {
    let mut v = b"JAVA PROFILE 1.0.2\0".to_vec();
    v.extend_from_slice(&id_size.to_be_bytes());
    v.extend_from_slice(&1_700_000_000_123u64.to_be_bytes());
    let mut record = |tag: u8, body: &[u8]| {
        v.push(tag);
        v.extend_from_slice(&0u32.to_be_bytes());
        v.extend_from_slice(&(body.len() as u32).to_be_bytes());
        v.extend_from_slice(body);
    };
    let id = |x: u64| {
        if id_size == 8 {
            x.to_be_bytes().to_vec()
        } else {
            (x as u32).to_be_bytes().to_vec()
        }
    };
    record(0x01, &[id(7), b"java/lang/Object".to_vec()].concat());
    record(
        0x02,
        &[
            1u32.to_be_bytes().to_vec(),
            id(0x100),
            0u32.to_be_bytes().to_vec(),
            id(7),
        ]
        .concat(),
    );
    record(0x1C, &pattern(70_000));
    record(0x1C, &[]);
    record(0x2C, &[]);
    v
}

fn js_field(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).expect("property")
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
        assert!(
            read_all(&mut src, buf) == small,
            "chunk {chunk}, buffer {buf}: bytes differ"
        );
    }
}

#[wasm_bindgen_test]
fn blob_source_read_at_skip_and_rewind_seek() {
    let data = pattern(100_000);
    let blob = blob_of(&[&data]);
    let mut src = BlobSource::new(blob, 4096).unwrap();

    // read_at: inside one chunk, across chunk boundaries, at the end, past the end.
    for (offset, len) in [
        (0u64, 10usize),
        (4090, 20),
        (12_345, 50_000),
        (99_990, 10),
        (99_995, 100),
        (100_000, 5),
        (250_000, 5),
    ] {
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
    let plain =
        auto_decompress(Box::new(BlobSource::new(blob_of(&[&data]), 4096).unwrap())).unwrap();
    assert_eq!(plain.len(), Some(data.len() as u64));
}

#[wasm_bindgen_test]
fn scan_counts_records_and_checks_the_header() {
    for id_size in [4, 8] {
        let bytes = tiny_hprof(id_size);
        let mut src = MemorySource::new(bytes.clone());
        let s = scan(&mut src, false, &mut JsProgress::new(None)).unwrap();
        assert_eq!(s.format, "JAVA PROFILE 1.0.2");
        assert_eq!(s.id_size, id_size);
        assert_eq!(s.timestamp_ms, 1_700_000_000_123);
        assert_eq!(s.decoded_bytes, bytes.len() as u64);
        assert_eq!(s.records, 5);
        let tags: Vec<(u8, u64)> = s.records_by_tag.iter().map(|t| (t.tag, t.count)).collect();
        assert_eq!(tags, vec![(0x01, 1), (0x02, 1), (0x1C, 2), (0x2C, 1)]);
        assert_eq!(s.records_by_tag[2].bytes, 70_000);
    }
}

#[wasm_bindgen_test]
fn scan_errors_name_the_byte_offset() {
    let good = tiny_hprof(8);
    let cases: Vec<(Vec<u8>, Option<u64>, &str)> = vec![
        (Vec::new(), Some(0), "empty"),
        (
            b"PK\x03\x04 this is a zip file, not a dump".to_vec(),
            Some(0),
            "not an HPROF",
        ),
        (good[..25].to_vec(), Some(25), "inside the HPROF header"),
        // Cut inside the 70,000-byte segment that starts at byte 31 + 24 + 30 = 85 + ...
        (good[..50_000].to_vec(), Some(50_000), "truncated"),
        (
            good[..good.len() - 4].to_vec(),
            Some(good.len() as u64 - 4),
            "inside the header of a record",
        ),
        (
            [&good[..], &[0x77, 0, 0, 0, 0, 0, 0, 0, 0][..]].concat(),
            Some(good.len() as u64),
            "unknown record tag 0x77",
        ),
    ];
    for (bytes, offset, words) in cases {
        let err = scan(
            &mut MemorySource::new(bytes),
            false,
            &mut JsProgress::new(None),
        )
        .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Format, "{err}");
        assert_eq!(err.offset, offset, "{err}");
        assert!(
            err.to_string().contains(words),
            "{err:?} should say {words:?}"
        );
    }
    let mut bad_id = tiny_hprof(8);
    bad_id[19..23].copy_from_slice(&5u32.to_be_bytes());
    let err = scan(
        &mut MemorySource::new(bad_id),
        false,
        &mut JsProgress::new(None),
    )
    .unwrap_err();
    assert_eq!(err.offset, Some(19));
}

#[wasm_bindgen_test]
fn session_open_reports_progress_and_summary_for_plain_and_gzip() {
    let hprof = tiny_hprof(4);
    let gz = gzip_member(&hprof);
    for (file, compressed) in [(hprof.clone(), false), (gz.clone(), true)] {
        let calls: Rc<RefCell<Vec<JsValue>>> = Rc::default();
        let sink = calls.clone();
        let cb =
            Closure::<dyn FnMut(JsValue)>::new(move |info: JsValue| sink.borrow_mut().push(info));
        let options = js_sys::Object::new();
        Reflect::set(&options, &"chunkSize".into(), &JsValue::from_f64(1000.0)).unwrap();
        let session = Session::open(
            blob_of(&[&file]),
            options.into(),
            Some(cb.as_ref().unchecked_ref::<js_sys::Function>().clone()),
        )
        .unwrap_or_else(|e| panic!("open failed: {:?}", js_field(&e, "text")));
        let summary = session.summary().unwrap();
        assert_eq!(
            js_field(&summary, "decodedBytes").as_f64(),
            Some(hprof.len() as f64)
        );
        assert_eq!(
            js_field(&summary, "inputBytes").as_f64(),
            Some(file.len() as f64)
        );
        assert_eq!(js_field(&summary, "idSize").as_f64(), Some(4.0));
        assert_eq!(js_field(&summary, "compressed").as_bool(), Some(compressed));
        assert_eq!(
            js_field(&summary, "format").as_string().as_deref(),
            Some("JAVA PROFILE 1.0.2")
        );
        let calls = calls.borrow();
        let last = calls.last().expect("at least one progress report");
        assert_eq!(
            js_field(last, "phase").as_string().as_deref(),
            Some("reading")
        );
        assert_eq!(
            js_field(last, "bytesDone").as_f64(),
            Some(file.len() as f64)
        );
        assert_eq!(
            js_field(last, "bytesTotal").as_f64(),
            Some(file.len() as f64)
        );
        assert_eq!(
            js_field(last, "decodedBytes").as_f64(),
            Some(hprof.len() as f64)
        );
    }
}

#[wasm_bindgen_test]
fn session_open_errors_are_plain_objects_with_offsets() {
    let hprof = tiny_hprof(8);
    // Truncated plain file.
    let err = Session::open(blob_of(&[&hprof[..40_000]]), JsValue::UNDEFINED, None)
        .err()
        .expect("error");
    assert_eq!(
        js_field(&err, "kind").as_string().as_deref(),
        Some("format")
    );
    assert_eq!(js_field(&err, "offset").as_f64(), Some(40_000.0));
    assert!(js_field(&err, "text")
        .as_string()
        .unwrap()
        .starts_with("at byte 40000"));
    // Truncated gzip: the offset is in the decoded stream.
    let gz = gzip_member(&hprof);
    let err = Session::open(blob_of(&[&gz[..gz.len() / 2]]), JsValue::UNDEFINED, None)
        .err()
        .expect("error");
    assert_eq!(
        js_field(&err, "kind").as_string().as_deref(),
        Some("format")
    );
    assert!(js_field(&err, "offset").as_f64().is_some());
    // A progress callback that throws stops the run as "cancelled".
    let cb = Closure::<dyn FnMut(JsValue) -> Result<(), JsValue>>::new(|_| {
        Err(JsValue::from_str("stop"))
    });
    let err = Session::open(
        blob_of(&[&hprof]),
        JsValue::UNDEFINED,
        Some(cb.as_ref().unchecked_ref::<js_sys::Function>().clone()),
    )
    .err()
    .expect("error");
    assert_eq!(
        js_field(&err, "kind").as_string().as_deref(),
        Some("cancelled")
    );
    // Options of the wrong shape are an error, not a panic.
    let err = Session::open(blob_of(&[&hprof]), JsValue::from_str("fast please"), None)
        .err()
        .expect("error");
    assert_eq!(js_field(&err, "kind").as_string().as_deref(), Some("io"));
}
