//! Apache TsFile exports: a sans-I/O reader and its query.

use crate::batch::{batch, js_error, DecodedBatch};
use crate::host::{not_open, ranges, with_host, ByteHost};
use crate::json;
use arrowsmith_core::Bump;
use arrowsmith_core::RangeCache;
use arrowsmith_core::TimeUnit;
use arrowsmith_tsfile::{Mods, Query, TsFile};
use std::sync::Arc;
use wasm_bindgen::prelude::*;

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
            .read_as(&self.cache, &q.0, q.1)
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
        with_host(&self.cache, &mut self.arena, host, |src| {
            f.read_as(src, &q.0, q.1)
        })
        .map(batch)
        .map_err(js_error)
    }
}

/// A TsFile query, built once in JS and passed to `plan` and `read`, with the unit of the
/// time and TIMESTAMP columns.
#[wasm_bindgen]
pub struct TsQuery(Query, TimeUnit);

#[wasm_bindgen]
impl TsQuery {
    /// Empty lists mean "not restricted"; `tags` is `[column, value, column, value, ...]`;
    /// `unit` is "s", "ms" (the default), "us" or "ns".
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)] // one JS constructor call, positional
    pub fn new(
        table: Option<String>,
        devices: Vec<String>,
        columns: Vec<String>,
        start: Option<i64>,
        end: Option<i64>,
        tags: Vec<String>,
        limit: Option<u32>,
        unit: Option<String>,
    ) -> TsQuery {
        let unit = match unit.as_deref() {
            Some("s") => TimeUnit::Second,
            Some("us") => TimeUnit::Microsecond,
            Some("ns") => TimeUnit::Nanosecond,
            _ => TimeUnit::Millisecond,
        };
        TsQuery(
            Query {
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
                max_read_bytes: None,
                mods: None,
            },
            unit,
        )
    }

    /// The memory the read may take, in bytes (default 1 GiB); more fails with `too-large`.
    #[wasm_bindgen(js_name = setMaxReadBytes)]
    pub fn set_max_read_bytes(&mut self, bytes: f64) {
        self.0.max_read_bytes = Some(bytes as u64);
    }

    /// IoTDB deletions to hide from the read: the bytes of the file's `.mods2` or `.mods`.
    #[wasm_bindgen(js_name = setMods)]
    pub fn set_mods(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.0.mods = Some(Arc::new(Mods::parse(bytes).map_err(js_error)?));
        Ok(())
    }
}

/// A small file as the PyPI writer makes it by default (scripts/fixtures/tsfile/gen_warm.py):
/// what `init({ warm: true })` reads in idle time, so that the engine compiles the hot
/// paths to optimized code before the first real read.
#[wasm_bindgen(js_name = warmInput)]
pub fn warm_input() -> Vec<u8> {
    include_bytes!("../warm/warm.tsfile").to_vec()
}
