//! The selection's bytes: rows `start .. start+nrows` of a dataset, row-major, after
//! filters, with the fill value where nothing is stored.

use std::borrow::Cow;

use arrowsmith_core::{DecodeError, Format, Result};

use crate::btree_v1::ChunkRec;
use crate::chunk_copy::copy_chunk;
use crate::chunk_index::{self, ChunkGeom};
use crate::ctx::Ctx;
use crate::dataset::Dataset;
use crate::file::Hdf5File;
use crate::filters;
use crate::io::{invalid, UNDEF};
use crate::layout::Layout;
use crate::limits::too_large;

impl Hdf5File {
    /// The selection's element bytes, row-major, after filters, fill applied.
    pub(crate) fn read_raw<'a>(
        &self,
        ctx: &Ctx<'a>,
        ds: &Dataset,
        start: u64,
        nrows: u64,
        row_elems: u64,
    ) -> Result<Cow<'a, [u8]>> {
        let es = ds.dtype.size() as u64;
        let row_bytes = row_elems
            .checked_mul(es)
            .ok_or_else(|| invalid(ds.at, "row too large"))?;
        let max = self.max_read_bytes;
        let total = nrows
            .checked_mul(row_bytes)
            .filter(|&t| t <= max)
            .ok_or_else(|| {
                let need = nrows.saturating_mul(row_bytes);
                too_large(
                    ds.at,
                    need,
                    max,
                    &format!("a selection of {nrows} rows of {row_bytes} bytes"),
                )
            })?;
        let filled = || -> Vec<u8> {
            match &ds.fill {
                Some(f) if f.len() as u64 == es && f.iter().any(|&b| b != 0) => {
                    f.repeat((total / es) as usize)
                }
                _ => vec![0u8; total as usize],
            }
        };
        if total == 0 {
            return Ok(Cow::Owned(Vec::new()));
        }
        match &ds.layout {
            Layout::Compact { data, offset } => {
                let s = start.saturating_mul(row_bytes).min(usize::MAX as u64 / 2);
                let b = data
                    .as_slice()
                    .get(s as usize..(s + total) as usize)
                    .ok_or_else(|| invalid(*offset, "compact data shorter than the dataspace"))?;
                Ok(Cow::Owned(b.to_vec()))
            }
            Layout::Contiguous { addr, .. } => {
                if *addr == UNDEF {
                    return Ok(Cow::Owned(filled()));
                }
                Ok(Cow::Borrowed(ctx.read(
                    addr.saturating_add(start.saturating_mul(row_bytes)),
                    total,
                    "contiguous dataset data",
                )?))
            }
            Layout::Chunked {
                dims: cdims,
                index,
                addr,
                ..
            } => {
                let dims = &ds.space.dims;
                if cdims.len() != dims.len() || cdims.contains(&0) {
                    return Err(invalid(ds.at, "chunk rank does not match the dataspace"));
                }
                filters::check_supported(&ds.filters, ds.at)?;
                let g = ChunkGeom {
                    dims,
                    maxdims: &ds.space.maxdims,
                    chunk: cdims,
                    elem_size: es,
                    filtered: !ds.filters.is_empty(),
                };
                let cb = g.chunk_bytes();
                if cb > max {
                    return Err(too_large(ds.at, cb, max, "one chunk"));
                }
                let recs = chunk_index::chunks(ctx, index, *addr, &g, start..start + nrows)?;
                // Ask the host for every missing chunk at once (one coalesced span of
                // neighbouring chunks), not one chunk per round trip.
                let stored_len = |r: &ChunkRec| if ds.filters.is_empty() { cb } else { r.size };
                let mut missing: Vec<(u64, u64)> = recs
                    .iter()
                    .filter_map(|r| {
                        let a = ctx.abs(r.addr).ok()?;
                        let l = stored_len(r);
                        let in_file = a.checked_add(l).is_some_and(|e| e <= ctx.src.size());
                        (in_file && l <= max && ctx.src.get(a, l as usize).is_none())
                            .then_some((a, l))
                    })
                    .collect();
                if !missing.is_empty() {
                    missing.sort_unstable();
                    let (s0, l0) = missing[0];
                    let mut end = s0 + l0;
                    for &(s, l) in &missing[1..] {
                        if s > end.saturating_add(1 << 20) || (s + l - s0) > max {
                            break;
                        }
                        end = end.max(s + l);
                    }
                    return Err(DecodeError::need_bytes(Format::Hdf5, s0, end - s0));
                }
                // Chunks of whole rows (all trailing dimensions) are one run of `out`.
                let whole_rows = cdims[1..] == dims[1..];
                // Filtered chunks of whole rows that tile the selection exactly are all
                // filtered straight into place (below), writing every byte of `out`: then
                // it needs no fill.
                let tiled = !ds.filters.is_empty() && whole_rows && {
                    let mut rows: Vec<u64> = recs
                        .iter()
                        .filter(|r| r.coords[1..].iter().all(|&c| c == 0))
                        .map(|r| r.coords[0])
                        .collect();
                    rows.sort_unstable();
                    rows.len() == recs.len()
                        && rows.len() as u64 * cdims[0] == nrows
                        && rows
                            .iter()
                            .enumerate()
                            .all(|(k, &r)| r == start + k as u64 * cdims[0])
                };
                let mut out = if tiled {
                    arrowsmith_core::recycle::bytes_to_overwrite(total as usize)
                } else {
                    filled()
                };
                for r in recs {
                    let stored = if ds.filters.is_empty() { cb } else { r.size };
                    let raw = ctx.read(r.addr, stored, "chunk")?;
                    let r0 = r.coords[0];
                    let inside = r0 >= start && r0.saturating_add(cdims[0]) <= start + nrows;
                    if !ds.filters.is_empty()
                        && whole_rows
                        && inside
                        && r.coords[1..].iter().all(|&c| c == 0)
                    {
                        // Filter straight into place: (r0 - start + cdims[0]) * row_bytes
                        // <= nrows * row_bytes = out.len(), and cb = cdims[0] * row_bytes.
                        let d = ((r0 - start) * row_bytes) as usize;
                        let dst = &mut out[d..d + cb as usize];
                        let at = ctx.abs(r.addr)?;
                        let n = filters::apply_into(&ds.filters, r.mask, raw, dst, at)?;
                        if (n as u64) < cb {
                            return Err(invalid(
                                at,
                                format!("chunk decodes to {n} bytes, expected {cb}"),
                            ));
                        }
                        continue;
                    }
                    let data: Cow<[u8]> = if ds.filters.is_empty() {
                        Cow::Borrowed(raw)
                    } else {
                        Cow::Owned(filters::apply(
                            &ds.filters,
                            r.mask,
                            raw,
                            cb as usize,
                            ctx.abs(r.addr)?,
                        )?)
                    };
                    if (data.len() as u64) < cb {
                        return Err(invalid(
                            ctx.abs(r.addr)?,
                            format!("chunk decodes to {} bytes, expected {cb}", data.len()),
                        ));
                    }
                    copy_chunk(&mut out, &data, &r, cdims, dims, start, nrows, es as usize)?;
                }
                Ok(Cow::Owned(out))
            }
        }
    }
}
