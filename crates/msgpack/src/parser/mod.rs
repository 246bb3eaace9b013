//! The decoding pass: one walk over the bytes, values pushed straight into builders.
//!
//! `Parser` and what every step of the walk shares (positions and offsets, header reads,
//! bounds, budgets and the errors they raise) are here. Each child adds the `Parser`
//! methods of one concept and imports only from here and from the crate's ground modules
//! (`builder`, `tags`, `options`, `plan`, `structures`, `kernels`), never from a sibling:
//!
//! - `value`: one value by its tag, and `seq`, which runs a sequence of values through
//!   the fast paths, the lanes and `value`;
//! - `lanes`: the general path's tight loops, one per column storage;
//! - `fast`: the bulk fast paths (SIMD128 where built);
//! - `records`: maps, as records (one column per key) or as a Map column;
//! - `msgpackr`: msgpackr's records (the structures themselves are `structures.rs`);
//! - `ext`: ext values (timestamps, `undefined`, each type's reading);
//! - `rows`: which values are rows, how they become a batch, and the retries.

mod ext;
mod fast;
mod lanes;
mod msgpackr;
mod records;
pub(crate) mod rows;
mod value;

use std::cell::Cell;

use arrowsmith_core::{DecodeError, ErrorCode, Format};

use crate::builder::Reject;
use crate::options::Options;
use crate::plan::{Plan, Restart};
use crate::structures::Structures;
use crate::tags::{declared, Kind, Tag, TAGS};

pub(crate) type Result<T = ()> = std::result::Result<T, DecodeError>;

/// Fast-path attempts that consumed fewer values than this count as misses.
pub(crate) const RUN_MIN: usize = 4;
/// Only a run this long proves the data has runs and resets the back-off: on mixed data,
/// an occasional run of a few values must not bring back frequent attempts.
const RUN_PAYS: usize = 64;
const BACKOFF_MIN: usize = 8;
const BACKOFF_MAX: usize = 4096;
/// Values a lane takes, when no cooldown is running, before a fast path is tried again.
const LANE_STEP: usize = 256;

/// One attempt at decoding `buf`: the position, the options, the budgets that bound
/// what the input may make us allocate, and what the attempt has learned so far.
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
    /// What earlier attempts at this input learned (see `plan.rs`).
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

/// Reused buffers of the fast paths (payloads gathered before they are widened) and of
/// the lanes.
#[derive(Default)]
pub(crate) struct Scratch {
    u8: Vec<u8>,
    u16: Vec<u16>,
    u32: Vec<u32>,
    i32: Vec<i32>,
    /// The lanes' validity bytes (`Nulls`).
    nulls: Vec<u8>,
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
}

/// Up to `want` from `budget`.
pub(crate) fn take(budget: &mut usize, want: usize) -> usize {
    let g = want.min(*budget);
    *budget -= g;
    g
}
