//! HDF5 natively: browse the file's tree, read a dataset's rows or an N-D selection as a
//! `RecordBatch`, or stream a dataset in batches of whole chunks.

use std::path::Path;

use arrow_array::RecordBatch;
use arrowsmith_core::Format;
pub use arrowsmith_hdf5::{Description, Entry, EntryKind};
use arrowsmith_hdf5::{Hdf5File, Select};

use crate::convert::record_batch;
use crate::error::Result;
use crate::held::Held;
use crate::source::{Host, ReadAt};

/// Rows a batch holds when the caller does not say (rounded up to whole chunks).
pub const DEFAULT_BATCH_ROWS: u64 = 65_536;

/// An open HDF5 file.
pub struct Hdf5Reader<R> {
    host: Host<R>,
    file: Hdf5File,
}

impl Hdf5Reader<std::fs::File> {
    /// Open the file at `path` (read by positioned reads: headers and the chunks a read
    /// decodes).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::new(std::fs::File::open(path)?)
    }
}

impl<R: ReadAt> Hdf5Reader<R> {
    /// Open an HDF5 file read from `input`.
    pub fn new(input: R) -> Result<Self> {
        let mut host = Host::new(input, Format::Hdf5)?;
        let file = host.run(|src| Hdf5File::open(src))?;
        Ok(Hdf5Reader { host, file })
    }

    /// The members of the group at `path` (`"/"` for the root).
    pub fn list(&mut self, path: &str) -> Result<Vec<Entry>> {
        let file = &self.file;
        self.host.run(|src| file.list(src, path))
    }

    /// The object at `path`: kind, type tree, dims, chunks, filters, attributes.
    pub fn describe(&mut self, path: &str) -> Result<Description> {
        let file = &self.file;
        self.host.run(|src| file.describe(src, path))
    }

    /// Rows `start..start+count` of the dataset at `path` (the first dimension; every row
    /// from `start` when `count` is `None`).
    pub fn read(&mut self, path: &str, start: u64, count: Option<u64>) -> Result<RecordBatch> {
        let file = &self.file;
        let batch = self.host.run(|src| file.read(src, path, start, count))?;
        Ok(record_batch(batch)?)
    }

    /// An N-D selection, one [`Select`] per dimension (h5py's `ds[10:20, ::2, 5]`).
    pub fn read_select(&mut self, path: &str, select: &[Select]) -> Result<RecordBatch> {
        let file = &self.file;
        let batch = self.host.run(|src| file.read_select(src, path, select))?;
        Ok(record_batch(batch)?)
    }

    /// The dataset's rows in batches of about `rows` (rounded up to whole chunks of the
    /// first dimension; [`DEFAULT_BATCH_ROWS`] for `None`), each read when asked for.
    pub fn batches(&mut self, path: &str, rows: Option<u64>) -> Result<RowBatches<'_, R>> {
        RowBatches::new(Held::Borrowed(self), path, rows)
    }

    /// [`batches`](Self::batches) owning the reader.
    pub fn into_batches(self, path: &str, rows: Option<u64>) -> Result<RowBatches<'static, R>> {
        RowBatches::new(Held::Owned(Box::new(self)), path, rows)
    }
}

impl<'a, R: ReadAt> RowBatches<'a, R> {
    fn new(mut reader: Held<'a, Hdf5Reader<R>>, path: &str, rows: Option<u64>) -> Result<Self> {
        let d = reader.describe(path)?;
        let total = match d.dims.as_deref() {
            None => 0,
            Some([]) => 1,
            Some(dims) => dims[0],
        };
        let chunk = d
            .chunks
            .as_ref()
            .and_then(|c| c.first().copied())
            .unwrap_or(1)
            .max(1);
        let want = rows.unwrap_or(DEFAULT_BATCH_ROWS).max(1);
        let step = want.div_ceil(chunk).saturating_mul(chunk);
        Ok(RowBatches {
            reader,
            path: path.to_string(),
            next: 0,
            total,
            step,
            first: true,
        })
    }
}

/// A dataset read in row batches (see [`Hdf5Reader::batches`]).
pub struct RowBatches<'a, R> {
    reader: Held<'a, Hdf5Reader<R>>,
    path: String,
    next: u64,
    total: u64,
    step: u64,
    /// An empty dataset still yields one (empty) batch: its schema.
    first: bool,
}

impl<R: ReadAt> Iterator for RowBatches<'_, R> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.total && !self.first {
            return None;
        }
        self.first = false;
        let count = self.step.min(self.total - self.next);
        let out = self.reader.read(&self.path, self.next, Some(count));
        self.next += count.max(1);
        if out.is_err() {
            self.next = self.total;
        }
        Some(out)
    }
}
