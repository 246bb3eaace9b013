//! Runs the compiled kernels (SIMD128 when built with +simd128) against the scalar
//! reference on many inputs, and decode() with fast path on vs off. Returns 0 if all agree.
use arrowsmith_core::describe::describe;
use arrowsmith_msgpack::{decode, kernels, Options};

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

#[no_mangle]
pub extern "C" fn simd_enabled() -> u32 {
    arrowsmith_core::simd::ENABLED as u32
}

#[no_mangle]
pub extern "C" fn check() -> u32 {
    let mut r = Lcg(1);
    for case in 0..3000u32 {
        let len = (r.next() % 200) as usize;
        // Mostly fixints with random breaks.
        let src: Vec<u8> = (0..len)
            .map(|_| match r.next() % 20 {
                0 => 0xcc,
                1 => 0xc0,
                2 => 0x80 + (r.next() % 0x60) as u8,
                _ => {
                    let x = (r.next() % 160) as u8;
                    if x < 128 {
                        x
                    } else {
                        x + 96
                    }
                }
            })
            .collect();
        let max = (r.next() % 250) as usize;
        let (mut a, mut b) = (vec![], vec![]);
        let na = kernels::fixint_run(&src, max, &mut a);
        let nb = kernels::reference::fixint_run(&src[..src.len().min(max)], &mut b);
        if na != nb || a != b {
            return 1000 + case;
        }
        for width in [1usize, 2, 4, 8] {
            let stride = width + 1;
            let tag = 0xcd;
            let n = (r.next() % 60) as usize;
            let mut recs = vec![];
            for _ in 0..n {
                recs.push(if r.next() % 25 == 0 { 0xce } else { tag });
                for _ in 0..width {
                    recs.push(r.next() as u8);
                }
            }
            recs.extend((0..(r.next() % 20)).map(|_| r.next() as u8));
            let max = (r.next() % 70) as usize;
            let ta = kernels::tag_run(&recs, tag, stride, max);
            let whole = recs.len() / stride;
            let tb = kernels::reference::tag_run(&recs[..whole.min(max) * stride], tag, stride);
            if ta != tb {
                return 2000 + case;
            }
            let mut da = vec![0u8; ta * width];
            let mut db = vec![0u8; ta * width];
            kernels::gather_swap(&recs[..ta * stride], width, &mut da);
            kernels::reference::gather_swap(&recs[..ta * stride], width, &mut db);
            if da != db {
                return 3000 + case;
            }
        }
        // The fused 8-byte gather: the same records, a run stopped by another tag.
        let mut recs = vec![];
        for _ in 0..(r.next() % 40) {
            recs.push(if r.next() % 30 == 0 { 0xd3 } else { 0xcb });
            recs.extend((0..8).map(|_| r.next() as u8));
        }
        let max = (r.next() % 50) as usize;
        let (mut ga, mut gb) = (vec![1.5f64], vec![1.5f64]);
        let na = kernels::gather_run8(&recs, 0xcb, max, &mut ga);
        let whole = (recs.len() / 9).min(max);
        let nb = kernels::reference::gather_run8(&recs[..whole * 9], 0xcb, &mut gb);
        if na != nb || ga.iter().zip(&gb).any(|(a, b)| a.to_bits() != b.to_bits()) {
            return 6000 + case;
        }
        // decode: fast vs slow on an array of mixed ints
        let mut v = vec![0xdc, 0, 0];
        let mut count = 0u16;
        for _ in 0..(r.next() % 300) {
            count += 1;
            match r.next() % 6 {
                0 => v.extend([0xcd, r.next() as u8, r.next() as u8]),
                1 => v.extend([0xd0, 0x80 | r.next() as u8]),
                2 => v.extend([0xd2, r.next() as u8, r.next() as u8, 1, 2]),
                _ => v.push((r.next() % 128) as u8),
            }
        }
        v[1..3].copy_from_slice(&count.to_be_bytes());
        let fast = decode(&v, &Options::default()).unwrap();
        let slow = decode(
            &v,
            &Options {
                fast_path: false,
                ..Options::default()
            },
        )
        .unwrap();
        let (a, b) = (describe(&fast), describe(&slow));
        if a.json != b.json || a.buffers != b.buffers {
            return 4000 + case;
        }
    }
    0
}
