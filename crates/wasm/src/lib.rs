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
#[cfg(feature = "hdf5")]
mod hdf5_rows;
#[cfg(feature = "hdf5")]
mod hdf5_virtual;
#[cfg(feature = "msgpack")]
pub mod msgpack;
pub mod options;
#[cfg(feature = "tsfile")]
pub mod tsfile;

use wasm_bindgen::prelude::*;

/// True when this module was built with SIMD128 kernels.
#[wasm_bindgen(js_name = simdEnabled)]
pub fn simd_enabled() -> bool {
    arrowsmith_core::simd::ENABLED
}

/// Whether this engine computes the shared SIMD128 kernels right (some engines validate
/// SIMD and compute wrong results): byte swaps, the ASCII check and bit reversal on fixed
/// input, against std's scalar answers. Every format module has it, so each checks itself
/// when it loads; in the scalar build it checks the scalar kernels.
#[wasm_bindgen(js_name = simdCheck)]
pub fn simd_check() -> bool {
    use arrowsmith_core::simd;
    // 67 bytes: four 16-byte SIMD blocks and a scalar tail, every byte value pattern.
    let src: Vec<u8> = (0..67u32).map(|i| (i * 73 + 41) as u8).collect();
    let swaps_agree = [2usize, 4, 8].iter().all(|&w| {
        let n = src.len() / w * w;
        let mut got = vec![0u8; n];
        simd::swap_bytes(w, &src[..n], &mut got);
        src[..n]
            .chunks_exact(w)
            .zip(got.chunks_exact(w))
            .all(|(s, g)| s.iter().rev().eq(g.iter()))
    });
    let mut rev = vec![0u8; src.len()];
    simd::reverse_bits(&src, &mut rev);
    let bits_agree = src.iter().zip(&rev).all(|(s, r)| s.reverse_bits() == *r);
    let ascii: Vec<u8> = src.iter().map(|b| b & 0x7f).collect();
    let mut high = ascii.clone();
    high[50] |= 0x80;
    swaps_agree && bits_agree && simd::is_ascii(&ascii) && !simd::is_ascii(&high)
}

#[cfg(test)]
mod tests {
    #[test]
    fn simd_check_passes_where_the_kernels_are_right() {
        assert!(super::simd_check());
    }
}
