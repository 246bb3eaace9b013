//! Differential test against hdf5-pure (dev-dependency only), where it can read the data:
//! VL strings via `read_string`, integer and float datasets via `read_i64` / `read_f64`.
//! Files/datasets hdf5-pure rejects (layout v5, v2 B-tree index, 4-byte lengths, …) are
//! skipped and listed; our reader must read every one of them (checked in fixtures.rs).

mod common;

use arrowsmith_core::{Buffer, Column, DataType};
use arrowsmith_hdf5::{dataset_paths, Hdf5File};

fn leaf(col: &Column) -> &Column {
    match &col.dtype {
        DataType::FixedSizeList(..) => leaf(&col.children[0]),
        _ => col,
    }
}

#[test]
fn agrees_with_hdf5_pure() {
    let dir = common::fixtures_dir();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "h5"))
        .collect();
    names.sort();
    let (mut compared, mut skipped) = (0, Vec::new());
    let mut failures = Vec::new();
    for path in names {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let ours = Hdf5File::open(&bytes).unwrap();
        let Ok(theirs) = hdf5_pure::File::from_bytes(bytes.clone()) else {
            skipped.push(format!("{name}: hdf5-pure cannot open"));
            continue;
        };
        for p in dataset_paths(&ours, &bytes).unwrap() {
            let batch = match ours.read(&bytes, &p, 0, None) {
                Ok(b) => b,
                // Refused by design (e.g. blosc2); fixtures.rs checks the error.
                Err(e) if e.code == arrowsmith_core::ErrorCode::Unsupported => {
                    skipped.push(format!("{name}{p}: we refuse it: {}", e.message));
                    continue;
                }
                Err(e) => panic!("{name}{p}: {e}"),
            };
            if batch.columns.len() != 1 {
                continue;
            }
            let col = leaf(&batch.columns[0]);
            // hdf5-pure reads a float with non-IEEE fields as IEEE bits; fixtures.rs
            // compares those with h5py (libhdf5's conversion).
            if ours.info(&bytes, &p).unwrap().dtype.contains("exp ") {
                skipped.push(format!("{name}{p}: custom float fields"));
                continue;
            }
            let Ok(ds) = theirs.dataset(&p) else {
                skipped.push(format!("{name}{p}: hdf5-pure cannot open the dataset"));
                continue;
            };
            let at = format!("{name}{p}");
            match (&col.dtype, &col.buffers.first()) {
                (DataType::Utf8, _) => match ds.read_string() {
                    Ok(strings) => {
                        compared += 1;
                        let Buffer::I32(off) = &col.buffers[0] else {
                            unreachable!()
                        };
                        let Buffer::U8(data) = &col.buffers[1] else {
                            unreachable!()
                        };
                        if strings.len() != col.len {
                            failures.push(format!(
                                "{at}: {} strings vs {}",
                                strings.len(),
                                col.len
                            ));
                            continue;
                        }
                        for (i, s) in strings.iter().enumerate() {
                            let mine = &data[off[i] as usize..off[i + 1] as usize];
                            if mine != s.as_bytes() {
                                failures.push(format!(
                                    "{at}[{i}]: {:?} vs {:?}",
                                    String::from_utf8_lossy(mine),
                                    s
                                ));
                                break;
                            }
                        }
                    }
                    Err(e) => skipped.push(format!("{at}: hdf5-pure read_string: {e}")),
                },
                (DataType::Float32 | DataType::Float64, Some(b)) => match ds.read_f64() {
                    Ok(v) => {
                        compared += 1;
                        let mine: Vec<f64> = match b {
                            Buffer::F32(x) => x.iter().map(|&f| f as f64).collect(),
                            Buffer::F64(x) => x.clone(),
                            _ => unreachable!(),
                        };
                        if mine != v {
                            failures.push(format!("{at}: float values differ"));
                        }
                    }
                    Err(e) => skipped.push(format!("{at}: hdf5-pure read_f64: {e}")),
                },
                (
                    DataType::Int8
                    | DataType::Int16
                    | DataType::Int32
                    | DataType::Int64
                    | DataType::UInt8
                    | DataType::UInt16
                    | DataType::UInt32,
                    Some(b),
                ) => match ds.read_i64() {
                    Ok(v) => {
                        compared += 1;
                        let mine: Vec<i64> = match b {
                            Buffer::I8(x) => x.iter().map(|&a| a as i64).collect(),
                            Buffer::I16(x) => x.iter().map(|&a| a as i64).collect(),
                            Buffer::I32(x) => x.iter().map(|&a| a as i64).collect(),
                            Buffer::I64(x) => x.clone(),
                            Buffer::U8(x) => x.iter().map(|&a| a as i64).collect(),
                            Buffer::U16(x) => x.iter().map(|&a| a as i64).collect(),
                            Buffer::U32(x) => x.iter().map(|&a| a as i64).collect(),
                            _ => unreachable!(),
                        };
                        if mine != v {
                            failures.push(format!("{at}: integer values differ"));
                        }
                    }
                    Err(e) => skipped.push(format!("{at}: hdf5-pure read_i64: {e}")),
                },
                _ => {}
            }
        }
    }
    for s in &skipped {
        eprintln!("skip {s}");
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    eprintln!(
        "compared {compared} datasets with hdf5-pure, {} skipped, {} failures",
        skipped.len(),
        failures.len()
    );
    assert!(compared >= 100, "too few comparisons: {compared}");
    assert!(failures.is_empty());
}
