//! Read-only, pure-Rust HDF5 reader whose reason to exist is the batched variable-length
//! path: VL strings and sequences go from cell headers to Arrow buffers with one pass over
//! the headers, one parse per global heap collection and one memcpy per cell.
//!
//! Sans-I/O: every entry point is a pure function of the bytes it reads through a
//! [`ByteSource`](arrowsmith_core::ByteSource); a `NeedBytes` error asks the host for a
//! range, after which the call is simply repeated. [`Hdf5File::plan`] lists the ranges a
//! read needs so the host can prefetch.
//!
//! The public surface is [`Hdf5File`] (open, list, info, attrs, plan, read), its result
//! types, [`dataset_paths`] and the filter pipeline (for its fuzz target).
//!
//! ```
//! use arrowsmith_core::{Buffer, DataType};
//! use arrowsmith_hdf5::Hdf5File;
//!
//! // Written by h5py (`fixtures/hdf5/len4.json` holds what h5py reads): `/vlstr` is a
//! // variable-length string dataset of three values.
//! let bytes = include_bytes!("../../../fixtures/hdf5/len4.h5").to_vec();
//! let file = Hdf5File::open(&bytes).unwrap();
//! assert_eq!(file.info(&bytes, "/vlstr").unwrap().shape, [3]);
//! let batch = file.read(&bytes, "/vlstr", 0, None).unwrap();
//! let s = &batch.columns[0];
//! assert_eq!(s.dtype, DataType::Utf8);
//! assert_eq!(s.buffers, [Buffer::I32(vec![0, 5, 5, 10]), Buffer::U8(b"alphagamma".to_vec())]);
//! ```

#![warn(missing_docs)]

// The file and every verb of it (file/: one concept per child, the selection's bytes and
// virtual datasets included).
mod file;
// A selection (a hyperslab or row window) of a dataset's dataspace.
mod hyperslab;
// On-disk structures.
mod btree_v1;
mod btree_v2;
mod checksum;
mod chunk_index;
mod dataspace;
mod datatype;
mod fractal_heap;
mod global_heap;
mod group;
mod io;
mod layout;
mod local_heap;
mod object_header;
mod sohm;
mod superblock;
// Values: fixed-size elements and the batched variable-length path.
mod custom_float;
mod decode;
mod retry_memo;
mod vl_cells;
mod vlen;
// Chunk filters; public for the `filters` and `inflate` fuzz targets.
pub mod filters;

pub use file::dataset::DatasetInfo;
pub use file::describe::{AttributeInfo, Description, FilterInfo, TypeInfo};
pub use file::limits::DEFAULT_MAX_READ_BYTES;
pub use file::list::{Entry, EntryKind, Link};
pub use file::virtual_ds::{fuzz_mappings, NoSources, SourceFiles, SourceInfo, VirtualSources};
pub use file::walk::dataset_paths;
pub use file::Hdf5File;
pub use hyperslab::{result_shape, Select, Window};
