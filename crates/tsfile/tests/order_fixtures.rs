//! Devices flushed in several chunk groups whose times go backwards, overlap and repeat
//! (scripts/fixtures/tsfile/gen_java_order.sh, Java writers 0.13 to 2.2): every point the
//! same version's Java reader returns, whole and over a time range, in time order.
//!
//! The Java reader does not merge such chunks: it returns every point of every chunk (a time
//! in two chunk groups is two points), the tree model's in file order, the table model's in
//! chunks sorted by start time. The sidecars hold its output as it came; here it is sorted by
//! time (stably: the table model's points of one time keep its order exactly; the tree
//! model's, in file order there, are compared per time as a set).

mod common;
use arrowsmith_core::Batch;
use arrowsmith_tsfile::{Query, TsFile};
use common::*;
use serde_json::Value;

const TREE: &[&str] = &[
    "java0134_order_nonaligned",
    "java0134_order_aligned",
    "java100_order_nonaligned",
    "java100_order_aligned",
    "java210_order_nonaligned",
    "java210_order_aligned",
    "java221_order_nonaligned",
    "java221_order_aligned",
];
const TABLE: &[&str] = &["java210_order_table", "java221_order_table"];

fn load(name: &str) -> (Vec<u8>, Value) {
    let dir = fixtures_dir();
    let bytes = std::fs::read(dir.join(format!("{name}.tsfile"))).unwrap();
    let meta =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    (bytes, meta)
}

fn range(q: &Value) -> (Option<i64>, Option<i64>) {
    (q["start"].as_i64(), q["end"].as_i64())
}

fn read(f: &TsFile, bytes: &dyn arrowsmith_core::ByteSource, q: &Value, name: &str) -> Batch {
    let (start, end) = range(q);
    f.read(
        bytes,
        &Query {
            start,
            end,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}: read: {e}"))
}

/// The rows of one device (by its `device` or tag column) as (time, values), in batch order.
fn device_rows(b: &Batch, key: &str, dev: &str, fields: &[String]) -> Vec<(i64, Vec<Value>)> {
    let (k, t) = (b.column(key).unwrap(), b.column("time").unwrap());
    (0..b.num_rows)
        .filter(|&r| value(k, r) == dev)
        .map(|r| {
            let vals = fields
                .iter()
                .map(|n| value(b.column(n).unwrap(), r))
                .collect();
            (value(t, r).as_i64().unwrap(), vals)
        })
        .collect()
}

fn field_names(meta: &Value) -> Vec<String> {
    meta["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap().to_string())
        .collect()
}

/// Points (time, value) sorted by time, points of one time by their JSON text.
fn by_time(mut pts: Vec<(i64, Value)>) -> Vec<(i64, String)> {
    let mut out: Vec<(i64, String)> = pts.drain(..).map(|(t, v)| (t, v.to_string())).collect();
    out.sort();
    out
}

#[test]
fn tree_model_reads_every_point_in_time_order() {
    for name in TREE {
        let (bytes, meta) = load(name);
        let f = TsFile::open(&bytes).unwrap();
        let fields = field_names(&meta);
        let whole = &meta["queries"][0];
        for q in meta["queries"].as_array().unwrap() {
            let b = read(&f, &bytes, q, name);
            let (start, end) = range(q);
            let mut total = 0;
            for (di, d) in q["devices"].as_array().unwrap().iter().enumerate() {
                let path = d["path"].as_str().unwrap();
                let rows = device_rows(&b, "device", path, &fields);
                total += rows.len();
                assert!(
                    rows.windows(2).all(|w| w[0].0 <= w[1].0),
                    "{name} {path} {start:?}: rows not in time order"
                );
                for (si, s) in fields.iter().enumerate() {
                    let got: Vec<(i64, Value)> = rows
                        .iter()
                        .filter(|(_, v)| !v[si].is_null())
                        .map(|(t, v)| (*t, v[si].clone()))
                        .collect();
                    // A range the Java reader itself reads wrong (listed by the generator) is
                    // checked against its whole read within the range.
                    let differs = meta["reader_range_differs"]
                        .as_array()
                        .is_some_and(|l| l.iter().any(|x| *x == format!("{path}.{s}")));
                    let src = if start.is_some() && differs { whole } else { q };
                    let js = &src["devices"][di]["series"][s];
                    let want: Vec<(i64, Value)> = js["times"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .zip(js["values"].as_array().unwrap())
                        .map(|(t, v)| (t.as_i64().unwrap(), v.clone()))
                        .filter(|(t, _)| {
                            start.is_none_or(|a| *t >= a) && end.is_none_or(|e| *t <= e)
                        })
                        .collect();
                    let got_times: Vec<i64> = got.iter().map(|p| p.0).collect();
                    let mut want_times: Vec<i64> = want.iter().map(|p| p.0).collect();
                    want_times.sort();
                    assert_eq!(got_times, want_times, "{name} {path}.{s} {start:?}: times");
                    assert_eq!(
                        by_time(got),
                        by_time(want),
                        "{name} {path}.{s} {start:?}: values"
                    );
                }
            }
            assert_eq!(total, b.num_rows, "{name}: rows of other devices");
        }
    }
}

#[test]
fn table_model_reads_every_row_in_time_order() {
    for name in TABLE {
        let (bytes, meta) = load(name);
        let f = TsFile::open(&bytes).unwrap();
        let fields = field_names(&meta);
        for q in meta["queries"].as_array().unwrap() {
            let b = read(&f, &bytes, q, name);
            let mut total = 0;
            for d in q["devices"].as_array().unwrap() {
                let tag = d["tag"].as_str().unwrap();
                let rows = device_rows(&b, "id", tag, &fields);
                total += rows.len();
                // The Java reader's rows, sorted by time (stable: its order among equal times).
                let times = d["time"].as_array().unwrap();
                let mut want: Vec<(i64, Vec<Value>)> = (0..times.len())
                    .map(|r| {
                        let vals = fields.iter().map(|n| d["columns"][n][r].clone()).collect();
                        (times[r].as_i64().unwrap(), vals)
                    })
                    .collect();
                want.sort_by_key(|r| r.0);
                assert_eq!(rows.len(), want.len(), "{name} {tag} {:?}: rows", range(q));
                for (i, (g, w)) in rows.iter().zip(&want).enumerate() {
                    assert!(
                        g.0 == w.0 && g.1.iter().zip(&w.1).all(|(a, b)| same(a, b)),
                        "{name} {tag} {:?} row {i}: got {g:?} want {w:?}",
                        range(q)
                    );
                }
            }
            assert_eq!(total, b.num_rows, "{name}: rows of other devices");
        }
    }
}

/// A limit takes the first rows of the whole read, in time order (what `batches()` windows
/// rely on), at every limit: out-of-order files, and in-order non-aligned files whose series
/// have different point sets (a limit once paired a series' values with the wrong times).
#[test]
fn every_limit_takes_the_earliest_rows() {
    let in_order = [
        "java_tree_nonaligned",
        "java_v3_nonaligned",
        "cpp_tree_mixed",
    ];
    for name in TREE.iter().chain(TABLE).chain(&in_order) {
        let (bytes, meta) = load(name);
        let f = TsFile::open(&bytes).unwrap();
        let table = meta["table"].as_str().map(String::from);
        let first = f.devices(None)[0].path.clone();
        let dev = Some(vec![first]);
        let q = Query {
            table,
            devices: dev,
            ..Default::default()
        };
        let whole = f.read(&bytes, &q).unwrap();
        let t = whole.column("time").unwrap();
        let times: Vec<i64> = (0..whole.num_rows)
            .map(|r| value(t, r).as_i64().unwrap())
            .collect();
        if TREE.contains(name) || TABLE.contains(name) {
            assert!(
                times.windows(2).all(|w| w[0] <= w[1]),
                "{name}: not in time order"
            );
        }
        for limit in 1..=whole.num_rows + 1 {
            let part = f
                .read(
                    &bytes,
                    &Query {
                        limit: Some(limit),
                        ..q.clone()
                    },
                )
                .unwrap();
            assert_eq!(
                part.num_rows,
                limit.min(whole.num_rows),
                "{name} limit {limit}"
            );
            for c in 0..part.columns.len() {
                for r in 0..part.num_rows {
                    let (a, b) = (value(&part.columns[c], r), value(&whole.columns[c], r));
                    assert!(
                        same(&a, &b),
                        "{name} limit {limit} column {} row {r}: {a} != {b}",
                        whole.fields[c].name
                    );
                }
            }
        }
    }
}

/// Time slices of a device's span (how a pool cuts a read) put together are its whole read.
#[test]
fn time_slices_put_together_are_the_whole_read() {
    for name in TREE.iter().chain(TABLE) {
        let (bytes, meta) = load(name);
        let f = TsFile::open(&bytes).unwrap();
        let table = meta["table"].as_str().map(String::from);
        for d in f.devices(None) {
            let (a, b, _) = f
                .device_span(&bytes, &d.path)
                .unwrap()
                .unwrap_or_else(|| panic!("{name} {}: no span", d.path));
            let q = Query {
                table: table.clone(),
                devices: Some(vec![d.path.clone()]),
                ..Default::default()
            };
            let whole = f.read(&bytes, &q).unwrap();
            for n in [2i64, 3, 7, 40] {
                let width = (b - a + 1 + n - 1) / n;
                let mut rows = Vec::new();
                for k in 0..n {
                    let (s, e) = (a + k * width, (a + (k + 1) * width - 1).min(b));
                    let part = f
                        .read(
                            &bytes,
                            &Query {
                                start: Some(s),
                                end: Some(e),
                                ..q.clone()
                            },
                        )
                        .unwrap();
                    for r in 0..part.num_rows {
                        rows.push(
                            part.columns
                                .iter()
                                .map(|c| value(c, r).to_string())
                                .collect::<Vec<_>>(),
                        );
                    }
                }
                let want: Vec<Vec<String>> = (0..whole.num_rows)
                    .map(|r| {
                        whole
                            .columns
                            .iter()
                            .map(|c| value(c, r).to_string())
                            .collect()
                    })
                    .collect();
                assert_eq!(rows, want, "{name} {} in {n} slices", d.path);
            }
        }
    }
}
