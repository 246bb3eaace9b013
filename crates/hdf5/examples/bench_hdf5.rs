//! Native timing of the VL benchmark datasets written by scripts/fixtures/hdf5/gen_bench.py.
//!
//! cargo run --release -p arrowsmith-hdf5 --example bench_hdf5 -- target/bench-data [dataset] [reads]
//!
//! A dataset name and a read count narrow it to one dataset (for a profiler).

use std::time::Instant;

use arrowsmith_core::{ByteSource, RangeCache};
use arrowsmith_hdf5::Hdf5File;

/// A cold host: start with nothing loaded, answer `plan` until nothing is missing, then
/// `read`. Returns (round trips, ranges fetched, bytes fetched).
fn cold_host(bytes: &[u8], ds: &str) -> (usize, usize, u64) {
    let mut cache = RangeCache::new(bytes.len() as u64);
    let (mut rounds, mut ranges, mut loaded) = (0, 0, 0u64);
    let fetch = |cache: &mut RangeCache, o: u64, l: u64| {
        let end = (o + l).min(bytes.len() as u64);
        cache.insert(o, bytes[o as usize..end as usize].to_vec());
        (end - o, 1)
    };
    let f = loop {
        match Hdf5File::open(&cache) {
            Ok(f) => break f,
            Err(e) => {
                rounds += 1;
                let (b, r) = fetch(&mut cache, e.offset, e.need_len);
                loaded += b;
                ranges += r;
            }
        }
    };
    loop {
        let plan = f.plan(&cache, ds, 0, None).unwrap();
        let missing: Vec<_> = plan
            .into_iter()
            .filter(|&(o, l)| cache.get(o, l as usize).is_none())
            .collect();
        if missing.is_empty() {
            break;
        }
        rounds += 1;
        for (o, l) in missing {
            let (b, r) = fetch(&mut cache, o, l);
            loaded += b;
            ranges += r;
        }
    }
    f.read(&cache, ds, 0, None).unwrap();
    (rounds, ranges, loaded)
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/bench-data".into());
    let only = std::env::args().nth(2);
    let reads: usize = std::env::args()
        .nth(3)
        .map_or(15, |n| n.parse().expect("reads"));
    for file in ["bench_v0.h5", "bench_v3.h5"] {
        let bytes = std::fs::read(format!("{dir}/{file}")).expect("run gen_bench.py first");
        let t = Instant::now();
        let f = Hdf5File::open(&bytes).unwrap();
        let open = t.elapsed();
        println!("{file}: open {:.3} ms", open.as_secs_f64() * 1e3);
        for ds in [
            "str_contig",
            "str_gzip",
            "vint_contig",
            "vint_gzip",
            "vstruct_contig",
            "vstruct_gzip",
        ]
        .into_iter()
        .filter(|d| only.as_deref().is_none_or(|o| o == *d))
        {
            let mut times = Vec::new();
            let mut rows = 0;
            for _ in 0..reads {
                let t = Instant::now();
                let b = f.read(&bytes, ds, 0, None).unwrap();
                times.push(t.elapsed().as_secs_f64() * 1e3);
                rows = b.num_rows;
                std::hint::black_box(b);
            }
            times.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let (rounds, ranges, loaded) = cold_host(&bytes, ds);
            println!(
                "  {ds:<15} {rows:>7} rows  min {:>6.2} ms  median {:>6.2} ms  cold host: {rounds} round trips, {ranges} ranges, {:.2} MB",
                times[0],
                times[times.len() / 2],
                loaded as f64 / 1e6
            );
        }
    }
}
