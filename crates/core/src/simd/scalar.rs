//! Portable byte swapping (auto-vectorizes natively; the wasm scalar build stays v128-free).

pub fn swap_bytes(width: usize, src: &[u8], dst: &mut [u8]) {
    match width {
        1 => dst.copy_from_slice(src),
        2 => swap::<2>(src, dst),
        4 => swap::<4>(src, dst),
        8 => swap::<8>(src, dst),
        _ => unreachable!("width checked by caller"),
    }
}

#[inline(always)]
fn swap<const W: usize>(src: &[u8], dst: &mut [u8]) {
    for (s, d) in src.chunks_exact(W).zip(dst.chunks_exact_mut(W)) {
        for i in 0..W {
            d[i] = s[W - 1 - i];
        }
    }
}
