//! PLAIN: BOOLEAN 1 byte, INT32 svarint, INT64/FLOAT/DOUBLE big-endian, bytes svarint-length.

use super::{check_limit, derr, DResult};
use crate::bytes::{unzigzag32, uvarint};
use arrowsmith_core::simd;

pub fn decode_bool(buf: &[u8], limit: usize, out: &mut Vec<bool>) -> DResult<()> {
    check_limit(out.len(), buf.len(), limit, 0)?;
    out.extend(buf.iter().map(|&b| b != 0));
    Ok(())
}

pub fn decode_i32(buf: &[u8], limit: usize, out: &mut Vec<i32>) -> DResult<()> {
    let mut pos = 0;
    // Every value takes at least one byte: reserve once.
    out.reserve(buf.len().min(limit.saturating_sub(out.len())));
    let n = buf.len();
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
    let w = std::mem::size_of::<T>();
    if buf.len() % w != 0 {
        return Err(derr(
            buf.len() - buf.len() % w,
            format!("{} trailing bytes after {w}-byte values", buf.len() % w),
        ));
    }
    check_limit(out.len(), buf.len() / w, limit, 0)?;
    simd::extend_from_be(out, buf);
    Ok(())
}

pub fn decode_i64(buf: &[u8], limit: usize, out: &mut Vec<i64>) -> DResult<()> {
    fixed(buf, limit, out)
}
pub fn decode_f32(buf: &[u8], limit: usize, out: &mut Vec<f32>) -> DResult<()> {
    fixed(buf, limit, out)
}
pub fn decode_f64(buf: &[u8], limit: usize, out: &mut Vec<f64>) -> DResult<()> {
    fixed(buf, limit, out)
}

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
    }
}
