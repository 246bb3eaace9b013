#![allow(dead_code)]
//! Helpers shared by the integration tests: read typed values back out of columns.

use arrowsmith_core::{Batch, Buffer, Column, DataType, ErrorCode};
use arrowsmith_msgpack::{decode, Layout, Options};

pub fn opts(layout: Layout) -> Options {
    Options {
        layout,
        ..Options::default()
    }
}

pub fn dec(bytes: &[u8]) -> Batch {
    let a = decode(bytes, &Options::default()).expect("decode");
    let b = decode(
        bytes,
        &Options {
            fast_path: false,
            ..Options::default()
        },
    )
    .expect("decode slow");
    assert_same(&a, &b);
    a
}

pub fn dec_err(bytes: &[u8]) -> (ErrorCode, u64, String) {
    let e = decode(bytes, &Options::default()).expect_err("expected an error");
    let e2 = decode(
        bytes,
        &Options {
            fast_path: false,
            ..Options::default()
        },
    )
    .expect_err("expected an error");
    assert_eq!(e, e2);
    (e.code, e.offset, e.message.clone())
}

pub fn value(b: &Batch) -> &Column {
    assert_eq!(b.fields.len(), 1);
    assert_eq!(b.fields[0].name, "value");
    &b.columns[0]
}

pub fn valid(c: &Column) -> Vec<bool> {
    (0..c.len)
        .map(|i| c.validity.as_ref().is_none_or(|v| v.get(i)))
        .collect()
}

pub fn i32s(c: &Column) -> Vec<i32> {
    assert_eq!(c.dtype, DataType::Int32);
    match &c.buffers[0] {
        Buffer::I32(v) => v.clone(),
        b => panic!("{b:?}"),
    }
}
pub fn i64s(c: &Column) -> Vec<i64> {
    match &c.buffers[0] {
        Buffer::I64(v) => v.clone(),
        b => panic!("{b:?}"),
    }
}
pub fn u64s(c: &Column) -> Vec<u64> {
    assert_eq!(c.dtype, DataType::UInt64);
    match &c.buffers[0] {
        Buffer::U64(v) => v.clone(),
        b => panic!("{b:?}"),
    }
}
pub fn f32s(c: &Column) -> Vec<f32> {
    assert_eq!(c.dtype, DataType::Float32);
    match &c.buffers[0] {
        Buffer::F32(v) => v.clone(),
        b => panic!("{b:?}"),
    }
}
pub fn f64s(c: &Column) -> Vec<f64> {
    assert_eq!(c.dtype, DataType::Float64);
    match &c.buffers[0] {
        Buffer::F64(v) => v.clone(),
        b => panic!("{b:?}"),
    }
}
pub fn offsets(c: &Column) -> Vec<i32> {
    match &c.buffers[0] {
        Buffer::I32(v) => v.clone(),
        b => panic!("{b:?}"),
    }
}
/// Values of a Utf8/Binary column as byte vectors.
pub fn byte_values(c: &Column) -> Vec<Vec<u8>> {
    let (Buffer::I32(o), Buffer::U8(d)) = (&c.buffers[0], &c.buffers[1]) else {
        panic!("not bytes")
    };
    o.windows(2)
        .map(|w| d[w[0] as usize..w[1] as usize].to_vec())
        .collect()
}
pub fn strs(c: &Column) -> Vec<String> {
    assert_eq!(c.dtype, DataType::Utf8);
    byte_values(c)
        .into_iter()
        .map(|b| String::from_utf8(b).unwrap())
        .collect()
}
pub fn bools(c: &Column) -> Vec<bool> {
    assert_eq!(c.dtype, DataType::Bool);
    let Buffer::U8(bits) = &c.buffers[0] else {
        panic!()
    };
    (0..c.len)
        .map(|i| bits[i / 8] & (1 << (i % 8)) != 0)
        .collect()
}

/// Bit-exact equality (NaN payloads, -0.0) of two batches: schema JSON and every buffer.
pub fn assert_same(a: &Batch, b: &Batch) {
    let (da, db) = (
        arrowsmith_core::describe::describe(a),
        arrowsmith_core::describe::describe(b),
    );
    assert_eq!(da.json, db.json);
    assert_eq!(da.buffers, db.buffers);
}
