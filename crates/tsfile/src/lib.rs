//! Apache TsFile reader (format versions 3 and 4) decoding pages into Arrow-shaped columns.
//!
//! Sans-I/O: every entry point reads through a [`ByteSource`](arrowsmith_core::ByteSource)
//! and is a pure function of the bytes it reads, so a `NeedBytes` error can be answered by
//! loading the range and calling again. See `docs/tsfile.md`.
//!
//! ```
//! use arrowsmith_core::{Buffer, TimeUnit};
//! use arrowsmith_tsfile::{Query, TsFile};
//!
//! // Written by the C++ writer of PyPI tsfile 2.5.0: table `t`, tag `id`, fields `ts`
//! // and `v` (`fixtures/tsfile/cpp_time_extremes.json` holds what its own reader reads).
//! let bytes = include_bytes!("../../../fixtures/tsfile/cpp_time_extremes.tsfile").to_vec();
//! let file = TsFile::open(&bytes).unwrap();
//! assert_eq!(file.version(), 4);
//! let q = Query {
//!     devices: Some(vec!["t.safe".into()]),
//!     ..Default::default()
//! };
//! let batch = file.read_as(&bytes, &q, TimeUnit::Nanosecond).unwrap();
//! let v = batch.column("v").unwrap();
//! let want = vec![-9007199254740991, -1000, 0, 9007199254740991];
//! assert_eq!(v.buffers[0], Buffer::I64(want));
//! ```
//!
//! # First reads
//!
//! A wasm engine compiles optimized code per function, in the background, once a function
//! has run a while, and a call already running stays in baseline code to its end (no
//! on-stack replacement). So the per-page work (each encoding's decoder, the output copies,
//! the time checks) and each device's page loop are functions of their own
//! (`#[inline(never)]`): they get optimized code a few pages into a file's first read,
//! where one big inlined read function ran in baseline code for the whole read.

#![warn(missing_docs)]

mod builder;
mod bytes;
pub mod chunk;
pub mod compress;
pub mod encoding;
mod file;
pub mod meta;
mod mods;
mod read;
pub mod types;

pub use arrowsmith_core::TimeUnit;
pub use file::{DeviceInfo, TimeseriesInfo, TsFile};
pub use meta::{ColumnCategory, ColumnSchema, TableSchema};
pub use mods::Mods;
pub use read::Query;
pub use types::{Compression, Encoding, TsType};
