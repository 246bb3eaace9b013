//! Compare Arrow columns with the h5py JSON dumps written by gen_h5py.py.
#![allow(dead_code)]

use std::path::PathBuf;

use arrowsmith_core::{Buffer, Column, DataType};
use serde_json::Value;

pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hdf5")
}

/// Extensions of HDF5 files as their writers name them (h5py/PyTables/pandas, netCDF4,
/// anndata, MATLAB v7.3).
pub const EXTENSIONS: [&str; 4] = ["h5", "nc", "h5ad", "mat"];

/// The fixture file next to `<name>.json`, whatever its writer's extension.
pub fn data_file(name: &str) -> PathBuf {
    EXTENSIONS
        .iter()
        .map(|e| fixtures_dir().join(format!("{name}.{e}")))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no data file for fixture {name}"))
}

pub fn f16_to_f64(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    s * match e {
        0 => m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn is_valid(col: &Column, i: usize) -> bool {
    col.validity.as_ref().is_none_or(|v| v.get(i))
}

fn offsets(col: &Column) -> &[i32] {
    match &col.buffers[0] {
        Buffer::I32(o) => o,
        b => panic!("offsets buffer {b:?}"),
    }
}

fn num(col: &Column, i: usize) -> Option<f64> {
    Some(match &col.buffers[0] {
        Buffer::I8(v) => v[i] as f64,
        Buffer::U8(v) => v[i] as f64,
        Buffer::I16(v) => v[i] as f64,
        Buffer::U16(v) if col.dtype == DataType::Float16 => f16_to_f64(v[i]),
        Buffer::U16(v) => v[i] as f64,
        Buffer::I32(v) => v[i] as f64,
        Buffer::U32(v) => v[i] as f64,
        Buffer::I64(_) | Buffer::U64(_) => return None,
        Buffer::F32(v) => v[i] as f64,
        Buffer::F64(v) => v[i],
    })
}

pub fn check(col: &Column, i: usize, exp: &Value, at: &str) -> Result<(), String> {
    let fail = |m: String| Err(format!("{at}: {m}"));
    match exp {
        Value::Object(o) if o.contains_key("hex") && col.dtype == DataType::DictionaryUtf8 => {
            // An enum label: the key's entry in the dictionary.
            if !is_valid(col, i) {
                return fail(format!("null, expected label {}", o["hex"]));
            }
            let Buffer::I32(keys) = &col.buffers[0] else {
                panic!("dictionary keys")
            };
            check(&col.children[0], keys[i] as usize, exp, at)
        }
        Value::Object(o) if o.contains_key("hex") => {
            let h = o["hex"].as_str().unwrap();
            if !matches!(col.dtype, DataType::Utf8 | DataType::Binary) {
                return fail(format!("expected bytes, column is {:?}", col.dtype));
            }
            if !is_valid(col, i) {
                return if h.is_empty() {
                    Ok(())
                } else {
                    fail(format!("null, expected {h}"))
                };
            }
            let off = offsets(col);
            let Buffer::U8(d) = &col.buffers[1] else {
                panic!()
            };
            let got: String = d[off[i] as usize..off[i + 1] as usize]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            if got != h {
                return fail(format!("bytes {} != expected {}", trunc(&got), trunc(h)));
            }
            Ok(())
        }
        Value::Object(o) if o.contains_key("ref") => Ok(()),
        Value::Object(o) => {
            let DataType::Struct(fields) = &col.dtype else {
                return fail(format!("expected struct, got {:?}", col.dtype));
            };
            for (k, v) in o {
                let j = fields
                    .iter()
                    .position(|f| &f.name == k)
                    .ok_or_else(|| format!("{at}: no member {k}"))?;
                check(&col.children[j], i, v, &format!("{at}.{k}"))?;
            }
            Ok(())
        }
        Value::Array(a) => match &col.dtype {
            DataType::List(_) => {
                // HDF5 sequences are never null: libhdf5 reads a null reference (how it
                // stores an empty sequence) as an empty one.
                if !is_valid(col, i) {
                    return fail(format!("null list, expected {} values", a.len()));
                }
                let off = offsets(col);
                let (s, e) = (off[i] as usize, off[i + 1] as usize);
                if e - s != a.len() {
                    return fail(format!("list of {} != expected {}", e - s, a.len()));
                }
                for (k, v) in a.iter().enumerate() {
                    check(&col.children[0], s + k, v, &format!("{at}[{k}]"))?;
                }
                Ok(())
            }
            DataType::FixedSizeList(_, n) => {
                let n = *n as usize;
                if n != a.len() {
                    return fail(format!("fixed list of {n} != expected {}", a.len()));
                }
                for (k, v) in a.iter().enumerate() {
                    check(&col.children[0], i * n + k, v, &format!("{at}[{k}]"))?;
                }
                Ok(())
            }
            t => fail(format!("expected a list, column is {t:?}")),
        },
        Value::Number(n) if col.dtype == DataType::Bool => {
            let Buffer::U8(bits) = &col.buffers[0] else {
                panic!("bool bits")
            };
            let got = (bits[i / 8] >> (i % 8)) & 1;
            if !is_valid(col, i) || Some(got as u64) != n.as_u64() {
                return fail(format!("bool {got} (valid {}) != {n}", is_valid(col, i)));
            }
            Ok(())
        }
        Value::Number(n) => {
            if !is_valid(col, i) {
                return fail("null number".into());
            }
            match &col.buffers.first() {
                Some(Buffer::I64(v)) => {
                    if Some(v[i]) != n.as_i64() {
                        return fail(format!("{} != {n}", v[i]));
                    }
                }
                Some(Buffer::U64(v)) => {
                    if Some(v[i]) != n.as_u64() {
                        return fail(format!("{} != {n}", v[i]));
                    }
                }
                _ => {
                    let got =
                        num(col, i).ok_or_else(|| format!("{at}: not numeric {:?}", col.dtype))?;
                    let want = n.as_f64().unwrap();
                    if got != want && !(got - want).abs().le(&(want.abs() * 1e-6)) {
                        return fail(format!("{got} != {want}"));
                    }
                }
            }
            Ok(())
        }
        Value::String(s) => {
            let got = num(col, i).ok_or_else(|| format!("{at}: not numeric"))?;
            let ok = match s.as_str() {
                "nan" => got.is_nan(),
                "inf" => got == f64::INFINITY,
                "-inf" => got == f64::NEG_INFINITY,
                _ => false,
            };
            if ok {
                Ok(())
            } else {
                fail(format!("{got} != {s}"))
            }
        }
        // A value the writer's reader has no label for (enums): null.
        Value::Null if is_valid(col, i) => fail("expected null".into()),
        Value::Null => Ok(()),
        Value::Bool(_) => fail("bool".into()),
    }
}

fn trunc(s: &str) -> String {
    if s.len() > 80 {
        format!("{}…({} chars)", &s[..80], s.len())
    } else {
        s.to_string()
    }
}

/// `sel` applied to `v` (a writer's nested rows, one level per dimension) as numpy slices:
/// an index drops its level, a range keeps it. The result as rows: a value without
/// dimensions left is one row.
pub fn sliced(v: &Value, sel: &[arrowsmith_hdf5::Select]) -> Vec<Value> {
    fn go(v: &Value, sel: &[arrowsmith_hdf5::Select]) -> Value {
        use arrowsmith_hdf5::Select;
        let Some((first, rest)) = sel.split_first() else {
            return v.clone();
        };
        let a = v.as_array().expect("a level per dimension");
        match *first {
            Select::Index(i) => go(&a[i as usize], rest),
            Select::All => Value::Array(a.iter().map(|x| go(x, rest)).collect()),
            Select::Range { start, count, step } => Value::Array(
                (0..count)
                    .map(|k| go(&a[(start + k * step) as usize], rest))
                    .collect(),
            ),
        }
    }
    let kept = sel
        .iter()
        .any(|s| !matches!(s, arrowsmith_hdf5::Select::Index(_)));
    match go(v, sel) {
        Value::Array(rows) if kept => rows,
        one => vec![one],
    }
}

/// Selections of a dataset of `dims` for tests: whole; per dimension its last index, and
/// every other index from 1; a mix of an index, a step of 2 and ranges of one element.
pub fn selections(dims: &[u64]) -> Vec<Vec<arrowsmith_hdf5::Select>> {
    use arrowsmith_hdf5::Select;
    let r = dims.len();
    let mut out = vec![vec![Select::All; r]];
    for k in 0..r {
        let d = dims[k];
        let mut a = vec![Select::All; r];
        a[k] = Select::Index(d - 1);
        out.push(a);
        let mut b = vec![Select::All; r];
        b[k] = Select::Range {
            start: 1.min(d),
            count: d.saturating_sub(1).div_ceil(2),
            step: 2,
        };
        out.push(b);
    }
    out.push(
        (0..r)
            .map(|k| match k % 3 {
                0 => Select::Index(dims[k] / 2),
                1 => Select::Range {
                    start: 0,
                    count: dims[k].div_ceil(2),
                    step: 2,
                },
                _ => Select::Range {
                    start: dims[k] - 1,
                    count: 1,
                    step: 1,
                },
            })
            .collect(),
    );
    out
}
