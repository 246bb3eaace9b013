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

/// Eight bytes at a time as `u64` (also on wasm32, where `usize` words are four bytes).
pub fn is_ascii(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(16);
    let mut acc = 0u64;
    for w in &mut words {
        acc |= u64::from_le_bytes(w[..8].try_into().unwrap()) | u64::from_le_bytes(w[8..].try_into().unwrap());
    }
    acc & 0x8080_8080_8080_8080 == 0 && words.remainder().iter().all(|&b| b < 0x80)
}
