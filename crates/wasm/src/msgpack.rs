//! MessagePack exports: whole buffers, pool pieces, and incremental streams.

use crate::batch::{batch, js_error, DecodedBatch};
use arrowsmith_msgpack as msgpack;
use wasm_bindgen::prelude::*;

/// The decode options, set one by one from JS (`msgpack.ts` maps `MsgpackOptions` here).
#[wasm_bindgen]
#[derive(Default)]
pub struct MsgpackConfig {
    inner: msgpack::Options,
}

#[wasm_bindgen]
impl MsgpackConfig {
    #[wasm_bindgen(constructor)]
    pub fn new() -> MsgpackConfig {
        MsgpackConfig::default()
    }

    /// 0 auto, 1 array, 2 stream.
    pub fn layout(&mut self, v: u8) {
        self.inner.layout = match v {
            1 => msgpack::Layout::Array,
            2 => msgpack::Layout::Stream,
            _ => msgpack::Layout::Auto,
        };
    }

    #[wasm_bindgen(js_name = fastPath)]
    pub fn fast_path(&mut self, v: bool) {
        self.inner.fast_path = v;
    }

    #[wasm_bindgen(js_name = maxDepth)]
    pub fn max_depth(&mut self, v: u32) {
        self.inner.max_depth = v as usize;
    }

    /// 0 auto, 1 columns, 2 list.
    pub fn tuples(&mut self, v: u8) {
        self.inner.tuples = match v {
            1 => msgpack::Tuples::Columns,
            2 => msgpack::Tuples::List,
            _ => msgpack::Tuples::Auto,
        };
    }

    /// Append the name of the next positional column.
    pub fn column(&mut self, name: String) {
        self.inner.columns.push(name);
    }

    pub fn columnar(&mut self, v: bool) {
        self.inner.columnar = v;
    }

    /// 0 records, 1 map.
    pub fn maps(&mut self, v: u8) {
        self.inner.maps = match v {
            1 => msgpack::Maps::Map,
            _ => msgpack::Maps::Records,
        };
    }

    /// Ext type `code` read as 0 struct, 1 binary, 2 timestamp-ms, 3 timestamp-ns,
    /// 4 undefined, 5 eventtime.
    pub fn extension(&mut self, code: i8, reading: u8) {
        let r = match reading {
            1 => msgpack::ExtReading::Binary,
            2 => msgpack::ExtReading::TimestampMs,
            3 => msgpack::ExtReading::TimestampNs,
            4 => msgpack::ExtReading::Undefined,
            5 => msgpack::ExtReading::EventTime,
            _ => msgpack::ExtReading::Struct,
        };
        self.inner.extensions.set(code, r);
    }

    #[wasm_bindgen(js_name = maxKeys)]
    pub fn max_keys(&mut self, v: u32) {
        self.inner.max_keys = v as usize;
    }

    /// 0 map, 1 error.
    #[wasm_bindgen(js_name = manyKeys)]
    pub fn many_keys(&mut self, v: u8) {
        self.inner.many_keys = match v {
            1 => msgpack::ManyKeys::Error,
            _ => msgpack::ManyKeys::Map,
        };
    }
}

/// Decode a whole MessagePack buffer.
#[wasm_bindgen(js_name = decodeMsgpack)]
pub fn decode_msgpack(bytes: &[u8], config: &MsgpackConfig) -> Result<DecodedBatch, JsValue> {
    msgpack::decode(bytes, &config.inner)
        .map(batch)
        .map_err(js_error)
}

/// Cut an input into at most `parts` pieces at row boundaries (for a worker pool):
/// `[inArray, start0, end0, rows0, start1, ...]`.
#[wasm_bindgen(js_name = msgpackSplit)]
pub fn msgpack_split(
    bytes: &[u8],
    parts: u32,
    config: &MsgpackConfig,
) -> Result<Vec<f64>, JsValue> {
    let s = msgpack::split(bytes, parts as usize, &config.inner).map_err(js_error)?;
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
    config: &MsgpackConfig,
) -> Result<DecodedBatch, JsValue> {
    msgpack::decode_piece(bytes, base as u64, in_array, &config.inner)
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
    pub fn new(config: &MsgpackConfig) -> MsgpackStream {
        MsgpackStream {
            inner: msgpack::StreamDecoder::new(config.inner.clone()),
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

/// Small documents as @msgpack/msgpack writes them, one bin per shape, in one map
/// (scripts/fixtures/msgpack/gen_warm.mjs): what `init({ warm: true })` decodes in idle
/// time, so that the engine compiles the hot paths to optimized code before the first
/// real decode.
#[wasm_bindgen(js_name = msgpackWarmInput)]
pub fn msgpack_warm_input() -> Vec<u8> {
    include_bytes!("../warm/warm.msgpack").to_vec()
}
