//! Chunk indexes: v1 B-tree, single chunk, implicit, fixed array, extensible array,
//! v2 B-tree. Each yields the stored chunks holding elements of a selection.

use arrowsmith_core::Result;

use crate::btree_v1::{self, ChunkRec};
use crate::btree_v2;
use crate::checksum;
use crate::file::ctx::Ctx;
use crate::hyperslab::Slab;
use crate::io::{invalid, le_uint, unsupported, Cur, UNDEF};
use crate::layout::ChunkIndexKind;

pub struct ChunkGeom<'g> {
    pub dims: &'g [u64],
    pub maxdims: &'g [Option<u64>],
    pub chunk: &'g [u64],
    pub elem_size: u64,
    pub filtered: bool,
}

impl ChunkGeom<'_> {
    pub fn chunk_bytes(&self) -> u64 {
        self.chunk
            .iter()
            .fold(self.elem_size, |a, &c| a.saturating_mul(c))
    }
    /// Whether the chunk at `coords` is in the dataspace and holds selected elements.
    fn overlaps(&self, coords: &[u64], sel: &Slab) -> bool {
        coords.iter().zip(self.dims).all(|(c, d)| c < d)
            && (0..coords.len()).all(|k| sel.touches(k, coords[k], self.chunk[k]))
    }
    /// Visit the scaled grid coordinates of the chunks holding selected elements (lazily:
    /// the grid of a sparse dataset may be far larger than the chunks stored).
    fn grid(&self, sel: &Slab, f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
        if sel.is_empty() || self.chunk.contains(&0) {
            return Ok(());
        }
        // Per dimension, the grid cells between the first and last selected index that
        // hold one (a step wider than a chunk skips cells).
        let mut cells: Vec<Vec<u64>> = Vec::with_capacity(self.dims.len());
        for (k, &c) in self.chunk.iter().enumerate() {
            let b = sel.bounds(k);
            let (lo, hi) = (b.start / c, (b.end - 1) / c);
            // Whichever is fewer: the selected indices or the cells they span.
            let v: Vec<u64> = if sel.count[k] <= hi - lo {
                let mut v: Vec<u64> = (0..sel.count[k])
                    .map(|i| (sel.start[k] + i * sel.step[k]) / c)
                    .collect();
                v.dedup();
                v
            } else {
                (lo..=hi).filter(|&j| sel.touches(k, j * c, c)).collect()
            };
            if v.is_empty() {
                return Ok(());
            }
            cells.push(v);
        }
        let mut i = vec![0usize; cells.len()];
        let mut s: Vec<u64> = cells.iter().map(|v| v[0]).collect();
        loop {
            f(&s)?;
            let mut k = cells.len();
            loop {
                if k == 0 {
                    return Ok(());
                }
                k -= 1;
                i[k] += 1;
                if i[k] < cells[k].len() {
                    s[k] = cells[k][i[k]];
                    break;
                }
                i[k] = 0;
                s[k] = cells[k][0];
            }
        }
    }
    /// Row-major linear index of a scaled coordinate in the grid of `max` chunk counts.
    fn linear(&self, s: &[u64], swizzle_unlim: bool) -> u64 {
        let mut order: Vec<usize> = (0..s.len()).collect();
        if swizzle_unlim {
            if let Some(u) = self.maxdims.iter().position(|m| m.is_none()) {
                order.remove(u);
                order.insert(0, u);
            }
        }
        let mut idx = 0u64;
        for &k in &order {
            let m = self.maxdims[k].unwrap_or(self.dims[k]).max(self.dims[k]);
            idx = idx
                .saturating_mul(m.div_ceil(self.chunk[k]).max(1))
                .saturating_add(s[k]);
        }
        idx
    }
    fn coords(&self, s: &[u64]) -> Vec<u64> {
        s.iter().zip(self.chunk).map(|(a, c)| a * c).collect()
    }
}

pub fn chunks(
    ctx: &Ctx,
    kind: &ChunkIndexKind,
    addr: u64,
    g: &ChunkGeom,
    sel: &Slab,
) -> Result<Vec<ChunkRec>> {
    if addr == UNDEF {
        return Ok(Vec::new());
    }
    let rank = g.dims.len();
    let mut out = Vec::new();
    match kind {
        ChunkIndexKind::BTreeV1 => {
            for c in btree_v1::chunks(ctx, addr, rank)? {
                if g.overlaps(&c.coords[..rank], sel) {
                    out.push(ChunkRec {
                        coords: c.coords[..rank].to_vec(),
                        ..c
                    });
                }
            }
        }
        ChunkIndexKind::Single(f) => {
            let (size, mask) = f.unwrap_or((g.chunk_bytes(), 0));
            let coords = vec![0; rank];
            if g.overlaps(&coords, sel) {
                out.push(ChunkRec {
                    coords,
                    addr,
                    size,
                    mask,
                });
            }
        }
        ChunkIndexKind::Implicit => {
            let cb = g.chunk_bytes();
            g.grid(sel, &mut |s| {
                let i = g.linear(s, false);
                let a = i
                    .checked_mul(cb)
                    .and_then(|o| o.checked_add(addr))
                    .ok_or_else(|| invalid(0, "implicit chunk index: address overflow"))?;
                out.push(ChunkRec {
                    coords: g.coords(s),
                    addr: a,
                    size: cb,
                    mask: 0,
                });
                Ok(())
            })?;
        }
        ChunkIndexKind::FixedArray { .. } => {
            let fa = FixedArray::open(ctx, addr)?;
            g.grid(sel, &mut |s| {
                if let Some((a, size, mask)) = fa.get(ctx, g.linear(s, false), g)? {
                    out.push(ChunkRec {
                        coords: g.coords(s),
                        addr: a,
                        size,
                        mask,
                    });
                }
                Ok(())
            })?;
        }
        ChunkIndexKind::ExtensibleArray { .. } => {
            let ea = ExtArray::open(ctx, addr)?;
            g.grid(sel, &mut |s| {
                if let Some((a, size, mask)) = ea.get(ctx, g.linear(s, true), g)? {
                    out.push(ChunkRec {
                        coords: g.coords(s),
                        addr: a,
                        size,
                        mask,
                    });
                }
                Ok(())
            })?;
        }
        ChunkIndexKind::BTreeV2 => {
            let (h, recs) = btree_v2::records(ctx, addr)?;
            let so = ctx.sb.so as usize;
            let at = ctx.abs(addr)?;
            for r in recs {
                let mut c = Cur::new(r, at, "v2 B-tree chunk record", ctx.sb.so, ctx.sb.sl);
                let a = c.addr()?;
                let (size, mask) = if h.kind == 11 {
                    let w = h
                        .record_size
                        .checked_sub(so + 4 + 8 * rank)
                        .ok_or_else(|| invalid(at, "v2 B-tree chunk record too small"))?;
                    (c.uvar(w)?, c.u32()?)
                } else if h.kind == 10 {
                    (g.chunk_bytes(), 0)
                } else {
                    return Err(invalid(
                        at,
                        format!("v2 B-tree of type {} used as a chunk index", h.kind),
                    ));
                };
                let mut coords = Vec::with_capacity(rank);
                for k in 0..rank {
                    coords.push(c.u64()?.saturating_mul(g.chunk[k]));
                }
                if a != UNDEF && g.overlaps(&coords, sel) {
                    out.push(ChunkRec {
                        coords,
                        addr: a,
                        size,
                        mask,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// Decode one index element: address, then (filtered) size and mask.
fn element(ctx: &Ctx, b: &[u8], g: &ChunkGeom, at: u64) -> Result<Option<(u64, u64, u32)>> {
    let so = ctx.sb.so as usize;
    let a = &b[..so];
    if a.iter().all(|&x| x == 0xff) {
        return Ok(None);
    }
    let addr = le_uint(a);
    if g.filtered {
        let w = b
            .len()
            .checked_sub(so + 4)
            .ok_or_else(|| invalid(at, "chunk index element too small"))?;
        let size = le_uint(&b[so..so + w]);
        let mask = u32::from_le_bytes(b[so + w..so + w + 4].try_into().unwrap());
        Ok(Some((addr, size, mask)))
    } else {
        Ok(Some((addr, g.chunk_bytes(), 0)))
    }
}

struct FixedArray {
    es: u64,
    page_bits: u8,
    max: u64,
    dblk: u64,
    at: u64,
}

impl FixedArray {
    fn open(ctx: &Ctx, addr: u64) -> Result<FixedArray> {
        let at = ctx.abs(addr)?;
        let so = ctx.sb.so as u64;
        let len = 4 + 1 + 1 + 1 + 1 + ctx.sb.sl as u64 + so + 4;
        let b = ctx.read(addr, len, "fixed array header")?;
        checksum::verify(b, at, "fixed array header")?;
        let mut c = Cur::new(b, at, "fixed array header", ctx.sb.so, ctx.sb.sl);
        c.sig(b"FAHD")?;
        c.skip(2)?;
        let es = c.u8()? as u64;
        let page_bits = c.u8()?;
        let max = c.len()?;
        let dblk = c.addr()?;
        if es < so || page_bits > 40 {
            return Err(invalid(
                at,
                "fixed array header: bad element size or page bits",
            ));
        }
        Ok(FixedArray {
            es,
            page_bits,
            max,
            dblk,
            at,
        })
    }

    fn get(&self, ctx: &Ctx, i: u64, g: &ChunkGeom) -> Result<Option<(u64, u64, u32)>> {
        if i >= self.max || self.dblk == UNDEF {
            return Ok(None);
        }
        let so = ctx.sb.so as u64;
        let page = 1u64 << self.page_bits;
        let head = 4 + 1 + 1 + so;
        // Whole pages / the whole data block are read at once, so a host that loads
        // ranges on demand fetches the index in one round trip, not one per element.
        if self.max > page {
            let npages = self.max.div_ceil(page);
            let bm = npages.div_ceil(8);
            let p = i / page;
            let byte = ctx.read(
                self.dblk.saturating_add(head + p / 8),
                1,
                "fixed array page bitmap",
            )?[0];
            if byte & (0x80 >> (p % 8)) == 0 {
                return Ok(None);
            }
            let in_page = if p + 1 == npages {
                self.max - p * page
            } else {
                page
            };
            let pstart = self
                .dblk
                .saturating_add(head + bm + 4)
                .saturating_add(p.saturating_mul(page * self.es + 4));
            let pg = ctx.read(pstart, in_page * self.es + 4, "fixed array page")?;
            let o = ((i % page) * self.es) as usize;
            element(ctx, &pg[o..o + self.es as usize], g, self.at)
        } else {
            let blk = ctx.read(
                self.dblk,
                head + self.max.saturating_mul(self.es) + 4,
                "fixed array data block",
            )?;
            let o = (head + i * self.es) as usize;
            element(ctx, &blk[o..o + self.es as usize], g, self.at)
        }
    }
}

struct ExtArray {
    at: u64,
    es: u64,
    max_bits: u8,
    idx_elmts: u64,
    min_elmts: u64,
    page_bits: u8,
    max_idx: u64,
    iblk: u64,
    /// (ndblks, dblk_nelmts, start_idx, start_dblk) per super block.
    sblk: Vec<(u64, u64, u64, u64)>,
    iblock_nsblks: u64,
    ndblk_addrs: u64,
}

impl ExtArray {
    fn open(ctx: &Ctx, addr: u64) -> Result<ExtArray> {
        let at = ctx.abs(addr)?;
        let so = ctx.sb.so as u64;
        let sl = ctx.sb.sl as u64;
        let len = 4 + 1 + 1 + 6 + 6 * sl + so + 4;
        let b = ctx.read(addr, len, "extensible array header")?;
        checksum::verify(b, at, "extensible array header")?;
        let mut c = Cur::new(b, at, "extensible array header", ctx.sb.so, ctx.sb.sl);
        c.sig(b"EAHD")?;
        c.skip(2)?;
        let es = c.u8()? as u64;
        let max_bits = c.u8()?;
        let idx_elmts = c.u8()? as u64;
        let min_elmts = c.u8()? as u64;
        let min_ptrs = c.u8()? as u64;
        let page_bits = c.u8()?;
        for _ in 0..4 {
            c.len()?;
        }
        let max_idx = c.len()?;
        c.len()?;
        let iblk = c.addr()?;
        if es < so
            || max_bits > 64
            || !min_elmts.is_power_of_two()
            || !min_ptrs.is_power_of_two()
            || page_bits > 40
        {
            return Err(invalid(at, "extensible array header: bad parameters"));
        }
        let log_min = min_elmts.trailing_zeros() as u64;
        let nsblks = 1 + (max_bits as u64).saturating_sub(log_min);
        let mut sblk = Vec::new();
        let (mut si, mut sd) = (0u64, 0u64);
        for u in 0..nsblks.min(128) {
            let nd = 1u64 << (u / 2);
            let ne = (1u64 << (u.div_ceil(2).min(62))).saturating_mul(min_elmts);
            sblk.push((nd, ne, si, sd));
            si = si.saturating_add(nd.saturating_mul(ne));
            sd = sd.saturating_add(nd);
        }
        let iblock_nsblks = 2 * min_ptrs.trailing_zeros() as u64;
        let ndblk_addrs = 2 * (min_ptrs - 1);
        Ok(ExtArray {
            at,
            es,
            max_bits,
            idx_elmts,
            min_elmts,
            page_bits,
            max_idx,
            iblk,
            sblk,
            iblock_nsblks,
            ndblk_addrs,
        })
    }

    fn get(&self, ctx: &Ctx, i: u64, g: &ChunkGeom) -> Result<Option<(u64, u64, u32)>> {
        if i >= self.max_idx || self.iblk == UNDEF {
            return Ok(None);
        }
        let so = ctx.sb.so as u64;
        let ihead = 4 + 1 + 1 + so;
        if i < self.idx_elmts {
            let b = ctx.read(
                self.iblk.saturating_add(ihead + i * self.es),
                self.es,
                "extensible array index block",
            )?;
            return element(ctx, b, g, self.at);
        }
        let j = i - self.idx_elmts;
        let s = self
            .sblk
            .iter()
            .rposition(|x| x.2 <= j)
            .ok_or_else(|| invalid(self.at, "extensible array: index out of range"))?;
        let (nd, ne, sidx, sdblk) = self.sblk[s];
        let within = j - sidx;
        let d = within / ne;
        if d >= nd {
            return Err(invalid(self.at, "extensible array: index out of range"));
        }
        let e = within % ne;
        let off_size = (self.max_bits as u64).div_ceil(8);
        let page = 1u64 << self.page_bits;
        let paged = ne > page;
        let dblk_addr;
        if (s as u64) < self.iblock_nsblks {
            let k = sdblk + d;
            if k >= self.ndblk_addrs {
                return Err(invalid(
                    self.at,
                    "extensible array: data block index out of range",
                ));
            }
            let b = ctx.read(
                self.iblk
                    .saturating_add(ihead + self.idx_elmts * self.es + k * so),
                so,
                "extensible array index block",
            )?;
            if b.iter().all(|&x| x == 0xff) {
                return Ok(None);
            }
            dblk_addr = le_uint(b);
            if paged {
                return Err(unsupported(
                    self.at,
                    "paged extensible array data block in the index block",
                ));
            }
        } else {
            let k = s as u64 - self.iblock_nsblks;
            let pos = self
                .iblk
                .saturating_add(ihead + self.idx_elmts * self.es + self.ndblk_addrs * so + k * so);
            let b = ctx.read(pos, so, "extensible array index block")?;
            if b.iter().all(|&x| x == 0xff) {
                return Ok(None);
            }
            let sb = le_uint(b);
            let shead = 4 + 1 + 1 + so + off_size;
            let npages = if paged { ne / page } else { 0 };
            let bm = if paged { (nd * npages).div_ceil(8) } else { 0 };
            let b = ctx.read(
                sb.saturating_add(shead + bm + d * so),
                so,
                "extensible array secondary block",
            )?;
            if b.iter().all(|&x| x == 0xff) {
                return Ok(None);
            }
            dblk_addr = le_uint(b);
            if paged {
                let bit = d * npages + e / page;
                let byte = ctx.read(
                    sb.saturating_add(shead + bit / 8),
                    1,
                    "extensible array page bitmap",
                )?[0];
                if byte & (0x80 >> (bit % 8)) == 0 {
                    return Ok(None);
                }
            }
        }
        let dhead = 4 + 1 + 1 + so + off_size;
        let _ = self.min_elmts;
        // Read a whole page / data block at once (one host round trip per block).
        if paged {
            let p = e / page;
            let pstart = dblk_addr.saturating_add(dhead + 4 + p * (page * self.es + 4));
            let pg = ctx.read(
                pstart,
                page * self.es + 4,
                "extensible array data block page",
            )?;
            let o = ((e % page) * self.es) as usize;
            element(ctx, &pg[o..o + self.es as usize], g, self.at)
        } else {
            let blk = ctx.read(
                dblk_addr,
                dhead + ne * self.es + 4,
                "extensible array data block",
            )?;
            let o = (dhead + e * self.es) as usize;
            element(ctx, &blk[o..o + self.es as usize], g, self.at)
        }
    }
}
