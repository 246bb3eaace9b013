//! Shared pieces of the Arrowsmith decoders.
//!
//! Every format crate decodes into the same Arrow-shaped [`Column`]s so that one thin
//! wasm boundary can hand any of them to Arrow JS, reports failures with the same
//! [`DecodeError`] (format, byte offset, reason), and reads its input through
//! [`ByteSource`] so the same code serves memory, `Blob` slices and HTTP ranges.
//!
//! ```
//! use arrowsmith_core::{Batch, Bitmap, Buffer, ByteSource, Column, DataType, Field, Format, RangeCache};
//!
//! // Three Int32 values, the second null: the Arrow layout, ready to hand to Arrow JS.
//! let mut validity = Bitmap::new();
//! for valid in [true, false, true] {
//!     validity.push(valid);
//! }
//! let x = Column::primitive(DataType::Int32, Buffer::I32(vec![7, 0, 9]), Some(validity));
//! let batch = Batch::new(vec![Field::new("x", DataType::Int32, true)], vec![x]);
//! assert_eq!(batch.num_rows, 3);
//! assert_eq!(batch.column("x").unwrap().null_count(), 1);
//!
//! // A file read piecewise: a range not loaded yet is a NeedBytes error naming it; once
//! // the host has loaded it, the same call succeeds.
//! let mut cache = RangeCache::new(100);
//! let e = cache.read(Format::Hdf5, 10, 4).unwrap_err();
//! assert!(e.is_need_bytes());
//! assert_eq!((e.offset, e.need_len), (10, 4));
//! cache.insert(10, vec![1, 2, 3, 4]);
//! assert_eq!(cache.read(Format::Hdf5, 10, 4).unwrap(), &[1, 2, 3, 4]);
//! ```

#![warn(missing_docs)]

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
