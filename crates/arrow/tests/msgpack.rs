//! MessagePack natively: hand-encoded records (bytes as the spec lays them out) into
//! arrow-rs, whole and as a stream of bounded batches.

mod common;
use arrowsmith_arrow::{read_msgpack, MsgpackBatches, MsgpackOptions};
use common::value;
use serde_json::{json, Value};

/// `{"a": 1, "b": "x"}`, `{"a": -2, "b": nil}`, `{"a": 300, "b": "yz"}` as three
/// concatenated maps.
const STREAM: &[u8] = &[
    0x82, 0xa1, b'a', 0x01, 0xa1, b'b', 0xa1, b'x', //
    0x82, 0xa1, b'a', 0xfe, 0xa1, b'b', 0xc0, //
    0x82, 0xa1, b'a', 0xcd, 0x01, 0x2c, 0xa1, b'b', 0xa2, b'y', b'z',
];

fn rows(b: &arrow_array::RecordBatch) -> Vec<Value> {
    (0..b.num_rows())
        .map(|i| {
            Value::Object(
                b.schema()
                    .fields()
                    .iter()
                    .zip(b.columns())
                    .map(|(f, c)| (f.name().clone(), value(c.as_ref(), i)))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn records_whole_and_streamed() {
    let want = vec![
        json!({"a": 1, "b": "x"}),
        json!({"a": -2, "b": null}),
        json!({"a": 300, "b": "yz"}),
    ];
    let whole = read_msgpack(STREAM, &MsgpackOptions::default()).unwrap();
    assert_eq!(rows(&whole), want);
    let parts: Vec<_> = MsgpackBatches::new(STREAM, MsgpackOptions::default(), 2)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        parts.iter().map(|b| b.num_rows()).collect::<Vec<_>>(),
        [2, 1]
    );
    assert_eq!(parts.iter().flat_map(rows).collect::<Vec<_>>(), want);
}

#[test]
fn a_truncated_stream_is_an_error_with_its_offset() {
    let cut = &STREAM[..STREAM.len() - 1];
    let out: Vec<_> = MsgpackBatches::new(cut, MsgpackOptions::default(), 10).collect();
    match out.last() {
        Some(Err(arrowsmith_arrow::Error::Decode(e))) => {
            assert_eq!(e.format, arrowsmith_arrow::Format::MessagePack);
            // The last str's length points past the end of the input.
            assert_eq!(e.code, arrowsmith_arrow::ErrorCode::OutOfBounds);
            assert!(e.offset >= 20, "offset {}", e.offset);
        }
        other => panic!("{other:?}"),
    }
}

/// Split into runs of whole rows and read run by run (how Spark and Ray tasks read a large
/// file): the rows of one read, in order, and error offsets of the whole input.
#[test]
fn pieces_read_alone_hold_the_rows() {
    use arrowsmith_arrow::msgpack::split;
    use arrowsmith_arrow::read_msgpack_piece;
    let o = MsgpackOptions::default();
    let whole = rows(&read_msgpack(STREAM, &o).unwrap());
    let s = split(STREAM, 3, &o).unwrap();
    assert!(s.pieces.len() >= 2, "{:?}", s.pieces);
    let mut got = Vec::new();
    for p in &s.pieces {
        let b =
            read_msgpack_piece(&STREAM[p.start..p.end], p.start as u64, s.in_array, &o).unwrap();
        assert_eq!(b.num_rows(), p.rows);
        got.extend(rows(&b));
    }
    assert_eq!(got, whole);
    // A broken byte in the last run is reported where it is in the whole input.
    let mut bad = STREAM.to_vec();
    let last = *s.pieces.last().unwrap();
    bad[last.start] = 0xc1;
    match read_msgpack_piece(&bad[last.start..last.end], last.start as u64, false, &o) {
        Err(arrowsmith_arrow::Error::Decode(e)) => assert_eq!(e.offset, last.start as u64),
        other => panic!("expected a decode error, got {other:?}"),
    }
}
