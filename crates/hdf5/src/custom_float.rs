//! Floating-point datatypes whose fields are not IEEE 754's (as `H5Tset_fields`,
//! `H5Tset_precision` and `H5Tset_ebias` make them, e.g. the 20-bit floats written with the
//! N-bit filter; numpy's 16-byte long double, x87 80-bit extended; bfloat16): each value is rebuilt from its sign bit, exponent and mantissa fields as
//! libhdf5's float conversion does, then widened to Float32 when every value of the type
//! fits one exactly, else to Float64; a value Float64 cannot hold exactly is an error.

use arrowsmith_core::{Buffer, Column, DataType, Result};

use crate::io::{invalid, unsupported};

/// Mantissa normalization (bits 4–5 of the float class bit field).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Norm {
    /// No implied bit: the mantissa is the significand, as stored.
    None,
    /// The significand's leading 1 is not stored (IEEE).
    Implied,
    /// The leading 1 is stored: libhdf5 converts no such float ("normalization method not
    /// implemented"), so neither do we (its values are an `unsupported` error).
    MsbSet,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CustomFloat {
    pub size: u32,
    pub be: bool,
    pub sign: u8,
    pub epos: u8,
    pub esize: u8,
    pub mpos: u8,
    pub msize: u8,
    pub bias: u32,
    pub norm: Norm,
}

/// IEEE 754 binary16/32/64 fields: (size, sign, epos, esize, msize, bias).
const IEEE: [(u32, u8, u8, u8, u8, u32); 3] = [
    (2, 15, 10, 5, 10, 15),
    (4, 31, 23, 8, 23, 127),
    (8, 63, 52, 11, 52, 1023),
];

impl CustomFloat {
    /// The float class's bit field `bf` and properties (bit offset, precision, exponent
    /// location and size, mantissa location and size, bias) of a `size`-byte float at `at`:
    /// `None` when they are IEEE's (the plain path reads those), else the custom type.
    pub fn parse(at: u64, size: u32, bf: u32, props: &[u8]) -> Result<Option<CustomFloat>> {
        let u16_at = |i: usize| u16::from_le_bytes([props[i], props[i + 1]]);
        let (offset, precision) = (u16_at(0), u16_at(2));
        let (epos, esize, mpos, msize) = (props[4], props[5], props[6], props[7]);
        let bias = u32::from_le_bytes(props[8..12].try_into().unwrap());
        let sign = (bf >> 8) as u8;
        let norm = (bf >> 4) & 3;
        let ieee = IEEE.iter().any(|&(s, sg, ep, es, ms, b)| {
            (s, sg, ep, es, mpos, ms, b) == (size, sign, epos, esize, 0, msize, bias)
        }) && norm == 2
            && offset == 0
            && precision as u32 == size * 8;
        if ieee {
            return Ok(None);
        }
        let bits = size * 8;
        let within = |pos: u8, len: u8| pos as u32 + len as u32 <= bits;
        if size > 16
            || esize == 0
            || esize > 32
            || msize == 0
            || msize > 112
            || !within(epos, esize)
            || !within(mpos, msize)
            || sign as u32 >= bits
        {
            return Err(invalid(
                at,
                format!(
                    "floating point of {size} bytes with sign bit {sign}, exponent {esize} bits at \
                     {epos}, mantissa {msize} bits at {mpos}"
                ),
            ));
        }
        let norm = match norm {
            0 => Norm::None,
            2 => Norm::Implied,
            1 => Norm::MsbSet,
            n => return Err(invalid(at, format!("floating point normalization {n}"))),
        };
        let overlap =
            |a: u8, n: u8, b: u8, m: u8| a < b.saturating_add(m) && b < a.saturating_add(n);
        if overlap(epos, esize, mpos, msize)
            || overlap(sign, 1, epos, esize)
            || overlap(sign, 1, mpos, msize)
        {
            return Err(invalid(
                at,
                "floating point whose sign, exponent and mantissa fields overlap",
            ));
        }
        if norm == Norm::Implied && msize > 111 {
            // The implied bit would not fit the widest (16-byte) element.
            return Err(invalid(
                at,
                format!("floating point mantissa of {msize} bits"),
            ));
        }
        Ok(Some(CustomFloat {
            size,
            be: bf & 1 != 0,
            sign,
            epos,
            esize,
            mpos,
            msize,
            bias,
            norm,
        }))
    }

    /// Significant bits of a value, and the exponent of the lowest mantissa bit of the
    /// smallest and of the largest finite values (value = m · 2^k, m < 2^bits).
    fn range(&self) -> (u32, i64, i64) {
        let implied = self.norm == Norm::Implied;
        let sig = self.msize as u32 + implied as u32;
        let emax = (1i64 << self.esize) - 2;
        let lo = self.lsb_exp(if implied { 1 } else { 0 });
        (sig, lo, self.lsb_exp(emax))
    }

    /// The exponent of the mantissa's lowest bit at biased exponent `e`.
    fn lsb_exp(&self, e: i64) -> i64 {
        match self.norm {
            Norm::Implied => e - self.bias as i64 - self.msize as i64,
            Norm::None | Norm::MsbSet => e - self.bias as i64 + 1 - self.msize as i64,
        }
    }

    /// Float32 when every value of the type is one exactly, else Float64.
    pub fn arrow_type(&self) -> DataType {
        let (sig, lo, hi) = self.range();
        // f32: 24 significant bits, lowest bit 2^-149, largest value below 2^128.
        if sig <= 24 && lo >= -149 && hi + sig as i64 <= 128 {
            DataType::Float32
        } else {
            DataType::Float64
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "float{}(sign {}, exp {}@{} bias {}, mant {}@{}{}){}",
            self.size * 8,
            self.sign,
            self.esize,
            self.epos,
            self.bias,
            self.msize,
            self.mpos,
            match self.norm {
                Norm::Implied => "",
                Norm::None => " unnormalized",
                Norm::MsbSet => " msb-set",
            },
            if self.be { "be" } else { "le" }
        )
    }

    /// One value from its bits, exactly, as f64 (`None` when f64 cannot hold it).
    fn value(&self, bits: u128) -> Option<f64> {
        let field = |pos: u8, len: u8| (bits >> pos) & (u128::MAX >> (128 - len as u32));
        let neg = (bits >> self.sign) & 1 == 1;
        let e = field(self.epos, self.esize) as i64;
        let m = field(self.mpos, self.msize);
        let signed = |v: f64| if neg { -v } else { v };
        if e == (1i64 << self.esize) - 1 {
            // All-ones exponent: infinity when the mantissa is zero (or, unnormalized, only
            // its leading bit is set, as x87's), else NaN.
            let inf = m == 0 || self.norm == Norm::None && m == 1 << (self.msize - 1);
            return Some(signed(if inf { f64::INFINITY } else { f64::NAN }));
        }
        let (m, k) = match self.norm {
            Norm::Implied if e == 0 => (m, self.lsb_exp(1)),
            Norm::Implied => (m | 1 << self.msize, self.lsb_exp(e)),
            Norm::None | Norm::MsbSet => (m, self.lsb_exp(e)),
        };
        if m == 0 {
            return Some(signed(0.0));
        }
        let tz = m.trailing_zeros();
        let (m, k) = (m >> tz, k + tz as i64);
        let len = 128 - m.leading_zeros() as i64;
        // f64: 53 significant bits, lowest bit 2^-1074, largest value below 2^1024.
        if len > 53 || k < -1074 || k + len > 1024 {
            return None;
        }
        // m · 2^k in two exact steps (each factor a normal power of two).
        let k1 = k.max(-1022);
        let p = |x: i64| f64::from_bits(((x + 1023) as u64) << 52);
        Some(signed(m as f64 * p(k1) * p(k - k1)))
    }

    /// `n` values at `off` of every `stride` bytes of `bytes` (bounds checked by the caller).
    pub fn decode(&self, bytes: &[u8], n: usize, stride: usize, off: usize) -> Result<Column> {
        if self.norm == Norm::MsbSet {
            return Err(unsupported(
                0,
                format!("{}: mantissa normalization \"msb set\"", self.describe()),
            ));
        }
        let s = self.size as usize;
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            let b = &bytes[i * stride + off..i * stride + off + s];
            let mut raw = 0u128;
            for k in 0..s {
                let byte = if self.be { b[k] } else { b[s - 1 - k] };
                raw = raw << 8 | byte as u128;
            }
            v.push(self.value(raw).ok_or_else(|| {
                unsupported(
                    0,
                    format!(
                        "{} value {raw:#x} (element {i}) is not exactly a float64 (reading it would \
                         lose precision)",
                        self.describe()
                    ),
                )
            })?);
        }
        Ok(match self.arrow_type() {
            DataType::Float32 => Column::primitive(
                DataType::Float32,
                Buffer::F32(v.into_iter().map(|x| x as f32).collect()),
                None,
            ),
            t => Column::primitive(t, Buffer::F64(v), None),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f20() -> CustomFloat {
        CustomFloat {
            size: 4,
            be: false,
            sign: 26,
            epos: 20,
            esize: 6,
            mpos: 7,
            msize: 13,
            bias: 31,
            norm: Norm::Implied,
        }
    }

    #[test]
    fn values_from_their_fields() {
        let f = f20();
        assert_eq!(f.arrow_type(), DataType::Float32);
        // -3.75 = -1.875 · 2^1: exponent 32, mantissa 0.875 · 2^13.
        let bits = 1u128 << 26 | 32 << 20 | (7 << 10) << 7;
        assert_eq!(f.value(bits), Some(-3.75));
        assert_eq!(f.value(0), Some(0.0));
        assert_eq!(f.value(63 << 20), Some(f64::INFINITY));
        assert!(f.value(63 << 20 | 1 << 7).unwrap().is_nan());
        // Denormal: 5 · 2^(1 - 31 - 13).
        assert_eq!(f.value(5 << 7), Some(5.0 * 2f64.powi(-43)));
        // IEEE fields are left to the plain path.
        let props = |o: u16, p: u16, e: [u8; 4], b: u32| {
            let mut v = o.to_le_bytes().to_vec();
            v.extend(p.to_le_bytes());
            v.extend(e);
            v.extend(b.to_le_bytes());
            v
        };
        let ieee = CustomFloat::parse(0, 4, 31 << 8 | 2 << 4, &props(0, 32, [23, 8, 0, 23], 127));
        assert_eq!(ieee.unwrap(), None);
        // Fields past the type, or a mantissa with no room for its implied bit: invalid.
        let bad = |p: &[u8]| {
            CustomFloat::parse(0, 8, 63 << 8 | 2 << 4, p)
                .unwrap_err()
                .code
        };
        use arrowsmith_core::ErrorCode::Invalid;
        assert_eq!(bad(&props(0, 64, [60, 8, 0, 52], 1023)), Invalid);
        assert_eq!(bad(&props(0, 64, [0, 1, 0, 64], 0)), Invalid);
        // A 64-bit mantissa does not fit f64: read as an error, not rounded.
        let wide = CustomFloat {
            size: 8,
            be: false,
            sign: 63,
            epos: 48,
            esize: 15,
            mpos: 0,
            msize: 48,
            bias: 16383,
            norm: Norm::Implied,
        };
        assert_eq!(wide.arrow_type(), DataType::Float64);
        assert_eq!(wide.value(16383 << 48), Some(1.0));
        assert_eq!(wide.value(30000 << 48), None, "beyond f64's range");
        let bytes = (30000u64 << 48).to_le_bytes();
        assert!(wide.decode(&bytes, 1, 8, 0).is_err());
    }

    const X87: CustomFloat = CustomFloat {
        size: 16,
        be: false,
        sign: 79,
        epos: 64,
        esize: 15,
        mpos: 0,
        msize: 64,
        bias: 16383,
        norm: Norm::None,
    };

    /// f64 → x87 extended bits (exact), for normal and subnormal numbers and zero.
    fn x87(v: f64) -> u128 {
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
    fn x87_long_doubles_convert_exactly_or_not_at_all() {
        assert_eq!(X87.arrow_type(), DataType::Float64);
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
        // One more mantissa bit than f64 holds; below f64's smallest subnormal; past its range.
        assert_eq!(X87.value(x87(1.0) | 1 << 10), None);
        assert_eq!(X87.value((16383u128 - 1075) << 64 | 1 << 63), None);
        assert_eq!(X87.value((16383u128 + 1024) << 64 | 1 << 63), None);
        assert_eq!(X87.value(0x7fffu128 << 64 | 1 << 63), Some(f64::INFINITY));
        assert!(X87.value(0x7fffu128 << 64 | 3 << 62).unwrap().is_nan());
    }

    #[test]
    fn bfloat16_values() {
        let bf16 = CustomFloat {
            size: 2,
            be: false,
            sign: 15,
            epos: 7,
            esize: 8,
            mpos: 0,
            msize: 7,
            bias: 127,
            norm: Norm::Implied,
        };
        assert_eq!(bf16.arrow_type(), DataType::Float32);
        for v in [1.0f32, -3.5, 1e-40, 65536.0] {
            let top = (v.to_bits() >> 16) as u128;
            assert_eq!(
                bf16.value(top),
                Some(f32::from_bits((top as u32) << 16) as f64)
            );
        }
    }
}
