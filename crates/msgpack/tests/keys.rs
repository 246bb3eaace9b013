//! Map keys: non-str keys, Arrow Map columns, and the key and null budgets of records
//! (past them, records become one Map<Utf8, value> column). Inputs written by `rmpv`.
mod common;

use arrowsmith_core::{Batch, Buffer, Column, DataType, ErrorCode};
use arrowsmith_msgpack::{decode, ManyKeys, Maps, Options};
use common::*;
use rmpv::Value as V;

fn enc(v: &V) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, v).unwrap();
    out
}

fn names(b: &Batch) -> Vec<&str> {
    b.fields.iter().map(|f| f.name.as_str()).collect()
}

/// The entries of row `i` of a Map column, keys and values read by `key`/`val`.
fn entries<K, T>(
    c: &Column,
    i: usize,
    key: impl Fn(&Column) -> Vec<K>,
    val: impl Fn(&Column) -> Vec<T>,
) -> Vec<(K, T)>
where
    K: Clone,
    T: Clone,
{
    let DataType::Map(_) = &c.dtype else {
        panic!("not a map: {:?}", c.dtype)
    };
    let o = offsets(c);
    let e = &c.children[0];
    let (k, v) = (key(&e.children[0]), val(&e.children[1]));
    (o[i] as usize..o[i + 1] as usize)
        .map(|j| (k[j].clone(), v[j].clone()))
        .collect()
}

#[test]
fn int_and_bin_keys_name_columns_by_their_text() {
    // Rust BTreeMap<u32, _>, Go map[int]T, ormsgpack OPT_NON_STR_KEYS.
    let rows = V::Array(vec![
        V::Map(vec![
            (V::from(1), V::from("a")),
            (V::from(300), V::from("b")),
        ]),
        V::Map(vec![
            (V::from(-2), V::from("c")),
            (V::from(1), V::from("d")),
        ]),
        V::Map(vec![(V::Binary(b"raw".to_vec()), V::from("e"))]),
        V::Map(vec![(V::from(u64::MAX), V::from("f"))]),
    ]);
    let b = dec(&enc(&rows));
    assert_eq!(names(&b), ["1", "300", "-2", "raw", "18446744073709551615"]);
    let one = &b.columns[0];
    assert_eq!(strs(one)[..2], ["a".to_string(), "d".to_string()]);
    // The same name as an int and as a str in one map is a duplicate key.
    let dup = V::Map(vec![(V::from(1), V::from(0)), (V::from("1"), V::from(0))]);
    let (code, off, msg) = dec_err(&enc(&dup));
    assert_eq!((code, off), (ErrorCode::Invalid, 3), "{msg}");
    // A bin key must be UTF-8 to name a column.
    let bad = V::Map(vec![(V::Binary(vec![0xff]), V::from(0))]);
    assert_eq!(dec_err(&enc(&bad)).0, ErrorCode::InvalidUtf8);
}

#[test]
fn maps_as_map_columns_keep_key_types() {
    let o = Options {
        maps: Maps::Map,
        ..Options::default()
    };
    let rows = V::Array(vec![
        V::Map(vec![(V::from(1), V::from(0.5)), (V::from(7), V::from(1.5))]),
        V::Nil,
        V::Map(vec![]),
        V::Map(vec![(V::from(1i64 << 40), V::Nil)]),
    ]);
    let b = decode(&enc(&rows), &o).unwrap();
    assert_eq!(names(&b), ["value"]);
    let c = &b.columns[0];
    assert_eq!(valid(c), [true, false, true, true]);
    let DataType::Map(f) = &c.dtype else { panic!() };
    let DataType::Struct(kv) = &f.dtype else {
        panic!()
    };
    assert_eq!(
        (kv[0].dtype.clone(), kv[0].nullable),
        (DataType::Int64, false)
    );
    assert_eq!(entries(c, 0, i64s, f64s), [(1, 0.5), (7, 1.5)]);
    assert_eq!(entries(c, 2, i64s, f64s), []);
    assert_eq!(entries(c, 3, i64s, valid), [(1 << 40, false)]);
    // Nil keys have no place in an Arrow Map.
    let nil_key = V::Array(vec![V::Map(vec![(V::Nil, V::from(1))])]);
    let e = decode(&enc(&nil_key), &o).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 2));
}

/// 20,000 records, each with a key of its own: past `max_keys` one Map<Utf8, value>
/// column, with every entry in row order.
#[test]
fn many_distinct_keys_become_one_map_column() {
    let n = 20_000;
    let rows = V::Array(
        (0..n)
            .map(|i| V::Map(vec![(V::from(format!("k{i}")), V::from(i))]))
            .collect(),
    );
    let bytes = enc(&rows);
    let b = dec(&bytes);
    assert_eq!(names(&b), ["value"]);
    let c = &b.columns[0];
    let DataType::Map(f) = &c.dtype else {
        panic!("{:?}", c.dtype)
    };
    let DataType::Struct(kv) = &f.dtype else {
        panic!()
    };
    assert_eq!(kv[0].dtype, DataType::Utf8);
    for i in [0, 1023, 1024, 1025, n - 1] {
        assert_eq!(entries(c, i, strs, i32s), [(format!("k{i}"), i as i32)]);
    }
    // As an error, saying why (here the nulls of the missing keys come first).
    let as_error = Options {
        many_keys: ManyKeys::Error,
        ..Options::default()
    };
    let e = decode(&bytes, &as_error).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unsupported);
    assert!(
        e.message.contains("null cells") && e.message.contains("manyKeys"),
        "{}",
        e.message
    );
    // Dense records past the key limit: the error names it.
    let wide = V::Array(vec![V::Map(
        (0..11)
            .map(|k| (V::from(format!("f{k}")), V::from(k)))
            .collect(),
    )]);
    let e = decode(
        &enc(&wide),
        &Options {
            max_keys: 10,
            ..as_error.clone()
        },
    )
    .unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Unsupported, 1));
    assert!(
        e.message.contains("more than 10 distinct keys (maxKeys)"),
        "{}",
        e.message
    );
    let b = decode(
        &enc(&wide),
        &Options {
            max_keys: 10,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(entries(&b.columns[0], 0, strs, i32s).len(), 11);
    // Under the limit, one column per key.
    let b = decode(
        &bytes,
        &Options {
            max_keys: n,
            ..Options::default()
        },
    );
    // ... unless the missing keys' nulls outgrow the input (20,000 × 20,000 cells).
    assert_eq!(b.unwrap().fields.len(), 1);
    let few = V::Array(
        (0..50)
            .map(|i| V::Map(vec![(V::from(format!("k{i}")), V::from(i))]))
            .collect(),
    );
    assert_eq!(dec(&enc(&few)).fields.len(), 50);
}

#[test]
fn only_the_wide_records_column_becomes_a_map() {
    // Records whose `attrs` map uses many keys: `attrs` becomes a Map column, the rest
    // stays one column per key.
    let rows = V::Array(
        (0..3000)
            .map(|i| {
                V::Map(vec![
                    (V::from("id"), V::from(i)),
                    (
                        V::from("attrs"),
                        V::Map(vec![(V::from(format!("a{}", i % 2000)), V::from(i * 2))]),
                    ),
                ])
            })
            .collect(),
    );
    let b = dec(&enc(&rows));
    assert_eq!(names(&b), ["id", "attrs"]);
    assert_eq!(i32s(&b.columns[0])[2999], 2999);
    assert_eq!(
        entries(&b.columns[1], 2500, strs, i32s),
        [("a500".to_string(), 5000)]
    );
}

#[test]
fn sparse_records_become_a_map_column() {
    // 900 keys (under max_keys), each row setting one: 810,000 null cells for ~9 KB.
    let rows = V::Array(
        (0..900)
            .map(|i| V::Map(vec![(V::from(format!("{i}")), V::from(true))]))
            .collect(),
    );
    let b = dec(&enc(&rows));
    assert!(
        matches!(b.columns[0].dtype, DataType::Map(_)),
        "{:?}",
        b.fields
    );
    // A few missing keys per row stay records.
    let dense = V::Array(
        (0..900)
            .map(|i| {
                V::Map(
                    (0..8)
                        .filter(|k| (i + k) % 5 != 0)
                        .map(|k| (V::from(format!("f{k}")), V::from(k)))
                        .collect(),
                )
            })
            .collect(),
    );
    assert_eq!(dec(&enc(&dense)).fields.len(), 8);
    let Buffer::I32(_) = &dec(&enc(&dense)).columns[0].buffers[0] else {
        panic!()
    };
}

/// Records that lack some keys: every value in its own row, null where its key is
/// missing (also after a field's last value, and inside nested records), every column
/// as long as the table; a key repeated within one map is still an error. Checked
/// against the rmpv values the input was written from.
#[test]
fn missing_keys_are_nulls_in_their_rows() {
    let n = 40usize;
    // Key k is present in row i when (i * (k + 2)) % 7 < 3; "late" only in rows 20..23;
    // "in" is a nested map whose "x" is present in even rows only.
    let present = |i: usize, k: usize| (i * (k + 2)) % 7 < 3;
    let rows = V::Array(
        (0..n)
            .map(|i| {
                let mut kv: Vec<(V, V)> = (0..4)
                    .filter(|&k| present(i, k))
                    .map(|k| (V::from(format!("f{k}")), V::from((i * 10 + k) as i64)))
                    .collect();
                if (20..23).contains(&i) {
                    kv.push((V::from("late"), V::from(i as i64)));
                }
                let inner = if i % 2 == 0 {
                    vec![
                        (V::from("x"), V::from(i as i64)),
                        (V::from("y"), V::from(1)),
                    ]
                } else {
                    vec![(V::from("y"), V::from(2))]
                };
                kv.push((V::from("in"), V::Map(inner)));
                V::Map(kv)
            })
            .collect(),
    );
    let b = dec(&enc(&rows));
    assert_eq!(b.num_rows, n);
    for (f, c) in b.fields.iter().zip(&b.columns) {
        assert_eq!(c.len, n, "column {}", f.name);
    }
    let col = |name: &str| &b.columns[b.fields.iter().position(|f| f.name == name).unwrap()];
    for k in 0..4 {
        let c = col(&format!("f{k}"));
        let (v, ok) = (i32s(c), valid(c));
        for i in 0..n {
            assert_eq!(ok[i], present(i, k), "f{k} row {i}");
            if ok[i] {
                assert_eq!(v[i], (i * 10 + k) as i32, "f{k} row {i}");
            }
        }
    }
    let late = col("late");
    let (v, ok) = (i32s(late), valid(late));
    for i in 0..n {
        assert_eq!(ok[i], (20..23).contains(&i), "late row {i}");
        if ok[i] {
            assert_eq!(v[i], i as i32);
        }
    }
    let inner = col("in");
    let DataType::Struct(fs) = &inner.dtype else {
        panic!("{:?}", inner.dtype)
    };
    let x = &inner.children[fs.iter().position(|f| f.name == "x").unwrap()];
    assert_eq!(x.len, n);
    let (v, ok) = (i32s(x), valid(x));
    for i in 0..n {
        assert_eq!(ok[i], i % 2 == 0, "in.x row {i}");
        if ok[i] {
            assert_eq!(v[i], i as i32);
        }
    }
    // A key repeated in one map, after rows that lacked it.
    let dup = V::Array(vec![
        V::Map(vec![(V::from("a"), V::from(1))]),
        V::Map(vec![(V::from("b"), V::from(2))]),
        V::Map(vec![(V::from("a"), V::from(3)), (V::from("a"), V::from(4))]),
    ]);
    let (code, _, msg) = dec_err(&enc(&dup));
    assert_eq!(code, ErrorCode::Invalid);
    assert!(msg.contains("repeats a key"), "{msg}");
}

/// Keys out of their earlier positions (reordered, shifted by a missing or an extra key,
/// the same name under a wider str header) land in their own columns, and a key repeated
/// after a shifted one is still an error (the key cache's scan, keycache.rs).
#[test]
fn reordered_and_shifted_keys_find_their_columns() {
    let m =
        |kv: &[(&str, i64)]| V::Map(kv.iter().map(|(k, v)| (V::from(*k), V::from(*v))).collect());
    let rows = V::Array(vec![
        m(&[("a", 1), ("b", 2), ("c", 3)]),
        m(&[("c", 4), ("a", 5)]),
        m(&[("b", 6), ("c", 7), ("a", 8)]),
        m(&[("a", 9), ("c", 10)]),
        m(&[("d", 11), ("c", 12), ("b", 13)]),
    ]);
    let mut bytes = enc(&rows);
    let b = dec(&bytes);
    let col = |b: &Batch, name: &str| {
        let c = &b.columns[b.fields.iter().position(|f| f.name == name).unwrap()];
        (i32s(c), valid(c))
    };
    let want = [
        ("a", [Some(1), Some(5), Some(8), Some(9), None]),
        ("b", [Some(2), None, Some(6), None, Some(13)]),
        ("c", [Some(3), Some(4), Some(7), Some(10), Some(12)]),
        ("d", [None, None, None, None, Some(11)]),
    ];
    for (name, w) in want {
        let (v, ok) = col(&b, name);
        let got: Vec<Option<i32>> = (0..5).map(|i| ok[i].then_some(v[i])).collect();
        assert_eq!(got, w, "column {name}");
    }
    // The last row's "c" as a str8 (0xd9 0x01 'c'): another encoding of the same key.
    let at = bytes
        .windows(3)
        .rposition(|w| w == [0x0b, 0xa1, b'c'])
        .unwrap()
        + 1;
    bytes.splice(at..at + 1, [0xd9, 0x01]);
    let (v, _) = col(&dec(&bytes), "c");
    assert_eq!(v[4], 12);
    let dup = V::Array(vec![m(&[("a", 1), ("b", 2)]), m(&[("b", 3), ("b", 4)])]);
    let (code, _, msg) = dec_err(&enc(&dup));
    assert_eq!(code, ErrorCode::Invalid);
    assert!(msg.contains("repeats a key"), "{msg}");
}
