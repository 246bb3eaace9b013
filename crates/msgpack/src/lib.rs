//! MessagePack → Apache Arrow columns.
//!
//! One pass over the input: values go straight into column builders that infer their
//! Arrow type as they grow (narrowest representation so far, widened once when needed).
//! Runs of fixints and of same-tag fixed-width numbers are decoded in bulk (SIMD128 on
//! wasm builds with `simd128`, scalar otherwise). See `docs/msgpack.md` for the mapping.

mod builder;
pub mod kernels;
mod keycache;
mod parser;
mod split;
mod stream;

use arrowsmith_core::{Batch, DecodeError, ErrorCode, Field};

use builder::{Builder, Data};
use parser::{err, tag_kind, Parser};
pub use split::{decode_piece, split, Piece, Split};
pub use stream::StreamDecoder;

/// How top-level values become rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// One top-level array → its elements are the rows; anything else → each top-level
    /// value is a row.
    #[default]
    Auto,
    /// The input must be exactly one top-level array; its elements are the rows.
    Array,
    /// Each top-level value is a row (concatenated values).
    Stream,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Deepest allowed nesting of arrays/maps (the top-level array counts as 1).
    pub max_depth: usize,
    /// `false` switches off every bulk/SIMD fast path (for benchmarking); output is identical.
    pub fast_path: bool,
    pub layout: Layout,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_depth: 256,
            fast_path: true,
            layout: Layout::Auto,
        }
    }
}

/// Decode a whole MessagePack input into one batch.
pub fn decode(bytes: &[u8], opts: &Options) -> Result<Batch, DecodeError> {
    let mut p = Parser::new(bytes, 0, opts.max_depth, opts.fast_path);
    match opts.layout {
        Layout::Stream => stream_rows(p),
        Layout::Array => {
            let Some(n) = p.array_header()? else {
                return Err(not_an_array(bytes));
            };
            let mut root = Builder::new();
            p.seq(&mut root, n, 1, false)?;
            if p.pos != bytes.len() {
                return Err(trailing(p.pos as u64, bytes.len() as u64));
            }
            Ok(to_batch(root))
        }
        Layout::Auto => {
            let Some(n) = p.array_header()? else {
                return stream_rows(p);
            };
            let mut root = Builder::new();
            p.seq(&mut root, n, 1, false)?;
            if p.pos == bytes.len() {
                return Ok(to_batch(root));
            }
            // More than one top-level value: decode again, one row per value.
            stream_rows(Parser::new(bytes, 0, opts.max_depth, opts.fast_path))
        }
    }
}

fn stream_rows(mut p: Parser) -> Result<Batch, DecodeError> {
    let mut root = Builder::new();
    p.seq(&mut root, usize::MAX, 0, true)?;
    Ok(to_batch(root))
}

pub(crate) fn not_an_array(bytes: &[u8]) -> DecodeError {
    match bytes.first() {
        None => err(
            0,
            ErrorCode::Truncated,
            "the input is empty; Layout::Array expects one top-level array".into(),
        ),
        Some(&t) => err(
            0,
            ErrorCode::Invalid,
            format!(
                "Layout::Array expects one top-level array, but the input starts with a {}",
                tag_kind(t)
            ),
        ),
    }
}

pub(crate) fn trailing(at: u64, len: u64) -> DecodeError {
    err(
        at,
        ErrorCode::Invalid,
        format!(
            "{} more bytes follow the top-level array, which ends at byte {at}; use Layout::Stream for concatenated values",
            len - at
        ),
    )
}

/// Rows of maps become one column per key; anything else one column `value`.
pub(crate) fn to_batch(root: Builder) -> Batch {
    let num_rows = root.len;
    match root.data {
        Data::Struct(s) => {
            let (fields, columns) = s.finish();
            Batch {
                fields,
                columns,
                num_rows,
            }
        }
        _ => {
            let c = root.finish();
            Batch {
                fields: vec![Field::new("value", c.dtype.clone(), true)],
                columns: vec![c],
                num_rows,
            }
        }
    }
}
