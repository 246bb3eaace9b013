//! The batched variable-length path.
//!
//! For N cells: parse every cell header from the already-decoded raw bytes (one pass, SoA),
//! build Arrow offsets by prefix sum (sizing the values buffer exactly, one allocation),
//! collect the distinct global heap collections, parse each once (cached per read, and
//! requested from the host as coalesced ranges when not loaded), then copy every payload
//! straight into the values buffer. Strings are UTF-8 validated once per column; sequences
//! of primitives are byte-swapped in bulk when big-endian; other bases (compound, nested VL,
//! strings) are decoded once over the gathered payloads.

use std::collections::HashMap;

use arrowsmith_core::{
    Bitmap, Buffer, Column, DataType, DecodeError, ErrorCode, Field, Format, Result,
};

use crate::datatype::Datatype;
use crate::decode::{decode, utf8_or_binary};
use crate::global_heap::{Collection, GcolCache};
use crate::io::{err, invalid, le_uint, UNDEF};
use crate::Ctx;

/// Upper bound on gathered payload bytes per column (Arrow i32 offsets).
const MAX_VALUES: u64 = i32::MAX as u64;

pub struct VlReader<'a, 'c> {
    pub ctx: &'c Ctx<'a>,
    cache: HashMap<u64, Collection<'a>>,
    tables: &'c GcolCache,
    /// Bytes still allowed to be gathered by this read (all VL columns together).
    budget: u64,
}

struct Cells {
    lens: Vec<u32>,
    addrs: Vec<u64>,
    idxs: Vec<u32>,
}

impl<'a, 'c> VlReader<'a, 'c> {
    pub fn new(ctx: &'c Ctx<'a>, tables: &'c GcolCache, max_bytes: u64) -> Self {
        VlReader {
            ctx,
            cache: HashMap::new(),
            tables,
            budget: max_bytes,
        }
    }

    fn cells(&self, bytes: &[u8], n: usize, stride: usize, off: usize) -> Result<Cells> {
        let so = self.ctx.sb.so as usize;
        let cell = 8 + so;
        let mut c = Cells {
            lens: Vec::with_capacity(n),
            addrs: Vec::with_capacity(n),
            idxs: Vec::with_capacity(n),
        };
        if n > 0 && (n - 1) * stride + off + cell > bytes.len() {
            return Err(invalid(0, "variable-length cells past the raw data"));
        }
        for i in 0..n {
            let p = i * stride + off;
            let h = &bytes[p..p + cell];
            c.lens.push(u32::from_le_bytes(h[0..4].try_into().unwrap()));
            let a = &h[4..4 + so];
            // 8-byte offsets: all-ones already reads as UNDEF.
            c.addrs.push(if so == 8 || a.iter().any(|&b| b != 0xff) {
                le_uint(a)
            } else {
                UNDEF
            });
            c.idxs
                .push(u32::from_le_bytes(h[4 + so..8 + so].try_into().unwrap()));
        }
        Ok(c)
    }

    /// Parse every distinct collection the cells point to (each once). When bytes are
    /// missing, ask for one range covering the neighbouring missing collections too.
    fn load(&mut self, cells: &Cells) -> Result<()> {
        // Cells point to few collections in long runs: dedupe runs first, then sort.
        let mut addrs: Vec<u64> = Vec::new();
        let mut prev = 0;
        for &a in &cells.addrs {
            if a != prev && a != 0 && a != UNDEF {
                addrs.push(a);
                prev = a;
            }
        }
        addrs.sort_unstable();
        addrs.dedup();
        for (k, &a) in addrs.iter().enumerate() {
            if self.cache.contains_key(&a) {
                continue;
            }
            match Collection::load(self.ctx, a, self.tables) {
                Ok(c) => {
                    self.cache.insert(a, c);
                }
                Err(e) if e.is_need_bytes() => {
                    let size = self.ctx.src.size();
                    let mut end = e.offset + e.need_len.max(4096);
                    for &b in &addrs[k + 1..] {
                        let ab = self.ctx.abs(b)?;
                        if ab > end + (1 << 20) || ab >= size {
                            break;
                        }
                        match self.ctx.src.get(ab, 16) {
                            // Header unknown: guess a 64 KiB collection.
                            None => end = end.max(ab + 65536),
                            // Header loaded: request the body if it is missing.
                            Some(h) => {
                                let sl = self.ctx.sb.sl as usize;
                                let csize = le_uint(&h[8..8 + sl]).min(u32::MAX as u64);
                                if self.ctx.src.get(ab, csize as usize).is_none() {
                                    end = end.max(ab.saturating_add(csize));
                                }
                            }
                        }
                    }
                    let end = end.min(size);
                    return Err(DecodeError::need_bytes(
                        Format::Hdf5,
                        e.offset,
                        end.saturating_sub(e.offset).max(e.need_len),
                    ));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Element offsets (i32, n+1) and validity (null reference → null), checking the
    /// total payload against the read budget.
    fn offsets(&mut self, cells: &Cells, base: usize) -> Result<(Vec<i32>, Bitmap)> {
        let n = cells.lens.len();
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0i32);
        let mut total: u64 = 0;
        let mut valid = vec![0u8; n.div_ceil(8)];
        for i in 0..n {
            let a = cells.addrs[i];
            let ok = a != 0 && a != UNDEF;
            valid[i / 8] |= (ok as u8) << (i % 8);
            total += if ok { cells.lens[i] as u64 } else { 0 };
            // Wraps only past the limit, and then the offsets are dropped below.
            offsets.push(total as i32);
        }
        // n < 2^60 and lens < 2^32, so `total` itself cannot overflow.
        let limit = MAX_VALUES.min(self.budget);
        if total.saturating_mul(base.max(1) as u64) > limit || total > MAX_VALUES {
            return Err(err(
                0,
                ErrorCode::Unsupported,
                format!("variable-length payloads exceed the read limit ({limit} bytes left)"),
            ));
        }
        self.budget -= total * base as u64;
        Ok((offsets, Bitmap::from_bytes(valid, n)))
    }

    /// Copy every valid cell's payload to `values[offsets[i] * base ..]`, one run of cells
    /// sharing a collection at a time. Cells are visited in increasing offset order, which
    /// [`copy_payload`] relies on.
    fn gather_into(
        &mut self,
        cells: &Cells,
        base: usize,
        offsets: &[i32],
        values: &mut [u8],
    ) -> Result<()> {
        let n = cells.lens.len();
        let mut i = 0;
        while i < n {
            let a = cells.addrs[i];
            let end = i + cells.addrs[i..].iter().take_while(|&&x| x == a).count();
            if a == 0 || a == UNDEF {
                i = end;
                continue;
            }
            let coll = self.cache.get(&a).expect("loaded");
            for k in i..end {
                // Valid cells' totals were bounded by `offsets`, so this cannot overflow.
                let len = cells.lens[k] as usize * base;
                if len == 0 {
                    continue;
                }
                let idx = cells.idxs[k];
                let (from, size) = coll.span(idx).ok_or_else(|| {
                    invalid(
                        coll.at,
                        format!("global heap collection has no object {idx} (cell {k})"),
                    )
                })?;
                if size < len {
                    return Err(invalid(
                        coll.at,
                        format!("global heap object {idx} holds {size} bytes, cell {k} needs {len}"),
                    ));
                }
                copy_payload(values, offsets[k] as usize * base, coll.bytes, from, len);
            }
            i = end;
        }
        Ok(())
    }

    fn gather(&mut self, cells: &Cells, base: usize) -> Result<(Vec<i32>, Vec<u8>, Bitmap)> {
        self.load(cells)?;
        let (offsets, validity) = self.offsets(cells, base)?;
        let mut values = vec![0u8; *offsets.last().unwrap() as usize * base];
        self.gather_into(cells, base, &offsets, &mut values)?;
        Ok((offsets, values, validity))
    }

    /// Little-endian primitive base: gather straight into the typed child buffer.
    fn gather_typed<T: bytemuck::Pod + Default>(
        &mut self,
        cells: &Cells,
        dtype: DataType,
        wrap: fn(Vec<T>) -> Buffer,
    ) -> Result<(Vec<i32>, Column, Bitmap)> {
        let base = std::mem::size_of::<T>();
        self.load(cells)?;
        let (offsets, validity) = self.offsets(cells, base)?;
        let mut values = vec![T::default(); *offsets.last().unwrap() as usize];
        self.gather_into(cells, base, &offsets, bytemuck::cast_slice_mut(&mut values))?;
        Ok((
            offsets,
            Column::primitive(dtype, wrap(values), None),
            validity,
        ))
    }

    pub fn decode_vl(
        &mut self,
        dt: &Datatype,
        bytes: &[u8],
        n: usize,
        stride: usize,
        off: usize,
    ) -> Result<Column> {
        let cells = self.cells(bytes, n, stride, off)?;
        match dt {
            Datatype::VlString { .. } => {
                let (offsets, values, validity) = self.gather(&cells, 1)?;
                Ok(utf8_or_binary(offsets, values, Some(validity)))
            }
            Datatype::VlSequence { base, .. } => {
                let bs = base.size();
                let fast = match **base {
                    Datatype::Int {
                        size: 1,
                        signed: true,
                        ..
                    } => Some(self.gather_typed::<i8>(&cells, DataType::Int8, Buffer::I8)?),
                    Datatype::Int {
                        size: 1,
                        signed: false,
                        ..
                    } => Some(self.gather_typed::<u8>(&cells, DataType::UInt8, Buffer::U8)?),
                    Datatype::Int {
                        size: 2,
                        signed: true,
                        be: false,
                    } => Some(self.gather_typed::<i16>(&cells, DataType::Int16, Buffer::I16)?),
                    Datatype::Int {
                        size: 2,
                        signed: false,
                        be: false,
                    } => Some(self.gather_typed::<u16>(&cells, DataType::UInt16, Buffer::U16)?),
                    Datatype::Int {
                        size: 4,
                        signed: true,
                        be: false,
                    } => Some(self.gather_typed::<i32>(&cells, DataType::Int32, Buffer::I32)?),
                    Datatype::Int {
                        size: 4,
                        signed: false,
                        be: false,
                    } => Some(self.gather_typed::<u32>(&cells, DataType::UInt32, Buffer::U32)?),
                    Datatype::Int {
                        size: 8,
                        signed: true,
                        be: false,
                    } => Some(self.gather_typed::<i64>(&cells, DataType::Int64, Buffer::I64)?),
                    Datatype::Int {
                        size: 8,
                        signed: false,
                        be: false,
                    } => Some(self.gather_typed::<u64>(&cells, DataType::UInt64, Buffer::U64)?),
                    Datatype::Float { size: 4, be: false } => {
                        Some(self.gather_typed::<f32>(&cells, DataType::Float32, Buffer::F32)?)
                    }
                    Datatype::Float { size: 8, be: false } => {
                        Some(self.gather_typed::<f64>(&cells, DataType::Float64, Buffer::F64)?)
                    }
                    _ => None,
                };
                let (offsets, child, validity) = match fast {
                    Some(x) => x,
                    None => {
                        let (offsets, values, validity) = self.gather(&cells, bs)?;
                        let total = *offsets.last().unwrap() as usize;
                        let child = decode(self, base, &values, total, bs, 0)?;
                        (offsets, child, validity)
                    }
                };
                let field = Field::new("item", child.dtype.clone(), true);
                let validity = Some(validity).filter(|v| v.count_zeros() > 0);
                Ok(Column {
                    dtype: DataType::List(Box::new(field)),
                    len: n,
                    validity,
                    buffers: vec![Buffer::I32(offsets)],
                    children: vec![child],
                })
            }
            _ => Err(invalid(0, "decode_vl on a fixed-size type")),
        }
    }
}

/// Copy `src[from..from + len]` to `dst[at..at + len]`. Payloads up to 64 bytes (typical
/// strings) move in 16-byte blocks when both buffers have room past the end: in wasm that
/// beats one `memory.copy` call per cell. The bytes written past `at + len` belong to cells
/// copied later (callers go in increasing `at` order), so they are overwritten before the
/// buffer is used; near either buffer's end the exact copy is taken instead.
#[inline]
fn copy_payload(dst: &mut [u8], at: usize, src: &[u8], from: usize, len: usize) {
    let padded = len.div_ceil(16) * 16;
    if len <= 64 && at + padded <= dst.len() && from + padded <= src.len() {
        let mut o = 0;
        while o < len {
            let block: [u8; 16] = src[from + o..from + o + 16].try_into().unwrap();
            dst[at + o..at + o + 16].copy_from_slice(&block);
            o += 16;
        }
    } else {
        dst[at..at + len].copy_from_slice(&src[from..from + len]);
    }
}
