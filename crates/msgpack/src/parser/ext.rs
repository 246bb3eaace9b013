//! Ext values: the standard timestamp (type -1), JavaScript's `undefined` (fixext1 of
//! type 0 with data 0, as msgpackr and notepack.io write it, where their semantics are in
//! force: `Extensions::undefined`), msgpackr's records, and each other type by its reading
//! in `Options::extensions` (`Struct{type, data}` by default).

use arrowsmith_core::{ErrorCode, TimeUnit};

use crate::builder::Builder;
use crate::options::{ExtReading, MSGPACKR_RECORD};
use crate::tags::{Kind, TAGS};

use super::{err, Parser, Result};

impl Parser<'_> {
    /// An ext value of `len` data bytes (header read; its type byte is next).
    pub(crate) fn ext(
        &mut self,
        b: &mut Builder,
        len: usize,
        start: usize,
        what: &str,
        depth: usize,
    ) -> Result {
        if len >= self.remaining() {
            // The type byte comes before the data: `len` bytes plus it must fit.
            return Err(self.past_end(len, start, what));
        }
        let ty = self.buf[self.pos] as i8;
        self.pos += 1;
        let data = self.payload(len, start, what)?;
        if ty == -1 {
            let ns = self.timestamp(data, start)?;
            return b
                .push_timestamp(TimeUnit::Nanosecond, ns)
                .map_err(|e| self.reject(e, start, "timestamp"));
        }
        if ty == 0 && data == [0] && self.opts.extensions.undefined(self.structures.active()) {
            b.push_null();
            return Ok(());
        }
        let r = match self.opts.extensions.get(ty) {
            ExtReading::Struct | ExtReading::Undefined => b.push_ext(ty, data),
            ExtReading::EventTime => {
                let ns = self.event_time(data, ty, start)?;
                b.push_timestamp(TimeUnit::Nanosecond, ns)
            }
            ExtReading::Binary => b.push_bytes(false, data),
            ExtReading::TimestampMs => match self.ms(data, ty, start)? {
                Some(ms) => b.push_timestamp(TimeUnit::Millisecond, ms),
                None => {
                    b.push_null();
                    Ok(())
                }
            },
            ExtReading::TimestampNs => {
                let ns = self.eight(data, ty, start, "timestamp-ns")?;
                b.push_timestamp(TimeUnit::Nanosecond, i64::from_be_bytes(ns))
            }
            ExtReading::MsgpackrRecord => return self.msgpackr_ext(b, data, start, depth),
        };
        r.map_err(|e| self.reject(e, start, "ext"))
    }

    /// Ext type 0x72 under msgpackr's reading: a fixext1 holding an id of 0x40..=0x7f
    /// and followed by an array (of keys) defines a structure. Anything else of this type
    /// is an opaque ext (`Struct`), except a two-byte definition, which is not supported.
    fn msgpackr_ext(&mut self, b: &mut Builder, data: &[u8], start: usize, depth: usize) -> Result {
        let keys_follow = self
            .peek()
            .is_some_and(|t| TAGS[t as usize].kind == Kind::Array);
        match *data {
            [id @ 0x40..=0x7f] if keys_follow && self.buf[start] == 0xd4 => {
                self.record_definition(b, id, start, depth)
            }
            [_, _] if keys_follow && self.buf[start] == 0xd5 => Err(err(
                self.at(start),
                ErrorCode::Unsupported,
                format!(
                    "the msgpackr record definition at byte {} has a two-byte id (more than 64 structures): not supported; read ext type 114 as 'struct' to keep it opaque",
                    self.at(start)
                ),
            )),
            _ => b
                .push_ext(MSGPACKR_RECORD, data)
                .map_err(|e| self.reject(e, start, "ext")),
        }
    }

    /// Nanoseconds since the epoch of a Fluentd EventTime: big-endian u32 seconds, then
    /// u32 nanoseconds.
    fn event_time(&self, data: &[u8], ty: i8, start: usize) -> Result<i64> {
        let d = self.eight(data, ty, start, "eventtime")?;
        let sec = u32::from_be_bytes([d[0], d[1], d[2], d[3]]) as i64;
        let nsec = u32::from_be_bytes([d[4], d[5], d[6], d[7]]);
        if nsec > 999_999_999 {
            return Err(err(
                self.at(start),
                ErrorCode::Invalid,
                format!(
                    "the EventTime (ext type {ty}) at byte {} has {nsec} nanoseconds (more than 999999999)",
                    self.at(start)
                ),
            ));
        }
        // u32 seconds (until 2106) always fit Timestamp(ns).
        Ok(sec * 1_000_000_000 + nsec as i64)
    }

    /// The 8 data bytes that `reading` needs.
    fn eight(&self, data: &[u8], ty: i8, start: usize, reading: &str) -> Result<[u8; 8]> {
        data.try_into().map_err(|_| {
            err(
                self.at(start),
                ErrorCode::Invalid,
                format!(
                    "the ext of type {ty} at byte {} has {} data bytes; the {reading} reading needs 8",
                    self.at(start),
                    data.len()
                ),
            )
        })
    }

    /// Milliseconds since the epoch as JavaScript encoders write Dates: 8 data bytes are a
    /// big-endian int64 (notepack.io 2.x, ext 0); other data is one MessagePack number
    /// (msgpack-lite, ext 0x0d: `+date` packed as it packs any number). `None` for an
    /// invalid Date (NaN).
    fn ms(&self, data: &[u8], ty: i8, start: usize) -> Result<Option<i64>> {
        if let Ok(b) = <[u8; 8]>::try_from(data) {
            return Ok(Some(i64::from_be_bytes(b)));
        }
        let bad = |what: String| {
            err(
                self.at(start),
                ErrorCode::Invalid,
                format!(
                    "the ext of type {ty} at byte {} read as timestamp-ms {what}",
                    self.at(start)
                ),
            )
        };
        let Some((&t, rest)) = data.split_first() else {
            return Err(bad("has no data".into()));
        };
        let tag = &TAGS[t as usize];
        if !matches!(tag.kind, Kind::Int | Kind::Float) || rest.len() != tag.fixed as usize {
            return Err(bad(format!(
                "holds {} data bytes that are neither 8 bytes nor one MessagePack number",
                data.len()
            )));
        }
        let be = |n: usize| rest[..n].iter().fold(0u64, |a, &b| a << 8 | b as u64);
        let f = match t {
            0xca => f32::from_bits(be(4) as u32) as f64,
            0xcb => f64::from_bits(be(8)),
            0xcc..=0xce => return Ok(Some(be(rest.len()) as i64)),
            0xcf => {
                return i64::try_from(be(8))
                    .map(Some)
                    .map_err(|_| bad("is past 2^63-1".into()))
            }
            0xd0 => return Ok(Some(rest[0] as i8 as i64)),
            0xd1 => return Ok(Some(be(2) as u16 as i16 as i64)),
            0xd2 => return Ok(Some(be(4) as u32 as i32 as i64)),
            0xd3 => return Ok(Some(be(8) as i64)),
            _ => return Ok(Some(t as i8 as i64)),
        };
        if f.is_nan() {
            return Ok(None);
        }
        // Whole milliseconds within ±2^63 (JavaScript Dates are whole, within ±8.64e15).
        if f.fract() != 0.0 || f.abs() >= 9.2e18 {
            return Err(bad(format!(
                "holds {f}, not a whole number of milliseconds"
            )));
        }
        Ok(Some(f as i64))
    }

    /// Nanoseconds since the epoch of a standard timestamp's data (4, 8 or 12 bytes).
    fn timestamp(&self, data: &[u8], start: usize) -> Result<i64> {
        let (sec, nsec): (i64, u32) = match *data {
            [a, b, c, d] => (u32::from_be_bytes([a, b, c, d]) as i64, 0),
            [a, b, c, d, e, f, g, h] => {
                let v = u64::from_be_bytes([a, b, c, d, e, f, g, h]);
                ((v & 0x3_ffff_ffff) as i64, (v >> 34) as u32)
            }
            [a, b, c, d, e, f, g, h, i, j, k, l] => (
                i64::from_be_bytes([e, f, g, h, i, j, k, l]),
                u32::from_be_bytes([a, b, c, d]),
            ),
            _ => {
                return Err(err(
                    self.at(start),
                    ErrorCode::Invalid,
                    format!(
                        "the timestamp (ext type -1) at byte {} has {} data bytes; MessagePack timestamps have 4, 8 or 12",
                        self.at(start),
                        data.len()
                    ),
                ))
            }
        };
        if nsec > 999_999_999 {
            return Err(err(
                self.at(start),
                ErrorCode::Invalid,
                format!(
                    "the timestamp at byte {} has {nsec} nanoseconds (more than 999999999)",
                    self.at(start)
                ),
            ));
        }
        sec.checked_mul(1_000_000_000)
            .and_then(|s| s.checked_add(nsec as i64))
            .ok_or_else(|| {
                err(
                    self.at(start),
                    ErrorCode::Unsupported,
                    format!(
                        "the timestamp at byte {} ({sec} s) is outside the range of Timestamp(ns) (years 1677 to 2262)",
                        self.at(start)
                    ),
                )
            })
    }
}
