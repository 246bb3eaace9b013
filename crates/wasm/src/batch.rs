//! Decoded batches held in wasm memory for JS, and errors as JSON for the TS layer.

use arrowsmith_core::describe::{describe, push_str_json};
use arrowsmith_core::{Batch, DecodeError};
use wasm_bindgen::prelude::*;

/// A decoded batch living in wasm memory until JS frees it, described once (its JSON schema
/// and buffer addresses: JS asks for both).
#[wasm_bindgen]
pub struct DecodedBatch {
    batch: Batch,
    json: String,
    /// `[ptr0, len0, ...]`: the buffers stay where they are while the batch lives.
    buffers: Vec<u32>,
    /// Give the byte buffers back for the next read's output when freed (HDF5 reads, the
    /// ones that take recycled buffers; see `arrowsmith_core::recycle`).
    recycle: bool,
}

#[wasm_bindgen]
impl DecodedBatch {
    /// JSON schema; each column names its buffers by index into `buffers()`.
    pub fn schema(&self) -> String {
        self.json.clone()
    }

    /// `[ptr0, len0, ptr1, len1, ...]` into wasm memory, valid until this handle is freed
    /// or the next call that may grow memory.
    pub fn buffers(&self) -> Vec<u32> {
        self.buffers.clone()
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

pub fn batch(b: Batch) -> DecodedBatch {
    held(b, false)
}

/// A batch of an HDF5 read, whose byte buffers are recycled.
pub fn hdf5_batch(b: Batch) -> DecodedBatch {
    held(b, true)
}

fn held(batch: Batch, recycle: bool) -> DecodedBatch {
    let d = describe(&batch);
    let buffers = d
        .buffers
        .iter()
        .flat_map(|b| [b.as_ptr() as u32, b.len() as u32])
        .collect();
    DecodedBatch {
        json: d.json,
        buffers,
        batch,
        recycle,
    }
}

pub fn js_error(e: DecodeError) -> JsValue {
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
