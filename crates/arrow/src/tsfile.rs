//! TsFile natively: open a file once, read queries as `RecordBatch`es, or stream one batch
//! per device (the unit Spark and Ray partitions by).

use std::path::Path;

use arrow_array::RecordBatch;
use arrowsmith_core::{Format, TimeUnit};
use arrowsmith_tsfile::{DeviceInfo, Query, TableSchema, TsFile};

use crate::convert::record_batch;
use crate::error::Result;
use crate::held::Held;
use crate::source::{Host, ReadAt};

/// An open TsFile.
pub struct TsFileReader<R> {
    host: Host<R>,
    file: TsFile,
}

impl TsFileReader<std::fs::File> {
    /// Open the file at `path` (read by positioned reads: only the index and the pages a
    /// query decodes are read).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::new(std::fs::File::open(path)?)
    }
}

impl<R: ReadAt> TsFileReader<R> {
    /// Open a TsFile read from `input`.
    pub fn new(input: R) -> Result<Self> {
        let mut host = Host::new(input, Format::TsFile)?;
        let file = host.run(|src| TsFile::open(src))?;
        Ok(TsFileReader { host, file })
    }

    /// The decoder's view of the file (version, properties, index).
    pub fn file(&self) -> &TsFile {
        &self.file
    }

    /// The table schemas (v4 table model).
    pub fn tables(&self) -> Vec<TableSchema> {
        self.file.tables()
    }

    /// The devices of `table` (all devices for `None`), in file order.
    pub fn devices(&self, table: Option<&str>) -> Vec<DeviceInfo> {
        self.file.devices(table)
    }

    /// The query's rows as one batch: `time` (in `unit`), then tag and field columns.
    /// Every int64 time is kept whatever the unit (arrow-rs has no JS-number limit).
    pub fn read(&mut self, q: &Query, unit: TimeUnit) -> Result<RecordBatch> {
        let file = &self.file;
        let q = Query {
            native_times: true,
            ..q.clone()
        };
        let batch = self.host.run(|src| file.read_as(src, &q, unit))?;
        Ok(record_batch(batch)?)
    }

    /// The query's rows as one batch per device (devices whose rows the query filters out
    /// entirely yield nothing), in the order [`read`](Self::read) returns them.
    pub fn batches(&mut self, q: Query, unit: TimeUnit) -> Result<DeviceBatches<'_, R>> {
        DeviceBatches::new(Held::Borrowed(self), q, unit)
    }

    /// [`batches`](Self::batches) owning the reader.
    pub fn into_batches(self, q: Query, unit: TimeUnit) -> Result<DeviceBatches<'static, R>> {
        DeviceBatches::new(Held::Owned(Box::new(self)), q, unit)
    }
}

impl<'a, R: ReadAt> DeviceBatches<'a, R> {
    fn new(mut reader: Held<'a, TsFileReader<R>>, q: Query, unit: TimeUnit) -> Result<Self> {
        let devices: Vec<String> = match &q.devices {
            Some(d) => d.clone(),
            None => {
                let table = match &q.table {
                    Some(t) => Some(t.clone()),
                    None => reader.file.tables().first().map(|t| t.name.clone()),
                };
                reader
                    .file
                    .devices(table.as_deref())
                    .into_iter()
                    .map(|d| d.path)
                    .collect()
            }
        };
        let schema = reader
            .read(
                &Query {
                    limit: Some(0),
                    ..q.clone()
                },
                unit,
            )?
            .schema();
        Ok(DeviceBatches {
            reader,
            query: q,
            unit,
            devices: devices.into_iter(),
            schema,
            left: None,
        })
    }
}

/// One `RecordBatch` per device of a query (see [`TsFileReader::batches`]).
pub struct DeviceBatches<'a, R> {
    reader: Held<'a, TsFileReader<R>>,
    query: Query,
    unit: TimeUnit,
    devices: std::vec::IntoIter<String>,
    schema: arrow_schema::SchemaRef,
    /// Rows the query's `limit` still allows.
    left: Option<usize>,
}

impl<R> DeviceBatches<'_, R> {
    /// The schema every batch has.
    pub fn schema(&self) -> arrow_schema::SchemaRef {
        self.schema.clone()
    }
}

impl<R: ReadAt> Iterator for DeviceBatches<'_, R> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let left = self.left.or(self.query.limit);
        if left == Some(0) {
            return None;
        }
        for device in self.devices.by_ref() {
            let q = Query {
                devices: Some(vec![device]),
                limit: left,
                ..self.query.clone()
            };
            match self.reader.read(&q, self.unit) {
                Ok(b) if b.num_rows() == 0 => continue,
                Ok(b) => {
                    self.left = left.map(|l| l - b.num_rows().min(l));
                    return Some(Ok(b));
                }
                Err(e) => return Some(Err(e)),
            }
        }
        None
    }
}
