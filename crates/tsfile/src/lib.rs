//! Apache TsFile reader (format versions 3 and 4) decoding pages into Arrow-shaped columns.
//!
//! Sans-I/O: every entry point reads through a [`ByteSource`](arrowsmith_core::ByteSource)
//! and is a pure function of the bytes it reads, so a `NeedBytes` error can be answered by
//! loading the range and calling again. See `docs/tsfile.md`.
//!
//! # First reads
//!
//! A wasm engine compiles optimized code per function, in the background, once a function
//! has run a while, and a call already running stays in baseline code to its end (no
//! on-stack replacement). So the per-page work (each encoding's decoder, the output copies,
//! the time checks) and each device's page loop are functions of their own
//! (`#[inline(never)]`): they get optimized code a few pages into a file's first read,
//! where one big inlined read function ran in baseline code for the whole read.

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
