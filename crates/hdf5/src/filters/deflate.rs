//! Deflate (zlib stream) of one chunk, bounded by the chunk's unfiltered size.
//!
//! `zune-inflate` rather than `zlib-rs` or `miniz_oxide`: on the benchmark chunks (h5py's
//! gzip 4 + shuffle over VL cell headers) it inflates ~1.3x faster than zlib-rs in wasm, SIMD
//! and scalar builds alike, in safe Rust. Its output limit is checked per match, so a stream
//! that would decode to more than the chunk's size stops there with an error instead of
//! growing a buffer; the adler-32 trailer is verified.

use arrowsmith_core::{ErrorCode, Result};
use zune_inflate::{DeflateDecoder, DeflateOptions};

use crate::io::err;

/// Inflate a zlib stream expected to hold `expected` bytes (more is an error; fewer are
/// returned as they are, for the caller to judge).
pub fn inflate(data: &[u8], expected: usize, offset: u64) -> Result<Vec<u8>> {
    // With SIMD128 zune checks the adler-32 itself, fast. Without, its check is a
    // byte-serial loop (~11 % of a gzip VL read): the output's sum is taken 32 bytes at a
    // time here (`adler32.rs`) and compared with the stream's last four bytes. A stream
    // with bytes after its trailer (which zlib readers accept) or a real mismatch is
    // decoded again with zune's check, which finds the trailer where the stream ends and
    // gives the verdict.
    if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
        return decode(data, expected, true, offset);
    }
    let out = decode(data, expected, false, offset)?;
    let trailer = data.len().checked_sub(4).map(|t| u32::from_be_bytes(data[t..].try_into().unwrap()));
    if trailer == Some(super::adler32::adler32(&out)) {
        return Ok(out);
    }
    decode(data, expected, true, offset)
}

/// Room past the expected size: zune's fast loop wants ~300 bytes of slack ahead of its
/// output and grows its buffer by 4 KiB (a realloc of the whole chunk) when it lacks it.
const ROOM: usize = 4096 + 512;

fn decode(data: &[u8], expected: usize, checksum: bool, offset: u64) -> Result<Vec<u8>> {
    let options = DeflateOptions::default()
        .set_size_hint(expected.saturating_add(ROOM))
        .set_limit(expected)
        .set_confirm_checksum(checksum);
    DeflateDecoder::new_with_options(data, options)
        .decode_zlib()
        .map_err(|e| {
            err(
                offset,
                ErrorCode::Compression,
                format!("deflate chunk: {:?}", e.error),
            )
        })
}

/// Inflate into `out` (the chunk's expected size); returns the bytes produced. One copy:
/// `zune-inflate` only writes into a buffer of its own.
pub fn inflate_into(data: &[u8], out: &mut [u8], offset: u64) -> Result<usize> {
    let v = inflate(data, out.len(), offset)?;
    out[..v.len()].copy_from_slice(&v);
    Ok(v.len())
}

#[cfg(test)]
mod tests {
    use super::inflate;

    #[test]
    fn bounds_and_errors() {
        let z = zlib(b"hello hello hello hello");
        assert_eq!(inflate(&z, 23, 0).unwrap(), b"hello hello hello hello");
        assert_eq!(
            inflate(&z, 40, 0).unwrap().len(),
            23,
            "shorter output is returned as is"
        );
        assert!(inflate(&z, 10, 0).is_err(), "larger output than expected");
        assert!(
            inflate(&z[..z.len() - 3], 23, 0).is_err(),
            "truncated stream"
        );
        assert!(inflate(&[1, 2, 3, 4], 23, 0).is_err(), "not zlib");
        let mut bad = z.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(inflate(&bad, 23, 0).is_err(), "adler-32 mismatch");
        // Bytes after the trailer are ignored, as zlib readers do.
        let mut padded = z.clone();
        padded.extend([0u8; 5]);
        assert_eq!(inflate(&padded, 23, 0).unwrap(), b"hello hello hello hello");
        let mut padded_bad = bad.clone();
        padded_bad.extend([7u8; 4]);
        assert!(inflate(&padded_bad, 23, 0).is_err(), "adler-32 mismatch before padding");
        // A 1000:1 bomb stops at the chunk's size: an error naming the offset, and the
        // partial output is never handed out.
        let bomb = zlib(&vec![0u8; 4 << 20]);
        let e = inflate(&bomb, 4096, 77).unwrap_err();
        assert_eq!(
            (e.offset, e.code),
            (77, arrowsmith_core::ErrorCode::Compression)
        );
        assert!(e.message.contains("deflate chunk"), "{}", e.message);
        // The same stream inflates whole into its real size.
        assert_eq!(inflate(&bomb, 4 << 20, 0).unwrap(), vec![0u8; 4 << 20]);
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; data.len() / 2 + 128];
        let (z, rc) = zlib_rs::compress_slice(&mut out, data, zlib_rs::DeflateConfig::default());
        assert_eq!(rc, zlib_rs::ReturnCode::Ok);
        z.to_vec()
    }
}
