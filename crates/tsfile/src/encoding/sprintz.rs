//! SPRINTZ: blocks of 9 values (first + 8 bit-packed prediction errors, "fire" predictor),
//! and a final tail block `0x80|k` holding k values as an RLE package (ints) or a Gorilla
//! stream (floats).

use super::{
    bits::unpack_msb,
    check_limit, derr, gorilla, rle,
    word::{from_int, Int, Word},
    DResult,
};
use crate::bytes::uvarint;

const BLOCK: usize = 8;

/// Rebuild 8 values from the packed zigzag-like errors with the "fire" predictor. The
/// accumulator is a 32-bit int in both Java and C++, even for 64-bit values. The product
/// is taken in wrapping 64-bit arithmetic and truncated before the shift (Java, and C++
/// INT32), or with `WIDE` (C++ 2.x INT64) in 128 bits and shifted before truncation. An
/// even error `e` is `(-e) / 2` in Java (`NEG_FIRST`) and `-(e / 2)` in C++: they differ
/// only for `e = MIN`, where the rebuilt value's sign bit differs (each reader reads its own
/// writer's files back as written).
#[inline(always)]
fn fire<I: Int, const WIDE: bool, const NEG_FIRST: bool>(
    first: I,
    packed: &[I; BLOCK],
    out: &mut [I; BLOCK],
) {
    let (shift, width) = if I::BITS == 32 { (2, 8) } else { (3, 16) };
    let mut acc: i32 = 0;
    let mut delta = I::ZERO;
    let mut prev = first;
    for (o, &u) in out.iter_mut().zip(packed) {
        let err = if u.to_i64() & 1 == 0 {
            if NEG_FIRST {
                u.wrapping_neg().half()
            } else {
                u.half().wrapping_neg()
            }
        } else {
            u.wrapping_add(I::from_i64(1)).half()
        };
        let alpha = I::from_i64((acc >> shift) as i64);
        let diff = if WIDE {
            I::from_i128((alpha.to_i64() as i128 * delta.to_i64() as i128) >> width)
        } else {
            I::from_i64(alpha.to_i64().wrapping_mul(delta.to_i64())).sar(width)
        };
        let x = prev.wrapping_add(diff).wrapping_add(err);
        let gradient = if err > I::ZERO {
            delta.wrapping_neg()
        } else {
            delta
        };
        acc = I::from_i64(acc as i64).wrapping_sub(gradient).to_i64() as i32;
        delta = x.wrapping_sub(prev);
        *o = x;
        prev = x;
    }
}

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

/// Decode a SPRINTZ stream into `out`, refusing more than `limit` values in all. `cpp`:
/// 64-bit values as the C++ writer predicts them (128-bit product, see [`fire`]).
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub(crate) fn decode<W: Word>(
    buf: &[u8],
    limit: usize,
    cpp: bool,
    out: &mut Vec<W>,
) -> DResult<()> {
    let b = W::BITS as usize;
    let mut pos = 0;
    while pos < buf.len() {
        let at = pos;
        let h = buf[pos];
        pos += 1;
        if h & 0x80 != 0 {
            let k = (h & 0x7f) as usize;
            check_limit(out.len(), k, limit, at)?;
            let mut tail = Vec::new();
            if W::FLOAT {
                // The k tail values are decoded by count (a NaN among them is a value).
                gorilla::decode::<W>(&buf[pos..], k, true, &mut tail)
                    .map_err(|e| derr(e.pos + pos, e.msg))?;
                pos = buf.len();
            } else {
                pos += rle::decode_one::<W>(&buf[pos..], usize::MAX, &mut tail)
                    .map_err(|e| derr(e.pos + pos, e.msg))?;
            }
            push_tail(out, &tail, k, at)?;
            continue;
        }
        let bw = h as usize;
        if bw > b {
            return Err(derr(at, format!("SPRINTZ bit width {bw} exceeds {b}")));
        }
        let first: W::Int = if b == 32 && !W::FLOAT {
            // INT32 first values are varints; the others raw big-endian words.
            let v =
                uvarint(buf, &mut pos).ok_or_else(|| derr(pos, "truncated SPRINTZ first value"))?;
            W::Int::from_bits(v as u64)
        } else {
            let nb = b / 8;
            // 64-bit blocks check the first value and the packed errors at once.
            let need = if b == 64 { nb + bw } else { nb };
            if buf.len() - pos < need {
                let what = if b == 64 { "block" } else { "first value" };
                return Err(derr(pos, format!("truncated SPRINTZ {what}")));
            }
            let v = W::Int::from_be(&buf[pos..pos + nb]);
            pos += nb;
            v
        };
        if buf.len() - pos < bw {
            return Err(derr(pos, "truncated SPRINTZ block"));
        }
        let mut packed = [W::Int::ZERO; BLOCK];
        let mut i = 0;
        unpack_msb(&buf[pos..pos + bw], bw as u32, BLOCK, |v| {
            packed[i] = W::Int::from_bits(v);
            i += 1;
        });
        pos += bw;
        check_limit(out.len(), BLOCK + 1, limit, at)?;
        let mut vals = [W::Int::ZERO; BLOCK];
        match (cpp, b == 64) {
            (true, true) => fire::<W::Int, true, false>(first, &packed, &mut vals),
            (true, false) => fire::<W::Int, false, false>(first, &packed, &mut vals),
            (false, _) => fire::<W::Int, false, true>(first, &packed, &mut vals),
        }
        out.push(from_int(first));
        out.extend(vals.iter().map(|&v| from_int::<W>(v)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn an_error_of_min_negates_as_each_writer_does() {
        // A packed error of 0x80000000 (bit width 32): Java's `-e / 2` is MIN / 2 = -2^30, so
        // the value after a first of 0 is -2^30 (0xC0000000); C++'s `-(e / 2)` gives +2^30.
        let mut packed = [0i32; BLOCK];
        packed[0] = i32::MIN;
        let mut out = [0i32; BLOCK];
        fire::<i32, false, true>(0, &packed, &mut out);
        assert_eq!(out[0], -(1 << 30));
        fire::<i32, false, false>(0, &packed, &mut out);
        assert_eq!(out[0], 1 << 30);
        let mut packed = [0i64; BLOCK];
        packed[0] = i64::MIN;
        let mut out = [0i64; BLOCK];
        fire::<i64, false, true>(0, &packed, &mut out);
        assert_eq!(out[0], -(1 << 62));
        fire::<i64, true, false>(0, &packed, &mut out);
        assert_eq!(out[0], 1 << 62);
    }

    #[test]
    fn zero_width_block_repeats_first() {
        // bw 0, first = uvarint 7, no packed bytes: errors 0 → prediction keeps 7.
        let mut v = vec![];
        decode::<i32>(&[0, 7], 100, false, &mut v).unwrap();
        assert_eq!(v, vec![7; 9]);
        assert!(decode::<i32>(&[5, 7, 1], 100, false, &mut vec![]).is_err());
    }

    /// Reference encoders, written per width without the generic code: full blocks only
    /// (9 values each), Java's predictor (truncating 64-bit product). `first` writes a
    /// block's first value.
    fn encode32(vals: &[u32], first: impl Fn(u32, &mut Vec<u8>)) -> Vec<u8> {
        let mut out = vec![];
        for block in vals.chunks_exact(9) {
            let (mut acc, mut delta, mut prev) = (0i32, 0i32, block[0] as i32);
            let mut us = [0u64; 8];
            for (i, &x) in block[1..].iter().enumerate() {
                let x = x as i32;
                let alpha = acc >> 2;
                let diff = ((alpha as i64 * delta as i64) as i32) >> 8;
                let err = x.wrapping_sub(prev.wrapping_add(diff));
                us[i] = (if err <= 0 {
                    -2 * err as i64
                } else {
                    2 * err as i64 - 1
                }) as u64;
                acc = acc.wrapping_sub(if err > 0 { -delta } else { delta });
                delta = x.wrapping_sub(prev);
                prev = x;
            }
            pack(&us, block[0] as u64, &mut out, |v, o| first(v as u32, o));
        }
        out
    }

    fn encode64(vals: &[u64]) -> Vec<u8> {
        let mut out = vec![];
        for block in vals.chunks_exact(9) {
            let (mut acc, mut delta, mut prev) = (0i32, 0i64, block[0] as i64);
            let mut us = [0u64; 8];
            for (i, &x) in block[1..].iter().enumerate() {
                let x = x as i64;
                let alpha = (acc >> 3) as i64;
                let diff = alpha.wrapping_mul(delta) >> 16;
                let err = x.wrapping_sub(prev.wrapping_add(diff));
                us[i] = (if err <= 0 {
                    -2 * err as i128
                } else {
                    2 * err as i128 - 1
                }) as u64;
                acc = (acc as i64).wrapping_sub(if err > 0 { -delta } else { delta }) as i32;
                delta = x.wrapping_sub(prev);
                prev = x;
            }
            pack(&us, block[0], &mut out, |v, o| o.extend(v.to_be_bytes()));
        }
        out
    }

    /// `[bit width][first][8 values × width bits, MSB first]`.
    fn pack(us: &[u64; 8], first: u64, out: &mut Vec<u8>, put: impl Fn(u64, &mut Vec<u8>)) {
        let bw = us.iter().map(|u| 64 - u.leading_zeros()).max().unwrap();
        out.push(bw as u8);
        put(first, out);
        let (mut acc, mut nb) = (0u128, 0);
        for &u in us {
            acc = (acc << bw) | u as u128;
            nb += bw;
            while nb >= 8 {
                nb -= 8;
                out.push((acc >> nb) as u8);
            }
        }
    }

    fn varint(mut v: u32, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// Every width against its reference encoder, over random walks (the predictor's
    /// errors stay within what its zigzag form holds) with occasional jumps.
    #[test]
    fn each_width_matches_its_reference_encoder() {
        let mut x: u64 = 99;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 11
        };
        for case in 0..200 {
            let n = 9 * (1 + case % 7);
            let step = 1u64 << (case % 20);
            let (mut a, mut b) = (next() as i32, next() as i64 >> 12);
            let (mut i32s, mut i64s, mut f32s, mut f64s) = (vec![], vec![], vec![], vec![]);
            for _ in 0..n {
                let r = next();
                let jump = if r % 13 == 0 { 1000 } else { 1 };
                a = a.wrapping_add(((r % (2 * step)) as i64 - step as i64) as i32 * jump);
                b = b.wrapping_add((r % (2 * step)) as i64 - step as i64);
                i32s.push(a);
                i64s.push(b * jump as i64);
                f32s.push(1.0 + (r % 100_000) as f32 / 7.0);
                f64s.push(-1.0 - (r % 1_000_000) as f64 / 3.0);
            }
            let bits32 = |v: &[i32]| v.iter().map(|&v| v as u32).collect::<Vec<_>>();
            let enc = encode32(&bits32(&i32s), varint);
            let mut got = vec![];
            decode::<i32>(&enc, n, false, &mut got).unwrap();
            assert_eq!(got, i32s, "INT32 case {case}");

            let fb: Vec<u32> = f32s.iter().map(|v| v.to_bits()).collect();
            let enc = encode32(&fb, |v, o| o.extend(v.to_be_bytes()));
            let mut got = vec![];
            decode::<f32>(&enc, n, false, &mut got).unwrap();
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                fb,
                "FLOAT case {case}"
            );

            let enc = encode64(&i64s.iter().map(|&v| v as u64).collect::<Vec<_>>());
            let mut got = vec![];
            decode::<i64>(&enc, n, false, &mut got).unwrap();
            assert_eq!(got, i64s, "INT64 case {case}");

            let db: Vec<u64> = f64s.iter().map(|v| v.to_bits()).collect();
            let enc = encode64(&db);
            let mut got = vec![];
            decode::<f64>(&enc, n, false, &mut got).unwrap();
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                db,
                "DOUBLE case {case}"
            );
            // The limit counts every value.
            assert!(decode::<f64>(&enc, n - 1, false, &mut vec![]).is_err());
        }
    }
}
