//! MessagePack exports: whole buffers, pool pieces, and incremental streams.

use crate::batch::{batch, js_error, DecodedBatch};
use crate::options::{bad, kind, pick, Fields};
use arrowsmith_core::{DecodeError, Format};
use arrowsmith_msgpack as msgpack;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const MSGPACK_CONFIG_OPTIONS: &str = r#"
/** The decode options as `MsgpackConfig` takes them (docs/msgpack.md states each rule). */
export interface MsgpackConfigOptions {
  layout?: "auto" | "array" | "stream";
  maxDepth?: number;
  fastPath?: boolean;
  tuples?: "auto" | "columns" | "list";
  columns?: string[];
  columnar?: boolean;
  maps?: "records" | "map";
  /** Readings of ext types by type code (-128..127 but -1, the timestamp). */
  extensions?: Record<number, "struct" | "binary" | "timestamp-ms" | "timestamp-ns" | "undefined" | "eventtime">;
  maxKeys?: number;
  manyKeys?: "map" | "error";
}
"#;

use msgpack::names::{LAYOUT, MANY_KEYS, MAPS, READINGS, TUPLES};

/// The decode options, from one JS object (`msgpack-options.ts` passes `MsgpackOptions`).
#[wasm_bindgen]
#[derive(Default)]
pub struct MsgpackConfig {
    inner: msgpack::Options,
}

#[wasm_bindgen]
impl MsgpackConfig {
    /// The options `options` asks for (absent fields keep their defaults); a bad value is
    /// an `invalid` error naming the option.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "MsgpackConfigOptions | undefined")] options: JsValue,
    ) -> Result<MsgpackConfig, JsValue> {
        Self::from_options(options).map_err(js_error)
    }

    fn from_options(options: JsValue) -> Result<MsgpackConfig, DecodeError> {
        let o = Fields::new(Format::MessagePack, options)?;
        let mut c = msgpack::Options::default();
        if let Some(v) = o.choice("layout", LAYOUT)? {
            c.layout = v;
        }
        if let Some(v) = o.bool("fastPath")? {
            c.fast_path = v;
        }
        if let Some(v) = o.count("maxDepth")? {
            c.max_depth = v as usize;
        }
        if let Some(v) = o.choice("tuples", TUPLES)? {
            c.tuples = v;
        }
        if let Some(v) = o.strings("columns")? {
            c.columns = v;
        }
        if let Some(v) = o.bool("columnar")? {
            c.columnar = v;
        }
        if let Some(v) = o.choice("maps", MAPS)? {
            c.maps = v;
        }
        for (code, reading) in o.entries("extensions")? {
            let name = format!("extensions[{code}]");
            let ty = code
                .parse::<i8>()
                .ok()
                .filter(|&t| t != -1)
                .ok_or_else(|| {
                    bad(
                        Format::MessagePack,
                        "extensions",
                        "keyed by ext types (-128..127; -1, the timestamp, is built in)",
                        &code,
                    )
                })?;
            let Some(reading) = reading.as_string() else {
                return Err(bad(Format::MessagePack, &name, "a string", &kind(&reading)));
            };
            c.extensions
                .set(ty, pick(Format::MessagePack, &name, &reading, READINGS)?);
        }
        if let Some(v) = o.count("maxKeys")? {
            c.max_keys = v as usize;
        }
        if let Some(v) = o.choice("manyKeys", MANY_KEYS)? {
            c.many_keys = v;
        }
        Ok(MsgpackConfig { inner: c })
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
