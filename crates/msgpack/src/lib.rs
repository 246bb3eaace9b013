//! MessagePack → Apache Arrow columns.
//!
//! One pass over the input: values go straight into column builders that infer their
//! Arrow type as they grow (narrowest representation so far, widened once when needed).
//! Runs of fixints and of same-tag fixed-width numbers are decoded in bulk (SIMD128 on
//! wasm builds with `simd128`, scalar otherwise). See `docs/msgpack.md` for the mapping.
//!
//! ```
//! use arrowsmith_core::{Buffer, DataType};
//! use arrowsmith_msgpack::{decode, Options};
//!
//! // [{"id": 1, "name": "a"}, {"id": 2, "name": "bc"}]: an array of maps, one row each.
//! let bytes = b"\x92\x82\xa2id\x01\xa4name\xa1a\x82\xa2id\x02\xa4name\xa2bc";
//! let batch = decode(bytes, &Options::default()).unwrap();
//! assert_eq!(batch.num_rows, 2);
//! let id = batch.column("id").unwrap();
//! assert_eq!(id.dtype, DataType::Int32);
//! assert_eq!(id.buffers[0], Buffer::I32(vec![1, 2]));
//! let name = batch.column("name").unwrap();
//! assert_eq!(name.dtype, DataType::Utf8);
//! assert_eq!(name.buffers, [Buffer::I32(vec![0, 1, 3]), Buffer::U8(b"abc".to_vec())]);
//! ```

#![warn(missing_docs)]

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

pub use options::{names, ExtReading, Extensions, Layout, ManyKeys, Maps, Options, Tuples};
pub use parser::rows::decode;
pub use split::{decode_piece, split, Piece, Split};
pub use stream::StreamDecoder;
