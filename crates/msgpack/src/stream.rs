//! Incremental decoding: bytes arrive in chunks, rows leave as soon as they are complete.
//!
//! `push` runs a resumable structural scanner over the new bytes only (its whole state
//! is "values still missing in the current row" and "payload bytes still to skip"), so
//! finding row boundaries never rescans earlier bytes. `take_batch` decodes complete
//! rows exactly once, straight into fresh builders (schema inferred per batch).

use arrowsmith_core::{Batch, DecodeError, ErrorCode};

use crate::builder::Builder;
use crate::parser::{err, Parser};
use crate::{not_an_array, to_batch, trailing, Layout, Options};

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
    /// Values still missing before the current row is complete.
    pending: u64,
    /// Payload bytes still to skip.
    skip: u64,
    in_row: bool,
    /// Complete rows in `buf[decoded..complete_end]`.
    ready: usize,
    phase: Phase,
    /// Where the top-level array started (for messages).
    array_at: u64,
    array_len: u64,
    error: Option<DecodeError>,
}

/// Header length, values it adds, payload bytes: `None` if the header is incomplete.
#[inline]
pub(crate) fn header(t: u8, rest: &[u8]) -> Option<(usize, u64, u64)> {
    let be = |n: usize| -> Option<u64> {
        let s = rest.get(1..1 + n)?;
        Some(s.iter().fold(0u64, |a, &b| a << 8 | b as u64))
    };
    Some(match t {
        0x00..=0x7f | 0xe0..=0xff | 0xc0..=0xc3 => (1, 0, 0),
        0x80..=0x8f => (1, 2 * (t & 0x0f) as u64, 0),
        0x90..=0x9f => (1, (t & 0x0f) as u64, 0),
        0xa0..=0xbf => (1, 0, (t & 0x1f) as u64),
        0xc4 | 0xd9 => (2, 0, be(1)?),
        0xc5 | 0xda => (3, 0, be(2)?),
        0xc6 | 0xdb => (5, 0, be(4)?),
        0xc7 => (2, 0, be(1)? + 1),
        0xc8 => (3, 0, be(2)? + 1),
        0xc9 => (5, 0, be(4)? + 1),
        0xcc | 0xd0 => (1, 0, 1),
        0xcd | 0xd1 => (1, 0, 2),
        0xca | 0xce | 0xd2 => (1, 0, 4),
        0xcb | 0xcf | 0xd3 => (1, 0, 8),
        0xd4 => (1, 0, 2),
        0xd5 => (1, 0, 3),
        0xd6 => (1, 0, 5),
        0xd7 => (1, 0, 9),
        0xd8 => (1, 0, 17),
        0xdc => (3, be(2)?, 0),
        0xdd => (5, be(4)?, 0),
        0xde => (3, 2 * be(2)?, 0),
        0xdf => (5, 2 * be(4)?, 0),
    })
}

impl StreamDecoder {
    pub fn new(opts: Options) -> Self {
        StreamDecoder {
            opts,
            buf: Vec::new(),
            base: 0,
            decoded: 0,
            scan: 0,
            complete_end: 0,
            pending: 0,
            skip: 0,
            in_row: false,
            ready: 0,
            phase: Phase::Start,
            array_at: 0,
            array_len: 0,
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
            if self.skip > 0 {
                let s = self.skip.min((len - self.scan) as u64);
                self.scan += s as usize;
                self.skip -= s;
                if self.skip > 0 {
                    return Ok(());
                }
            }
            if self.in_row && self.pending == 0 {
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
                                let Some((h, n, _)) = header(t, &self.buf[self.scan..]) else {
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
                self.in_row = true;
                self.pending = 1;
            }
            // Inside a row: one header.
            let Some(&t) = self.buf.get(self.scan) else {
                return Ok(());
            };
            let Some((h, n, payload)) = header(t, &self.buf[self.scan..]) else {
                return Ok(());
            };
            self.scan += h;
            self.pending = (self.pending - 1).saturating_add(n);
            self.skip = payload;
        }
    }

    /// Complete rows not yet taken.
    pub fn ready_rows(&self) -> usize {
        self.ready
    }

    /// Decode up to `max_rows` complete rows into a batch; `None` if no row is ready.
    pub fn take_batch(&mut self, max_rows: usize) -> Result<Option<Batch>, DecodeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let n = self.ready.min(max_rows);
        if n == 0 {
            return Ok(None);
        }
        let depth = if self.phase == Phase::Values { 0 } else { 1 };
        let mut p = Parser::new(
            &self.buf[self.decoded..self.complete_end],
            self.base + self.decoded as u64,
            self.opts.max_depth,
            self.opts.fast_path,
        );
        let mut root = Builder::new();
        if let Err(e) = p.seq(&mut root, n, depth, false) {
            self.error = Some(e.clone());
            return Err(e);
        }
        self.decoded += p.pos;
        self.ready -= n;
        self.compact();
        Ok(Some(to_batch(root)))
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
        let e = if self.in_row {
            // Decode the incomplete row to name exactly what is missing.
            let depth = if self.phase == Phase::Values { 0 } else { 1 };
            let mut p = Parser::new(
                &self.buf[self.complete_end..],
                self.base + self.complete_end as u64,
                self.opts.max_depth,
                self.opts.fast_path,
            );
            Some(
                p.value(&mut Builder::new(), depth)
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
        self.take_batch(usize::MAX)
    }
}
