//! The bzip2 filter (307, as PyTables writes it with `complib="bzip2"`): one bzip2 stream
//! per chunk, decoded with the `bzip2` crate's pure-Rust backend (libbz2-rs-sys) into a
//! slice: output past the slice is an error, so a stream cannot grow beyond its bound.

use bzip2::{Decompress, Status};

/// Decode the stream in `src` into `out`; returns the bytes written.
pub fn decompress_into(src: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let mut d = Decompress::new(false);
    loop {
        let (i, o) = (d.total_in() as usize, d.total_out() as usize);
        let status = d
            .decompress(&src[i..], &mut out[o..])
            .map_err(|e| format!("bzip2: {e}"))?;
        let (i2, o2) = (d.total_in() as usize, d.total_out() as usize);
        match status {
            Status::StreamEnd => return Ok(o2),
            _ if o2 == out.len() => {
                return Err(format!(
                    "bzip2: stream holds more than the {} bytes expected",
                    out.len()
                ))
            }
            _ if i2 == src.len() && o2 == o => return Err("bzip2: stream cut short".into()),
            _ if i2 == i && o2 == o => return Err("bzip2: stream makes no progress".into()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::decompress_into;

    #[test]
    fn bounded_and_complete() {
        let data: Vec<u8> = (0..5000u32).flat_map(|i| (i % 13).to_le_bytes()).collect();
        let mut z = Vec::new();
        let mut c = bzip2::Compress::new(bzip2::Compression::new(9), 0);
        z.resize(data.len() + 1024, 0);
        c.compress(&data, &mut z, bzip2::Action::Finish).unwrap();
        z.truncate(c.total_out() as usize);
        let mut out = vec![0u8; data.len()];
        assert_eq!(decompress_into(&z, &mut out), Ok(data.len()));
        assert_eq!(out, data);
        assert!(
            decompress_into(&z, &mut out[..100]).is_err(),
            "past the bound"
        );
        assert!(
            decompress_into(&z[..z.len() / 2], &mut out).is_err(),
            "cut short"
        );
        assert!(decompress_into(b"BZh9garbage", &mut out).is_err());
    }
}
