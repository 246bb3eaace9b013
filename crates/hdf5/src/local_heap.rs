//! Local heap (names of symbol-table group members).

use arrowsmith_core::Result;

use crate::file::ctx::Ctx;
use crate::io::{invalid, Cur};

pub struct LocalHeap<'a> {
    pub data: &'a [u8],
    pub offset: u64,
}

impl<'a> LocalHeap<'a> {
    pub fn open(ctx: &Ctx<'a>, addr: u64) -> Result<LocalHeap<'a>> {
        let at = ctx.abs(addr)?;
        let len = 8 + 2 * ctx.sb.sl as u64 + ctx.sb.so as u64;
        let mut c = ctx.cur(addr, len, "local heap")?;
        c.sig(b"HEAP")?;
        c.skip(4)?;
        let size = c.len()?;
        c.len()?;
        let data_addr = c.addr()?;
        let data = ctx.read(data_addr, size, "local heap data segment")?;
        let _ = at;
        Ok(LocalHeap {
            data,
            offset: ctx.abs(data_addr)?,
        })
    }

    pub fn name(&self, off: u64) -> Result<&'a [u8]> {
        let o = usize::try_from(off)
            .ok()
            .filter(|&o| o < self.data.len())
            .ok_or_else(|| invalid(self.offset, "local heap: name offset past the segment"))?;
        let mut c = Cur::new(&self.data[o..], self.offset + off, "local heap name", 8, 8);
        c.cstr()
    }
}
