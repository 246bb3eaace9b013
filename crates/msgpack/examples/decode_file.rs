//! Decode one file natively, repeatedly, and print the median time: a way to profile what a
//! payload costs with native tools (`perf record`), which the stripped wasm build hides:
//! `cargo run --release -p arrowsmith-msgpack --example decode_file -- FILE [RUNS]`.

use std::time::Instant;

use arrowsmith_msgpack::{decode, Options};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: decode_file FILE [RUNS]");
    let runs: usize = args
        .next()
        .map_or(50, |r| r.parse().expect("RUNS is a number"));
    let bytes = std::fs::read(&path).expect("readable file");
    let mut times = Vec::with_capacity(runs);
    let mut rows = 0;
    for _ in 0..runs {
        let t = Instant::now();
        rows = decode(&bytes, &Options::default())
            .expect("decodes")
            .num_rows;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{path}: {rows} rows, median {:.3} ms over {runs} runs",
        times[runs / 2]
    );
}
