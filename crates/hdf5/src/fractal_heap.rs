//! Fractal heap (dense links and attributes): managed objects in direct blocks reached
//! through indirect blocks, and tiny objects stored in the heap ID itself.

use arrowsmith_core::Result;

use crate::checksum;
use crate::file::ctx::Ctx;
use crate::io::{invalid, le_uint, unsupported, Cur, UNDEF};

pub struct FractalHeap {
    at: u64,
    width: u64,
    start_block: u64,
    max_direct: u64,
    max_heap_bits: u16,
    root: u64,
    root_rows: u64,
    filtered: bool,
    off_bytes: usize,
    len_bytes: usize,
    id_len: usize,
    huge_btree: u64,
}

impl FractalHeap {
    pub fn open(ctx: &Ctx, addr: u64) -> Result<FractalHeap> {
        let at = ctx.abs(addr)?;
        let so = ctx.sb.so as u64;
        let sl = ctx.sb.sl as u64;
        let base_len =
            4 + 1 + 2 + 2 + 1 + 4 + sl + so + sl + so + sl * 8 + 2 + sl * 2 + 2 + 2 + so + 2;
        let b = ctx.read(addr, base_len, "fractal heap header")?;
        let mut c = Cur::new(b, at, "fractal heap header", ctx.sb.so, ctx.sb.sl);
        c.sig(b"FRHP")?;
        c.u8()?;
        let id_len = c.u16()? as usize;
        let filter_len = c.u16()? as u64;
        let _flags = c.u8()?;
        let max_man = c.u32()? as u64;
        c.len()?;
        let huge_btree = c.addr()?;
        c.len()?;
        c.addr()?;
        for _ in 0..8 {
            c.len()?;
        }
        let width = c.u16()? as u64;
        let start_block = c.len()?;
        let max_direct = c.len()?;
        let max_heap_bits = c.u16()?;
        c.u16()?;
        let root = c.addr()?;
        let root_rows = c.u16()? as u64;
        let total = base_len
            + if filter_len > 0 {
                sl + 4 + filter_len
            } else {
                0
            }
            + 4;
        let full = ctx.read(addr, total, "fractal heap header")?;
        checksum::verify(full, at, "fractal heap header")?;
        if width == 0
            || max_direct < start_block
            || !width.is_power_of_two()
            || !start_block.is_power_of_two()
            || !max_direct.is_power_of_two()
            || max_heap_bits > 64
            || width > 65536
        {
            return Err(invalid(at, "fractal heap header: bad table parameters"));
        }
        let off_bytes = (max_heap_bits as usize).div_ceil(8);
        let dir_len = (max_direct.trailing_zeros() as usize).div_ceil(8);
        let len_bytes = dir_len.min(crate::io::limit_enc_size(max_man));
        Ok(FractalHeap {
            at,
            width,
            start_block,
            max_direct,
            max_heap_bits,
            root,
            root_rows,
            filtered: filter_len > 0,
            off_bytes,
            len_bytes,
            id_len,
            huge_btree,
        })
    }

    fn row_size(&self, r: u64) -> u64 {
        if r == 0 {
            self.start_block
        } else {
            self.start_block
                .saturating_mul(1u64.checked_shl((r - 1) as u32).unwrap_or(u64::MAX))
        }
    }

    fn max_direct_rows(&self) -> u64 {
        (self.max_direct.trailing_zeros() - self.start_block.trailing_zeros()) as u64 + 2
    }

    /// The object named by a heap ID.
    pub fn get<'a>(&self, ctx: &Ctx<'a>, id: &'a [u8]) -> Result<std::borrow::Cow<'a, [u8]>> {
        if id.is_empty() {
            return Err(invalid(self.at, "fractal heap: empty heap ID"));
        }
        let ty = (id[0] >> 4) & 3;
        match ty {
            0 => {
                if id.len() < 1 + self.off_bytes + self.len_bytes {
                    return Err(invalid(self.at, "fractal heap: heap ID too short"));
                }
                let off = le_uint(&id[1..1 + self.off_bytes]);
                let len = le_uint(&id[1 + self.off_bytes..1 + self.off_bytes + self.len_bytes]);
                self.managed(ctx, off, len).map(std::borrow::Cow::Borrowed)
            }
            2 => {
                let n = (id[0] & 0x0f) as usize + 1;
                id.get(1..1 + n)
                    .map(std::borrow::Cow::Borrowed)
                    .ok_or_else(|| invalid(self.at, "fractal heap: tiny object longer than its ID"))
            }
            1 => self.huge(ctx, id).map(std::borrow::Cow::Borrowed),
            _ => Err(invalid(self.at, format!("fractal heap: heap ID type {ty}"))),
        }
    }

    /// Huge objects: the ID holds the address and length directly, or a key into the
    /// huge-object v2 B-tree (record type 1; filtered huge objects are unsupported).
    fn huge<'a>(&self, ctx: &Ctx<'a>, id: &[u8]) -> Result<&'a [u8]> {
        let (so, sl) = (ctx.sb.so as usize, ctx.sb.sl as usize);
        if self.filtered {
            return Err(unsupported(self.at, "fractal heap: filtered huge objects"));
        }
        if self.id_len.saturating_sub(1) >= so + sl && id.len() >= 1 + so + sl {
            let a = le_uint(&id[1..1 + so]);
            let l = le_uint(&id[1 + so..1 + so + sl]);
            return ctx.read(a, l, "fractal heap huge object");
        }
        let key = le_uint(&id[1..id.len().min(self.id_len).min(9)]);
        if self.huge_btree == UNDEF {
            return Err(invalid(
                self.at,
                "fractal heap: huge object without a huge-object B-tree",
            ));
        }
        let (h, recs) = crate::btree_v2::records(ctx, self.huge_btree)?;
        if h.kind != 1 {
            return Err(unsupported(
                self.at,
                format!("fractal heap: huge-object B-tree record type {}", h.kind),
            ));
        }
        for r in recs {
            if r.len() >= so + 2 * sl && le_uint(&r[so + sl..so + 2 * sl]) == key {
                let a = le_uint(&r[..so]);
                let l = le_uint(&r[so..so + sl]);
                return ctx.read(a, l, "fractal heap huge object");
            }
        }
        Err(invalid(
            self.at,
            format!("fractal heap: huge object {key} not in its B-tree"),
        ))
    }

    fn managed<'a>(&self, ctx: &Ctx<'a>, off: u64, len: u64) -> Result<&'a [u8]> {
        if self.filtered {
            return Err(unsupported(self.at, "fractal heap with I/O filters"));
        }
        if self.root == UNDEF {
            return Err(invalid(self.at, "fractal heap: object in an empty heap"));
        }
        let (block, block_off, block_size);
        if self.root_rows == 0 {
            block = self.root;
            block_off = 0;
            block_size = self.start_block;
        } else {
            let mut ib = self.root;
            let mut ib_off = 0u64;
            let mut rows = self.root_rows;
            let mut depth = 0;
            loop {
                depth += 1;
                if depth > 64 {
                    return Err(invalid(
                        self.at,
                        "fractal heap: indirect blocks nested too deep",
                    ));
                }
                // Find the row and column holding `off`.
                let mut row_start = ib_off;
                let mut found = None;
                for r in 0..rows {
                    let rs = self.row_size(r);
                    let span = rs.saturating_mul(self.width);
                    if off < row_start.saturating_add(span) {
                        found = Some((
                            r,
                            (off - row_start) / rs,
                            row_start + (off - row_start) / rs * rs,
                            rs,
                        ));
                        break;
                    }
                    row_start = row_start.saturating_add(span);
                }
                let (r, col, child_off, rs) = found
                    .ok_or_else(|| invalid(self.at, "fractal heap: object offset past the heap"))?;
                let ndirect = rows.min(self.max_direct_rows());
                let so = ctx.sb.so as u64;
                let entry = r * self.width + col;
                let prefix = 4 + 1 + so + self.off_bytes as u64;
                let child = if r < self.max_direct_rows() {
                    let b = ctx.read(
                        ib.saturating_add(prefix + entry * so),
                        so,
                        "fractal heap indirect block",
                    )?;
                    le_uint(b)
                } else {
                    let ie = entry - ndirect * self.width;
                    let b = ctx.read(
                        ib.saturating_add(prefix + ndirect * self.width * so + ie * so),
                        so,
                        "fractal heap indirect block",
                    )?;
                    le_uint(b)
                };
                let sig = ctx.read(ib, 4, "fractal heap indirect block")?;
                if sig != b"FHIB" {
                    return Err(invalid(
                        ctx.abs(ib)?,
                        "fractal heap: missing FHIB signature",
                    ));
                }
                if child == 0 || child == UNDEF || (so < 8 && child == (1u64 << (8 * so)) - 1) {
                    return Err(invalid(
                        ctx.abs(ib)?,
                        "fractal heap: object in an unallocated block",
                    ));
                }
                if r < self.max_direct_rows() {
                    block = child;
                    block_off = child_off;
                    block_size = rs;
                    break;
                }
                ib = child;
                ib_off = child_off;
                rows = (rs
                    .trailing_zeros()
                    .saturating_sub(self.start_block.saturating_mul(self.width).trailing_zeros()))
                    as u64
                    + 1;
            }
        }
        let rel = off - block_off;
        if rel.checked_add(len).is_none_or(|e| e > block_size) {
            return Err(invalid(
                ctx.abs(block)?,
                "fractal heap: object extends past its direct block",
            ));
        }
        let sig = ctx.read(block, 4, "fractal heap direct block")?;
        if sig != b"FHDB" {
            return Err(invalid(
                ctx.abs(block)?,
                "fractal heap: missing FHDB signature",
            ));
        }
        let _ = self.max_heap_bits;
        ctx.read(block.saturating_add(rel), len, "fractal heap object")
    }
}
