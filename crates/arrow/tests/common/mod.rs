#![allow(dead_code)]
//! Arrow values in the fixture JSON's conventions (the generators wrote these files from the
//! writers' own readers): blobs as hex, dates as days, non-finite floats as strings.

use arrow_array::{cast::AsArray, types::*, Array};
use arrow_schema::{DataType, TimeUnit};
use serde_json::Value;
use std::path::PathBuf;

pub fn fixtures(format: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(format)
}

/// Row `i` of `a` as JSON.
pub fn value(a: &dyn Array, i: usize) -> Value {
    if a.is_null(i) {
        return Value::Null;
    }
    match a.data_type() {
        DataType::Boolean => Value::Bool(a.as_boolean().value(i)),
        DataType::Int8 => a.as_primitive::<Int8Type>().value(i).into(),
        DataType::Int16 => a.as_primitive::<Int16Type>().value(i).into(),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i).into(),
        DataType::UInt8 => a.as_primitive::<UInt8Type>().value(i).into(),
        DataType::UInt16 => a.as_primitive::<UInt16Type>().value(i).into(),
        DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
        DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i).into(),
        DataType::Float16 => float(a.as_primitive::<Float16Type>().value(i).to_f64()),
        DataType::Float32 => float(a.as_primitive::<Float32Type>().value(i) as f64),
        DataType::Float64 => float(a.as_primitive::<Float64Type>().value(i)),
        DataType::Date32 => a.as_primitive::<Date32Type>().value(i).into(),
        DataType::Timestamp(unit, _) => match unit {
            TimeUnit::Second => a.as_primitive::<TimestampSecondType>().value(i).into(),
            TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().value(i).into(),
            TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().value(i).into(),
            TimeUnit::Nanosecond => a.as_primitive::<TimestampNanosecondType>().value(i).into(),
        },
        DataType::Utf8 => a.as_string::<i32>().value(i).into(),
        DataType::Binary => hex(a.as_binary::<i32>().value(i)).into(),
        DataType::Dictionary(_, _) => {
            let d = a.as_dictionary::<Int32Type>();
            value(d.values().as_ref(), d.keys().value(i) as usize)
        }
        DataType::FixedSizeList(_, _) => {
            let l = a.as_fixed_size_list();
            let v = l.value(i);
            Value::Array((0..v.len()).map(|j| value(v.as_ref(), j)).collect())
        }
        DataType::List(_) => {
            let l = a.as_list::<i32>();
            let v = l.value(i);
            Value::Array((0..v.len()).map(|j| value(v.as_ref(), j)).collect())
        }
        DataType::Struct(fields) => {
            let s = a.as_struct();
            Value::Object(
                fields
                    .iter()
                    .zip(s.columns())
                    .map(|(f, c)| (f.name().clone(), value(c.as_ref(), i)))
                    .collect(),
            )
        }
        other => panic!("no JSON convention for {other}"),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

fn float(f: f64) -> Value {
    if f.is_nan() {
        Value::from("NaN")
    } else if f.is_infinite() {
        Value::from(if f > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        serde_json::Number::from_f64(f).map(Value::Number).unwrap()
    }
}

/// Two JSON values equal; numbers compare as f64 (with the sign of zero) unless both are
/// integers.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                x == y && x.is_sign_negative() == y.is_sign_negative()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}
