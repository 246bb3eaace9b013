//! A zlib stream (RFC 1950): the two-byte header checked, the body inflated into the
//! caller's slice, the Adler-32 trailer verified.

use crate::{inflate, Bad};

/// Inflate the zlib stream `data` into `out`; returns the bytes written. Producing more
/// than `out.len()` bytes is an error; bytes after the trailer are ignored, as zlib
/// readers do.
pub fn decompress_into(data: &[u8], out: &mut [u8]) -> Result<usize, Bad> {
    let (cmf, flg) = match data {
        [c, f, ..] => (*c as u32, *f as u32),
        _ => return Err(bad("shorter than a zlib header", 0)),
    };
    if cmf & 0x0f != 8 || cmf >> 4 > 7 || (cmf << 8 | flg) % 31 != 0 {
        return Err(bad("not a zlib stream (bad header)", 0));
    }
    if flg & 0x20 != 0 {
        return Err(bad("zlib stream needs a preset dictionary", 1));
    }
    let (n, used) = inflate(&data[2..], out).map_err(|b| bad(b.what, b.at + 2))?;
    let Some(trailer) = data.get(2 + used..2 + used + 4) else {
        return Err(bad("adler-32 trailer missing", data.len()));
    };
    if u32::from_be_bytes(trailer.try_into().unwrap()) != adler32(&out[..n]) {
        return Err(bad("adler-32 mismatch", 2 + used));
    }
    Ok(n)
}

fn bad(what: &'static str, at: usize) -> Bad {
    Bad { what, at }
}

/// Without SIMD128, `simd-adler32` falls back to a byte-serial loop; `adler32.rs` takes 32
/// bytes a step.
fn adler32(data: &[u8]) -> u32 {
    if cfg!(all(target_arch = "wasm32", not(target_feature = "simd128"))) {
        crate::adler32::adler32(data)
    } else {
        simd_adler32::adler32(&data)
    }
}

#[cfg(test)]
mod tests {
    use super::decompress_into;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; data.len() / 2 + 128];
        let (z, rc) = zlib_rs::compress_slice(&mut out, data, zlib_rs::DeflateConfig::default());
        assert_eq!(rc, zlib_rs::ReturnCode::Ok);
        z.to_vec()
    }

    fn run(z: &[u8], cap: usize) -> Result<Vec<u8>, &'static str> {
        crate::tests::into_vec(decompress_into, z, cap)
    }

    #[test]
    fn header_trailer_and_bounds() {
        let text = b"hello hello hello hello";
        let z = zlib(text);
        assert_eq!(run(&z, 23).unwrap(), text);
        assert_eq!(run(&z, 40).unwrap(), text, "room to spare");
        assert_eq!(run(&z, 10), Err(crate::TOO_LONG));
        assert!(run(&z[..z.len() - 3], 23).is_err(), "truncated trailer");
        assert_eq!(
            run(&[1, 2, 3, 4], 23),
            Err("not a zlib stream (bad header)")
        );
        assert_eq!(run(&[0x78], 23), Err("shorter than a zlib header"));
        // FDICT set (and the check bits fixed up).
        assert_eq!(
            run(&[0x78, 0xbb, 0, 0, 0, 0], 23),
            Err("zlib stream needs a preset dictionary")
        );
        let mut bad = z.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert_eq!(run(&bad, 23), Err("adler-32 mismatch"));
        // Bytes after the trailer are ignored, but not a bad trailer before them.
        let mut padded = z.clone();
        padded.extend([0u8; 5]);
        assert_eq!(run(&padded, 23).unwrap(), text);
        bad.extend([7u8; 4]);
        assert_eq!(run(&bad, 23), Err("adler-32 mismatch"));
        // A 1000:1 bomb stops at the output's size; the same stream inflates whole into
        // its real size.
        let bomb = zlib(&vec![0u8; 4 << 20]);
        assert_eq!(run(&bomb, 4096), Err(crate::TOO_LONG));
        assert_eq!(run(&bomb, 4 << 20).unwrap(), vec![0u8; 4 << 20]);
    }
}
