//! Native read throughput: `cargo run --release -p arrowsmith-tsfile --example bench_read -- FILE [iters] [query-name-prefix]`.
//! Make FILE with `scripts/fixtures/tsfile/gen_bench.py`.

use arrowsmith_tsfile::{Query, TsFile};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "/tmp/tsfile_bench.tsfile".into());
    let iters: usize = args.next().map(|s| s.parse().unwrap()).unwrap_or(5);
    let only = args.next().unwrap_or_default();
    let bytes = std::fs::read(&path).unwrap();
    let f = TsFile::open(&bytes).unwrap();
    let tables = f.tables();
    let devs = f.devices(None);
    let t_first = devs.first().map(|d| d.tags.clone());
    let queries: Vec<(&str, Query)> = vec![
        ("full scan", Query::default()),
        (
            "tag filter (1 device)",
            Query {
                tags: vec![(
                    tables[0].tags().next().unwrap().name.clone(),
                    t_first.unwrap()[0].clone().unwrap(),
                )],
                ..Default::default()
            },
        ),
        (
            "time filter (1/3)",
            Query {
                start: Some(1_700_000_000_000 + 33_333_000),
                end: Some(1_700_000_000_000 + 66_666_000),
                ..Default::default()
            },
        ),
    ];
    for (name, q) in queries.iter().filter(|(n, _)| n.starts_with(&only)) {
        let mut best = f64::MAX;
        let mut rows = 0;
        for _ in 0..iters {
            let t = Instant::now();
            let f = TsFile::open(&bytes).unwrap();
            let b = f.read(&bytes, q).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
            rows = b.num_rows;
        }
        println!(
            "{name:24} {rows:>9} rows  {:>8.2} ms  {:>7.1} M rows/s",
            best * 1e3,
            rows as f64 / best / 1e6
        );
    }
}
