//! Tree-model fixtures (non-aligned series): compare every point with the JSON.

mod common;
use arrowsmith_tsfile::{Query, TsFile};
use common::*;
use serde_json::Value;
use std::collections::BTreeSet;

fn check_tree(name: &str) -> usize {
    let dir = fixtures_dir();
    let bytes = std::fs::read(dir.join(format!("{name}.tsfile"))).unwrap();
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    let f = TsFile::open(&bytes).unwrap_or_else(|e| panic!("{name}: open: {e}"));
    let batch = f
        .read(&bytes, &Query::default())
        .unwrap_or_else(|e| panic!("{name}: read: {e}"));
    let col = |n: &str| {
        batch
            .column(n)
            .unwrap_or_else(|| panic!("{name}: no column {n}"))
    };
    let mut checked = 0;
    let mut row = 0;
    let mut seen = 0;
    while row < batch.num_rows {
        let dev = value(col("device"), row);
        let d = meta["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["path"] == dev)
            .unwrap_or_else(|| panic!("{name}: unexpected device {dev}"));
        seen += 1;
        let series = d["series"].as_object().unwrap();
        let union: BTreeSet<i64> = series
            .values()
            .flat_map(|s| {
                s["times"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t.as_i64().unwrap())
            })
            .collect();
        for (i, t) in union.iter().enumerate() {
            let r = row + i;
            assert_eq!(value(col("device"), r), dev);
            assert_eq!(
                value(col("time"), r),
                Value::from(*t),
                "{name} {dev} row {i}"
            );
            for (sname, s) in series {
                let times = s["times"].as_array().unwrap();
                let want = times
                    .iter()
                    .position(|x| x.as_i64() == Some(*t))
                    .map(|k| s["values"][k].clone())
                    .unwrap_or(Value::Null);
                let got = value(col(sname), r);
                assert!(
                    same(&got, &want),
                    "{name} {dev} {sname} t={t}: got {got} want {want}"
                );
                checked += 1;
            }
        }
        row += union.len();
    }
    assert_eq!(seen, meta["devices"].as_array().unwrap().len());
    checked
}

#[test]
fn cpp_tree_mixed() {
    let n = check_tree("cpp_tree_mixed");
    assert!(n > 1000);
}

#[test]
fn java_tree_nonaligned() {
    assert!(check_tree("java_tree_nonaligned") > 10_000);
}

#[test]
fn java_tree_aligned() {
    assert!(check_tree("java_tree_aligned") > 5_000);
}

#[test]
fn java_deep_index() {
    assert!(check_tree("java_deep_index") > 1_000);
}

#[test]
fn java_v3_nonaligned() {
    assert!(check_tree("java_v3_nonaligned") > 1_000);
}

#[test]
fn java_v3_aligned() {
    assert!(check_tree("java_v3_aligned") > 1_000);
}

/// Non-aligned pages whose time column is REGULAR (the Java writers' `timeEncoder=REGULAR`;
/// the file does not record it, the reader infers it): 2.1.0 (several types and compressors,
/// constant and irregular steps, gaps) and the v3 writers.
#[test]
fn java_regular_time_nonaligned() {
    for (name, min) in [
        ("java210_regular_time_nonaligned", 5_000),
        ("java0134_enc_regular_time_nonaligned", 5_000),
        ("java100_enc_regular_time_nonaligned", 5_000),
        ("java110_enc_regular_time_nonaligned", 5_000),
    ] {
        assert!(check_tree(name) > min, "{name}");
    }
}

#[test]
fn java_v3_deep_index() {
    assert!(check_tree("java_v3_deep_index") > 500);
}

/// Every tree-model fixture, including those without a test of their own above.
#[test]
fn all_tree_fixtures() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .map(|n| n.trim_end_matches(".json").to_string())
        .filter(|n| {
            let text = std::fs::read_to_string(fixtures_dir().join(format!("{n}.json"))).unwrap();
            let meta: Value = serde_json::from_str(&text).unwrap();
            // (order_fixtures.rs reads the out-of-order files: several queries each.)
            meta["model"] == "tree" && meta["devices"].is_array()
        })
        .collect();
    names.sort();
    let mut failures = Vec::new();
    for n in &names {
        match std::panic::catch_unwind(|| check_tree(n)) {
            Ok(c) => assert!(c > 0, "{n}: no values checked"),
            Err(e) => failures.push(format!(
                "{n}: {}",
                e.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}
