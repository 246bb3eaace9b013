//! Big-endian / varint cursor over a byte slice that knows its file offset.

use arrowsmith_core::{DecodeError, ErrorCode, Format};

pub(crate) fn err(offset: u64, code: ErrorCode, msg: impl Into<String>) -> DecodeError {
    DecodeError::new(Format::TsFile, offset, code, msg)
}

/// A cursor over `data`, whose first byte is at file offset `base`; `what` names the
/// structure being parsed for error messages.
pub(crate) struct Cursor<'a> {
    pub data: &'a [u8],
    pub pos: usize,
    pub base: u64,
    pub what: &'static str,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], base: u64, what: &'static str) -> Self {
        Cursor {
            data,
            pos: 0,
            base,
            what,
        }
    }
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }
    pub fn truncated(&self, field: &str) -> DecodeError {
        err(
            self.offset(),
            ErrorCode::Truncated,
            format!(
                "{} at byte {}: {field} runs past the end of its {} bytes",
                self.what,
                self.base,
                self.data.len()
            ),
        )
    }
    pub fn invalid(&self, msg: impl std::fmt::Display) -> DecodeError {
        err(
            self.offset(),
            ErrorCode::Invalid,
            format!("{} at byte {}: {msg}", self.what, self.base),
        )
    }
    #[inline]
    pub fn take(&mut self, n: usize, field: &str) -> Result<&'a [u8], DecodeError> {
        if self.remaining() < n {
            return Err(self.truncated(field));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn u8(&mut self, field: &str) -> Result<u8, DecodeError> {
        Ok(self.take(1, field)?[0])
    }
    pub fn i32(&mut self, field: &str) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.take(4, field)?.try_into().unwrap()))
    }
    pub fn i64(&mut self, field: &str) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.take(8, field)?.try_into().unwrap()))
    }
    pub fn uvarint(&mut self, field: &str) -> Result<u32, DecodeError> {
        match uvarint(self.data, &mut self.pos) {
            Some(v) => Ok(v),
            None => Err(self.truncated(field)),
        }
    }
    pub fn svarint(&mut self, field: &str) -> Result<i32, DecodeError> {
        let u = self.uvarint(field)?;
        Ok(unzigzag32(u))
    }
    /// svarint length + bytes; `None` for length −1.
    pub fn var_bytes(&mut self, field: &str) -> Result<Option<&'a [u8]>, DecodeError> {
        let len = self.svarint(field)?;
        if len == -1 {
            return Ok(None);
        }
        if len < 0 {
            return Err(self.invalid(format!("{field} has negative length {len}")));
        }
        Ok(Some(self.take(len as usize, field)?))
    }
    pub fn var_string(&mut self, field: &str) -> Result<Option<String>, DecodeError> {
        Ok(self
            .var_bytes(field)?
            .map(|b| String::from_utf8_lossy(b).into_owned()))
    }
    /// int32 BE length + bytes (−1 = null).
    pub fn int_string(&mut self, field: &str) -> Result<Option<String>, DecodeError> {
        let len = self.i32(field)?;
        if len == -1 {
            return Ok(None);
        }
        if len < 0 {
            return Err(self.invalid(format!("{field} has negative length {len}")));
        }
        Ok(Some(
            String::from_utf8_lossy(self.take(len as usize, field)?).into_owned(),
        ))
    }
}

/// Unsigned LEB128 (32-bit value; longer encodings are accepted and truncated like Java).
#[inline]
pub(crate) fn uvarint(data: &[u8], pos: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    let mut shift = 0u32;
    loop {
        let b = *data.get(*pos)?;
        *pos += 1;
        if shift < 32 {
            v |= ((b & 0x7f) as u32) << shift;
        }
        if b & 0x80 == 0 {
            return Some(v);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// Unsigned LEB128, 64-bit.
#[inline]
pub(crate) fn uvarint64(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    let mut shift = 0u32;
    loop {
        let b = *data.get(*pos)?;
        *pos += 1;
        if shift < 64 {
            v |= ((b & 0x7f) as u64) << shift;
        }
        if b & 0x80 == 0 {
            return Some(v);
        }
        shift += 7;
        if shift > 70 {
            return None;
        }
    }
}

#[inline]
pub(crate) fn unzigzag32(u: u32) -> i32 {
    ((u >> 1) as i32) ^ -((u & 1) as i32)
}

#[inline]
pub(crate) fn unzigzag64(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}
