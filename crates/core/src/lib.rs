//! Shared pieces of the Arrowsmith decoders.
//!
//! Every format crate decodes into the same Arrow-shaped [`Column`]s so that one thin
//! wasm boundary can hand any of them to Arrow JS, reports failures with the same
//! [`DecodeError`] (format, byte offset, reason), and reads its input through
//! [`ByteSource`] so the same code serves memory, `Blob` slices and HTTP ranges.

pub mod bitmap;
pub mod column;
pub mod describe;
pub mod error;
pub mod recycle;
pub mod simd;
pub mod source;

pub use bitmap::Bitmap;
/// The arena a [`HostSource`] fetches into (re-exported so hosts need no dependency of their own).
pub use bumpalo::Bump;
pub use column::{Batch, Buffer, Column, DataType, Field, TimeUnit};
pub use error::{DecodeError, ErrorCode, Format, Result};
pub use source::{ByteSource, HostSource, RangeCache};
