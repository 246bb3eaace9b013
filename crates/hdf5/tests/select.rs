//! N-D hyperslab reads (fixtures/hdf5/select, scripts/fixtures/hdf5/gen_select.py): every
//! selection of every dataset equals what h5py's `ds[selection]` reads, under both libver
//! bounds (every chunk index), from memory and through a sans-I/O cache; only the chunks a
//! selection touches are read;
//! selections that do not fit are `Argument` errors.

mod common;

use arrowsmith_core::{Batch, ByteSource, DataType, ErrorCode, RangeCache};
use arrowsmith_hdf5::{result_shape, Hdf5File, Select};
use common::{check, fixtures_dir};
use serde_json::Value;

fn load(name: &str) -> Vec<u8> {
    std::fs::read(fixtures_dir().join("select").join(name)).unwrap()
}

fn expected() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(fixtures_dir().join("select/select.json")).unwrap(),
    )
    .unwrap()
}

/// A JSON selection entry: an index, `[start, count, step]` or null.
fn entry(v: &Value) -> Select {
    match v {
        Value::Null => Select::All,
        Value::Number(n) => Select::Index(n.as_u64().unwrap()),
        Value::Array(a) => Select::Range {
            start: a[0].as_u64().unwrap(),
            count: a[1].as_u64().unwrap(),
            step: a[2].as_u64().unwrap(),
        },
        _ => panic!("selection entry {v}"),
    }
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// `v` with every object replaced by its member `m` (a compound's column).
fn member(v: &Value, m: &str) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(|x| member(x, m)).collect()),
        Value::Object(o) if !o.contains_key("hex") => o[m].clone(),
        _ => v.clone(),
    }
}

fn check_batch(b: &Batch, rows: &[Value], at: &str) -> Result<(), String> {
    if b.num_rows != rows.len() {
        return Err(format!(
            "{at}: {} rows, expected {}",
            b.num_rows,
            rows.len()
        ));
    }
    for (f, c) in b.fields.iter().zip(&b.columns) {
        if c.len != rows.len() {
            return Err(format!("{at}: column {} of {} rows", f.name, c.len));
        }
        for (i, r) in rows.iter().enumerate() {
            let compound =
                b.columns.len() > 1 || r.as_object().is_some_and(|o| !o.contains_key("hex"));
            let e = if compound {
                member(r, &f.name)
            } else {
                r.clone()
            };
            check(c, i, &e, &format!("{at}[{i}].{}", f.name))?;
        }
    }
    Ok(())
}

/// The number of FixedSizeList levels of a column's type (the kept dimensions after the
/// first).
fn depth(t: &DataType) -> usize {
    match t {
        DataType::FixedSizeList(c, _) => 1 + depth(&c.dtype),
        _ => 0,
    }
}

#[test]
fn every_selection_equals_h5py() {
    let exp = expected();
    let mut cases = 0;
    for (name, datasets) in exp["files"].as_object().unwrap() {
        let bytes = load(name);
        let f = Hdf5File::open(&bytes).unwrap();
        for (path, d) in datasets.as_object().unwrap() {
            let dims = u64s(&d["shape"]);
            for c in d["cases"].as_array().unwrap() {
                let sel: Vec<Select> = c["select"].as_array().unwrap().iter().map(entry).collect();
                let at = format!("{name}:{path}{}", c["select"]);
                let shape = u64s(&c["shape"]);
                assert_eq!(result_shape(&sel, &dims).unwrap(), shape, "{at}");
                let rows = c["rows"].as_array().unwrap();
                let b = f
                    .read_select(&bytes, path, &sel)
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
                check_batch(&b, rows, &at).unwrap();
                for col in &b.columns {
                    assert_eq!(
                        depth(&col.dtype),
                        shape.len().saturating_sub(1),
                        "{at}: nesting"
                    );
                }
                cases += 1;
            }
        }
    }
    assert!(cases > 500, "{cases} cases");
}

/// The chunk indexes the fixtures exercise, as the generator means them.
#[test]
fn the_fixtures_cover_every_chunk_index() {
    let bytes = load("select_latest.h5");
    let f = Hdf5File::open(&bytes).unwrap();
    let kind = |p: &str| f.info(&bytes, p).unwrap().chunk_index.unwrap_or_default();
    assert_eq!(kind("/k2_gzip_shuffle"), "fixed-array");
    assert_eq!(kind("/k2_ext"), "extensible-array");
    assert_eq!(kind("/k2_bt2"), "btree-v2");
    assert_eq!(kind("/k2_single"), "single-chunk");
    assert_eq!(kind("/k2_implicit"), "implicit");
    assert_eq!(f.info(&bytes, "/compact2").unwrap().layout, "compact");
    let bytes = load("select_earliest.h5");
    let f = Hdf5File::open(&bytes).unwrap();
    assert_eq!(
        f.info(&bytes, "/k2_ext").unwrap().chunk_index.unwrap(),
        "btree-v1"
    );
}

/// A selection over a sans-I/O cache that starts empty: every `NeedBytes` answered, then
/// the same values as from memory.
#[test]
fn selections_read_through_need_bytes() {
    let exp = expected();
    for name in ["select_latest.h5", "select_earliest.h5"] {
        let bytes = load(name);
        for path in ["/k3", "/vlstr", "/k2_fill", "/c3", "/compound"] {
            let d = &exp["files"][name][path];
            for c in d["cases"].as_array().unwrap().iter().take(12) {
                let sel: Vec<Select> = c["select"].as_array().unwrap().iter().map(entry).collect();
                let mut cache = RangeCache::new(bytes.len() as u64);
                cache.insert(0, bytes[..2048].to_vec());
                let f = Hdf5File::open(&cache).unwrap();
                let mut rounds = 0;
                let b = loop {
                    match f.read_select(&cache, path, &sel) {
                        Ok(b) => break b,
                        Err(e) if e.is_need_bytes() => {
                            let (o, n) = (e.offset as usize, e.need_len as usize);
                            cache.insert(o as u64, bytes[o..o + n].to_vec());
                            rounds += 1;
                            assert!(rounds < 100, "{name}:{path}: rounds");
                        }
                        Err(e) => panic!("{name}:{path}: {e}"),
                    }
                };
                let at = format!("{name}:{path}{} (sans-I/O)", c["select"]);
                check_batch(&b, c["rows"].as_array().unwrap(), &at).unwrap();
                assert!(cache.size() == bytes.len() as u64);
            }
        }
    }
}

#[test]
fn selections_that_do_not_fit_are_argument_errors() {
    let bytes = load("select_latest.h5");
    let f = Hdf5File::open(&bytes).unwrap();
    let r = |start, count, step| Select::Range { start, count, step };
    let bad: &[(&str, Vec<Select>, &str)] = &[
        ("/k3", vec![Select::All, Select::All], "2 dimensions"),
        ("/k3", vec![Select::All; 4], "4 dimensions"),
        (
            "/k3",
            vec![Select::Index(9), Select::All, Select::All],
            "index 9",
        ),
        (
            "/k3",
            vec![r(0, 1, 0), Select::All, Select::All],
            "step of 0",
        ),
        (
            "/k3",
            vec![r(5, 3, 2), Select::All, Select::All],
            "3 elements from 5 by 2",
        ),
        (
            "/k3",
            vec![Select::All, r(11, 0, 1), Select::All],
            "from 11",
        ),
        (
            "/k3",
            vec![r(1, u64::MAX, 2), Select::All, Select::All],
            "dimension 0",
        ),
        ("/scalar", vec![Select::All], "1 dimensions"),
        ("/c1", vec![], "0 dimensions"),
    ];
    for (path, sel, words) in bad {
        let e = f.read_select(&bytes, path, sel).unwrap_err();
        assert_eq!(e.code, ErrorCode::Argument, "{path} {sel:?}: {e}");
        assert_eq!(e.offset, 0, "{path} {sel:?}: not a place in the file");
        assert!(
            e.message.contains(words) && e.message.contains(path),
            "{path} {sel:?}: {e}"
        );
    }
    // A selection of nothing: an empty result of the right shape.
    let b = f
        .read_select(&bytes, "/k3", &[Select::All, r(10, 0, 1), Select::Index(2)])
        .unwrap();
    assert_eq!(b.num_rows, 9);
    assert_eq!(
        b.columns[0].dtype,
        DataType::FixedSizeList(
            Box::new(arrowsmith_core::Field::new("item", DataType::UInt16, true)),
            0
        )
    );
}

/// The distinct ranges a read gets from its source.
struct Recording<'a> {
    bytes: &'a Vec<u8>,
    gets: std::cell::RefCell<std::collections::BTreeSet<(u64, usize)>>,
}

impl ByteSource for Recording<'_> {
    fn size(&self) -> u64 {
        self.bytes.size()
    }
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        self.gets.borrow_mut().insert((offset, len));
        self.bytes.get(offset, len)
    }
}

/// Only the chunks a selection touches are read: a column of `/k2_gzip_shuffle` (23 × 17
/// in chunks of 5 × 4: a grid of 5 × 5) touches one chunk column of five chunks.
#[test]
fn a_selection_reads_only_the_chunks_it_touches() {
    let bytes = load("select_latest.h5");
    let gets = |sel: &[Select]| {
        let f = Hdf5File::open(&bytes).unwrap();
        let rec = Recording {
            bytes: &bytes,
            gets: Default::default(),
        };
        let b = f.read_select(&rec, "/k2_gzip_shuffle", sel).unwrap();
        (rec.gets.into_inner(), b)
    };
    let (whole, _) = gets(&[Select::All, Select::All]);
    let (column, b) = gets(&[Select::All, Select::Index(6)]);
    assert!(column.is_subset(&whole));
    assert_eq!(whole.len() - column.len(), 20, "chunks not read");
    let col: Vec<i32> = match &b.columns[0].buffers[0] {
        arrowsmith_core::Buffer::I32(v) => v.clone(),
        _ => panic!(),
    };
    assert_eq!(col, (0..23).map(|i| i * 17 + 6).collect::<Vec<i32>>());
    // A step wider than a chunk skips the chunk columns between.
    let (strided, _) = gets(&[
        Select::All,
        Select::Range {
            start: 1,
            count: 2,
            step: 8,
        },
    ]);
    assert_eq!(whole.len() - strided.len(), 15, "chunks not read");
}

/// A column of contiguous data reads its part of each row, not the span from its first to
/// its last element: `/c3` (5 × 6 × 7 float64, 1680 bytes) at `[:, 5, 3]` reads 5 × 8 bytes.
#[test]
fn a_contiguous_column_reads_its_elements_only() {
    let bytes = load("select_latest.h5");
    let f = Hdf5File::open(&bytes).unwrap();
    let info = f.info(&bytes, "/c3").unwrap();
    assert_eq!(info.layout, "contiguous");
    let read = |sel: &[Select]| {
        let rec = Recording {
            bytes: &bytes,
            gets: Default::default(),
        };
        f.read_select(&rec, "/c3", sel).unwrap();
        rec.gets.into_inner()
    };
    let whole = read(&[Select::All, Select::All, Select::All]);
    let column = read(&[Select::All, Select::Index(5), Select::Index(3)]);
    let data: Vec<_> = column.difference(&whole).collect();
    assert_eq!(data.len(), 5, "{data:?}");
    assert!(data.iter().all(|&&(_, len)| len == 8), "{data:?}");
}
