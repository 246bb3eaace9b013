//! Times and TIMESTAMP values that a JS number cannot hold (±2^53, ±2^63): a read in a unit
//! apache-arrow cannot convert them in is an error naming the cure, never a table that throws
//! when read; every int64 reads as nanoseconds.

mod common;
use arrowsmith_core::{ErrorCode, TimeUnit};
use arrowsmith_tsfile::{Query, TsFile};
use common::*;
use serde_json::Value;

fn fixture() -> (Vec<u8>, Value) {
    let dir = fixtures_dir();
    let bytes = std::fs::read(dir.join("cpp_time_extremes.tsfile")).unwrap();
    let meta =
        serde_json::from_str(&std::fs::read_to_string(dir.join("cpp_time_extremes.json")).unwrap())
            .unwrap();
    (bytes, meta)
}

fn device(d: &str) -> Query {
    Query {
        devices: Some(vec![format!("t.{d}")]),
        ..Default::default()
    }
}

#[test]
fn each_unit_reads_what_a_js_number_holds_and_refuses_the_rest() {
    let (bytes, meta) = fixture();
    let f = TsFile::open(&bytes).unwrap();
    use TimeUnit::*;
    // (device, units that read, units refused)
    let cases = [
        (
            "safe",
            vec![Second, Millisecond, Microsecond, Nanosecond],
            vec![],
        ),
        (
            "edge",
            vec![Microsecond, Nanosecond],
            vec![Second, Millisecond],
        ),
        (
            "neg_edge",
            vec![Microsecond, Nanosecond],
            vec![Second, Millisecond],
        ),
        (
            "extreme",
            vec![Nanosecond],
            vec![Second, Millisecond, Microsecond],
        ),
    ];
    for (d, ok, refused) in cases {
        let want = meta["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["tags"][0] == d)
            .unwrap();
        for unit in ok {
            let b = f
                .read_as(&bytes, &device(d), unit)
                .unwrap_or_else(|e| panic!("{d} {unit:?}: {e}"));
            for c in ["time", "ts", "v"] {
                let col = b.column(c).unwrap();
                let got: Vec<Value> = (0..b.num_rows).map(|i| value(col, i)).collect();
                assert_eq!(
                    got,
                    want["columns"][c].as_array().unwrap().clone(),
                    "{d} {c}"
                );
            }
        }
        for unit in refused {
            let e = f.read_as(&bytes, &device(d), unit).unwrap_err();
            assert_eq!(e.code, ErrorCode::Unsupported, "{d} {unit:?}");
            assert!(
                e.message.contains("timeUnit 'ns'") && e.message.contains(&format!("t.{d}")),
                "{e}"
            );
            // Without the TIMESTAMP column the time column alone is refused (its pages'
            // span, not a scan, decides whether the values need one).
            let time_only = Query {
                columns: Some(vec!["v".into()]),
                ..device(d)
            };
            let e = f.read_as(&bytes, &time_only, unit).unwrap_err();
            assert!(e.message.contains("time value"), "{d} {unit:?}: {e}");
        }
    }
    // The whole table: refused in ms (the default), read in ns.
    assert!(f.read(&bytes, &Query::default()).is_err());
    assert_eq!(
        f.read_as(&bytes, &Query::default(), Nanosecond)
            .unwrap()
            .num_rows,
        11
    );
}
