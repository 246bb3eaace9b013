//! MessagePack → Apache Arrow columns.
//!
//! One pass over the input: values go straight into column builders that infer their
//! Arrow type as they grow (narrowest representation so far, widened once when needed).
//! Runs of fixints and of same-tag fixed-width numbers are decoded in bulk (SIMD128 on
//! wasm builds with `simd128`, scalar otherwise). See `docs/msgpack.md` for the mapping.

mod builder;
mod ext;
pub mod kernels;
mod keycache;
mod lanes;
mod msgpackr;
mod options;
mod parser;
mod records;
mod rows;
mod scan;
mod split;
mod stream;
mod tags;

use arrowsmith_core::{Batch, DecodeError, ErrorCode};

use msgpackr::Structures;
pub use options::{ExtReading, Extensions, Layout, ManyKeys, Maps, Options, Tuples};
use parser::err;
use rows::{decode_rows, Plan, Rows};
pub use split::{decode_piece, split, Piece, Split};
pub use stream::StreamDecoder;
use tags::kind_name;

/// Decode a whole MessagePack input into one batch.
pub fn decode(bytes: &[u8], opts: &Options) -> Result<Batch, DecodeError> {
    decode_rows(
        bytes,
        0,
        opts,
        Rows::Input,
        &mut Plan::default(),
        &mut Structures::default(),
    )
    .map(|(batch, _)| batch)
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
                kind_name(t)
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
