//! Bulk kernels behind the MessagePack fast paths.
//!
//! Every kernel has one interface and two bodies: `simd128` (compiled only for
//! `wasm32` with `target_feature = "simd128"`) and `scalar` (native builds and the scalar
//! wasm build). Both must return exactly the same result; the wasm test suites of both
//! builds exercise whichever body was compiled.

mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
use scalar as imp;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use simd128 as imp;

/// Length of the leading run of fixints (0x00–0x7f, 0xe0–0xff) in `src`, at most `max`,
/// appended to `dst` sign-widened to i32. Returns the number appended.
#[inline]
pub fn fixint_run(src: &[u8], max: usize, dst: &mut Vec<i32>) -> usize {
    let src = &src[..src.len().min(max)];
    imp::fixint_run(src, dst)
}

/// Number of leading records of `stride` bytes in `src` whose first byte is `tag`,
/// at most `max` (only whole records count).
#[inline]
pub fn tag_run(src: &[u8], tag: u8, stride: usize, max: usize) -> usize {
    assert!(stride > 0, "stride must be at least 1");
    let whole = src.len() / stride;
    let src = &src[..whole.min(max) * stride];
    imp::tag_run(src, tag, stride)
}

/// `src` holds records `[tag, payload (width bytes, big-endian)]`; write the payloads in
/// native (little-endian) order to `dst` (`dst.len() == n * width`, `src.len() == n * (width+1)`).
#[inline]
pub fn gather_swap(src: &[u8], width: usize, dst: &mut [u8]) {
    assert!(matches!(width, 1 | 2 | 4 | 8), "width must be 1, 2, 4 or 8");
    debug_assert_eq!(src.len() / (width + 1) * width, dst.len());
    imp::gather_swap(src, width, dst)
}

/// The leading records `[tag, 8 payload bytes (big-endian)]` of `src` whose first byte is
/// `tag`, at most `max`, appended to `dst` in native order: the tag check and the gather in
/// one pass (the 8-byte encodings: float64, uint64, int64). Returns the number appended.
#[inline]
pub fn gather_run8<T: bytemuck::Pod>(src: &[u8], tag: u8, max: usize, dst: &mut Vec<T>) -> usize {
    assert_eq!(
        std::mem::size_of::<T>(),
        8,
        "gather_run8 takes 8-byte values"
    );
    let whole = src.len() / 9;
    imp::gather_run8(&src[..whole.min(max) * 9], tag, dst)
}

/// Scalar bodies, exposed so tests can check them against whichever body is compiled.
pub mod reference {
    pub use super::scalar::{fixint_run, gather_run8, gather_swap, tag_run};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixint_run_stops_at_first_non_fixint() {
        for stop in 0..40 {
            let mut src: Vec<u8> = (0..40)
                .map(|i| {
                    if i % 2 == 0 {
                        i as u8
                    } else {
                        0xe0 + i as u8 % 32
                    }
                })
                .collect();
            if stop < 40 {
                src[stop] = 0xcc;
            }
            let mut dst = vec![99];
            let n = fixint_run(&src, usize::MAX, &mut dst);
            assert_eq!(n, stop);
            assert_eq!(dst.len(), 1 + stop);
            for i in 0..stop {
                assert_eq!(dst[1 + i], src[i] as i8 as i32);
            }
            let mut d2 = vec![];
            assert_eq!(fixint_run(&src, 5, &mut d2), stop.min(5));
        }
    }

    #[test]
    fn gather_run8_stops_at_another_tag_and_at_max() {
        for stop in 0..12 {
            let mut src = vec![];
            for i in 0..12u8 {
                src.push(if i as usize == stop { 0xcf } else { 0xcb });
                src.extend((0..8).map(|j| i.wrapping_mul(37).wrapping_add(j)));
            }
            // A partial record at the end never counts.
            src.extend([0xcb, 1, 2]);
            for max in [0, 1, 5, 12, usize::MAX] {
                let mut dst = vec![7u64];
                let n = gather_run8(&src, 0xcb, max, &mut dst);
                assert_eq!(n, stop.min(max), "stop {stop} max {max}");
                assert_eq!(dst.len(), 1 + n);
                for i in 0..n {
                    let rec: [u8; 8] = src[i * 9 + 1..i * 9 + 9].try_into().unwrap();
                    assert_eq!(dst[1 + i], u64::from_be_bytes(rec));
                }
            }
        }
    }

    #[test]
    fn tag_run_and_gather_agree_with_scalar_for_each_width() {
        for width in [1usize, 2, 4, 8] {
            let stride = width + 1;
            for stop in 0..30 {
                let mut src = vec![];
                for i in 0..30u8 {
                    src.push(if i as usize == stop { 0xc0 } else { 0xcd });
                    for j in 0..width {
                        src.push(i.wrapping_mul(31).wrapping_add(j as u8));
                    }
                }
                let n = tag_run(&src, 0xcd, stride, usize::MAX);
                assert_eq!(n, stop);
                assert_eq!(reference::tag_run(&src[..30 * stride], 0xcd, stride), stop);
                let mut a = vec![0u8; n * width];
                let mut b = vec![0u8; n * width];
                gather_swap(&src[..n * stride], width, &mut a);
                reference::gather_swap(&src[..n * stride], width, &mut b);
                assert_eq!(a, b);
                for i in 0..n {
                    let rec = &src[i * stride + 1..(i + 1) * stride];
                    let mut rev = rec.to_vec();
                    rev.reverse();
                    assert_eq!(&a[i * width..(i + 1) * width], &rev[..]);
                }
            }
        }
    }
}
