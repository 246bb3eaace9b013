//! Reads: a row window of a dataset, from its raw selection bytes to Arrow columns.

use std::borrow::Cow;

use arrowsmith_core::{Batch, ByteSource, Column, DecodeError, ErrorCode, Field, Result};

use crate::ctx::Ctx;
use crate::dataset::Dataset;
use crate::datatype::Datatype;
use crate::decode::{decode, fixed_size_lists};
use crate::file::Hdf5File;
use crate::io::{err, invalid};
use crate::layout::Layout;
use crate::schema::column_name;
use crate::virtual_ds::{NoSources, VirtualSources};
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
        self.read_with(src, path, start, count, true)
    }

    pub(crate) fn read_with(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
        use_memo: bool,
    ) -> Result<Batch> {
        self.read_sourced(src, path, start, count, use_memo, &NoSources)
    }

    /// `read_with` whose virtual datasets take sources in other files from `sources`.
    pub(crate) fn read_sourced(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
        use_memo: bool,
        sources: &dyn VirtualSources,
    ) -> Result<Batch> {
        let ctx = self.ctx(src);
        let ds = self.dataset(&ctx, path)?;
        let dims = &ds.space.dims;
        let nrows_total = if ds.space.null {
            0
        } else if dims.is_empty() {
            1
        } else {
            dims[0]
        };
        if start > nrows_total {
            return Err(err(
                ds.at,
                ErrorCode::NotFound,
                format!("{path}: start row {start} past {nrows_total} rows"),
            ));
        }
        let nrows = count.unwrap_or(u64::MAX).min(nrows_total - start);
        let row_elems: u64 = dims
            .iter()
            .skip(1)
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .ok_or_else(|| invalid(ds.at, "dataspace too large"))?;
        let at = ds.at;
        let locate = |mut e: DecodeError| {
            if e.offset == 0 && !e.is_need_bytes() {
                e.offset = at;
                e.message = format!("{path}: {}", e.message);
            }
            e
        };
        let key = (at, start, nrows);
        let raw = match use_memo.then(|| self.memo.take(key)).flatten() {
            Some(v) => Cow::Owned(v),
            None if matches!(ds.layout, Layout::Virtual { .. }) => Cow::Owned(
                self.virtual_raw(&ctx, &ds, start, nrows, sources)
                    .map_err(locate)?,
            ),
            None => self
                .read_raw(&ctx, &ds, start, nrows, row_elems)
                .map_err(locate)?,
        };
        let decoded = self.decode_selection(&ctx, &ds, &raw, nrows, nrows * row_elems, path);
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
                b.num_rows = nrows as usize;
                Ok(b)
            }
        }
    }

    /// Decode `n` elements of raw selection bytes into the fields and columns of a batch.
    pub(crate) fn decode_selection(
        &self,
        ctx: &Ctx,
        ds: &Dataset,
        raw: &[u8],
        nrows: u64,
        n: u64,
        path: &str,
    ) -> Result<(Vec<Field>, Vec<Column>)> {
        let dims = &ds.space.dims;
        let es = ds.dtype.size() as u64;
        let n = n as usize;
        let mut vl = VlReader::new(ctx, &self.gcol, self.max_read_bytes).single_gather(&ds.dtype);
        let trailing: &[u64] = if dims.len() > 1 { &dims[1..] } else { &[] };
        let rows = nrows as usize;
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
