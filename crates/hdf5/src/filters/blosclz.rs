//! BloscLZ decompression (blosc's own codec, stream format 1), bounded by the output slice.
//!
//! Tokens: a control byte below 32 starts a literal run of `ctrl + 1` bytes; otherwise a
//! match of `(ctrl >> 5) + 2` bytes (7 = extended by following bytes while they are 255)
//! at a distance built from `ctrl & 31` and the next byte, or from two more bytes for far
//! matches. The first control byte is always a literal run. As the reference decoder does,
//! a match whose control byte is the last of the stream is not copied.

/// Far matches add this to their 16-bit distance.
const MAX_DISTANCE: usize = 8191;
/// A match control byte's low five bits are the distance's high bits; all ones plus a
/// 255 distance byte announce a far match.
const FAR: usize = 31 << 8;

/// Decompress `src` into `out`; returns the bytes written.
pub fn decompress(src: &[u8], out: &mut [u8]) -> Result<usize, &'static str> {
    let Some(&first) = src.first() else {
        return Ok(0);
    };
    let (mut ip, mut op) = (1usize, 0usize);
    let mut ctrl = (first & 31) as usize;
    loop {
        if ctrl >= 32 {
            let mut len = (ctrl >> 5) - 1;
            let ofs = (ctrl & 31) << 8;
            if len == 6 {
                loop {
                    if ip + 1 >= src.len() {
                        return Err("match length past the input");
                    }
                    let code = src[ip] as usize;
                    ip += 1;
                    len += code;
                    if code != 255 {
                        break;
                    }
                }
            } else if ip + 1 >= src.len() {
                return Err("match past the input");
            }
            let code = src[ip] as usize;
            ip += 1;
            len += 3;
            let mut dist = ofs + code;
            if code == 255 && ofs == FAR {
                if ip + 1 >= src.len() {
                    return Err("far match past the input");
                }
                dist = ((src[ip] as usize) << 8 | src[ip + 1] as usize) + MAX_DISTANCE;
                ip += 2;
            }
            // The copy starts `dist + 1` bytes back.
            if op + len > out.len() {
                return Err("output larger than the block");
            }
            if dist + 1 > op {
                return Err("match before the start of the block");
            }
            if ip >= src.len() {
                break;
            }
            ctrl = src[ip] as usize;
            ip += 1;
            let from = op - dist - 1;
            if dist + 1 >= len {
                out.copy_within(from..from + len, op);
            } else {
                for k in 0..len {
                    out[op + k] = out[from + k];
                }
            }
            op += len;
        } else {
            let n = ctrl + 1;
            if op + n > out.len() {
                return Err("output larger than the block");
            }
            if ip + n > src.len() {
                return Err("literal run past the input");
            }
            out[op..op + n].copy_from_slice(&src[ip..ip + n]);
            op += n;
            ip += n;
            if ip >= src.len() {
                break;
            }
            ctrl = src[ip] as usize;
            ip += 1;
        }
    }
    Ok(op)
}

#[cfg(test)]
mod tests {
    use super::decompress;

    #[test]
    fn literals_runs_and_bounds() {
        // "abc" literal, then a 4-byte match 3 back ("abca"), then literal "Z".
        let s = [2, b'a', b'b', b'c', 2 << 5, 2, 0, b'Z'];
        let mut out = [0u8; 16];
        let n = decompress(&s, &mut out).unwrap();
        assert_eq!(&out[..n], b"abcabcaZ");
        // A run: distance 1 repeats the last byte.
        let s = [0, b'x', (3 << 5), 0, 0, b'y'];
        let n = decompress(&s, &mut out).unwrap();
        assert_eq!(&out[..n], b"xxxxxxy");
        // Bounds: output too small, a match before the start, input cut short.
        assert!(decompress(&[2, b'a', b'b', b'c', (2 << 5), 2, 0, b'Z'], &mut [0u8; 5]).is_err());
        assert!(decompress(&[0, b'a', (2 << 5), 9, 0, b'Z'], &mut out).is_err());
        assert!(decompress(&[5, b'a'], &mut out).is_err());
        assert_eq!(decompress(&[], &mut out), Ok(0));
    }
}
