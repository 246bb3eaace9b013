//! The HDF5 LZ4 filter (32004): a big-endian header (original size: 8 bytes, block
//! size: 4), then per block a big-endian compressed length and an LZ4 block; a block
//! whose length equals its size is stored as is.

use super::{be32_block, lz4_block};

/// Undo the filter into `out` (the chunk's size); returns the bytes written.
pub fn decode(src: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let head = src.get(..12).ok_or("lz4: chunk shorter than its header")?;
    let total = u64::from_be_bytes(head[..8].try_into().unwrap());
    let mut block = u32::from_be_bytes(head[8..12].try_into().unwrap()) as u64;
    if total > out.len() as u64 {
        return Err(format!("lz4: {total} bytes, the chunk holds {}", out.len()));
    }
    let total = total as usize;
    block = block.min(total as u64);
    if block == 0 && total > 0 {
        return Err("lz4: block size 0".into());
    }
    let (mut ip, mut op) = (12usize, 0usize);
    while op < total {
        let size = (block as usize).min(total - op);
        let (body, next) = be32_block(src, ip, "lz4")?;
        let dst = &mut out[op..op + size];
        if body.len() == size {
            dst.copy_from_slice(body);
        } else {
            let got = lz4_block(body, dst)?;
            if got != size {
                return Err(format!(
                    "lz4: block decodes to {got} bytes, expected {size}"
                ));
            }
        }
        ip = next;
        op += size;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::decode;

    fn framed(data: &[u8], block: usize) -> Vec<u8> {
        let mut v = (data.len() as u64).to_be_bytes().to_vec();
        v.extend((block as u32).to_be_bytes());
        for b in data.chunks(block) {
            let c = lz4_flex::block::compress(b);
            let c = if c.len() >= b.len() { b.to_vec() } else { c };
            v.extend((c.len() as u32).to_be_bytes());
            v.extend(c);
        }
        v
    }

    #[test]
    fn blocks_stored_and_compressed() {
        let mut data = vec![7u8; 3000];
        data.extend((0..=255u8).cycle().take(1000).map(|b| b.wrapping_mul(97)));
        let z = framed(&data, 1024);
        let mut out = vec![0u8; data.len()];
        assert_eq!(decode(&z, &mut out), Ok(data.len()));
        assert_eq!(out, data);
        assert!(decode(&z, &mut [0u8; 100]).is_err(), "bounded by the chunk");
        assert!(decode(&z[..z.len() - 1], &mut out).is_err(), "truncated");
    }
}
