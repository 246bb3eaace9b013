//! External Data Files message (0x0007, `H5Pset_external`): a contiguous dataset whose raw
//! data lives in other files, as a list of (file name, offset in it, bytes) slots; the
//! names are in a local heap.

use arrowsmith_core::{Batch, ByteSource, Result};

use crate::file::ctx::Ctx;
use crate::file::dataset::Dataset;
use crate::file::read::rows_of;
use crate::file::selection::{bounding_rows, from_rows, selection_bytes};
use crate::file::Hdf5File;
use crate::hyperslab::Window;
use crate::io::{invalid, unsupported, Cur};
use crate::local_heap::LocalHeap;
use crate::object_header::Message;

/// One slot: `size` bytes of the dataset's raw data at `offset` in the file `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalSlot {
    pub name: String,
    pub offset: u64,
    pub size: u64,
}

pub fn parse(ctx: &Ctx, m: &Message) -> Result<Vec<ExternalSlot>> {
    let mut c = Cur::new(
        m.data,
        m.offset,
        "external data files message",
        ctx.sb.so,
        ctx.sb.sl,
    );
    let version = c.u8()?;
    if version != 1 {
        return Err(unsupported(
            m.offset,
            format!("external data files message version {version}"),
        ));
    }
    c.skip(3)?;
    let _allocated = c.u16()?;
    let used = c.u16()? as usize;
    let heap = LocalHeap::open(ctx, c.addr()?)?;
    let mut out = Vec::with_capacity(used.min(c.remaining()));
    for _ in 0..used {
        let name = heap.name(c.len()?)?;
        let offset = c.len()?;
        let size = c.len()?;
        if name.is_empty() {
            return Err(invalid(m.offset, "external data file with an empty name"));
        }
        out.push(ExternalSlot {
            name: String::from_utf8_lossy(name).into_owned(),
            offset,
            size,
        });
    }
    Ok(out)
}

/// The `Unsupported` error of a read through external storage, naming the files.
pub fn refusal(at: u64, slots: &[ExternalSlot]) -> arrowsmith_core::DecodeError {
    let mut names: Vec<&str> = slots.iter().map(|s| s.name.as_str()).collect();
    names.dedup();
    unsupported(
        at,
        format!(
            "external storage (raw data in other files: {}; a resolver reads them)",
            names.join(", ")
        ),
    )
}

/// A slot size of all ones: the slot runs to the end of its file (`H5F_UNLIMITED`).
fn slot_len(s: &ExternalSlot, sl: u8) -> u64 {
    if sl < 8 && s.size == (1u64 << (8 * sl as u32)) - 1 {
        u64::MAX
    } else {
        s.size
    }
}

impl Hdf5File {
    /// For a dataset whose raw data is in other files (`H5Pset_external`): the pieces
    /// `(file name as stored, offset in it, bytes)` whose bytes, in order, are the raw data
    /// of rows `start..start+count`; `None` for any other dataset. A host reads them (a
    /// file shorter than a piece reads as zeros past its end, as libhdf5 does) and hands
    /// the bytes to [`Hdf5File::read_external`].
    pub fn external_ranges(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
    ) -> Result<Option<Vec<(String, u64, u64)>>> {
        self.external_ranges_window(src, path, &Window::Rows { start, count })
    }

    /// [`external_ranges`](Self::external_ranges) of a [`Window`]: for a hyperslab, the
    /// pieces of the rows from its first to its last index in the first dimension.
    pub fn external_ranges_window(
        &self,
        src: &dyn ByteSource,
        path: &str,
        window: &Window,
    ) -> Result<Option<Vec<(String, u64, u64)>>> {
        let ctx = self.ctx(src);
        let addr = self.resolve(&ctx, path, 0)?;
        let (ds, slots) = self.dataset_and_external(&ctx, addr)?;
        let Some(slots) = slots else {
            return Ok(None);
        };
        let sel = self.slab(&ds, path, window)?;
        let (start, nrows) = bounding_rows(&sel, &ds.space.dims);
        let row_bytes = row_bytes(&ds)?;
        let too_big = || invalid(ds.at, format!("{path}: selection too large"));
        let lo = start.checked_mul(row_bytes).ok_or_else(too_big)?;
        let hi = nrows
            .checked_mul(row_bytes)
            .and_then(|n| n.checked_add(lo))
            .ok_or_else(too_big)?;
        // The host allocates the pieces' total: bounded as a read's buffer is.
        if hi - lo > self.max_read_bytes {
            return Err(crate::file::limits::too_large(
                ds.at,
                hi - lo,
                self.max_read_bytes,
                &format!("{path}: external storage"),
            ));
        }
        let mut out = Vec::new();
        let mut at = 0u64; // logical offset where the slot starts
        for s in &slots {
            if at >= hi {
                break;
            }
            let len = slot_len(s, ctx.sb.sl);
            let end = at.saturating_add(len);
            let (a, b) = (lo.max(at), hi.min(end));
            if a < b {
                let off = s.offset.checked_add(a - at).ok_or_else(too_big)?;
                out.push((s.name.clone(), off, b - a));
            }
            at = end;
        }
        if at < hi {
            return Err(invalid(
                ds.at,
                format!("{path}: external storage slots hold {at} bytes, the rows need {hi}"),
            ));
        }
        Ok(Some(out))
    }

    /// Rows `start..start+count` of a dataset with external storage, from `raw`: the bytes
    /// of the pieces [`Hdf5File::external_ranges`] lists, concatenated in order.
    pub fn read_external(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
        raw: &[u8],
    ) -> Result<Batch> {
        self.read_external_window(src, path, &Window::Rows { start, count }, raw)
    }

    /// [`read_external`](Self::read_external) of a [`Window`], from the bytes of the pieces
    /// [`external_ranges_window`](Self::external_ranges_window) lists for it.
    pub fn read_external_window(
        &self,
        src: &dyn ByteSource,
        path: &str,
        window: &Window,
        raw: &[u8],
    ) -> Result<Batch> {
        let ctx = self.ctx(src);
        let addr = self.resolve(&ctx, path, 0)?;
        let (ds, slots) = self.dataset_and_external(&ctx, addr)?;
        if slots.is_none() {
            return Err(invalid(ds.at, format!("{path}: no external storage")));
        }
        let sel = self.slab(&ds, path, window)?;
        let rows = bounding_rows(&sel, &ds.space.dims);
        let nrows = rows.1;
        let row_bytes = row_bytes(&ds)?;
        if nrows.checked_mul(row_bytes) != Some(raw.len() as u64) {
            return Err(invalid(
                ds.at,
                format!(
                    "{path}: {} bytes of external data given, the rows need {}",
                    raw.len(),
                    nrows.saturating_mul(row_bytes)
                ),
            ));
        }
        let total = selection_bytes(&ds, &sel, self.max_read_bytes)?;
        let es = ds.dtype.size();
        let picked = from_rows(raw.to_vec(), rows, &sel, &ds.space.dims, es, total)?;
        let n = sel.elems().unwrap_or(0);
        let (fields, columns) = self.decode_selection(&ctx, &ds, &picked, &sel.shape, n, path)?;
        let mut b = Batch::new(fields, columns);
        b.num_rows = rows_of(&sel.shape) as usize;
        Ok(b)
    }
}

/// The raw bytes of one row (all dimensions but the first).
fn row_bytes(ds: &Dataset) -> Result<u64> {
    ds.space
        .dims
        .iter()
        .skip(1)
        .try_fold(ds.dtype.size() as u64, |a, &d| a.checked_mul(d))
        .ok_or_else(|| invalid(ds.at, "dataspace too large"))
}
