//! SPRINTZ: blocks of 9 values (first + 8 bit-packed prediction errors, "fire" predictor),
//! and a final tail block `0x80|k` holding k values as an RLE package (ints) or a Gorilla
//! stream (floats).

use super::{bits::unpack_msb, check_limit, derr, gorilla, rle, DResult};
use crate::bytes::uvarint;

const BLOCK: usize = 8;

macro_rules! fire_block {
    ($fn:ident, $t:ty, $wide:ty, $shift:expr, $width:expr, $shift_wide:expr) => {
        /// Rebuild 8 values from the packed zigzag-like errors with the "fire" predictor.
        /// The accumulator is a 32-bit int in both Java and C++, even for 64-bit values.
        fn $fn(first: $t, packed: &[$t; BLOCK], out: &mut [$t; BLOCK]) {
            let mut acc: i32 = 0;
            let mut delta: $t = 0;
            let mut prev = first;
            for i in 0..BLOCK {
                let u = packed[i];
                let err: $t = if u % 2 == 0 {
                    (u / 2).wrapping_neg()
                } else {
                    (u.wrapping_add(1)) / 2
                };
                let alpha = (acc >> $shift) as $t;
                let product = (alpha as $wide).wrapping_mul(delta as $wide);
                // Java and C++ INT32: truncate, then shift. C++ INT64: shift the 128-bit product.
                let diff = if $shift_wide {
                    (product >> $width) as $t
                } else {
                    (product as $t) >> $width
                };
                let x = prev.wrapping_add(diff).wrapping_add(err);
                let gradient = if err > 0 { delta.wrapping_neg() } else { delta };
                acc = (acc as $t).wrapping_sub(gradient) as i32;
                delta = x.wrapping_sub(prev);
                out[i] = x;
                prev = x;
            }
        }
    };
}

fire_block!(fire32, i32, i64, 2, 8, false);
// Java multiplies in wrapping 64-bit arithmetic, C++ 2.x in 128-bit before the shift.
fire_block!(fire64, i64, i64, 3, 16, false);
fire_block!(fire64_wide, i64, i128, 3, 16, true);

/// The last, partial block: `k` values decoded by the tail encoding.
fn push_tail<T: Copy>(out: &mut Vec<T>, tail: &[T], k: usize, at: usize) -> DResult<()> {
    if tail.len() < k {
        return Err(derr(
            at,
            format!("SPRINTZ tail declares {k} values, holds {}", tail.len()),
        ));
    }
    out.extend_from_slice(&tail[..k]);
    Ok(())
}

fn blocks32(buf: &[u8], limit: usize, out: &mut Vec<i32>, float: bool) -> DResult<()> {
    let mut pos = 0;
    while pos < buf.len() {
        let at = pos;
        let h = buf[pos];
        pos += 1;
        if h & 0x80 != 0 {
            let k = (h & 0x7f) as usize;
            check_limit(out.len(), k, limit, at)?;
            let mut tail = Vec::new();
            if float {
                // The k tail values are decoded by count (a NaN among them is a value).
                gorilla::decode::<i32>(&buf[pos..], k, true, &mut tail)
                    .map_err(|e| derr(e.pos + pos, e.msg))?;
                pos = buf.len();
            } else {
                pos += rle::decode_one_i32(&buf[pos..], usize::MAX, &mut tail)
                    .map_err(|e| derr(e.pos + pos, e.msg))?;
            }
            push_tail(out, &tail, k, at)?;
            continue;
        }
        let bw = h as usize;
        if bw > 32 {
            return Err(derr(at, format!("SPRINTZ bit width {bw} exceeds 32")));
        }
        let first = if float {
            if buf.len() - pos < 4 {
                return Err(derr(pos, "truncated SPRINTZ first value"));
            }
            let v = i32::from_be_bytes(buf[pos..pos + 4].try_into().unwrap());
            pos += 4;
            v
        } else {
            uvarint(buf, &mut pos).ok_or_else(|| derr(pos, "truncated SPRINTZ first value"))? as i32
        };
        if buf.len() - pos < bw {
            return Err(derr(pos, "truncated SPRINTZ block"));
        }
        let mut packed = [0i32; BLOCK];
        let mut i = 0;
        unpack_msb(&buf[pos..pos + bw], bw as u32, BLOCK, |v| {
            packed[i] = v as u32 as i32;
            i += 1;
        });
        pos += bw;
        check_limit(out.len(), BLOCK + 1, limit, at)?;
        let mut vals = [0i32; BLOCK];
        fire32(first, &packed, &mut vals);
        out.push(first);
        out.extend_from_slice(&vals);
    }
    Ok(())
}

fn blocks64(buf: &[u8], limit: usize, out: &mut Vec<i64>, float: bool, cpp: bool) -> DResult<()> {
    let mut pos = 0;
    while pos < buf.len() {
        let at = pos;
        let h = buf[pos];
        pos += 1;
        if h & 0x80 != 0 {
            let k = (h & 0x7f) as usize;
            check_limit(out.len(), k, limit, at)?;
            let mut tail = Vec::new();
            if float {
                gorilla::decode::<i64>(&buf[pos..], k, true, &mut tail)
                    .map_err(|e| derr(e.pos + pos, e.msg))?;
                pos = buf.len();
            } else {
                pos += rle::decode_one_i64(&buf[pos..], usize::MAX, &mut tail)
                    .map_err(|e| derr(e.pos + pos, e.msg))?;
            }
            push_tail(out, &tail, k, at)?;
            continue;
        }
        let bw = h as usize;
        if bw > 64 {
            return Err(derr(at, format!("SPRINTZ bit width {bw} exceeds 64")));
        }
        if buf.len() - pos < 8 + bw {
            return Err(derr(pos, "truncated SPRINTZ block"));
        }
        let first = i64::from_be_bytes(buf[pos..pos + 8].try_into().unwrap());
        pos += 8;
        let mut packed = [0i64; BLOCK];
        let mut i = 0;
        unpack_msb(&buf[pos..pos + bw], bw as u32, BLOCK, |v| {
            packed[i] = v as i64;
            i += 1;
        });
        pos += bw;
        check_limit(out.len(), BLOCK + 1, limit, at)?;
        let mut vals = [0i64; BLOCK];
        if cpp {
            fire64_wide(first, &packed, &mut vals);
        } else {
            fire64(first, &packed, &mut vals);
        }
        out.push(first);
        out.extend_from_slice(&vals);
    }
    Ok(())
}

pub fn decode_i32(buf: &[u8], limit: usize, out: &mut Vec<i32>) -> DResult<()> {
    blocks32(buf, limit, out, false)
}
pub fn decode_i64(buf: &[u8], limit: usize, out: &mut Vec<i64>) -> DResult<()> {
    blocks64(buf, limit, out, false, false)
}
/// INT64 as the C++ writer predicts it (128-bit product in the "fire" predictor).
pub fn decode_i64_cpp(buf: &[u8], limit: usize, out: &mut Vec<i64>) -> DResult<()> {
    blocks64(buf, limit, out, false, true)
}
pub fn decode_f32(buf: &[u8], limit: usize, out: &mut Vec<f32>) -> DResult<()> {
    let mut bits = Vec::new();
    blocks32(buf, limit.saturating_sub(out.len()), &mut bits, true)?;
    out.extend(bits.iter().map(|&b| f32::from_bits(b as u32)));
    Ok(())
}
pub fn decode_f64(buf: &[u8], limit: usize, out: &mut Vec<f64>) -> DResult<()> {
    decode_f64_impl(buf, limit, out, false)
}
pub fn decode_f64_cpp(buf: &[u8], limit: usize, out: &mut Vec<f64>) -> DResult<()> {
    decode_f64_impl(buf, limit, out, true)
}
fn decode_f64_impl(buf: &[u8], limit: usize, out: &mut Vec<f64>, cpp: bool) -> DResult<()> {
    let mut bits = Vec::new();
    blocks64(buf, limit.saturating_sub(out.len()), &mut bits, true, cpp)?;
    out.extend(bits.iter().map(|&b| f64::from_bits(b as u64)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn zero_width_block_repeats_first() {
        // bw 0, first = uvarint 7, no packed bytes: errors 0 → prediction keeps 7.
        let mut v = vec![];
        decode_i32(&[0, 7], 100, &mut v).unwrap();
        assert_eq!(v, vec![7; 9]);
        assert!(decode_i32(&[5, 7, 1], 100, &mut vec![]).is_err());
    }
}
