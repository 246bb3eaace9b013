//! Incremental decoding: bytes arrive in chunks, rows leave as soon as they are complete.
//!
//! `push` runs the resumable structural scanner (`scan.rs`) over the new bytes only, so
//! finding row boundaries never rescans earlier bytes. `take_batch` decodes complete
//! rows exactly once, straight into fresh builders (schema inferred per batch).

use arrowsmith_core::{Batch, DecodeError, ErrorCode};

use crate::builder::Builder;
use crate::options::{ExtReading, Layout, Options, MSGPACKR_RECORD};
use crate::parser::rows::{decode_rows, not_an_array, trailing, Rows};
use crate::parser::{err, Parser};
use crate::plan::Plan;
use crate::scan::Scanner;
use crate::structures::Structures;
use crate::tags::{header, Kind, TAGS};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing scanned yet.
    Start,
    /// Inside the top-level array (rows are its elements); `left` elements not yet begun.
    InArray { left: u64 },
    /// The top-level array is complete.
    AfterArray,
    /// Each top-level value is a row.
    Values,
}

/// A decoder fed the input in chunks (`push`), giving each complete run of rows as a
/// batch (`take_batch`) and the rest at the end (`finish`).
pub struct StreamDecoder {
    opts: Options,
    buf: Vec<u8>,
    /// Absolute stream offset of `buf[0]`.
    base: u64,
    /// Start of the first row not yet decoded.
    decoded: usize,
    /// Next byte the scanner has not looked at.
    scan: usize,
    /// End of the last complete row.
    complete_end: usize,
    scanner: Scanner,
    in_row: bool,
    /// Complete rows in `buf[decoded..complete_end]`.
    ready: usize,
    /// Rows decoded so far.
    taken: usize,
    /// Where the first top-level value starts in `buf` (before any row is taken): a map
    /// or a msgpackr record may be a columnar table, so it is held back until another
    /// value begins or the input ends.
    first_at: Option<usize>,
    phase: Phase,
    /// Where the top-level array started (for messages).
    array_at: u64,
    array_len: u64,
    /// What earlier batches found: positional rows, nested positional and enum columns
    /// (so later batches read them alike; Map columns are decided per batch).
    plan: Plan,
    /// msgpackr structures defined by the rows decoded so far.
    structures: Structures,
    error: Option<DecodeError>,
}

impl StreamDecoder {
    /// A decoder that reads with `opts`.
    pub fn new(opts: Options) -> Self {
        StreamDecoder {
            scanner: Scanner::new(&opts),
            opts,
            buf: Vec::new(),
            base: 0,
            decoded: 0,
            scan: 0,
            complete_end: 0,
            in_row: false,
            ready: 0,
            taken: 0,
            first_at: None,
            phase: Phase::Start,
            array_at: 0,
            array_len: 0,
            plan: Plan::default(),
            structures: Structures::default(),
            error: None,
        }
    }

    /// Append a chunk and find the rows it completes.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), DecodeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.buf.extend_from_slice(chunk);
        self.scan_rows()
            .inspect_err(|e| self.error = Some(e.clone()))
    }

    fn scan_rows(&mut self) -> Result<(), DecodeError> {
        let len = self.buf.len();
        loop {
            if self.in_row {
                if !self.scanner.walk(&self.buf, &mut self.scan, false) {
                    return Ok(());
                }
                self.in_row = false;
                self.ready += 1;
                self.complete_end = self.scan;
            }
            if !self.in_row {
                match self.phase {
                    Phase::Start => {
                        let Some(&t) = self.buf.get(self.scan) else {
                            return Ok(());
                        };
                        let is_array = matches!(t, 0x90..=0x9f | 0xdc | 0xdd);
                        match (self.opts.layout, is_array) {
                            (Layout::Stream, _) | (Layout::Auto, false) => {
                                self.phase = Phase::Values
                            }
                            (Layout::Array, false) => {
                                return Err(not_an_array(&self.buf[self.scan..]))
                            }
                            (_, true) => {
                                let Some((h, n, _)) = header(&self.buf[self.scan..]) else {
                                    return Ok(());
                                };
                                if self.opts.max_depth == 0 {
                                    return Err(err(
                                        self.base + self.scan as u64,
                                        ErrorCode::TooDeep,
                                        "the top-level array nests deeper than max_depth = 0"
                                            .into(),
                                    ));
                                }
                                self.array_at = self.base + self.scan as u64;
                                self.array_len = n;
                                self.scan += h;
                                self.decoded = self.scan;
                                self.complete_end = self.scan;
                                self.phase = Phase::InArray { left: n };
                            }
                        }
                        continue;
                    }
                    Phase::InArray { left: 0 } => {
                        self.phase = Phase::AfterArray;
                        continue;
                    }
                    Phase::AfterArray => {
                        if self.scan < len && self.opts.layout == Layout::Auto && self.taken == 0 {
                            // More values follow the top-level array and no row was taken
                            // yet: each top-level value is a row, as `decode` reads it.
                            let at = (self.array_at - self.base) as usize;
                            self.scan = at;
                            self.decoded = at;
                            self.complete_end = at;
                            self.ready = 0;
                            self.phase = Phase::Values;
                            continue;
                        }
                        if self.scan < len && self.opts.layout == Layout::Auto {
                            return Err(self.taken_then_more());
                        }
                        if self.scan < len {
                            return Err(trailing(
                                self.base + self.scan as u64,
                                self.base + len as u64,
                            ));
                        }
                        return Ok(());
                    }
                    Phase::InArray { left } => {
                        if self.scan == len {
                            return Ok(());
                        }
                        self.phase = Phase::InArray { left: left - 1 };
                    }
                    Phase::Values => {
                        if self.scan == len {
                            return Ok(());
                        }
                    }
                }
                if self.phase == Phase::Values && self.taken + self.ready == 0 {
                    self.first_at = Some(self.scan);
                }
                self.in_row = true;
                self.scanner.start();
            }
        }
    }

    /// `Layout::Auto` met a second top-level value after rows of the first array were
    /// taken as its elements: `decode` reads each top-level value as a row instead, and
    /// the rows already returned cannot be taken back. Holding the whole first array
    /// until it is known to be alone would end streaming of a huge array, so this shape
    /// is refused, with the layout that reads it.
    fn taken_then_more(&self) -> DecodeError {
        err(
            self.base + self.scan as u64,
            ErrorCode::Unsupported,
            format!(
                "concatenated top-level arrays in a stream with layout Auto, after {} rows of the first array (at byte {}, {} elements) were taken as its elements: decode reads each top-level array as one row; pass layout: 'stream' (Layout::Stream) to read each top-level value as a row, or decode the whole input",
                self.taken, self.array_at, self.array_len
            ),
        )
    }

    /// Complete rows not yet taken. A first top-level map is held back until another
    /// value begins or the input ends: if it is the only value, it may be a columnar table.
    pub fn ready_rows(&self) -> usize {
        let hold = self.opts.columnar
            && self.first_at.is_some_and(|at| self.table_like(at))
            && self.phase == Phase::Values
            && self.taken == 0
            && !self.in_row;
        self.ready - usize::from(hold && self.ready == 1)
    }

    /// Whether the value at `buf[at]` may be a columnar table: a map, or a msgpackr
    /// record definition (whose first record is the value).
    fn table_like(&self, at: usize) -> bool {
        match self.buf.get(at..at + 3) {
            Some(&[0xd4, 0x72, 0x40..=0x7f]) => {
                self.opts.extensions.get(MSGPACKR_RECORD) == ExtReading::MsgpackrRecord
            }
            _ => self
                .buf
                .get(at)
                .is_some_and(|&t| TAGS[t as usize].kind == Kind::Map),
        }
    }

    /// Decode up to `max_rows` complete rows into a batch; `None` if no row is ready.
    pub fn take_batch(&mut self, max_rows: usize) -> Result<Option<Batch>, DecodeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let n = self.ready_rows().min(max_rows);
        if n == 0 {
            return Ok(None);
        }
        self.decode(n, false).map(Some)
    }

    /// Decode `n` complete rows (`last`: at the end of the input).
    fn decode(&mut self, n: usize, last: bool) -> Result<Batch, DecodeError> {
        let values = self.phase == Phase::Values;
        let rows = Rows::Count {
            n,
            in_array: !values,
            single: last && values && self.taken == 0 && n == 1,
        };
        let mut plan = self.plan.clone();
        plan.wide.clear();
        let (batch, used) = decode_rows(
            &self.buf[self.decoded..self.complete_end],
            self.base + self.decoded as u64,
            &self.opts,
            rows,
            &mut plan,
            &mut self.structures,
        )
        .map_err(|e| self.batch_error(e, values))?;
        self.plan = plan;
        self.decoded += used;
        self.ready -= n;
        self.taken += n;
        self.compact();
        Ok(batch)
    }

    /// Keep a batch's error. Under `Layout::Auto` the rows of a first array's batch are
    /// its elements, yet the input may be concatenated arrays (each one row, as `decode`
    /// reads them once a second value is seen): a type clash among the elements (Fluentd's
    /// `[tag, time, record]`) then names that reading too.
    fn batch_error(&mut self, mut e: DecodeError, values: bool) -> DecodeError {
        if !values && self.opts.layout == Layout::Auto && e.code == ErrorCode::TypeMismatch {
            e.message.push_str(
                "; the elements of the first top-level array are read as rows: if the input is concatenated top-level arrays, pass layout: 'stream' (Layout::Stream)",
            );
        }
        self.error = Some(e.clone());
        e
    }

    /// Drop decoded bytes once they are at least half the buffer (amortized O(1) per byte).
    fn compact(&mut self) {
        if self.decoded > 0 && self.decoded * 2 >= self.buf.len() {
            let d = self.decoded;
            self.buf.drain(..d);
            self.base += d as u64;
            self.scan -= d;
            self.complete_end -= d;
            self.decoded = 0;
        }
    }

    /// End of input: the remaining rows, or an error if a value is incomplete.
    pub fn finish(&mut self) -> Result<Option<Batch>, DecodeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.in_row && self.scanner.walk(&self.buf, &mut self.scan, true) {
            // A row whose end could only be told at the end of the input.
            self.in_row = false;
            self.ready += 1;
            self.complete_end = self.scan;
        }
        let e = if self.in_row {
            // The rows before it first (their errors come first in the input), then the
            // incomplete row, decoded to name exactly what is missing.
            if self.ready > 0 {
                self.decode(self.ready, false)?;
            }
            let depth = usize::from(self.phase != Phase::Values);
            let plan = self.plan.clone();
            let mut p = Parser::new(
                &self.buf[self.complete_end..],
                self.base + self.complete_end as u64,
                &self.opts,
                &plan,
                self.structures.clone(),
            );
            Some(
                p.rows(&mut Builder::new(), 1, depth, false)
                    .err()
                    .unwrap_or_else(|| {
                        err(
                            self.base + self.complete_end as u64,
                            ErrorCode::Truncated,
                            "the input ends inside a value".into(),
                        )
                    }),
            )
        } else {
            match self.phase {
                Phase::Start if self.scan < self.buf.len() || self.opts.layout == Layout::Array => {
                    let at = self.base + self.scan as u64;
                    Some(
                        if self.opts.layout == Layout::Array && self.scan == self.buf.len() {
                            err(
                                at,
                                ErrorCode::Truncated,
                                "the input is empty; Layout::Array expects one top-level array"
                                    .into(),
                            )
                        } else {
                            err(at, ErrorCode::Truncated, format!("the input ends at byte {at} inside the header of the top-level array"))
                        },
                    )
                }
                Phase::InArray { left } if left > 0 => {
                    let end = self.base + self.buf.len() as u64;
                    Some(err(
                        end,
                        ErrorCode::Truncated,
                        format!(
                            "the input ends at byte {end} but the top-level array at byte {} declares {} elements; {left} are missing",
                            self.array_at, self.array_len
                        ),
                    ))
                }
                _ => None,
            }
        };
        if let Some(e) = e {
            self.error = Some(e.clone());
            return Err(e);
        }
        match self.ready {
            0 => Ok(None),
            n => self.decode(n, true).map(Some),
        }
    }
}
