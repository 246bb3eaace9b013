//! Shapes that real encoders write inside fields: positional structs (nested arrays of
//! mixed kinds), Rust externally tagged enums, PHP's empty arrays among maps; exact
//! numbers when ints and floats share a column; concatenated top-level arrays under
//! `Layout::Auto`. (Real encoders' files: tests/encoders.rs; these pin the byte rules.)
mod common;

use arrowsmith_core::{DataType, ErrorCode};
use arrowsmith_msgpack::{decode, Layout, Options, StreamDecoder, Tuples};
use common::*;
use rmpv::Value as V;

fn enc(v: &V) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, v).unwrap();
    out
}

fn s(x: &str) -> V {
    V::from(x)
}

fn map(kv: &[(&str, V)]) -> V {
    V::Map(kv.iter().map(|(k, v)| (s(k), v.clone())).collect())
}

fn names(t: &DataType) -> Vec<String> {
    match t {
        DataType::Struct(f) => f.iter().map(|f| f.name.clone()).collect(),
        t => panic!("not a struct: {t:?}"),
    }
}

/// The stream decoder over `bytes` in 3-byte chunks, all rows in one batch at the end.
fn streamed(bytes: &[u8], o: &Options) -> arrowsmith_core::Batch {
    let mut d = StreamDecoder::new(o.clone());
    for c in bytes.chunks(3) {
        d.push(c).unwrap();
    }
    d.finish().unwrap().unwrap()
}

#[test]
fn nested_arrays_of_mixed_kinds_are_positional_structs() {
    // rmp-serde `to_vec`: {id, meta: {name, level}} as [id, [name, level]].
    let rows = V::Array(
        (0..4)
            .map(|i| {
                V::Array(vec![
                    V::from(i),
                    V::Array(vec![s(&format!("m{i}")), V::from(i * 10)]),
                ])
            })
            .collect(),
    );
    let bytes = enc(&rows);
    let b = dec(&bytes);
    assert_eq!(b.fields[1].name, "1");
    let meta = &b.columns[1];
    assert_eq!(names(&meta.dtype), ["0", "1"]);
    assert_eq!(strs(&meta.children[0]), ["m0", "m1", "m2", "m3"]);
    assert_eq!(i32s(&meta.children[1]), [0, 10, 20, 30]);
    assert_same(&b, &streamed(&bytes, &Options::default()));
    // Arrays of one kind stay lists.
    let lists = enc(&V::Array(vec![map(&[(
        "v",
        V::Array(vec![V::from(1), V::from(2)]),
    )])]));
    assert!(matches!(dec(&lists).columns[0].dtype, DataType::List(_)));
    // A shorter array leaves the last positions null; nil is a null struct.
    let ragged = enc(&V::Array(vec![
        map(&[("e", V::Array(vec![V::from(1), s("a"), V::from(true)]))]),
        map(&[("e", V::Array(vec![V::from(2), s("b")]))]),
        map(&[("e", V::Nil)]),
    ]));
    let b = dec(&ragged);
    let e = &b.columns[0];
    assert_eq!(names(&e.dtype), ["0", "1", "2"]);
    assert_eq!(valid(e), [true, true, false]);
    assert_eq!(valid(&e.children[2]), [true, false, false]);
    // Under `tuples: List` mixed kinds in an array stay a type mismatch.
    let o = Options {
        tuples: Tuples::List,
        ..Options::default()
    };
    assert_eq!(
        decode(&ragged, &o).unwrap_err().code,
        ErrorCode::TypeMismatch
    );
    // A map among positional structs is a type mismatch.
    let mixed = enc(&V::Array(vec![
        map(&[("e", V::Array(vec![V::from(1), s("a")]))]),
        map(&[("e", map(&[("x", V::from(1))]))]),
    ]));
    assert_eq!(dec_err(&mixed).0, ErrorCode::TypeMismatch);
}

#[test]
fn rust_enums_are_a_variant_and_payloads() {
    // serde's externally tagged enums as rmp-serde writes them.
    let cmds = [
        s("Stop"),
        map(&[("Wait", V::from(10))]),
        map(&[("Say", s("hi"))]),
        s("Stop"),
        V::Nil,
    ];
    let rows = V::Array(cmds.iter().map(|c| map(&[("cmd", c.clone())])).collect());
    let bytes = enc(&rows);
    let b = dec(&bytes);
    let c = &b.columns[0];
    assert_eq!(names(&c.dtype), ["variant", "Wait", "Say"]);
    assert_eq!(valid(c), [true, true, true, true, false]);
    assert_eq!(strs(&c.children[0])[..4], ["Stop", "Wait", "Say", "Stop"]);
    assert_eq!(valid(&c.children[1]), [false, true, false, false, false]);
    assert_eq!(i32s(&c.children[1])[1], 10);
    assert_eq!(strs(&c.children[2])[2], "hi");
    assert_same(&b, &streamed(&bytes, &Options::default()));
    // Starting with a map works the same.
    let b2 = dec(&enc(&V::Array(
        cmds[1..]
            .iter()
            .map(|c| map(&[("cmd", c.clone())]))
            .collect(),
    )));
    assert_eq!(names(&b2.columns[0].dtype), ["variant", "Wait", "Say"]);
    // A map of two keys among strs is not an enum: a type mismatch, as before.
    let not = enc(&V::Array(vec![
        map(&[("x", s("a"))]),
        map(&[("x", map(&[("a", V::from(1)), ("b", V::from(2))]))]),
    ]));
    assert_eq!(dec_err(&not).0, ErrorCode::TypeMismatch);
    // In an array: [str, map of two keys] is positional after all.
    let tup = enc(&V::Array(vec![map(&[(
        "e",
        V::Array(vec![s("tag"), map(&[("a", V::from(1)), ("b", V::from(2))])]),
    )])]));
    assert_eq!(names(&dec(&tup).columns[0].dtype), ["0", "1"]);
}

#[test]
fn an_empty_array_among_maps_is_an_empty_map() {
    // php-msgpack writes an empty PHP array as fixarray 0, whatever the others are.
    for first_empty in [true, false] {
        let mut attrs = [map(&[("k", V::from(1))]), V::Array(vec![])];
        if first_empty {
            attrs.reverse();
        }
        let rows = V::Array(attrs.iter().map(|a| map(&[("attrs", a.clone())])).collect());
        let b = dec(&enc(&rows));
        let c = &b.columns[0];
        assert_eq!(names(&c.dtype), ["k"]);
        assert_eq!(valid(c), [true, true]);
        let k_valid = if first_empty {
            [false, true]
        } else {
            [true, false]
        };
        assert_eq!(valid(&c.children[0]), k_valid);
    }
    // Empty arrays among lists stay lists; an empty row among records is a row of nulls.
    let rows = enc(&V::Array(vec![map(&[("a", V::from(1))]), V::Array(vec![])]));
    let b = dec(&rows);
    assert_eq!((b.num_rows, valid(&b.columns[0])), (2, vec![true, false]));
}

#[test]
fn ints_and_floats_share_a_column_only_exactly() {
    let col = |vals: Vec<V>| {
        enc(&V::Array(
            vals.into_iter().map(|v| map(&[("v", v)])).collect(),
        ))
    };
    // Within ±2^53 (and exact beyond): Float64, every value exact.
    let ok = col(vec![
        V::from(1.5),
        V::from(1i64 << 53),
        V::from(-(1i64 << 60)),
        V::from(3),
    ]);
    assert_eq!(
        f64s(&dec(&ok).columns[0]),
        [1.5, (1u64 << 53) as f64, -((1u64 << 60) as f64), 3.0]
    );
    // 2^63-1 has no exact Float64: an error, whichever comes first, on every path.
    for vals in [
        vec![V::from(1.5), V::from(i64::MAX)],
        vec![V::from(i64::MAX), V::from(1.5)],
        vec![V::from(u64::MAX), V::from(0.5f32)],
        vec![V::from(0.5f32), V::from((1u64 << 53) + 1)],
        vec![V::from(2.5), V::from(-(1i64 << 53) - 1)],
    ] {
        let (code, _, msg) = dec_err(&col(vals));
        assert_eq!(code, ErrorCode::TypeMismatch, "{msg}");
        assert!(msg.contains("exactly"), "{msg}");
    }
    // Big ints without floats stay exact ints.
    let ints = col(vec![V::from(1), V::from(i64::MAX)]);
    assert_eq!(i64s(&dec(&ints).columns[0]), [1, i64::MAX]);
}

#[test]
fn auto_reads_concatenated_arrays_as_a_stream() {
    // Fluentd message mode: [tag, time, record] arrays back to back.
    let msg = |i: i64| {
        enc(&V::Array(vec![
            s("app"),
            V::from(1_700_000_000 + i),
            map(&[("n", V::from(i))]),
        ]))
    };
    let bytes: Vec<u8> = (0..3).flat_map(msg).collect();
    let auto = dec(&bytes);
    assert_eq!(auto.num_rows, 3);
    assert_eq!(
        auto.fields
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>(),
        ["0", "1", "2"]
    );
    let stream = decode(&bytes, &opts(Layout::Stream)).unwrap();
    assert_same(&auto, &stream);
    assert_same(&auto, &streamed(&bytes, &Options::default()));
    // Arrays of one kind back to back: the same rows too.
    let nums: Vec<u8> = (0..3)
        .flat_map(|i| enc(&V::Array(vec![V::from(i), V::from(i + 1)])))
        .collect();
    let b = dec(&nums);
    assert_eq!(b.num_rows, 3);
    assert_same(&b, &streamed(&nums, &Options::default()));
    // Arrays of positional rows back to back: the first alone would decode as positional
    // rows, but values follow it, so each top-level array is a row (as Layout::Stream).
    let tuples: Vec<u8> = (0..3)
        .flat_map(|i| {
            enc(&V::Array(vec![
                V::Array(vec![V::from(i), s("a")]),
                V::Array(vec![V::from(i + 1), s("b")]),
            ]))
        })
        .collect();
    let t = dec(&tuples);
    assert_eq!(t.num_rows, 3);
    assert_same(&t, &decode(&tuples, &opts(Layout::Stream)).unwrap());
    // One array of positional rows (Rust structs as arrays): one row per element.
    let one = enc(&V::Array(vec![
        V::Array(vec![V::from(1), s("a"), V::Nil]),
        V::Array(vec![V::from(2), s("b"), V::from(2.5)]),
    ]));
    let o = dec(&one);
    assert_eq!(o.num_rows, 2);
    assert_eq!(
        o.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
        ["0", "1", "2"]
    );
}
