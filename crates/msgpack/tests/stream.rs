//! StreamDecoder: chunk boundaries anywhere, rows as soon as complete, errors at finish.

mod common;
use arrowsmith_core::{Batch, DecodeError, ErrorCode};
use arrowsmith_msgpack::{decode, Layout, Options, StreamDecoder};
use common::*;

/// Feed `bytes` in chunks ending at `cuts`, taking batches of `max_rows` whenever ready.
pub fn run(
    bytes: &[u8],
    cuts: &[usize],
    opts: &Options,
    max_rows: usize,
) -> Result<Vec<Batch>, DecodeError> {
    let mut s = StreamDecoder::new(opts.clone());
    let mut out = vec![];
    let mut at = 0;
    for &c in cuts.iter().chain([&bytes.len()]) {
        let c = c.clamp(at, bytes.len());
        s.push(&bytes[at..c])?;
        at = c;
        while let Some(b) = s.take_batch(max_rows)? {
            assert!(b.num_rows <= max_rows && b.num_rows > 0);
            out.push(b);
        }
        assert_eq!(s.ready_rows(), 0);
    }
    if let Some(b) = s.finish()? {
        out.push(b);
    }
    Ok(out)
}

#[test]
fn fuzz_regression_stream_of_scalars() {
    let v = [
        0x27, 0x25, 0x00, 0xca, 0x9a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3b,
        0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0xcf, 0xcf, 0xcf, 0x63, 0xcf, 0xa3, 0xdf, 0x30, 0xff, 0xff,
        0x5b, 0x5b, 0x5b, 0xff, 0xff, 0xff, 0x04,
    ];
    let o = opts(Layout::Stream);
    // As one column, floats and a uint64 past 2^53 (no exact Float64): a type mismatch.
    let whole = decode(&v, &o).unwrap_err();
    assert_eq!((whole.code, whole.offset), (ErrorCode::TypeMismatch, 24));
    // Batches of 7 rows: no batch holds both (types are inferred per batch).
    let got = run(&v, &[39], &o, 7).unwrap();
    assert_eq!(got.iter().map(|b| b.num_rows).sum::<usize>(), 29);
}

/// The fuzz target's sequence: push, one take_batch(7), push, finish.
fn run_once(bytes: &[u8], cut: usize, opts: &Options) -> Result<usize, DecodeError> {
    let mut s = StreamDecoder::new(opts.clone());
    let mut rows = 0;
    s.push(&bytes[..cut])?;
    let ready = s.ready_rows();
    if let Some(b) = s.take_batch(7)? {
        assert_eq!(b.num_rows, ready.min(7));
        rows += b.num_rows;
    }
    s.push(&bytes[cut..])?;
    if let Some(b) = s.finish()? {
        rows += b.num_rows;
    }
    Ok(rows)
}

#[test]
fn fuzz_regression_take_once() {
    let v = [
        0x27, 0x25, 0x00, 0xca, 0x9a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3b,
        0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0xcf, 0xcf, 0xcf, 0x63, 0xcf, 0xa3, 0xdf, 0x30, 0xff, 0xff,
        0x5b, 0x5b, 0x5b, 0xff, 0xff, 0xff, 0x04,
    ];
    let o = opts(Layout::Stream);
    // The whole input mixes floats with a uint64 past 2^53 (no exact Float64); the
    // second batch alone has no float and mixes negative ints with uint64 > i64::MAX.
    // Both are type mismatches at the uint64.
    assert_eq!(decode(&v, &o).unwrap_err().offset, 24);
    let e = run_once(&v, 39, &o).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::TypeMismatch, 24));
    let e = run_once(&v, 0, &o).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::TypeMismatch, 24));
}

#[test]
fn huge_array_in_chunks_yields_rows_before_the_end() {
    // array32 of 1000 ints, fed 7 bytes at a time: rows come out while the array is open.
    let mut v = vec![0xdd, 0, 0, 0x03, 0xe8];
    for i in 0..1000i64 {
        rmp::encode::write_sint(&mut v, i * 37 - 500).unwrap();
    }
    let mut s = StreamDecoder::new(Options::default());
    let mut got = vec![];
    for chunk in v.chunks(7) {
        s.push(chunk).unwrap();
        if let Some(b) = s.take_batch(64).unwrap() {
            got.extend(i32s(value(&b)));
        }
    }
    assert!(
        got.len() > 900,
        "rows should be taken before finish, got {}",
        got.len()
    );
    if let Some(b) = s.finish().unwrap() {
        got.extend(i32s(value(&b)));
    }
    assert_eq!(got, (0..1000).map(|i| i * 37 - 500).collect::<Vec<i32>>());
}

#[test]
fn ready_rows_counts_complete_rows_only() {
    let mut s = StreamDecoder::new(opts(Layout::Stream));
    s.push(&[0x01, 0xcd, 0x01]).unwrap(); // 1, then half of a uint16
    assert_eq!(s.ready_rows(), 1);
    s.push(&[0x00, 0x82, 0xa1]).unwrap(); // uint16 done; a map begins
    assert_eq!(s.ready_rows(), 2);
    let b = s.take_batch(1).unwrap().unwrap();
    assert_eq!(i32s(value(&b)), vec![1]);
    assert_eq!(s.ready_rows(), 1);
    let b = s.take_batch(10).unwrap().unwrap();
    assert_eq!(i32s(value(&b)), vec![256]);
    assert!(s.take_batch(10).unwrap().is_none());
    // The map never completes: finish names the place.
    let e = s.finish().unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::OutOfBounds, 4));
}

#[test]
fn every_split_point_of_records() {
    let mut v = vec![0x93];
    v.extend([
        0x82, 0xa1, b'a', 0xcd, 1, 0, 0xa1, b's', 0xd9, 3, b'x', b'y', b'z',
    ]);
    v.extend([0x81, 0xa1, b's', 0xa0]);
    v.extend([0x81, 0xa1, b'a', 0xd7, 0xff, 0, 0, 0, 0, 0, 0, 0, 1]);
    // The third row makes a Timestamp in "a" where ints were: a TypeMismatch for decode
    // but for per-batch streaming only when rows 0 and 2 share a batch.
    assert_eq!(
        decode(&v, &Options::default()).unwrap_err().code,
        ErrorCode::TypeMismatch
    );
    let v2 = [&v[..v.len() - 13], &[0x81, 0xa1, b'a', 0x07]].concat();
    let whole = decode(&v2, &Options::default()).unwrap();
    for cut in 0..=v2.len() {
        for cut2 in cut..=v2.len() {
            let got = run(&v2, &[cut, cut2], &Options::default(), usize::MAX).unwrap();
            assert_eq!(got.iter().map(|b| b.num_rows).sum::<usize>(), 3);
            if got.len() == 1 {
                assert_same(&got[0], &whole);
            }
        }
    }
}

#[test]
fn truncated_at_finish() {
    // Top-level array missing elements.
    let mut s = StreamDecoder::new(Options::default());
    s.push(&[0x93, 0x01, 0x02]).unwrap();
    let e = s.finish().unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Truncated, 3));
    assert!(e.message.contains("1 are missing"), "{}", e.message);
    // A str cut off.
    let mut s = StreamDecoder::new(opts(Layout::Stream));
    s.push(&[0x05, 0xd9, 10, b'a']).unwrap();
    assert_eq!(s.ready_rows(), 1);
    let e = s.finish().unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::OutOfBounds, 1));
    assert!(
        e.message.contains("str8 length 10 at byte 1"),
        "{}",
        e.message
    );
    // A header cut off; the error stays.
    let mut s = StreamDecoder::new(opts(Layout::Stream));
    s.push(&[0xcb, 0x3f]).unwrap();
    let e = s.finish().unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Truncated, 0));
    assert_eq!(s.take_batch(1).unwrap_err(), e);
}

#[test]
fn stream_errors_have_absolute_offsets() {
    // Invalid UTF-8 in the 3rd row, after earlier rows were taken and compacted away.
    let mut s = StreamDecoder::new(opts(Layout::Stream));
    s.push(&[0xa1, b'a', 0xa1, b'b']).unwrap();
    assert_eq!(s.take_batch(10).unwrap().unwrap().num_rows, 2);
    s.push(&[0xa2, b'c', 0xff]).unwrap();
    let e = s.take_batch(10).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::InvalidUtf8, 4));
    assert!(s.push(&[1]).is_err());
    // 0xc1 after a row.
    let mut s = StreamDecoder::new(opts(Layout::Stream));
    s.push(&[0x01, 0xc1]).unwrap();
    let e = s.take_batch(10).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 1));
}

#[test]
fn stream_layout_rules() {
    // Array layout, not an array.
    let mut s = StreamDecoder::new(opts(Layout::Array));
    assert_eq!(s.push(&[0x01]).unwrap_err().code, ErrorCode::Invalid);
    // Array layout, nothing at all.
    let mut s = StreamDecoder::new(opts(Layout::Array));
    assert_eq!(s.finish().unwrap_err().code, ErrorCode::Truncated);
    // Auto: a value after the top-level array makes each top-level value a row, as in
    // `decode`, while no row has been taken...
    let mut s = StreamDecoder::new(Options::default());
    s.push(&[0x91, 0x01]).unwrap();
    s.push(&[0x91, 0x02]).unwrap();
    let b = s.finish().unwrap().unwrap();
    assert_eq!(b.num_rows, 2);
    assert_same(
        &b,
        &decode(&[0x91, 0x01, 0x91, 0x02], &Options::default()).unwrap(),
    );
    // ... and Unsupported (not Invalid: the input is valid) once rows of the array were
    // taken (use Layout::Stream).
    let mut s = StreamDecoder::new(Options::default());
    s.push(&[0x92, 0x01]).unwrap();
    assert_eq!(s.take_batch(10).unwrap().unwrap().num_rows, 1);
    let e = s.push(&[0x02, 0x91, 0x03]).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Unsupported, 3));
    assert!(e.message.contains("Layout::Stream"), "{}", e.message);
    // Stream: arrays are rows (List column).
    let got = run(
        &[0x91, 0x01, 0x92, 0x02, 0x03],
        &[1, 3],
        &opts(Layout::Stream),
        10,
    )
    .unwrap();
    let rows: usize = got.iter().map(|b| b.num_rows).sum();
    assert_eq!(rows, 2);
    // Empty input in Auto/Stream: no batch.
    assert!(run(&[], &[], &Options::default(), 10).unwrap().is_empty());
    // Too deep inside a row.
    let o = Options {
        max_depth: 2,
        ..Options::default()
    };
    let mut s = StreamDecoder::new(o);
    s.push(&[0x91, 0x91, 0x91, 0x01]).unwrap();
    assert_eq!(s.finish().unwrap_err().code, ErrorCode::TooDeep);
}

/// Feed `bytes` in chunks of `size`, taking a full batch of `max_rows` only once more rows
/// are ready, until the end of the input (as `decodeMsgpackStream` does).
fn run_full(
    bytes: &[u8],
    size: usize,
    opts: &Options,
    max_rows: usize,
) -> Result<Vec<Batch>, DecodeError> {
    let mut s = StreamDecoder::new(opts.clone());
    let mut out = vec![];
    for chunk in bytes.chunks(size) {
        s.push(chunk)?;
        while s.ready_rows() > max_rows {
            out.push(s.take_batch(max_rows)?.unwrap());
        }
    }
    while let Some(b) = s.take_batch(max_rows)? {
        out.push(b);
    }
    out.extend(s.finish()?);
    Ok(out)
}

#[test]
fn concatenated_arrays_in_small_chunks() {
    // Fluentd message mode: each message is a top-level array [tag, time, record] of 3
    // elements. `decode` reads each top-level array as a row (as Layout::Stream does).
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/msgpack/encoders/fluent-logger-message-mode.msgpack"
    ))
    .unwrap();
    let whole = decode(&bytes, &Options::default()).unwrap();
    assert_eq!(whole.num_rows, 120);
    for size in [1, 7, 61, bytes.len()] {
        for max_rows in 1..=5 {
            let auto = run_full(&bytes, size, &Options::default(), max_rows);
            if let (true, Err(e)) = (max_rows < 3, &auto) {
                // A batch was taken before the first array ended (a first array longer
                // than a batch): its elements were already returned as rows, so the
                // stream refuses (typed, with advice): Unsupported when the second array
                // begins, or TypeMismatch already when a batch holds elements of
                // different kinds (a str tag and an ext time).
                assert!(
                    matches!(e.code, ErrorCode::Unsupported | ErrorCode::TypeMismatch),
                    "{e}"
                );
                assert!(e.message.contains("Layout::Stream"), "{}", e.message);
                continue;
            }
            // One-row batches in one-byte chunks: always taken before the array ends.
            assert!(max_rows > 1 || size > 1, "{:?}", auto.map(|b| b.len()));
            // Otherwise: the rows `decode` gives, in the batches Layout::Stream gives.
            let auto = auto.unwrap();
            let stream = run_full(&bytes, size, &opts(Layout::Stream), max_rows).unwrap();
            assert_eq!(auto.len(), stream.len(), "size {size}, max_rows {max_rows}");
            for (a, b) in auto.iter().zip(&stream) {
                assert_same(a, b);
            }
            assert_eq!(auto.iter().map(|b| b.num_rows).sum::<usize>(), 120);
            if auto.len() == 1 {
                assert_same(&auto[0], &whole);
            }
        }
    }
}
