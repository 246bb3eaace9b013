//! SIMD128 kernels: 16 bytes per step, `i8x16.bitmask` to find where a run stops,
//! `i8x16.swizzle` to gather and byte-swap payloads in one instruction.

use core::arch::wasm32::*;

#[inline]
pub fn fixint_run(src: &[u8], dst: &mut Vec<i32>) -> usize {
    let floor = i8x16_splat(-32);
    let mut n = 0;
    let mut blocks = src.chunks_exact(16);
    for b in &mut blocks {
        // SAFETY: `b` is exactly 16 bytes; wasm loads need no alignment.
        let v = unsafe { v128_load(b.as_ptr() as *const v128) };
        let ok = i8x16_bitmask(i8x16_ge(v, floor)) as u32;
        if ok == 0xffff {
            let lo = i16x8_extend_low_i8x16(v);
            let hi = i16x8_extend_high_i8x16(v);
            let q = [
                i32x4_extend_low_i16x8(lo),
                i32x4_extend_high_i16x8(lo),
                i32x4_extend_low_i16x8(hi),
                i32x4_extend_high_i16x8(hi),
            ];
            let at = dst.len();
            dst.resize(at + 16, 0);
            let out: &mut [u8] = bytemuck::cast_slice_mut(&mut dst[at..]);
            for (i, w) in q.iter().enumerate() {
                // SAFETY: `out` has 64 bytes; each store writes 16 of them.
                unsafe { v128_store(out[i * 16..].as_mut_ptr() as *mut v128, *w) };
            }
            n += 16;
        } else {
            let k = (!ok).trailing_zeros() as usize;
            dst.extend(b[..k].iter().map(|&x| x as i8 as i32));
            return n + k;
        }
    }
    n + super::scalar::fixint_run(blocks.remainder(), dst)
}

/// Lanes holding a record's tag in a 16-byte block, and records per block.
fn tag_lanes(stride: usize) -> (u32, usize) {
    match stride {
        2 => (0x5555, 8),
        3 => (0b1_001_001_001_001, 5),
        5 => (0b1_00001_00001, 3),
        _ => (1, 1),
    }
}

#[inline]
pub fn tag_run(src: &[u8], tag: u8, stride: usize) -> usize {
    let (lanes, per) = tag_lanes(stride);
    let t = u8x16_splat(tag);
    let step = per * stride;
    let mut at = 0;
    while at + 16 <= src.len() {
        // SAFETY: at + 16 <= len.
        let v = unsafe { v128_load(src[at..].as_ptr() as *const v128) };
        let eq = i8x16_bitmask(i8x16_eq(v, t)) as u32;
        if eq & lanes != lanes {
            break;
        }
        at += step;
    }
    at / stride + super::scalar::tag_run(&src[at..], tag, stride)
}

#[inline]
pub fn gather_swap(src: &[u8], width: usize, dst: &mut [u8]) {
    let stride = width + 1;
    let (mask, per) = match width {
        1 => (
            u8x16(1, 3, 5, 7, 9, 11, 13, 15, 16, 16, 16, 16, 16, 16, 16, 16),
            8,
        ),
        2 => (
            u8x16(2, 1, 5, 4, 8, 7, 11, 10, 14, 13, 16, 16, 16, 16, 16, 16),
            5,
        ),
        4 => (
            u8x16(4, 3, 2, 1, 9, 8, 7, 6, 14, 13, 12, 11, 16, 16, 16, 16),
            3,
        ),
        _ => (
            u8x16(8, 7, 6, 5, 4, 3, 2, 1, 16, 16, 16, 16, 16, 16, 16, 16),
            1,
        ),
    };
    let in_step = per * stride;
    let out_step = per * width;
    let (mut i, mut o) = (0, 0);
    let mut tmp = [0u8; 16];
    while i + 16 <= src.len() && o + out_step <= dst.len() {
        // SAFETY: i + 16 <= src.len(); tmp is 16 bytes.
        unsafe {
            let v = v128_load(src[i..].as_ptr() as *const v128);
            v128_store(tmp.as_mut_ptr() as *mut v128, i8x16_swizzle(v, mask));
        }
        dst[o..o + out_step].copy_from_slice(&tmp[..out_step]);
        i += in_step;
        o += out_step;
    }
    super::scalar::gather_swap(&src[i..], width, &mut dst[o..]);
}
