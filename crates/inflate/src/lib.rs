//! Inflate (RFC 1951) straight into the caller's slice, bounded by it, with the zlib
//! (RFC 1950, HDF5 deflate chunks and blosc's zlib codec) and gzip (RFC 1952, TsFile GZIP
//! pages) framings. Hand-written for speed: see docs/decisions.md (2026-11-22 and
//! 2026-11-25) for the crates measured against it.
//!
//! `unsafe`-free; every malformed stream is a [`Bad`] naming the byte where it was found.

mod adler32;
mod bits;
mod fast;
pub mod gzip;
mod huffman;
mod raw;
pub mod zlib;

pub use huffman::{enough, ENOUGH_DIST, ENOUGH_LITLEN};
pub use raw::{inflate, Bad, TOO_LONG};

#[cfg(test)]
mod tests {
    /// A framing's `decompress_into` with an output of `cap` bytes: the bytes written, or
    /// the error's text.
    pub fn into_vec(
        f: fn(&[u8], &mut [u8]) -> Result<usize, crate::Bad>,
        z: &[u8],
        cap: usize,
    ) -> Result<Vec<u8>, &'static str> {
        let mut out = vec![0u8; cap];
        let n = f(z, &mut out).map_err(|b| b.what)?;
        out.truncate(n);
        Ok(out)
    }
}
