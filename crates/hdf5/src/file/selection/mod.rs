//! The selection's bytes: the elements of a hyperslab of a dataset, row-major over its
//! counts, after filters, with the fill value where nothing is stored. Children: `chunked`
//! (chunked layouts), `chunk_copy` (a decoded block into the output), `chunk_cache` (decoded
//! chunks a read covered in part, kept for the next window).

pub(crate) mod chunk_cache;
pub(crate) mod chunk_copy;
pub(crate) mod chunked;

use std::borrow::Cow;

use arrowsmith_core::Result;

use crate::file::ctx::Ctx;
use crate::file::dataset::Dataset;
use crate::file::limits::too_large;
use crate::file::Hdf5File;
use crate::hyperslab::Slab;
use crate::io::{self, invalid, UNDEF};
use crate::layout::Layout;
use chunk_copy::{copy_block, Block};
use chunked::ask_missing;

/// The selection's size in bytes, within the read limit.
pub(crate) fn selection_bytes(ds: &Dataset, sel: &Slab, max: u64) -> Result<u64> {
    let es = ds.dtype.size() as u64;
    let n = sel.elems();
    n.and_then(|n| n.checked_mul(es))
        .filter(|&t| t <= max)
        .ok_or_else(|| {
            let need = n.unwrap_or(u64::MAX).saturating_mul(es);
            let n = n.map_or_else(|| "too many".to_string(), |n| n.to_string());
            too_large(
                ds.at,
                need,
                max,
                &format!("a selection of {n} elements of {es} bytes"),
            )
        })
}

/// The rows `start..start+n` holding `sel` whole: the selection itself when it is whole
/// rows, else the rows from its first to its last selected index in dimension 0 (a
/// scalar: its one element).
pub(crate) fn bounding_rows(sel: &Slab, dims: &[u64]) -> (u64, u64) {
    if dims.is_empty() {
        return (0, sel.elems().unwrap_or(0).min(1));
    }
    sel.row_window(dims).unwrap_or_else(|| {
        let b = sel.bounds(0);
        (b.start, b.end - b.start)
    })
}

/// The bytes of `sel` from the bytes of rows `start..start+n` (from [`bounding_rows`]),
/// `rows` themselves when the selection is those rows.
pub(crate) fn from_rows(
    rows: Vec<u8>,
    (start, n): (u64, u64),
    sel: &Slab,
    dims: &[u64],
    es: usize,
    total: u64,
) -> Result<Vec<u8>> {
    if dims.is_empty() || sel.row_window(dims).is_some() {
        return Ok(rows);
    }
    let mut org = vec![0u64; dims.len()];
    org[0] = start;
    let mut bdims = dims.to_vec();
    bdims[0] = n;
    let mut out = vec![0u8; total as usize];
    let b = Block {
        org: &org,
        dims: &bdims,
        skip: 0,
        data: &rows,
    };
    copy_block(&mut out, &b, sel, es)?;
    arrowsmith_core::recycle::give_back(rows);
    Ok(out)
}

impl Hdf5File {
    /// The selection's element bytes, row-major, after filters, fill applied.
    pub(crate) fn read_raw<'a>(
        &self,
        ctx: &Ctx<'a>,
        ds: &Dataset,
        sel: &Slab,
    ) -> Result<Cow<'a, [u8]>> {
        let es = ds.dtype.size() as u64;
        let dims = &ds.space.dims;
        let total = selection_bytes(ds, sel, self.max_read_bytes)?;
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
        // Whole rows (a scalar: its element) are one span of contiguous or compact data;
        // any other selection reads the span from its first to its last element.
        let span = match bounding_rows(sel, dims) {
            (s, _) if dims.is_empty() || sel.row_window(dims).is_some() => {
                let row: u64 = dims.iter().skip(1).product::<u64>() * es;
                (s.saturating_mul(row), total, None)
            }
            _ => {
                let strides = strides(dims);
                let at = |idx: &dyn Fn(usize) -> u64| {
                    (0..dims.len())
                        .try_fold(0u64, |a, k| idx(k).checked_mul(strides[k])?.checked_add(a))
                };
                let first = at(&|k| sel.start[k]);
                let last = at(&|k| sel.bounds(k).end - 1);
                let (first, len) = first
                    .zip(last)
                    .and_then(|(f, l)| Some((f, (l - f + 1).checked_mul(es)?)))
                    .ok_or_else(|| invalid(ds.at, "dataspace too large"))?;
                (first.saturating_mul(es), len, Some(first))
            }
        };
        // Copy the selection out of `data`: the span's bytes.
        let pick = |data: &[u8], skip: u64| -> Result<Vec<u8>> {
            let mut out = vec![0u8; total as usize];
            let org = vec![0u64; dims.len()];
            let b = Block {
                org: &org,
                dims,
                skip,
                data,
            };
            copy_block(&mut out, &b, sel, es as usize)?;
            Ok(out)
        };
        match &ds.layout {
            Layout::Compact { data, offset } => {
                let (s, len, skip) = span;
                let b = data
                    .as_slice()
                    .get(s as usize..s.saturating_add(len) as usize)
                    .ok_or_else(|| invalid(*offset, "compact data shorter than the dataspace"))?;
                Ok(Cow::Owned(match skip {
                    None => b.to_vec(),
                    Some(k) => pick(b, k)?,
                }))
            }
            Layout::Contiguous { addr, .. } => {
                if *addr == UNDEF {
                    return Ok(Cow::Owned(filled()));
                }
                if let Some(out) = self.contiguous_bands(ctx, ds, *addr, sel, span.1, total)? {
                    return Ok(Cow::Owned(out));
                }
                let (s, len, skip) = span;
                if len > self.max_read_bytes {
                    return Err(too_large(
                        ds.at,
                        len,
                        self.max_read_bytes,
                        "the span of contiguous data a selection reaches",
                    ));
                }
                let b = ctx.read(addr.saturating_add(s), len, "contiguous dataset data")?;
                Ok(match skip {
                    None => Cow::Borrowed(b),
                    Some(k) => Cow::Owned(pick(b, k)?),
                })
            }
            Layout::Chunked {
                dims: cdims,
                index,
                addr,
                ..
            } => {
                let out =
                    self.read_chunked(ctx, ds, (cdims, index, *addr), (sel, total), filled)?;
                Ok(Cow::Owned(out))
            }
            // Assembled from its sources by `read` (virtual_ds), never read here.
            Layout::Virtual { .. } => Err(crate::io::unsupported(ds.at, "virtual dataset")),
        }
    }
}

impl Hdf5File {
    /// A selection of contiguous data read per selected index of the first dimension
    /// ("bands": from the first to the last selected element of that index), when those
    /// together are under half the selection's whole span (`span` bytes): a column of a
    /// big matrix fetches its part of each row, not the matrix. `None`: read the span.
    fn contiguous_bands(
        &self,
        ctx: &Ctx,
        ds: &Dataset,
        addr: u64,
        sel: &Slab,
        span: u64,
        total: u64,
    ) -> Result<Option<Vec<u8>>> {
        let dims = &ds.space.dims;
        if dims.len() < 2 || sel.row_window(dims).is_some() {
            return Ok(None);
        }
        let es = ds.dtype.size() as u64;
        let strides = strides(dims);
        // Element offsets of a band's first and last element within its index's slice
        // (bounded: the whole span's were computed without overflow).
        let first: u64 = (1..dims.len()).map(|k| sel.start[k] * strides[k]).sum();
        let last: u64 = (1..dims.len())
            .map(|k| (sel.bounds(k).end - 1) * strides[k])
            .sum();
        let band = (last - first + 1) * es;
        if sel.count[0].saturating_mul(band).saturating_mul(2) >= span {
            return Ok(None);
        }
        let base = ctx.abs(addr)?;
        let at = |i: u64| -> Option<u64> {
            let i0 = sel.start[0] + i * sel.step[0];
            i0.checked_mul(strides[0])?
                .checked_add(first)?
                .checked_mul(es)?
                .checked_add(base)
        };
        let bands = (0..sel.count[0]).filter_map(|i| Some((at(i)?, band)));
        ask_missing(ctx, bands, self.max_read_bytes)?;
        let mut out = vec![0u8; total as usize];
        let mut org = vec![0u64; dims.len()];
        let mut bdims = dims.to_vec();
        bdims[0] = 1;
        for i in 0..sel.count[0] {
            org[0] = sel.start[0] + i * sel.step[0];
            let a = at(i).ok_or_else(|| invalid(ds.at, "dataspace too large"))?;
            let data = io::read_abs(ctx.src, a, band, "contiguous dataset data")?;
            let b = Block {
                org: &org,
                dims: &bdims,
                skip: first,
                data,
            };
            copy_block(&mut out, &b, sel, es as usize)?;
        }
        Ok(Some(out))
    }
}

/// Row-major element strides of `dims` (the caller has bounded their product).
fn strides(dims: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1].saturating_mul(dims[k + 1]);
    }
    s
}
