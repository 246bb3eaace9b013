//! IoTDB deletions (`.mods2`) applied to TsFiles written by the IoTDB 2.0.1-beta server
//! (`scripts/fixtures/tsfile/iotdb/`): every device equals what the server's own queries
//! return after the DELETEs; without the deletions the deleted points come back.

mod common;
use arrowsmith_tsfile::{Mods, Query, TsFile};
use common::*;
use serde_json::Value;
use std::sync::Arc;

fn load(name: &str) -> (Vec<u8>, Arc<Mods>, Value) {
    let dir = fixtures_dir();
    let bytes = std::fs::read(dir.join(format!("{name}.tsfile"))).unwrap();
    let mods = std::fs::read(dir.join(format!("{name}.tsfile.mods2"))).unwrap();
    let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    (
        bytes,
        Arc::new(Mods::parse(&mods).unwrap()),
        serde_json::from_str(&json).unwrap(),
    )
}

/// Each device read with the deletions, column by column against the server's answer;
/// returns how many devices read differently without them.
fn check(name: &str) -> usize {
    let (bytes, mods, want) = load(name);
    let f = TsFile::open(&bytes).unwrap();
    let table = want["iotdb_table"].as_str().map(String::from);
    let mut differ = 0;
    for d in want["after_deletes"].as_array().unwrap() {
        let device = d["device"].as_str().unwrap();
        let cols = d["columns"].as_object().unwrap();
        let names: Vec<String> = cols.keys().filter(|k| *k != "time").cloned().collect();
        let q = Query {
            table: table.clone(),
            devices: Some(vec![device.to_string()]),
            columns: Some(names.clone()),
            mods: Some(mods.clone()),
            ..Default::default()
        };
        let got = |q: &Query| -> Vec<(String, Vec<Value>)> {
            let b = f
                .read(&bytes, q)
                .unwrap_or_else(|e| panic!("{device}: {e}"));
            std::iter::once("time".to_string())
                .chain(names.iter().cloned())
                .map(|c| {
                    let col = b.column(&c).unwrap();
                    (c, (0..b.num_rows).map(|i| value(col, i)).collect())
                })
                .collect()
        };
        for (c, vals) in got(&q) {
            let exp = cols[&c].as_array().unwrap();
            assert_eq!(vals.len(), exp.len(), "{name} {device} {c}: rows");
            for (i, (a, b)) in vals.iter().zip(exp).enumerate() {
                assert!(same(a, b), "{name} {device} {c}[{i}]: {a} != {b}");
            }
        }
        let plain = got(&Query {
            mods: None,
            ..q.clone()
        });
        differ += (plain[0].1.len() != cols["time"].as_array().unwrap().len()
            || plain.iter().any(|(c, v)| {
                v.iter()
                    .zip(cols[c].as_array().unwrap())
                    .any(|(a, b)| !same(a, b))
            })) as usize;
        // A limit counts the rows left after the deletions.
        let limited = f
            .read(
                &bytes,
                &Query {
                    limit: Some(5),
                    ..q.clone()
                },
            )
            .unwrap();
        assert_eq!(
            limited.num_rows,
            cols["time"].as_array().unwrap().len().min(5),
            "{name} {device}: limit"
        );
    }
    differ
}

#[test]
fn tree_model_deletions_match_the_server() {
    // d1: a series range, a point of every series (row gone); d2 (aligned): one column's
    // range, the tail of every column; d3: everything.
    assert_eq!(check("iotdb_mods_tree"), 3);
}

#[test]
fn table_model_deletions_match_the_server() {
    assert_eq!(check("iotdb_mods_table"), 2);
}

#[test]
fn a_read_without_deletions_is_the_file_as_written() {
    let (bytes, _, _) = load("iotdb_mods_tree");
    let f = TsFile::open(&bytes).unwrap();
    let b = f.read(&bytes, &Query::default()).unwrap();
    // 20 rows of d1, 20 of d2, 6 of d3.
    assert_eq!(b.num_rows, 46);
}
