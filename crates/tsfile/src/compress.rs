//! Page decompression: raw Snappy, raw LZ4 block, gzip member, zstd frame, xz (LZMA2).

use crate::types::Compression;
use std::io::Read;

/// Decompress `src` (one page body) into `dst` (cleared first), expecting exactly
/// `uncompressed` bytes.
pub fn decompress(
    c: Compression,
    src: &[u8],
    uncompressed: usize,
    dst: &mut Vec<u8>,
) -> Result<(), String> {
    match c {
        Compression::Uncompressed => {
            dst.clear();
            dst.extend_from_slice(src)
        }
        Compression::Snappy => {
            let n = snap::raw::decompress_len(src).map_err(|e| e.to_string())?;
            if n != uncompressed {
                return Err(format!(
                    "snappy block holds {n} bytes, page header says {uncompressed}"
                ));
            }
            // Snappy cannot expand more than ~22× (a 3-byte copy emits at most 64 bytes).
            if n > src.len().saturating_mul(32).saturating_add(64) {
                return Err(format!(
                    "snappy block of {} bytes cannot expand to {n}",
                    src.len()
                ));
            }
            // The decoder overwrites all n bytes: resize without re-zeroing a reused buffer.
            set_len(dst, n);
            let w = snap::raw::Decoder::new()
                .decompress(src, dst)
                .map_err(|e| e.to_string())?;
            dst.truncate(w);
        }
        Compression::Lz4 => {
            // An LZ4 block expands at most 255×.
            if uncompressed > src.len().saturating_mul(256).saturating_add(64) {
                return Err(format!(
                    "LZ4 block of {} bytes cannot expand to {uncompressed}",
                    src.len()
                ));
            }
            set_len(dst, uncompressed);
            let n = lz4_flex::block::decompress_into(src, dst).map_err(|e| e.to_string())?;
            dst.truncate(n);
        }
        Compression::Gzip => {
            // Deflate expands at most 1032× (a 258-byte match per two bits, roughly).
            if uncompressed > src.len().saturating_mul(1032).saturating_add(64) {
                return Err(format!(
                    "gzip member of {} bytes cannot inflate to {uncompressed}",
                    src.len()
                ));
            }
            // The inflater writes every byte it returns: resize without re-zeroing a
            // reused buffer.
            set_len(dst, uncompressed);
            let n = arrowsmith_inflate::gzip::decompress_into(src, dst)
                .map_err(|b| format!("gzip: {} (byte {} of the page)", b.what, b.at))?;
            dst.truncate(n);
        }
        Compression::Zstd => {
            dst.clear();
            dst.reserve(uncompressed.min(src.len().saturating_mul(8)));
            let mut s = src;
            let dec = ruzstd::decoding::StreamingDecoder::new(&mut s).map_err(|e| e.to_string())?;
            dec.take(uncompressed as u64 + 1)
                .read_to_end(dst)
                .map_err(|e| e.to_string())?;
        }
        Compression::Lzma2 => {
            dst.clear();
            dst.reserve(uncompressed.min(src.len().saturating_mul(8)));
            // One xz stream per page; its window grows with the output (capped by `take`),
            // and a header claiming a dictionary over XZ_MEM_LIMIT_KIB is refused up front.
            let dec = lzma_rust2::XzReader::new_mem_limit(src, false, XZ_MEM_LIMIT_KIB);
            dec.take(uncompressed as u64 + 1)
                .read_to_end(dst)
                .map_err(|e| format!("xz: {e}"))?;
        }
        other => return Err(format!("compression {} is not supported", other.name())),
    }
    if dst.len() != uncompressed {
        return Err(format!(
            "{} page decompressed to {} bytes, header says {uncompressed}",
            c.name(),
            dst.len()
        ));
    }
    Ok(())
}

fn set_len(v: &mut Vec<u8>, n: usize) {
    if v.len() < n {
        v.resize(n, 0);
    } else {
        v.truncate(n);
    }
}

/// Largest xz decoder budget a page may claim (xz presets use at most a 64 MiB dictionary).
const XZ_MEM_LIMIT_KIB: u32 = 128 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    /// A gzip page that claims more than deflate can expand to is refused before any
    /// allocation; a damaged member is an error naming the byte.
    #[test]
    fn gzip_bounds_and_damage() {
        let mut dst = Vec::new();
        let e = decompress(Compression::Gzip, &[0x1f, 0x8b, 8, 0], 1 << 30, &mut dst);
        assert!(e.unwrap_err().contains("cannot inflate to"));
        assert!(dst.capacity() < 1 << 20);
        // An empty member (stored empty last block), then its trailer damaged.
        let mut z = vec![
            0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        decompress(Compression::Gzip, &z, 0, &mut dst).unwrap();
        z[12] = 1;
        let e = decompress(Compression::Gzip, &z, 0, &mut dst).unwrap_err();
        assert_eq!(e, "gzip: gzip CRC-32 mismatch (byte 12 of the page)");
    }

    /// Malformed LZ4 blocks are errors, never reads outside the input or the output
    /// (lz4_flex's non-`safe-decode` decoder, used here for speed, must keep its checks).
    #[test]
    fn malformed_lz4_blocks_are_errors() {
        let good = lz4_flex::block::compress(b"abcabcabcabcabcabcabcabc0123456789");
        let mut dst = Vec::new();
        decompress(Compression::Lz4, &good, 34, &mut dst).unwrap();
        assert_eq!(dst, b"abcabcabcabcabcabcabcabc0123456789");
        let bad: [&[u8]; 5] = [
            // One literal, then a match 5 bytes back: before the start of the output.
            &[0x10, b'a', 0x05, 0x00, 0x10, b'b'],
            // A match with offset 0.
            &[0x10, b'a', 0x00, 0x00, 0x10, b'b'],
            // 15 + 255 + 10 literals announced, 3 present.
            &[0xf0, 0xff, 0x0a, b'a', b'b', b'c'],
            // A match whose offset bytes are missing.
            &[0x14, b'a', 0x01],
            // A match longer than the output.
            &[0x1f, b'a', 0x01, 0x00, 0xff, 0xff, 0x10, b'b'],
        ];
        for b in bad {
            let r = decompress(Compression::Lz4, b, 40, &mut dst);
            assert!(r.is_err(), "{b:?} decoded to {dst:?}");
        }
    }
}
