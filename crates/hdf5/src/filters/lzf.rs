//! LZF decompression (h5py filter 32000), bounded by the expected output size.

pub fn decompress(src: &[u8], expected: usize) -> Result<Vec<u8>, String> {
    let mut out: Vec<u8> = Vec::with_capacity(expected);
    let mut i = 0;
    while i < src.len() {
        let ctrl = src[i] as usize;
        i += 1;
        if ctrl < 32 {
            let n = ctrl + 1;
            if i + n > src.len() {
                return Err("literal run past input".into());
            }
            if out.len() + n > expected {
                return Err("output larger than the chunk".into());
            }
            out.extend_from_slice(&src[i..i + n]);
            i += n;
        } else {
            let mut len = ctrl >> 5;
            if len == 7 {
                len += *src.get(i).ok_or("truncated back-reference")? as usize;
                i += 1;
            }
            let lo = *src.get(i).ok_or("truncated back-reference")? as usize;
            i += 1;
            let back = ((ctrl & 0x1f) << 8) + lo + 1;
            len += 2;
            if back > out.len() {
                return Err("back-reference before start".into());
            }
            if out.len() + len > expected {
                return Err("output larger than the chunk".into());
            }
            let start = out.len() - back;
            for k in 0..len {
                let b = out[start + k];
                out.push(b);
            }
        }
    }
    Ok(out)
}
