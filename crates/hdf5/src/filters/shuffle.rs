//! Byte unshuffle: the shuffle filter stores byte 0 of every element, then byte 1, …
//! Specialised per element size so the inner loop unrolls (sequential writes, `ES`
//! sequential read streams). With SIMD128, element sizes 2/4/8/16 (16 = VL cells) go
//! 16 elements at a time as a byte transpose; the scalar loop finishes the tail and is
//! the whole path in the scalar build.

#![allow(unsafe_code)] // SIMD128 loads and stores within checked 16-byte blocks

pub fn unshuffle(src: &[u8], es: usize) -> Vec<u8> {
    let mut out = vec![0u8; src.len()];
    unshuffle_into(src, es, &mut out);
    out
}

/// Unshuffle into `out`, which must be as long as `src`.
pub fn unshuffle_into(src: &[u8], es: usize, out: &mut [u8]) {
    assert_eq!(src.len(), out.len(), "unshuffle_into: output length");
    if es <= 1 || src.len() < es {
        return out.copy_from_slice(src);
    }
    let n = src.len() / es;
    match es {
        2 => fixed::<2>(src, n, out),
        4 => fixed::<4>(src, n, out),
        8 => fixed::<8>(src, n, out),
        16 => fixed::<16>(src, n, out),
        _ => {
            for b in 0..es {
                let plane = &src[b * n..(b + 1) * n];
                for (i, &v) in plane.iter().enumerate() {
                    out[i * es + b] = v;
                }
            }
        }
    }
    out[n * es..].copy_from_slice(&src[n * es..]);
}

fn fixed<const ES: usize>(src: &[u8], n: usize, out: &mut [u8]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = simd128::transpose::<ES>(src, n, out);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    scalar::<ES>(src, n, done, out);
}

/// Elements `from..n`, one byte at a time.
fn scalar<const ES: usize>(src: &[u8], n: usize, from: usize, out: &mut [u8]) {
    let planes: [&[u8]; ES] = std::array::from_fn(|b| &src[b * n..(b + 1) * n]);
    for (i, o) in out[from * ES..n * ES].chunks_exact_mut(ES).enumerate() {
        for b in 0..ES {
            o[b] = planes[b][from + i];
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::*;

    /// Elements `0..n / 16 * 16`; returns how many were done. Per 16 elements: one vector
    /// from each of the `ES` byte planes, then log2(ES) rounds of pairing vector `j` with
    /// `j + ES/2` by 8-bit interleave (outputs `2j`, `2j+1`), after which vector `r` holds
    /// output bytes `16r..16r+16` (a perfect-shuffle transpose).
    pub fn transpose<const ES: usize>(src: &[u8], n: usize, out: &mut [u8]) -> usize {
        let blocks = n / 16;
        let zero = u8x16_splat(0);
        for k in 0..blocks {
            let mut v = [zero; ES];
            for (b, vb) in v.iter_mut().enumerate() {
                let s = &src[b * n + k * 16..b * n + k * 16 + 16];
                // SAFETY: `s` is exactly 16 bytes; wasm loads are unaligned-safe.
                *vb = unsafe { v128_load(s.as_ptr() as *const v128) };
            }
            let mut rounds = ES;
            while rounds > 1 {
                let mut t = [zero; ES];
                for j in 0..ES / 2 {
                    let (a, b) = (v[j], v[j + ES / 2]);
                    t[2 * j] =
                        i8x16_shuffle::<0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23>(
                            a, b,
                        );
                    t[2 * j + 1] = i8x16_shuffle::<
                        8,
                        24,
                        9,
                        25,
                        10,
                        26,
                        11,
                        27,
                        12,
                        28,
                        13,
                        29,
                        14,
                        30,
                        15,
                        31,
                    >(a, b);
                }
                v = t;
                rounds /= 2;
            }
            let o = &mut out[k * 16 * ES..(k + 1) * 16 * ES];
            for (d, vr) in o.chunks_exact_mut(16).zip(v) {
                // SAFETY: `d` is exactly 16 bytes; wasm stores are unaligned-safe.
                unsafe { v128_store(d.as_mut_ptr() as *mut v128, vr) };
            }
        }
        blocks * 16
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn roundtrip() {
        for es in [2usize, 3, 4, 8, 16] {
            // Lengths below, at and past whole SIMD blocks (16 elements), plus a tail.
            for len in [203, 16 * es, 16 * es * 3 + 5, 1000 * es + 3] {
                roundtrip_es(es, len as u32);
            }
        }
    }

    fn roundtrip_es(es: usize, len: u32) {
        let data: Vec<u8> = (0..len).map(|x| (x * 7 + x / 251) as u8).collect();
        let n = data.len() / es;
        let mut sh = vec![0u8; data.len()];
        for i in 0..n {
            for b in 0..es {
                sh[b * n + i] = data[i * es + b];
            }
        }
        sh[n * es..].copy_from_slice(&data[n * es..]);
        assert_eq!(super::unshuffle(&sh, es), data);
    }
}
