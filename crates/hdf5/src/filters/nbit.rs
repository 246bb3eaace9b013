//! The N-bit filter (5): only the significant bits of each value are stored, back to
//! back, most significant first. Its parameters describe the datatype as a tree (atomic
//! values with size, byte order, precision and bit offset; arrays; compounds; other types
//! stored whole), walked once per element; a value is rebuilt as its significant bits
//! shifted to their offset, the other bits zero.

const CD_NPARMS: usize = 0;
const CD_NO_COMPRESS: usize = 1;
const CD_NELMTS: usize = 2;
const CD_CLASS: usize = 3;
const CD_SIZE: usize = 4;
const ATOMIC: u32 = 1;
const ARRAY: u32 = 2;
const COMPOUND: u32 = 3;
const NOOPTYPE: u32 = 4;
/// Nesting of arrays and compounds followed (libhdf5 caps the list at 4096 parameters).
const MAX_DEPTH: u32 = 32;

/// Undo the filter into `out` (the chunk's size); returns the bytes written.
pub fn decode(src: &[u8], cd: &[u32], out: &mut [u8]) -> Result<usize, String> {
    if cd.len() < 3 || cd[CD_NPARMS] as usize != cd.len() {
        return Err(format!("nbit: {} parameters", cd.len()));
    }
    // Types the filter does not pack (enums, strings, ...: libhdf5 writes just the three
    // parameters saying so) and values that fill their bytes are stored as they are.
    if cd[CD_NO_COMPRESS] != 0 {
        let k = src.len().min(out.len());
        out[..k].copy_from_slice(&src[..k]);
        return Ok(src.len());
    }
    if cd.len() < 5 {
        return Err(format!("nbit: {} parameters", cd.len()));
    }
    let (n, size) = (cd[CD_NELMTS] as usize, cd[CD_SIZE] as usize);
    let total = n
        .checked_mul(size)
        .filter(|&t| size > 0 && t <= out.len())
        .ok_or_else(|| {
            format!(
                "nbit: {n} values of {size} bytes, the chunk holds {}",
                out.len()
            )
        })?;
    let out = &mut out[..total];
    out.fill(0);
    let mut w = Walk {
        cd,
        bits: Bits { src, pos: 0 },
        out,
    };
    for e in 0..n {
        let at = e * size;
        match cd[CD_CLASS] {
            ATOMIC => {
                let p = w.atomic(CD_SIZE)?;
                w.atomic_value(at, p)?;
            }
            ARRAY => {
                w.array(at, &mut CD_SIZE.clone(), 0)?;
            }
            COMPOUND => {
                w.compound(at, &mut CD_SIZE.clone(), 0)?;
            }
            c => return Err(format!("nbit: datatype class {c}")),
        }
    }
    Ok(total)
}

#[derive(Clone, Copy)]
struct Atomic {
    size: usize,
    be: bool,
    precision: usize,
    offset: usize,
}

struct Walk<'a> {
    cd: &'a [u32],
    bits: Bits<'a>,
    out: &'a mut [u8],
}

impl Walk<'_> {
    fn parm(&self, i: usize) -> Result<usize, String> {
        self.cd
            .get(i)
            .map(|&v| v as usize)
            .ok_or_else(|| "nbit: parameter list shorter than its datatype".to_string())
    }

    /// An atomic type's four parameters from `i` (size, order, precision, offset).
    fn atomic(&self, i: usize) -> Result<Atomic, String> {
        let p = Atomic {
            size: self.parm(i)?,
            be: self.parm(i + 1)? == 1,
            precision: self.parm(i + 2)?,
            offset: self.parm(i + 3)?,
        };
        if p.size == 0 || p.size > 8 || p.precision.saturating_add(p.offset) > p.size * 8 {
            return Err(format!(
                "nbit: precision {} at offset {} in {} bytes",
                p.precision, p.offset, p.size
            ));
        }
        Ok(p)
    }

    fn slot(&mut self, at: usize, len: usize) -> Result<&mut [u8], String> {
        at.checked_add(len)
            .and_then(|end| self.out.get_mut(at..end))
            .ok_or_else(|| "nbit: datatype larger than its element".to_string())
    }

    /// One atomic value at `at`: its significant bits, shifted to the offset.
    fn atomic_value(&mut self, at: usize, p: Atomic) -> Result<(), String> {
        let v = self.bits.take(p.precision)?;
        let v = v.checked_shl(p.offset as u32).unwrap_or(0);
        let bytes = v.to_le_bytes();
        let dst = self.slot(at, p.size)?;
        for (k, d) in dst.iter_mut().enumerate() {
            *d = bytes[if p.be { p.size - 1 - k } else { k }];
        }
        Ok(())
    }

    /// A type stored whole: `size` bytes from the stream.
    fn whole(&mut self, at: usize, size: usize) -> Result<(), String> {
        for k in 0..size {
            let b = self.bits.take(8)? as u8;
            self.slot(at + k, 1)?[0] = b;
        }
        Ok(())
    }

    /// An array at `at` whose parameters start at `*i` (total size, base class, base).
    /// As libhdf5 does, a nested array or compound base leaves `*i` at its own start.
    fn array(&mut self, at: usize, i: &mut usize, depth: u32) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("nbit: datatype nested too deep".into());
        }
        let total = self.parm(*i)?;
        let class = self.parm(*i + 1)? as u32;
        *i += 2;
        match class {
            ATOMIC => {
                let p = self.atomic(*i)?;
                *i += 4;
                for k in 0..total / p.size {
                    self.atomic_value(at + k * p.size, p)?;
                }
            }
            ARRAY | COMPOUND => {
                let base = self.parm(*i)?;
                if base == 0 {
                    return Err("nbit: array of a type of size 0".into());
                }
                let begin = *i;
                for k in 0..total / base {
                    if class == ARRAY {
                        self.array(at + k * base, i, depth + 1)?;
                    } else {
                        self.compound(at + k * base, i, depth + 1)?;
                    }
                    *i = begin;
                }
            }
            NOOPTYPE => {
                *i += 1;
                self.whole(at, total)?;
            }
            c => return Err(format!("nbit: datatype class {c}")),
        }
        Ok(())
    }

    /// A compound at `at` whose parameters start at `*i` (size, members, then per member
    /// its offset, class and parameters).
    fn compound(&mut self, at: usize, i: &mut usize, depth: u32) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("nbit: datatype nested too deep".into());
        }
        let size = self.parm(*i)?;
        let members = self.parm(*i + 1)?;
        *i += 2;
        let mut used = 0usize;
        for _ in 0..members {
            let offset = self.parm(*i)?;
            let class = self.parm(*i + 1)? as u32;
            let msize = self.parm(*i + 2)?;
            *i += 2;
            used = used.saturating_add(msize);
            if msize == 0 || used > size || offset.saturating_add(msize) > size {
                return Err("nbit: compound member outside its compound".into());
            }
            match class {
                ATOMIC => {
                    let p = self.atomic(*i)?;
                    *i += 4;
                    self.atomic_value(at + offset, p)?;
                }
                ARRAY => self.array(at + offset, i, depth + 1)?,
                COMPOUND => self.compound(at + offset, i, depth + 1)?,
                NOOPTYPE => {
                    *i += 1;
                    self.whole(at + offset, msize)?;
                }
                c => return Err(format!("nbit: datatype class {c}")),
            }
        }
        Ok(())
    }
}

/// A bit reader over the packed stream, most significant bit of each byte first.
struct Bits<'a> {
    src: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    fn take(&mut self, n: usize) -> Result<u64, String> {
        if n > 64 || self.pos + n > self.src.len() * 8 {
            return Err("nbit: packed values past the chunk".into());
        }
        let mut v = 0u64;
        for _ in 0..n {
            let b = (self.src[self.pos / 8] >> (7 - self.pos % 8)) & 1;
            v = v << 1 | b as u64;
            self.pos += 1;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn atomic_values_at_their_offset() {
        // Four u16 values of 12 bits at offset 2: 0xabc, 0x001, 0xfff, 0x800.
        let cd = [8, 0, 4, 1, 2, 0, 12, 2];
        let src = [0xab, 0xc0, 0x01, 0xff, 0xf8, 0x00];
        let mut out = [0u8; 8];
        assert_eq!(decode(&src, &cd, &mut out), Ok(8));
        let v: Vec<u16> = out
            .chunks(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(v, [0xabc << 2, 1 << 2, 0xfff << 2, 0x800 << 2]);
        assert!(
            decode(&src[..5], &cd, &mut out).is_err(),
            "stream too short"
        );
        assert!(
            decode(&src, &cd, &mut [0u8; 6]).is_err(),
            "bounded by the chunk"
        );
        // The three parameters libhdf5 writes for a type it does not pack (an enum).
        assert_eq!(decode(&src, &[3, 1, 3], &mut out), Ok(6));
        assert_eq!(out[..6], src);
        assert!(
            decode(&src, &[3, 0, 3], &mut out).is_err(),
            "packed, no type"
        );
    }
}
