//! HDF5 fixtures read natively (positioned reads of the file) into arrow-rs and compared
//! with the values h5py read when the generators wrote them; batches and selections
//! against the whole read.

mod common;
use arrow_array::RecordBatch;
use arrowsmith_arrow::{Hdf5Reader, Select};
use common::*;
use serde_json::Value;

/// JSON rows this test can compare: numbers, strings and arrays of them (h5py's bytes,
/// enums, references and compounds are objects in the fixtures: the crate's own tests
/// compare those).
fn plain(v: &Value) -> bool {
    match v {
        Value::Number(_) | Value::String(_) => true,
        Value::Array(a) => a.iter().all(plain),
        _ => false,
    }
}

/// h5py's spelling of non-finite floats in the fixtures.
fn floats_as_written(v: &Value) -> Value {
    match v {
        Value::String(s) if s == "nan" => Value::from("NaN"),
        Value::String(s) if s == "inf" => Value::from("Infinity"),
        Value::String(s) if s == "-inf" => Value::from("-Infinity"),
        Value::Array(a) => Value::Array(a.iter().map(floats_as_written).collect()),
        v => v.clone(),
    }
}

/// Booleans are 1/0 in the fixtures.
fn numeric_bools(v: Value) -> Value {
    match v {
        Value::Bool(b) => Value::from(b as u8),
        Value::Array(a) => Value::Array(a.into_iter().map(numeric_bools).collect()),
        v => v,
    }
}

fn rows_of(b: &RecordBatch) -> Vec<Value> {
    assert_eq!(b.num_columns(), 1);
    (0..b.num_rows())
        .map(|i| numeric_bools(value(b.column(0).as_ref(), i)))
        .collect()
}

#[test]
fn fixtures_match_h5py() {
    let dir = fixtures("hdf5");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| Some(n.strip_suffix(".json")?.to_string()))
        .collect();
    names.sort();
    let (mut compared, mut files) = (0, 0);
    for name in names {
        let Some(file) = ["h5", "nc", "h5ad", "mat"]
            .iter()
            .map(|e| dir.join(format!("{name}.{e}")))
            .find(|p| p.exists())
        else {
            continue;
        };
        let meta: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let Some(datasets) = meta["datasets"].as_object() else {
            continue;
        };
        let mut reader = Hdf5Reader::open(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        files += 1;
        for (path, d) in datasets {
            let Some(want) = d["rows"].as_array() else {
                continue;
            };
            let shape = d["shape"].as_array().map(|s| s.len());
            if !want.iter().all(plain) || shape == Some(0) || want.is_empty() {
                continue;
            }
            let Ok(batch) = reader.read(path, 0, None) else {
                continue;
            };
            if batch.num_columns() != 1 {
                continue;
            }
            let got = rows_of(&batch);
            assert_eq!(got.len(), want.len(), "{name}{path}: rows");
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                let w = &floats_as_written(w);
                assert!(same(g, w), "{name}{path} row {i}: got {g} want {w}");
            }
            compared += 1;
        }
    }
    eprintln!("compared {compared} datasets in {files} files");
    assert!(compared >= 300, "only {compared} datasets compared");
}

#[test]
fn batches_and_selections_agree_with_the_whole_read() {
    let file = fixtures("hdf5").join("types_latest.h5");
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures("hdf5").join("types_latest.json")).unwrap(),
    )
    .unwrap();
    let mut reader = Hdf5Reader::open(&file).unwrap();
    for path in ["/ck_fixed_2d", "/ck_ext_many", "/ck_partial", "/compact_i4"] {
        let whole = reader.read(path, 0, None).unwrap();
        let parts: Vec<RecordBatch> = reader
            .batches(path, Some(4))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(parts.len() > 1, "{path}: one batch");
        let joined: Vec<Value> = parts.iter().flat_map(rows_of).collect();
        assert_eq!(joined, rows_of(&whole), "{path}: batches");
    }
    // ds[10:20:2, 3] as h5py reads it: the JSON's rows sliced by hand.
    let want: Vec<Value> = meta["datasets"]["/ck_fixed_2d"]["rows"].as_array().unwrap()[10..20]
        .iter()
        .step_by(2)
        .map(|r| r[3].clone())
        .collect();
    let sel = [
        Select::Range {
            start: 10,
            count: 5,
            step: 2,
        },
        Select::Index(3),
    ];
    assert_eq!(
        rows_of(&reader.read_select("/ck_fixed_2d", &sel).unwrap()),
        want
    );
    let out_of_bounds = [
        Select::Range {
            start: 45,
            count: 10,
            step: 1,
        },
        Select::Index(3),
    ];
    match reader.read_select("/ck_fixed_2d", &out_of_bounds) {
        Err(arrowsmith_arrow::Error::Decode(e)) => {
            assert_eq!(e.code, arrowsmith_arrow::ErrorCode::Argument)
        }
        other => panic!("{other:?}"),
    }
    let names: Vec<String> = reader
        .list("/grp")
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["sub"]);
}
