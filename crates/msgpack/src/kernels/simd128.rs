//! SIMD128 kernels: 16 bytes per step, `i8x16.bitmask` to find where a run stops,
//! `i8x16.swizzle`/`shuffle` to gather and byte-swap payloads. Results are stored with
//! full 16-byte stores straight into the output (the next step overwrites the spill), so
//! no step calls `memcpy` or grows a Vec.

#![allow(unsafe_code)] // SIMD128 loads and writes into reserved, not yet initialised output

use core::arch::wasm32::*;

#[inline]
pub fn fixint_run(src: &[u8], dst: &mut Vec<i32>) -> usize {
    let floor = i8x16_splat(-32);
    dst.reserve(src.len());
    let base = dst.len();
    // Writes go to spare capacity: at most src.len() values, which reserve() guaranteed.
    let out = dst.spare_capacity_mut().as_mut_ptr() as *mut i32;
    let mut n = 0;
    let mut blocks = src.chunks_exact(16);
    let mut stopped = false;
    for b in &mut blocks {
        // SAFETY: `b` is exactly 16 bytes; wasm loads need no alignment.
        let v = unsafe { v128_load(b.as_ptr() as *const v128) };
        let ok = i8x16_bitmask(i8x16_ge(v, floor)) as u32;
        if ok != 0xffff {
            let k = (!ok).trailing_zeros() as usize;
            for (j, &x) in b[..k].iter().enumerate() {
                // SAFETY: n + j < src.len() <= spare capacity.
                unsafe { out.add(n + j).write(x as i8 as i32) };
            }
            n += k;
            stopped = true;
            break;
        }
        let lo = i16x8_extend_low_i8x16(v);
        let hi = i16x8_extend_high_i8x16(v);
        // SAFETY: n + 16 <= src.len() <= spare capacity; each store writes 4 i32.
        unsafe {
            let p = out.add(n) as *mut v128;
            v128_store(p, i32x4_extend_low_i16x8(lo));
            v128_store(p.add(1), i32x4_extend_high_i16x8(lo));
            v128_store(p.add(2), i32x4_extend_low_i16x8(hi));
            v128_store(p.add(3), i32x4_extend_high_i16x8(hi));
        }
        n += 16;
    }
    if !stopped {
        for &x in blocks.remainder() {
            if (x as i8) < -32 {
                break;
            }
            // SAFETY: n < src.len() <= spare capacity.
            unsafe { out.add(n).write(x as i8 as i32) };
            n += 1;
        }
    }
    // SAFETY: the first n spare slots were written above.
    unsafe { dst.set_len(base + n) };
    n
}

#[inline]
pub fn tag_run(src: &[u8], tag: u8, stride: usize) -> usize {
    // Several records per block only pays for short strides; for 9-byte records a strided
    // byte compare is cheaper than a vector compare per record.
    let (lanes, per) = match stride {
        2 => (0x5555u32, 8),
        3 => (0b1_001_001_001_001, 5),
        5 => (0b1_00001_00001, 3),
        _ => return super::scalar::tag_run(src, tag, stride),
    };
    let t = u8x16_splat(tag);
    let step = per * stride;
    let mut at = 0;
    while at + 16 <= src.len() {
        // SAFETY: at + 16 <= len.
        let v = unsafe { v128_load(src[at..].as_ptr() as *const v128) };
        if i8x16_bitmask(i8x16_eq(v, t)) as u32 & lanes != lanes {
            break;
        }
        at += step;
    }
    at / stride + super::scalar::tag_run(&src[at..], tag, stride)
}

#[inline]
pub fn gather_swap(src: &[u8], width: usize, dst: &mut [u8]) {
    let (mut i, mut o) = (0usize, 0usize);
    // SAFETY (all loops): loads stay within `src` and 16-byte stores within `dst` by the
    // loop conditions; wasm memory accesses need no alignment.
    unsafe {
        let s = src.as_ptr();
        let d = dst.as_mut_ptr();
        match width {
            8 => {
                // Two records (18 bytes) → 16 bytes: tag at 0 and 9, payloads reversed.
                while i + 25 <= src.len() && o + 16 <= dst.len() {
                    let a = v128_load(s.add(i) as *const v128);
                    let b = v128_load(s.add(i + 9) as *const v128);
                    let r = i8x16_shuffle::<8, 7, 6, 5, 4, 3, 2, 1, 24, 23, 22, 21, 20, 19, 18, 17>(
                        a, b,
                    );
                    v128_store(d.add(o) as *mut v128, r);
                    i += 18;
                    o += 16;
                }
            }
            4 => {
                // Four records (20 bytes) → 16 bytes.
                while i + 20 <= src.len() && o + 16 <= dst.len() {
                    let a = v128_load(s.add(i) as *const v128);
                    let b = v128_load(s.add(i + 4) as *const v128);
                    let r = i8x16_shuffle::<4, 3, 2, 1, 9, 8, 7, 6, 14, 13, 12, 11, 31, 30, 29, 28>(
                        a, b,
                    );
                    v128_store(d.add(o) as *mut v128, r);
                    i += 20;
                    o += 16;
                }
            }
            2 => {
                // Five records (15 bytes) → 10 bytes, stored as 16 (the spill is rewritten).
                let m = u8x16(2, 1, 5, 4, 8, 7, 11, 10, 14, 13, 16, 16, 16, 16, 16, 16);
                while i + 16 <= src.len() && o + 16 <= dst.len() {
                    v128_store(
                        d.add(o) as *mut v128,
                        i8x16_swizzle(v128_load(s.add(i) as *const v128), m),
                    );
                    i += 15;
                    o += 10;
                }
            }
            _ => {
                // Eight records (16 bytes) → 8 bytes, stored as 16.
                let m = u8x16(1, 3, 5, 7, 9, 11, 13, 15, 16, 16, 16, 16, 16, 16, 16, 16);
                while i + 16 <= src.len() && o + 16 <= dst.len() {
                    v128_store(
                        d.add(o) as *mut v128,
                        i8x16_swizzle(v128_load(s.add(i) as *const v128), m),
                    );
                    i += 16;
                    o += 8;
                }
            }
        }
    }
    super::scalar::gather_swap(&src[i..], width, &mut dst[o..]);
}

#[inline]
pub fn gather_run8<T: bytemuck::Pod>(src: &[u8], tag: u8, dst: &mut Vec<T>) -> usize {
    dst.reserve(src.len() / 9);
    let base = dst.len();
    let out = dst.spare_capacity_mut().as_mut_ptr() as *mut u8;
    let s = src.as_ptr();
    let (mut i, mut n) = (0usize, 0usize);
    // SAFETY: loads stay within `src` (i + 25 <= len); a store writes the payloads of two
    // whole records (i + 18 <= len, so n + 2 <= len / 9, within the reserved spare
    // capacity); wasm memory accesses need no alignment.
    unsafe {
        while i + 25 <= src.len() {
            let a = v128_load(s.add(i) as *const v128);
            let b = v128_load(s.add(i + 9) as *const v128);
            if u8x16_extract_lane::<0>(a) != tag || u8x16_extract_lane::<0>(b) != tag {
                break;
            }
            let r = i8x16_shuffle::<8, 7, 6, 5, 4, 3, 2, 1, 24, 23, 22, 21, 20, 19, 18, 17>(a, b);
            v128_store(out.add(n * 8) as *mut v128, r);
            i += 18;
            n += 2;
        }
    }
    // The last records, and the pair whose second tag stopped the loop, one by one.
    for r in src[i..].chunks_exact(9) {
        if r[0] != tag {
            break;
        }
        let x = u64::from_be_bytes(r[1..9].try_into().unwrap_or([0; 8]));
        // SAFETY: n < len / 9, within the reserved spare capacity.
        unsafe { (out.add(n * 8) as *mut u64).write_unaligned(x) };
        n += 1;
    }
    // SAFETY: the first n spare slots were written above (8 bytes each; T is any 8-byte
    // plain value, checked by the caller).
    unsafe { dst.set_len(base + n) };
    n
}
