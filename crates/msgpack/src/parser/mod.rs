//! The decoding pass: one walk over the bytes, values pushed straight into builders.

use std::cell::Cell;

use arrowsmith_core::{DecodeError, ErrorCode, Format};

use crate::builder::{Builder, Data, Reject, Shape};
use crate::lanes::{Scratch, RUN_MIN};
use crate::msgpackr::Structures;
use crate::options::{Maps, Tuples};
use crate::rows::Plan;
use crate::tags::{declared, Kind, Tag, TAGS};
use crate::Options;

pub(crate) type Result<T = ()> = std::result::Result<T, DecodeError>;

/// Only a run this long proves the data has runs and resets the back-off: on mixed data,
/// an occasional run of a few values must not bring back frequent attempts.
const RUN_PAYS: usize = 64;
const BACKOFF_MIN: usize = 8;
const BACKOFF_MAX: usize = 4096;
/// Values a lane takes, when no cooldown is running, before a fast path is tried again.
const LANE_STEP: usize = 256;

pub(crate) struct Parser<'a> {
    pub(crate) buf: &'a [u8],
    pub pos: usize,
    /// Absolute offset of `buf[0]` (streaming, pool pieces), added to every reported offset.
    base: u64,
    pub(crate) opts: &'a Options,
    /// Elements to decode on the general path before trying a fast path again.
    cooldown: usize,
    backoff: usize,
    pub(crate) scratch: Scratch,
    /// Values that builders may still reserve room for up front (`grant`).
    pub(crate) budget: usize,
    /// Null cells that records may still add for missing keys (see `Parser::fill`).
    pub(crate) fill_left: usize,
    /// What earlier attempts at this input learned (see `rows.rs`).
    pub(crate) plan: &'a Plan,
    /// Records columns created so far (their serials).
    pub(crate) serials: usize,
    /// Set with the error that ends an attempt which must be retried another way.
    pub(crate) restart: Option<Restart>,
    /// msgpackr structures defined so far.
    pub(crate) structures: Structures,
    /// The column (`Builder::id`) of the last `TypeMismatch` made (see `Parser::reject`).
    mismatch_in: Cell<Option<u64>>,
    /// `plan.shaped()`, once: whether a fresh column may need `Parser::shape`.
    shaped: bool,
}

/// Why an attempt stops to be retried (the retry decodes from the start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Restart {
    /// Rows that are arrays mix kinds: one column per position.
    Positional,
    /// The records column with this serial becomes a Map column.
    Wide(usize),
    /// `Layout::Auto`: more values follow the top-level array, so each top-level value
    /// is a row.
    Values,
    /// The nested column with this id holds arrays of mixed kinds: positional structs.
    Tuple(u64),
    /// The column with this id mixes str and maps: Rust externally tagged enums.
    Enum(u64),
    /// The column with this id is not one of Rust enums (a map of other than one key).
    NotEnum(u64),
}

/// Null cells for missing keys allowed per input byte (plus `FILL_FLOOR`): enough for
/// records that leave out a few keys each, not for 1,000 columns of which each row sets
/// one (that is what a Map column is for).
const FILL_PER_BYTE: usize = 4;
const FILL_FLOOR: usize = 1 << 16;

pub(crate) fn err(offset: u64, code: ErrorCode, message: String) -> DecodeError {
    DecodeError::new(Format::MessagePack, offset, code, message)
}

impl<'a> Parser<'a> {
    pub fn new(
        buf: &'a [u8],
        base: u64,
        opts: &'a Options,
        plan: &'a Plan,
        structures: Structures,
    ) -> Self {
        Parser {
            buf,
            pos: 0,
            base,
            opts,
            cooldown: 0,
            backoff: BACKOFF_MIN,
            scratch: Scratch::default(),
            budget: buf.len(),
            fill_left: buf.len().saturating_mul(FILL_PER_BYTE) + FILL_FLOOR,
            plan,
            serials: 0,
            restart: None,
            structures,
            mismatch_in: Cell::new(None),
            shaped: plan.shaped(),
        }
    }

    /// End this attempt: it is retried with what `r` says.
    #[cold]
    pub(crate) fn restart(&mut self, r: Restart) -> DecodeError {
        self.restart = Some(r);
        err(self.at(self.pos), ErrorCode::Invalid, format!("{r:?}"))
    }

    /// Up to `want` values of reserved capacity. All grants of one parse together never
    /// exceed the input length, so reservations stay within a small multiple of the
    /// input (at most 8 bytes per input byte) however the input declares its counts.
    pub(crate) fn grant(&mut self, want: usize) -> usize {
        take(&mut self.budget, want)
    }

    #[inline]
    pub(crate) fn at(&self, pos: usize) -> u64 {
        self.base + pos as u64
    }

    pub(crate) fn end(&self) -> u64 {
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
    pub(crate) fn arr<const N: usize>(&mut self, start: usize, what: &str) -> Result<[u8; N]> {
        match self.buf.get(self.pos..self.pos + N) {
            Some(s) => {
                self.pos += N;
                Ok(s.try_into().unwrap_or([0; N]))
            }
            None => Err(self.truncated(start, what, 1 + N)),
        }
    }

    pub(crate) fn truncated(&self, start: usize, what: &str, need: usize) -> DecodeError {
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
    pub(crate) fn payload(&mut self, len: usize, start: usize, what: &str) -> Result<&'a [u8]> {
        if len > self.remaining() {
            return Err(self.past_end(len, start, what));
        }
        let s = &self.buf[self.pos..self.pos + len];
        self.pos += len;
        Ok(s)
    }

    /// The OutOfBounds error of a `len`-byte payload of the value at `start` that the input cannot hold.
    pub(crate) fn past_end(&self, len: usize, start: usize, what: &str) -> DecodeError {
        err(
            self.at(start),
            ErrorCode::OutOfBounds,
            format!(
                "{what} length {len} at byte {} runs past the end of the input ({} bytes)",
                self.at(start),
                self.end()
            ),
        )
    }

    /// A container declaring `count` values (each ≥ 1 byte) must fit in what remains.
    #[inline]
    pub(crate) fn check_count(
        &self,
        count: usize,
        per: usize,
        start: usize,
        what: &str,
        depth: usize,
    ) -> Result {
        if depth >= self.opts.max_depth
            || count.checked_mul(per).is_none_or(|n| n > self.remaining())
        {
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
        if depth >= self.opts.max_depth {
            return err(
                self.at(start),
                ErrorCode::TooDeep,
                format!(
                    "the {what} at byte {} nests deeper than max_depth = {}",
                    self.at(start),
                    self.opts.max_depth
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

    pub(crate) fn reject(&self, r: Reject, start: usize, got: &str) -> DecodeError {
        let at = self.at(start);
        if let Reject::Mismatch { id, .. } = r {
            self.mismatch_in.set(Some(id));
        }
        match r {
            Reject::Mismatch { have, got, .. } => err(
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
            Reject::Inexact(x) => err(
                at,
                ErrorCode::TypeMismatch,
                format!(
                    "the {got} at byte {at} joins ints and floats in one column, a Float64 column, which cannot hold the int {x} exactly (past 2^53); no Arrow column holds both exactly: write that field's numbers as one kind (all ints or all floats)"
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
        let tag = &TAGS[t as usize];
        if tag.kind != Kind::Array {
            return Ok(None);
        }
        self.pos += 1;
        let n = self.length(tag, start)?;
        self.check_count(n, 1, start, tag.name, 0)?;
        Ok(Some(n))
    }

    /// The length or count that the header of `tag` at `start` declares (the tag byte
    /// already consumed).
    #[inline]
    pub(crate) fn length(&mut self, tag: &Tag, start: usize) -> Result<usize> {
        match declared(tag, &self.buf[self.pos..]) {
            Some(n) => {
                self.pos += tag.len_bytes as usize;
                Ok(n as usize)
            }
            None => Err(self.truncated(start, tag.name, 1 + tag.len_bytes as usize)),
        }
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
            if self.opts.fast_path && self.cooldown == 0 {
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
            // General path. Int, float, bool and Utf8 columns take a tight loop over the
            // tags they accept and nil (one call per run, not per value).
            // After a short fast run, only up to the cooldown, so that the next run is seen.
            // Lanes take nil too, so without a cooldown a lane goes at most LANE_STEP values
            // before a fast path is tried again (a long fixint run after a nil).
            let lim = if self.cooldown > 0 {
                self.cooldown.min(left)
            } else if self.opts.fast_path {
                left.min(LANE_STEP)
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
            if let (Data::Struct(_) | Data::Map(_), Some((count, len, what))) =
                (&b.data, self.map_header())
            {
                let start = self.pos;
                self.pos += len;
                self.map(b, count, start, depth, what)?;
                left -= 1;
                self.cooldown = self.cooldown.saturating_sub(1);
                continue;
            }
            if self.peek() == Some(0xc0) {
                // Nil, straight to the validity bitmap.
                self.pos += 1;
                b.push_null();
            } else {
                self.value(b, depth)?;
            }
            left -= 1;
            self.cooldown = self.cooldown.saturating_sub(1);
        }
        Ok(())
    }

    /// The element count, header length and name of a complete map header at `pos`.
    #[inline]
    fn map_header(&self) -> Option<(usize, usize, &'static str)> {
        let b = &self.buf[self.pos..];
        let tag = &TAGS[*b.first()? as usize];
        if tag.kind != Kind::Map {
            return None;
        }
        let n = declared(tag, &b[1..])?;
        Some((n as usize, 1 + tag.len_bytes as usize, tag.name))
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
        let tag = &TAGS[t as usize];
        self.pos += 1;
        if self.shaped && matches!(b.data, Data::Empty) {
            self.shape(b);
        }
        let r = match tag.kind {
            Kind::Int if self.structures.refers(t) => return self.record_ref(b, t, start, depth),
            Kind::Int => match t {
                0xcc => b.push_u64(u8::from_be_bytes(self.arr(start, "uint8")?) as u64),
                0xcd => b.push_u64(u16::from_be_bytes(self.arr(start, "uint16")?) as u64),
                0xce => b.push_u64(u32::from_be_bytes(self.arr(start, "uint32")?) as u64),
                0xcf => b.push_u64(u64::from_be_bytes(self.arr(start, "uint64")?)),
                0xd0 => b.push_i64(i8::from_be_bytes(self.arr(start, "int8")?) as i64),
                0xd1 => b.push_i64(i16::from_be_bytes(self.arr(start, "int16")?) as i64),
                0xd2 => b.push_i64(i32::from_be_bytes(self.arr(start, "int32")?) as i64),
                0xd3 => b.push_i64(i64::from_be_bytes(self.arr(start, "int64")?)),
                // Positive and negative fixints.
                _ => b.push_i64(t as i8 as i64),
            },
            Kind::Float => match t {
                0xca => b.push_f32(f32::from_be_bytes(self.arr(start, "float32")?)),
                _ => b.push_f64(f64::from_be_bytes(self.arr(start, "float64")?)),
            },
            Kind::Nil => {
                b.push_null();
                Ok(())
            }
            Kind::Bool => b.push_bool(t == 0xc3),
            Kind::Reserved => {
                return Err(err(
                    self.at(start),
                    ErrorCode::Invalid,
                    format!(
                        "byte 0xc1 at byte {} is never used in MessagePack",
                        self.at(start)
                    ),
                ))
            }
            Kind::Str | Kind::Bin => {
                let n = self.length(tag, start)?;
                return self.bytes(b, tag.kind == Kind::Str, n, start, tag.name);
            }
            Kind::Ext => {
                let n = self.length(tag, start)?;
                return self.ext(b, n, start, tag.name, depth);
            }
            Kind::Array => {
                let n = self.length(tag, start)?;
                if matches!(&b.data, Data::Struct(s) if s.shape == Shape::Positional) {
                    return self.tuple(b, n, start, depth, tag.name, false);
                }
                return self.list(b, n, start, depth, tag.name);
            }
            Kind::Map => {
                let n = self.length(tag, start)?;
                return self.map(b, n, start, depth, tag.name);
            }
        };
        r.map_err(|e| self.reject(e, start, tag.kind.name()))
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
        match b.push_bytes(utf8, s) {
            Ok(()) => Ok(()),
            Err(_) if utf8 && matches!(&b.data, Data::Struct(s) if s.shape == Shape::Tagged) => {
                self.unit_variant(b, s, start)
            }
            Err(e) => {
                if utf8 && matches!(&b.data, Data::Struct(s) if s.shape == Shape::Records) {
                    if let Some(r) = self.enum_column(b.id) {
                        return Err(r);
                    }
                }
                Err(self.reject(e, start, if utf8 { "str" } else { "bin" }))
            }
        }
    }

    /// Storage for the first value of a column that an earlier attempt found positional
    /// or tagged (`Plan`).
    #[cold]
    fn shape(&mut self, b: &mut Builder) {
        if self.plan.tuples.contains(&b.id) {
            b.start_struct(None, usize::MAX, Shape::Positional);
        } else if self.plan.enums.contains(&b.id) {
            b.start_struct(None, usize::MAX, Shape::Tagged);
            let row = b.len;
            if let Data::Struct(s) = &mut b.data {
                s.add("variant", row, 0);
            }
        }
    }

    /// A str and maps in one column (records): a retry reads it as Rust enums, once.
    #[cold]
    pub(crate) fn enum_column(&mut self, id: u64) -> Option<DecodeError> {
        (self.opts.maps == Maps::Records
            && self.restart.is_none()
            && !self.plan.enums.contains(&id)
            && !self.plan.not_enums.contains(&id))
        .then(|| self.restart(Restart::Enum(id)))
    }

    /// A str in an enum column: a unit variant.
    fn unit_variant(&mut self, b: &mut Builder, name: &[u8], start: usize) -> Result {
        let (s, row) = b.records().map_err(|e| self.reject(e, start, "str"))?;
        let v = &mut s.children[0];
        v.catch_up(row);
        v.push_bytes(true, name)
            .map_err(|e| self.reject(e, start, "str"))?;
        self.end_record(b, 1, start)
    }

    pub(crate) fn bad_utf8(&self, start: usize, bad: usize, what: &str) -> DecodeError {
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

    fn list(
        &mut self,
        b: &mut Builder,
        count: usize,
        start: usize,
        depth: usize,
        what: &str,
    ) -> Result {
        self.check_count(count, 1, start, what, depth)?;
        if count == 0 && takes_maps(&b.data) {
            // An empty array among maps is an empty map: PHP writes an empty array as one.
            return self.map(b, 0, start, depth, what);
        }
        let id = b.id;
        let child = b.begin_list().map_err(|e| self.reject(e, start, "array"))?;
        let item = child.id;
        if let Err(e) = self.seq(child, count, depth + 1, false) {
            return Err(self.mixed_items(id, item, e));
        }
        b.end_list().map_err(|e| self.reject(e, start, "array"))
    }

    /// The error `e` ended the items of an array in column `id`: if they are of kinds
    /// that one column does not hold, a retry reads that column's arrays as positional
    /// structs (as rows that are arrays are read: `Tuples`). The rows' own column (id 0)
    /// follows the rows' rule (`rows.rs`).
    #[cold]
    fn mixed_items(&mut self, id: u64, item: u64, e: DecodeError) -> DecodeError {
        let mixed = e.code == ErrorCode::TypeMismatch
            && self.mismatch_in.get() == Some(item)
            && id != 0
            && self.restart.is_none()
            && self.opts.tuples() != Tuples::List
            && !self.plan.tuples.contains(&id);
        if mixed {
            return self.restart(Restart::Tuple(id));
        }
        e
    }
}

/// Whether a column holds maps (records or a Map column; not positional rows).
fn takes_maps(d: &Data) -> bool {
    match d {
        Data::Struct(s) => s.shape == Shape::Records,
        Data::Map(_) => true,
        _ => false,
    }
}

/// Up to `want` from `budget`.
pub(crate) fn take(budget: &mut usize, want: usize) -> usize {
    let g = want.min(*budget);
    *budget -= g;
    g
}
