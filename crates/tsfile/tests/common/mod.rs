#![allow(dead_code)]
use arrowsmith_core::{Buffer, Column, DataType};
use serde_json::Value;
use std::path::PathBuf;

pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/tsfile")
}

pub fn is_valid(c: &Column, i: usize) -> bool {
    c.validity.as_ref().is_none_or(|v| v.get(i))
}

/// Row `i` of a column as JSON (the fixture JSON conventions: blob hex, date days, NaN string).
pub fn value(c: &Column, i: usize) -> Value {
    if c.dtype == DataType::Null || !is_valid(c, i) {
        return Value::Null;
    }
    match (&c.dtype, &c.buffers[..]) {
        (DataType::Bool, [Buffer::U8(b)]) => Value::Bool(b[i / 8] >> (i % 8) & 1 == 1),
        (_, [Buffer::I32(v)]) if c.dtype != DataType::DictionaryUtf8 => Value::from(v[i]),
        (_, [Buffer::I64(v)]) => Value::from(v[i]),
        (_, [Buffer::F32(v)]) => float(v[i] as f64),
        (_, [Buffer::F64(v)]) => float(v[i]),
        (DataType::Utf8, [Buffer::I32(o), Buffer::U8(d)]) => {
            Value::from(String::from_utf8(d[o[i] as usize..o[i + 1] as usize].to_vec()).unwrap())
        }
        (DataType::Binary, [Buffer::I32(o), Buffer::U8(d)]) => Value::from(
            d[o[i] as usize..o[i + 1] as usize]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>(),
        ),
        (DataType::DictionaryUtf8, [Buffer::I32(k)]) => value(&c.children[0], k[i] as usize),
        other => panic!("unexpected column {other:?}"),
    }
}

/// Non-finite floats are the strings "NaN", "Infinity" and "-Infinity" (as the generators
/// write them); NaN payloads compare as NaN.
fn float(f: f64) -> Value {
    if f.is_nan() {
        Value::from("NaN")
    } else if f.is_infinite() {
        Value::from(if f > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        serde_json::Number::from_f64(f).map(Value::Number).unwrap()
    }
}

/// Compare two JSON values; floats compare exactly as f64, including the sign of zero.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                x == y && x.is_sign_negative() == y.is_sign_negative()
            }
        }
        _ => a == b,
    }
}
