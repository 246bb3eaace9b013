//! The scale-offset filter (6): each chunk's values minus their minimum, packed in
//! `minbits` bits each (most significant bit first); floats are first scaled by 10^D and
//! rounded ("D-scaling"). A 21-byte header holds `minbits` (4 bytes, LE), the size of the
//! minimum (1 byte) and the minimum (LE). When a fill value is defined, the all-ones value
//! of `minbits` bits stands for it. Values are rebuilt in little-endian order and swapped
//! when the dataset is big-endian.

/// Parameter indexes (`cd_values`), as libhdf5 sets them.
const CD_SCALE_TYPE: usize = 0;
const CD_SCALE_FACTOR: usize = 1;
const CD_NELMTS: usize = 2;
const CD_CLASS: usize = 3;
const CD_SIZE: usize = 4;
const CD_SIGN: usize = 5;
const CD_ORDER: usize = 6;
const CD_FILAVAIL: usize = 7;
const CD_FILVAL: usize = 8;
const NPARMS: usize = 20;
const CLASS_INTEGER: u32 = 0;
const CLASS_FLOAT: u32 = 1;
/// Scale types: floats by decimal scaling; 1 (E-scaling) was never implemented.
const FLOAT_DSCALE: u32 = 0;
const FLOAT_ESCALE: u32 = 1;
const HEADER: usize = 21;

/// Undo the filter into `out` (the chunk's size); returns the bytes written.
pub fn decode(src: &[u8], cd: &[u32], out: &mut [u8]) -> Result<usize, String> {
    if cd.len() != NPARMS {
        return Err(format!(
            "scale-offset: {} parameters, expected {NPARMS}",
            cd.len()
        ));
    }
    let size = cd[CD_SIZE] as usize;
    let n = cd[CD_NELMTS] as usize;
    let (class, signed, be) = (cd[CD_CLASS], cd[CD_SIGN] == 1, cd[CD_ORDER] == 1);
    let fill_defined = cd[CD_FILAVAIL] == 1;
    let (scale_type, factor) = (cd[CD_SCALE_TYPE], cd[CD_SCALE_FACTOR] as i32);
    if !matches!(
        (class, size),
        (CLASS_INTEGER, 1 | 2 | 4 | 8) | (CLASS_FLOAT, 4 | 8)
    ) {
        return Err(format!(
            "scale-offset: class {class} of {size} bytes is not supported"
        ));
    }
    match class {
        CLASS_FLOAT if scale_type == FLOAT_ESCALE => {
            return Err("scale-offset: E-scaling is not supported".into())
        }
        CLASS_FLOAT if scale_type != FLOAT_DSCALE => {
            return Err(format!("scale-offset: scale type {scale_type} for floats"))
        }
        CLASS_INTEGER if scale_type == FLOAT_DSCALE || scale_type == FLOAT_ESCALE => {
            return Err(format!(
                "scale-offset: scale type {scale_type} for integers"
            ))
        }
        _ => {}
    }
    // An integer scale factor of the full width means the filter stored the chunk as is.
    if class == CLASS_INTEGER && factor.max(0) as usize == size * 8 {
        let k = src.len().min(out.len());
        out[..k].copy_from_slice(&src[..k]);
        return Ok(src.len());
    }
    let total = n
        .checked_mul(size)
        .filter(|&t| t <= out.len())
        .ok_or_else(|| {
            format!(
                "scale-offset: {n} values of {size} bytes, the chunk holds {}",
                out.len()
            )
        })?;
    let head = src
        .get(..HEADER)
        .ok_or("scale-offset: chunk shorter than its header")?;
    let minbits = u32::from_le_bytes(head[..4].try_into().unwrap()) as usize;
    let minval_size = (head[4] as usize).min(8);
    let mut minval = 0u64;
    for (i, &b) in head[5..5 + minval_size].iter().enumerate() {
        minval |= (b as u64) << (8 * i);
    }
    if minbits > size * 8 {
        return Err(format!(
            "scale-offset: {minbits} bits per value of {size} bytes"
        ));
    }
    let out = &mut out[..total];
    let body = &src[HEADER..];
    if minbits == size * 8 {
        let raw = body
            .get(..total)
            .ok_or("scale-offset: values past the chunk")?;
        out.copy_from_slice(raw);
        if be {
            swap_each(out, size);
        }
        return Ok(total);
    }
    if (n as u64 * minbits as u64).div_ceil(8) > body.len() as u64 {
        return Err("scale-offset: packed values past the chunk".into());
    }
    // The all-ones value stands for the fill value (when one is defined).
    let ones = if minbits == 64 {
        u64::MAX
    } else {
        (1u64 << minbits) - 1
    };
    let mut fill = [0u8; 8];
    for (k, &v) in cd[CD_FILVAL..].iter().enumerate().take(2) {
        fill[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
    }
    let fill = u64::from_le_bytes(fill);
    let mut bits = Bits { src: body, pos: 0 };
    for v in out.chunks_exact_mut(size) {
        let packed = if minbits == 0 { 0 } else { bits.take(minbits) };
        let x = if fill_defined && packed == ones {
            fill
        } else if class == CLASS_INTEGER {
            // Wrapping in the value's own width, like the C types it is computed in.
            let m = if signed {
                sign_extend(minval, 64)
            } else {
                minval
            };
            packed.wrapping_add(m)
        } else if size == 4 {
            let min = f32::from_bits(minval as u32);
            let i = sign_extend(packed, 32) as i32;
            ((i as f32) / 10f32.powf(factor as f32) + min).to_bits() as u64
        } else {
            let min = f64::from_bits(minval);
            let i = packed as i64;
            ((i as f64) / 10f64.powf(factor as f64) + min).to_bits()
        };
        v.copy_from_slice(&x.to_le_bytes()[..size]);
    }
    if be {
        swap_each(out, size);
    }
    Ok(total)
}

/// `x` read as a signed value of `bits` bits, widened.
fn sign_extend(x: u64, bits: u32) -> u64 {
    let s = 64 - bits;
    (((x << s) as i64) >> s) as u64
}

fn swap_each(buf: &mut [u8], size: usize) {
    for v in buf.chunks_exact_mut(size) {
        v.reverse();
    }
}

/// A big-endian bit reader (most significant bit of each byte first); bounds are
/// checked by the caller.
struct Bits<'a> {
    src: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    fn take(&mut self, n: usize) -> u64 {
        let mut v = 0u64;
        for _ in 0..n {
            let b = (self.src[self.pos / 8] >> (7 - self.pos % 8)) & 1;
            v = v << 1 | b as u64;
            self.pos += 1;
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cd(class: u32, size: u32, signed: bool, fill: Option<u32>) -> Vec<u32> {
        let mut c = vec![0u32; NPARMS];
        c[CD_SCALE_TYPE] = if class == CLASS_INTEGER {
            2
        } else {
            FLOAT_DSCALE
        };
        c[CD_NELMTS] = 4;
        c[CD_CLASS] = class;
        c[CD_SIZE] = size;
        c[CD_SIGN] = signed as u32;
        if let Some(f) = fill {
            c[CD_FILAVAIL] = 1;
            c[CD_FILVAL] = f;
        }
        c
    }

    #[test]
    fn integers_with_minimum_and_fill() {
        // Values 3-bit packed: 0, 5, 7 (= fill), 2; minimum -10 (i16).
        let mut src = vec![0u8; HEADER];
        src[0] = 3;
        src[4] = 8;
        src[5..13].copy_from_slice(&(-10i64).to_le_bytes());
        // 000 101 111 010 → 0001 0111 1010 0000
        src.extend([0b0001_0111, 0b1010_0000]);
        let mut out = vec![0u8; 8];
        assert_eq!(
            decode(&src, &cd(CLASS_INTEGER, 2, true, Some(999)), &mut out),
            Ok(8)
        );
        let v: Vec<i16> = out
            .chunks(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(v, [-10, -5, 999, -8]);
        // Past the chunk, and a chunk too small for the values: errors.
        assert!(decode(
            &src[..HEADER + 1],
            &cd(CLASS_INTEGER, 2, true, None),
            &mut out
        )
        .is_err());
        assert!(decode(&src, &cd(CLASS_INTEGER, 2, true, None), &mut [0u8; 6]).is_err());
    }
}
