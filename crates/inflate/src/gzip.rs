//! A gzip member (RFC 1952): the header parsed (optional extra field, name, comment and
//! header CRC skipped), the body inflated into the caller's slice, the trailer's CRC-32 and
//! length verified. One member: bytes after its trailer are ignored, as single-member
//! readers (Java's `GZIPInputStream` on one member, flate2's `GzDecoder`) do.

use crate::{inflate, Bad};

const FHCRC: u8 = 1 << 1;
const FEXTRA: u8 = 1 << 2;
const FNAME: u8 = 1 << 3;
const FCOMMENT: u8 = 1 << 4;
const RESERVED: u8 = 0xe0;
/// ID1 ID2 CM FLG MTIME(4) XFL OS.
const FIXED_HEADER: usize = 10;

/// Inflate the gzip member `data` into `out`; returns the bytes written. Producing more
/// than `out.len()` bytes is an error.
pub fn decompress_into(data: &[u8], out: &mut [u8]) -> Result<usize, Bad> {
    let start = header_len(data)?;
    let (n, used) = inflate(&data[start..], out).map_err(|b| bad(b.what, b.at + start))?;
    let end = start + used;
    let Some(trailer) = data.get(end..end + 8) else {
        return Err(bad("gzip trailer missing", data.len()));
    };
    let word = |i: usize| u32::from_le_bytes(trailer[i..i + 4].try_into().unwrap());
    if word(0) != crc32fast::hash(&out[..n]) {
        return Err(bad("gzip CRC-32 mismatch", end));
    }
    if word(4) != n as u32 {
        return Err(bad(
            "gzip length does not match the inflated bytes",
            end + 4,
        ));
    }
    Ok(n)
}

/// The header's length, its optional fields included.
fn header_len(data: &[u8]) -> Result<usize, Bad> {
    let Some(h) = data.get(..FIXED_HEADER) else {
        return Err(bad("shorter than a gzip header", data.len()));
    };
    if h[..3] != [0x1f, 0x8b, 8] {
        return Err(bad("not a gzip member (bad magic or method)", 0));
    }
    let flags = h[3];
    if flags & RESERVED != 0 {
        return Err(bad("gzip header sets reserved flags", 3));
    }
    let mut at = FIXED_HEADER;
    let short = |at: usize| bad("gzip header truncated", at);
    if flags & FEXTRA != 0 {
        let Some(x) = data.get(at..at + 2) else {
            return Err(short(at));
        };
        at += 2 + u16::from_le_bytes([x[0], x[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            // A zero-terminated string.
            let Some(len) = data.get(at..).and_then(|s| s.iter().position(|&b| b == 0)) else {
                return Err(short(at));
            };
            at += len + 1;
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    if at > data.len() {
        return Err(short(data.len()));
    }
    Ok(at)
}

fn bad(what: &'static str, at: usize) -> Bad {
    Bad { what, at }
}

#[cfg(test)]
mod tests {
    use super::decompress_into;

    /// A gzip member by zlib (window bits 31: gzip framing, zlib's own header).
    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; data.len() + 128];
        let cfg = zlib_rs::DeflateConfig {
            window_bits: 31,
            ..zlib_rs::DeflateConfig::new(6)
        };
        let (z, rc) = zlib_rs::compress_slice(&mut out, data, cfg);
        assert_eq!(rc, zlib_rs::ReturnCode::Ok);
        z.to_vec()
    }

    fn run(z: &[u8], cap: usize) -> Result<Vec<u8>, &'static str> {
        crate::tests::into_vec(decompress_into, z, cap)
    }

    fn text() -> Vec<u8> {
        (0..3000u32)
            .flat_map(|i| format!("{} ", i % 97).into_bytes())
            .collect()
    }

    #[test]
    fn members_from_zlib() {
        let data = text();
        let z = gzip(&data);
        assert_eq!(run(&z, data.len()).unwrap(), data);
        assert_eq!(run(&z, data.len() - 1), Err(crate::TOO_LONG));
        let mut padded = z.clone();
        padded.extend([0x1f, 0x8b, 0, 0]);
        assert_eq!(
            run(&padded, data.len()).unwrap(),
            data,
            "bytes after one member"
        );
        assert_eq!(run(&gzip(b""), 0).unwrap(), b"");
    }

    /// The optional header fields, written by hand around zlib's deflate body and trailer.
    #[test]
    fn optional_header_fields() {
        let data = text();
        let z = gzip(&data);
        let body = &z[10..];
        let mut h = z[..10].to_vec();
        h[3] = 0b11110; // FHCRC, FEXTRA, FNAME, FCOMMENT
        h.extend([3, 0, 1, 2, 3]);
        h.extend(b"name.txt\0");
        h.extend(b"a comment\0");
        h.extend([0xaa, 0xbb]);
        let whole = [&h[..], body].concat();
        assert_eq!(run(&whole, data.len()).unwrap(), data);
        // Cut inside each field: truncated, never a panic.
        for cut in 0..h.len() {
            assert!(run(&whole[..cut], data.len()).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn damaged_members() {
        let data = text();
        let z = gzip(&data);
        let n = data.len();
        let flip = |i: usize| {
            let mut c = z.clone();
            c[i] ^= 1;
            c
        };
        assert_eq!(
            run(&flip(0), n),
            Err("not a gzip member (bad magic or method)")
        );
        assert_eq!(
            run(&flip(2), n),
            Err("not a gzip member (bad magic or method)")
        );
        let mut reserved = z.clone();
        reserved[3] |= 0x20;
        assert_eq!(run(&reserved, n), Err("gzip header sets reserved flags"));
        assert_eq!(run(&flip(z.len() - 8), n), Err("gzip CRC-32 mismatch"));
        assert_eq!(
            run(&flip(z.len() - 4), n),
            Err("gzip length does not match the inflated bytes")
        );
        assert_eq!(run(&z[..z.len() - 1], n), Err("gzip trailer missing"));
        assert_eq!(run(&z[..5], n), Err("shorter than a gzip header"));
    }
}
