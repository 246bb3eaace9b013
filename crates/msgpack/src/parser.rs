//! The decoding pass: one walk over the bytes, values pushed straight into builders.

use arrowsmith_core::{Bitmap, DecodeError, ErrorCode, Format};

use crate::builder::{Builder, Data, Reject, StructData};
use crate::kernels;

type Result<T = ()> = std::result::Result<T, DecodeError>;

/// Fast-path attempts that consumed fewer values than this count as misses.
const RUN_MIN: usize = 4;
/// Only a run this long proves the data has runs and resets the back-off: on mixed data,
/// an occasional run of a few values must not bring back frequent attempts.
const RUN_PAYS: usize = 64;
const BACKOFF_MIN: usize = 8;
const BACKOFF_MAX: usize = 4096;

pub(crate) struct Parser<'a> {
    buf: &'a [u8],
    pub pos: usize,
    /// Absolute offset of `buf[0]` (streaming), added to every reported offset.
    base: u64,
    max_depth: usize,
    fast: bool,
    /// Elements to decode on the general path before trying a fast path again.
    cooldown: usize,
    backoff: usize,
    scratch8: Vec<u8>,
    scratch16: Vec<u16>,
    scratch32: Vec<u32>,
    /// Values that builders may still reserve room for up front (`grant`).
    budget: usize,
}

pub(crate) fn err(offset: u64, code: ErrorCode, message: String) -> DecodeError {
    DecodeError::new(Format::MessagePack, offset, code, message)
}

/// What a tag byte starts, in words.
pub(crate) fn tag_kind(t: u8) -> &'static str {
    match t {
        0x00..=0x7f | 0xe0..=0xff | 0xcc..=0xcf | 0xd0..=0xd3 => "int",
        0x80..=0x8f | 0xde | 0xdf => "map",
        0x90..=0x9f | 0xdc | 0xdd => "array",
        0xa0..=0xbf | 0xd9..=0xdb => "str",
        0xc0 => "nil",
        0xc1 => "reserved byte 0xc1",
        0xc2 | 0xc3 => "bool",
        0xc4..=0xc6 => "bin",
        0xc7..=0xc9 | 0xd4..=0xd8 => "ext",
        0xca | 0xcb => "float",
    }
}

impl<'a> Parser<'a> {
    pub fn new(buf: &'a [u8], base: u64, max_depth: usize, fast: bool) -> Self {
        Parser {
            buf,
            pos: 0,
            base,
            max_depth,
            fast,
            cooldown: 0,
            backoff: BACKOFF_MIN,
            scratch8: Vec::new(),
            scratch16: Vec::new(),
            scratch32: Vec::new(),
            budget: buf.len(),
        }
    }

    /// Up to `want` values of reserved capacity. All grants of one parse together never
    /// exceed the input length, so reservations stay within a small multiple of the
    /// input (at most 8 bytes per input byte) however the input declares its counts.
    fn grant(&mut self, want: usize) -> usize {
        take(&mut self.budget, want)
    }

    #[inline]
    fn at(&self, pos: usize) -> u64 {
        self.base + pos as u64
    }

    fn end(&self) -> u64 {
        self.at(self.buf.len())
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// The next `N` header bytes of the value that started at `start`.
    #[inline]
    fn arr<const N: usize>(&mut self, start: usize, what: &str) -> Result<[u8; N]> {
        match self.buf.get(self.pos..self.pos + N) {
            Some(s) => {
                self.pos += N;
                Ok(s.try_into().unwrap_or([0; N]))
            }
            None => Err(self.truncated(start, what, 1 + N)),
        }
    }

    fn truncated(&self, start: usize, what: &str, need: usize) -> DecodeError {
        err(
            self.at(start),
            ErrorCode::Truncated,
            format!(
                "the input ends at byte {} inside the {what} that starts at byte {} (its header needs {need} bytes)",
                self.end(),
                self.at(start)
            ),
        )
    }

    /// `len` payload bytes of the value that started at `start`, or OutOfBounds.
    #[inline]
    fn payload(&mut self, len: usize, start: usize, what: &str) -> Result<&'a [u8]> {
        if len > self.remaining() {
            return Err(err(
                self.at(start),
                ErrorCode::OutOfBounds,
                format!(
                    "{what} length {len} at byte {} runs past the end of the input ({} bytes)",
                    self.at(start),
                    self.end()
                ),
            ));
        }
        let s = &self.buf[self.pos..self.pos + len];
        self.pos += len;
        Ok(s)
    }

    /// A container declaring `count` values (each ≥ 1 byte) must fit in what remains.
    #[inline]
    fn check_count(
        &self,
        count: usize,
        per: usize,
        start: usize,
        what: &str,
        depth: usize,
    ) -> Result {
        if depth >= self.max_depth || count.checked_mul(per).is_none_or(|n| n > self.remaining()) {
            return Err(self.bad_count(count, per, start, what, depth));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn bad_count(
        &self,
        count: usize,
        per: usize,
        start: usize,
        what: &str,
        depth: usize,
    ) -> DecodeError {
        if depth >= self.max_depth {
            return err(
                self.at(start),
                ErrorCode::TooDeep,
                format!(
                    "the {what} at byte {} nests deeper than max_depth = {}",
                    self.at(start),
                    self.max_depth
                ),
            );
        }
        err(
            self.at(start),
            ErrorCode::OutOfBounds,
            format!(
                "{what} at byte {} declares {count} {} but only {} bytes of input remain",
                self.at(start),
                if per == 2 { "entries" } else { "elements" },
                self.remaining()
            ),
        )
    }

    fn reject(&self, r: Reject, start: usize, got: &str) -> DecodeError {
        let at = self.at(start);
        match r {
            Reject::Mismatch { have, got } => err(
                at,
                ErrorCode::TypeMismatch,
                format!("a {got} value at byte {at} cannot join a column of {have} values (one Arrow column holds one kind)"),
            ),
            Reject::SignedUnsigned => err(
                at,
                ErrorCode::TypeMismatch,
                format!(
                    "the {got} at byte {at} mixes negative ints with uint64 values above 2^63-1 in one column; no Arrow integer type holds both"
                ),
            ),
            Reject::TooLarge => err(
                at,
                ErrorCode::Unsupported,
                format!("the {got} at byte {at} takes a column's data past 2^31-1 bytes (Arrow Utf8/Binary offsets are i32)"),
            ),
        }
    }

    /// Read the header of a top-level array. `Ok(None)` if the next value is not an array.
    pub fn array_header(&mut self) -> Result<Option<usize>> {
        let start = self.pos;
        let Some(t) = self.peek() else {
            return Ok(None);
        };
        let (n, what) = match t {
            0x90..=0x9f => {
                self.pos += 1;
                ((t & 0x0f) as usize, "fixarray")
            }
            0xdc => {
                self.pos += 1;
                (
                    u16::from_be_bytes(self.arr(start, "array16")?) as usize,
                    "array16",
                )
            }
            0xdd => {
                self.pos += 1;
                (
                    u32::from_be_bytes(self.arr(start, "array32")?) as usize,
                    "array32",
                )
            }
            _ => return Ok(None),
        };
        self.check_count(n, 1, start, what, 0)?;
        Ok(Some(n))
    }

    /// Decode `count` values into `b` (or, with `open`, values until the input ends).
    /// `depth` is the number of containers around each value.
    pub fn seq(&mut self, b: &mut Builder, count: usize, depth: usize, open: bool) -> Result {
        if !open && b.len == 0 && b.hint == 0 && matches!(b.data, Data::Empty) {
            // A fresh column that takes all `count` values (each at least one byte).
            b.hint = self.grant(count);
        }
        let mut left = count;
        while left > 0 {
            if open && self.pos == self.buf.len() {
                break;
            }
            if self.fast && self.cooldown == 0 {
                if let Some(n) = self.fast_run(b, left) {
                    if n < RUN_MIN {
                        // A short run: stay on the general path for a while (adaptive).
                        self.cooldown = self.backoff;
                        self.backoff = (self.backoff * 2).min(BACKOFF_MAX);
                    } else if n >= RUN_PAYS {
                        self.backoff = BACKOFF_MIN;
                    }
                    if n > 0 {
                        left -= n;
                        continue;
                    }
                }
            }
            // General path. Int32, Float64 and Utf8 columns take a tight loop over the
            // tags they accept (one call per run, not per value).
            // After a short fast run, only up to the cooldown, so that the next run is seen.
            let lim = if self.cooldown > 0 {
                self.cooldown.min(left)
            } else {
                left
            };
            let n = self.lane(b, lim);
            if n > 0 {
                left -= n;
                self.cooldown -= self.cooldown.min(n);
                continue;
            }
            // A record in a column of records: straight to `map` (header errors and
            // everything else go through `value`).
            if let (Data::Struct(_), Some((count, len, what))) = (&b.data, self.map_header()) {
                let start = self.pos;
                self.pos += len;
                self.map(b, count, start, depth, what)?;
                left -= 1;
                self.cooldown = self.cooldown.saturating_sub(1);
                continue;
            }
            self.value(b, depth)?;
            left -= 1;
            self.cooldown = self.cooldown.saturating_sub(1);
        }
        Ok(())
    }

    /// The general path's tight loop for `b`'s storage: up to `max` values that the
    /// column takes as they are. Returns 0 (consuming nothing) at anything else, which
    /// `value` then decodes or reports, so errors come from one place.
    #[inline(always)]
    fn lane(&mut self, b: &mut Builder, max: usize) -> usize {
        let n = match &mut b.data {
            Data::I32(v) => self.int_lane(v, max),
            Data::F64(v) => self.f64_lane(v, max),
            Data::F32(v) => self.f32_lane(v, max),
            Data::Bool(m) => self.bool_lane(m, max),
            Data::Bytes {
                utf8: true,
                offsets,
                data,
            } => self.str_lane(offsets, data, max),
            _ => 0,
        };
        b.valid_n(n);
        n
    }

    /// The element count, header length and name of a complete map header at `pos`.
    #[inline]
    fn map_header(&self) -> Option<(usize, usize, &'static str)> {
        let b = &self.buf[self.pos..];
        Some(match *b.first()? {
            t @ 0x80..=0x8f => ((t & 0x0f) as usize, 1, "fixmap"),
            0xde => (
                u16::from_be_bytes([*b.get(1)?, *b.get(2)?]) as usize,
                3,
                "map16",
            ),
            _ => return None,
        })
    }

    /// Up to `max` bools appended to a Bool column.
    #[inline(always)]
    fn bool_lane(&mut self, m: &mut Bitmap, max: usize) -> usize {
        let run = self.buf[self.pos..]
            .iter()
            .take(max)
            .take_while(|&&t| t & 0xfe == 0xc2);
        let mut n = 0;
        for &t in run {
            m.push(t == 0xc3);
            n += 1;
        }
        self.pos += n;
        n
    }

    /// Up to `max` floats or ints appended to a Float64 column; stops at anything else.
    #[inline(always)]
    fn f64_lane(&mut self, v: &mut Vec<f64>, max: usize) -> usize {
        let buf = self.buf;
        let mut pos = self.pos;
        let end = v.len().saturating_add(max);
        let first = v.len();
        while v.len() < end {
            let Some(&t) = buf.get(pos) else { break };
            let x = match t {
                0xcb => {
                    let Some(p) = buf.get(pos + 1..pos + 9) else {
                        break;
                    };
                    pos += 9;
                    f64::from_be_bytes(p.try_into().unwrap_or([0; 8]))
                }
                0xca => {
                    let Some(&[a, b2, c, d]) = buf.get(pos + 1..pos + 5) else {
                        break;
                    };
                    pos += 5;
                    f32::from_be_bytes([a, b2, c, d]) as f64
                }
                0x00..=0x7f | 0xe0..=0xff => {
                    pos += 1;
                    t as i8 as f64
                }
                _ => break,
            };
            v.push(x);
        }
        self.pos = pos;
        v.len() - first
    }

    /// Up to `max` float32 values appended to a Float32 column.
    #[inline(always)]
    fn f32_lane(&mut self, v: &mut Vec<f32>, max: usize) -> usize {
        let buf = self.buf;
        let mut pos = self.pos;
        let end = v.len().saturating_add(max);
        let first = v.len();
        while v.len() < end {
            let Some(&[0xca, a, b2, c, d]) = buf.get(pos..pos + 5) else {
                break;
            };
            pos += 5;
            v.push(f32::from_be_bytes([a, b2, c, d]));
        }
        self.pos = pos;
        v.len() - first
    }

    /// Up to `max` valid-UTF-8 strs appended to a Utf8 column; stops (without consuming)
    /// at anything else or any problem, which `value` then reports.
    #[inline(always)]
    fn str_lane(&mut self, offsets: &mut Vec<i32>, data: &mut Vec<u8>, max: usize) -> usize {
        let buf = self.buf;
        let mut pos = self.pos;
        let mut n = 0;
        while n < max {
            let Some(&t) = buf.get(pos) else { break };
            let (h, len) = match t {
                0xa0..=0xbf => (1, (t & 0x1f) as usize),
                0xd9 => match buf.get(pos + 1) {
                    Some(&l) => (2, l as usize),
                    None => break,
                },
                0xda => match buf.get(pos + 1..pos + 3) {
                    Some(&[p, q]) => (3, u16::from_be_bytes([p, q]) as usize),
                    _ => break,
                },
                _ => break,
            };
            let Some(s) = buf.get(pos + h..pos + h + len) else {
                break;
            };
            let Ok(end) = i32::try_from(data.len() + len) else {
                break;
            };
            if !s.is_ascii() && std::str::from_utf8(s).is_err() {
                break;
            }
            data.extend_from_slice(s);
            offsets.push(end);
            pos += h + len;
            n += 1;
        }
        self.pos = pos;
        n
    }

    /// Up to `max` ints that fit i32, appended to `v`; stops (without consuming) at
    /// anything else, including a truncated header, which `value` then reports.
    #[inline(always)]
    fn int_lane(&mut self, v: &mut Vec<i32>, max: usize) -> usize {
        let buf = self.buf;
        let mut pos = self.pos;
        let end = v.len().saturating_add(max);
        let first = v.len();
        while v.len() < end {
            let Some(&t) = buf.get(pos) else { break };
            let x = match t {
                0x00..=0x7f | 0xe0..=0xff => {
                    pos += 1;
                    t as i8 as i32
                }
                0xcc | 0xd0 => {
                    let Some(&p) = buf.get(pos + 1) else { break };
                    pos += 2;
                    if t == 0xcc {
                        p as i32
                    } else {
                        p as i8 as i32
                    }
                }
                0xcd | 0xd1 => {
                    let Some(&[p, q]) = buf.get(pos + 1..pos + 3) else {
                        break;
                    };
                    pos += 3;
                    let u = u16::from_be_bytes([p, q]);
                    if t == 0xcd {
                        u as i32
                    } else {
                        u as i16 as i32
                    }
                }
                0xce | 0xd2 => {
                    let Some(&[a, b2, c, d]) = buf.get(pos + 1..pos + 5) else {
                        break;
                    };
                    let x = i32::from_be_bytes([a, b2, c, d]);
                    if t == 0xce && x < 0 {
                        break;
                    }
                    pos += 5;
                    x
                }
                _ => break,
            };
            v.push(x);
        }
        self.pos = pos;
        v.len() - first
    }

    /// Try a bulk fast path at the current byte for up to `max` values. `None` when none
    /// applies (tag or column type); `Some(n)` values consumed otherwise (may be 0).
    #[inline]
    fn fast_run(&mut self, b: &mut Builder, max: usize) -> Option<usize> {
        let t = self.peek()?;
        let src = &self.buf[self.pos..];
        let (n, stride) = if t as i8 >= -32 {
            let Data::I32(v) = &mut b.data else {
                return None;
            };
            (kernels::fixint_run(src, max, v), 1)
        } else {
            let width = match t {
                0xcc | 0xd0 => 1,
                0xcd | 0xd1 => 2,
                0xce | 0xd2 | 0xca => 4,
                0xcf | 0xd3 | 0xcb => 8,
                _ => return None,
            };
            let stride = width + 1;
            // Only columns whose storage takes this tag's values as they are.
            let fits = matches!(
                (t, &b.data),
                (0xcc | 0xd0 | 0xcd | 0xd1 | 0xd2 | 0xce, Data::I32(_))
                    | (0xd3 | 0xcf, Data::I64(_))
                    | (0xcf, Data::U64(_))
                    | (0xca, Data::F32(_) | Data::F64(_))
                    | (0xcb, Data::F64(_))
            );
            if !fits {
                return None;
            }
            let n = kernels::tag_run(src, t, stride, max);
            if n < RUN_MIN {
                // Too short to pay for a gather: the general path's lane takes it.
                return Some(0);
            }
            let recs = &src[..n * stride];
            let n = match (t, &mut b.data) {
                (0xcc, Data::I32(v)) => {
                    gather(recs, n, &mut self.scratch8);
                    v.extend(self.scratch8.iter().map(|&x| x as i32));
                    n
                }
                (0xd0, Data::I32(v)) => {
                    gather(recs, n, &mut self.scratch8);
                    v.extend(self.scratch8.iter().map(|&x| x as i8 as i32));
                    n
                }
                (0xcd, Data::I32(v)) => {
                    gather(recs, n, &mut self.scratch16);
                    v.extend(self.scratch16.iter().map(|&x| x as i32));
                    n
                }
                (0xd1, Data::I32(v)) => {
                    gather(recs, n, &mut self.scratch16);
                    v.extend(self.scratch16.iter().map(|&x| x as i16 as i32));
                    n
                }
                (0xd2, Data::I32(v)) => append(recs, n, v),
                (0xd3, Data::I64(v)) => append(recs, n, v),
                (0xcf, Data::U64(v)) => append(recs, n, v),
                // uint32 into i32 / uint64 into i64: keep the prefix that fits; the
                // general path widens the column at the first value that does not.
                (0xce, Data::I32(v)) => {
                    let at = v.len();
                    append(recs, n, v);
                    let ok = v[at..].iter().position(|&x| x < 0).unwrap_or(n);
                    v.truncate(at + ok);
                    ok
                }
                (0xcf, Data::I64(v)) => {
                    let at = v.len();
                    append(recs, n, v);
                    let ok = v[at..].iter().position(|&x| x < 0).unwrap_or(n);
                    v.truncate(at + ok);
                    ok
                }
                (0xca, Data::F32(v)) => append(recs, n, v),
                (0xca, Data::F64(v)) => {
                    gather(recs, n, &mut self.scratch32);
                    v.extend(self.scratch32.iter().map(|&x| f32::from_bits(x) as f64));
                    n
                }
                (0xcb, Data::F64(v)) => append(recs, n, v),
                _ => return None,
            };
            (n, stride)
        };
        self.pos += n * stride;
        b.valid_n(n);
        Some(n)
    }

    /// Decode one value into `b`.
    pub fn value(&mut self, b: &mut Builder, depth: usize) -> Result {
        let start = self.pos;
        let Some(t) = self.peek() else {
            return Err(err(
                self.at(start),
                ErrorCode::Truncated,
                format!(
                    "the input ends at byte {} where a value was expected",
                    self.at(start)
                ),
            ));
        };
        self.pos += 1;
        let r = match t {
            0x00..=0x7f => b.push_i64(t as i64),
            0xe0..=0xff => b.push_i64(t as i8 as i64),
            0xc0 => {
                b.push_null();
                Ok(())
            }
            0xc1 => {
                return Err(err(
                    self.at(start),
                    ErrorCode::Invalid,
                    format!(
                        "byte 0xc1 at byte {} is never used in MessagePack",
                        self.at(start)
                    ),
                ))
            }
            0xc2 => b.push_bool(false),
            0xc3 => b.push_bool(true),
            0xcc => b.push_u64(u8::from_be_bytes(self.arr(start, "uint8")?) as u64),
            0xcd => b.push_u64(u16::from_be_bytes(self.arr(start, "uint16")?) as u64),
            0xce => b.push_u64(u32::from_be_bytes(self.arr(start, "uint32")?) as u64),
            0xcf => b.push_u64(u64::from_be_bytes(self.arr(start, "uint64")?)),
            0xd0 => b.push_i64(i8::from_be_bytes(self.arr(start, "int8")?) as i64),
            0xd1 => b.push_i64(i16::from_be_bytes(self.arr(start, "int16")?) as i64),
            0xd2 => b.push_i64(i32::from_be_bytes(self.arr(start, "int32")?) as i64),
            0xd3 => b.push_i64(i64::from_be_bytes(self.arr(start, "int64")?)),
            0xca => b.push_f32(f32::from_be_bytes(self.arr(start, "float32")?)),
            0xcb => b.push_f64(f64::from_be_bytes(self.arr(start, "float64")?)),
            0xa0..=0xbf => return self.bytes(b, true, (t & 0x1f) as usize, start, "fixstr"),
            0xd9 => {
                let n = u8::from_be_bytes(self.arr(start, "str8")?) as usize;
                return self.bytes(b, true, n, start, "str8");
            }
            0xda => {
                let n = u16::from_be_bytes(self.arr(start, "str16")?) as usize;
                return self.bytes(b, true, n, start, "str16");
            }
            0xdb => {
                let n = u32::from_be_bytes(self.arr(start, "str32")?) as usize;
                return self.bytes(b, true, n, start, "str32");
            }
            0xc4 => {
                let n = u8::from_be_bytes(self.arr(start, "bin8")?) as usize;
                return self.bytes(b, false, n, start, "bin8");
            }
            0xc5 => {
                let n = u16::from_be_bytes(self.arr(start, "bin16")?) as usize;
                return self.bytes(b, false, n, start, "bin16");
            }
            0xc6 => {
                let n = u32::from_be_bytes(self.arr(start, "bin32")?) as usize;
                return self.bytes(b, false, n, start, "bin32");
            }
            0xd4 => return self.ext(b, 1, start, "fixext1"),
            0xd5 => return self.ext(b, 2, start, "fixext2"),
            0xd6 => return self.ext(b, 4, start, "fixext4"),
            0xd7 => return self.ext(b, 8, start, "fixext8"),
            0xd8 => return self.ext(b, 16, start, "fixext16"),
            0xc7 => {
                let n = u8::from_be_bytes(self.arr(start, "ext8")?) as usize;
                return self.ext(b, n, start, "ext8");
            }
            0xc8 => {
                let n = u16::from_be_bytes(self.arr(start, "ext16")?) as usize;
                return self.ext(b, n, start, "ext16");
            }
            0xc9 => {
                let n = u32::from_be_bytes(self.arr(start, "ext32")?) as usize;
                return self.ext(b, n, start, "ext32");
            }
            0x90..=0x9f => return self.list(b, (t & 0x0f) as usize, start, depth, "fixarray"),
            0xdc => {
                let n = u16::from_be_bytes(self.arr(start, "array16")?) as usize;
                return self.list(b, n, start, depth, "array16");
            }
            0xdd => {
                let n = u32::from_be_bytes(self.arr(start, "array32")?) as usize;
                return self.list(b, n, start, depth, "array32");
            }
            0x80..=0x8f => return self.map(b, (t & 0x0f) as usize, start, depth, "fixmap"),
            0xde => {
                let n = u16::from_be_bytes(self.arr(start, "map16")?) as usize;
                return self.map(b, n, start, depth, "map16");
            }
            0xdf => {
                let n = u32::from_be_bytes(self.arr(start, "map32")?) as usize;
                return self.map(b, n, start, depth, "map32");
            }
        };
        r.map_err(|e| self.reject(e, start, tag_kind(t)))
    }

    fn bytes(
        &mut self,
        b: &mut Builder,
        utf8: bool,
        len: usize,
        start: usize,
        what: &str,
    ) -> Result {
        let s = self.payload(len, start, what)?;
        if utf8 {
            if let Err(e) = std::str::from_utf8(s) {
                return Err(self.bad_utf8(start, self.pos - len + e.valid_up_to(), what));
            }
        }
        b.push_bytes(utf8, s)
            .map_err(|e| self.reject(e, start, if utf8 { "str" } else { "bin" }))
    }

    fn bad_utf8(&self, start: usize, bad: usize, what: &str) -> DecodeError {
        err(
            self.at(start),
            ErrorCode::InvalidUtf8,
            format!(
                "the {what} at byte {} is not valid UTF-8 (bad byte at {})",
                self.at(start),
                self.at(bad)
            ),
        )
    }

    fn ext(&mut self, b: &mut Builder, len: usize, start: usize, what: &str) -> Result {
        if len >= self.remaining() {
            return Err(err(
                self.at(start),
                ErrorCode::OutOfBounds,
                format!(
                    "{what} length {len} at byte {} runs past the end of the input ({} bytes)",
                    self.at(start),
                    self.end()
                ),
            ));
        }
        let ty = self.buf[self.pos] as i8;
        self.pos += 1;
        let data = self.payload(len, start, what)?;
        if ty != -1 {
            return b
                .push_ext(ty, data)
                .map_err(|e| self.reject(e, start, "ext"));
        }
        let (sec, nsec): (i64, u32) = match *data {
            [a, b, c, d] => (u32::from_be_bytes([a, b, c, d]) as i64, 0),
            [a, b, c, d, e, f, g, h] => {
                let v = u64::from_be_bytes([a, b, c, d, e, f, g, h]);
                ((v & 0x3_ffff_ffff) as i64, (v >> 34) as u32)
            }
            [a, b, c, d, e, f, g, h, i, j, k, l] => {
                (i64::from_be_bytes([e, f, g, h, i, j, k, l]), u32::from_be_bytes([a, b, c, d]))
            }
            _ => {
                return Err(err(
                    self.at(start),
                    ErrorCode::Invalid,
                    format!(
                        "the timestamp (ext type -1) at byte {} has {len} data bytes; MessagePack timestamps have 4, 8 or 12",
                        self.at(start)
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
        let ns = sec.checked_mul(1_000_000_000).and_then(|s| s.checked_add(nsec as i64)).ok_or_else(|| {
            err(
                self.at(start),
                ErrorCode::Unsupported,
                format!(
                    "the timestamp at byte {} ({sec} s) is outside the range of Timestamp(ns) (years 1677 to 2262)",
                    self.at(start)
                ),
            )
        })?;
        b.push_timestamp(ns)
            .map_err(|e| self.reject(e, start, "timestamp"))
    }

    fn list(
        &mut self,
        b: &mut Builder,
        count: usize,
        start: usize,
        depth: usize,
        what: &str,
    ) -> Result {
        self.check_count(count, 1, start, what, depth)?;
        let child = b.begin_list().map_err(|e| self.reject(e, start, "array"))?;
        self.seq(child, count, depth + 1, false)?;
        b.end_list().map_err(|e| self.reject(e, start, "array"))
    }

    fn map(
        &mut self,
        b: &mut Builder,
        count: usize,
        start: usize,
        depth: usize,
        what: &str,
    ) -> Result {
        self.check_count(count, 2, start, what, depth)?;
        // Columns created by the struct's first map may each expect one value per row:
        // at most the struct's own hint, and at most the rows that still fit in the input
        // if every row repeats this map (2 bytes per entry at least, plus the header).
        // (Worked out only when a field is created: a division per map is not free.)
        let (hint, left) = (b.hint, self.remaining());
        let rows = move || hint.min(left / (2 * count + 1));
        let (s, row) = b.begin_struct().map_err(|e| self.reject(e, start, "map"))?;
        for i in 0..count {
            let kstart = self.pos;
            let f = match s.keys.hit(i, &self.buf[kstart..]) {
                Some((f, len)) => {
                    self.pos += len;
                    f
                }
                None => self.key_miss(s, i, row, rows)?,
            };
            let child = &mut s.children[f];
            if child.len != row {
                return Err(self.duplicate_key(&s.names[f], kstart, start));
            }
            // Most fields are one scalar that the column takes as it is, or nil.
            if self.peek() == Some(0xc0) {
                self.pos += 1;
                child.push_null();
            } else if self.lane(child, 1) == 0 {
                self.value(child, depth + 1)?;
            }
        }
        b.end_struct(count);
        Ok(())
    }

    /// The field of the key at `pos` when the key cache missed (first map, a changed
    /// key order, a long key): decode, validate and look the key up. Kept out of line so
    /// that `map`'s hot loop stays small.
    #[cold]
    #[inline(never)]
    fn key_miss(
        &mut self,
        s: &mut StructData,
        i: usize,
        row: usize,
        rows: impl FnOnce() -> usize,
    ) -> Result<usize> {
        let kstart = self.pos;
        let key = self.key(kstart)?;
        let encoded = &self.buf[kstart..self.pos];
        let budget = &mut self.budget;
        let hint = || take(budget, if row == 0 { rows() } else { 0 });
        s.field(i, encoded, key, row, hint)
            .map_err(|e| self.bad_utf8(kstart, kstart + e.valid_up_to(), "map key"))
    }

    #[cold]
    fn duplicate_key(&self, name: &str, kstart: usize, start: usize) -> DecodeError {
        err(
            self.at(kstart),
            ErrorCode::Invalid,
            format!(
                "the key \"{name}\" at byte {} repeats a key of the same map (at byte {})",
                self.at(kstart),
                self.at(start)
            ),
        )
    }

    /// The bytes of a map key, which must be a str.
    fn key(&mut self, start: usize) -> Result<&'a [u8]> {
        let Some(t) = self.peek() else {
            return Err(err(
                self.at(start),
                ErrorCode::Truncated,
                format!(
                    "the input ends at byte {} where a map key was expected",
                    self.at(start)
                ),
            ));
        };
        self.pos += 1;
        let (len, what) = match t {
            0xa0..=0xbf => ((t & 0x1f) as usize, "fixstr"),
            0xd9 => (u8::from_be_bytes(self.arr(start, "str8")?) as usize, "str8"),
            0xda => (
                u16::from_be_bytes(self.arr(start, "str16")?) as usize,
                "str16",
            ),
            0xdb => (
                u32::from_be_bytes(self.arr(start, "str32")?) as usize,
                "str32",
            ),
            _ => {
                return Err(err(
                    self.at(start),
                    ErrorCode::Invalid,
                    format!(
                        "the map key at byte {} is a {}; maps become records and need str keys",
                        self.at(start),
                        tag_kind(t)
                    ),
                ))
            }
        };
        self.payload(len, start, what)
    }
}

/// Up to `want` from `budget`.
fn take(budget: &mut usize, want: usize) -> usize {
    let g = want.min(*budget);
    *budget -= g;
    g
}

/// Payloads of `n` records into `dst` (replacing its contents), native order.
#[inline]
fn gather<T: bytemuck::Pod + Default>(recs: &[u8], n: usize, dst: &mut Vec<T>) {
    dst.clear();
    append(recs, n, dst);
}

/// Payloads of `n` records appended to `dst`, native order; returns `n`.
#[inline]
fn append<T: bytemuck::Pod + Default>(recs: &[u8], n: usize, dst: &mut Vec<T>) -> usize {
    let w = std::mem::size_of::<T>();
    let at = dst.len();
    dst.resize(at + n, T::default());
    kernels::gather_swap(recs, w, bytemuck::cast_slice_mut(&mut dst[at..]));
    n
}
