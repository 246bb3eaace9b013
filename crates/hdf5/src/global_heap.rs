//! Global heap collections (GCOL): the payloads of variable-length cells.
//!
//! Header and object headers are padded to 8 bytes (16 bytes for every size of lengths
//! up to 8), and so is each object's data.

use arrowsmith_core::Result;

use crate::io::{invalid, le_uint};
use crate::Ctx;

pub struct Collection<'a> {
    /// The whole collection.
    pub bytes: &'a [u8],
    /// Absolute file offset of `bytes[0]`.
    pub at: u64,
    /// `(start in bytes, size)` by object index; size `u32::MAX` marks a missing index.
    pub objs: Vec<(u32, u32)>,
}

pub const MISSING: (u32, u32) = (0, u32::MAX);

impl<'a> Collection<'a> {
    pub fn parse(ctx: &Ctx<'a>, addr: u64) -> Result<Collection<'a>> {
        let at = ctx.abs(addr)?;
        let sl = ctx.sb.sl as usize;
        let head = ctx.read(addr, 8 + sl as u64, "global heap collection header")?;
        if &head[..4] != b"GCOL" {
            return Err(invalid(
                at,
                "global heap collection: missing GCOL signature",
            ));
        }
        if head[4] != 1 {
            return Err(invalid(
                at,
                format!("global heap collection version {}", head[4]),
            ));
        }
        let size = le_uint(&head[8..8 + sl]);
        if size < 16 || size > u32::MAX as u64 {
            return Err(invalid(at, format!("global heap collection size {size}")));
        }
        let bytes = ctx.read(addr, size, "global heap collection")?;
        let mut objs: Vec<(u32, u32)> = Vec::new();
        let mut p = 16usize;
        let ohdr = (8 + sl).div_ceil(8) * 8;
        while p + ohdr <= bytes.len() {
            let idx = u16::from_le_bytes([bytes[p], bytes[p + 1]]) as usize;
            let osize = le_uint(&bytes[p + 8..p + 8 + sl]);
            if idx == 0 {
                break;
            }
            let start = p + ohdr;
            if osize > (bytes.len() - start) as u64 {
                return Err(invalid(
                    at + p as u64,
                    format!("global heap object {idx}: size {osize} past its collection"),
                ));
            }
            if objs.len() <= idx {
                objs.resize(idx + 1, MISSING);
            }
            objs[idx] = (start as u32, osize as u32);
            p = start + (osize as usize).div_ceil(8) * 8;
        }
        Ok(Collection { bytes, at, objs })
    }

    #[inline]
    pub fn object(&self, idx: u32) -> Option<&'a [u8]> {
        let &(s, n) = self.objs.get(idx as usize)?;
        if n == u32::MAX {
            return None;
        }
        Some(&self.bytes[s as usize..s as usize + n as usize])
    }
}
