//! HDF5 exports: a sans-I/O reader (list, info, attributes, plans, reads).

use crate::batch::{batch, hdf5_batch, js_error, DecodedBatch};
use crate::hdf5_rows::Rows;
use crate::hdf5_virtual::{info_json, JsSources};
use crate::host::{not_open, ranges, with_host, ByteHost};
use crate::json;
use crate::options::bad;
use arrowsmith_core::{Batch, Bump, Column, Field, RangeCache};
use arrowsmith_hdf5::{Hdf5File, DEFAULT_MAX_READ_BYTES};
use wasm_bindgen::prelude::*;

/// An HDF5 file read through a sans-I/O cache: JS supplies byte ranges on request.
/// Supplied ranges that only touch stay separate segments (no re-copy of large
/// neighbouring cell and heap ranges).
#[wasm_bindgen]
pub struct Hdf5Reader {
    cache: RangeCache,
    file: Option<Hdf5File>,
    /// Bytes fetched from a [`ByteHost`] during one `readFrom`.
    arena: Bump,
    /// What JS supplied of virtual datasets' sources in other files (hdf5_virtual.rs).
    sources: JsSources,
}

#[wasm_bindgen]
impl Hdf5Reader {
    #[wasm_bindgen(constructor)]
    pub fn new(size: f64) -> Hdf5Reader {
        Hdf5Reader {
            cache: RangeCache::keeping_neighbours(size as u64),
            file: None,
            arena: Bump::new(),
            sources: JsSources::default(),
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

    /// The read `options` asks for (`Hdf5RowsOptions`), the file's memory limit set to its
    /// own (every read verb sets it: no read inherits another's).
    fn rows(&mut self, options: JsValue) -> Result<Rows, JsValue> {
        let rows = Rows::new(options).map_err(js_error)?;
        let f = self
            .file
            .as_mut()
            .ok_or_else(|| not_open(arrowsmith_core::Format::Hdf5))?;
        f.max_read_bytes = rows.max_read_bytes.unwrap_or(DEFAULT_MAX_READ_BYTES);
        Ok(rows)
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

    /// The external link `path` leads through, as JSON `{"file", "path"}` (the file named
    /// by the link, the path to read there); `""` when the path stays in this file.
    #[wasm_bindgen(js_name = externalLink)]
    pub fn external_link(&self, path: &str) -> Result<String, JsValue> {
        Ok(
            match self
                .file()?
                .external_link(&self.cache, path)
                .map_err(js_error)?
            {
                Some((file, path)) => json::obj().str("file", &file).str("path", &path).finish(),
                None => String::new(),
            },
        )
    }

    /// A dataset's shape, type, layout, chunks and filters as JSON.
    pub fn info(&self, path: &str) -> Result<String, JsValue> {
        self.file()?
            .info(&self.cache, path)
            .map(|i| json::dataset_info(&i))
            .map_err(js_error)
    }

    /// An object's full metadata as JSON: type tree, dims, chunks, filters, attributes.
    pub fn describe(&self, path: &str) -> Result<String, JsValue> {
        self.file()?
            .describe(&self.cache, path)
            .map(|d| json::description(&d))
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

    /// The file ranges `[start0, end0, ...]` whose bytes, in order, are the values `read`
    /// would return for these rows (see `Hdf5File::direct_ranges`); empty when the rows
    /// must be decoded by `read`.
    #[wasm_bindgen(js_name = directRanges)]
    pub fn direct_ranges(
        &mut self,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "Hdf5RowsOptions")] rows: JsValue,
    ) -> Result<Vec<f64>, JsValue> {
        let (start, count) = self.rows(rows)?.span().map_err(js_error)?;
        let f = self.file()?;
        f.direct_ranges(&self.cache, path, start, count)
            .map(|r| extents(r.unwrap_or_default()))
            .map_err(js_error)
    }

    /// Rows `start..start+count` of a dataset (all rows when count is absent), or a
    /// hyperslab (`select`), needing at most `maxReadBytes` (default 1 GiB) or failing with
    /// `too-large`.
    pub fn read(
        &mut self,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "Hdf5RowsOptions")] rows: JsValue,
    ) -> Result<DecodedBatch, JsValue> {
        let w = self.rows(rows)?.window;
        let f = self.file()?;
        f.read_window(&self.cache, path, &w)
            .map(hdf5_batch)
            .map_err(js_error)
    }

    /// For a dataset whose raw data is in other files (external storage): the pieces of
    /// those files, in order, whose bytes are the raw data of these rows, as JSON
    /// `[{"file", "offset", "length"}]`; `""` for any other dataset.
    #[wasm_bindgen(js_name = externalRanges)]
    pub fn external_ranges(
        &mut self,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "Hdf5RowsOptions")] rows: JsValue,
    ) -> Result<String, JsValue> {
        let w = self.rows(rows)?.window;
        Ok(self
            .file()?
            .external_ranges_window(&self.cache, path, &w)
            .map_err(js_error)?
            .map_or_else(String::new, |p| json::external_pieces(&p)))
    }

    /// `read` of a dataset with external storage, from `raw`: the bytes of the pieces
    /// `externalRanges` listed, in order.
    #[wasm_bindgen(js_name = readExternal)]
    pub fn read_external(
        &mut self,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "Hdf5RowsOptions")] rows: JsValue,
        raw: &[u8],
    ) -> Result<DecodedBatch, JsValue> {
        let w = self.rows(rows)?.window;
        let f = self.file()?;
        f.read_external_window(&self.cache, path, &w, raw)
            .map(hdf5_batch)
            .map_err(js_error)
    }

    /// `read` for a file in JS memory: bytes are copied from `host` as the reader reaches
    /// them (no restarts for missing ranges, nothing copied twice).
    #[wasm_bindgen(js_name = readFrom)]
    pub fn read_from(
        &mut self,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "Hdf5RowsOptions")] rows: JsValue,
        host: &ByteHost,
    ) -> Result<DecodedBatch, JsValue> {
        let w = self.rows(rows)?.window;
        let f = self
            .file
            .as_ref()
            .ok_or_else(|| not_open(arrowsmith_core::Format::Hdf5))?;
        with_host(&self.cache, &mut self.arena, host, |src| {
            f.read_window(src, path, &w)
        })
        .map(hdf5_batch)
        .map_err(js_error)
    }
}

/// Virtual datasets with sources in other files (hdf5_virtual.rs).
#[wasm_bindgen]
impl Hdf5Reader {
    /// The shape and type of a source dataset in another file (`dims`: `None` when the
    /// resolver has no such file).
    #[wasm_bindgen(js_name = supplySourceInfo)]
    pub fn supply_source_info(
        &mut self,
        file: &str,
        dataset: &str,
        dims: Option<Vec<f64>>,
        dtype: &str,
        element_size: f64,
    ) {
        let info = dims.map(|d| arrowsmith_hdf5::SourceInfo {
            dims: d.into_iter().map(|x| x as u64).collect(),
            dtype: dtype.to_string(),
            element_size: element_size as u64,
        });
        self.sources.supply_info(file, dataset, info);
    }

    /// Raw rows of a source dataset in another file (its reader's `readRawRows`).
    #[wasm_bindgen(js_name = supplySourceRows)]
    pub fn supply_source_rows(
        &mut self,
        file: &str,
        dataset: &str,
        start: f64,
        count: f64,
        bytes: Vec<u8>,
    ) {
        self.sources
            .supply_rows(file, dataset, start as u64, count as u64, bytes);
    }

    /// Drop the supplied sources (after a read).
    #[wasm_bindgen(js_name = clearSources)]
    pub fn clear_sources(&mut self) {
        self.sources.clear();
    }

    /// What the last `readVirtual` missed: JSON `[{file, dataset}]` (shape and type) or
    /// `[{file, dataset, start, count}]` (rows).
    #[wasm_bindgen(js_name = virtualNeeds)]
    pub fn virtual_needs(&self) -> String {
        self.sources.needs()
    }

    /// `read` of a virtual dataset with the sources supplied so far; `undefined` when it
    /// needs more (see `virtualNeeds`).
    #[wasm_bindgen(js_name = readVirtual)]
    pub fn read_virtual(
        &mut self,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "Hdf5RowsOptions")] rows: JsValue,
        host: Option<ByteHost>,
    ) -> Result<Option<DecodedBatch>, JsValue> {
        let w = self.rows(rows)?.window;
        let f = self
            .file
            .as_ref()
            .ok_or_else(|| not_open(arrowsmith_core::Format::Hdf5))?;
        let sources = &self.sources;
        sources.begin();
        let read =
            |src: &dyn arrowsmith_core::ByteSource| f.read_virtual_window(src, path, &w, sources);
        let out = match &host {
            Some(h) => with_host(&self.cache, &mut self.arena, h, |src| read(src)),
            None => read(&self.cache),
        };
        match out {
            Ok(b) => Ok(Some(hdf5_batch(b))),
            Err(e) if !e.is_need_bytes() && sources.missed() => Ok(None),
            Err(e) => Err(js_error(e)),
        }
    }

    /// A dataset as the source of a virtual dataset: JSON `{dims, dtype, elementSize}`.
    #[wasm_bindgen(js_name = sourceInfo)]
    pub fn source_info(&self, path: &str) -> Result<String, JsValue> {
        self.file()?
            .source_info(&self.cache, path)
            .map(|i| info_json(&i))
            .map_err(js_error)
    }

    /// Raw element bytes of rows `start..start+count` of a dataset (after filters, fill
    /// applied), for a virtual dataset in another file.
    #[wasm_bindgen(js_name = readRawRows)]
    pub fn read_raw_rows(
        &mut self,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "Hdf5RowsOptions")] rows: JsValue,
        host: Option<ByteHost>,
    ) -> Result<Vec<u8>, JsValue> {
        let (start, count) = self.rows(rows)?.span().map_err(js_error)?;
        let f = self
            .file
            .as_ref()
            .ok_or_else(|| not_open(arrowsmith_core::Format::Hdf5))?;
        let count = count.ok_or_else(|| {
            js_error(bad(
                arrowsmith_core::Format::Hdf5,
                "count",
                "a number of rows",
                "absent",
            ))
        })?;
        let read = |src: &dyn arrowsmith_core::ByteSource| f.read_raw_rows(src, path, start, count);
        match &host {
            Some(h) => with_host(&self.cache, &mut self.arena, h, |src| read(src)),
            None => read(&self.cache),
        }
        .map_err(js_error)
    }
}

fn single(name: String, col: Column) -> Batch {
    Batch::new(vec![Field::new(name, col.dtype.clone(), true)], vec![col])
}

/// A small file as h5py writes it by default (scripts/fixtures/hdf5/gen_warm.py): what
/// `init({ warm: true })` reads in idle time, so that the engine compiles the hot paths to
/// optimized code before the first real read.
#[wasm_bindgen(js_name = hdf5WarmInput)]
pub fn hdf5_warm_input() -> Vec<u8> {
    include_bytes!("../warm/warm.h5").to_vec()
}

/// (offset, length) pairs as the flat `[start0, end0, ...]` list JS takes.
fn extents(r: Vec<(u64, u64)>) -> Vec<f64> {
    ranges(
        r.into_iter()
            .map(|(offset, len)| (offset, offset + len))
            .collect(),
    )
}
