//! Row shapes: positional rows (tuples), List/FixedSizeList rows, columnar maps. Inputs
//! are written by `rmpv` (an independent encoder); every decode runs with the fast paths
//! on and off (`common::dec`).
mod common;

use arrowsmith_core::{DataType, ErrorCode};
use arrowsmith_msgpack::{decode, split, Layout, Options, StreamDecoder, Tuples};
use common::*;
use rmpv::Value as V;

fn enc(v: &V) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, v).unwrap();
    out
}

fn arr(items: Vec<V>) -> V {
    V::Array(items)
}

fn names(b: &arrowsmith_core::Batch) -> Vec<&str> {
    b.fields.iter().map(|f| f.name.as_str()).collect()
}

/// `[ts, "dev", 1.5, nil]` rows, as rmp-serde's `to_vec` and many APIs send them.
fn sensor_rows(n: usize) -> V {
    arr((0..n)
        .map(|i| {
            arr(vec![
                V::from(1_700_000_000_000i64 + i as i64),
                V::from(format!("dev-{}", i % 3)),
                V::from(i as f64 * 0.5),
                if i % 2 == 0 {
                    V::Nil
                } else {
                    V::from(i as i64)
                },
            ])
        })
        .collect())
}

#[test]
fn rows_of_mixed_kinds_become_one_column_per_position() {
    let b = dec(&enc(&sensor_rows(50)));
    assert_eq!(names(&b), ["0", "1", "2", "3"]);
    assert_eq!(b.num_rows, 50);
    assert_eq!(i64s(&b.columns[0])[49], 1_700_000_000_049);
    assert_eq!(strs(&b.columns[1])[4], "dev-1");
    assert_eq!(f64s(&b.columns[2])[3], 1.5);
    assert_eq!(valid(&b.columns[3])[..3], [false, true, false]);
    assert_eq!(i32s(&b.columns[3])[1], 1);
}

#[test]
fn positional_rows_take_names_and_shorter_rows() {
    let o = Options {
        columns: vec!["ts".into(), "device".into(), "value".into(), "note".into()],
        ..Options::default()
    };
    let rows = arr(vec![
        arr(vec![V::from(1), V::from("a")]),
        V::Nil,
        arr(vec![V::from(2), V::from("b"), V::from(0.5)]),
    ]);
    let b = decode(&enc(&rows), &o).unwrap();
    assert_eq!(names(&b), ["ts", "device", "value", "note"]);
    assert_eq!(valid(&b.columns[0]), [true, false, true]);
    assert_eq!(valid(&b.columns[2]), [false, false, true]);
    assert_eq!(b.columns[3].dtype, DataType::Null);
    // A row longer than the names is an error naming both counts.
    let long = arr(vec![arr((0..5).map(V::from).collect())]);
    let e = decode(&enc(&long), &o).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 1));
    assert!(
        e.message.contains("5 elements") && e.message.contains("names 4"),
        "{}",
        e.message
    );
}

#[test]
fn tuples_of_one_kind_are_one_list_column_unless_asked() {
    let same = arr((0..10)
        .map(|i| arr(vec![V::from(i), V::from(i * 2), V::from(0.5)]))
        .collect());
    let b = dec(&enc(&same));
    assert_eq!(names(&b), ["value"]);
    assert!(
        matches!(&b.columns[0].dtype, DataType::FixedSizeList(f, 3) if f.dtype == DataType::Float64)
    );
    assert_eq!(f64s(&b.columns[0].children[0])[3..6], [1.0, 2.0, 0.5]);
    // Different lengths, or a nil row: List.
    let ragged = arr(vec![
        arr(vec![V::from(1)]),
        arr(vec![V::from(2), V::from(3)]),
    ]);
    assert!(matches!(
        dec(&enc(&ragged)).columns[0].dtype,
        DataType::List(_)
    ));
    let with_nil = arr(vec![arr(vec![V::from(1)]), V::Nil]);
    assert!(matches!(
        dec(&enc(&with_nil)).columns[0].dtype,
        DataType::List(_)
    ));
    // Empty rows only: List.
    assert!(matches!(
        dec(&enc(&arr(vec![arr(vec![])]))).columns[0].dtype,
        DataType::List(_)
    ));
    // Forced positional.
    let cols = Options {
        tuples: Tuples::Columns,
        ..Options::default()
    };
    let b = decode(&enc(&same), &cols).unwrap();
    assert_eq!(names(&b), ["0", "1", "2"]);
    assert_eq!(b.columns[0].dtype, DataType::Int32);
    // Forced list: mixed kinds are a TypeMismatch.
    let list = Options {
        tuples: Tuples::List,
        ..Options::default()
    };
    let e = decode(&enc(&sensor_rows(3)), &list).unwrap_err();
    assert_eq!(e.code, ErrorCode::TypeMismatch);
}

#[test]
fn positions_that_mix_kinds_stay_an_error() {
    // Position 0 holds an int, then a str: neither reading holds that.
    let rows = arr(vec![
        arr(vec![V::from(1), V::from("a")]),
        arr(vec![V::from("b"), V::from(2)]),
    ]);
    let bytes = enc(&rows);
    let (code, off, msg) = dec_err(&bytes);
    assert_eq!(code, ErrorCode::TypeMismatch);
    // The str at byte 6 (row 2's first element) cannot join column 0 of ints.
    assert_eq!(off, 6, "{msg}");
    // A row that is not an array among positional rows.
    let rows = arr(vec![arr(vec![V::from(1), V::from("a")]), V::from(3)]);
    let (code, off, msg) = dec_err(&enc(&rows));
    assert_eq!((code, off), (ErrorCode::TypeMismatch, 5), "{msg}");
}

#[test]
fn a_columnar_map_is_a_table() {
    let m = V::Map(vec![
        (V::from("t"), arr((0..4).map(V::from).collect())),
        (
            V::from("name"),
            arr(["a", "b", "c", "d"].map(V::from).to_vec()),
        ),
        (
            V::from("x"),
            arr(vec![V::from(0.5), V::Nil, V::from(1.5), V::from(2)]),
        ),
    ]);
    let bytes = enc(&m);
    let b = dec(&bytes);
    assert_eq!(names(&b), ["t", "name", "x"]);
    assert_eq!(b.num_rows, 4);
    assert_eq!(i32s(&b.columns[0]), [0, 1, 2, 3]);
    assert_eq!(strs(&b.columns[1]), ["a", "b", "c", "d"]);
    assert_eq!(valid(&b.columns[2]), [true, false, true, true]);
    // Opted out: one row of List columns.
    let off = Options {
        columnar: false,
        ..Options::default()
    };
    let one = decode(&bytes, &off).unwrap();
    assert_eq!(one.num_rows, 1);
    assert!(matches!(one.columns[0].dtype, DataType::List(_)));
    // The stream decoder gives the same table, however the bytes arrive.
    for cut in [0, 1, 5, bytes.len() / 2, bytes.len()] {
        let mut s = StreamDecoder::new(Options::default());
        s.push(&bytes[..cut]).unwrap();
        assert!(
            s.take_batch(1).unwrap().is_none(),
            "held back until the end"
        );
        s.push(&bytes[cut..]).unwrap();
        assert_eq!(s.ready_rows(), 0);
        let t = s.finish().unwrap().unwrap();
        assert_same(&t, &b);
    }
}

#[test]
fn maps_that_are_not_columnar_stay_one_row() {
    let uneven = V::Map(vec![
        (V::from("a"), arr(vec![V::from(1), V::from(2)])),
        (V::from("b"), arr(vec![V::from(1)])),
    ]);
    let b = dec(&enc(&uneven));
    assert_eq!((b.num_rows, names(&b)), (1, vec!["a", "b"]));
    let scalar = V::Map(vec![
        (V::from("a"), arr(vec![V::from(1), V::from(2)])),
        (V::from("n"), V::from(2)),
    ]);
    assert_eq!(dec(&enc(&scalar)).num_rows, 1);
    // Inside a top-level array it is a row like any other.
    let inner = arr(vec![V::Map(vec![(
        V::from("a"),
        arr(vec![V::from(1), V::from(2)]),
    )])]);
    assert_eq!(dec(&enc(&inner)).num_rows, 1);
    // Two top-level maps: two rows.
    let mut two = enc(&uneven);
    two.extend(enc(&uneven));
    assert_eq!(dec(&two).num_rows, 2);
    let mut s = StreamDecoder::new(Options::default());
    s.push(&two).unwrap();
    assert_eq!(s.ready_rows(), 2);
}

#[test]
fn streams_and_pieces_read_positional_rows_like_decode() {
    let bytes = enc(&sensor_rows(300));
    let whole = dec(&bytes);
    let mut s = StreamDecoder::new(Options::default());
    let mut got = vec![];
    for chunk in bytes.chunks(97) {
        s.push(chunk).unwrap();
        while let Some(b) = s.take_batch(64).unwrap() {
            got.push(b);
        }
    }
    got.extend(s.finish().unwrap());
    assert_eq!(got.iter().map(|b| b.num_rows).sum::<usize>(), 300);
    for b in &got {
        assert_eq!(names(b), names(&whole));
    }
    let sp = split(&bytes, 3, &Options::default()).unwrap();
    for p in &sp.pieces {
        let b = arrowsmith_msgpack::decode_piece(
            &bytes[p.start..p.end],
            p.start as u64,
            sp.in_array,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(names(&b), names(&whole));
    }
    // Layout::Stream: concatenated arrays are rows too.
    let mut cat = Vec::new();
    for r in [
        arr(vec![V::from(1), V::from("a")]),
        arr(vec![V::from(2), V::from("b")]),
    ] {
        cat.extend(enc(&r));
    }
    let b = decode(&cat, &common::opts(Layout::Stream)).unwrap();
    assert_eq!((names(&b), b.num_rows), (vec!["0", "1"], 2));
}
