//! The wasm boundary: every `#[wasm_bindgen]` export of Arrowsmith, and nothing else.
//!
//! Decoders live in pure-Rust crates. Here a decoded [`Batch`] is kept alive in a
//! [`DecodedBatch`] handle while JS copies its buffers out (see `describe`), and errors
//! cross as a JSON string that the TS layer turns into a typed `DecodeError`.

mod json;

use arrowsmith_core::describe::{describe, push_str_json};
use arrowsmith_core::{Batch, Bump, Column, DecodeError, Field, HostSource, RangeCache};
use arrowsmith_hdf5::Hdf5File;
use arrowsmith_msgpack as msgpack;
use arrowsmith_tsfile::{Query, TsFile};
use wasm_bindgen::prelude::*;

/// A decoded batch living in wasm memory until JS frees it.
#[wasm_bindgen]
pub struct DecodedBatch {
    batch: Batch,
    /// Give the byte buffers back for the next read's output when freed (HDF5 reads, the
    /// ones that take recycled buffers; see `arrowsmith_core::recycle`).
    recycle: bool,
}

#[wasm_bindgen]
impl DecodedBatch {
    /// JSON schema; each column names its buffers by index into `buffers()`.
    pub fn schema(&self) -> String {
        describe(&self.batch).json
    }

    /// `[ptr0, len0, ptr1, len1, ...]` into wasm memory, valid until this handle is freed
    /// or the next call that may grow memory.
    pub fn buffers(&self) -> Vec<u32> {
        describe(&self.batch)
            .buffers
            .iter()
            .flat_map(|b| [b.as_ptr() as u32, b.len() as u32])
            .collect()
    }

    #[wasm_bindgen(js_name = numRows)]
    pub fn num_rows(&self) -> usize {
        self.batch.num_rows
    }
}

/// Freed once JS has copied the buffers out: an HDF5 batch's byte buffers go back for the
/// next read's output (see `arrowsmith_core::recycle`).
impl Drop for DecodedBatch {
    fn drop(&mut self) {
        if self.recycle {
            arrowsmith_core::recycle::give_back_columns(&mut self.batch.columns);
        }
    }
}

fn batch(b: Batch) -> DecodedBatch {
    DecodedBatch {
        batch: b,
        recycle: false,
    }
}

/// A batch of an HDF5 read, whose byte buffers are recycled.
fn hdf5_batch(b: Batch) -> DecodedBatch {
    DecodedBatch {
        batch: b,
        recycle: true,
    }
}

fn js_error(e: DecodeError) -> JsValue {
    let mut s = String::from("{\"arrowsmith\":true,\"format\":");
    push_str_json(&mut s, e.format.name());
    s.push_str(&format!(
        ",\"offset\":{},\"code\":\"{}\",\"need\":{},\"message\":",
        e.offset,
        e.code.as_str(),
        e.need_len
    ));
    push_str_json(&mut s, &e.message);
    s.push('}');
    JsValue::from_str(&s)
}

/// True when this module was built with SIMD128 kernels.
#[wasm_bindgen(js_name = simdEnabled)]
pub fn simd_enabled() -> bool {
    arrowsmith_core::simd::ENABLED
}

fn msgpack_options(layout: u8, fast_path: bool, max_depth: u32) -> msgpack::Options {
    msgpack::Options {
        layout: match layout {
            1 => msgpack::Layout::Array,
            2 => msgpack::Layout::Stream,
            _ => msgpack::Layout::Auto,
        },
        fast_path,
        max_depth: max_depth as usize,
    }
}

/// Decode a whole MessagePack buffer. `layout`: 0 auto, 1 array, 2 stream.
#[wasm_bindgen(js_name = decodeMsgpack)]
pub fn decode_msgpack(
    bytes: &[u8],
    layout: u8,
    fast_path: bool,
    max_depth: u32,
) -> Result<DecodedBatch, JsValue> {
    msgpack::decode(bytes, &msgpack_options(layout, fast_path, max_depth))
        .map(batch)
        .map_err(js_error)
}

/// Cut an input into at most `parts` pieces at row boundaries (for a worker pool):
/// `[inArray, start0, end0, rows0, start1, ...]`.
#[wasm_bindgen(js_name = msgpackSplit)]
pub fn msgpack_split(
    bytes: &[u8],
    layout: u8,
    parts: u32,
    max_depth: u32,
) -> Result<Vec<f64>, JsValue> {
    let s = msgpack::split(
        bytes,
        parts as usize,
        &msgpack_options(layout, true, max_depth),
    )
    .map_err(js_error)?;
    let pieces = s
        .pieces
        .iter()
        .flat_map(|p| [p.start as f64, p.end as f64, p.rows as f64]);
    Ok(std::iter::once(f64::from(u8::from(s.in_array)))
        .chain(pieces)
        .collect())
}

/// Decode one piece of a split; `base` is where it starts in the whole input.
#[wasm_bindgen(js_name = decodeMsgpackPiece)]
pub fn decode_msgpack_piece(
    bytes: &[u8],
    base: f64,
    in_array: bool,
    fast_path: bool,
    max_depth: u32,
) -> Result<DecodedBatch, JsValue> {
    msgpack::decode_piece(
        bytes,
        base as u64,
        in_array,
        &msgpack_options(0, fast_path, max_depth),
    )
    .map(batch)
    .map_err(js_error)
}

/// Incremental MessagePack decoding: push chunks as they arrive, take batches of rows.
#[wasm_bindgen]
pub struct MsgpackStream {
    inner: msgpack::StreamDecoder,
}

#[wasm_bindgen]
impl MsgpackStream {
    #[wasm_bindgen(constructor)]
    pub fn new(layout: u8, fast_path: bool, max_depth: u32) -> MsgpackStream {
        MsgpackStream {
            inner: msgpack::StreamDecoder::new(msgpack_options(layout, fast_path, max_depth)),
        }
    }

    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsValue> {
        self.inner.push(chunk).map_err(js_error)
    }

    #[wasm_bindgen(js_name = readyRows)]
    pub fn ready_rows(&self) -> usize {
        self.inner.ready_rows()
    }

    #[wasm_bindgen(js_name = takeBatch)]
    pub fn take_batch(&mut self, max_rows: usize) -> Result<Option<DecodedBatch>, JsValue> {
        self.inner
            .take_batch(max_rows)
            .map(|o| o.map(batch))
            .map_err(js_error)
    }

    pub fn finish(&mut self) -> Result<Option<DecodedBatch>, JsValue> {
        self.inner.finish().map(|o| o.map(batch)).map_err(js_error)
    }
}

/// Byte ranges `[start0, end0, start1, end1, ...]` as f64 (exact below 2^53).
/// (TsFile plans are (start, end); HDF5 plans are (offset, length) and converted.)
fn ranges(r: Vec<(u64, u64)>) -> Vec<f64> {
    r.into_iter()
        .flat_map(|(a, b)| [a as f64, b as f64])
        .collect()
}

fn not_open(format: arrowsmith_core::Format) -> JsValue {
    js_error(DecodeError::new(
        format,
        0,
        arrowsmith_core::ErrorCode::Invalid,
        "the file is not open yet",
    ))
}

#[wasm_bindgen]
extern "C" {
    /// The JS side of a file already in JS memory: copies its `len` bytes at `offset` to
    /// wasm memory at `ptr` (a range the reader has bounds-checked against the file size).
    pub type ByteHost;
    #[wasm_bindgen(method, catch, js_name = readInto)]
    fn read_into(this: &ByteHost, offset: f64, ptr: u32, len: u32) -> Result<(), JsValue>;
}

/// Fetched bytes an idle reader may keep for the next read (beyond this the arena is freed).
const ARENA_KEEP: usize = 64 << 20;

/// Run a read over `kept` plus bytes fetched from `host` on demand into `arena` (emptied
/// first; freed after when it grew large, so memory stays flat across reads).
fn with_host<R>(
    kept: &RangeCache,
    arena: &mut Bump,
    host: &ByteHost,
    read: impl FnOnce(&HostSource) -> R,
) -> R {
    arena.reset();
    let fetch = |off: u64, dst: &mut [std::mem::MaybeUninit<u8>]| {
        host.read_into(off as f64, dst.as_mut_ptr() as u32, dst.len() as u32)
            .is_ok()
    };
    // SAFETY: the JS host (`ByteHost.readInto`, filereader.ts) copies all `len` bytes or
    // throws; a throw is `Err` here, so `true` means every byte of `dst` was written.
    #[allow(unsafe_code)]
    let source = unsafe { HostSource::new(kept, arena, &fetch) };
    let out = read(&source);
    if arena.allocated_bytes() > ARENA_KEEP {
        *arena = Bump::new();
    }
    out
}

/// An Apache TsFile read through a sans-I/O cache: JS supplies byte ranges on request.
#[wasm_bindgen]
pub struct TsFileReader {
    cache: RangeCache,
    file: Option<TsFile>,
    /// Bytes fetched from a [`ByteHost`] during one `readFrom`.
    arena: Bump,
}

#[wasm_bindgen]
impl TsFileReader {
    #[wasm_bindgen(constructor)]
    pub fn new(size: f64) -> TsFileReader {
        TsFileReader {
            cache: RangeCache::new(size as u64),
            file: None,
            arena: Bump::new(),
        }
    }

    /// Hand over the bytes at `offset` (an answer to a `need-bytes` error).
    pub fn supply(&mut self, offset: f64, bytes: Vec<u8>) {
        self.cache.insert(offset as u64, bytes);
    }

    /// Drop supplied data bytes (the metadata stays parsed).
    #[wasm_bindgen(js_name = clearCache)]
    pub fn clear_cache(&mut self) {
        self.cache.clear();
    }

    /// Parse the footer and metadata; returns the format version (3 or 4).
    pub fn open(&mut self) -> Result<u8, JsValue> {
        let f = TsFile::open(&self.cache).map_err(js_error)?;
        let v = f.version();
        self.file = Some(f);
        Ok(v)
    }

    fn file(&self) -> Result<&TsFile, JsValue> {
        self.file
            .as_ref()
            .ok_or_else(|| not_open(arrowsmith_core::Format::TsFile))
    }

    /// Table schemas (v4) as JSON.
    pub fn tables(&self) -> Result<String, JsValue> {
        Ok(json::tables(&self.file()?.tables()))
    }

    /// Devices as JSON, all or those of one table.
    pub fn devices(&self, table: Option<String>) -> Result<String, JsValue> {
        Ok(json::devices(&self.file()?.devices(table.as_deref())))
    }

    /// Every series (tree view) as JSON.
    pub fn timeseries(&self) -> Result<String, JsValue> {
        let f = self.file()?;
        f.timeseries(&self.cache)
            .map(|t| json::timeseries(&t))
            .map_err(js_error)
    }

    /// `[start, end, rows]` of one device (empty when unknown or without data).
    #[wasm_bindgen(js_name = deviceSpan)]
    pub fn device_span(&self, path: &str) -> Result<Vec<i64>, JsValue> {
        let span = self
            .file()?
            .device_span(&self.cache, path)
            .map_err(js_error)?;
        Ok(span.map_or_else(Vec::new, |(a, b, n)| vec![a, b, n as i64]))
    }

    /// Byte ranges the query needs, coalesced, for prefetching.
    pub fn plan(&self, q: &TsQuery) -> Result<Vec<f64>, JsValue> {
        self.file()?
            .plan(&self.cache, &q.0)
            .map(ranges)
            .map_err(js_error)
    }

    pub fn read(&self, q: &TsQuery) -> Result<DecodedBatch, JsValue> {
        self.file()?
            .read(&self.cache, &q.0)
            .map(batch)
            .map_err(js_error)
    }

    /// `read` for a file in JS memory: missing bytes are copied from `host` as the reader
    /// reaches them, so only the pages it decodes cross into wasm (no plan, no restarts).
    #[wasm_bindgen(js_name = readFrom)]
    pub fn read_from(&mut self, q: &TsQuery, host: &ByteHost) -> Result<DecodedBatch, JsValue> {
        let f = self
            .file
            .as_ref()
            .ok_or_else(|| not_open(arrowsmith_core::Format::TsFile))?;
        with_host(&self.cache, &mut self.arena, host, |src| f.read(src, &q.0))
            .map(batch)
            .map_err(js_error)
    }
}

/// A TsFile query, built once in JS and passed to `plan` and `read`.
#[wasm_bindgen]
pub struct TsQuery(Query);

#[wasm_bindgen]
impl TsQuery {
    /// Empty lists mean "not restricted"; `tags` is `[column, value, column, value, ...]`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        table: Option<String>,
        devices: Vec<String>,
        columns: Vec<String>,
        start: Option<i64>,
        end: Option<i64>,
        tags: Vec<String>,
        limit: Option<u32>,
    ) -> TsQuery {
        TsQuery(Query {
            table,
            devices: (!devices.is_empty()).then_some(devices),
            columns: (!columns.is_empty()).then_some(columns),
            start,
            end,
            tags: tags
                .chunks_exact(2)
                .map(|kv| (kv[0].clone(), kv[1].clone()))
                .collect(),
            limit: limit.map(|l| l as usize),
        })
    }
}

/// An HDF5 file read through a sans-I/O cache: JS supplies byte ranges on request.
/// Supplied ranges that only touch stay separate segments (no re-copy of large
/// neighbouring cell and heap ranges).
#[wasm_bindgen]
pub struct Hdf5Reader {
    cache: RangeCache,
    file: Option<Hdf5File>,
    /// Bytes fetched from a [`ByteHost`] during one `readFrom`.
    arena: Bump,
}

#[wasm_bindgen]
impl Hdf5Reader {
    #[wasm_bindgen(constructor)]
    pub fn new(size: f64) -> Hdf5Reader {
        Hdf5Reader {
            cache: RangeCache::keeping_neighbours(size as u64),
            file: None,
            arena: Bump::new(),
        }
    }

    pub fn supply(&mut self, offset: f64, bytes: Vec<u8>) {
        self.cache.insert(offset as u64, bytes);
    }

    #[wasm_bindgen(js_name = clearCache)]
    pub fn clear_cache(&mut self) {
        self.cache.clear();
    }

    /// Find and parse the superblock.
    pub fn open(&mut self) -> Result<(), JsValue> {
        self.file = Some(Hdf5File::open(&self.cache).map_err(js_error)?);
        Ok(())
    }

    fn file(&self) -> Result<&Hdf5File, JsValue> {
        self.file
            .as_ref()
            .ok_or_else(|| not_open(arrowsmith_core::Format::Hdf5))
    }

    /// Children of a group as JSON (name, kind, shape, dtype).
    pub fn list(&self, path: &str) -> Result<String, JsValue> {
        self.file()?
            .list(&self.cache, path)
            .map(|e| json::entries(&e))
            .map_err(js_error)
    }

    /// A dataset's shape, type, layout, chunks and filters as JSON.
    pub fn info(&self, path: &str) -> Result<String, JsValue> {
        self.file()?
            .info(&self.cache, path)
            .map(|i| json::dataset_info(&i))
            .map_err(js_error)
    }

    /// An object's attributes, each as a one-column batch named after it.
    pub fn attrs(&self, path: &str) -> Result<Vec<DecodedBatch>, JsValue> {
        let attrs = self.file()?.attrs(&self.cache, path).map_err(js_error)?;
        Ok(attrs
            .into_iter()
            .map(|(name, col)| batch(single(name, col)))
            .collect())
    }

    pub fn plan(&self, path: &str, start: f64, count: Option<f64>) -> Result<Vec<f64>, JsValue> {
        let f = self.file()?;
        f.plan(&self.cache, path, start as u64, count.map(|c| c as u64))
            .map(|r| {
                ranges(
                    r.into_iter()
                        .map(|(offset, len)| (offset, offset + len))
                        .collect(),
                )
            })
            .map_err(js_error)
    }

    /// Rows `start..start+count` of a dataset (all rows when count is absent).
    pub fn read(
        &self,
        path: &str,
        start: f64,
        count: Option<f64>,
    ) -> Result<DecodedBatch, JsValue> {
        let f = self.file()?;
        f.read(&self.cache, path, start as u64, count.map(|c| c as u64))
            .map(hdf5_batch)
            .map_err(js_error)
    }

    /// `read` for a file in JS memory: bytes are copied from `host` as the reader reaches
    /// them (no restarts for missing ranges, nothing copied twice).
    #[wasm_bindgen(js_name = readFrom)]
    pub fn read_from(
        &mut self,
        path: &str,
        start: f64,
        count: Option<f64>,
        host: &ByteHost,
    ) -> Result<DecodedBatch, JsValue> {
        let f = self
            .file
            .as_ref()
            .ok_or_else(|| not_open(arrowsmith_core::Format::Hdf5))?;
        let count = count.map(|c| c as u64);
        with_host(&self.cache, &mut self.arena, host, |src| {
            f.read(src, path, start as u64, count)
        })
        .map(hdf5_batch)
        .map_err(js_error)
    }
}

fn single(name: String, col: Column) -> Batch {
    Batch::new(vec![Field::new(name, col.dtype.clone(), true)], vec![col])
}
