//! The FLOAT/DOUBLE wrapper around TS_2DIFF and RLE integer streams (`FloatDecoder`).
//!
//! Page = `uvarint tag`; tag 0x7FFFFFFF / 0x7FFFFFFE introduce the overflow forms with
//! `uvarint count`, LSB-first bitmaps of `count/8+1` bytes and then `uvarint maxPointNumber`;
//! otherwise tag is `maxPointNumber`. Then the inner INT32 (FLOAT) / INT64 (DOUBLE) stream.

use super::{
    derr, rle, ts2diff,
    word::{Float, Int, Word},
    DResult,
};
use crate::bytes::uvarint;
use crate::types::Encoding;

const FORM2: u32 = 0x7FFF_FFFF;
const FORM3: u32 = 0x7FFF_FFFE;

struct Header<'a> {
    mpn: u32,
    scaled: Option<&'a [u8]>,
    raw: Option<&'a [u8]>,
    count: usize,
    body: usize,
}

fn header(buf: &[u8]) -> DResult<Header<'_>> {
    let mut pos = 0;
    let tag = uvarint(buf, &mut pos).ok_or_else(|| derr(0, "truncated float header"))?;
    if tag == FORM2 || tag == FORM3 {
        let count = uvarint(buf, &mut pos)
            .ok_or_else(|| derr(pos, "truncated float value count"))? as usize;
        let bm = count / 8 + 1;
        let nbm = if tag == FORM3 { 2 } else { 1 };
        if buf.len() - pos < bm * nbm {
            return Err(derr(
                pos,
                format!(
                    "float overflow bitmaps need {} bytes, {} left",
                    bm * nbm,
                    buf.len() - pos
                ),
            ));
        }
        let scaled = &buf[pos..pos + bm];
        pos += bm;
        let raw = if tag == FORM3 {
            let r = &buf[pos..pos + bm];
            pos += bm;
            Some(r)
        } else {
            None
        };
        let mpn = uvarint(buf, &mut pos).ok_or_else(|| derr(pos, "truncated maxPointNumber"))?;
        Ok(Header {
            mpn,
            scaled: Some(scaled),
            raw,
            count,
            body: pos,
        })
    } else {
        Ok(Header {
            mpn: tag,
            scaled: None,
            raw: None,
            count: usize::MAX,
            body: pos,
        })
    }
}

/// Checks the page's declared count against the decoded stream; returns the decimal
/// divisor `10^mpn` (1 when the values are not scaled).
fn divisor(h: &Header, decoded: usize, kind: &str) -> DResult<f64> {
    if h.count != usize::MAX && decoded < h.count {
        return Err(derr(
            h.body,
            format!(
                "{kind} page declares {} values, stream holds {decoded}",
                h.count
            ),
        ));
    }
    Ok(if h.mpn == 0 {
        1.0
    } else {
        10f64.powi(h.mpn.min(400) as i32)
    })
}

#[inline]
fn bit(bm: &[u8], p: usize) -> bool {
    bm.get(p / 8).is_some_and(|b| b >> (p % 8) & 1 == 1)
}

/// Decode a FLOAT (inner INT32 stream) or DOUBLE (inner INT64) page of `enc` (TS_2DIFF or
/// RLE) into `out`, refusing more than `limit` values in all.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub(crate) fn decode<W: Float>(
    enc: Encoding,
    buf: &[u8],
    limit: usize,
    out: &mut Vec<W>,
) -> DResult<()> {
    let h = header(buf)?;
    let mut ints: Vec<W::Int> = Vec::new();
    let body = &buf[h.body..];
    let r = if enc == Encoding::Rle {
        rle::decode(body, limit, &mut ints)
    } else {
        ts2diff::decode(body, limit, &mut ints)
    };
    r.map_err(|e| derr(e.pos + h.body, e.msg))?;
    let kind = if W::BITS == 32 { "float" } else { "double" };
    let div = divisor(&h, ints.len(), kind)?;
    out.reserve(ints.len());
    for (p, &i) in ints.iter().enumerate() {
        let v = if h.raw.is_some_and(|r| bit(r, p)) {
            W::from_bits(i.to_bits())
        } else if h.scaled.is_none_or(|s| bit(s, p)) {
            // Java: (float) (value / Math.pow(10, mpn)) in double arithmetic.
            W::from_f64(i.to_i64() as f64 / div)
        } else {
            // Exact for INT32 (one rounding, as `i as f32`).
            W::from_f64(i.to_i64() as f64)
        };
        out.push(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn form1_double() {
        let mut b = vec![2u8]; // mpn 2
        b.extend(ts2diff::tests::encode_i64(&[125, -3, 100000], 128));
        let mut v = vec![];
        decode::<f64>(Encoding::Ts2Diff, &b, 10, &mut v).unwrap();
        assert_eq!(v, vec![1.25, -0.03, 1000.0]);
    }
}
