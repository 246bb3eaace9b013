//! Browsing files that hold something this reader refuses: the group still lists, the
//! member's `info` says what is unsupported, the read fails `Unsupported` naming it, and
//! everything else reads.

mod common;

use arrowsmith_core::ErrorCode;
use arrowsmith_hdf5::{EntryKind, Hdf5File, Window};
use common::fixtures_dir;

fn open(rel: &str) -> (Vec<u8>, Hdf5File) {
    let b = std::fs::read(fixtures_dir().join(rel)).unwrap();
    let f = Hdf5File::open(&b).unwrap();
    (b, f)
}

#[test]
fn a_group_with_a_refused_dataset_lists_whole() {
    let (b, f) = open("browse_mixed.h5");
    let entries = f.list(&b, "/grp").unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    for e in &entries {
        assert_eq!(e.kind, EntryKind::Dataset, "{}", e.name);
        let info = f.info(&b, &format!("/grp/{}", e.name)).unwrap();
        assert_eq!(info.unsupported, e.unsupported, "{}", e.name);
        if e.name == "a_blosc2" {
            let why = e.unsupported.as_deref().unwrap();
            assert!(why.contains("blosc2"), "{why}");
            assert_eq!(e.shape, vec![100]);
            assert_eq!(info.filters, vec!["blosc2"]);
            assert_eq!(info.chunks, Some(vec![50]));
            let err = f.read(&b, "/grp/a_blosc2", 0, None).unwrap_err();
            assert_eq!(err.code, ErrorCode::Unsupported);
            assert!(err.message.contains("blosc2"), "{}", err.message);
        } else {
            assert_eq!(e.unsupported, None, "{}", e.name);
            assert!(!info.fields.is_empty());
            f.read(&b, &format!("/grp/{}", e.name), 0, None).unwrap();
        }
    }
    assert_eq!(
        arrowsmith_hdf5::dataset_paths(&f, &b).unwrap().len(),
        5,
        "the walk lists every dataset"
    );
}

#[test]
fn external_storage_is_refused_by_name() {
    let (b, f) = open("extstore/extstore.h5");
    let entries = f.list(&b, "/").unwrap();
    for e in &entries {
        let info = f.info(&b, &format!("/{}", e.name)).unwrap();
        let read = f.read(&b, &format!("/{}", e.name), 0, None);
        if e.name == "inside" {
            assert_eq!(e.unsupported, None);
            read.unwrap();
            continue;
        }
        let why = e.unsupported.as_deref().unwrap();
        assert!(why.starts_with("external storage"), "{why}");
        assert!(why.contains("ext_b.bin"), "{why}");
        assert_eq!(info.unsupported.as_deref(), Some(why));
        assert_eq!(info.layout, "contiguous");
        assert!(!info.shape.is_empty());
        let err = read.unwrap_err();
        assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
        assert!(err.message.contains("external storage"), "{err}");
    }
}

/// What a host does for external storage: read the pieces `external_ranges` lists from
/// the files next to the fixture (zeros past a file's end, as libhdf5 reads), then decode.
fn read_external(
    f: &Hdf5File,
    b: &dyn arrowsmith_core::ByteSource,
    path: &str,
    start: u64,
    count: Option<u64>,
) -> arrowsmith_core::Batch {
    read_external_window(f, b, path, &Window::Rows { start, count })
}

/// [`read_external`] of a [`Window`] (rows or a hyperslab).
fn read_external_window(
    f: &Hdf5File,
    b: &dyn arrowsmith_core::ByteSource,
    path: &str,
    w: &Window,
) -> arrowsmith_core::Batch {
    let dir = fixtures_dir().join("extstore");
    let mut raw = Vec::new();
    for (name, off, len) in f.external_ranges_window(b, path, w).unwrap().unwrap() {
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        let from = (off as usize).min(bytes.len());
        let to = (off as usize + len as usize).min(bytes.len());
        raw.extend_from_slice(&bytes[from..to]);
        raw.resize(raw.len() + (len as usize - (to - from)), 0);
    }
    f.read_external_window(b, path, w, &raw).unwrap()
}

#[test]
fn external_storage_reads_through_the_host_as_h5py_does() {
    let (b, f) = open("extstore/extstore.h5");
    let exp: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures_dir().join("extstore/extstore.json")).unwrap(),
    )
    .unwrap();
    for (path, d) in exp["datasets"].as_object().unwrap() {
        let rows = d["rows"].as_array().unwrap();
        let slots = d["external"].as_array().unwrap();
        let ranges = f.external_ranges(&b, path, 0, None).unwrap();
        assert_eq!(ranges.is_some(), !slots.is_empty(), "{path}");
        if ranges.is_none() {
            continue;
        }
        for (start, count) in [
            (0, None),
            (1, Some(rows.len() as u64 - 2)),
            (rows.len() as u64 - 1, Some(1)),
        ] {
            let batch = read_external(&f, &b, path, start, count);
            let want = &rows[start as usize
                ..start as usize + count.unwrap_or(rows.len() as u64 - start) as usize];
            assert_eq!(batch.num_rows, want.len(), "{path}");
            for (i, r) in want.iter().enumerate() {
                common::check(
                    &batch.columns[0],
                    i,
                    r,
                    &format!("{path}[{}]", start as usize + i),
                )
                .unwrap();
            }
        }
    }
}

/// Hyperslab selections of external storage equal h5py's values selected the same way.
#[test]
fn external_storage_selections_equal_h5py() {
    let (b, f) = open("extstore/extstore.h5");
    let exp: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures_dir().join("extstore/extstore.json")).unwrap(),
    )
    .unwrap();
    let mut checked = 0;
    for (path, d) in exp["datasets"].as_object().unwrap() {
        if d["external"].as_array().unwrap().is_empty() {
            continue;
        }
        let dims = f.info(&b, path).unwrap().shape;
        for sel in common::selections(&dims) {
            let batch = read_external_window(&f, &b, path, &Window::Select(sel.clone()));
            let want = common::sliced(&d["rows"], &sel);
            assert_eq!(batch.num_rows, want.len(), "{path} {sel:?}");
            for (i, r) in want.iter().enumerate() {
                common::check(&batch.columns[0], i, r, &format!("{path} {sel:?}[{i}]")).unwrap();
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn external_storage_pieces_are_bounded_by_the_read_limit() {
    let (b, mut f) = open("extstore/extstore.h5");
    f.max_read_bytes = 95;
    let e = f.external_ranges(&b, "/grid", 0, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge, "{e}");
    assert_eq!(
        f.external_ranges(&b, "/grid", 0, Some(2))
            .unwrap()
            .unwrap()
            .len(),
        1
    );
}
