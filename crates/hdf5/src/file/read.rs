//! Reads: a row window or hyperslab of a dataset, from its raw selection bytes to Arrow
//! columns.

use std::borrow::Cow;

use arrowsmith_core::{Batch, ByteSource, Column, DecodeError, ErrorCode, Field, Result};

use crate::datatype::Datatype;
use crate::decode::{decode, fixed_size_lists};
use crate::file::ctx::Ctx;
use crate::file::dataset::Dataset;
use crate::file::schema::column_name;
use crate::file::virtual_ds::{NoSources, VirtualSources};
use crate::file::Hdf5File;
use crate::hyperslab::{Select, Slab, Window};
use crate::io::err;
use crate::layout::Layout;
use crate::vlen::VlReader;

impl Hdf5File {
    /// Rows `start .. start+count` (first dimension; all remaining rows when `count` is
    /// `None`). Compound → one column per member; otherwise one column named after the
    /// dataset; trailing dimensions → (nested) FixedSizeList.
    pub fn read(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
    ) -> Result<Batch> {
        self.read_window(src, path, &Window::Rows { start, count })
    }

    /// A hyperslab, one [`Select`] per dimension (h5py's `ds[10:20, ::2, 5]`): an index
    /// drops its dimension, a range keeps it. The batch is the result shape's (see
    /// [`result_shape`](crate::result_shape)) as [`read`](Self::read) maps a dataset of
    /// that shape: rows along the first kept dimension, FixedSizeList per later one; no
    /// dimension kept → one row. A selection that does not fit the dataspace fails
    /// [`ErrorCode::Argument`].
    pub fn read_select(
        &self,
        src: &dyn ByteSource,
        path: &str,
        select: &[Select],
    ) -> Result<Batch> {
        self.read_window(src, path, &Window::Select(select.to_vec()))
    }

    /// [`read`](Self::read) or [`read_select`](Self::read_select), as `window` says.
    pub fn read_window(&self, src: &dyn ByteSource, path: &str, window: &Window) -> Result<Batch> {
        self.read_sourced(src, path, window, true, &NoSources)
    }

    /// The checked hyperslab `window` covers in `ds`.
    pub(crate) fn slab(&self, ds: &Dataset, path: &str, window: &Window) -> Result<Slab> {
        let dims = &ds.space.dims;
        match window {
            Window::Rows { start, count } => {
                let nrows_total = if ds.space.null {
                    0
                } else if dims.is_empty() {
                    1
                } else {
                    dims[0]
                };
                if *start > nrows_total {
                    return Err(err(
                        ds.at,
                        ErrorCode::NotFound,
                        format!("{path}: start row {start} past {nrows_total} rows"),
                    ));
                }
                let nrows = count.unwrap_or(u64::MAX).min(nrows_total - start);
                Ok(Slab::rows(*start, nrows, dims))
            }
            // A null dataspace holds nothing: only the empty selection fits it.
            Window::Select(sel) if ds.space.null && sel.is_empty() => Ok(Slab::rows(0, 0, dims)),
            // The request is wrong, not a byte of the file: no offset.
            Window::Select(sel) => Slab::select(sel, dims).map_err(|mut e| {
                e.message = format!("{path}: {}", e.message);
                e
            }),
        }
    }

    /// `read_window` whose virtual datasets take sources in other files from `sources`.
    pub(crate) fn read_sourced(
        &self,
        src: &dyn ByteSource,
        path: &str,
        window: &Window,
        use_memo: bool,
        sources: &dyn VirtualSources,
    ) -> Result<Batch> {
        let ctx = self.ctx(src);
        let ds = self.dataset(&ctx, path)?;
        let sel = self.slab(&ds, path, window)?;
        let at = ds.at;
        let locate = |mut e: DecodeError| {
            if e.offset == 0 && !e.is_need_bytes() {
                e.offset = at;
                e.message = format!("{path}: {}", e.message);
            }
            e
        };
        let key = (at, sel.clone());
        let raw = match use_memo.then(|| self.memo.take(key.clone())).flatten() {
            Some(v) => Cow::Owned(v),
            None if matches!(ds.layout, Layout::Virtual { .. }) => Cow::Owned(
                self.virtual_select(&ctx, &ds, &sel, sources)
                    .map_err(locate)?,
            ),
            None => self.read_raw(&ctx, &ds, &sel).map_err(locate)?,
        };
        let n = sel.elems().unwrap_or(0);
        let decoded = self.decode_selection(&ctx, &ds, &raw, &sel.shape, n, path);
        match decoded {
            Err(e) if e.is_need_bytes() && use_memo => {
                if let Cow::Owned(v) = raw {
                    self.memo.keep(key, v);
                }
                Err(e)
            }
            Err(e) => Err(locate(e)),
            Ok((fields, columns)) => {
                if let Cow::Owned(v) = raw {
                    arrowsmith_core::recycle::give_back(v);
                }
                let mut b = Batch::new(fields, columns);
                b.num_rows = rows_of(&sel.shape) as usize;
                Ok(b)
            }
        }
    }

    /// Decode `n` elements of raw selection bytes of the result shape `shape` into the
    /// fields and columns of a batch (rows along `shape[0]`, FixedSizeList per later one).
    pub(crate) fn decode_selection(
        &self,
        ctx: &Ctx,
        ds: &Dataset,
        raw: &[u8],
        shape: &[u64],
        n: u64,
        path: &str,
    ) -> Result<(Vec<Field>, Vec<Column>)> {
        let es = ds.dtype.size() as u64;
        let n = n as usize;
        let mut vl = VlReader::new(ctx, &self.gcol, self.max_read_bytes).single_gather(&ds.dtype);
        let trailing: &[u64] = if shape.len() > 1 { &shape[1..] } else { &[] };
        let rows = rows_of(shape) as usize;
        let name = column_name(path);
        Ok(match &ds.dtype {
            Datatype::Compound { members, .. } => {
                let mut f = Vec::new();
                let mut c = Vec::new();
                for m in members {
                    let col = decode(&mut vl, &m.dtype, raw, n, es as usize, m.offset as usize)?;
                    let col = fixed_size_lists(col, trailing, rows);
                    f.push(Field::new(m.name.clone(), col.dtype.clone(), true));
                    c.push(col);
                }
                (f, c)
            }
            dt => {
                let col =
                    fixed_size_lists(decode(&mut vl, dt, raw, n, es as usize, 0)?, trailing, rows);
                (vec![Field::new(name, col.dtype.clone(), true)], vec![col])
            }
        })
    }
}

/// Rows of a result of `shape`: its first dimension; one for a scalar result.
pub(crate) fn rows_of(shape: &[u64]) -> u64 {
    shape.first().copied().unwrap_or(1)
}
