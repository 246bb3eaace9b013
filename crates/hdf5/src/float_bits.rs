//! Floating-point layouts other than IEEE binary16/32/64 (the datatype message's sign,
//! exponent and mantissa fields): numpy's 16-byte long double (x87 80-bit extended),
//! bfloat16, N-bit floats. Each value is read as Float64 when it converts exactly; any
//! other value is an `Unsupported` error naming the precision loss, never a rounding.

use arrowsmith_core::Result;

use crate::io::{unsupported, Cur};

/// Where a float's fields sit, as the datatype message gives them. Positions are bits of
/// the element counted from its least significant bit (libhdf5 keeps them absolute: the
/// bit offset shifts them too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloatBits {
    pub sign: u8,
    pub exp_pos: u8,
    pub exp_size: u8,
    pub mant_pos: u8,
    pub mant_size: u8,
    pub bias: u32,
    /// Mantissa normalization: 0 none, 1 most significant bit stored and set, 2 implied.
    pub norm: u8,
    pub offset: u16,
    pub precision: u16,
}

impl FloatBits {
    /// The properties of a floating-point datatype message (after the size field).
    pub fn parse(c: &mut Cur, bf: u32, size: u32, at: u64) -> Result<FloatBits> {
        let offset = c.u16()?;
        let precision = c.u16()?;
        let exp_pos = c.u8()?;
        let exp_size = c.u8()?;
        let mant_pos = c.u8()?;
        let mant_size = c.u8()?;
        let bias = c.u32()?;
        let f = FloatBits {
            sign: ((bf >> 8) & 0xff) as u8,
            exp_pos,
            exp_size,
            mant_pos,
            mant_size,
            bias,
            norm: ((bf >> 4) & 3) as u8,
            offset,
            precision,
        };
        if size > 16 {
            return Err(unsupported(at, format!("floating point of {size} bytes")));
        }
        let bits = size * 8;
        let inside = |pos: u8, n: u8| pos as u32 + n as u32 <= bits;
        if !inside(exp_pos, exp_size)
            || !inside(mant_pos, mant_size)
            || f.sign as u32 >= bits
            || exp_size == 0
            || exp_size > 32
            || mant_size == 0
            || mant_size > 112
            || offset as u32 + precision as u32 > bits
        {
            return Err(c.invalid(format!(
                "floating point of {size} bytes with fields outside it (sign {}, exponent {exp_pos}+{exp_size}, mantissa {mant_pos}+{mant_size})",
                f.sign
            )));
        }
        Ok(f)
    }

    /// Whether these are the IEEE 754 fields of a `size`-byte float (the fast paths).
    pub fn is_ieee(&self, size: u32) -> bool {
        let (e, m, b) = match size {
            2 => (5, 10, 15),
            4 => (8, 23, 127),
            8 => (11, 52, 1023),
            _ => return false,
        };
        *self
            == FloatBits {
                sign: (size * 8 - 1) as u8,
                exp_pos: m,
                exp_size: e,
                mant_pos: 0,
                mant_size: m,
                bias: b,
                norm: 2,
                offset: 0,
                precision: (size * 8) as u16,
            }
    }

    pub fn describe(&self) -> String {
        if self.exp_size == 15 && self.mant_size == 64 && self.norm != 2 && self.bias == 16383 {
            return "x87 80-bit extended".into();
        }
        format!(
            "{}-bit: exponent {} bits, mantissa {} bits",
            self.precision, self.exp_size, self.mant_size
        )
    }

    /// The value of one element (its bytes as a little-endian integer) as an f64, or
    /// `None` when f64 cannot hold it exactly.
    pub fn value(&self, x: u128) -> Option<f64> {
        let field = |pos: u8, n: u8| (x >> pos) & ((1u128 << n) - 1);
        let neg = (x >> self.sign) & 1 == 1;
        let exp = field(self.exp_pos, self.exp_size) as u64;
        let mant = field(self.mant_pos, self.mant_size);
        let sign = if neg { -1.0 } else { 1.0 };
        let exp_max = (1u64 << self.exp_size) - 1;
        let implied = self.norm == 2;
        if exp == exp_max {
            // Infinity or NaN; a stored leading bit is not part of the fraction.
            let frac = if implied {
                mant
            } else {
                mant & ((1u128 << (self.mant_size - 1)) - 1)
            };
            return Some(if frac == 0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            });
        }
        // value = significand × 2^e2
        let (significand, e) = if implied {
            if exp == 0 {
                (mant, 1)
            } else {
                (mant | 1u128 << self.mant_size, exp as i64)
            }
        } else {
            (mant, exp.max(1) as i64)
        };
        let frac_bits = self.mant_size as i64 - if implied { 0 } else { 1 };
        let e2 = e - self.bias as i64 - frac_bits;
        exact_f64(neg, significand, e2)
    }
}

/// `±m × 2^e` as an f64 when it is exactly one (at most 53 significant bits, within range).
fn exact_f64(neg: bool, m: u128, e: i64) -> Option<f64> {
    if m == 0 {
        return Some(if neg { -0.0 } else { 0.0 });
    }
    let tz = m.trailing_zeros();
    let m = m >> tz;
    let e = e + tz as i64;
    let len = 128 - m.leading_zeros() as i64;
    let top = e + len - 1; // exponent of the leading bit
    let s = (neg as u64) << 63;
    if len > 53 || top > 1023 {
        return None;
    }
    if top >= -1022 {
        let frac = ((m << (52 - (len - 1))) as u64) & ((1u64 << 52) - 1);
        Some(f64::from_bits(s | ((top + 1023) as u64) << 52 | frac))
    } else if e >= -1074 {
        Some(f64::from_bits(s | (m as u64) << (e + 1074)))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X87: FloatBits = FloatBits {
        sign: 79,
        exp_pos: 64,
        exp_size: 15,
        mant_pos: 0,
        mant_size: 64,
        bias: 16383,
        norm: 0,
        offset: 0,
        precision: 80,
    };

    fn x87(v: f64) -> u128 {
        // f64 → x87 bits (exact), for normal numbers and zero.
        if v == 0.0 {
            return (v.is_sign_negative() as u128) << 79;
        }
        let b = v.to_bits();
        let e = ((b >> 52) & 0x7ff) as i64;
        let frac = b & ((1 << 52) - 1);
        let (m, e) = if e == 0 {
            let p = 63 - frac.leading_zeros() as i64;
            ((frac as u128) << (63 - p), p - 1074)
        } else {
            (((frac | 1 << 52) as u128) << 11, e - 1023)
        };
        ((b >> 63) as u128) << 79 | ((e + 16383) as u128) << 64 | m
    }

    #[test]
    fn x87_values_convert_exactly_or_not_at_all() {
        for v in [
            1.5,
            -2.25,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -0.0,
            3.0e-310,
        ] {
            let got = X87.value(x87(v)).unwrap();
            assert_eq!(got.to_bits(), v.to_bits(), "{v}");
        }
        // One more mantissa bit than f64 holds.
        assert_eq!(X87.value(x87(1.0) | 1 << 10), None);
        // Below f64's smallest subnormal (2^-1075).
        assert_eq!(X87.value((16383u128 - 1075) << 64 | 1 << 63), None);
        // Past f64's range.
        assert_eq!(X87.value((16383u128 + 1024) << 64 | 1 << 63), None);
        assert_eq!(X87.value(0x7fffu128 << 64 | 1 << 63), Some(f64::INFINITY));
        assert!(X87.value(0x7fffu128 << 64 | 3 << 62).unwrap().is_nan());
    }

    #[test]
    fn bfloat16_and_ieee_layouts() {
        let bf16 = FloatBits {
            sign: 15,
            exp_pos: 7,
            exp_size: 8,
            mant_pos: 0,
            mant_size: 7,
            bias: 127,
            norm: 2,
            offset: 0,
            precision: 16,
        };
        assert!(!bf16.is_ieee(2));
        for v in [1.0f32, -3.5, 1e-40, 65536.0] {
            let top = (v.to_bits() >> 16) as u128;
            assert_eq!(
                bf16.value(top),
                Some(f32::from_bits((top as u32) << 16) as f64)
            );
        }
    }
}
