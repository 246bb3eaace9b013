//! Tiny native timing of `decode` with the fast paths on and off:
//! `cargo run --release -p arrowsmith-msgpack --example bench_msgpack`.
//! (The real benchmark is the wasm one against JS peers; this only checks the kernels.)

use std::time::Instant;

use arrowsmith_msgpack::{decode, Options};

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn array(n: usize, mut item: impl FnMut(&mut Vec<u8>, usize)) -> Vec<u8> {
    let mut v = vec![0xdd];
    v.extend((n as u32).to_be_bytes());
    for i in 0..n {
        item(&mut v, i);
    }
    v
}

fn main() {
    let n = 1_000_000;
    let mut r = Lcg(42);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "fixints",
            array(n, |v, _| {
                let x = (r.next() % 160) as u8;
                v.push(if x < 128 { x } else { x + 96 })
            }),
        ),
        ("mixed fixint/uint16/int32", {
            let mut r = Lcg(7);
            array(n, |v, _| match r.next() % 3 {
                0 => v.push((r.next() % 128) as u8),
                1 => {
                    v.push(0xcd);
                    v.extend((r.next() as u16).to_be_bytes())
                }
                _ => {
                    v.push(0xd2);
                    v.extend((r.next() as i32).to_be_bytes())
                }
            })
        }),
        (
            "uint16",
            array(n, |v, i| {
                v.push(0xcd);
                v.extend((i as u16).to_be_bytes())
            }),
        ),
        (
            "int32",
            array(n, |v, i| {
                v.push(0xd2);
                v.extend((i as i32 * 7919).to_be_bytes())
            }),
        ),
        (
            "float64",
            array(n, |v, i| {
                v.push(0xcb);
                v.extend((i as f64 * 0.5).to_be_bytes())
            }),
        ),
        (
            "float32",
            array(n, |v, i| {
                v.push(0xca);
                v.extend((i as f32 * 0.25).to_be_bytes())
            }),
        ),
        (
            "strings",
            array(n / 4, |v, i| {
                let s = format!("item-{i}");
                v.push(0xa0 | s.len() as u8);
                v.extend(s.as_bytes())
            }),
        ),
        (
            "records {id,name,score,ok}",
            array(n / 10, |v, i| {
                v.push(0x84);
                v.extend([0xa2, b'i', b'd', 0xce]);
                v.extend((i as u32).to_be_bytes());
                let s = format!("user{i}");
                v.extend([0xa4, b'n', b'a', b'm', b'e', 0xa0 | s.len() as u8]);
                v.extend(s.as_bytes());
                v.extend([0xa5, b's', b'c', b'o', b'r', b'e', 0xcb]);
                v.extend((i as f64 / 3.0).to_be_bytes());
                v.extend([0xa2, b'o', b'k', if i % 3 == 0 { 0xc3 } else { 0xc2 }]);
            }),
        ),
        ("records × 5 (JS bench shape)", records5(n / 10)),
    ];
    println!("| input | bytes | fast path on | off | on/off |");
    println!("|---|---|---|---|---|");
    let filter = std::env::args().nth(1).unwrap_or_default();
    // `PERF_LOOP=k`: decode the selected inputs k times for a profiler and print the best
    // time (`PERF_FAST=0`: with the fast path off).
    if let Some(k) = std::env::var("PERF_LOOP")
        .ok()
        .and_then(|k| k.parse::<usize>().ok())
    {
        let o = Options {
            fast_path: std::env::var("PERF_FAST").map_or(true, |v| v != "0"),
            ..Options::default()
        };
        for (name, bytes) in cases.iter().filter(|(n, _)| n.contains(&filter)) {
            let mut best = f64::MAX;
            for _ in 0..k {
                let t = Instant::now();
                std::hint::black_box(decode(bytes, &o).unwrap());
                best = best.min(t.elapsed().as_secs_f64() * 1e3);
            }
            println!("{name}: best {best:.3} ms");
        }
        return;
    }
    for (name, bytes) in cases.iter().filter(|(n, _)| n.contains(&filter)) {
        let time = |fast: bool| {
            let o = Options {
                fast_path: fast,
                ..Options::default()
            };
            let t = Instant::now();
            let b = decode(bytes, &o).unwrap();
            std::hint::black_box(b);
            t.elapsed().as_secs_f64() * 1e3
        };
        // Alternate on/off so that load from other processes hits both alike; keep the best.
        let (mut on, mut off) = (f64::MAX, f64::MAX);
        for _ in 0..9 {
            on = on.min(time(true));
            off = off.min(time(false));
        }
        println!(
            "| {name} | {:.1} MB | {on:.2} ms | {off:.2} ms | {:.2} |",
            bytes.len() as f64 / 1e6,
            on / off
        );
    }
}

/// The records of bench/msgpack.bench.mjs: {id, value, name, ok, maybe}, ints in the
/// smallest encoding (as msgpackr writes them), every 4th `maybe` nil.
fn records5(rows: usize) -> Vec<u8> {
    fn uint(v: &mut Vec<u8>, x: u64) {
        match x {
            0..=0x7f => v.push(x as u8),
            0x80..=0xff => v.extend([0xcc, x as u8]),
            0x100..=0xffff => {
                v.push(0xcd);
                v.extend((x as u16).to_be_bytes())
            }
            _ => {
                v.push(0xce);
                v.extend((x as u32).to_be_bytes())
            }
        }
    }
    fn key(v: &mut Vec<u8>, k: &str) {
        v.push(0xa0 | k.len() as u8);
        v.extend(k.as_bytes());
    }
    let mut r = Lcg(99);
    array(rows, |v, i| {
        v.extend([0xde, 0, 5]); // msgpackr writes every object with a map16 header
        key(v, "id");
        uint(v, i as u64);
        key(v, "value");
        v.push(0xcb);
        v.extend(((r.next() % 10_000) as f64 / 100.0).to_be_bytes());
        key(v, "name");
        key(v, &format!("dev-{}", i % 100));
        key(v, "ok");
        v.push(if i % 3 == 0 { 0xc3 } else { 0xc2 });
        key(v, "maybe");
        if i % 4 == 0 {
            v.push(0xc0)
        } else {
            uint(v, r.next() % 1_000_001)
        }
    })
}
