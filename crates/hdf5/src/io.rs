//! Bounds-checked little-endian cursor and error helpers shared by every structure parser.

use arrowsmith_core::{ByteSource, DecodeError, ErrorCode, Format, Result};

/// The "undefined address" (all bits set at the file's offset width).
pub const UNDEF: u64 = u64::MAX;

pub fn err(offset: u64, code: ErrorCode, msg: impl Into<String>) -> DecodeError {
    DecodeError::new(Format::Hdf5, offset, code, msg)
}

pub fn invalid(offset: u64, msg: impl Into<String>) -> DecodeError {
    err(offset, ErrorCode::Invalid, msg)
}

pub fn unsupported(offset: u64, msg: impl Into<String>) -> DecodeError {
    err(offset, ErrorCode::Unsupported, msg)
}

/// Read `len` bytes at absolute file offset `off`, naming the structure on truncation.
pub fn read_abs<'a>(src: &'a dyn ByteSource, off: u64, len: u64, what: &str) -> Result<&'a [u8]> {
    in_file(src, off, len, what)?;
    src.read(Format::Hdf5, off, len as usize)
}

/// [`read_abs`] through `ByteSource::read_once`.
pub fn read_abs_once<'s>(
    src: &'s dyn ByteSource,
    off: u64,
    len: u64,
    what: &str,
    scratch: &'s mut Vec<u8>,
) -> Result<&'s [u8]> {
    in_file(src, off, len, what)?;
    src.read_once(Format::Hdf5, off, len as usize, scratch)
}

fn in_file(src: &dyn ByteSource, off: u64, len: u64, what: &str) -> Result<()> {
    if off.checked_add(len).is_none_or(|e| e > src.size()) {
        return Err(err(
            off,
            ErrorCode::Truncated,
            format!(
                "{what}: needs {len} bytes at {off}, file has {}",
                src.size()
            ),
        ));
    }
    Ok(())
}

/// Little-endian reader over a byte slice that knows the slice's file offset.
#[derive(Clone)]
pub struct Cur<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
    /// File offset of `buf[0]`.
    pub base: u64,
    pub what: &'static str,
    pub so: u8,
    pub sl: u8,
}

#[allow(clippy::len_without_is_empty)]
impl<'a> Cur<'a> {
    pub fn new(buf: &'a [u8], base: u64, what: &'static str, so: u8, sl: u8) -> Self {
        Cur {
            buf,
            pos: 0,
            base,
            what,
            so,
            sl,
        }
    }
    pub fn off(&self) -> u64 {
        self.base + self.pos as u64
    }
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    pub fn trunc(&self, n: usize) -> DecodeError {
        err(
            self.off(),
            ErrorCode::Truncated,
            format!(
                "{}: needs {n} more bytes at {}, has {}",
                self.what,
                self.off(),
                self.remaining()
            ),
        )
    }
    pub fn invalid(&self, msg: impl std::fmt::Display) -> DecodeError {
        invalid(self.off(), format!("{}: {msg}", self.what))
    }
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.trunc(n));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.bytes(2)?.try_into().unwrap()))
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.bytes(4)?.try_into().unwrap()))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.bytes(8)?.try_into().unwrap()))
    }
    /// An unsigned little-endian integer of `n` (0..=8) bytes.
    pub fn uvar(&mut self, n: usize) -> Result<u64> {
        if n > 8 {
            return Err(self.invalid(format!("integer field of {n} bytes")));
        }
        Ok(le_uint(self.bytes(n)?))
    }
    /// An address of the file's offset width; all-ones → [`UNDEF`].
    pub fn addr(&mut self) -> Result<u64> {
        let n = self.so as usize;
        let b = self.bytes(n)?;
        if b.iter().all(|&x| x == 0xff) {
            return Ok(UNDEF);
        }
        Ok(le_uint(b))
    }
    /// A length of the file's length width.
    pub fn len(&mut self) -> Result<u64> {
        let n = self.sl as usize;
        Ok(le_uint(self.bytes(n)?))
    }
    pub fn sig(&mut self, sig: &[u8; 4]) -> Result<()> {
        let at = self.off();
        let b = self.bytes(4)?;
        if b != sig {
            return Err(invalid(
                at,
                format!(
                    "{}: expected signature {:?}, found {:?}",
                    self.what,
                    String::from_utf8_lossy(sig),
                    String::from_utf8_lossy(b)
                ),
            ));
        }
        Ok(())
    }
    /// Null-terminated string (consumes the terminator).
    pub fn cstr(&mut self) -> Result<&'a [u8]> {
        let rest = &self.buf[self.pos..];
        let n = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.invalid("unterminated string"))?;
        self.pos += n + 1;
        Ok(&rest[..n])
    }
    pub fn align_from(&mut self, start: usize, to: usize) -> Result<()> {
        let used = self.pos - start;
        let pad = (to - used % to) % to;
        let pad = pad.min(self.remaining());
        self.skip(pad)
    }
}

#[inline]
pub fn le_uint(b: &[u8]) -> u64 {
    // The usual widths (8-byte offsets/lengths, 4-byte fields) without the byte loop.
    if let Ok(w) = <[u8; 8]>::try_from(b) {
        return u64::from_le_bytes(w);
    }
    if let Ok(w) = <[u8; 4]>::try_from(b) {
        return u32::from_le_bytes(w) as u64;
    }
    let mut v = 0u64;
    for (i, &x) in b.iter().enumerate().take(8) {
        v |= (x as u64) << (8 * i);
    }
    v
}

/// Bytes needed to encode `n` (HDF5's `H5VM_limit_enc_size`).
pub fn limit_enc_size(n: u64) -> usize {
    ((64 - n.leading_zeros()).saturating_sub(1) / 8 + 1) as usize
}
