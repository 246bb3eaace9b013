//! One Zstandard frame (the Zstandard filter 32015, blosc's zstd codec, bitshuffle's zstd
//! stage) decoded with `ruzstd` into a slice: output past the slice is an error, so a
//! frame cannot grow beyond the chunk.

use std::io::Read;

/// Decode the frame in `src` into `out`; returns the bytes written.
pub fn decompress_into(src: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let mut input = src;
    let mut dec =
        ruzstd::decoding::StreamingDecoder::new(&mut input).map_err(|e| format!("zstd: {e}"))?;
    let mut n = 0;
    while n < out.len() {
        match dec.read(&mut out[n..]) {
            Ok(0) => return Ok(n),
            Ok(k) => n += k,
            Err(e) => return Err(format!("zstd: {e}")),
        }
    }
    match dec.read(&mut [0u8; 1]) {
        Ok(0) => Ok(n),
        Ok(_) => Err(format!(
            "zstd: frame holds more than the chunk's {} bytes",
            out.len()
        )),
        Err(e) => Err(format!("zstd: {e}")),
    }
}
