//! The general path's tight loops ("lanes").
//!
//! A lane takes, in one call, a run of values that its column stores as they are and
//! stops, without consuming, at anything else (nil included: `seq` pushes it): then
//! `Parser::value` decodes that value or reports the error, so every error still comes
//! from one place. (The bulk fast paths, which decode a run of one encoding in one go,
//! are `fast.rs`.)

use arrowsmith_core::Bitmap;

use crate::builder::{Builder, Data};

use super::Parser;

/// An int storage: which decoded ints it holds as they are.
pub(crate) trait IntSlot: Copy + Default {
    fn signed(x: i64) -> Option<Self>;
    fn unsigned(x: u64) -> Option<Self>;
    /// A 1-, 2- or 4-byte payload read both ways (`u` zero-extended, `i` sign-extended),
    /// `signed` choosing which; chosen by a select, not a branch.
    fn sized(u: u32, i: i32, signed: bool) -> Option<Self>;
}

/// `INT_KIND` classes: how the int lane's hot loop reads a tag.
const ONE_BYTE: u8 = 0;
const SIZED: u8 = 1;
const EIGHT: u8 = 2;
const NOT_INT: u8 = 3;

/// The int lane's class of each tag byte: a fixint or nil (`ONE_BYTE`), a uint8/16/32 or
/// int8/16/32 (`SIZED`: payload width `1 << (tag & 3)`, signed when `tag & 0x10`), a
/// uint64/int64 (`EIGHT`), anything else (`NOT_INT`: the lane stops).
const INT_KIND: [u8; 256] = {
    let mut k = [NOT_INT; 256];
    let mut t = 0;
    while t < 256 {
        k[t] = match t as u8 {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 => ONE_BYTE,
            0xcc..=0xce | 0xd0..=0xd2 => SIZED,
            0xcf | 0xd3 => EIGHT,
            _ => NOT_INT,
        };
        t += 1;
    }
    k
};

impl IntSlot for i32 {
    #[inline(always)]
    fn signed(x: i64) -> Option<Self> {
        i32::try_from(x).ok()
    }
    #[inline(always)]
    fn unsigned(x: u64) -> Option<Self> {
        i32::try_from(x).ok()
    }
    #[inline(always)]
    fn sized(u: u32, i: i32, signed: bool) -> Option<Self> {
        // Only a uint32 at or above 2^31 does not fit.
        let x = if signed { i } else { u as i32 };
        (signed | (x >= 0)).then_some(x)
    }
}

impl IntSlot for i64 {
    #[inline(always)]
    fn signed(x: i64) -> Option<Self> {
        Some(x)
    }
    #[inline(always)]
    fn unsigned(x: u64) -> Option<Self> {
        i64::try_from(x).ok()
    }
    #[inline(always)]
    fn sized(u: u32, i: i32, signed: bool) -> Option<Self> {
        Some(if signed { i as i64 } else { u as i64 })
    }
}

impl IntSlot for u64 {
    #[inline(always)]
    fn signed(x: i64) -> Option<Self> {
        u64::try_from(x).ok()
    }
    #[inline(always)]
    fn unsigned(x: u64) -> Option<Self> {
        Some(x)
    }
    #[inline(always)]
    fn sized(u: u32, i: i32, signed: bool) -> Option<Self> {
        let x = if signed { i as i64 } else { u as i64 };
        (x >= 0).then_some(x as u64)
    }
}

/// The uint64 (`t` = 0xcf) or int64 whose tag is at `pos`, if its bytes are there and it
/// fits `T`.
#[inline(always)]
fn int64_at<T: IntSlot>(buf: &[u8], pos: usize, t: u8) -> Option<T> {
    let u = u64::from_be_bytes(be::<8>(buf, pos)?);
    if t == 0xcf {
        T::unsigned(u)
    } else {
        T::signed(u as i64)
    }
}

/// `N` big-endian bytes after the tag at `pos`, if present.
#[inline(always)]
fn be<const N: usize>(buf: &[u8], pos: usize) -> Option<[u8; N]> {
    buf.get(pos + 1..pos + 1 + N)?.try_into().ok()
}

impl Parser<'_> {
    /// The lane for `b`'s storage: up to `max` values that the column takes as they are,
    /// nil included (a placeholder value and a validity bit, in the same pass).
    /// Returns the number taken (0: nothing consumed).
    #[inline(always)]
    pub(crate) fn lane(&mut self, b: &mut Builder, max: usize) -> usize {
        let mut nulls = Nulls::new(
            &mut b.validity,
            b.len,
            std::mem::take(&mut self.scratch.nulls),
        );
        let n = match &mut b.data {
            Data::I32(v) => self.int_lane(v, &mut nulls, max),
            Data::I64(v) => self.int_lane(v, &mut nulls, max),
            Data::U64(v) => self.int_lane(v, &mut nulls, max),
            Data::F64(v) => self.f64_lane(v, &mut nulls, max),
            Data::F32(v) => self.f32_lane(v, &mut nulls, max),
            Data::Bool(m) => self.bool_lane(m, &mut nulls, max),
            Data::Bytes {
                utf8: true,
                offsets,
                data,
            } => self.str_lane(offsets, data, &mut nulls, max),
            _ => 0,
        };
        self.scratch.nulls = nulls.finish(n);
        b.len += n;
        n
    }

    /// `lane(b, 1)` for one value (a record's field): the same lanes, with the value's nil
    /// flag in a register instead of the run's validity scratch (`Nulls`), whose moves
    /// cost more than decoding one value. Returns whether it took the value.
    #[inline(always)]
    pub(crate) fn lane_one(&mut self, b: &mut Builder) -> bool {
        let mut nil = OneNull(false);
        let n = match &mut b.data {
            Data::I32(v) => self.int_lane(v, &mut nil, 1),
            Data::I64(v) => self.int_lane(v, &mut nil, 1),
            Data::U64(v) => self.int_lane(v, &mut nil, 1),
            Data::F64(v) => self.f64_lane(v, &mut nil, 1),
            Data::F32(v) => self.f32_lane(v, &mut nil, 1),
            Data::Bool(m) => self.bool_lane(m, &mut nil, 1),
            Data::Bytes {
                utf8: true,
                offsets,
                data,
            } => self.str_lane(offsets, data, &mut nil, 1),
            _ => 0,
        };
        if n == 0 {
            return false;
        }
        match &mut b.validity {
            Some(m) => m.push(!nil.0),
            None if nil.0 => {
                let mut m = Bitmap::filled(b.len, true);
                m.push(false);
                b.validity = Some(m);
            }
            None => {}
        }
        b.len += 1;
        true
    }

    /// Up to `max` ints that fit `T`; stops (without consuming) at anything else,
    /// including a truncated header or an int that needs a wider column.
    ///
    /// Two kinds of tag share the hot loop: a one-byte value (fixint or nil) and a 1-, 2-
    /// or 4-byte int, whose width is `1 << (tag & 3)` and whose value is shifted out of
    /// one big-endian 4-byte window, signed or not by a select. Random mixes of encodings
    /// then mispredict a two-way branch instead of a five-way one, and the loop reads the
    /// input once per value (one bounds check for the tag and the window). 8-byte ints
    /// have a third arm; the input's last 4 bytes take `int_lane_tail`.
    #[inline(always)]
    #[allow(unsafe_code)] // set_len over the spare slots the loop wrote
    fn int_lane<T: IntSlot>(
        &mut self,
        v: &mut Vec<T>,
        nulls: &mut impl NullMark,
        max: usize,
    ) -> usize {
        let buf = self.buf;
        let mut pos = self.pos;
        let refs = self.structures.active();
        // Every value takes at least one byte: room for what the input can still hold.
        v.reserve(max.min(buf.len() - pos));
        let first = v.len();
        let out = v.spare_capacity_mut();
        let lim = out.len().min(max);
        let mut n = 0;
        while n < lim {
            let Some(w) = buf.get(pos..pos + 5) else {
                break;
            };
            let t = w[0];
            let x = match INT_KIND[t as usize] {
                ONE_BYTE => {
                    if t == 0xc0 {
                        nulls.null(n);
                        T::default()
                    } else {
                        // With msgpackr structures defined, 0x40..=0x7f may be records.
                        if refs && t & 0xc0 == 0x40 {
                            break;
                        }
                        let Some(x) = T::signed(t as i8 as i64) else {
                            break;
                        };
                        x
                    }
                }
                SIZED => {
                    let width = 1usize << (t & 3);
                    let be = u32::from_be_bytes([w[1], w[2], w[3], w[4]]);
                    let shift = 32 - 8 * width as u32;
                    let Some(x) = T::sized(be >> shift, (be as i32) >> shift, t & 0x10 != 0) else {
                        break;
                    };
                    pos += width;
                    x
                }
                EIGHT => {
                    let Some(x) = int64_at(buf, pos, t) else {
                        break;
                    };
                    pos += 8;
                    x
                }
                _ => break,
            };
            pos += 1;
            out[n].write(x);
            n += 1;
        }
        // SAFETY: the first `n` spare slots were written above (`n <= lim <= out.len()`).
        unsafe { v.set_len(first + n) };
        self.pos = pos;
        if n < max && buf.len() - pos < 5 {
            n + self.int_lane_tail(v, nulls, n, max - n)
        } else {
            n
        }
    }

    /// The int lane one tag at a time, for the last bytes of the input (where
    /// `int_lane`'s window would run past the end). `done`: values the lane took
    /// before (their validity bits come first).
    #[inline(never)]
    fn int_lane_tail<T: IntSlot>(
        &mut self,
        v: &mut Vec<T>,
        nulls: &mut impl NullMark,
        done: usize,
        max: usize,
    ) -> usize {
        let buf = self.buf;
        let mut pos = self.pos;
        let first = v.len();
        let end = first.saturating_add(max);
        let refs = self.structures.active();
        while v.len() < end {
            let Some(&t) = buf.get(pos) else { break };
            // Each arm checks that its bytes are there and that the value fits, and stops
            // the lane otherwise (the checks fold away where a type always fits).
            let x = match t {
                0xc0 => {
                    nulls.null(done + v.len() - first);
                    pos += 1;
                    T::default()
                }
                0x00..=0x3f | 0xe0..=0xff => {
                    let Some(x) = T::signed(t as i8 as i64) else {
                        break;
                    };
                    pos += 1;
                    x
                }
                // With msgpackr structures defined, these bytes may be records.
                0x40..=0x7f => {
                    if refs {
                        break;
                    }
                    pos += 1;
                    let Some(x) = T::signed(t as i64) else { break };
                    x
                }
                0xcc | 0xd0 => {
                    let Some(&p) = buf.get(pos + 1) else { break };
                    let x = if t == 0xcc {
                        T::unsigned(p as u64)
                    } else {
                        T::signed(p as i8 as i64)
                    };
                    let Some(x) = x else { break };
                    pos += 2;
                    x
                }
                0xcd | 0xd1 => {
                    let Some(p) = be::<2>(buf, pos) else { break };
                    let u = u16::from_be_bytes(p);
                    let x = if t == 0xcd {
                        T::unsigned(u as u64)
                    } else {
                        T::signed(u as i16 as i64)
                    };
                    let Some(x) = x else { break };
                    pos += 3;
                    x
                }
                0xce | 0xd2 => {
                    let Some(p) = be::<4>(buf, pos) else { break };
                    let u = u32::from_be_bytes(p);
                    let x = if t == 0xce {
                        T::unsigned(u as u64)
                    } else {
                        T::signed(u as i32 as i64)
                    };
                    let Some(x) = x else { break };
                    pos += 5;
                    x
                }
                0xcf | 0xd3 => {
                    let Some(x) = int64_at(buf, pos, t) else {
                        break;
                    };
                    pos += 9;
                    x
                }
                _ => break,
            };
            v.push(x);
        }
        self.pos = pos;
        v.len() - first
    }

    /// Up to `max` floats or ints into a Float64 column.
    #[inline(always)]
    fn f64_lane(&mut self, v: &mut Vec<f64>, nulls: &mut impl NullMark, max: usize) -> usize {
        let buf = self.buf;
        let mut pos = self.pos;
        let first = v.len();
        let end = first.saturating_add(max);
        let refs = self.structures.active();
        while v.len() < end {
            let Some(&t) = buf.get(pos) else { break };
            let (x, w) = match t {
                0x40..=0x7f if refs => break,
                0xc0 => {
                    nulls.null(v.len() - first);
                    (0.0, 1)
                }
                0xcb => match be::<8>(buf, pos) {
                    Some(p) => (f64::from_be_bytes(p), 9),
                    None => break,
                },
                0xca => match be::<4>(buf, pos) {
                    Some(p) => (f32::from_be_bytes(p) as f64, 5),
                    None => break,
                },
                0x00..=0x7f | 0xe0..=0xff => (t as i8 as f64, 1),
                0xcc => match be::<1>(buf, pos) {
                    Some(p) => (u8::from_be_bytes(p) as f64, 2),
                    None => break,
                },
                0xcd => match be::<2>(buf, pos) {
                    Some(p) => (u16::from_be_bytes(p) as f64, 3),
                    None => break,
                },
                0xce => match be::<4>(buf, pos) {
                    Some(p) => (u32::from_be_bytes(p) as f64, 5),
                    None => break,
                },
                // Past 2^53 an int may have no exact Float64 value: `value` decides.
                0xcf => match be::<8>(buf, pos) {
                    Some(p) if u64::from_be_bytes(p) <= 1 << 53 => {
                        (u64::from_be_bytes(p) as f64, 9)
                    }
                    _ => break,
                },
                0xd0 => match be::<1>(buf, pos) {
                    Some(p) => (i8::from_be_bytes(p) as f64, 2),
                    None => break,
                },
                0xd1 => match be::<2>(buf, pos) {
                    Some(p) => (i16::from_be_bytes(p) as f64, 3),
                    None => break,
                },
                0xd2 => match be::<4>(buf, pos) {
                    Some(p) => (i32::from_be_bytes(p) as f64, 5),
                    None => break,
                },
                0xd3 => match be::<8>(buf, pos) {
                    Some(p) if i64::from_be_bytes(p).unsigned_abs() <= 1 << 53 => {
                        (i64::from_be_bytes(p) as f64, 9)
                    }
                    _ => break,
                },
                _ => break,
            };
            v.push(x);
            pos += w;
        }
        self.pos = pos;
        v.len() - first
    }

    /// Up to `max` float32 values into a Float32 column.
    #[inline(always)]
    fn f32_lane(&mut self, v: &mut Vec<f32>, nulls: &mut impl NullMark, max: usize) -> usize {
        let buf = self.buf;
        let mut pos = self.pos;
        let first = v.len();
        let end = first.saturating_add(max);
        while v.len() < end {
            if let Some(&[0xca, a, b, c, d]) = buf.get(pos..pos + 5) {
                pos += 5;
                v.push(f32::from_be_bytes([a, b, c, d]));
            } else if buf.get(pos) == Some(&0xc0) {
                nulls.null(v.len() - first);
                pos += 1;
                v.push(0.0);
            } else {
                break;
            }
        }
        self.pos = pos;
        v.len() - first
    }

    /// Up to `max` bools into a Bool column. The bits are gathered a byte at a time
    /// without a branch on the value (`Bitmap::push` branches on each bit: random bools
    /// mispredict half of them), then appended at once.
    #[inline(always)]
    fn bool_lane(&mut self, m: &mut Bitmap, nulls: &mut impl NullMark, max: usize) -> usize {
        if max == 1 {
            // A record's field: one value, pushed as it is.
            let t = match self.peek() {
                Some(t @ (0xc2 | 0xc3)) => t,
                Some(0xc0) => {
                    nulls.null(0);
                    0xc2
                }
                _ => return 0,
            };
            m.push(t == 0xc3);
            self.pos += 1;
            return 1;
        }
        let src = &self.buf[self.pos..];
        let src = &src[..src.len().min(max)];
        let bits = &mut self.scratch.u8;
        bits.clear();
        let (mut n, mut byte) = (0, 0u8);
        for &t in src {
            if t & 0xfe != 0xc2 {
                if t != 0xc0 {
                    break;
                }
                nulls.null(n);
            }
            byte |= ((t == 0xc3) as u8) << (n % 8);
            n += 1;
            if n % 8 == 0 {
                bits.push(byte);
                byte = 0;
            }
        }
        if n % 8 != 0 {
            bits.push(byte);
        }
        m.extend_from_lsb_first(bits, 0, n);
        self.pos += n;
        n
    }

    /// Up to `max` valid-UTF-8 strs (fixstr, str8, str16) or nils into a Utf8 column;
    /// stops (without consuming) at anything else or any problem.
    ///
    /// The run is copied first (headers read, bytes and offsets appended, no per-value
    /// validation) and its data validated at once: an ASCII check over the whole region,
    /// else one UTF-8 check over it plus a char-boundary check at each string start (a
    /// concatenation of strings is valid UTF-8 with every start on a char boundary exactly
    /// when every string is valid). A run that fails is rolled back and taken again string
    /// by string, stopping before the bad one, so that `value` reports it.
    #[inline(always)]
    fn str_lane(
        &mut self,
        offsets: &mut Vec<i32>,
        data: &mut Vec<u8>,
        nulls: &mut impl NullMark,
        max: usize,
    ) -> usize {
        // Data grows by at most the remaining input: then every offset fits i32.
        if i32::try_from(data.len() + self.remaining()).is_err() {
            return self.str_lane_checked(offsets, data, nulls, max);
        }
        let buf = self.buf;
        let mut pos = self.pos;
        let (data0, off0) = (data.len(), offsets.len());
        let mut n = 0;
        while n < max {
            let Some(&t) = buf.get(pos) else { break };
            if t == 0xc0 {
                nulls.null(n);
                offsets.push(data.len() as i32);
                pos += 1;
                n += 1;
                continue;
            }
            let Some((h, len)) = str_header(buf, pos, t) else {
                break;
            };
            let at = pos + h;
            // Short strings: one fixed 16-byte copy (no length-dependent memcpy call),
            // the tail dropped again.
            if let (true, Some(w)) = (len <= 16, buf.get(at..at + 16)) {
                let w: &[u8; 16] = w.try_into().unwrap_or(&[0; 16]);
                let keep = data.len() + len;
                data.extend_from_slice(w);
                data.truncate(keep);
            } else if let Some(s) = buf.get(at..at + len) {
                data.extend_from_slice(s);
            } else {
                break;
            }
            offsets.push(data.len() as i32);
            pos = at + len;
            n += 1;
        }
        if !utf8_strings(data, data0, &offsets[off0..]) {
            // Taken again string by string, up to the bad one.
            data.truncate(data0);
            offsets.truncate(off0);
            nulls.rollback();
            return self.str_lane_checked(offsets, data, nulls, max);
        }
        self.pos = pos;
        n
    }

    /// `str_lane` validating each string before it is taken (the runs that fail the
    /// batched check, and data near the 2^31-byte offset limit).
    #[cold]
    #[inline(never)]
    fn str_lane_checked(
        &mut self,
        offsets: &mut Vec<i32>,
        data: &mut Vec<u8>,
        nulls: &mut impl NullMark,
        max: usize,
    ) -> usize {
        let buf = self.buf;
        let mut pos = self.pos;
        let mut n = 0;
        while n < max {
            let Some(&t) = buf.get(pos) else { break };
            let header = if t == 0xc0 {
                Some((1, 0))
            } else {
                str_header(buf, pos, t)
            };
            let Some((h, len)) = header else { break };
            let Some(s) = buf.get(pos + h..pos + h + len) else {
                break;
            };
            let Ok(end) = i32::try_from(data.len() + len) else {
                break;
            };
            if std::str::from_utf8(s).is_err() {
                break;
            }
            if t == 0xc0 {
                nulls.null(n);
            }
            data.extend_from_slice(s);
            offsets.push(end);
            pos += h + len;
            n += 1;
        }
        self.pos = pos;
        n
    }
}

/// Header length and data length of the fixstr, str8 or str16 whose tag `t` is at `pos`.
#[inline(always)]
fn str_header(buf: &[u8], pos: usize, t: u8) -> Option<(usize, usize)> {
    match t {
        0xa0..=0xbf => Some((1, (t & 0x1f) as usize)),
        0xd9 => be::<1>(buf, pos).map(|[l]| (2, l as usize)),
        0xda => be::<2>(buf, pos).map(|p| (3, u16::from_be_bytes(p) as usize)),
        _ => None,
    }
}

/// Whether the strings appended to `data` from `data0` on, ending at `ends`, are each
/// valid UTF-8: the region is ASCII, or valid UTF-8 with every string starting on a char
/// boundary (not at a continuation byte 0x80–0xbf).
fn utf8_strings(data: &[u8], data0: usize, ends: &[i32]) -> bool {
    let region = &data[data0..];
    if region.is_ascii() {
        return true;
    }
    std::str::from_utf8(region).is_ok()
        && ends
            .iter()
            .all(|&e| data.get(e as usize).is_none_or(|&b| b as i8 >= -64))
}

/// The validity a lane writes as it goes: nothing per valid value; a nil clears its bit
/// in a lane-local byte buffer (all set otherwise), appended to the column's bitmap in
/// bulk when the lane ends (creating the bitmap, all set up to there, at a first nil).
/// Where a lane marks the nils it takes: a run's validity bits (`Nulls`), or one value's
/// flag (`OneNull`).
pub(crate) trait NullMark {
    /// The lane's value `at` (0-based within the lane) is nil.
    fn null(&mut self, at: usize);
    /// Forget the lane's nils (its values are rolled back).
    fn rollback(&mut self);
}

/// One value's nil.
pub(crate) struct OneNull(bool);

impl NullMark for OneNull {
    #[inline(always)]
    fn null(&mut self, _: usize) {
        self.0 = true;
    }
    #[inline(always)]
    fn rollback(&mut self) {
        self.0 = false;
    }
}

impl NullMark for Nulls<'_> {
    #[inline(always)]
    fn null(&mut self, at: usize) {
        self.mark(at);
    }
    #[inline(always)]
    fn rollback(&mut self) {
        self.forget();
    }
}

pub(crate) struct Nulls<'b> {
    bits: &'b mut Option<Bitmap>,
    /// The column's length before the lane.
    before: usize,
    /// Validity bits of the lane's values (LSB first), as far as a nil has needed them.
    local: Vec<u8>,
    /// Whether any value of the lane was nil.
    any: bool,
}

impl<'b> Nulls<'b> {
    #[inline(always)]
    fn new(bits: &'b mut Option<Bitmap>, before: usize, local: Vec<u8>) -> Self {
        Nulls {
            bits,
            before,
            local,
            any: false,
        }
    }

    /// The lane's value `at` (0-based within the lane) is nil.
    #[inline(always)]
    fn mark(&mut self, at: usize) {
        let byte = at / 8;
        if byte >= self.local.len() {
            self.local.resize(byte + 1 + byte / 2, 0xff);
        }
        self.local[byte] &= !(1 << (at % 8));
        self.any = true;
    }

    /// The lane took `n` values: their validity goes to the column's bitmap. Returns the
    /// local buffer for reuse.
    #[inline(always)]
    fn finish(mut self, n: usize) -> Vec<u8> {
        if self.any {
            let need = n.div_ceil(8);
            // Bytes past the last nil were never written: all valid.
            if self.local.len() < need {
                self.local.resize(need, 0xff);
            }
            self.bits
                .get_or_insert_with(|| Bitmap::filled(self.before, true))
                .extend_from_lsb_first(&self.local, 0, n);
        } else if let Some(m) = self.bits {
            m.push_n(true, n);
        }
        self.local.clear();
        self.local
    }

    /// Forget the lane's nils (its values are rolled back).
    fn forget(&mut self) {
        self.local.clear();
        self.any = false;
    }
}
