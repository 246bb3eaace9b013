//! Browsing files that hold something this reader refuses: the group still lists, the
//! member's `info` says what is unsupported, the read fails `Unsupported` naming it, and
//! everything else reads.

mod common;

use arrowsmith_core::ErrorCode;
use arrowsmith_hdf5::{EntryKind, Hdf5File};
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
