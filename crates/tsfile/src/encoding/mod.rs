//! Page decoders. Each decodes a whole page stream into a typed `Vec` in one call.
//!
//! Errors carry the position inside the (decompressed) stream; the page reader turns them
//! into a [`DecodeError`](arrowsmith_core::DecodeError) naming the page and its file offset.

pub(crate) mod bits;
pub mod camel;
pub mod chimp;
pub mod dictionary;
pub mod float;
pub mod gorilla;
pub mod gorilla_v1;
pub mod plain;
mod prefix;
pub mod regular;
pub mod rlbe;
pub mod rle;
pub mod sprintz;
pub mod ts2diff;
mod word;
pub mod zigzag;

use crate::types::{Encoding, Physical};
pub use prefix::decode_page_prefix;

/// A decoding failure at byte `pos` of the page stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecErr {
    /// The byte of the page stream where the failure was found.
    pub pos: usize,
    /// What was wrong.
    pub msg: String,
    /// A valid stream we do not decode (an encoding not offered for the type), not broken bytes.
    pub unsupported: bool,
}

/// A result whose error is a [`DecErr`].
pub type DResult<T> = Result<T, DecErr>;

pub(crate) fn derr(pos: usize, msg: impl Into<String>) -> DecErr {
    DecErr {
        pos,
        msg: msg.into(),
        unsupported: false,
    }
}

pub(crate) fn limit_err(pos: usize, limit: usize) -> DecErr {
    derr(
        pos,
        format!("stream holds more than the {limit} values its page can justify"),
    )
}

/// The non-null values of one page, in row order.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// BOOLEAN values.
    Bool(Vec<bool>),
    /// INT32 and DATE values.
    I32(Vec<i32>),
    /// INT64 and TIMESTAMP values, and times.
    I64(Vec<i64>),
    /// FLOAT values.
    F32(Vec<f32>),
    /// DOUBLE values.
    F64(Vec<f64>),
    /// `offsets.len() == n + 1`, value i is `data[offsets[i]..offsets[i+1]]`.
    Bytes {
        /// Where each value starts, then where the last ends.
        offsets: Vec<u32>,
        /// The values' bytes, one after another.
        data: Vec<u8>,
    },
}

impl Values {
    /// No values, held as `p` says.
    pub fn new(p: Physical) -> Values {
        match p {
            Physical::Bool => Values::Bool(Vec::new()),
            Physical::I32 => Values::I32(Vec::new()),
            Physical::I64 => Values::I64(Vec::new()),
            Physical::F32 => Values::F32(Vec::new()),
            Physical::F64 => Values::F64(Vec::new()),
            Physical::Bytes => Values::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
        }
    }
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Bool(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Bytes { offsets, .. } => offsets.len() - 1,
        }
    }
    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Drop every value, keeping the storage.
    pub fn clear(&mut self) {
        match self {
            Values::Bool(v) => v.clear(),
            Values::I32(v) => v.clear(),
            Values::I64(v) => v.clear(),
            Values::F32(v) => v.clear(),
            Values::F64(v) => v.clear(),
            Values::Bytes { offsets, data } => {
                offsets.truncate(1);
                data.clear();
            }
        }
    }
}

/// Which writer produced the file, where decoders must follow its quirks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flavor {
    /// Format version byte (3 or 4).
    pub version: u8,
    /// Written by the C++ writer (2.x): 64-bit SPRINTZ predicts with a 128-bit product, and
    /// SPRINTZ errors halve before they negate (Java negates first).
    pub cpp: bool,
}

/// Decode the values of a value page: exactly `count` values in all (`out` included), the
/// count the page's timestamps or null bitmap give. GORILLA, GORILLA_V1 and CHIMP end with a
/// marker that is also a valid value (a NaN, `MIN_VALUE`); like the official readers, they
/// decode the count and never look for it. Writer quirks are honoured: v3 files (TsFile Java 1.x) used
/// float arithmetic for FLOAT/DOUBLE RLBE; the C++ writer's 64-bit SPRINTZ predictor differs
/// from Java's. Other encodings decode the whole stream (refusing more than `count`); the
/// caller checks the number of values.
pub fn decode_values(
    flavor: Flavor,
    enc: Encoding,
    buf: &[u8],
    count: usize,
    out: &mut Values,
) -> DResult<()> {
    if flavor.cpp && enc == Encoding::Sprintz {
        match out {
            Values::I32(v) => return sprintz::decode(buf, count, true, v),
            Values::I64(v) => return sprintz::decode(buf, count, true, v),
            Values::F32(v) => return sprintz::decode(buf, count, true, v),
            Values::F64(v) => return sprintz::decode(buf, count, true, v),
            _ => {}
        }
    }
    if flavor.version == 3 && enc == Encoding::Rlbe {
        match out {
            Values::F32(v) => return rlbe::decode_v1(buf, count, v),
            Values::F64(v) => return rlbe::decode_v1(buf, count, v),
            _ => {}
        }
    }
    decode(enc, buf, count, true, out)
}

/// Decode one whole page stream `buf` of `enc` whose length is not known beforehand (a
/// time page) into `out` (appending), refusing to produce more than `limit` values in all.
/// GORILLA and CHIMP streams end at their END marker.
pub fn decode_page(enc: Encoding, buf: &[u8], limit: usize, out: &mut Values) -> DResult<()> {
    decode(enc, buf, limit, false, out)
}

/// [`decode_values`] (`exact`) or [`decode_page`] without the writer quirks.
fn decode(enc: Encoding, buf: &[u8], limit: usize, exact: bool, out: &mut Values) -> DResult<()> {
    use Encoding as E;
    let unsupported = |what: &str| {
        Err(DecErr {
            pos: 0,
            msg: format!("encoding {} is not supported for {what}", enc.name()),
            unsupported: true,
        })
    };
    match out {
        Values::Bool(v) => match enc {
            E::Plain => plain::decode_bool(buf, limit, v),
            E::Rle => {
                let mut tmp = Vec::new();
                rle::decode::<i32>(buf, limit, &mut tmp)?;
                v.extend(tmp.iter().map(|&x| x != 0));
                Ok(())
            }
            _ => unsupported("BOOLEAN"),
        },
        Values::I32(v) => match enc {
            E::Plain => plain::decode_i32(buf, limit, v),
            E::Rle => rle::decode(buf, limit, v),
            E::Ts2Diff => ts2diff::decode(buf, limit, v),
            E::Gorilla => gorilla::decode(buf, limit, exact, v),
            E::Zigzag => zigzag::decode(buf, limit, v),
            E::Chimp => chimp::decode(buf, limit, exact, v),
            E::Sprintz => sprintz::decode(buf, limit, false, v),
            E::Rlbe => rlbe::decode(buf, limit, v),
            E::Regular => regular::decode(buf, limit, v),
            _ => unsupported("INT32"),
        },
        Values::I64(v) => match enc {
            E::Plain => plain::decode_i64(buf, limit, v),
            E::Rle => rle::decode(buf, limit, v),
            E::Ts2Diff => ts2diff::decode(buf, limit, v),
            E::Gorilla => gorilla::decode(buf, limit, exact, v),
            E::Zigzag => zigzag::decode(buf, limit, v),
            E::Chimp => chimp::decode(buf, limit, exact, v),
            E::Sprintz => sprintz::decode(buf, limit, false, v),
            E::Rlbe => rlbe::decode(buf, limit, v),
            E::Regular => regular::decode(buf, limit, v),
            _ => unsupported("INT64"),
        },
        Values::F32(v) => match enc {
            E::Plain => plain::decode_f32(buf, limit, v),
            E::Ts2Diff | E::Rle => float::decode(enc, buf, limit, v),
            E::Gorilla => gorilla::decode(buf, limit, exact, v),
            E::Chimp => chimp::decode(buf, limit, exact, v),
            E::Sprintz => sprintz::decode(buf, limit, false, v),
            E::Rlbe => rlbe::decode(buf, limit, v),
            E::GorillaV1 => gorilla_v1::decode(buf, limit, exact, v),
            _ => unsupported("FLOAT"),
        },
        Values::F64(v) => match enc {
            E::Plain => plain::decode_f64(buf, limit, v),
            E::Ts2Diff | E::Rle => float::decode(enc, buf, limit, v),
            E::Gorilla => gorilla::decode(buf, limit, exact, v),
            E::Chimp => chimp::decode(buf, limit, exact, v),
            E::Sprintz => sprintz::decode(buf, limit, false, v),
            E::Rlbe => rlbe::decode(buf, limit, v),
            E::GorillaV1 => gorilla_v1::decode(buf, limit, exact, v),
            E::Camel => camel::decode(buf, limit, v),
            _ => unsupported("DOUBLE"),
        },
        Values::Bytes { offsets, data } => match enc {
            E::Plain => plain::decode_bytes(buf, limit, offsets, data),
            E::Dictionary => dictionary::decode(buf, limit, offsets, data),
            _ => unsupported("TEXT/STRING/BLOB"),
        },
    }
}

#[inline]
pub(crate) fn check_limit(len: usize, add: usize, limit: usize, pos: usize) -> DResult<()> {
    if len.checked_add(add).is_none_or(|t| t > limit) {
        return Err(limit_err(pos, limit));
    }
    Ok(())
}

#[cfg(test)]
mod legacy_garbage {
    use super::*;

    /// Random streams into GORILLA_V1, REGULAR and CAMEL: errors or at most `limit` values,
    /// never a panic or an allocation past the limit.
    #[test]
    fn garbage_never_panics_or_overflows_the_limit() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let cases = [
            (Encoding::GorillaV1, Physical::F32),
            (Encoding::GorillaV1, Physical::F64),
            (Encoding::Regular, Physical::I32),
            (Encoding::Regular, Physical::I64),
            (Encoding::Camel, Physical::F64),
        ];
        for round in 0..20_000 {
            let len = (next() % 64) as usize;
            let mut buf: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            // Small headers often: REGULAR flags and counts, CAMEL bit counts.
            if round % 2 == 0 && len > 5 {
                buf[0] = (next() % 2) as u8;
                buf[1..5].copy_from_slice(&((next() % 300) as i32).to_be_bytes());
            }
            let limit = (next() % 200) as usize;
            for &(enc, p) in &cases {
                let flavor = Flavor {
                    version: 4,
                    cpp: false,
                };
                let mut out = Values::new(p);
                if decode_values(flavor, enc, &buf, limit, &mut out).is_ok() {
                    assert!(out.len() <= limit, "{enc:?} {buf:?}");
                }
                let mut out = Values::new(p);
                if decode_page(enc, &buf, limit, &mut out).is_ok() {
                    assert!(out.len() <= limit, "{enc:?} {buf:?}");
                }
            }
        }
    }

    #[test]
    fn undecoded_encodings_are_unsupported() {
        let mut out = Values::new(Physical::F64);
        let e = decode_page(Encoding::Freq, &[0; 8], 10, &mut out).unwrap_err();
        assert!(e.unsupported && e.msg.contains("FREQ"), "{e:?}");
        let mut out = Values::new(Physical::I32);
        let e = decode_page(Encoding::Camel, &[0; 8], 10, &mut out).unwrap_err();
        assert!(e.unsupported && e.msg.contains("CAMEL"), "{e:?}");
        let mut out = Values::new(Physical::F64);
        let e = decode_page(Encoding::Camel, &[0; 8], 10, &mut out).unwrap_err();
        assert!(!e.unsupported, "{e:?}");
    }
}
