//! PLAIN: BOOLEAN 1 byte, INT32 svarint, INT64/FLOAT/DOUBLE big-endian, bytes svarint-length.

#![allow(unsafe_code)] // values written into reserved output before `set_len`

use super::{check_limit, derr, DResult};
use crate::bytes::{unzigzag32, uvarint};
use arrowsmith_core::simd;

/// Decode PLAIN BOOLEAN values (one byte each), appended to `out`; more than `limit` values in all is an
/// error.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub fn decode_bool(buf: &[u8], limit: usize, out: &mut Vec<bool>) -> DResult<()> {
    check_limit(out.len(), buf.len(), limit, 0)?;
    out.extend(buf.iter().map(|&b| b != 0));
    Ok(())
}

/// Decode PLAIN INT32 values (svarints), appended to `out`; more than `limit` values in all is an
/// error.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub fn decode_i32(buf: &[u8], limit: usize, out: &mut Vec<i32>) -> DResult<()> {
    let mut pos = 0;
    // Every value takes at least one byte: reserve once.
    let room = buf.len().min(limit.saturating_sub(out.len()));
    out.reserve(room);
    let n = buf.len();
    // Fastest path, while 8 bytes remain: decode branch-free from one little-endian load
    // (native in wasm) straight into the reserved space; the first byte without its high
    // bit ends the varint. Over-long varints and the tail go to the loop below.
    {
        let at = out.len();
        let dst = &mut out.spare_capacity_mut()[..room];
        let mut k = 0;
        while k < dst.len() && n - pos >= 8 {
            let x = u64::from_le_bytes(buf[pos..pos + 8].try_into().unwrap());
            let stops = !x & 0x8080_8080_8080_8080;
            let len = (stops.trailing_zeros() / 8 + 1) as usize; // 1..=9 (9: no stop)
            if len > 5 {
                break;
            }
            let k7 = x & 0x007f_7f7f_7f7f & (u64::MAX >> (64 - 8 * len));
            let u = (k7 & 0x7f)
                | ((k7 >> 1) & (0x7f << 7))
                | ((k7 >> 2) & (0x7f << 14))
                | ((k7 >> 3) & (0x7f << 21))
                | ((k7 >> 4) & (0x7f << 28));
            dst[k].write(unzigzag32(u as u32));
            k += 1;
            pos += len;
        }
        // SAFETY: the first k reserved slots were written above.
        unsafe { out.set_len(at + k) };
    }
    while pos < n {
        if out.len() >= limit {
            return Err(super::limit_err(pos, limit));
        }
        // Fast path: up to 5 bytes available, decode without per-byte bounds checks.
        if n - pos >= 5 {
            let b = &buf[pos..pos + 5];
            let mut u = (b[0] & 0x7f) as u32;
            let mut len = 1;
            if b[0] >= 0x80 {
                u |= ((b[1] & 0x7f) as u32) << 7;
                len = 2;
                if b[1] >= 0x80 {
                    u |= ((b[2] & 0x7f) as u32) << 14;
                    len = 3;
                    if b[2] >= 0x80 {
                        u |= ((b[3] & 0x7f) as u32) << 21;
                        len = 4;
                        if b[3] >= 0x80 {
                            u |= (b[4] as u32) << 28;
                            len = 5;
                            if b[4] >= 0x80 {
                                // Over-long varint: let the general reader handle it.
                                len = 0;
                            }
                        }
                    }
                }
            }
            if len > 0 {
                pos += len;
                out.push(unzigzag32(u));
                continue;
            }
        }
        let at = pos;
        let u = uvarint(buf, &mut pos).ok_or_else(|| derr(at, "truncated INT32 varint"))?;
        out.push(unzigzag32(u));
    }
    Ok(())
}

fn fixed<T: bytemuck::Pod + Default>(buf: &[u8], limit: usize, out: &mut Vec<T>) -> DResult<()> {
    prefix_fixed(buf, limit, usize::MAX, out)
}

/// Fixed-width values, only as many as bring `out` to `stop` (all of them for `usize::MAX`).
pub(crate) fn prefix_fixed<T: bytemuck::Pod + Default>(
    buf: &[u8],
    limit: usize,
    stop: usize,
    out: &mut Vec<T>,
) -> DResult<()> {
    let w = std::mem::size_of::<T>();
    if !buf.len().is_multiple_of(w) {
        return Err(derr(
            buf.len() - buf.len() % w,
            format!("{} trailing bytes after {w}-byte values", buf.len() % w),
        ));
    }
    check_limit(out.len(), buf.len() / w, limit, 0)?;
    let n = (buf.len() / w).min(stop.saturating_sub(out.len()));
    simd::extend_from_be(out, &buf[..n * w]);
    Ok(())
}

/// Decode PLAIN INT64 values (big-endian), appended to `out`; more than `limit` values in all is an
/// error.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub fn decode_i64(buf: &[u8], limit: usize, out: &mut Vec<i64>) -> DResult<()> {
    fixed(buf, limit, out)
}
/// Decode PLAIN FLOAT values (big-endian), appended to `out`; more than `limit` values in all is an
/// error.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub fn decode_f32(buf: &[u8], limit: usize, out: &mut Vec<f32>) -> DResult<()> {
    fixed(buf, limit, out)
}
/// Decode PLAIN DOUBLE values (big-endian), appended to `out`; more than `limit` values in all is an
/// error.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub fn decode_f64(buf: &[u8], limit: usize, out: &mut Vec<f64>) -> DResult<()> {
    fixed(buf, limit, out)
}

/// Decode PLAIN byte strings (svarint length, bytes) into `offsets` (each value's end)
/// and `data`; more than `limit` values in all is an error.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub fn decode_bytes(
    buf: &[u8],
    limit: usize,
    offsets: &mut Vec<u32>,
    data: &mut Vec<u8>,
) -> DResult<()> {
    let mut pos = 0;
    data.reserve(buf.len());
    while pos < buf.len() {
        let at = pos;
        let len =
            unzigzag32(uvarint(buf, &mut pos).ok_or_else(|| derr(at, "truncated length varint"))?);
        if len < 0 || pos + len as usize > buf.len() {
            return Err(derr(
                at,
                format!(
                    "value length {len} exceeds the {} bytes left",
                    buf.len() - pos
                ),
            ));
        }
        if offsets.len() > limit {
            return Err(super::limit_err(at, limit));
        }
        data.extend_from_slice(&buf[pos..pos + len as usize]);
        pos += len as usize;
        offsets.push(data.len() as u32);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn plain_values() {
        let mut v = vec![];
        decode_i32(&[0x02, 0x01, 0x80, 0x01], 10, &mut v).unwrap();
        assert_eq!(v, vec![1, -1, 64]);
        let mut l = vec![];
        decode_i64(&[0, 0, 0, 0, 0, 0, 1, 0], 10, &mut l).unwrap();
        assert_eq!(l, vec![256]);
        assert!(decode_i64(&[0; 9], 10, &mut l).is_err());
        let (mut o, mut d) = (vec![0u32], vec![]);
        decode_bytes(&[0x04, b'h', b'i', 0x00], 10, &mut o, &mut d).unwrap();
        assert_eq!((o, d), (vec![0, 2, 2], b"hi".to_vec()));
        assert!(decode_i32(&[0x80], 10, &mut v).is_err());
        assert!(decode_i32(&[2, 2, 2], 1, &mut vec![]).is_err());
        let e = decode_i32(&[2; 20], 10, &mut vec![]).unwrap_err();
        assert_eq!(e.pos, 10);
        let mut v = vec![];
        decode_i32(&[2; 20], 20, &mut v).unwrap();
        assert_eq!(v, vec![1; 20]);
        // The 8-byte path agrees with the general reader for every length and value.
        let mut x: u64 = 99;
        for round in 0..2000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut buf = vec![];
            let mut want = vec![];
            for k in 0..12 {
                let v = (x >> (k * 5 + round % 7)) as i32 >> (k % 31);
                want.push(v);
                let mut u = ((v << 1) ^ (v >> 31)) as u32;
                loop {
                    let b = (u & 0x7f) as u8;
                    u >>= 7;
                    if u == 0 {
                        buf.push(b);
                        break;
                    }
                    buf.push(b | 0x80);
                }
            }
            let mut got = vec![];
            decode_i32(&buf, 100, &mut got).unwrap();
            assert_eq!(got, want);
        }
        // A 5th byte keeps only its low 4 bits; over-long varints still decode.
        let mut got = vec![];
        decode_i32(&[0xff, 0xff, 0xff, 0xff, 0x7f, 2, 2, 2, 2], 100, &mut got).unwrap();
        assert_eq!(got, vec![unzigzag32(u32::MAX), 1, 1, 1, 1]);
        let mut got = vec![];
        decode_i32(
            &[0x82, 0x80, 0x80, 0x80, 0x80, 0x00, 2, 2, 2, 2],
            100,
            &mut got,
        )
        .unwrap();
        assert_eq!(got, vec![1, 1, 1, 1, 1]);
    }
}
