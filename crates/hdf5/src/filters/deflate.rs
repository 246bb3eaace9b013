//! Deflate (zlib stream, RFC 1950) of one chunk, bounded by the chunk's unfiltered size:
//! the header checked, the body inflated straight into the chunk (`inflate.rs`), the
//! adler-32 trailer verified.

use arrowsmith_core::{ErrorCode, Result};

use super::inflate::inflate as inflate_raw;
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
    let bad = |what: &str| {
        err(
            offset,
            ErrorCode::Compression,
            format!("deflate chunk: {what}"),
        )
    };
    let (cmf, flg) = match data {
        [c, f, ..] => (*c as u32, *f as u32),
        _ => return Err(bad("shorter than a zlib header")),
    };
    if cmf & 0x0f != 8 || cmf >> 4 > 7 || (cmf << 8 | flg) % 31 != 0 {
        return Err(bad(&format!(
            "not a zlib stream (header {cmf:02x} {flg:02x})"
        )));
    }
    if flg & 0x20 != 0 {
        return Err(bad("zlib stream needs a preset dictionary"));
    }
    let (n, used) = inflate_raw(&data[2..], out)
        .map_err(|b| bad(&format!("{} (stream byte {})", b.what, b.at + 2)))?;
    let Some(trailer) = data.get(2 + used..2 + used + 4) else {
        return Err(bad("adler-32 trailer missing"));
    };
    let stored = u32::from_be_bytes(trailer.try_into().unwrap());
    let sum = adler32(&out[..n]);
    if stored != sum {
        return Err(bad(&format!(
            "adler-32 mismatch (stored {stored:#010x}, computed {sum:#010x})"
        )));
    }
    Ok(n)
}

/// Without SIMD128, `simd-adler32` falls back to a byte-serial loop; `adler32.rs` takes 32
/// bytes a step.
fn adler32(data: &[u8]) -> u32 {
    if cfg!(all(target_arch = "wasm32", not(target_feature = "simd128"))) {
        super::adler32::adler32(data)
    } else {
        simd_adler32::adler32(&data)
    }
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
        assert!(
            inflate(&padded_bad, 23, 0).is_err(),
            "adler-32 mismatch before padding"
        );
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
