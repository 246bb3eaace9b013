//! SIMD128 kernels: byte swapping (one `i8x16.swizzle` per 16 bytes), ASCII check.

#![allow(unsafe_code)] // SIMD128 loads from slices whose length is checked first

use core::arch::wasm32::*;

pub fn swap_bytes(width: usize, src: &[u8], dst: &mut [u8]) {
    let mask = match width {
        1 => return dst.copy_from_slice(src),
        2 => u8x16(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14),
        4 => u8x16(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12),
        8 => u8x16(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8),
        _ => unreachable!("width checked by caller"),
    };
    let mut s = src.chunks_exact(16);
    let mut d = dst.chunks_exact_mut(16);
    for (si, di) in (&mut s).zip(&mut d) {
        // SAFETY: both chunks are exactly 16 bytes; wasm loads/stores are unaligned-safe.
        unsafe {
            let v = v128_load(si.as_ptr() as *const v128);
            v128_store(di.as_mut_ptr() as *mut v128, i8x16_swizzle(v, mask));
        }
    }
    super::scalar::swap_bytes(width, s.remainder(), d.into_remainder());
}

/// OR of 64 bytes per step, then one `i8x16.bitmask` of the accumulated high bits.
pub fn is_ascii(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(16);
    let mut acc = u8x16_splat(0);
    for b in &mut blocks {
        // SAFETY: each chunk is exactly 16 bytes; wasm loads are unaligned-safe.
        acc = v128_or(acc, unsafe { v128_load(b.as_ptr() as *const v128) });
    }
    u8x16_bitmask(acc) == 0 && super::scalar::is_ascii(blocks.remainder())
}

/// Bit order reversed inside every byte: each nibble looked up reversed with one
/// `i8x16.swizzle`, the two halves swapped.
pub fn reverse_bits(src: &[u8], dst: &mut [u8]) {
    let table = u8x16(0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15);
    let low = u8x16_splat(0x0f);
    let mut s = src.chunks_exact(16);
    let mut d = dst.chunks_exact_mut(16);
    for (si, di) in (&mut s).zip(&mut d) {
        // SAFETY: both chunks are exactly 16 bytes; wasm loads/stores are unaligned-safe.
        unsafe {
            let v = v128_load(si.as_ptr() as *const v128);
            let lo = i8x16_swizzle(table, v128_and(v, low));
            let hi = i8x16_swizzle(table, u8x16_shr(v, 4));
            v128_store(di.as_mut_ptr() as *mut v128, v128_or(u8x16_shl(lo, 4), hi));
        }
    }
    super::scalar::reverse_bits(s.remainder(), d.into_remainder());
}
