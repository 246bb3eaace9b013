//! The selection's bytes: rows `start .. start+nrows` of a dataset, row-major, after
//! filters, with the fill value where nothing is stored.

use std::borrow::Cow;

use arrowsmith_core::Result;

use crate::chunked::Selection;
use crate::ctx::Ctx;
use crate::dataset::Dataset;
use crate::file::Hdf5File;
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
                let sel = Selection {
                    start,
                    nrows,
                    row_bytes,
                    total,
                };
                let out = self.read_chunked(ctx, ds, (cdims, index, *addr), &sel, filled)?;
                Ok(Cow::Owned(out))
            }
            // Assembled from its sources by `read` (virtual_ds), never read here.
            Layout::Virtual { .. } => Err(crate::io::unsupported(ds.at, "virtual dataset")),
        }
    }
}
