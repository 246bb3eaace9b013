//! Inflate (RFC 1951) straight into the caller's slice, bounded by it, with the zlib
//! (RFC 1950, HDF5 deflate chunks and blosc's zlib codec) and gzip (RFC 1952, TsFile GZIP
//! pages) framings. Hand-written for speed: see docs/decisions.md (2026-11-22 and
//! 2026-11-25) for the crates measured against it.
//!
//! `unsafe`-free; every malformed stream is a [`Bad`] naming the byte where it was found.
//!
//! ```
//! // "hello, hello, hello" as Python's `zlib.compress` writes it.
//! let z = [
//!     0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0xc8, 0x40, 0xa2, 0x00, 0x44, 0x28,
//!     0x06, 0xd5,
//! ];
//! let mut out = [0u8; 19];
//! let n = arrowsmith_inflate::zlib::decompress_into(&z, &mut out).unwrap();
//! assert_eq!(&out[..n], b"hello, hello, hello");
//!
//! // The raw deflate stream inside it: `inflate` also says where the stream ends.
//! let (written, read) = arrowsmith_inflate::inflate(&z[2..], &mut out).unwrap();
//! assert_eq!((written, read), (19, 11));
//!
//! // One byte of room too few: an error, found before a byte past the output is written.
//! let e = arrowsmith_inflate::zlib::decompress_into(&z, &mut out[..18]).unwrap_err();
//! assert_eq!(e.what, arrowsmith_inflate::TOO_LONG);
//! ```

#![warn(missing_docs)]

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
