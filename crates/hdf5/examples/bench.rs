//! Native timing of the VL benchmark datasets written by scripts/fixtures/hdf5/gen_bench.py.
//!
//! cargo run --release -p arrowsmith-hdf5 --example bench -- target/bench-data

use std::time::Instant;

use arrowsmith_hdf5::Hdf5File;

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "target/bench-data".into());
    for file in ["bench_v0.h5", "bench_v3.h5"] {
        let bytes = std::fs::read(format!("{dir}/{file}")).expect("run gen_bench.py first");
        let t = Instant::now();
        let f = Hdf5File::open(&bytes).unwrap();
        let open = t.elapsed();
        println!("{file}: open {:.3} ms", open.as_secs_f64() * 1e3);
        for ds in ["str_contig", "str_gzip", "vint_contig", "vint_gzip", "vstruct_contig", "vstruct_gzip"] {
            let mut times = Vec::new();
            let mut rows = 0;
            for _ in 0..15 {
                let t = Instant::now();
                let b = f.read(&bytes, ds, 0, None).unwrap();
                times.push(t.elapsed().as_secs_f64() * 1e3);
                rows = b.num_rows;
                std::hint::black_box(b);
            }
            times.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let plan = f.plan(&bytes, ds, 0, None).unwrap();
            println!(
                "  {ds:<15} {rows:>7} rows  min {:>6.2} ms  median {:>6.2} ms  ({} coalesced ranges)",
                times[0],
                times[times.len() / 2],
                plan.len()
            );
        }
    }
}
