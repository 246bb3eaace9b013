//! Query semantics: time range, projection, tag/device filters, limit, plan + sans-I/O.

mod common;
use arrowsmith_core::{ByteSource, DataType, ErrorCode, RangeCache, TimeUnit};
use arrowsmith_tsfile::{Query, TsFile, TsType};
use common::*;
use serde_json::Value;

struct Fixture {
    bytes: Vec<u8>,
    meta: Value,
}

fn load(name: &str) -> Fixture {
    let dir = fixtures_dir();
    Fixture {
        bytes: std::fs::read(dir.join(format!("{name}.tsfile"))).unwrap(),
        meta: serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap(),
    }
}

/// Expected rows (device order as the reader returns them: index order = sorted tags).
fn expected(meta: &Value, keep: impl Fn(&Value, i64) -> bool, cols: &[&str]) -> Vec<Vec<Value>> {
    let mut devs: Vec<&Value> = meta["devices"].as_array().unwrap().iter().collect();
    devs.sort_by_key(|d| {
        d["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().map(String::from))
            .collect::<Vec<_>>()
    });
    let mut out = vec![];
    for d in devs {
        let n = d["rows"].as_u64().unwrap() as usize;
        for i in 0..n {
            let t = d["columns"]["time"][i].as_i64().unwrap();
            if !keep(&d["tags"], t) {
                continue;
            }
            let mut row = vec![Value::from(t)];
            for c in cols {
                row.push(match *c {
                    "id1" => d["tags"][0].clone(),
                    "id2" => d["tags"][1].clone(),
                    c => d["columns"][c][i].clone(),
                });
            }
            out.push(row);
        }
    }
    out
}

fn rows(b: &arrowsmith_core::Batch, cols: &[&str]) -> Vec<Vec<Value>> {
    (0..b.num_rows)
        .map(|r| {
            let mut row = vec![value(b.column("time").unwrap(), r)];
            row.extend(cols.iter().map(|c| value(b.column(c).unwrap(), r)));
            row
        })
        .collect()
}

fn assert_rows(got: &[Vec<Value>], want: &[Vec<Value>]) {
    assert_eq!(got.len(), want.len(), "row count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.iter().zip(w).all(|(a, b)| same(a, b)),
            "row {i}: got {g:?} want {w:?}"
        );
    }
}

#[test]
fn time_range_and_projection() {
    let fx = load("cpp_multipage_gorilla_lz4");
    let f = TsFile::open(&fx.bytes).unwrap();
    let t0 = fx.meta["devices"][0]["columns"]["time"][0]
        .as_i64()
        .unwrap();
    for (start, end) in [
        (t0 + 1234, t0 + 3456),
        (t0 - 10, t0 + 5),
        (t0 + 999_999, t0 + 1_000_000),
        (i64::MIN, i64::MAX),
    ] {
        let cols = ["i64", "id1", "d", "str"];
        let q = range_query(&cols, start, end);
        let b = f.read(&fx.bytes, &q).unwrap();
        assert_eq!(
            b.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            vec!["time", "i64", "id1", "d", "str"]
        );
        assert_eq!(
            b.fields[0].dtype,
            DataType::Timestamp(TimeUnit::Millisecond)
        );
        assert_eq!(b.fields[2].dtype, DataType::DictionaryUtf8);
        let want = expected(&fx.meta, |_, t| t >= start && t <= end, &cols);
        assert_rows(&rows(&b, &cols), &want);
    }
}

#[test]
fn tag_device_filters_and_limit() {
    let fx = load("cpp_many_devices_ts2diff");
    let f = TsFile::open(&fx.bytes).unwrap();
    let cols = ["id1", "id2", "i32", "f", "dt", "b", "blob"];
    let cs = Some(cols.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let q = Query {
        columns: cs.clone(),
        tags: vec![("id2".into(), "g1".into())],
        ..Default::default()
    };
    let b = f.read(&fx.bytes, &q).unwrap();
    let want = expected(&fx.meta, |tags, _| tags[1] == "g1", &cols);
    assert!(!want.is_empty());
    assert_rows(&rows(&b, &cols), &want);

    let q = Query {
        columns: cs.clone(),
        devices: Some(vec!["t.dev03.g0".into()]),
        ..Default::default()
    };
    let b = f.read(&fx.bytes, &q).unwrap();
    assert_rows(
        &rows(&b, &cols),
        &expected(&fx.meta, |tags, _| tags[0] == "dev03", &cols),
    );

    for limit in [0, 1, 7, 21, 1000] {
        let q = Query {
            columns: cs.clone(),
            limit: Some(limit),
            ..Default::default()
        };
        let b = f.read(&fx.bytes, &q).unwrap();
        let mut want = expected(&fx.meta, |_, _| true, &cols);
        want.truncate(limit);
        assert_rows(&rows(&b, &cols), &want);
    }
    let q = Query {
        columns: Some(vec!["i32".into()]),
        ..Default::default()
    };
    let b = f.read_as(&fx.bytes, &q, TimeUnit::Microsecond).unwrap();
    assert_eq!(
        b.fields[0].dtype,
        DataType::Timestamp(TimeUnit::Microsecond)
    );
    let q = Query {
        columns: Some(vec!["nope".into()]),
        ..Default::default()
    };
    assert_eq!(f.read(&fx.bytes, &q).unwrap_err().code, ErrorCode::NotFound);
    let q = Query {
        tags: vec![("id9".into(), "x".into())],
        ..Default::default()
    };
    assert_eq!(f.read(&fx.bytes, &q).unwrap_err().code, ErrorCode::NotFound);
    // A device path the file does not hold is not-found too, never zero rows.
    let q = Query {
        devices: Some(vec!["t.nosuchdevice".into()]),
        ..Default::default()
    };
    let e = f.read(&fx.bytes, &q).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("nosuchdevice"), "{}", e.message);
}

#[test]
fn metadata_views() {
    let fx = load("cpp_plain_lz4");
    let f = TsFile::open(&fx.bytes).unwrap();
    let t = f.tables();
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].name, "t");
    assert_eq!(
        t[0].tags().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        vec!["id1", "id2"]
    );
    assert_eq!(t[0].fields().count(), 10);
    let d = f.devices(Some("t"));
    assert_eq!(d.len(), 3);
    assert_eq!(
        d[0].tags,
        vec![Some("d1".to_string()), Some("a".to_string())]
    );
    assert_eq!(d[2].tags, vec![Some("d3".to_string()), None]);
    let ts = f.timeseries(&fx.bytes).unwrap();
    assert_eq!(ts.len(), 30);
    let i64s = ts
        .iter()
        .find(|s| s.measurement == "i64" && s.device == d[0].path)
        .unwrap();
    assert_eq!(i64s.dtype, TsType::Int64);
    assert!(i64s.aligned);
    assert_eq!(i64s.compression, Some(arrowsmith_tsfile::Compression::Lz4));

    let fx = load("cpp_tree_mixed");
    let f = TsFile::open(&fx.bytes).unwrap();
    assert!(f.tables().is_empty());
    let paths: Vec<String> = f.devices(None).into_iter().map(|d| d.path).collect();
    assert_eq!(paths, vec!["root.other.dev.x", "root.sg.d1", "root.sg.d2"]);
    let ts = f.timeseries(&fx.bytes).unwrap();
    let s = ts.iter().find(|s| s.measurement == "s_d_rlbe").unwrap();
    assert_eq!(
        (s.encoding, s.aligned),
        (Some(arrowsmith_tsfile::Encoding::Rlbe), false)
    );
}

/// Drive a call against a RangeCache, loading whatever it asks for; returns (result, rounds).
fn drive<T>(
    file: &[u8],
    cache: &mut RangeCache,
    mut f: impl FnMut(&RangeCache) -> arrowsmith_core::Result<T>,
) -> (T, usize) {
    let mut rounds = 0;
    loop {
        match f(cache) {
            Ok(v) => return (v, rounds),
            Err(e) if e.is_need_bytes() => {
                rounds += 1;
                assert!(rounds < 10_000);
                let (s, n) = (e.offset as usize, e.need_len as usize);
                cache.insert(e.offset, file[s..s + n].to_vec());
            }
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn sans_io_plan_covers_read() {
    for name in [
        "cpp_multipage_gorilla_lz4",
        "cpp_tree_mixed",
        "cpp_plain_zstd",
        "cpp_many_devices_ts2diff",
    ] {
        let fx = load(name);
        let file = &fx.bytes;
        let mut cache = RangeCache::new(file.len() as u64);
        let (f, _) = drive(file, &mut cache, |c| TsFile::open(c));
        let (a, b) = f.index_range();
        cache.insert(a, file[a as usize..b as usize].to_vec());
        for q in [
            Query::default(),
            Query {
                columns: Some(vec!["i64".into(), "d".into()]),
                ..Default::default()
            },
            Query {
                columns: Some(vec!["s_i64_gor".into()]),
                start: Some(1_600_000_030_000),
                end: Some(1_600_000_060_000),
                ..Default::default()
            },
            Query {
                limit: Some(5),
                ..Default::default()
            },
            Query {
                limit: Some(30),
                ..Default::default()
            },
        ] {
            let Ok(ranges) = f.plan(&cache, &q) else {
                continue;
            };
            // Only the head, the index and the planned ranges are loaded.
            let mut c2 = RangeCache::new(file.len() as u64);
            c2.insert(0, file[..7].to_vec());
            c2.insert(a, file[a as usize..b as usize].to_vec());
            for (s, e) in &ranges {
                c2.insert(*s, file[*s as usize..*e as usize].to_vec());
            }
            let got = f
                .read(&c2, &q)
                .unwrap_or_else(|e| panic!("{name}: plan missed a range: {e}"));
            let full = f.read(file, &q).unwrap();
            assert_eq!(got, full);
            let planned: u64 = ranges.iter().map(|(s, e)| e - s).sum();
            assert!(planned <= c2.size());
            // Without a plan the reader asks for what it needs, about a chunk at a time.
            let mut c3 = RangeCache::new(file.len() as u64);
            c3.insert(a, file[a as usize..b as usize].to_vec());
            let (lazy, rounds) = drive(file, &mut c3, |c| f.read(c, &q));
            // At most two round trips per chunk (header piece, then the rest of its data).
            let chunks: usize = f.timeseries(file).unwrap().iter().map(|s| s.chunks).sum();
            assert!(
                rounds <= 4 * chunks + 2,
                "{name}: {rounds} round trips for {chunks} chunks"
            );
            assert_eq!(lazy, full);
        }
    }
}

/// A limited read plans only the devices that surely hold its rows (a preview of a big file
/// must not fetch the whole file first).
#[test]
fn limited_plan_stops_at_enough_rows() {
    let fx = load("cpp_many_devices_ts2diff");
    let file = &fx.bytes;
    let f = TsFile::open(file).unwrap();
    let bytes = |q: &Query| -> u64 { f.plan(file, q).unwrap().iter().map(|(s, e)| e - s).sum() };
    let all = bytes(&Query::default());
    // 12 devices of 20 rows: 5 rows are in the first device, 30 in the first two.
    let five = bytes(&Query {
        limit: Some(5),
        ..Default::default()
    });
    let thirty = bytes(&Query {
        limit: Some(30),
        ..Default::default()
    });
    assert!(five * 8 < all, "limit 5 plans {five} of {all} bytes");
    assert!(
        five < thirty && thirty * 4 < all,
        "limit 30 plans {thirty} of {all} bytes"
    );
    assert_eq!(
        bytes(&Query {
            limit: Some(10_000),
            ..Default::default()
        }),
        all
    );
}

/// Ranges ending inside a page (its tail values are not decoded) agree with the writer's
/// values for every encoding, with and without nulls.
#[test]
fn time_range_ending_mid_page_every_encoding() {
    for enc in [
        "plain", "ts_2diff", "gorilla", "rle", "zigzag", "chimp", "sprintz", "rlbe",
    ] {
        let fx = load(&format!("cpp_{enc}_lz4"));
        let f = TsFile::open(&fx.bytes).unwrap();
        let ts = &fx.meta["devices"][0]["columns"]["time"];
        let t = |i: usize| ts[i].as_i64().unwrap();
        let names: Vec<String> = fx.meta["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f[0].as_str().unwrap().to_string())
            .collect();
        let cols: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        for (start, end) in [(t(0), t(3)), (t(5), t(20)), (t(9), t(9))] {
            let q = range_query(&cols, start, end);
            let b = f.read(&fx.bytes, &q).unwrap();
            let want = expected(&fx.meta, |_, t| t >= start && t <= end, &cols);
            assert_rows(&rows(&b, &cols), &want);
        }
    }
}

/// Columns over an inclusive time range.
fn range_query(cols: &[&str], start: i64, end: i64) -> Query {
    Query {
        columns: Some(cols.iter().map(|s| s.to_string()).collect()),
        start: Some(start),
        end: Some(end),
        ..Default::default()
    }
}

/// A host that copies ranges on demand (a file in JS memory) is asked only for the pages a
/// query decodes: a time slice of a long multi-page chunk transfers a matching fraction of
/// the file; every read returns the writer's values (or, for other fixtures, what reading
/// the whole file from memory returns).
#[test]
fn host_source_reads_only_pages_in_range() {
    use arrowsmith_core::{Bump, HostSource};
    for name in [
        "cpp_long_pages_ts2diff_lz4",
        "cpp_multipage_gorilla_lz4",
        "cpp_tree_mixed",
        "../remote/table_16dev",
    ] {
        let file = std::fs::read(fixtures_dir().join(format!("{name}.tsfile"))).unwrap();
        let f = TsFile::open(&file).unwrap();
        let (a, b) = f.index_range();
        let mut kept = RangeCache::new(file.len() as u64);
        kept.insert(0, file[..7].to_vec());
        kept.insert(a, file[a as usize..b as usize].to_vec());
        let series = f.timeseries(&file).unwrap();
        let (lo, hi) = series.iter().fold((i64::MAX, i64::MIN), |(l, h), s| {
            (l.min(s.start), h.max(s.end))
        });
        let (t1, t2) = (lo + (hi - lo) / 3, lo + 2 * (hi - lo) / 3);
        let third = Query {
            start: Some(t1),
            end: Some(t2),
            ..Default::default()
        };
        let mut fetched = Vec::new();
        let mut arena = Bump::new();
        for q in [Query::default(), third] {
            for _ in 0..2 {
                // Twice with one arena, reset between reads as the wasm reader does.
                arena.reset();
                let src = HostSource::over_slice(&kept, &arena, &file);
                let got = f.read(&src, &q).unwrap();
                assert_eq!(got, f.read(&file, &q).unwrap(), "{name}");
                fetched.push(src.fetched_bytes());
                // Page bodies pass through one reused buffer: the read's arena keeps only
                // header windows, never the file (a whole read once held all of it in wasm
                // memory beside its output).
                if file.len() > 256 << 10 {
                    assert!(
                        arena.allocated_bytes() < file.len() / 4,
                        "{name}: the arena holds {} bytes of a {}-byte file",
                        arena.allocated_bytes(),
                        file.len()
                    );
                }
            }
        }
        // A full read copies each page body once, plus a small window for each page's and
        // chunk's header.
        let chunks: usize = series.iter().map(|s| s.chunks).sum();
        assert!(
            fetched[1] as usize <= file.len() * 6 / 5 + 256 * chunks,
            "{name}: {fetched:?}"
        );
        if name == "cpp_long_pages_ts2diff_lz4" {
            let fx = load(name);
            let cols: Vec<String> = fx.meta["fields"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f[0].as_str().unwrap().to_string())
                .collect();
            let cols: Vec<&str> = cols.iter().map(|s| s.as_str()).collect();
            arena.reset();
            let src = HostSource::over_slice(&kept, &arena, &file);
            let got = f.read(&src, &range_query(&cols, t1, t2)).unwrap();
            assert_rows(
                &rows(&got, &cols),
                &expected(&fx.meta, |_, t| t >= t1 && t <= t2, &cols),
            );
            // 4 of each chunk's 10 pages overlap the middle third; the rest cost a header read.
            assert!(
                (fetched[3] as f64) < 0.55 * fetched[1] as f64,
                "{name}: a third of the time range fetched {} of {} bytes",
                fetched[3],
                fetched[1]
            );
        }
    }
}
