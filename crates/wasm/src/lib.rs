//! The wasm boundary: every `#[wasm_bindgen]` export of Arrowsmith, and nothing else.
//!
//! Decoders live in pure-Rust crates. Here a decoded [`Batch`] is kept alive in a
//! [`DecodedBatch`] handle while JS copies its buffers out (see `describe`), and errors
//! cross as a JSON string that the TS layer turns into a typed `DecodeError`.

use arrowsmith_core::describe::{describe, push_str_json};
use arrowsmith_core::{Batch, DecodeError};
use arrowsmith_msgpack as msgpack;
use wasm_bindgen::prelude::*;

/// A decoded batch living in wasm memory until JS frees it.
#[wasm_bindgen]
pub struct DecodedBatch {
    batch: Batch,
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

fn batch(b: Batch) -> DecodedBatch {
    DecodedBatch { batch: b }
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
        ..Default::default()
    }
}

/// Decode a whole MessagePack buffer. `layout`: 0 auto, 1 array, 2 stream.
#[wasm_bindgen(js_name = decodeMsgpack)]
pub fn decode_msgpack(bytes: &[u8], layout: u8, fast_path: bool, max_depth: u32) -> Result<DecodedBatch, JsValue> {
    msgpack::decode(bytes, &msgpack_options(layout, fast_path, max_depth)).map(batch).map_err(js_error)
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
        MsgpackStream { inner: msgpack::StreamDecoder::new(msgpack_options(layout, fast_path, max_depth)) }
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
        self.inner.take_batch(max_rows).map(|o| o.map(batch)).map_err(js_error)
    }

    pub fn finish(&mut self) -> Result<Option<DecodedBatch>, JsValue> {
        self.inner.finish().map(|o| o.map(batch)).map_err(js_error)
    }
}
