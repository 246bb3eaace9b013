//! Deflate (zlib stream, RFC 1950) of one chunk, bounded by the chunk's unfiltered size:
//! `arrowsmith-inflate` checks the header, inflates straight into the chunk and verifies the
//! Adler-32 trailer; here its errors become the chunk's `DecodeError`.

use arrowsmith_core::{ErrorCode, Result};

use crate::io::err;

/// Inflate a zlib stream expected to hold `expected` bytes (more is an error; fewer are
/// returned as they are, for the caller to judge). The buffer may be a recycled one: the
/// bytes past what the stream writes are cut off, so it needs no zero fill.
pub fn inflate(data: &[u8], expected: usize, offset: u64) -> Result<Vec<u8>> {
    let mut v = arrowsmith_core::recycle::bytes_to_overwrite(expected);
    let n = inflate_into(data, &mut v, offset)?;
    v.truncate(n);
    Ok(v)
}

/// Inflate into `out` (the chunk's expected size); returns the bytes produced.
pub fn inflate_into(data: &[u8], out: &mut [u8], offset: u64) -> Result<usize> {
    arrowsmith_inflate::zlib::decompress_into(data, out).map_err(|b| {
        err(
            offset,
            ErrorCode::Compression,
            format!("deflate chunk: {} (stream byte {})", b.what, b.at),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::inflate;

    /// The inflater's own tests (crates/inflate) cover the stream; here its errors become
    /// the chunk's: `compression`, at the chunk's offset, naming the byte of the stream.
    #[test]
    fn errors_name_the_chunk() {
        let data = vec![0u8; 4 << 20];
        let mut buf = vec![0u8; data.len() / 2 + 128];
        let (z, rc) = zlib_rs::compress_slice(&mut buf, &data, zlib_rs::DeflateConfig::default());
        assert_eq!(rc, zlib_rs::ReturnCode::Ok);
        assert_eq!(inflate(z, 4 << 20, 0).unwrap(), data);
        assert_eq!(
            inflate(z, 5 << 20, 0).unwrap().len(),
            4 << 20,
            "shorter output is returned as is"
        );
        // A 1000:1 bomb stops at the chunk's size.
        let e = inflate(z, 4096, 77).unwrap_err();
        assert_eq!(
            (e.offset, e.code),
            (77, arrowsmith_core::ErrorCode::Compression)
        );
        assert!(
            e.message
                .starts_with("deflate chunk: stream decodes to more than"),
            "{}",
            e.message
        );
        let e = inflate(&z[..z.len() - 2], 4 << 20, 9).unwrap_err();
        assert!(
            e.message.contains("adler-32 trailer missing (stream byte"),
            "{}",
            e.message
        );
    }
}
