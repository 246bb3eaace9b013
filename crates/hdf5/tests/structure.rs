//! The fixture matrix really exercises the structures it claims to, and VL semantics that
//! the JSON dump cannot express (null vs empty, invalid UTF-8) hold.

mod common;

use arrowsmith_core::{Buffer, Column, DataType};
use arrowsmith_hdf5::{EntryKind, Hdf5File};

fn open(name: &str) -> (Vec<u8>, Hdf5File) {
    let b = std::fs::read(common::fixtures_dir().join(format!("{name}.h5"))).unwrap();
    let f = Hdf5File::open(&b).unwrap();
    (b, f)
}

#[test]
fn chunk_indexes_and_layout_versions() {
    let cases = [
        ("types_earliest", "/ck_deflate", "btree-v1", 3),
        ("types_latest", "/ck_single", "single-chunk", 4),
        ("types_latest", "/ck_single_gzip", "single-chunk", 5),
        ("types_latest", "/ck_implicit", "implicit", 4),
        ("types_latest", "/ck_fixed_many", "fixed-array", 4),
        ("types_latest", "/ck_deflate", "fixed-array", 5),
        ("types_latest", "/ck_ext_many", "extensible-array", 4),
        ("types_latest", "/ck_ext_gzip", "extensible-array", 5),
        ("types_latest", "/ck_btree2", "btree-v2", 4),
        ("types_latest", "/ck_ext_dim1", "extensible-array", 4),
        ("types_v110", "/ck_ext_dim0_2d", "extensible-array", 4),
        ("types_latest", "/ck_ext_dim0_2d", "extensible-array", 5),
        ("types_latest", "/ck_btree2_gzip", "btree-v2", 5),
        ("types_v110", "/ck_btree2_gzip", "btree-v2", 4),
        ("vl_v110", "/vlstr_2d_unlim", "btree-v2", 4),
        ("vl_latest", "/vlstr_gzip_shuffle", "fixed-array", 5),
        ("vl_latest", "/vlstr_resizable", "extensible-array", 4),
        ("vl_implicit", "/vlstr_implicit", "implicit", 4),
    ];
    for (file, ds, index, version) in cases {
        let (b, f) = open(file);
        let i = f.info(&b, ds).unwrap();
        assert_eq!(i.chunk_index.as_deref(), Some(index), "{file}{ds}");
        assert_eq!(i.layout_version, version, "{file}{ds}");
    }
    let (b, f) = open("types_latest");
    assert_eq!(f.info(&b, "/compact_i4").unwrap().layout, "compact");
    assert_eq!(
        f.info(&b, "/ck_all3").unwrap().filters,
        vec!["shuffle", "deflate", "fletcher32"]
    );
    assert_eq!(
        f.info(&b, "/ck_lzf_shuffle").unwrap().filters,
        vec!["shuffle", "lzf"]
    );
}

fn validity(c: &Column, i: usize) -> bool {
    c.validity.as_ref().is_none_or(|v| v.get(i))
}

fn str_at(c: &Column, i: usize) -> &[u8] {
    let (Buffer::I32(o), Buffer::U8(d)) = (&c.buffers[0], &c.buffers[1]) else {
        panic!()
    };
    &d[o[i] as usize..o[i + 1] as usize]
}

#[test]
fn null_versus_empty() {
    for lv in ["earliest", "v108", "v110", "latest"] {
        let (b, f) = open(&format!("vl_{lv}"));
        // "" written by h5py is a real, empty heap object: valid and empty.
        let c = &f.read(&b, "/vlstr_utf8", 0, None).unwrap().columns[0];
        assert_eq!(c.dtype, DataType::Utf8);
        assert!(validity(c, 0) && str_at(c, 0).is_empty());
        assert_eq!(
            str_at(c, 5).len(),
            70_005,
            "big string in its own collection"
        );
        // Never-written contiguous storage: every cell is a null reference.
        let c = &f.read(&b, "/vlstr_unwritten", 0, None).unwrap().columns[0];
        assert_eq!(c.null_count(), 10);
        // Empty sequences are written as null references and read as valid empty lists
        // (as libhdf5 reads them).
        let c = &f.read(&b, "/vlseq_i32", 0, None).unwrap().columns[0];
        assert!(matches!(c.dtype, DataType::List(_)));
        let Buffer::I32(o) = &c.buffers[0] else {
            panic!()
        };
        assert!(validity(c, 0) && o[1] == o[0] && validity(c, 1) && o[2] > o[1]);
        assert_eq!(c.null_count(), 0);
        // Scalar and zero-row datasets.
        assert_eq!(f.read(&b, "/vlstr_scalar", 0, None).unwrap().num_rows, 1);
        assert_eq!(f.read(&b, "/vlstr_empty", 0, None).unwrap().num_rows, 0);
        // Unallocated chunks read as the (zero) fill value: null references.
        let c = &f.read(&b, "/vlstr_partial", 0, None).unwrap().columns[0];
        assert_eq!(c.null_count(), 500);
    }
}

#[test]
fn vl_fill_value_in_global_heap() {
    for lv in ["earliest", "latest"] {
        let (b, f) = open(&format!("vl_fill_{lv}"));
        let c = &f.read(&b, "/vlstr_fill", 0, None).unwrap().columns[0];
        assert!((0..4).all(|i| validity(c, i) && str_at(c, i) == b"N/A"));
        let c = &f.read(&b, "/vlstr_fill_partial", 0, None).unwrap().columns[0];
        assert_eq!(str_at(c, 0), b"fill!");
        assert_eq!(str_at(c, 150), b"w50");
        assert_eq!(str_at(c, 299), b"fill!");
    }
}

#[test]
fn invalid_utf8_falls_back_to_binary() {
    let (b, f) = open("vl_odd");
    let c = &f.read(&b, "/bad_utf8", 0, None).unwrap().columns[0];
    assert_eq!(c.dtype, DataType::Binary);
    assert_eq!(str_at(c, 1), b"\xff\xfe");
}

#[test]
fn nested_vl_shapes() {
    let (b, f) = open("vl_nested");
    let c = &f.read(&b, "/vlen_of_vlen", 0, None).unwrap().columns[0];
    let DataType::List(inner) = &c.dtype else {
        panic!()
    };
    assert!(matches!(inner.dtype, DataType::List(_)));
    let c = &f.read(&b, "/vlen_struct_60", 0, None).unwrap().columns[0];
    let DataType::List(inner) = &c.dtype else {
        panic!()
    };
    assert!(matches!(&inner.dtype, DataType::Struct(fs) if fs.len() == 3));
    let (b, f) = open("vl_latest");
    let batch = f.read(&b, "/cmpd_vl", 0, None).unwrap();
    let names: Vec<_> = batch.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["id", "name", "vals", "x"]);
    assert_eq!(batch.column("name").unwrap().dtype, DataType::Utf8);
    // Trailing dimensions → FixedSizeList.
    let c = &f.read(&b, "/vlstr_2d", 0, None).unwrap().columns[0];
    assert!(matches!(&c.dtype, DataType::FixedSizeList(_, 4)));
    let info = f.info(&b, "/vlstr_2d").unwrap();
    assert_eq!(info.fields[0].dtype, c.dtype);
}

#[test]
fn listing_and_kinds() {
    let (b, f) = open("types_earliest");
    let root = f.list(&b, "/").unwrap();
    let kind = |n: &str| root.iter().find(|e| e.name == n).unwrap().kind;
    assert_eq!(kind("grp"), EntryKind::Group);
    assert_eq!(kind("ck_deflate"), EntryKind::Dataset);
    assert_eq!(kind("leaf_type"), EntryKind::Datatype);
    let e = root.iter().find(|e| e.name == "compound").unwrap();
    assert_eq!(e.shape, vec![4]);
    assert!(e.dtype.starts_with("compound{a:int32le"), "{}", e.dtype);
    assert_eq!(f.list(&b, "/grp/sub").unwrap()[0].name, "leaf");
    let e = f.read(&b, "/nope", 0, None).unwrap_err();
    assert_eq!(e.code, arrowsmith_core::ErrorCode::NotFound);
    // Dense links (fractal heap + v2 B-tree) with 20 members.
    let (b, f) = open("vl_latest");
    assert_eq!(f.list(&b, "/many").unwrap().len(), 20);
}

#[test]
fn plan_coalesces_heap_ranges() {
    let (b, f) = open("vl_earliest");
    let r = f.plan(&b, "/vlstr_gzip_shuffle", 0, None).unwrap();
    assert!(!r.is_empty() && r.len() < 10, "{r:?}");
    assert!(r.iter().all(|(o, l)| o + l <= b.len() as u64));
}

#[test]
fn enums_are_dictionaries_of_their_labels() {
    for lv in ["earliest", "latest"] {
        let (b, f) = open(&format!("types_{lv}"));
        let info = f.info(&b, "/enum").unwrap();
        // Members in the order the file stores them (h5py writes them sorted by name).
        assert_eq!(info.dtype, "enum<int16le>(BLUE=2,GREEN=1,RED=0)");
        assert_eq!(info.fields[0].dtype, DataType::DictionaryUtf8);
        let listed = f.list(&b, "/").unwrap();
        let e = listed.iter().find(|e| e.name == "enum_2d_be").unwrap();
        assert_eq!(e.dtype, "enum<int32be>(hi=9,lo=1,mid=5)");
        // h5py's boolean (an int8 enum FALSE = 0, TRUE = 1) is Bool.
        let c = &f.read(&b, "/bool", 0, None).unwrap().columns[0];
        assert_eq!(c.dtype, DataType::Bool);
        assert_eq!(f.info(&b, "/bool").unwrap().fields[0].dtype, DataType::Bool);
        // A value with no label is null; the dictionary holds every label once.
        let c = &f.read(&b, "/enum_unmatched", 0, None).unwrap().columns[0];
        assert_eq!(c.null_count(), 2);
        assert_eq!(c.children[0].len, 3);
    }
}

/// External links: each dataset h5py read through main.h5 is reached by following
/// `external_link` from file to file (the test is the resolver), and equals h5py's values;
/// without following, a read names the link, the file and the path there.
#[test]
fn external_links_lead_to_the_linked_files() {
    let dir = common::fixtures_dir().join("external");
    let load = |n: &str| std::fs::read(dir.join(n)).unwrap();
    let exp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("main.json")).unwrap()).unwrap();
    for (path, d) in exp["datasets"].as_object().unwrap() {
        let (mut name, mut p, mut hops) = ("main.h5".to_string(), path.clone(), 0);
        let batch = loop {
            let b = load(&name);
            let f = Hdf5File::open(&b).unwrap();
            match f.external_link(&b, &p).unwrap() {
                Some((file, there)) => {
                    let e = f.read(&b, &p, 0, None).unwrap_err();
                    assert_eq!(e.code, arrowsmith_core::ErrorCode::Unsupported, "{path}");
                    assert!(e.message.contains(&format!("{file}:{there}")), "{e}");
                    (name, p, hops) = (file, there, hops + 1);
                }
                None => break f.read(&b, &p, 0, None).unwrap(),
            }
        };
        assert_eq!(hops > 0, path != "/local", "{path}");
        let rows = d["rows"].as_array().unwrap();
        assert_eq!(batch.num_rows, rows.len(), "{path}");
        for (i, r) in rows.iter().enumerate() {
            common::check(&batch.columns[0], i, r, &format!("{path}[{i}]")).unwrap();
        }
    }
    // list() names each link's file and path, as h5py reports them.
    let b = load("main.h5");
    let f = Hdf5File::open(&b).unwrap();
    for (path, want) in exp["links"].as_object().unwrap() {
        let (group, name) = path.rsplit_once('/').unwrap();
        let e = f.list(&b, group).unwrap();
        let e = e.iter().find(|e| e.name == name).unwrap();
        assert_eq!(e.kind, EntryKind::Link);
        assert_eq!(
            e.target,
            format!(
                "{}:{}",
                want[0].as_str().unwrap(),
                want[1].as_str().unwrap()
            )
        );
    }
}
