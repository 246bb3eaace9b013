//! MessagePack exports: whole buffers, pool pieces, and incremental streams.

use crate::batch::{batch, js_error, DecodedBatch};
use arrowsmith_msgpack as msgpack;
use wasm_bindgen::prelude::*;

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
