//! The wasm boundary: every `#[wasm_bindgen]` export of Arrowsmith, and nothing else.
//!
//! Decoders live in pure-Rust crates. Here a decoded batch is kept alive in a
//! [`DecodedBatch`](batch::DecodedBatch) handle while JS copies its buffers out (see
//! `describe`), and errors cross as a JSON string that the TS layer turns into a typed
//! `DecodeError`. One module per format, each behind a cargo feature, so a build can hold
//! one format alone.

pub mod batch;
#[cfg(any(feature = "tsfile", feature = "hdf5"))]
pub mod host;
#[cfg(any(feature = "tsfile", feature = "hdf5"))]
mod json;

#[cfg(feature = "hdf5")]
pub mod hdf5;
#[cfg(feature = "msgpack")]
pub mod msgpack;
#[cfg(feature = "tsfile")]
pub mod tsfile;

use wasm_bindgen::prelude::*;

/// True when this module was built with SIMD128 kernels.
#[wasm_bindgen(js_name = simdEnabled)]
pub fn simd_enabled() -> bool {
    arrowsmith_core::simd::ENABLED
}
