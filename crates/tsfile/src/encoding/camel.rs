//! CAMEL (DOUBLE; the Java writer 2.2+): blocks (one per page) of a zigzag varint bit count,
//! then that many bits, MSB-first: the first value's raw 64 bits, then per value a sign bit
//! and a type bit. Type 1 (decimal): the integer part as a zigzag bit-varint delta, the
//! decimal digit count − 1 (4 bits), a flag, optionally the top mantissa bits of an XOR, and
//! the decimal digits as a zigzag bit-varint; type 0: Gorilla on the magnitude's bits.
//!
//! Values are rebuilt with the float arithmetic of Java's `CamelDecoder` (the writer is lossy
//! where that arithmetic does not round-trip, e.g. NaN after the first value reads as ±0), so
//! the results are Java's, bit for bit.

use super::{bits::BitReader, check_limit, derr, DResult};
use crate::bytes::uvarint;

/// 10^k for k in 1..=15 (exact as f64), the powers Java's decoder divides by.
const POW10: [f64; 15] = [
    1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];
/// Java's `Double.doubleToLongBits` NaN.
const CANONICAL_NAN: u64 = 0x7ff8_0000_0000_0000;

pub(crate) fn decode(buf: &[u8], limit: usize, out: &mut Vec<f64>) -> DResult<()> {
    let mut pos = 0usize;
    while pos < buf.len() {
        let at = pos;
        let z = uvarint(buf, &mut pos).ok_or_else(|| derr(at, "truncated CAMEL block length"))?;
        let bits = (z >> 1) as i32 ^ -((z & 1) as i32);
        if bits <= 0 {
            return Err(derr(at, format!("CAMEL block of {bits} bits")));
        }
        let nbytes = (bits as usize).div_ceil(8);
        let block = buf
            .get(pos..)
            .and_then(|r| r.get(..nbytes))
            .ok_or_else(|| derr(pos, "CAMEL block exceeds the page"))?;
        Block::new(block, pos).run(bits as usize, limit, out)?;
        pos += nbytes;
    }
    Ok(())
}

struct Block<'a> {
    r: BitReader<'a>,
    base: usize,
    /// The previous value's bits (`doubleToLongBits`).
    prev: u64,
    /// The integer part of the last decimal value.
    int_part: i64,
    /// Gorilla's window; `None` until the first new window.
    window: Option<(u32, u32)>,
}

impl<'a> Block<'a> {
    fn new(data: &'a [u8], base: usize) -> Self {
        Block {
            r: BitReader::new(data),
            base,
            prev: 0,
            int_part: 0,
            window: None,
        }
    }

    fn run(mut self, total: usize, limit: usize, out: &mut Vec<f64>) -> DResult<()> {
        let first = f64::from_bits(self.bits(64)?);
        self.int_part = first as i64; // Java's (long) cast: saturating, NaN -> 0
        self.push(first, limit, out)?;
        while self.r.bit_pos() < total {
            let v = self.value()?;
            self.push(v, limit, out)?;
        }
        Ok(())
    }

    fn push(&mut self, v: f64, limit: usize, out: &mut Vec<f64>) -> DResult<()> {
        check_limit(out.len(), 1, limit, self.pos())?;
        out.push(v);
        self.prev = if v.is_nan() {
            CANONICAL_NAN
        } else {
            v.to_bits()
        };
        Ok(())
    }

    fn pos(&self) -> usize {
        self.base + self.r.byte_pos()
    }

    fn bits(&mut self, n: u32) -> DResult<u64> {
        let p = self.pos();
        self.r
            .bits(n)
            .ok_or_else(|| derr(p, "truncated CAMEL block"))
    }

    fn value(&mut self) -> DResult<f64> {
        let negative = self.bits(1)? == 1;
        let v = if self.bits(1)? == 1 {
            let delta = self.varlong()?;
            self.int_part = self.int_part.wrapping_add(delta);
            let (dec, scale) = self.decimal()?;
            let i = self.int_part as f64;
            let m = (i * scale + dec) / scale;
            if self.int_part >= 0 {
                m
            } else {
                -m
            }
        } else {
            self.gorilla()?
        };
        Ok(times_sign(negative, v))
    }

    /// The decimal digits (`Math.round(frac * scale)`) and the scale 10^count.
    fn decimal(&mut self) -> DResult<(f64, f64)> {
        let count = self.bits(4)? as usize + 1;
        let p = self.pos();
        let pow = *POW10
            .get(count - 1)
            .ok_or_else(|| derr(p, format!("CAMEL decimal count {count} exceeds 15")))?;
        let xor = if self.bits(1)? == 1 {
            Some(self.bits(count as u32)? << (52 - count))
        } else {
            None
        };
        let m = self.varlong()? as f64;
        let frac = match xor {
            Some(x) => f64::from_bits(x ^ (m / pow + 1.0).to_bits()) - 1.0,
            None => m / pow,
        };
        Ok((java_round(frac * pow) as f64, pow))
    }

    fn gorilla(&mut self) -> DResult<f64> {
        if self.bits(1)? == 0 {
            return Ok(f64::from_bits(self.prev));
        }
        let p = self.pos();
        let xor = if self.bits(1)? == 0 {
            let (lead, trail) = self
                .window
                .ok_or_else(|| derr(p, "CAMEL reuses a Gorilla window it never set"))?;
            let sig = 64 - lead - trail;
            if sig == 0 {
                return Ok(f64::from_bits(self.prev));
            }
            self.bits(sig)? << trail
        } else {
            let lead = self.bits(6)? as u32;
            let sig = self.bits(6)? as u32 + 1;
            if lead + sig > 64 {
                return Err(derr(p, format!("CAMEL window of {lead} + {sig} bits")));
            }
            let trail = 64 - lead - sig;
            self.window = Some((lead, trail));
            self.bits(sig)? << trail
        };
        self.prev ^= xor;
        Ok(f64::from_bits(self.prev))
    }

    /// A zigzag varint of 7-bit groups, each followed by a "more" bit.
    fn varlong(&mut self) -> DResult<i64> {
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let chunk = self.bits(7)?;
            let more = self.bits(1)? == 1;
            v |= chunk.wrapping_shl(shift);
            shift += 7;
            if !more {
                break;
            }
            if shift >= 64 {
                let p = self.pos();
                return Err(derr(p, "CAMEL varint longer than 64 bits"));
            }
        }
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }
}

/// Java's `sign * v` with `sign` ±1.0: a sign flip, except that a NaN keeps its sign and
/// payload and turns quiet (what the x86-64 JVM's multiply gives; not left to the target's
/// NaN rules).
fn times_sign(negative: bool, v: f64) -> f64 {
    if v.is_nan() {
        f64::from_bits(v.to_bits() | 1 << 51)
    } else if negative {
        -v
    } else {
        v
    }
}

/// Java's `Math.round(double)`: round half up, exactly; NaN -> 0; saturating.
fn java_round(a: f64) -> i64 {
    let bits = a.to_bits() as i64;
    let exp = (bits >> 52) & 0x7ff;
    let shift = (51 + 1023) - exp;
    if shift & -64 == 0 {
        let mut r = (bits & 0x000f_ffff_ffff_ffff) | 0x0010_0000_0000_0000;
        if bits < 0 {
            r = -r;
        }
        ((r >> shift) + 1) >> 1
    } else {
        a as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_like_java() {
        for (x, want) in [
            (0.5, 1),
            (-0.5, 0),
            (-0.5000000000000001, -1),
            (0.49999999999999994, 0),
            (2.5, 3),
            (-2.5, -2),
            (1e300, i64::MAX),
            (f64::NAN, 0),
            (-1e300, i64::MIN),
        ] {
            assert_eq!(java_round(x), want, "{x}");
        }
    }

    #[test]
    fn refuses_empty_and_truncated_blocks() {
        let mut out = Vec::new();
        assert!(decode(&[0], 10, &mut out).is_err());
        assert!(decode(&[128, 1, 0, 0], 10, &mut out).is_err());
    }
}
