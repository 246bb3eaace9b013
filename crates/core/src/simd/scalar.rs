//! Portable byte swapping, one 64-bit word at a time.
//!
//! wasm has no byte-swap instruction and the scalar build no vectors, so a per-byte loop
//! costs 16 memory operations per 8 bytes and `u64::swap_bytes` ~20 shift/or steps.
//! Swapping lanes with masked shifts needs 1 (width 2), 2 (width 4) or 3 (width 8) steps
//! per word. LLVM recognises those steps as a `bswap` (natively a good thing: one
//! instruction, vectorized), which on wasm it expands back into the ~20-step form, so
//! there the masks are hidden from it.

pub fn swap_bytes(width: usize, src: &[u8], dst: &mut [u8]) {
    match width {
        1 => dst.copy_from_slice(src),
        2 => swap::<2>(src, dst),
        4 => swap::<4>(src, dst),
        8 => swap::<8>(src, dst),
        _ => unreachable!("width checked by caller"),
    }
}

/// The lane masks `[bytes, 16-bit halves]`; opaque to the optimizer on wasm (see above).
#[inline(always)]
fn masks() -> [u64; 2] {
    let m = [0x00ff_00ff_00ff_00ff, 0x0000_ffff_0000_ffff];
    #[cfg(target_arch = "wasm32")]
    let m = core::hint::black_box(m);
    m
}

/// Reverse the bytes of every `W`-byte lane of a little-endian word.
#[inline(always)]
fn swap_word<const W: usize>(x: u64, [m8, m16]: [u64; 2]) -> u64 {
    let x = ((x & m8) << 8) | ((x >> 8) & m8);
    if W == 2 {
        return x;
    }
    let x = ((x & m16) << 16) | ((x >> 16) & m16);
    if W == 4 {
        return x;
    }
    x.rotate_left(32)
}

#[inline(always)]
fn swap<const W: usize>(src: &[u8], dst: &mut [u8]) {
    let m = masks();
    // Four words per iteration: V8 does not unroll, and the loop overhead is a third of
    // the work otherwise.
    let mut s4 = src.chunks_exact(32);
    let mut d4 = dst.chunks_exact_mut(32);
    for (si, di) in (&mut s4).zip(&mut d4) {
        for k in 0..4 {
            let x = u64::from_le_bytes(si[8 * k..8 * k + 8].try_into().unwrap());
            di[8 * k..8 * k + 8].copy_from_slice(&swap_word::<W>(x, m).to_le_bytes());
        }
    }
    let mut s = s4.remainder().chunks_exact(8);
    let mut d = d4.into_remainder().chunks_exact_mut(8);
    for (si, di) in (&mut s).zip(&mut d) {
        let x = u64::from_le_bytes(si.try_into().unwrap());
        di.copy_from_slice(&swap_word::<W>(x, m).to_le_bytes());
    }
    // Fewer than 8 bytes left (a whole number of lanes): per byte.
    for (si, di) in s
        .remainder()
        .chunks_exact(W)
        .zip(d.into_remainder().chunks_exact_mut(W))
    {
        for i in 0..W {
            di[i] = si[W - 1 - i];
        }
    }
}

/// Eight bytes at a time as `u64` (also on wasm32, where `usize` words are four bytes).
pub fn is_ascii(bytes: &[u8]) -> bool {
    // 32 bytes a step into two accumulators: the loop's own work is a quarter of a step.
    let mut words = bytes.chunks_exact(32);
    let (mut a, mut b) = (0u64, 0u64);
    let w = |s: &[u8]| u64::from_le_bytes(s.try_into().unwrap());
    for c in &mut words {
        a |= w(&c[..8]) | w(&c[8..16]);
        b |= w(&c[16..24]) | w(&c[24..]);
    }
    (a | b) & 0x8080_8080_8080_8080 == 0 && words.remainder().iter().all(|&b| b < 0x80)
}

/// Reverse the bit order inside every byte, eight bytes per step (three masked swaps:
/// nibbles, bit pairs, bits).
pub fn reverse_bits(src: &[u8], dst: &mut [u8]) {
    let mut s = src.chunks_exact(8);
    let mut d = dst.chunks_exact_mut(8);
    for (si, di) in (&mut s).zip(&mut d) {
        let x = u64::from_le_bytes(si.try_into().unwrap());
        let x = ((x >> 4) & 0x0f0f_0f0f_0f0f_0f0f) | ((x & 0x0f0f_0f0f_0f0f_0f0f) << 4);
        let x = ((x >> 2) & 0x3333_3333_3333_3333) | ((x & 0x3333_3333_3333_3333) << 2);
        let x = ((x >> 1) & 0x5555_5555_5555_5555) | ((x & 0x5555_5555_5555_5555) << 1);
        di.copy_from_slice(&x.to_le_bytes());
    }
    for (a, b) in s.remainder().iter().zip(d.into_remainder()) {
        *b = a.reverse_bits();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_match_bytewise() {
        let src: Vec<u8> = (0..77u8).map(|i| i.wrapping_mul(29) ^ 0xa5).collect();
        for w in [2usize, 4, 8] {
            let n = src.len() / w * w;
            let mut got = vec![0u8; n];
            super::swap_bytes(w, &src[..n], &mut got);
            let want: Vec<u8> = src[..n]
                .chunks(w)
                .flat_map(|c| c.iter().rev().copied())
                .collect();
            assert_eq!(got, want, "width {w}");
        }
    }
}
