//! ZIGZAG: repeated `[uvarint byteLen][uvarint count][count zigzag LEB128 varints]`.

use super::{check_limit, derr, word::Int, DResult};
use crate::bytes::{unzigzag64, uvarint, uvarint64};

fn decode_varints(buf: &[u8], limit: usize, cur: usize, mut emit: impl FnMut(i64)) -> DResult<()> {
    let mut pos = 0;
    let mut n = cur;
    while pos < buf.len() {
        let at = pos;
        let len = uvarint(buf, &mut pos).ok_or_else(|| derr(at, "truncated ZIGZAG group length"))?
            as usize;
        let count = uvarint(buf, &mut pos)
            .ok_or_else(|| derr(at, "truncated ZIGZAG group count"))? as usize;
        if buf.len() - pos < len {
            return Err(derr(
                at,
                format!("ZIGZAG group of {len} bytes, {} left", buf.len() - pos),
            ));
        }
        if count > len {
            return Err(derr(
                at,
                format!("ZIGZAG group claims {count} values in {len} bytes"),
            ));
        }
        check_limit(n, count, limit, at)?;
        let group = &buf[pos..pos + len];
        let mut p = 0;
        for _ in 0..count {
            let u =
                uvarint64(group, &mut p).ok_or_else(|| derr(pos + p, "truncated ZIGZAG varint"))?;
            emit(unzigzag64(u));
        }
        n += count;
        pos += len;
    }
    Ok(())
}

/// Decode every group of `buf` into `out` (INT32 values truncated, as Java casts them),
/// refusing more than `limit` values in all.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub(crate) fn decode<I: Int>(buf: &[u8], limit: usize, out: &mut Vec<I>) -> DResult<()> {
    let cur = out.len();
    decode_varints(buf, limit, cur, |v| out.push(I::from_i64(v)))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn groups() {
        let b = [3u8, 3, 0x02, 0x01, 0x03, 1, 1, 0x80 - 0x7f];
        let mut v = vec![];
        decode::<i64>(&b, 10, &mut v).unwrap();
        assert_eq!(v, vec![1, -1, -2, -1]);
        assert!(decode::<i64>(&[5, 1, 0], 10, &mut vec![]).is_err());
    }

    #[test]
    fn round_trip() {
        let vals: Vec<i64> = vec![0, 1, -1, i64::MAX, i64::MIN, 123456789, -987654321];
        let mut body = vec![];
        for &v in &vals {
            let mut u = ((v << 1) ^ (v >> 63)) as u64;
            while u >= 0x80 {
                body.push(u as u8 | 0x80);
                u >>= 7;
            }
            body.push(u as u8);
        }
        let mut b = vec![body.len() as u8, vals.len() as u8];
        b.extend(body);
        let mut got = vec![];
        decode::<i64>(&b, 100, &mut got).unwrap();
        assert_eq!(got, vals);
        let mut got32 = vec![];
        decode::<i32>(&b[..2 + 3], 100, &mut got32).unwrap_err();
    }
}
