//! Apache TsFile exports: a sans-I/O reader and its query.

use crate::batch::{batch, js_error, DecodedBatch};
use crate::host::{not_open, ranges, with_host, ByteHost};
use crate::json;
use crate::options::{bad, kind, number, Fields};
use arrowsmith_core::Bump;
use arrowsmith_core::RangeCache;
use arrowsmith_core::TimeUnit;
use arrowsmith_core::{DecodeError, ErrorCode, Format};
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

#[wasm_bindgen(typescript_custom_section)]
const TS_QUERY_OPTIONS: &str = r#"
/** What a TsFile read reads: every field optional, `TsQuery` validates each. */
export interface TsQueryOptions {
  /** v4 table (default: the only table, or the tree-model devices). */
  table?: string;
  /** Device paths (default: all). */
  devices?: string[];
  /** Field columns besides `time` (default: all). */
  columns?: string[];
  /** Inclusive time range, in the file's time unit (a number: a safe integer). */
  start?: bigint | number;
  end?: bigint | number;
  /** Equality filter per tag column. */
  tags?: Record<string, string>;
  /** At most this many rows. */
  limit?: number;
  /** Unit of the time and TIMESTAMP columns (default "ms"). */
  timeUnit?: "s" | "ms" | "us" | "ns";
  /** Memory the read may take, in bytes (default 1 GiB); more fails with `too-large`. */
  maxReadBytes?: number;
}
"#;

const UNITS: &[(&str, TimeUnit)] = &[
    ("s", TimeUnit::Second),
    ("ms", TimeUnit::Millisecond),
    ("us", TimeUnit::Microsecond),
    ("ns", TimeUnit::Nanosecond),
];

/// A TsFile query, built once in JS and passed to `plan` and `read`, with the unit of the
/// time and TIMESTAMP columns.
#[wasm_bindgen]
pub struct TsQuery(Query, TimeUnit);

#[wasm_bindgen]
impl TsQuery {
    /// The query `options` asks for; `mods`, IoTDB deletions to hide from the read (the
    /// bytes of the file's `.mods2` or `.mods`). A bad option value is an `invalid` error
    /// naming it.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "TsQueryOptions | undefined")] options: JsValue,
        mods: Option<Vec<u8>>,
    ) -> Result<TsQuery, JsValue> {
        Self::from_options(options, mods).map_err(js_error)
    }

    fn from_options(options: JsValue, mods: Option<Vec<u8>>) -> Result<TsQuery, DecodeError> {
        let o = Fields::new(Format::TsFile, options)?;
        let mut tags = Vec::new();
        for (k, v) in o.entries("tags")? {
            let Some(v) = v.as_string() else {
                return Err(DecodeError::new(
                    Format::TsFile,
                    0,
                    ErrorCode::Invalid,
                    format!(
                        "tag filter \"{k}\" must be a string, not {} (a filter matches devices whose tag equals it; filter null tags with devices())",
                        if v.is_null() { "null".into() } else { kind(&v) }
                    ),
                ));
            };
            tags.push((k, v));
        }
        let max_read_bytes = match o.number("maxReadBytes")? {
            Some(b) if !(b >= 0.0 && b.fract() == 0.0) => {
                return Err(bad(
                    Format::TsFile,
                    "maxReadBytes",
                    "a whole number of bytes",
                    &number(b),
                ))
            }
            b => b.map(|b| b as u64),
        };
        let query = Query {
            table: o.string("table")?,
            devices: o.strings("devices")?.filter(|d| !d.is_empty()),
            columns: o.strings("columns")?.filter(|c| !c.is_empty()),
            start: o.int64("start")?,
            end: o.int64("end")?,
            tags,
            limit: o.count("limit")?.map(|l| l as usize),
            max_read_bytes,
            mods: mods.map(|m| Mods::parse(&m).map(Arc::new)).transpose()?,
            // apache-arrow JS reads times back as numbers: checked.
            native_times: false,
        };
        let unit = o
            .choice("timeUnit", UNITS)?
            .unwrap_or(TimeUnit::Millisecond);
        Ok(TsQuery(query, unit))
    }
}

/// A small file as the PyPI writer makes it by default (scripts/fixtures/tsfile/gen_warm.py):
/// what `init({ warm: true })` reads in idle time, so that the engine compiles the hot
/// paths to optimized code before the first real read.
#[wasm_bindgen(js_name = warmInput)]
pub fn warm_input() -> Vec<u8> {
    include_bytes!("../warm/warm.tsfile").to_vec()
}
