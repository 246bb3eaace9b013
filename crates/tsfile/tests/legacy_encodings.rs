//! GORILLA_V1, REGULAR and CAMEL fixtures (`*_enc_*`, scripts/fixtures/tsfile/gen_java_enc.sh):
//! every value equals the Java reader's, FLOAT/DOUBLE bit for bit (the JSON's raw `bits`,
//! NaN payloads included), and each file really holds the encodings it names.

mod common;
use arrowsmith_core::{Buffer, Column};
use arrowsmith_tsfile::{Query, TsFile};
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;

fn fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.contains("_enc_") && n.ends_with(".json"))
        .map(|n| n.trim_end_matches(".json").to_string())
        .collect();
    names.sort();
    names
}

fn load(name: &str) -> (Vec<u8>, Value) {
    let dir = fixtures_dir();
    let bytes = std::fs::read(dir.join(format!("{name}.tsfile"))).unwrap();
    let meta =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    (bytes, meta)
}

/// Row `i` as JSON, FLOAT/DOUBLE as their raw bits in hex (as the generator writes them).
fn cell(c: &Column, i: usize) -> Value {
    if !is_valid(c, i) {
        return Value::Null;
    }
    match &c.buffers[..] {
        [Buffer::F32(v)] => Value::from(format!("{:08x}", v[i].to_bits())),
        [Buffer::F64(v)] => Value::from(format!("{:016x}", v[i].to_bits())),
        _ => value(c, i),
    }
}

fn expect(got: &[Value], want: &[Value], what: &str) -> usize {
    assert_eq!(got.len(), want.len(), "{what}: value count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(same(g, w), "{what} #{i}: got {g} want {w}");
    }
    got.len()
}

/// Tree model: each series read alone, its present points against the JSON's.
#[allow(clippy::ptr_arg)]
fn check_tree(name: &str, bytes: &Vec<u8>, meta: &Value) -> usize {
    let f = TsFile::open(bytes).unwrap_or_else(|e| panic!("{name}: open: {e}"));
    let mut n = 0;
    for d in meta["devices"].as_array().unwrap() {
        let path = d["path"].as_str().unwrap();
        for (s, want) in d["series"].as_object().unwrap() {
            let q = Query {
                devices: Some(vec![path.into()]),
                columns: Some(vec![s.clone()]),
                ..Default::default()
            };
            let b = f
                .read(bytes, &q)
                .unwrap_or_else(|e| panic!("{name} {path}.{s}: {e}"));
            let (t, c) = (b.column("time").unwrap(), b.column(s).unwrap());
            let rows: Vec<usize> = (0..b.num_rows).filter(|&i| is_valid(c, i)).collect();
            let times: Vec<Value> = rows.iter().map(|&i| value(t, i)).collect();
            let vals: Vec<Value> = rows.iter().map(|&i| cell(c, i)).collect();
            let key = if want["bits"].is_array() {
                "bits"
            } else {
                "values"
            };
            let what = format!("{name} {path}.{s}");
            expect(&times, want["times"].as_array().unwrap(), &what);
            n += expect(&vals, want[key].as_array().unwrap(), &what);
        }
    }
    n
}

/// Table model: rows grouped by the tag, every column against the JSON's.
#[allow(clippy::ptr_arg)]
fn check_table(name: &str, bytes: &Vec<u8>, meta: &Value) -> usize {
    let f = TsFile::open(bytes).unwrap_or_else(|e| panic!("{name}: open: {e}"));
    let q = Query {
        table: meta["table"].as_str().map(String::from),
        ..Default::default()
    };
    let b = f
        .read(bytes, &q)
        .unwrap_or_else(|e| panic!("{name}: read: {e}"));
    let tag = meta["tags"][0].as_str().unwrap();
    let mut rows: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for i in 0..b.num_rows {
        let t = value(b.column(tag).unwrap(), i);
        rows.entry(t.as_str().unwrap().to_string())
            .or_default()
            .push(i);
    }
    let mut n = 0;
    for d in meta["devices"].as_array().unwrap() {
        let dev = d["tags"][0].as_str().unwrap();
        let rs = &rows[dev];
        for (col, want) in d["columns"].as_object().unwrap() {
            let c = b.column(col).unwrap();
            let want = d["bits"][col].as_array().or(want.as_array()).unwrap();
            let got: Vec<Value> = rs.iter().map(|&i| cell(c, i)).collect();
            n += expect(&got, want, &format!("{name} {dev}.{col}"));
        }
    }
    n
}

#[test]
fn legacy_encoding_fixtures() {
    let names = fixtures();
    assert!(names.len() >= 15, "fixtures missing: run gen_java_enc.sh");
    let mut seen = BTreeMap::new();
    for name in &names {
        let (bytes, meta) = load(name);
        let f = TsFile::open(&bytes).unwrap();
        for ts in f.timeseries(&bytes).unwrap() {
            if let Some(e) = ts.encoding {
                *seen.entry(e.name()).or_insert(0) += 1;
            }
        }
        let n = if meta["model"] == "tree" {
            check_tree(name, &bytes, &meta)
        } else {
            check_table(name, &bytes, &meta)
        };
        assert!(n > 1000, "{name}: only {n} values checked");
    }
    for e in ["GORILLA_V1", "REGULAR", "CAMEL"] {
        assert!(seen.contains_key(e), "no fixture holds {e}: {seen:?}");
    }
}

/// `bytes` with the encoding byte of every chunk header of `measurement` set to `enc`
/// (header: marker, zigzag varint name length, name, varint data size, type, compression,
/// encoding).
fn with_encoding(bytes: &[u8], measurement: &str, enc: u8) -> (Vec<u8>, usize) {
    let mut out = bytes.to_vec();
    let name = measurement.as_bytes();
    let mut patched = 0;
    for at in 2..bytes.len().saturating_sub(name.len() + 8) {
        let marker = bytes[at - 2];
        if !(bytes[at - 1] as usize == 2 * name.len()
            && &bytes[at..at + name.len()] == name
            && matches!(marker, 0x01 | 0x05 | 0x41 | 0x45))
        {
            continue;
        }
        let mut p = at + name.len();
        while bytes[p] & 0x80 != 0 {
            p += 1;
        }
        // type DOUBLE, encoding CAMEL: a chunk header, not an index entry.
        if bytes[p + 1] == 4 && bytes[p + 3] == 14 {
            out[p + 3] = enc;
            patched += 1;
        }
    }
    (out, patched)
}

/// A valid encoding id we do not decode (FREQ, DIFF, BITMAP) is `Unsupported` and named in
/// words, not `Invalid`; so is an id no writer has used yet.
#[test]
fn undecoded_encodings_are_unsupported() {
    use arrowsmith_core::ErrorCode;
    for (name, col) in [
        ("java221_enc_nonaligned", "d_camel"),
        ("java221_enc_aligned", "d_camel"),
    ] {
        let (bytes, _) = load(name);
        for (id, word) in [(10u8, "FREQ"), (3, "DIFF"), (5, "BITMAP"), (42, "42")] {
            let (b, n) = with_encoding(&bytes, col, id);
            assert!(n >= 2, "{name}: {n} chunk headers patched");
            let f = TsFile::open(&b).unwrap();
            let e = f.read(&b, &Query::default()).unwrap_err();
            assert_eq!(e.code, ErrorCode::Unsupported, "{name} {word}: {e}");
            assert!(e.message.contains(word), "{name} {word}: {e}");
        }
    }
}

/// GORILLA_V1 with NaN inside its pages: the values are the writer's input (checked with the
/// other fixtures above); the Java reader's, kept in the JSON, go wrong after such a NaN,
/// which is why this one fixture expects the input.
#[test]
fn gorilla_v1_nan_inside_a_page_is_the_writers_input() {
    let (_, meta) = load("java221_enc_gorilla_v1_nan");
    assert!(meta["expect"].as_str().unwrap().contains("writer's input"));
    for s in meta["devices"][0]["series"].as_object().unwrap().values() {
        let (input, java) = (
            s["values"].as_array().unwrap(),
            s["java_reader_values"].as_array().unwrap(),
        );
        let first_bad = (0..input.len()).find(|&i| !same(&input[i], &java[i]));
        // Right up to just past the first NaN (row 10), wrong after it.
        assert!(first_bad.is_some_and(|i| i > 10 && i < 40), "{first_bad:?}");
    }
}
