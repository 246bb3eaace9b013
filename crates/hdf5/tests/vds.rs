//! Virtual datasets (fixtures/hdf5/vds, scripts/fixtures/hdf5/gen_vds.py): every dataset
//! read through its mappings equals what h5py reads, whole, in row windows and hyperslabs,
//! with the source files given by name; sources missing or not given behave as documented.

mod common;

use arrowsmith_core::{Batch, ByteSource, ErrorCode};
use arrowsmith_hdf5::{Hdf5File, SourceFiles, Window};
use common::{check, fixtures_dir};
use serde_json::Value;

const FILES: [&str; 2] = ["vds_latest", "vds_earliest"];
/// The other files the mappings name (missing.h5 and p_2.h5 are left out: they do not exist).
const SOURCES: [&str; 4] = ["src_a.h5", "sub/src_b.h5", "p_0.h5", "p_1.h5"];

fn load(name: &str) -> Vec<u8> {
    std::fs::read(fixtures_dir().join("vds").join(name)).unwrap()
}

fn expected(name: &str) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(fixtures_dir().join("vds").join(format!("{name}.json"))).unwrap(),
    )
    .unwrap()
}

fn check_rows(b: &Batch, rows: &[Value], at: &str) -> Result<(), String> {
    if b.num_rows != rows.len() || b.columns.len() != 1 {
        return Err(format!(
            "{at}: {} rows × {} columns, expected {} rows",
            b.num_rows,
            b.columns.len(),
            rows.len()
        ));
    }
    rows.iter()
        .enumerate()
        .try_for_each(|(i, r)| check(&b.columns[0], i, r, &format!("{at}[{i}]")))
}

/// The other files the mappings name, by name.
fn source_files(sources: &[Vec<u8>]) -> SourceFiles<'_> {
    let mut files = SourceFiles::default();
    for (n, b) in SOURCES.iter().zip(sources) {
        files.insert(n, b).unwrap();
    }
    files
}

#[test]
fn every_virtual_dataset_equals_h5py_whole_and_in_windows() {
    let sources: Vec<Vec<u8>> = SOURCES.iter().map(|s| load(s)).collect();
    for name in FILES {
        let bytes = load(&format!("{name}.h5"));
        let f = Hdf5File::open(&bytes).unwrap();
        let files = source_files(&sources);
        let exp = expected(name);
        let mut checked = 0;
        for (path, d) in exp["datasets"].as_object().unwrap() {
            let at = format!("{name}:{path}");
            if let Some(words) = exp["errors"].get(path) {
                let e = f.read_virtual(&bytes, path, 0, None, &files).unwrap_err();
                assert_eq!(e.code, ErrorCode::Unsupported, "{at}: {e}");
                assert!(e.message.contains(words.as_str().unwrap()), "{at}: {e}");
                continue;
            }
            let rows = d["rows"].as_array().unwrap();
            let info = f.info(&bytes, path).unwrap();
            assert_eq!(info.layout, "virtual", "{at}");
            let shape: Vec<u64> = d["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(info.shape, shape, "{at}");
            let whole = f.read_virtual(&bytes, path, 0, None, &files).unwrap();
            check_rows(&whole, rows, &at).unwrap();
            assert_eq!(whole.fields, info.fields, "{at}: info().fields");
            // Every window of every size: pieces clipped at each row.
            let n = rows.len() as u64;
            for start in 0..n {
                for count in 1..=n - start {
                    let b = f
                        .read_virtual(&bytes, path, start, Some(count), &files)
                        .unwrap();
                    let want = &rows[start as usize..(start + count) as usize];
                    check_rows(&b, want, &format!("{at} rows {start}+{count}")).unwrap();
                }
            }
            // Hyperslabs: the selection's bounding rows assembled, then cut.
            for sel in common::selections(&shape) {
                let w = Window::Select(sel.clone());
                let b = f.read_virtual_window(&bytes, path, &w, &files).unwrap();
                let want = common::sliced(&d["rows"], &sel);
                check_rows(&b, &want, &format!("{at} {sel:?}")).unwrap();
            }
            checked += 1;
        }
        assert_eq!(checked, 11, "{name}");
    }
}

#[test]
fn same_file_sources_need_no_resolver_and_other_files_are_named() {
    let bytes = load("vds_latest.h5");
    let f = Hdf5File::open(&bytes).unwrap();
    let exp = expected("vds_latest");
    // All sources in this file: plain `read`.
    for path in ["/concat", "/sparse", "/src_strided", "/nofill"] {
        let b = f.read(&bytes, path, 0, None).unwrap();
        check_rows(&b, exp["datasets"][path]["rows"].as_array().unwrap(), path).unwrap();
    }
    // Rows of the stack that come from this file read; rows from another file are refused by name.
    let b = f.read(&bytes, "/stack", 0, Some(2)).unwrap();
    check_rows(
        &b,
        &exp["datasets"]["/stack"]["rows"].as_array().unwrap()[..2],
        "/stack",
    )
    .unwrap();
    let e = f.read(&bytes, "/stack", 1, Some(2)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unsupported);
    assert!(e.message.contains("src_a.h5:/data"), "{e}");
    // A source file the resolver does not have (missing.h5): the fill value, as h5py reads.
    let b = f.read(&bytes, "/missing", 6, None).unwrap();
    check_rows(
        &b,
        &exp["datasets"]["/missing"]["rows"].as_array().unwrap()[6..],
        "/missing",
    )
    .unwrap();
    let b = f
        .read_virtual(&bytes, "/missing", 0, None, &SourceFiles::default())
        .unwrap();
    check_rows(
        &b,
        exp["datasets"]["/missing"]["rows"].as_array().unwrap(),
        "/missing",
    )
    .unwrap();
    // The mappings as stored.
    let m = f.virtual_sources(&bytes, "/stack").unwrap();
    let files: Vec<&str> = m.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(files, [".", ".", "src_a.h5", "sub/src_b.h5"]);
    assert!(f.virtual_sources(&bytes, "/local0").unwrap().is_empty());
}

#[test]
fn plans_list_what_a_same_file_virtual_read_touches() {
    let bytes = load("vds_latest.h5");
    let f = Hdf5File::open(&bytes).unwrap();
    let plan = f.plan(&bytes, "/concat", 0, None).unwrap();
    let mut cache = arrowsmith_core::RangeCache::new(bytes.len() as u64);
    cache.insert(0, bytes[..4096.min(bytes.len())].to_vec());
    // Load what the plans list until nothing is missing, then read without NeedBytes.
    let f2 = Hdf5File::open(&cache).unwrap();
    for _ in 0..32 {
        let p = f2.plan(&cache, "/concat", 0, None).unwrap();
        let missing: Vec<_> = p
            .into_iter()
            .filter(|&(o, l)| cache.get(o, l as usize).is_none())
            .collect();
        if missing.is_empty() {
            break;
        }
        for (o, l) in missing {
            cache.insert(o, bytes[o as usize..(o + l) as usize].to_vec());
        }
    }
    assert!(!plan.is_empty());
    assert_eq!(f2.read(&cache, "/concat", 0, None).unwrap().num_rows, 12);
}

#[test]
fn source_rows_count_against_the_read_limit() {
    let bytes = load("vds_latest.h5");
    let mut f = Hdf5File::open(&bytes).unwrap();
    // 36 bytes of output from 120 bytes of source rows (every other row and column).
    f.max_read_bytes = 100;
    let e = f.read(&bytes, "/src_strided", 0, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge, "{e}");
    assert!(e.message.contains("source rows"), "{e}");
    f.max_read_bytes = 120;
    assert_eq!(f.read(&bytes, "/src_strided", 0, None).unwrap().num_rows, 3);
}
