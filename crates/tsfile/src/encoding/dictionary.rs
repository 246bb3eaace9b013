//! DICTIONARY (TEXT/STRING): `svarint n`, n × (svarint len + bytes), then an INT32 RLE
//! stream of indexes.

use super::{derr, rle, DResult};
use crate::bytes::{unzigzag32, uvarint};

/// Decode a DICTIONARY stream into `offsets` (each value's end) and `data`; more than
/// `limit` values in all is an error.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub fn decode(buf: &[u8], limit: usize, offsets: &mut Vec<u32>, data: &mut Vec<u8>) -> DResult<()> {
    let mut pos = 0;
    let n = unzigzag32(uvarint(buf, &mut pos).ok_or_else(|| derr(0, "truncated dictionary size"))?);
    if n < 0 || n as usize > buf.len() {
        return Err(derr(
            0,
            format!("dictionary size {n} is impossible in {} bytes", buf.len()),
        ));
    }
    let mut dict: Vec<(usize, usize)> = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let at = pos;
        let len = unzigzag32(
            uvarint(buf, &mut pos).ok_or_else(|| derr(at, "truncated dictionary entry"))?,
        );
        if len < 0 || buf.len() - pos < len as usize {
            return Err(derr(
                at,
                format!("dictionary entry of {len} bytes, {} left", buf.len() - pos),
            ));
        }
        dict.push((pos, len as usize));
        pos += len as usize;
    }
    let mut idx = Vec::new();
    rle::decode::<i32>(
        &buf[pos..],
        limit.saturating_sub(offsets.len() - 1),
        &mut idx,
    )
    .map_err(|e| derr(e.pos + pos, e.msg))?;
    offsets.reserve(idx.len());
    for &i in &idx {
        let &(s, l) = dict
            .get(i as usize)
            .ok_or_else(|| derr(pos, format!("dictionary index {i} ≥ size {n}")))?;
        data.extend_from_slice(&buf[s..s + l]);
        offsets.push(data.len() as u32);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn dict() {
        // 2 entries "a","bc"; indexes via RLE: width 1, bit-packed 1 group of 3 valid: 1,0,1
        let mut b = vec![4u8, 2, b'a', 4, b'b', b'c'];
        b.extend([4, 1, 3, 3, 0b1010_0000]);
        let (mut o, mut d) = (vec![0u32], vec![]);
        decode(&b, 10, &mut o, &mut d).unwrap();
        assert_eq!(o, vec![0, 2, 3, 5]);
        assert_eq!(d, b"bcabc");
    }
}
