//! TS_2DIFF: blocks of `[n:i32][w:i32][minDelta][first][n w-bit deltas, MSB-first]`.
//! A whole block is unpacked at a time; `w == 0` blocks become an arithmetic progression.

#![allow(unsafe_code)] // values written into reserved output before `set_len`

use super::{
    bits::{peek, with_be_words},
    check_limit, derr,
    word::Int,
    DResult,
};

/// Decode every block of `buf` into `out`, refusing more than `limit` values in all.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub(crate) fn decode<I: Int>(buf: &[u8], limit: usize, out: &mut Vec<I>) -> DResult<()> {
    prefix(buf, limit, usize::MAX, out)
}

/// [`decode`] that stops after the block in which `out` reaches `stop` values.
pub(crate) fn prefix<I: Int>(
    buf: &[u8],
    limit: usize,
    stop: usize,
    out: &mut Vec<I>,
) -> DResult<()> {
    let bytes = (I::BITS / 8) as usize;
    with_be_words(buf, |words| {
        let mut pos = 0usize;
        while pos < buf.len() && out.len() < stop {
            let at = pos;
            let hdr = 8 + 2 * bytes;
            if buf.len() - pos < hdr {
                return Err(derr(
                    at,
                    format!(
                        "TS_2DIFF block header needs {hdr} bytes, {} left",
                        buf.len() - pos
                    ),
                ));
            }
            let n = i32::from_be_bytes(buf[pos..pos + 4].try_into().unwrap());
            let w = i32::from_be_bytes(buf[pos + 4..pos + 8].try_into().unwrap());
            let min_delta = I::from_be(&buf[pos + 8..pos + 8 + bytes]);
            let first = I::from_be(&buf[pos + 8 + bytes..pos + hdr]);
            pos += hdr;
            if n < 0 || !(0..=I::BITS as i32).contains(&w) {
                return Err(derr(
                    at,
                    format!("TS_2DIFF block with {n} deltas of width {w}"),
                ));
            }
            let (n, w) = (n as usize, w as u32);
            let packed = (n as u64 * w as u64).div_ceil(8);
            if ((buf.len() - pos) as u64) < packed {
                return Err(derr(
                    pos,
                    format!(
                        "TS_2DIFF block of {n} deltas × {w} bits needs {packed} bytes, {} left",
                        buf.len() - pos
                    ),
                ));
            }
            let packed = packed as usize;
            check_limit(out.len(), n + 1, limit, at)?;
            out.reserve(n + 1);
            let at = out.len();
            let dst = &mut out.spare_capacity_mut()[..n + 1];
            dst[0].write(first);
            let mut prev = first;
            if w == 0 {
                for d in dst[1..].iter_mut() {
                    prev = prev.wrapping_add(min_delta);
                    d.write(prev);
                }
            } else {
                // Bit windows from the pre-swapped words (any width 1..=64).
                let shift = 64 - w;
                let mut bp = pos * 8;
                for d in dst[1..].iter_mut() {
                    let x = I::from_bits(peek(words, bp) >> shift);
                    bp += w as usize;
                    prev = prev.wrapping_add(min_delta).wrapping_add(x);
                    d.write(prev);
                }
            }
            // SAFETY: all n + 1 reserved slots were written above.
            unsafe { out.set_len(at + n + 1) };
            pos += packed;
        }
        Ok(())
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A test encoder (block size `bs`) to round-trip against.
    pub fn encode_i64(vals: &[i64], bs: usize) -> Vec<u8> {
        let mut out = vec![];
        for block in vals.chunks(bs + 1) {
            let deltas: Vec<i64> = block.windows(2).map(|w| w[1].wrapping_sub(w[0])).collect();
            let min = deltas.iter().copied().min().unwrap_or(i64::MAX);
            let ds: Vec<u64> = deltas.iter().map(|d| d.wrapping_sub(min) as u64).collect();
            let w = ds.iter().map(|d| 64 - d.leading_zeros()).max().unwrap_or(0);
            out.extend((deltas.len() as i32).to_be_bytes());
            out.extend((w as i32).to_be_bytes());
            out.extend(min.to_be_bytes());
            out.extend(block[0].to_be_bytes());
            let mut bitbuf: u128 = 0;
            let mut nb = 0;
            for d in ds {
                bitbuf = (bitbuf << w) | d as u128;
                nb += w;
                while nb >= 8 {
                    nb -= 8;
                    out.push((bitbuf >> nb) as u8);
                }
            }
            if nb > 0 {
                out.push((bitbuf << (8 - nb)) as u8);
            }
        }
        out
    }

    #[test]
    fn prefix_stops_after_its_block() {
        let vals: Vec<i64> = (0..1000i64).map(|i| i * i % 977 - 300).collect();
        let enc = encode_i64(&vals, 128);
        let mut v = vec![];
        prefix::<i64>(&enc, 2000, 200, &mut v).unwrap();
        assert_eq!(v, vals[..258]); // two blocks of 1 + 128 values
        let mut v = vec![];
        prefix::<i64>(&enc, 2000, usize::MAX, &mut v).unwrap();
        assert_eq!(v, vals);
    }

    #[test]
    fn verified_bytes() {
        let mut b = vec![0, 0, 0, 9, 0, 0, 0, 0];
        b.extend(10i64.to_be_bytes());
        b.extend(1000i64.to_be_bytes());
        let mut v = vec![];
        decode::<i64>(&b, 100, &mut v).unwrap();
        assert_eq!(v, (0..10).map(|i| 1000 + 10 * i).collect::<Vec<_>>());
        assert!(decode::<i64>(&b, 5, &mut vec![]).is_err());
        assert!(decode::<i64>(&b[..20], 100, &mut vec![]).is_err());
    }

    #[test]
    fn round_trip() {
        let mut x: u64 = 12345;
        let mut vals = vec![];
        for i in 0..1000i64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            vals.push(match i % 3 {
                0 => i * 7,
                1 => (x >> 20) as i64,
                _ => x as i64,
            });
        }
        for bs in [1, 7, 128] {
            let enc = encode_i64(&vals, bs);
            let mut v = vec![];
            decode::<i64>(&enc, 10_000, &mut v).unwrap();
            assert_eq!(v, vals);
        }
    }

    #[test]
    fn round_trip_narrow_widths() {
        // Every delta width 1..=33 (the two-per-window path and its odd tail).
        let mut x: u64 = 777;
        for k in 1..=33u32 {
            let mut vals = vec![-5i64];
            for _ in 0..300 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let d = ((x >> 11) & ((1u64 << k) - 1)) as i64 - 3;
                vals.push(vals.last().unwrap().wrapping_add(d));
            }
            for bs in [1, 2, 7, 128, 129] {
                let enc = encode_i64(&vals, bs);
                let mut v = vec![];
                decode::<i64>(&enc, 10_000, &mut v).unwrap();
                assert_eq!(v, vals, "width {k} block {bs}");
            }
        }
    }

    #[test]
    fn i32_block() {
        // n=2, w=2, min=1, first=5, deltas packed 0b01_10_0000 -> values 5, 7, 10
        let b = [0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 5, 0b0110_0000];
        let mut v = vec![];
        decode::<i32>(&b, 10, &mut v).unwrap();
        assert_eq!(v, vec![5, 7, 10]);
    }
}
