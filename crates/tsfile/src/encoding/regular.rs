//! REGULAR (INT32, INT64, DATE, TIMESTAMP; the Java writers 0.13–2.1): a series of constant
//! step, in blocks of up to 128 points. Each block, big-endian: a flag byte (1: points are
//! missing), then if missing a bitmap (`i32` length, `java.util.BitSet` bytes: bit k of the
//! block at byte k/8, LSB first), the `i32` point count n, the step and the first value. The
//! block's values are `first + k·step` for k in 0..n (wrapping); with the bitmap, only k = 0
//! and the k whose bit is set (like Java's `RegularDataDecoder`; the writer always sets the
//! last one).
//!
//! The writer takes the smallest step between consecutive points, so a series whose steps
//! are not all multiples of it is stored wrongly (Java's reader returns the wrong points); such
//! a block usually holds more or fewer points than its page, which the caller refuses.

use super::{check_limit, derr, word::Int, DResult};

pub(crate) fn decode<W: Int>(buf: &[u8], limit: usize, out: &mut Vec<W>) -> DResult<()> {
    let width = (W::BITS / 8) as usize;
    let mut pos = 0usize;
    while pos < buf.len() {
        let missing = buf[pos] == 1;
        pos += 1;
        let bitmap = if missing {
            let len = be_i32(buf, &mut pos)?;
            let len = usize::try_from(len)
                .map_err(|_| derr(pos - 4, format!("negative REGULAR bitmap length {len}")))?;
            let b = buf
                .get(pos..)
                .and_then(|r| r.get(..len))
                .ok_or_else(|| derr(pos, "REGULAR bitmap exceeds the page"))?;
            pos += len;
            Some(b)
        } else {
            None
        };
        let at = pos;
        let n = be_i32(buf, &mut pos)?;
        let min_n = if missing { 2 } else { 1 };
        if n < min_n {
            return Err(derr(at, format!("REGULAR block of {n} points")));
        }
        let n = n as usize;
        let head = buf
            .get(pos..pos + 2 * width)
            .ok_or_else(|| derr(pos, "truncated REGULAR block header"))?;
        let step = W::from_be(&head[..width]);
        let first = W::from_be(&head[width..]);
        pos += 2 * width;
        match bitmap {
            None => {
                check_limit(out.len(), n, limit, at)?;
                out.reserve(n);
                let mut v = first;
                out.push(v);
                for _ in 1..n {
                    v = v.wrapping_add(step);
                    out.push(v);
                }
            }
            Some(bits) => {
                // Java's decoder needs the last point's bit; without it, it reads past the block.
                let last = n - 1;
                if bits.get(last / 8).is_none_or(|b| b >> (last % 8) & 1 == 0) {
                    return Err(derr(
                        at,
                        "REGULAR bitmap does not mark the block's last point",
                    ));
                }
                check_limit(out.len(), 1, limit, at)?;
                out.push(first);
                // Set bits, k in 1..n: walk the bytes (bounded by the page), not n.
                let mut v = first;
                let mut prev = 0usize;
                for (i, &byte) in bits[..=last / 8].iter().enumerate() {
                    let mut b = byte;
                    while b != 0 {
                        let k = i * 8 + b.trailing_zeros() as usize;
                        b &= b - 1;
                        if k == 0 || k > last {
                            continue;
                        }
                        check_limit(out.len(), 1, limit, at)?;
                        v = v.wrapping_add(step_times(step, k - prev));
                        prev = k;
                        out.push(v);
                    }
                }
            }
        }
    }
    Ok(())
}

/// `step · k`, wrapping (k < 2^31).
fn step_times<W: Int>(step: W, k: usize) -> W {
    W::from_i64(step.to_i64().wrapping_mul(k as i64))
}

fn be_i32(buf: &[u8], pos: &mut usize) -> DResult<i32> {
    let b = buf
        .get(*pos..*pos + 4)
        .ok_or_else(|| derr(*pos, "truncated REGULAR block"))?;
    *pos += 4;
    Ok(i32::from_be_bytes(b.try_into().unwrap()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(missing: Option<&[u8]>, n: i32, step: i32, first: i32) -> Vec<u8> {
        let mut b = vec![missing.is_some() as u8];
        if let Some(m) = missing {
            b.extend((m.len() as i32).to_be_bytes());
            b.extend(m);
        }
        b.extend(n.to_be_bytes());
        b.extend(step.to_be_bytes());
        b.extend(first.to_be_bytes());
        b
    }

    #[test]
    fn regular_and_missing() {
        let mut s = block(None, 3, 5, i32::MAX);
        // 0b1011_0111: k = 0,1,2,4,5,7 of 8 points; 3 and 6 missing.
        s.extend(block(Some(&[0b1011_0111]), 8, 10, 100));
        let mut out: Vec<i32> = Vec::new();
        decode(&s, 100, &mut out).unwrap();
        assert_eq!(
            out,
            [
                i32::MAX,
                i32::MIN + 4,
                i32::MIN + 9,
                100,
                110,
                120,
                140,
                150,
                170
            ]
        );
        out.clear();
        assert!(decode(&s, 5, &mut out).is_err());
    }

    #[test]
    fn refuses_broken_blocks() {
        let mut out: Vec<i64> = Vec::new();
        let mut s = vec![0u8];
        s.extend(0i32.to_be_bytes());
        s.extend([0; 16]);
        assert!(decode(&s, 10, &mut out).is_err());
        // A bitmap without the last point.
        let s = block(Some(&[0b0000_0011]), 4, 1, 0);
        let mut out: Vec<i32> = Vec::new();
        assert!(decode(&s, 10, &mut out).is_err());
        // A huge count is refused by the limit before any allocation.
        let s = block(None, i32::MAX, 1, 0);
        assert!(decode(&s, 1000, &mut out).is_err());
    }
}
