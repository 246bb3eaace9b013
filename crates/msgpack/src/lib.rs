//! MessagePack → Apache Arrow columns.
//!
//! One pass over the input: values go straight into column builders that infer their
//! Arrow type as they grow (narrowest representation so far, widened once when needed).
//! Runs of fixints and of same-tag fixed-width numbers are decoded in bulk (SIMD128 on
//! wasm builds with `simd128`, scalar otherwise). See `docs/msgpack.md` for the mapping.

mod builder;
pub mod kernels;
mod keycache;
mod options;
mod parser;
mod plan;
mod scan;
mod split;
mod stream;
mod structures;
mod tags;

pub use options::{ExtReading, Extensions, Layout, ManyKeys, Maps, Options, Tuples};
pub use parser::rows::decode;
pub use split::{decode_piece, split, Piece, Split};
pub use stream::StreamDecoder;
