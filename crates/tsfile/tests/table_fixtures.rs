//! Every table-model fixture (C++ and Java writers): read everything and compare every value
//! with the JSON the generator wrote from the official reader.

mod common;
use arrowsmith_core::TimeUnit;
use arrowsmith_tsfile::{Query, TsFile};
use common::*;
use serde_json::Value;

fn check_file(name: &str) -> usize {
    let dir = fixtures_dir();
    let bytes = std::fs::read(dir.join(format!("{name}.tsfile"))).unwrap();
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    let f = TsFile::open(&bytes).unwrap_or_else(|e| panic!("{name}: open: {e}"));
    assert_eq!(f.version(), 4);
    // The file really uses the encodings and compression the JSON claims.
    for ts in f.timeseries(&bytes).unwrap() {
        let want_enc = meta["field_encodings"][&ts.measurement].as_str().unwrap();
        assert_eq!(
            ts.encoding.map(|e| e.name()),
            Some(want_enc),
            "{name}: {} encoding",
            ts.measurement
        );
        if let Some(comp) = meta["compression"].as_str() {
            assert_eq!(
                ts.compression.map(|c| c.name()),
                Some(comp),
                "{name}: {} compression",
                ts.measurement
            );
        }
    }
    let q = Query {
        table: meta["table"].as_str().map(String::from),
        ..Default::default()
    };
    // Fixtures with times beyond ±2^53 name the unit that reads them (`time_unit`).
    let unit = match meta["time_unit"].as_str() {
        Some("ns") => TimeUnit::Nanosecond,
        Some("us") => TimeUnit::Microsecond,
        Some("s") => TimeUnit::Second,
        _ => TimeUnit::Millisecond,
    };
    let batch = f
        .read_as(&bytes, &q, unit)
        .unwrap_or_else(|e| panic!("{name}: read: {e}"));
    let col = |n: &str| {
        batch
            .column(n)
            .unwrap_or_else(|| panic!("{name}: no column {n}"))
    };
    let mut checked = 0;
    let mut row = 0;
    let fields: Vec<String> = meta["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap().to_string())
        .collect();
    // The reader returns devices in index order; the JSON lists them sorted by tags. Match by tags.
    let mut remaining: Vec<&Value> = meta["devices"].as_array().unwrap().iter().collect();
    let tag_names: Vec<&str> = meta["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    while row < batch.num_rows {
        let tags: Vec<Value> = tag_names.iter().map(|t| value(col(t), row)).collect();
        let di = remaining
            .iter()
            .position(|d| d["tags"].as_array().unwrap() == &tags)
            .unwrap_or_else(|| panic!("{name}: unexpected device {tags:?}"));
        let d = remaining.remove(di);
        let n = d["rows"].as_u64().unwrap() as usize;
        let cols = &d["columns"];
        for i in 0..n {
            let r = row + i;
            for (t, want) in tag_names.iter().zip(&tags) {
                assert_eq!(
                    &value(col(t), r),
                    want,
                    "{name}: device changes mid-run at row {r}"
                );
            }
            assert!(
                same(&value(col("time"), r), &cols["time"][i]),
                "{name} {tags:?} time row {i}"
            );
            for fname in &fields {
                let got = value(col(fname), r);
                let want = &cols[fname][i];
                assert!(
                    same(&got, want),
                    "{name} {tags:?} column {fname} row {i}: got {got} want {want}"
                );
                checked += 1;
            }
        }
        row += n;
    }
    assert!(
        remaining.is_empty(),
        "{name}: devices missing from the read: {}",
        remaining.len()
    );
    checked
}

/// Every fixture whose JSON describes a table (`"table"` and `"devices"` with columns).
fn table_fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .map(|n| n.trim_end_matches(".json").to_string())
        .filter(|n| {
            let text = std::fs::read_to_string(fixtures_dir().join(format!("{n}.json"))).unwrap();
            let meta: Value = serde_json::from_str(&text).unwrap();
            meta["table"].is_string() && meta["devices"][0]["columns"].is_object()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn all_table_fixtures() {
    let names = table_fixtures();
    assert!(
        names.iter().filter(|n| n.starts_with("cpp_")).count() >= 50,
        "fixtures missing: run scripts/fixtures/tsfile/gen_cpp.py"
    );
    let mut failures = Vec::new();
    let mut total = 0;
    for n in &names {
        match std::panic::catch_unwind(|| check_file(n)) {
            Ok(c) => total += c,
            Err(e) => failures.push(format!(
                "{n}: {}",
                e.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
        }
    }
    eprintln!("checked {total} values in {} files", names.len());
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}
