//! Every table-model TsFile fixture read natively (positioned reads of the file, a
//! `Read + Seek`, per-device batches) into arrow-rs, compared value by value with the JSON
//! the generators wrote from the official reader.

mod common;
use arrow_array::RecordBatch;
use arrowsmith_arrow::{SeekReader, TimeUnit, TsFileReader, TsQuery};
use common::*;
use serde_json::Value;

struct Fixture {
    name: String,
    meta: Value,
}

fn table_fixtures() -> Vec<Fixture> {
    let dir = fixtures("tsfile");
    let mut out: Vec<Fixture> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| Some(n.strip_suffix(".json")?.to_string()))
        .filter_map(|name| {
            let meta: Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(format!("{name}.json"))).ok()?,
            )
            .ok()?;
            (meta["table"].is_string() && meta["devices"][0]["columns"].is_object())
                .then_some(Fixture { name, meta })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn unit(meta: &Value) -> TimeUnit {
    match meta["time_unit"].as_str() {
        Some("ns") => TimeUnit::Nanosecond,
        Some("us") => TimeUnit::Microsecond,
        Some("s") => TimeUnit::Second,
        _ => TimeUnit::Millisecond,
    }
}

/// Compare `batches` (devices in any order, each device's rows contiguous) with the JSON.
fn check(f: &Fixture, batches: &[RecordBatch]) -> usize {
    let meta = &f.meta;
    let tags: Vec<&str> = meta["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let fields: Vec<&str> = meta["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap())
        .collect();
    let mut remaining: Vec<&Value> = meta["devices"].as_array().unwrap().iter().collect();
    let mut checked = 0;
    for b in batches {
        let col = |n: &str| {
            b.column_by_name(n)
                .unwrap_or_else(|| panic!("{}: no column {n}", f.name))
                .clone()
        };
        let mut row = 0;
        while row < b.num_rows() {
            let key: Vec<Value> = tags.iter().map(|t| value(col(t).as_ref(), row)).collect();
            let di = remaining
                .iter()
                .position(|d| d["tags"].as_array().unwrap() == &key)
                .unwrap_or_else(|| panic!("{}: unexpected device {key:?}", f.name));
            let d = remaining.remove(di);
            let n = d["rows"].as_u64().unwrap() as usize;
            for i in 0..n {
                let r = row + i;
                assert!(
                    same(&value(col("time").as_ref(), r), &d["columns"]["time"][i]),
                    "{} {key:?} time row {i}",
                    f.name
                );
                for name in &fields {
                    let (got, want) = (value(col(name).as_ref(), r), &d["columns"][name][i]);
                    assert!(
                        same(&got, want),
                        "{} {key:?} {name} row {i}: got {got} want {want}",
                        f.name
                    );
                    checked += 1;
                }
            }
            row += n;
        }
    }
    assert!(
        remaining.is_empty(),
        "{}: {} devices missing",
        f.name,
        remaining.len()
    );
    checked
}

#[test]
fn table_fixtures_by_positioned_reads_seek_and_device_batches() {
    let all = table_fixtures();
    assert!(
        all.len() >= 50,
        "fixtures missing: run scripts/fixtures/tsfile/gen_cpp.py"
    );
    let mut values = 0;
    for f in &all {
        let path = fixtures("tsfile").join(format!("{}.tsfile", f.name));
        let q = TsQuery {
            table: f.meta["table"].as_str().map(String::from),
            ..Default::default()
        };
        let u = unit(&f.meta);
        let mut file = TsFileReader::open(&path).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        let whole = file
            .read(&q, u)
            .unwrap_or_else(|e| panic!("{}: {e}", f.name));
        values += check(f, std::slice::from_ref(&whole));
        let per_device: Vec<RecordBatch> = file
            .batches(q.clone(), u)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            per_device.iter().all(|b| b.schema() == whole.schema()),
            "{}: batch schemas differ",
            f.name
        );
        check(f, &per_device);
        let mut seek =
            TsFileReader::new(SeekReader::new(std::fs::File::open(&path).unwrap())).unwrap();
        assert_eq!(seek.read(&q, u).unwrap(), whole, "{}: Read + Seek", f.name);
        let mut bytes = TsFileReader::new(std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(
            bytes.read(&q, u).unwrap(),
            whole,
            "{}: bytes in memory",
            f.name
        );
    }
    eprintln!("checked {values} values in {} files", all.len());
}

#[test]
fn limits_hold_across_device_batches() {
    let path = fixtures("tsfile").join("cpp_1000_devices_null_tags.tsfile");
    let mut file = TsFileReader::open(path).unwrap();
    let q = TsQuery {
        limit: Some(1500),
        ..Default::default()
    };
    let whole = file.read(&q, TimeUnit::Millisecond).unwrap();
    let rows: usize = file
        .batches(q, TimeUnit::Millisecond)
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum();
    assert_eq!(rows, whole.num_rows());
    assert_eq!(rows, 1500);
}

#[test]
fn errors_name_format_code_and_offset() {
    let mut bytes = std::fs::read(fixtures("tsfile").join("cpp_time_extremes.tsfile")).unwrap();
    let n = bytes.len();
    bytes[n - 10..].fill(0);
    match TsFileReader::new(bytes) {
        Err(arrowsmith_arrow::Error::Decode(e)) => {
            assert_eq!(e.format, arrowsmith_arrow::Format::TsFile)
        }
        Err(e) => panic!("not a decode error: {e}"),
        Ok(_) => panic!("a damaged footer opened"),
    }
    let q = TsQuery {
        table: Some("no_such_table".into()),
        ..Default::default()
    };
    let mut file = TsFileReader::open(fixtures("tsfile").join("cpp_time_extremes.tsfile")).unwrap();
    match file.read(&q, TimeUnit::Millisecond) {
        Err(arrowsmith_arrow::Error::Decode(e)) => {
            assert_eq!(e.code, arrowsmith_arrow::ErrorCode::NotFound)
        }
        other => panic!("{other:?}"),
    }
}

/// apache-arrow JS reads times back as numbers (so the JS API refuses ms times past 2^53);
/// arrow-rs keeps int64, so a native read takes them in any unit, unchanged.
#[test]
fn times_beyond_2_pow_53_read_in_any_unit() {
    let path = fixtures("tsfile").join("cpp_time_extremes.tsfile");
    let mut file = TsFileReader::open(path).unwrap();
    let q = TsQuery::default();
    let ns = file.read(&q, TimeUnit::Nanosecond).unwrap();
    let ms = file.read(&q, TimeUnit::Millisecond).unwrap();
    let raw = |b: &RecordBatch| b.column_by_name("time").unwrap().to_data().buffers()[0].clone();
    assert_eq!(raw(&ns), raw(&ms));
    let max = (0..ms.num_rows())
        .map(|i| {
            value(ms.column_by_name("time").unwrap().as_ref(), i)
                .as_i64()
                .unwrap()
        })
        .max()
        .unwrap();
    assert!(max > 1 << 53, "the fixture has no time past 2^53");
}
