//! Decoded batches held in wasm memory for JS, and errors as JSON for the TS layer.

use arrowsmith_core::describe::{describe, push_str_json};
use arrowsmith_core::{Batch, DecodeError};
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

pub fn batch(b: Batch) -> DecodedBatch {
    DecodedBatch {
        batch: b,
        recycle: false,
    }
}

/// A batch of an HDF5 read, whose byte buffers are recycled.
pub fn hdf5_batch(b: Batch) -> DecodedBatch {
    DecodedBatch {
        batch: b,
        recycle: true,
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
