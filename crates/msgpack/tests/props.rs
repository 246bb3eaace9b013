//! Property tests against an independent encoder (rmpv / rmp): random values encoded by
//! rmp, decoded, compared value by value; fast path on/off identical; streaming with
//! random chunk boundaries identical to the values.

mod common;
use arrowsmith_core::{Batch, Buffer, Column, DataType};
use arrowsmith_msgpack::{decode, Layout, Options, StreamDecoder};
use common::*;
use proptest::prelude::*;
use rmpv::Value;

fn int128(v: &Value) -> Option<i128> {
    match v {
        Value::Integer(n) => n
            .as_i64()
            .map(|x| x as i128)
            .or(n.as_u64().map(|x| x as i128)),
        _ => None,
    }
}

fn same_f64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Row `i` of `col` equals `want` (nil ↔ null; ints compared exactly; floats bit-exact).
fn check(col: &Column, i: usize, want: &Value) -> Result<(), String> {
    let is_valid = col.dtype != DataType::Null && col.validity.as_ref().is_none_or(|v| v.get(i));
    if let Value::Nil = want {
        return if is_valid {
            Err(format!("row {i}: want nil, got a value in {:?}", col.dtype))
        } else {
            Ok(())
        };
    }
    if !is_valid {
        return Err(format!("row {i}: want {want}, got null"));
    }
    let ok = match (&col.dtype, &col.buffers.first(), want) {
        (DataType::Int32, Some(Buffer::I32(v)), w) => int128(w) == Some(v[i] as i128),
        (DataType::Int64, Some(Buffer::I64(v)), w) => int128(w) == Some(v[i] as i128),
        (DataType::UInt64, Some(Buffer::U64(v)), w) => int128(w) == Some(v[i] as i128),
        (DataType::Float32, Some(Buffer::F32(v)), Value::F32(x)) => {
            v[i].to_bits() == x.to_bits() || (v[i].is_nan() && x.is_nan())
        }
        (DataType::Float64, Some(Buffer::F64(v)), Value::F32(x)) => same_f64(v[i], *x as f64),
        (DataType::Float64, Some(Buffer::F64(v)), Value::F64(x)) => same_f64(v[i], *x),
        (DataType::Float64, Some(Buffer::F64(v)), w) => int128(w).is_some_and(|n| v[i] == n as f64),
        (DataType::Bool, Some(Buffer::U8(bits)), Value::Boolean(b)) => {
            (bits[i / 8] >> (i % 8) & 1 == 1) == *b
        }
        (DataType::Utf8, _, Value::String(s)) => byte_values(col)[i] == s.as_bytes(),
        (DataType::Binary, _, Value::Binary(b)) => &byte_values(col)[i] == b,
        (DataType::Struct(f), _, Value::Ext(t, d)) if f.len() == 2 && f[0].name == "type" => {
            let Buffer::I8(types) = &col.children[0].buffers[0] else {
                return Err("ext types".into());
            };
            types[i] == *t && &byte_values(&col.children[1])[i] == d
        }
        (DataType::List(_), Some(Buffer::I32(o)), Value::Array(items)) => {
            let (s, e) = (o[i] as usize, o[i + 1] as usize);
            if e - s != items.len() {
                return Err(format!("row {i}: list length {} != {}", e - s, items.len()));
            }
            for (k, item) in items.iter().enumerate() {
                check(&col.children[0], s + k, item)?;
            }
            true
        }
        (DataType::FixedSizeList(_, n), _, Value::Array(items)) => {
            let n = *n as usize;
            if items.len() != n {
                return Err(format!("row {i}: list length {n} != {}", items.len()));
            }
            for (k, item) in items.iter().enumerate() {
                check(&col.children[0], i * n + k, item)?;
            }
            true
        }
        (DataType::Struct(fields), _, Value::Map(entries)) => {
            for (f, child) in fields.iter().zip(&col.children) {
                let v = entries
                    .iter()
                    .find(|(k, _)| k.as_str() == Some(&f.name))
                    .map_or(&Value::Nil, |(_, v)| v);
                check(child, i, v).map_err(|e| format!("{}.{e}", f.name))?;
            }
            entries
                .iter()
                .all(|(k, _)| fields.iter().any(|f| Some(f.name.as_str()) == k.as_str()))
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("row {i}: want {want}, column {:?}", col.dtype))
    }
}

/// Every row of `batch` equals `rows` (records → one column per key).
fn check_batch(batch: &Batch, rows: &[Value]) -> Result<(), String> {
    if batch.num_rows != rows.len() {
        return Err(format!("{} rows, want {}", batch.num_rows, rows.len()));
    }
    let records = rows.iter().any(|r| matches!(r, Value::Map(_)));
    for (i, r) in rows.iter().enumerate() {
        if records {
            // A nil row among records: every column is null there.
            let entries: &[(Value, Value)] = match r {
                Value::Map(e) => e,
                Value::Nil => &[],
                _ => return Err(format!("row {i} is neither a map nor nil")),
            };
            for (f, c) in batch.fields.iter().zip(&batch.columns) {
                let v = entries
                    .iter()
                    .find(|(k, _)| k.as_str() == Some(&f.name))
                    .map_or(&Value::Nil, |(_, v)| v);
                check(c, i, v).map_err(|e| format!("{}: {e}", f.name))?;
            }
            if !entries.iter().all(|(k, _)| {
                batch
                    .fields
                    .iter()
                    .any(|f| Some(f.name.as_str()) == k.as_str())
            }) {
                return Err(format!("row {i}: a key has no column"));
            }
        } else {
            check(&batch.columns[0], i, r)?;
        }
    }
    Ok(())
}

fn encode(v: &Value) -> Vec<u8> {
    let mut out = vec![];
    rmpv::encode::write_value(&mut out, v).unwrap();
    out
}

// ---- generators: one kind per column so that every value fits one Arrow type ----

fn small_int() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => -32i64..128,
        1 => -200i64..300,
        1 => any::<i16>().prop_map(|x| x as i64),
        1 => any::<i32>().prop_map(|x| x as i64),
        1 => any::<i64>(),
    ]
}

fn scalar(kind: u8) -> BoxedStrategy<Value> {
    match kind {
        0 => small_int().prop_map(Value::from).boxed(),
        1 => prop_oneof![3 => 0u64..300, 1 => any::<u64>()]
            .prop_map(Value::from)
            .boxed(),
        2 => any::<f32>().prop_map(Value::F32).boxed(),
        3 => prop_oneof![
            any::<f32>().prop_map(Value::F32),
            any::<f64>().prop_map(Value::F64)
        ]
        .boxed(),
        4 => any::<bool>().prop_map(Value::Boolean).boxed(),
        5 => prop::collection::vec(any::<char>(), 0..12)
            .prop_map(|c| Value::from(String::from_iter(c)))
            .boxed(),
        6 => prop::collection::vec(any::<u8>(), 0..300)
            .prop_map(Value::Binary)
            .boxed(),
        7 => (
            any::<i8>().prop_filter("not a timestamp", |t| *t != -1),
            prop::collection::vec(any::<u8>(), 0..20),
        )
            .prop_map(|(t, d)| Value::Ext(t, d))
            .boxed(),
        8 => prop::collection::vec(prop::option::weighted(0.9, small_int()), 0..6)
            .prop_map(|v| {
                Value::Array(
                    v.into_iter()
                        .map(|x| x.map_or(Value::Nil, Value::from))
                        .collect(),
                )
            })
            .boxed(),
        _ => (
            prop::option::of(small_int()),
            prop::option::of(any::<bool>()),
        )
            .prop_map(|(a, b)| {
                let mut m = vec![];
                if let Some(a) = a {
                    m.push((Value::from("x"), Value::from(a)));
                }
                if let Some(b) = b {
                    m.push((Value::from("y"), Value::from(b)));
                }
                Value::Map(m)
            })
            .boxed(),
    }
}

fn column_values(len: usize) -> impl Strategy<Value = Vec<Value>> {
    (0u8..10).prop_flat_map(move |k| {
        prop::collection::vec(prop::option::weighted(0.85, scalar(k)), 0..len).prop_map(|v| {
            v.into_iter()
                .map(|x| x.unwrap_or(Value::Nil))
                .collect::<Vec<_>>()
        })
    })
}

fn records(len: usize) -> impl Strategy<Value = Vec<Value>> {
    // Four keys, each with its own kind; each row has a random subset in random order.
    (
        prop::collection::vec(0u8..10, 4),
        prop::collection::vec(any::<u64>(), 1..len),
    )
        .prop_flat_map(|(kinds, seeds)| {
            let keys = ["alpha", "b", "c\u{e9}", "d_long_key_name"];
            let rows: Vec<BoxedStrategy<Value>> = seeds
                .iter()
                .map(|&seed| {
                    let present: Vec<(&str, u8)> = keys
                        .iter()
                        .zip(&kinds)
                        .enumerate()
                        .filter(|(j, _)| seed >> j & 1 == 1)
                        .map(|(_, (k, t))| (*k, *t))
                        .collect();
                    let rev = seed >> 8 & 1 == 1;
                    present
                        .into_iter()
                        .map(|(k, t)| {
                            prop::option::weighted(0.9, scalar(t))
                                .prop_map(move |v| (Value::from(k), v.unwrap_or(Value::Nil)))
                        })
                        .collect::<Vec<_>>()
                        .prop_map(move |mut e| {
                            if rev {
                                e.reverse();
                            }
                            Value::Map(e)
                        })
                        .boxed()
                })
                .collect();
            rows
        })
}

fn fast_and_slow(bytes: &[u8], layout: Layout) -> Result<Batch, arrowsmith_core::DecodeError> {
    let a = decode(
        bytes,
        &Options {
            layout,
            ..Options::default()
        },
    );
    let b = decode(
        bytes,
        &Options {
            layout,
            fast_path: false,
            ..Options::default()
        },
    );
    match (&a, &b) {
        (Ok(x), Ok(y)) => assert_same(x, y),
        _ => assert_eq!(a, b),
    }
    a
}

fn stream_batches(bytes: &[u8], cuts: &[usize], max_rows: usize, layout: Layout) -> Vec<Batch> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort();
    let mut s = StreamDecoder::new(Options {
        layout,
        ..Options::default()
    });
    let mut out = vec![];
    let mut at = 0;
    for c in cuts.into_iter().chain([bytes.len()]) {
        s.push(&bytes[at..c]).unwrap();
        at = c;
        while let Some(b) = s.take_batch(max_rows).unwrap() {
            assert!(b.num_rows <= max_rows);
            out.push(b);
        }
    }
    out.extend(s.finish().unwrap());
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn array_of_scalars_matches_rmpv(rows in column_values(200)) {
        let bytes = encode(&Value::Array(rows.clone()));
        let b = fast_and_slow(&bytes, Layout::Auto).unwrap();
        check_batch(&b, &rows).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn records_match_rmpv(rows in records(60)) {
        let bytes = encode(&Value::Array(rows.clone()));
        let b = fast_and_slow(&bytes, Layout::Auto).unwrap();
        check_batch(&b, &rows).map_err(TestCaseError::fail)?;
        // Same rows as a stream of concatenated maps. A lone map whose values are all arrays
        // of one length is a columnar payload (docs/msgpack.md), not one row: skip that case.
        if !matches!(rows.as_slice(), [row] if is_columnar(row)) {
            let stream: Vec<u8> = rows.iter().flat_map(encode).collect();
            let b2 = fast_and_slow(&stream, Layout::Auto).unwrap();
            check_batch(&b2, &rows).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn int_type_follows_the_widest_value(xs in prop::collection::vec(small_int(), 1..100), big in prop::option::of(any::<u64>())) {
        let mut rows: Vec<Value> = xs.iter().map(|&x| Value::from(x)).collect();
        if let Some(u) = big {
            rows.push(Value::from(u));
        }
        let bytes = encode(&Value::Array(rows.clone()));
        let r = fast_and_slow(&bytes, Layout::Array);
        let vals: Vec<i128> = rows.iter().map(|v| int128(v).unwrap()).collect();
        let any_neg = vals.iter().any(|&v| v < 0);
        let any_huge = vals.iter().any(|&v| v > i64::MAX as i128);
        if any_neg && any_huge {
            prop_assert_eq!(r.unwrap_err().code, arrowsmith_core::ErrorCode::TypeMismatch);
        } else {
            let b = r.unwrap();
            let want = if any_huge { DataType::UInt64 }
                else if vals.iter().all(|&v| i32::try_from(v).is_ok()) { DataType::Int32 } else { DataType::Int64 };
            prop_assert_eq!(&b.columns[0].dtype, &want);
            check_batch(&b, &rows).map_err(TestCaseError::fail)?;
        }
    }

    /// Fixints with other encodings (minimal and deliberately wide) at random positions:
    /// the fast path must fall through at every position and resume right after.
    #[test]
    fn mixed_int_encodings_fast_equals_slow(items in prop::collection::vec((0u8..10, any::<i16>()), 0..300)) {
        let mut bytes = vec![];
        rmp::encode::write_array_len(&mut bytes, items.len() as u32).unwrap();
        let mut want = vec![];
        for &(enc, x) in &items {
            let x = x as i64;
            let v = match enc {
                0..=4 => { let f = (x & 0x7f) - if x & 1 == 1 { 32 } else { 0 }; let f = f.max(-32); rmp::encode::write_sint(&mut bytes, f).unwrap(); f }
                5 => { let u = x as u8; rmp::encode::write_u8(&mut bytes, u).unwrap(); u as i64 }
                6 => { let u = x as u16; rmp::encode::write_u16(&mut bytes, u).unwrap(); u as i64 }
                7 => { rmp::encode::write_i32(&mut bytes, x as i32 * 1000).unwrap(); x * 1000 }
                8 => { rmp::encode::write_i16(&mut bytes, x as i16).unwrap(); x }
                _ => { rmp::encode::write_u32(&mut bytes, (x as u16) as u32).unwrap(); (x as u16) as i64 }
            };
            want.push(Value::from(v));
        }
        let b = fast_and_slow(&bytes, Layout::Auto).unwrap();
        check_batch(&b, &want).map_err(TestCaseError::fail)?;
    }

    /// Blocks of one encoding, 1 to 150 values long: short runs (left to the general path),
    /// runs long enough to reset the fast path's back-off, and every mix of the two.
    #[test]
    fn int_runs_fast_equals_slow(blocks in prop::collection::vec((0u8..7, 1usize..150, any::<i16>()), 0..40)) {
        let total: usize = blocks.iter().map(|b| b.1).sum();
        let mut bytes = vec![];
        rmp::encode::write_array_len(&mut bytes, total as u32).unwrap();
        let mut want = vec![];
        for &(enc, len, seed) in &blocks {
            for i in 0..len {
                let x = seed as i64 + i as i64 * 7;
                let v = match enc {
                    0 => { let f = x.rem_euclid(160) - 32; rmp::encode::write_sint(&mut bytes, f).unwrap(); f }
                    1 => { let u = x as u8; rmp::encode::write_u8(&mut bytes, u).unwrap(); u as i64 }
                    2 => { let u = x as u16; rmp::encode::write_u16(&mut bytes, u).unwrap(); u as i64 }
                    3 => { rmp::encode::write_i32(&mut bytes, x as i32 * 1000).unwrap(); x * 1000 }
                    4 => { rmp::encode::write_i8(&mut bytes, x as i8).unwrap(); x as i8 as i64 }
                    5 => { rmp::encode::write_i16(&mut bytes, x as i16).unwrap(); x as i16 as i64 }
                    _ => { rmp::encode::write_u32(&mut bytes, (x as u16) as u32).unwrap(); (x as u16) as i64 }
                };
                want.push(Value::from(v));
            }
        }
        let b = fast_and_slow(&bytes, Layout::Auto).unwrap();
        check_batch(&b, &want).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn stream_chunks_match_decode(rows in prop_oneof![column_values(120), records(40)],
                                  cuts in prop::collection::vec(any::<usize>(), 0..8),
                                  max_rows in 1usize..50,
                                  as_array in any::<bool>()) {
        // Per-batch inference: ints with floats only in some batches would be TypeMismatch
        // in the others, so kinds here are consistent per column (see the generators).
        // A lone map whose values are all arrays of one length is, as a stream, a columnar
        // payload (docs/msgpack.md), not one row: skip that case, as records_match_rmpv does.
        prop_assume!(as_array || !matches!(rows.as_slice(), [row] if is_columnar(row)));
        let (bytes, layout) = if as_array {
            (encode(&Value::Array(rows.clone())), Layout::Auto)
        } else {
            (rows.iter().flat_map(encode).collect(), Layout::Stream)
        };
        let batches = stream_batches(&bytes, &cuts, max_rows, layout);
        prop_assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), rows.len());
        let mut at = 0;
        for b in &batches {
            check_batch(b, &rows[at..at + b.num_rows]).map_err(TestCaseError::fail)?;
            at += b.num_rows;
        }
        // One chunk, one batch: exactly what `decode` gives.
        let one = stream_batches(&bytes, &[], usize::MAX, layout);
        let whole = decode(&bytes, &Options { layout, ..Options::default() }).unwrap();
        if rows.is_empty() {
            prop_assert!(one.is_empty());
        } else {
            prop_assert_eq!(one.len(), 1);
            assert_same(&one[0], &whole);
        }
    }
}

/// A map whose values are all arrays of one length: a columnar payload when it stands alone.
fn is_columnar(v: &Value) -> bool {
    let Value::Map(kv) = v else { return false };
    let lens: Vec<Option<usize>> = kv
        .iter()
        .map(|(_, v)| v.as_array().map(|a| a.len()))
        .collect();
    lens.iter().all(|l| l.is_some() && *l == lens[0])
}
