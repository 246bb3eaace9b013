//! Every C++-written fixture: read everything and compare every value with the JSON.

mod common;
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
        assert_eq!(
            ts.compression.map(|c| c.name()),
            meta["compression"].as_str(),
            "{name}: {} compression",
            ts.measurement
        );
    }
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
    let fields: Vec<String> = meta["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap().to_string())
        .collect();
    // The reader returns devices in index order; the JSON lists them sorted by tags. Match by tags.
    let mut remaining: Vec<&Value> = meta["devices"].as_array().unwrap().iter().collect();
    while row < batch.num_rows {
        let tags = vec![value(col("id1"), row), value(col("id2"), row)];
        let di = remaining
            .iter()
            .position(|d| d["tags"].as_array().unwrap() == &tags)
            .unwrap_or_else(|| panic!("{name}: unexpected device {tags:?}"));
        let d = remaining.remove(di);
        let n = d["rows"].as_u64().unwrap() as usize;
        let cols = &d["columns"];
        for i in 0..n {
            let r = row + i;
            assert_eq!(
                value(col("id1"), r),
                tags[0],
                "{name}: device changes mid-run at row {r}"
            );
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

#[test]
fn all_cpp_fixtures() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("cpp_") && !n.contains("_tree_") && n.ends_with(".json"))
        .map(|n| n.trim_end_matches(".json").to_string())
        .collect();
    names.sort();
    assert!(
        names.len() >= 50,
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
