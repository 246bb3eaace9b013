//! GORILLA_V1 (FLOAT, DOUBLE; the Java writers 0.13–2.x): the first value as raw
//! little-endian bits, then per value a control code, MSB-first: `0` the previous value
//! again, `10` the XOR's bits inside the *previous value's* leading/trailing-zero window,
//! `11` the XOR's leading zeros (5 bits FLOAT, 6 DOUBLE), its length (6 / 7 bits) and bits.
//! The writer ends each page with the canonical NaN and pads to a byte.
//!
//! Like Java's `SinglePrecisionDecoderV1` / `DoublePrecisionDecoderV1` driven by the page's
//! count, value pages decode exactly `count` values. Streams without a known count stop after
//! the first NaN (the marker; Java's decoder stops there too).

use super::{bits::BitReader, check_limit, derr, word::Word, DResult};

pub(crate) fn decode<W: Word>(
    buf: &[u8],
    limit: usize,
    exact: bool,
    out: &mut Vec<W>,
) -> DResult<()> {
    let width = W::BITS;
    let nbytes = (width / 8) as usize;
    if buf.is_empty() || exact && out.len() >= limit {
        return Ok(());
    }
    let first = buf
        .get(..nbytes)
        .ok_or_else(|| derr(0, "GORILLA_V1 stream shorter than its first value"))?;
    let mut v = first
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    let (lead_bits, len_bits) = if width == 32 { (5, 6) } else { (6, 7) };
    let mut r = BitReader::new(&buf[nbytes..]);
    let at = |r: &BitReader| nbytes + r.byte_pos();
    let short = |r: &BitReader| derr(at(r), "truncated GORILLA_V1 stream");
    loop {
        check_limit(out.len(), 1, limit, at(&r))?;
        out.push(W::from_bits(v));
        let is_nan = if width == 32 {
            f32::from_bits(v as u32).is_nan()
        } else {
            f64::from_bits(v).is_nan()
        };
        if if exact { out.len() == limit } else { is_nan } {
            return Ok(());
        }
        // The window of the previous value, not of the previous XOR.
        let (lead, trail) = if width == 32 {
            ((v as u32).leading_zeros(), (v as u32).trailing_zeros())
        } else {
            (v.leading_zeros(), v.trailing_zeros())
        };
        if !r.bit().ok_or_else(|| short(&r))? {
            continue;
        }
        let xor = if !r.bit().ok_or_else(|| short(&r))? {
            // A previous value of 0 has no window (Java's shift by the width is one by 0 of
            // no bits): the XOR is 0.
            let n = width.saturating_sub(lead + trail);
            let bits = r.bits(n).ok_or_else(|| short(&r))?;
            if n == 0 {
                0
            } else {
                bits << trail
            }
        } else {
            let lz = r.bits(lead_bits).ok_or_else(|| short(&r))? as u32;
            let len = r.bits(len_bits).ok_or_else(|| short(&r))? as u32;
            if lz + len > width {
                return Err(derr(
                    at(&r),
                    format!("GORILLA_V1 window of {lz} + {len} bits exceeds {width}"),
                ));
            }
            let bits = r.bits(len).ok_or_else(|| short(&r))?;
            if len == 0 {
                0
            } else {
                bits << (width - lz - len)
            }
        };
        v ^= xor;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bits MSB-first into bytes, zero-padded.
    fn pack(bits: &[(u64, u32)]) -> Vec<u8> {
        let mut out = Vec::new();
        let (mut acc, mut n) = (0u8, 0);
        for &(v, w) in bits {
            for i in (0..w).rev() {
                acc = (acc << 1) | ((v >> i) & 1) as u8;
                n += 1;
                if n == 8 {
                    out.push(acc);
                    (acc, n) = (0, 0);
                }
            }
        }
        if n > 0 {
            out.push(acc << (8 - n));
        }
        out
    }

    #[test]
    fn a_zero_value_has_an_empty_window() {
        // 0.0 (no leading/trailing window), then `10` (the XOR in that window: no bits),
        // then `0`: three zeros, and no shift by the whole width.
        let mut s = 0.0f64.to_bits().to_le_bytes().to_vec();
        s.extend(pack(&[(0b10, 2), (0, 1)]));
        let mut out: Vec<f64> = Vec::new();
        decode(&s, 3, true, &mut out).unwrap();
        assert_eq!(out, [0.0, 0.0, 0.0]);
    }

    #[test]
    fn repeats_and_windows() {
        // 1.0f, 1.0f (`0`), -1.0f (XOR 0x80000000: `11`, 0 leading, 1 bit `1`), then 1.0f
        // in -1.0f's window (`10`: bits 31..23 of the XOR, 100000000).
        let mut s = 1.0f32.to_bits().to_le_bytes().to_vec();
        s.extend(pack(&[
            (0, 1),
            (0b11, 2),
            (0, 5),
            (1, 6),
            (1, 1),
            (0b10, 2),
            (0x100, 9),
        ]));
        let mut out: Vec<f32> = Vec::new();
        decode(&s, 4, true, &mut out).unwrap();
        assert_eq!(out, [1.0, 1.0, -1.0, 1.0]);
        // Without a count, it stops at NaN only: here the stream runs out first.
        out.clear();
        assert!(decode(&s, 10, false, &mut out).is_err());
    }

    #[test]
    fn refuses_bad_window() {
        let mut s = 1.0f64.to_bits().to_le_bytes().to_vec();
        s.extend(pack(&[(0b11, 2), (60, 6), (10, 7), (0, 10)]));
        let mut out: Vec<f64> = Vec::new();
        assert!(decode(&s, 2, true, &mut out).is_err());
    }
}
