//! Arrowsmith's decoders as an arrow-rs source: TsFile, HDF5 and MessagePack read natively
//! (files by positioned reads, any `Read + Seek`, bytes in memory) into `RecordBatch`es.
//!
//! The decoders produce Arrow-shaped [`arrowsmith_core::Column`]s; [`record_batch`] moves
//! their buffers into arrow-rs arrays without copying values. The readers run the same
//! sans-I/O decoders the wasm build runs, so a native read returns what the JS API returns.
//!
//! ```
//! use arrow_array::{cast::AsArray, types::Int64Type};
//! use arrowsmith_arrow::{TimeUnit, TsFileReader, TsQuery};
//!
//! // Written by the C++ writer of PyPI tsfile 2.5.0 (`fixtures/tsfile/cpp_time_extremes.json`
//! // holds what its own reader reads).
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/tsfile/cpp_time_extremes.tsfile");
//! let mut file = TsFileReader::open(path).unwrap();
//! let q = TsQuery { devices: Some(vec!["t.safe".into()]), ..Default::default() };
//! let batch = file.read(&q, TimeUnit::Nanosecond).unwrap();
//! let v = batch.column_by_name("v").unwrap().as_primitive::<Int64Type>();
//! assert_eq!(v.values().to_vec(), [-9007199254740991, -1000, 0, 9007199254740991]);
//! ```

#![warn(missing_docs)]

pub mod convert;
mod error;
pub mod hdf5;
mod held;
pub mod msgpack;
pub mod source;
pub mod tsfile;

pub use arrowsmith_core::{DecodeError, ErrorCode, Format, TimeUnit};
pub use arrowsmith_hdf5::Select;
pub use arrowsmith_msgpack::Options as MsgpackOptions;
pub use arrowsmith_tsfile::Query as TsQuery;
pub use convert::record_batch;
pub use error::{Error, Result};
pub use hdf5::Hdf5Reader;
pub use msgpack::{read_msgpack, read_msgpack_piece, MsgpackBatches};
pub use source::{ReadAt, SeekReader};
pub use tsfile::TsFileReader;
