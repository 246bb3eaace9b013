//! RLE / bit-packing hybrid (`RleDecoder`): packages of `[uvarint len][bitWidth][runs]`.
//! RLE run values are little-endian for 32-bit and big-endian for 64-bit words (as Java
//! writes them).

use super::{bits::unpack_msb, check_limit, derr, word::Word, DResult};
use crate::bytes::uvarint;

/// Decode every package of `buf` into `out`, refusing more than `limit` values in all.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub(crate) fn decode<W: Word>(buf: &[u8], limit: usize, out: &mut Vec<W>) -> DResult<()> {
    let mut pos = 0usize;
    while pos < buf.len() {
        pos = decode_one_at(buf, pos, limit, out)?;
    }
    Ok(())
}

/// Decode exactly one package starting at `buf[0]`; returns the bytes consumed (SPRINTZ tails).
pub(crate) fn decode_one<W: Word>(buf: &[u8], limit: usize, out: &mut Vec<W>) -> DResult<usize> {
    decode_one_at(buf, 0, limit, out)
}

/// The package `[uvarint len][body]` at `buf[at..]`; returns where it ends.
fn decode_one_at<W: Word>(buf: &[u8], at: usize, limit: usize, out: &mut Vec<W>) -> DResult<usize> {
    let mut pos = at;
    let len =
        uvarint(buf, &mut pos).ok_or_else(|| derr(at, "truncated RLE package length"))? as usize;
    if buf.len() - pos < len {
        return Err(derr(
            at,
            format!("RLE package of {len} bytes, {} left", buf.len() - pos),
        ));
    }
    if len > 0 {
        decode_package(buf, pos, pos + len, limit, out)?;
    }
    Ok(pos + len)
}

/// One package `buf[start..end]` = bitWidth + runs.
fn decode_package<W: Word>(
    buf: &[u8],
    start: usize,
    end: usize,
    limit: usize,
    out: &mut Vec<W>,
) -> DResult<()> {
    let width = buf[start] as u32;
    if width > W::BITS {
        return Err(derr(
            start,
            format!("RLE bit width {width} exceeds {}", W::BITS),
        ));
    }
    let mut pos = start + 1;
    while pos < end {
        let at = pos;
        let header =
            uvarint(&buf[..end], &mut pos).ok_or_else(|| derr(at, "truncated RLE run header"))?;
        if header & 1 == 1 {
            let groups = (header >> 1) as usize;
            let last = *buf[..end]
                .get(pos)
                .ok_or_else(|| derr(pos, "truncated bit-packed run"))?
                as usize;
            pos += 1;
            let bytes = groups as u64 * width as u64;
            if ((end - pos) as u64) < bytes {
                return Err(derr(at, format!("bit-packed run of {groups} groups × {width} bits needs {bytes} bytes, {} left", end - pos)));
            }
            let bytes = bytes as usize;
            if groups == 0 {
                continue;
            }
            let valid = (groups - 1) * 8 + last.min(8);
            check_limit(out.len(), valid, limit, at)?;
            out.reserve(valid);
            let mut k = 0;
            unpack_msb(&buf[pos..pos + bytes], width, groups * 8, |v| {
                if k < valid {
                    out.push(W::from_bits(v));
                }
                k += 1;
            });
            pos += bytes;
        } else {
            let repeat = (header >> 1) as usize;
            let nb = width.div_ceil(8) as usize;
            if end - pos < nb {
                return Err(derr(pos, "truncated RLE run value"));
            }
            let v = run_value::<W>(&buf[pos..pos + nb]);
            pos += nb;
            check_limit(out.len(), repeat, limit, at)?;
            out.extend(std::iter::repeat_n(v, repeat));
        }
    }
    Ok(())
}

/// An RLE run's value of `b.len()` (≤ BITS / 8) bytes: little-endian for 32-bit words,
/// big-endian for 64-bit ones (Java `readLongLittleEndianPaddedOnBitWidth` shifts left).
#[inline]
fn run_value<W: Word>(b: &[u8]) -> W {
    let bits = if W::BITS == 32 {
        b.iter().rev().fold(0u64, |a, &x| (a << 8) | x as u64)
    } else {
        b.iter().fold(0u64, |a, &x| (a << 8) | x as u64)
    };
    W::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test encoder: one package; runs of ≥ 8 equal values as RLE runs, the rest bit-packed.
    fn encode_i64(vals: &[i64], width: u32) -> Vec<u8> {
        fn varint(mut v: u64, out: &mut Vec<u8>) {
            while v >= 0x80 {
                out.push(v as u8 | 0x80);
                v >>= 7;
            }
            out.push(v as u8);
        }
        let mut body = vec![width as u8];
        let mut i = 0;
        while i < vals.len() {
            let mut j = i;
            while j < vals.len() && vals[j] == vals[i] {
                j += 1;
            }
            if j - i >= 8 {
                varint(((j - i) as u64) << 1, &mut body);
                let nb = width.div_ceil(8) as usize;
                body.extend(&vals[i].to_be_bytes()[8 - nb..]);
                i = j;
            } else {
                let take = (vals.len() - i).min(16);
                let groups = take.div_ceil(8);
                varint(((groups as u64) << 1) | 1, &mut body);
                body.push(if take.is_multiple_of(8) {
                    8
                } else {
                    (take % 8) as u8
                });
                let mut acc: u128 = 0;
                let mut nb = 0;
                for k in 0..groups * 8 {
                    let v = if k < take { vals[i + k] as u64 } else { 0 };
                    let v = if width == 64 {
                        v
                    } else {
                        v & ((1 << width) - 1)
                    };
                    acc = (acc << width) | v as u128;
                    nb += width;
                    while nb >= 8 {
                        nb -= 8;
                        body.push((acc >> nb) as u8);
                    }
                }
                i += take;
            }
        }
        let mut out = vec![];
        varint(body.len() as u64, &mut out);
        out.extend(body);
        out
    }

    #[test]
    fn round_trip_i64() {
        let mut x: u64 = 7;
        let mut vals = vec![];
        for i in 0..500i64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            vals.push(if (i / 30) % 2 == 0 {
                42
            } else {
                (x >> 44) as i64
            });
        }
        let enc = encode_i64(&vals, 20);
        let mut got = vec![];
        decode::<i64>(&enc, 1000, &mut got).unwrap();
        assert_eq!(got, vals);
        let neg = vec![-1i64, -5, 3, 3, 3, 3, 3, 3, 3, 3, 3, i64::MIN];
        let enc = encode_i64(&neg, 64);
        let mut got = vec![];
        decode::<i64>(&enc, 1000, &mut got).unwrap();
        assert_eq!(got, neg);
        // Truncated package.
        assert!(decode::<i64>(&enc[..enc.len() - 1], 1000, &mut vec![]).is_err());
    }

    #[test]
    fn runs_and_packs() {
        // package: width 32, RLE run of 3 × -1 (LE), RLE run 2 × 1
        let body = [32u8, 6, 0xff, 0xff, 0xff, 0xff, 4, 1, 0, 0, 0];
        let mut b = vec![body.len() as u8];
        b.extend(body);
        let mut v = vec![];
        decode::<i32>(&b, 100, &mut v).unwrap();
        assert_eq!(v, vec![-1, -1, -1, 1, 1]);
        // INT64 run value is big-endian
        let body = [32u8, 2, 0x3b, 0x9a, 0xca, 0x02];
        let mut b = vec![body.len() as u8];
        b.extend(body);
        let mut l = vec![];
        decode::<i64>(&b, 100, &mut l).unwrap();
        assert_eq!(l, vec![1000000002]);
        // bit-packed: width 2, 1 group, 3 valid values: 1,2,3,0,...
        let body = [2u8, 3, 3, 0b0110_1100, 0];
        let mut b = vec![body.len() as u8];
        b.extend(body);
        let mut v = vec![];
        decode::<i32>(&b, 100, &mut v).unwrap();
        assert_eq!(v, vec![1, 2, 3]);
        // A huge run is refused by the limit.
        let body = [8u8, 0xfe, 0xff, 0xff, 0x0f, 1];
        let mut b = vec![body.len() as u8];
        b.extend(body);
        assert!(decode::<i32>(&b, 1000, &mut vec![]).is_err());
    }
}
