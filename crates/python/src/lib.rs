//! `arrowsmith._arrowsmith`: the native half of the Python package. Every reader returns an
//! `ArrowStream`, a one-shot Arrow C stream (`__arrow_c_stream__`); the Python half
//! (`python/arrowsmith/__init__.py`) turns it into a `pyarrow.Table` or
//! `RecordBatchReader`. Reads run without the GIL.

use std::collections::HashMap;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use arrowsmith_arrow::msgpack::{names, Layout};
use arrowsmith_arrow::{
    Error, Hdf5Reader, MsgpackBatches, MsgpackOptions, ReadAt, Select, TimeUnit, TsFileReader,
    TsQuery,
};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList};

pyo3::create_exception!(
    _arrowsmith,
    DecodeError,
    PyValueError,
    "A file Arrowsmith cannot decode: `format`, `code` and `offset` say what and where."
);

/// A file mapped into memory: the decoders read it in place, so a page of it is never
/// copied into a buffer of ours (a positioned read copies every byte once more, and on a
/// numeric HDF5 dataset that copy was a third of the read). As with `pyarrow.memory_map`, a
/// file truncated by another process while it is read is the one thing this does not guard.
struct Mapped(memmap2::Mmap);

fn mapped(path: &std::path::Path) -> Result<Mapped, Error> {
    let f = std::fs::File::open(path)?;
    // SAFETY: the map is read only and lives as long as the reader that holds it; see above
    // for a file changed underneath it.
    Ok(Mapped(unsafe { memmap2::Mmap::map(&f)? }))
}

impl ReadAt for Mapped {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.0.len() as u64)
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        self.0[..].read_exact_at(buf, offset)
    }
    fn as_slice(&self) -> Option<&[u8]> {
        Some(&self.0)
    }
}

/// A Rust error as a Python exception: a `DecodeError` carrying format, code and offset.
fn py_err(e: Error) -> PyErr {
    match e {
        Error::Decode(d) => Python::attach(|py| {
            let err = DecodeError::new_err(d.to_string());
            let v = err.value(py);
            let _ = v.setattr("format", d.format.name());
            let _ = v.setattr("code", d.code.as_str());
            let _ = v.setattr("offset", d.offset);
            err
        }),
        Error::Io(e) => PyOSError::new_err(e.to_string()),
        Error::Arrow(e) => PyRuntimeError::new_err(e.to_string()),
    }
}

type Batches = Box<dyn RecordBatchReader + Send>;

/// The decode error that ended a stream, kept for Python: the C stream carries only a message.
type Failure = std::sync::Arc<std::sync::Mutex<Option<arrowsmith_arrow::DecodeError>>>;

/// A one-shot Arrow C stream of record batches.
#[pyclass(module = "arrowsmith._arrowsmith")]
struct ArrowStream {
    inner: std::sync::Mutex<Option<Batches>>,
    failure: Failure,
}

impl ArrowStream {
    fn new(inner: Batches) -> Self {
        Self::failing(inner, Failure::default())
    }
    fn failing(inner: Batches, failure: Failure) -> Self {
        ArrowStream {
            inner: std::sync::Mutex::new(Some(inner)),
            failure,
        }
    }
}

#[pymethods]
impl ArrowStream {
    /// The Arrow PyCapsule interface: hand the stream to pyarrow, Polars, DuckDB.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is the file's; a consumer that asks for another casts after reading.
        let _ = requested_schema;
        let inner = self
            .inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("a read of this stream panicked"))?
            .take()
            .ok_or_else(|| PyValueError::new_err("this Arrow stream was already consumed"))?;
        let stream = FFI_ArrowArrayStream::new(inner);
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The `DecodeError` that ended the stream, if one did (pyarrow raises the C stream's
    /// error as its own exception; the Python half re-raises this one in its place).
    fn decode_error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let d = self.failure.lock().ok()?.clone()?;
        Some(py_err(Error::Decode(d)).into_value(py).into_any())
    }
}

fn stream(schema: SchemaRef, batches: Vec<RecordBatch>) -> ArrowStream {
    let it = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    ArrowStream::new(Box::new(it))
}

type Rx = std::sync::mpsc::IntoIter<arrowsmith_arrow::Result<RecordBatch>>;

/// Batches read on a thread of their own, one ahead of the consumer: the readers are not
/// `Send` (their caches are per thread), so each lives on the thread that opened it. The
/// thread ends at the last batch, or when the consumer drops the stream.
fn background<F>(open: F) -> arrowsmith_arrow::Result<ArrowStream>
where
    F: FnOnce() -> arrowsmith_arrow::Result<(
            SchemaRef,
            Box<dyn Iterator<Item = arrowsmith_arrow::Result<RecordBatch>>>,
        )> + Send
        + 'static,
{
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let (schema_tx, schema_rx) = std::sync::mpsc::sync_channel(1);
    std::thread::spawn(move || match open() {
        Err(e) => drop(schema_tx.send(Err(e))),
        Ok((schema, batches)) => {
            if schema_tx.send(Ok(schema)).is_ok() {
                for b in batches {
                    if tx.send(b).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let schema = schema_rx
        .recv()
        .map_err(|_| Error::Io(std::io::Error::other("the reading thread ended early")))??;
    let it: Rx = rx.into_iter();
    let failure = Failure::default();
    let lazy = Lazy {
        schema,
        it,
        failure: failure.clone(),
    };
    Ok(ArrowStream::failing(Box::new(lazy), failure))
}

/// A lazy iterator of batches as a stream (each batch read when the consumer asks).
struct Lazy<I> {
    schema: SchemaRef,
    it: I,
    failure: Failure,
}

impl<I: Iterator<Item = arrowsmith_arrow::Result<RecordBatch>>> Iterator for Lazy<I> {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.it.next().map(|r| {
            r.map_err(|e| {
                if let (Error::Decode(d), Ok(mut slot)) = (&e, self.failure.lock()) {
                    *slot = Some(d.clone());
                }
                ArrowError::ExternalError(Box::new(e))
            })
        })
    }
}

impl<I: Iterator<Item = arrowsmith_arrow::Result<RecordBatch>>> RecordBatchReader for Lazy<I> {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

fn unit(name: &str) -> PyResult<TimeUnit> {
    Ok(match name {
        "s" => TimeUnit::Second,
        "ms" => TimeUnit::Millisecond,
        "us" => TimeUnit::Microsecond,
        "ns" => TimeUnit::Nanosecond,
        _ => {
            return Err(PyValueError::new_err(format!(
                "time_unit must be s, ms, us or ns, not {name:?}"
            )))
        }
    })
}

/// A TsFile query's rows: one batch, or (`per_device`) one batch per device read on a
/// thread of its own as the consumer asks.
#[pyfunction]
#[pyo3(signature = (path, table=None, columns=None, devices=None, tags=None, start=None, end=None, limit=None, time_unit="ms", per_device=false))]
#[allow(clippy::too_many_arguments)]
fn read_tsfile(
    py: Python<'_>,
    path: std::path::PathBuf,
    table: Option<String>,
    columns: Option<Vec<String>>,
    devices: Option<Vec<String>>,
    tags: Option<HashMap<String, String>>,
    start: Option<i64>,
    end: Option<i64>,
    limit: Option<usize>,
    time_unit: &str,
    per_device: bool,
) -> PyResult<ArrowStream> {
    let mut tags: Vec<(String, String)> = tags.unwrap_or_default().into_iter().collect();
    tags.sort();
    let q = TsQuery {
        table,
        columns,
        devices,
        tags,
        start,
        end,
        limit,
        ..Default::default()
    };
    let u = unit(time_unit)?;
    if per_device {
        return py
            .detach(|| {
                background(move || {
                    let it = TsFileReader::new(mapped(&path)?)?.into_batches(q, u)?;
                    Ok((it.schema(), Box::new(it) as _))
                })
            })
            .map_err(py_err);
    }
    let batch = py
        .detach(|| TsFileReader::new(mapped(&path)?)?.read(&q, u))
        .map_err(py_err)?;
    Ok(stream(batch.schema(), vec![batch]))
}

/// The names of a TsFile's tables (table model; empty for a tree-model file), in file order:
/// the first is the one a read without `table` reads.
#[pyfunction]
fn tsfile_tables(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Vec<String>> {
    py.detach(|| {
        TsFileReader::new(mapped(&path)?).map(|f| f.tables().into_iter().map(|t| t.name).collect())
    })
    .map_err(py_err)
}

/// The devices of a TsFile (of `table`, or all): dicts of table, path and tags.
#[pyfunction]
#[pyo3(signature = (path, table=None))]
fn tsfile_devices<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    table: Option<String>,
) -> PyResult<Bound<'py, PyList>> {
    let devices = py
        .detach(|| TsFileReader::new(mapped(&path)?).map(|f| f.devices(table.as_deref())))
        .map_err(py_err)?;
    let out = PyList::empty(py);
    for d in devices {
        let item = PyDict::new(py);
        item.set_item("table", d.table)?;
        item.set_item("path", d.path)?;
        item.set_item("tags", d.tags)?;
        out.append(item)?;
    }
    Ok(out)
}

/// One selection per dimension from Python: an int (an index) or `(start, count, step)`.
fn selection(sel: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<Select>> {
    sel.into_iter()
        .map(|s| {
            if let Ok(i) = s.extract::<u64>() {
                return Ok(Select::Index(i));
            }
            let (start, count, step): (u64, u64, u64) = s.extract().map_err(|_| {
                PyValueError::new_err("each selection is an index or a (start, count, step) tuple")
            })?;
            Ok(Select::Range { start, count, step })
        })
        .collect()
}

/// Rows `start..start+count` of an HDF5 dataset, or an N-D `select`ion, as one stream.
#[pyfunction]
#[pyo3(signature = (path, dataset, start=0, count=None, select=None))]
fn read_hdf5(
    py: Python<'_>,
    path: std::path::PathBuf,
    dataset: String,
    start: u64,
    count: Option<u64>,
    select: Option<Vec<Bound<'_, PyAny>>>,
) -> PyResult<ArrowStream> {
    let sel = select.map(selection).transpose()?;
    let batch = py
        .detach(|| {
            let mut f = Hdf5Reader::new(mapped(&path)?)?;
            match &sel {
                Some(s) => f.read_select(&dataset, s),
                None => f.read(&dataset, start, count),
            }
        })
        .map_err(py_err)?;
    Ok(stream(batch.schema(), vec![batch]))
}

/// An HDF5 dataset in batches of about `rows` rows (whole chunks), each read when asked for.
#[pyfunction]
#[pyo3(signature = (path, dataset, rows=None))]
fn iter_hdf5(
    py: Python<'_>,
    path: std::path::PathBuf,
    dataset: String,
    rows: Option<u64>,
) -> PyResult<ArrowStream> {
    py.detach(|| {
        background(move || {
            let mut f = Hdf5Reader::new(mapped(&path)?)?;
            let schema = f.read(&dataset, 0, Some(0))?.schema();
            Ok((schema, Box::new(f.into_batches(&dataset, rows)?) as _))
        })
    })
    .map_err(py_err)
}

/// The members of an HDF5 group (`recursive`: of every group below it too, each object once):
/// dicts of path, name, kind, shape, dtype, and `unsupported` (the feature this reader cannot
/// decode, in words) or `target` (where an unresolved link points).
#[pyfunction]
#[pyo3(signature = (path, group="/", recursive=true))]
fn list_hdf5<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    group: &str,
    recursive: bool,
) -> PyResult<Bound<'py, PyList>> {
    let entries = py
        .detach(
            || -> Result<Vec<(String, arrowsmith_arrow::hdf5::Entry)>, Error> {
                let mut f = Hdf5Reader::new(mapped(&path)?)?;
                let mut out = Vec::new();
                let mut seen = std::collections::HashSet::new();
                let mut groups =
                    std::collections::VecDeque::from([group.trim_end_matches('/').to_string()]);
                while let Some(g) = groups.pop_front() {
                    for e in f.list(if g.is_empty() { "/" } else { &g })? {
                        let full = format!("{g}/{}", e.name);
                        let again = e.addr != u64::MAX && !seen.insert(e.addr);
                        if recursive && !again && e.kind == arrowsmith_arrow::hdf5::EntryKind::Group
                        {
                            groups.push_back(full.clone());
                        }
                        out.push((full, e));
                    }
                }
                Ok(out)
            },
        )
        .map_err(py_err)?;
    let out = PyList::empty(py);
    for (full, e) in entries {
        let item = PyDict::new(py);
        item.set_item("path", full)?;
        item.set_item("name", e.name)?;
        item.set_item("kind", format!("{:?}", e.kind).to_lowercase())?;
        item.set_item("shape", e.shape)?;
        item.set_item("dtype", e.dtype)?;
        item.set_item("unsupported", e.unsupported)?;
        item.set_item("target", (!e.target.is_empty()).then_some(e.target))?;
        out.append(item)?;
    }
    Ok(out)
}

/// An HDF5 dataset's layout: shape, chunk shape (`None` unless chunked) and filter names.
#[pyfunction]
fn describe_hdf5<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    dataset: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let d = py
        .detach(|| Hdf5Reader::new(mapped(&path)?)?.describe(dataset))
        .map_err(py_err)?;
    let item = PyDict::new(py);
    item.set_item("kind", format!("{:?}", d.kind).to_lowercase())?;
    item.set_item("shape", d.dims)?;
    item.set_item("chunks", d.chunks)?;
    let filters: Vec<String> = d.filters.into_iter().map(|f| f.name).collect();
    item.set_item("filters", filters)?;
    Ok(item)
}

/// The MessagePack options of one call, from the Python package's keyword arguments (a dict:
/// `layout`, `maps`, `tuples`, `columns`, `columnar`, `extensions` {type: reading},
/// `max_keys`, `many_keys`, `max_depth`), named as in the JS API (docs/msgpack.md). An
/// unknown key or value is a `ValueError` naming it. `layout` set by the verb wins.
fn msgpack_options(
    options: Option<&Bound<'_, PyDict>>,
    layout: Option<Layout>,
) -> PyResult<MsgpackOptions> {
    fn pick<T: Copy>(what: &str, table: &[(&str, T)], v: &Bound<'_, PyAny>) -> PyResult<T> {
        let name: String = v.extract()?;
        names::lookup(table, &name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "{what} must be {}, not {name:?}",
                names::list(table)
            ))
        })
    }
    let mut o = MsgpackOptions::default();
    for (k, v) in options.into_iter().flat_map(|d| d.iter()) {
        let key: String = k.extract()?;
        if v.is_none() {
            continue;
        }
        match key.as_str() {
            "layout" => o.layout = pick("layout", names::LAYOUT, &v)?,
            "maps" => o.maps = pick("maps", names::MAPS, &v)?,
            "tuples" => o.tuples = pick("tuples", names::TUPLES, &v)?,
            "many_keys" => o.many_keys = pick("many_keys", names::MANY_KEYS, &v)?,
            "columns" => o.columns = v.extract()?,
            "columnar" => o.columnar = v.extract()?,
            "max_keys" => o.max_keys = v.extract()?,
            "max_depth" => o.max_depth = v.extract()?,
            "extensions" => {
                for (ty, reading) in v.cast::<PyDict>()?.iter() {
                    let ty: i8 = ty.extract().ok().filter(|&t: &i8| t != -1).ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "extensions are keyed by ext types (-128..127; -1, the timestamp, is built in), not {ty}"
                        ))
                    })?;
                    o.extensions
                        .set(ty, pick(&format!("extensions[{ty}]"), names::READINGS, &reading)?);
                }
            }
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown MessagePack option {key:?} (options: layout, maps, tuples, columns, columnar, extensions, max_keys, many_keys, max_depth)"
                )))
            }
        }
    }
    if let Some(l) = layout {
        o.layout = l;
    }
    Ok(o)
}

/// MessagePack bytes as one stream (one batch).
#[pyfunction]
#[pyo3(signature = (data, options=None))]
fn read_msgpack(
    py: Python<'_>,
    data: Vec<u8>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<ArrowStream> {
    let o = msgpack_options(options, None)?;
    let batch = py
        .detach(|| arrowsmith_arrow::read_msgpack(&data, &o))
        .map_err(py_err)?;
    Ok(stream(batch.schema(), vec![batch]))
}

/// Whether the rows are array elements, and each run's `(start, end, rows)`.
type Cuts = (bool, Vec<(usize, usize, usize)>);

/// Where a MessagePack file (one top-level array, or concatenated values) cuts into at most
/// `parts` runs of whole rows: `(in_array, [(start, end, rows), …])`. The walk reads headers
/// only; a Spark or Ray task then decodes its run with [`read_msgpack_piece`].
#[pyfunction]
#[pyo3(signature = (path, parts, options=None))]
fn msgpack_split(
    py: Python<'_>,
    path: std::path::PathBuf,
    parts: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Cuts> {
    let o = msgpack_options(options, None)?;
    let s = py
        .detach(|| -> Result<_, Error> {
            let bytes = std::fs::read(&path)?;
            Ok(arrowsmith_arrow::msgpack::split(&bytes, parts, &o)?)
        })
        .map_err(py_err)?;
    let pieces = s.pieces.iter().map(|p| (p.start, p.end, p.rows)).collect();
    Ok((s.in_array, pieces))
}

/// The rows of bytes `start..end` of a MessagePack file, one run of a [`msgpack_split`].
#[pyfunction]
#[pyo3(signature = (path, start, end, in_array, options=None))]
fn read_msgpack_piece(
    py: Python<'_>,
    path: std::path::PathBuf,
    start: u64,
    end: u64,
    in_array: bool,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<ArrowStream> {
    let o = msgpack_options(options, Some(Layout::Auto))?;
    let batch = py
        .detach(|| -> Result<_, Error> {
            use std::io::{Read, Seek, SeekFrom};
            let mut f = std::fs::File::open(&path)?;
            f.seek(SeekFrom::Start(start))?;
            let mut bytes = Vec::new();
            f.take(end.saturating_sub(start)).read_to_end(&mut bytes)?;
            if (bytes.len() as u64) < end.saturating_sub(start) {
                return Err(Error::Io(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the file is shorter than the piece asked for",
                )));
            }
            arrowsmith_arrow::read_msgpack_piece(&bytes, start, in_array, &o)
        })
        .map_err(py_err)?;
    Ok(stream(batch.schema(), vec![batch]))
}

/// A file of concatenated MessagePack values, `rows` per batch, read as the consumer asks.
/// Batches can differ in columns when the rows do; the stream's schema is the first batch's,
/// and a later batch that differs is an error naming it.
#[pyfunction]
#[pyo3(signature = (path, rows=65536, options=None))]
fn iter_msgpack(
    py: Python<'_>,
    path: std::path::PathBuf,
    rows: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<ArrowStream> {
    let o = msgpack_options(options, Some(Layout::Stream))?;
    py.detach(|| {
        background(move || {
            let file = std::io::BufReader::new(std::fs::File::open(&path)?);
            let mut rest = MsgpackBatches::new(file, o.clone(), rows);
            let Some(first) = rest.next().transpose()? else {
                let empty = arrowsmith_arrow::read_msgpack(&[], &o)?;
                return Ok((empty.schema(), Box::new(std::iter::empty()) as _));
            };
            let schema = first.schema();
            let want = schema.clone();
            let it = std::iter::once(Ok(first)).chain(rest.enumerate().map(move |(i, b)| {
                let b = b?;
                if b.schema() != want {
                    return Err(Error::Arrow(ArrowError::SchemaError(format!(
                        "batch {} has other columns or types than the first ({}); read the file with read_msgpack",
                        i + 1,
                        b.schema()
                    ))));
                }
                Ok(b)
            }));
            Ok((schema, Box::new(it) as _))
        })
    })
    .map_err(py_err)
}

#[pymodule]
fn _arrowsmith(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DecodeError", m.py().get_type::<DecodeError>())?;
    m.add_class::<ArrowStream>()?;
    m.add_function(wrap_pyfunction!(read_tsfile, m)?)?;
    m.add_function(wrap_pyfunction!(tsfile_devices, m)?)?;
    m.add_function(wrap_pyfunction!(tsfile_tables, m)?)?;
    m.add_function(wrap_pyfunction!(read_hdf5, m)?)?;
    m.add_function(wrap_pyfunction!(iter_hdf5, m)?)?;
    m.add_function(wrap_pyfunction!(list_hdf5, m)?)?;
    m.add_function(wrap_pyfunction!(describe_hdf5, m)?)?;
    m.add_function(wrap_pyfunction!(read_msgpack, m)?)?;
    m.add_function(wrap_pyfunction!(iter_msgpack, m)?)?;
    m.add_function(wrap_pyfunction!(msgpack_split, m)?)?;
    m.add_function(wrap_pyfunction!(read_msgpack_piece, m)?)?;
    Ok(())
}
