//! The read context every parser takes: the byte source and the superblock (address
//! width, base address), with reads at file-relative addresses.

use arrowsmith_core::{ByteSource, Result};

use crate::io::{self, invalid, Cur, UNDEF};
use crate::superblock::Superblock;

/// Read context: the byte source and the superblock (address width, base address).
pub struct Ctx<'a> {
    pub src: &'a dyn ByteSource,
    pub sb: &'a Superblock,
}

impl<'a> Ctx<'a> {
    pub fn abs(&self, addr: u64) -> Result<u64> {
        if addr == UNDEF {
            return Err(invalid(0, "use of the undefined address"));
        }
        addr.checked_add(self.sb.base)
            .ok_or_else(|| invalid(0, format!("address {addr} overflows")))
    }
    pub fn read(&self, addr: u64, len: u64, what: &str) -> Result<&'a [u8]> {
        io::read_abs(self.src, self.abs(addr)?, len, what)
    }
    /// [`Ctx::read`] of bytes used once, right away (see `ByteSource::read_once`).
    pub fn read_once<'s>(
        &self,
        addr: u64,
        len: u64,
        what: &str,
        scratch: &'s mut Vec<u8>,
    ) -> Result<&'s [u8]>
    where
        'a: 's,
    {
        io::read_abs_once(self.src, self.abs(addr)?, len, what, scratch)
    }
    pub fn cur(&self, addr: u64, len: u64, what: &'static str) -> Result<Cur<'a>> {
        let b = self.read(addr, len, what)?;
        Ok(Cur::new(b, self.abs(addr)?, what, self.sb.so, self.sb.sl))
    }
}
