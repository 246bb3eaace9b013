//! `describe` against what h5py says of the same objects (the fixtures' JSON: shapes,
//! numpy dtypes, attribute names) and against the generators' documented parameters
//! (gen_nexus.py: chunks, shuffle + gzip level 4).

mod common;

use arrowsmith_hdf5::{EntryKind, Hdf5File, TypeInfo};
use serde_json::Value;

fn load(name: &str) -> (Vec<u8>, Hdf5File, Value) {
    let b = std::fs::read(common::data_file(name)).unwrap();
    let f = Hdf5File::open(&b).unwrap();
    let j: Value = serde_json::from_str(
        &std::fs::read_to_string(common::fixtures_dir().join(format!("{name}.json"))).unwrap(),
    )
    .unwrap();
    (b, f, j)
}

/// The numpy kind letter a type reads as in h5py (`i`, `u`, `f`, `S`, `c`, `V`...).
fn numpy_kind(t: &TypeInfo) -> &'static str {
    match t {
        TypeInfo::Int { signed: true, .. } => "i",
        TypeInfo::Int { signed: false, .. } => "u",
        TypeInfo::Float { .. } => "f",
        TypeInfo::Complex { .. } => "c",
        TypeInfo::Enum { members, .. }
            if members.len() == 2 && members.iter().any(|m| m.0 == "TRUE") =>
        {
            "b"
        }
        _ => "",
    }
}

#[test]
fn every_dataset_shape_and_numeric_kind_as_h5py_reads_it() {
    for name in ["types_latest", "types_earliest", "nexus", "types_v108"] {
        let (b, f, j) = load(name);
        let mut checked = 0;
        for (path, want) in j["datasets"].as_object().unwrap() {
            let Ok(d) = f.describe(&b, path) else {
                continue;
            };
            assert_eq!(d.kind, EntryKind::Dataset, "{name}{path}");
            if let Some(shape) = want.get("shape").and_then(Value::as_array) {
                let dims: Vec<u64> = shape.iter().map(|x| x.as_u64().unwrap()).collect();
                assert_eq!(d.dims.as_deref(), Some(&dims[..]), "{name}{path}");
            }
            let dtype = want["dtype"].as_str().unwrap_or("");
            let kind = d.dtype.as_ref().map_or("", numpy_kind);
            // h5py's dtype string: '<i4', 'uint16', 'float64', 'bool', 'complex128', ...
            let letter = match dtype.trim_start_matches(['<', '>', '|', '=']) {
                s if s.starts_with("int") || s.starts_with('i') => "i",
                s if s.starts_with("uint") || s.starts_with('u') => "u",
                s if s.starts_with("float") || s.starts_with('f') => "f",
                s if s.starts_with("complex") || s.starts_with('c') => "c",
                "bool" | "?" => "b",
                _ => "",
            };
            if !letter.is_empty() && !kind.is_empty() {
                assert_eq!(kind, letter, "{name}{path}: {dtype} vs {:?}", d.dtype);
                checked += 1;
            }
        }
        assert!(checked > 3, "{name}: only {checked} datasets checked");
    }
}

#[test]
fn attribute_names_are_h5pys() {
    for name in ["nexus", "types_latest", "netcdf4_full"] {
        let (b, f, j) = load(name);
        for (path, attrs) in j["attrs"].as_object().unwrap() {
            let mut want: Vec<&str> = attrs
                .as_object()
                .unwrap()
                .keys()
                .map(|k| k.as_str())
                .collect();
            let mut got: Vec<String> = f
                .describe(&b, path)
                .unwrap()
                .attributes
                .into_iter()
                .map(|a| a.name)
                .collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{name}{path}");
        }
    }
}

#[test]
fn nexus_chunks_filters_and_string_attributes() {
    let (b, f, _) = load("nexus");
    let d = f.describe(&b, "/entry/image/frame").unwrap();
    assert_eq!(d.chunks.as_deref(), Some(&[16, 80][..]));
    let filters: Vec<(u16, &str, &[u32])> = d
        .filters
        .iter()
        .map(|x| (x.id, x.name.as_str(), &x.cd_values[..]))
        .collect();
    // shuffle's parameter is the element size libhdf5 stores; gzip's the level.
    assert_eq!(
        filters,
        [(2, "shuffle", &[2][..]), (1, "deflate", &[4][..])]
    );
    assert_eq!(
        d.dtype,
        Some(TypeInfo::Int {
            size: 2,
            signed: false,
            be: false,
            bits: None
        })
    );
    let g = f.describe(&b, "/entry").unwrap();
    assert_eq!(g.kind, EntryKind::Group);
    let nx = g.attributes.iter().find(|a| a.name == "NX_class").unwrap();
    assert!(
        matches!(nx.dtype, TypeInfo::String { utf8: true, .. }),
        "{:?}",
        nx.dtype
    );
    assert_eq!(nx.dims.as_deref(), Some(&[][..]));
}

#[test]
fn compound_members_and_enum_labels() {
    let (b, f, _) = load("types_latest");
    // h5py: [('a', '<i4'), ('b', '>f8'), ('c', 'S3'), ('d', '<u2', (2,)), ('e', [('x', 'u1'), ('y', '<i8')])]
    let Some(TypeInfo::Compound { members }) = f.describe(&b, "/compound").unwrap().dtype else {
        panic!("not a compound")
    };
    let names: Vec<&str> = members.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e"]);
    assert!(matches!(
        members[1].2,
        TypeInfo::Float {
            size: 8,
            be: true,
            ieee: true
        }
    ));
    assert!(matches!(&members[3].2, TypeInfo::Array { dims, .. } if dims == &[2]));
    assert!(
        members.windows(2).all(|w| w[0].1 < w[1].1),
        "offsets increase"
    );
    // gen_h5py.py: h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 2}, basetype="i2")
    let Some(TypeInfo::Enum { members, base }) = f.describe(&b, "/enum").unwrap().dtype else {
        panic!("not an enum")
    };
    // (libhdf5 stores the members in its own order.)
    let mut members: Vec<(&str, i128)> = members.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    members.sort_by_key(|m| m.1);
    assert_eq!(members, [("RED", 0), ("GREEN", 1), ("BLUE", 2)]);
    assert!(matches!(
        *base,
        TypeInfo::Int {
            size: 2,
            signed: true,
            ..
        }
    ));
}
