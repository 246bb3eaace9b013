//! Every fixture dataset and attribute compared value by value with h5py's JSON dump.

mod common;

use arrowsmith_core::Column;
use arrowsmith_hdf5::{EntryKind, Hdf5File};
use common::{check, fixtures_dir};
use serde_json::Value;

fn check_rows(col: &Column, rows: &[Value], at: &str) -> Result<(), String> {
    if col.len != rows.len() {
        return Err(format!("{at}: {} rows, expected {}", col.len, rows.len()));
    }
    for (i, r) in rows.iter().enumerate() {
        check(col, i, r, &format!("{at}[{i}]"))?;
    }
    Ok(())
}

fn check_batch(batch: &arrowsmith_core::Batch, rows: &[Value], at: &str) -> Result<(), String> {
    let is_struct_row = |r: &Value| {
        r.as_object()
            .is_some_and(|o| !o.contains_key("hex") && !o.contains_key("ref"))
    };
    if batch.columns.len() == 1 && !rows.first().is_some_and(is_struct_row) {
        return check_rows(&batch.columns[0], rows, at);
    }
    // Compound: one column per member; rows are objects.
    if batch.num_rows != rows.len() {
        return Err(format!(
            "{at}: {} rows, expected {}",
            batch.num_rows,
            rows.len()
        ));
    }
    for (i, r) in rows.iter().enumerate() {
        for (k, v) in r.as_object().unwrap() {
            let col = batch
                .column(k)
                .ok_or_else(|| format!("{at}: no column {k}"))?;
            check(col, i, v, &format!("{at}[{i}].{k}"))?;
        }
    }
    Ok(())
}

fn run_file(name: &str) -> (usize, Vec<String>) {
    let dir = fixtures_dir();
    let bytes = std::fs::read(common::data_file(name)).unwrap();
    let exp: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    let src: &Vec<u8> = &bytes;
    let f = match Hdf5File::open(src) {
        Ok(f) => f,
        Err(e) => return (0, vec![format!("{name}: open: {e}")]),
    };
    let mut failures = Vec::new();
    let mut checked = 0;
    for (path, d) in exp["datasets"].as_object().unwrap() {
        let at = format!("{name}:{path}");
        let batch = match f.read(src, path, 0, None) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{at}: read: {e}"));
                continue;
            }
        };
        let shape: Vec<u64> = d["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let info = f.info(src, path).unwrap();
        // The schema announced before reading is the one read returns (a string column whose
        // bytes are not UTF-8 is the documented exception: it comes back as Binary).
        let norm = |t: &arrowsmith_core::DataType| format!("{t:?}").replace("Binary", "Utf8");
        let want: Vec<String> = info.fields.iter().map(|f| norm(&f.dtype)).collect();
        let got: Vec<String> = batch.fields.iter().map(|f| norm(&f.dtype)).collect();
        if want != got {
            failures.push(format!("{at}: info fields {want:?} != read fields {got:?}"));
        }
        if info.shape != shape {
            failures.push(format!("{at}: shape {:?} != {:?}", info.shape, shape));
        }
        let Some(rows) = d["rows"].as_array() else {
            continue;
        };
        checked += 1;
        let res = check_batch(&batch, rows, &at);
        // A window in the middle must match the same rows of the full read.
        if rows.len() >= 3 {
            let (a, n) = (1u64, rows.len() as u64 - 2);
            match f.read(src, path, a, Some(n)) {
                Ok(mut w) => {
                    if let Err(e) =
                        check_batch(&w, &rows[1..rows.len() - 1], &format!("{at}[window 1..]"))
                    {
                        failures.push(e);
                    }
                    // As the wasm host does once JS has copied a batch out: the next reads
                    // take their output buffers from these, holding other bytes.
                    arrowsmith_core::recycle::give_back_columns(&mut w.columns);
                }
                Err(e) => failures.push(format!("{at}: window read: {e}")),
            }
        }
        if let Err(e) = res {
            failures.push(e);
        }
        // Exactly the rows the generator knows hold a null VL string reference are null
        // (h5py reads a null string as b'', so the rows alone cannot tell).
        if batch.columns.len() == 1 {
            let col = &batch.columns[0];
            // Listed null string references, and values the writer's reader has no label for.
            let mut want: Vec<u64> = d
                .get("nulls")
                .and_then(|n| n.as_array())
                .map(|n| n.iter().map(|v| v.as_u64().unwrap()).collect())
                .unwrap_or_default();
            want.extend((0..rows.len() as u64).filter(|&i| rows[i as usize].is_null()));
            want.sort_unstable();
            let got: Vec<u64> = (0..col.len as u64)
                .filter(|&i| col.validity.as_ref().is_some_and(|v| !v.get(i as usize)))
                .collect();
            if got != want {
                let first = |v: &[u64]| {
                    format!(
                        "{:?}{}",
                        &v[..v.len().min(8)],
                        if v.len() > 8 { "…" } else { "" }
                    )
                };
                failures.push(format!(
                    "{at}: null rows {} != expected {}",
                    first(&got),
                    first(&want)
                ));
            }
        }
    }
    for (path, attrs) in exp["attrs"].as_object().unwrap() {
        let got = match f.attrs(src, path) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{name}:{path}: attrs: {e}"));
                continue;
            }
        };
        for (k, v) in attrs.as_object().unwrap() {
            let at = format!("{name}:{path}@{k}");
            let Some((_, col)) = got.iter().find(|(n, _)| n == k) else {
                failures.push(format!("{at}: missing attribute"));
                continue;
            };
            checked += 1;
            let rows: Vec<Value> = match v {
                Value::Array(a)
                    if col.len == a.len() && col.len != 1
                        || matches!(v, Value::Array(a) if a.len() == 1 && col.len == 1 && !matches!(col.dtype, arrowsmith_core::DataType::List(_))) =>
                {
                    a.clone()
                }
                other => vec![other.clone()],
            };
            if let Err(e) = check_rows(col, &rows, &at) {
                failures.push(e);
            }
        }
    }
    // Datasets the reader refuses by design: an `unsupported` error naming the feature.
    if let Some(errors) = exp.get("errors").and_then(|e| e.as_object()) {
        for (path, needle) in errors {
            let needle = needle.as_str().unwrap();
            match f.read(src, path, 0, None) {
                Err(e)
                    if e.code == arrowsmith_core::ErrorCode::Unsupported
                        && e.message.contains(needle) => {}
                other => failures.push(format!(
                    "{name}:{path}: expected an unsupported error naming {needle}, got {other:?}"
                )),
            }
        }
    }
    for (path, names) in exp["groups"].as_object().unwrap() {
        match f.list(src, path) {
            Ok(entries) => {
                let mut got: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
                got.sort();
                let want: Vec<&str> = names
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                if got != want {
                    failures.push(format!("{name}:{path}: members {got:?} != {want:?}"));
                }
                for e in entries {
                    if e.kind == EntryKind::Link {
                        failures.push(format!("{name}:{path}/{}: unresolved link", e.name));
                    }
                }
            }
            Err(e) => failures.push(format!("{name}:{path}: list: {e}")),
        }
    }
    (checked, failures)
}

fn all_fixture_names() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
        .collect();
    v.sort();
    v
}

#[test]
fn every_fixture_matches_h5py() {
    let mut all = Vec::new();
    let mut total = 0;
    let names = all_fixture_names();
    assert!(
        names.len() >= 15,
        "fixtures missing: run scripts/fixtures/hdf5/gen_h5py.py"
    );
    for n in &names {
        let (c, f) = run_file(n);
        total += c;
        all.extend(f);
    }
    for f in &all {
        eprintln!("FAIL {f}");
    }
    eprintln!(
        "checked {total} datasets/attributes in {} files, {} failures",
        names.len(),
        all.len()
    );
    assert!(all.is_empty(), "{} failures", all.len());
}
