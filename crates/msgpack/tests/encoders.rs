//! The real-encoder corpus (fixtures/msgpack/encoders, scripts/fixtures/msgpack/README.md)
//! natively: every fixture, under each of its reads, gives the values its writer's own
//! reader gave (the sidecar's `expected`), or the error the sidecar names; the stream
//! decoder (whole, and in small chunks with small batches) agrees with `decode`.

use std::path::PathBuf;

use arrowsmith_core::{Batch, Buffer, Column, DataType, TimeUnit};
use arrowsmith_msgpack::{decode, names, Options, StreamDecoder};
use serde_json::{Map, Value};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/msgpack/encoders")
}

/// The option value named by `x` in `table`.
fn pick<T: Copy>(table: &[(&str, T)], x: &Value) -> T {
    let name = x.as_str().expect("a name");
    names::lookup(table, name).unwrap_or_else(|| panic!("unknown option value {name}"))
}

/// `MsgpackOptions` (the sidecar's JSON) as `Options`, by the names the bindings use.
fn options(v: Option<&Value>) -> Options {
    let mut o = Options::default();
    let Some(v) = v else { return o };
    for (k, x) in v.as_object().expect("options object") {
        match k.as_str() {
            "layout" => o.layout = pick(names::LAYOUT, x),
            "tuples" => o.tuples = pick(names::TUPLES, x),
            "columns" => {
                o.columns = x
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap().to_owned())
                    .collect()
            }
            "columnar" => o.columnar = x.as_bool().unwrap(),
            "maps" => o.maps = pick(names::MAPS, x),
            "extensions" => {
                for (code, r) in x.as_object().unwrap() {
                    o.extensions
                        .set(code.parse().unwrap(), pick(names::READINGS, r));
                }
            }
            other => panic!("option {other} not handled here"),
        }
    }
    o
}

fn valid(c: &Column, i: usize) -> bool {
    c.validity.as_ref().is_none_or(|v| v.get(i))
}

/// Row `i` of `c` as typed JSON (README.md): what the sidecars hold.
fn cell(c: &Column, i: usize) -> Value {
    if c.dtype == DataType::Null || !valid(c, i) {
        return Value::Null;
    }
    let big = |s: String| serde_json::json!({ "$int": s });
    let num = |x: f64| {
        if x.is_nan() {
            serde_json::json!({ "$float": "NaN" })
        } else if x.is_infinite() {
            serde_json::json!({ "$float": if x > 0.0 { "Infinity" } else { "-Infinity" } })
        } else if x == 0.0 && x.is_sign_negative() {
            serde_json::json!({ "$float": "-0" })
        } else {
            serde_json::json!(x)
        }
    };
    let int = |x: i128| {
        if x.unsigned_abs() <= 1 << 53 {
            serde_json::json!(x as i64)
        } else {
            big(x.to_string())
        }
    };
    match (&c.dtype, c.buffers.first()) {
        (DataType::Int8, Some(Buffer::I8(v))) => int(v[i] as i128),
        (DataType::Int32, Some(Buffer::I32(v))) => int(v[i] as i128),
        (DataType::Int64, Some(Buffer::I64(v))) => int(v[i] as i128),
        (DataType::UInt64, Some(Buffer::U64(v))) => int(v[i] as i128),
        (DataType::Float32, Some(Buffer::F32(v))) => num(v[i] as f64),
        (DataType::Float64, Some(Buffer::F64(v))) => num(v[i]),
        (DataType::Timestamp(TimeUnit::Nanosecond), Some(Buffer::I64(v))) => {
            serde_json::json!({ "$ts_ns": v[i].to_string() })
        }
        (DataType::Timestamp(_), Some(Buffer::I64(v))) => {
            serde_json::json!({ "$ms": v[i].to_string() })
        }
        (DataType::Bool, Some(Buffer::U8(b))) => Value::Bool(b[i / 8] & (1 << (i % 8)) != 0),
        (DataType::Utf8 | DataType::Binary, Some(Buffer::I32(o))) => {
            let Some(Buffer::U8(d)) = c.buffers.get(1) else {
                panic!("no data buffer")
            };
            let s = &d[o[i] as usize..o[i + 1] as usize];
            if c.dtype == DataType::Utf8 {
                Value::String(String::from_utf8(s.to_vec()).unwrap())
            } else {
                serde_json::json!({ "$bin": s.iter().map(|b| format!("{b:02x}")).collect::<String>() })
            }
        }
        (DataType::List(_), Some(Buffer::I32(o))) => Value::Array(
            (o[i]..o[i + 1])
                .map(|j| cell(&c.children[0], j as usize))
                .collect(),
        ),
        (DataType::FixedSizeList(_, n), _) => Value::Array(
            (0..*n as usize)
                .map(|j| cell(&c.children[0], i * *n as usize + j))
                .collect(),
        ),
        (DataType::Struct(fields), _) => Value::Object(
            fields
                .iter()
                .zip(&c.children)
                .map(|(f, ch)| (f.name.clone(), cell(ch, i)))
                .collect(),
        ),
        (DataType::Map(_), Some(Buffer::I32(o))) => {
            let e = &c.children[0];
            let mut m = Map::new();
            for j in o[i] as usize..o[i + 1] as usize {
                let k = match cell(&e.children[0], j) {
                    Value::String(s) => s,
                    k => k.to_string(),
                };
                m.insert(k, cell(&e.children[1], j));
            }
            Value::Object(m)
        }
        (t, _) => panic!("type {t:?} not handled here"),
    }
}

/// Whether `got` (our value) is `want` (the sidecar's): equal, or a Struct whose fields
/// absent from `want` are null (records: a row lacks a key).
fn same(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) if !w.contains_key("$int") => {
            w.iter()
                .all(|(k, x)| same(g.get(k).unwrap_or(&Value::Null), x))
                && g.iter().all(|(k, x)| w.contains_key(k) || x.is_null())
        }
        (Value::Array(g), Value::Array(w)) => {
            g.len() == w.len() && g.iter().zip(w).all(|(a, b)| same(a, b))
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        // A float that is a whole number comes back from some readers as an int.
        _ => got == want,
    }
}

/// The expected rows under `shape`, each an object of column → value.
fn rows(expected: &Value, shape: &str, o: &Options) -> Vec<Value> {
    let all = match expected {
        Value::Array(a) if shape != "columnar" => a.clone(),
        v if shape == "columnar" => {
            let cols = v.as_object().unwrap();
            let n = cols
                .values()
                .next()
                .map_or(0, |c| c.as_array().unwrap().len());
            return (0..n)
                .map(|i| {
                    Value::Object(
                        cols.iter()
                            .map(|(k, c)| (k.clone(), c[i].clone()))
                            .collect(),
                    )
                })
                .collect();
        }
        v => vec![v.clone()],
    };
    all.into_iter()
        .map(|r| match (shape, r) {
            ("tuples", Value::Array(a)) => Value::Object(
                a.into_iter()
                    .enumerate()
                    .map(|(i, x)| (o.columns.get(i).cloned().unwrap_or(i.to_string()), x))
                    .collect(),
            ),
            ("value", r) => Value::Object([("value".to_owned(), r)].into_iter().collect()),
            (_, Value::Object(m)) => Value::Object(m),
            (_, r) => Value::Object([("value".to_owned(), r)].into_iter().collect()),
        })
        .collect()
}

fn mismatches(b: &Batch, want: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    if b.num_rows != want.len() {
        out.push(format!("{} rows, expected {}", b.num_rows, want.len()));
        return out;
    }
    for (i, w) in want.iter().enumerate() {
        let got = Value::Object(
            b.fields
                .iter()
                .zip(&b.columns)
                .map(|(f, c)| (f.name.clone(), cell(c, i)))
                .collect(),
        );
        if !same(&got, w) && out.len() < 5 {
            out.push(format!("row {i}: got {got}, expected {w}"));
        }
    }
    out
}

/// The stream decoder's batches over `bytes` in chunks of `chunk`, taking batches of at
/// most `batch` rows as soon as they are ready.
fn stream(bytes: &[u8], o: &Options, chunk: usize, batch: usize) -> Result<Vec<Batch>, String> {
    let mut s = StreamDecoder::new(o.clone());
    let mut out = Vec::new();
    for c in bytes.chunks(chunk) {
        s.push(c).map_err(|e| e.message.clone())?;
        while s.ready_rows() >= batch {
            out.extend(s.take_batch(batch).map_err(|e| e.message.clone())?);
        }
    }
    while let Some(b) = s.take_batch(batch).map_err(|e| e.message.clone())? {
        out.push(b);
    }
    out.extend(s.finish().map_err(|e| e.message.clone())?);
    Ok(out)
}

#[test]
fn every_fixture_equals_its_writers_reader() {
    let mut names: Vec<_> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().into_string().unwrap();
            n.strip_suffix(".json").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() > 20);
    let mut failed = Vec::new();
    for name in &names {
        let meta: Value = serde_json::from_str(
            &std::fs::read_to_string(dir().join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let bytes = std::fs::read(dir().join(format!("{name}.msgpack"))).unwrap();
        for read in meta["reads"].as_array().unwrap() {
            let o = options(read.get("options"));
            let label = format!("{name} {}", read.get("options").unwrap_or(&Value::Null));
            let got = decode(&bytes, &o);
            if let Some(code) = read.get("error").and_then(Value::as_str) {
                match got {
                    Err(e) if format!("{:?}", e.code).to_lowercase() == code.replace('-', "") => {}
                    other => {
                        failed.push(format!("{label}: expected a {code} error, got {other:?}"))
                    }
                }
                if stream(&bytes, &o, bytes.len(), 65536).is_ok() {
                    failed.push(format!("{label}: the stream decoder gives no error"));
                }
                continue;
            }
            let b = match got {
                Ok(b) => b,
                Err(e) => {
                    failed.push(format!("{label}: {e:?}"));
                    continue;
                }
            };
            let shape = read.get("shape").and_then(Value::as_str).unwrap_or("rows");
            for m in mismatches(&b, &rows(&meta["expected"], shape, &o)) {
                failed.push(format!("{label}: {m}"));
            }
            // The stream decoder: one batch (as the TS verb takes it), and small chunks
            // with batches taken as they come (which may split the schema per batch:
            // then only the row count is compared).
            match stream(&bytes, &o, bytes.len(), 65536) {
                Ok(batches) if batches.len() <= 1 => {
                    let rows = batches.first().map_or(0, |b| b.num_rows);
                    if rows != b.num_rows {
                        failed.push(format!(
                            "{label}: stream {rows} rows, decode {}",
                            b.num_rows
                        ));
                    } else if let Some(s) = batches.first() {
                        let (a, c) = (
                            arrowsmith_core::describe::describe(&b),
                            arrowsmith_core::describe::describe(s),
                        );
                        if a.json != c.json || a.buffers != c.buffers {
                            failed
                                .push(format!("{label}: the stream's table differs from decode's"));
                        }
                    }
                }
                Ok(batches) => {
                    failed.push(format!("{label}: stream gave {} batches", batches.len()))
                }
                Err(e) => failed.push(format!("{label}: stream: {e}")),
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
