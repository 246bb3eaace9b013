//! Virtual datasets (layout class 3): a dataset whose elements are mapped from selections
//! of source datasets, in this file (`.`) or in others, with the fill value where no
//! mapping reaches. A read assembles the raw element bytes of the requested box from each
//! mapping's source box (read by the ordinary dataset reader: any layout, any filter) and
//! decodes them as any dataset's.
//!
//! `mapping.rs` maps a box of the virtual dataset to source boxes (`Geometry::clip`), for
//! row windows today and for N-D hyperslab reads later.

mod mapping;
mod select;

use std::collections::HashMap;

use arrowsmith_core::{Batch, ByteSource, DecodeError, ErrorCode, Result};

use crate::file::ctx::Ctx;
use crate::file::dataset::Dataset;
use crate::file::limits::too_large;
use crate::file::selection::{bounding_rows, from_rows, selection_bytes};
use crate::file::Hdf5File;
use crate::hyperslab::{Slab, Window};
use crate::io::{invalid, unsupported};
use crate::layout::Layout;
pub(crate) use mapping::load as mappings;
use mapping::{dims_of, pos, Geometry, Piece};

/// A source dataset as a virtual dataset's read needs to know it.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceInfo {
    /// The source dataset's shape.
    pub dims: Vec<u64>,
    /// `DatasetInfo::dtype` of the source (must equal the virtual dataset's).
    pub dtype: String,
    /// Bytes per element (`DatasetInfo::element_size`).
    pub element_size: u64,
}

/// Where a virtual dataset's sources in other files come from (file names as the mappings
/// store them, e.g. `scan_0001.h5` or `sub/part.h5`; `.` never reaches here).
pub trait VirtualSources {
    /// The source dataset, or `None` when there is no such file or dataset (libhdf5 then
    /// reads the mapped elements as the fill value; so does this reader).
    fn info(&self, file: &str, dataset: &str) -> Result<Option<SourceInfo>>;
    /// Raw element bytes (row-major, after filters, fill applied) of rows
    /// `start..start+count` of the source, as [`Hdf5File::read_raw_rows`] gives them.
    fn rows(&self, file: &str, dataset: &str, start: u64, count: u64) -> Result<Vec<u8>>;
}

/// No other files: a read that needs one fails `Unsupported`, naming it.
pub struct NoSources;

impl VirtualSources for NoSources {
    fn info(&self, file: &str, dataset: &str) -> Result<Option<SourceInfo>> {
        Err(unsupported(
            0,
            format!("virtual dataset source in another file ({file}:{dataset}); read it with a resolver of source files"),
        ))
    }
    fn rows(&self, file: &str, dataset: &str, _: u64, _: u64) -> Result<Vec<u8>> {
        self.info(file, dataset).map(|_| Vec::new())
    }
}

/// Source files open in memory, by the names mappings store them under (native callers).
#[derive(Default)]
pub struct SourceFiles<'a> {
    files: HashMap<String, (Hdf5File, &'a dyn ByteSource)>,
}

impl<'a> SourceFiles<'a> {
    /// Add the file that mappings name `name`.
    pub fn insert(&mut self, name: &str, src: &'a dyn ByteSource) -> Result<()> {
        self.files
            .insert(name.to_string(), (Hdf5File::open(src)?, src));
        Ok(())
    }
}

impl VirtualSources for SourceFiles<'_> {
    fn info(&self, file: &str, dataset: &str) -> Result<Option<SourceInfo>> {
        match self.files.get(file) {
            Some((f, src)) => match f.source_info(*src, dataset) {
                Ok(i) => Ok(Some(i)),
                // No such dataset there: the fill value, as libhdf5 reads it.
                Err(e) if e.code == ErrorCode::NotFound => Ok(None),
                Err(e) => Err(e),
            },
            None => Ok(None),
        }
    }
    fn rows(&self, file: &str, dataset: &str, start: u64, count: u64) -> Result<Vec<u8>> {
        match self.files.get(file) {
            Some((f, src)) => f.read_raw_rows(*src, dataset, start, count),
            None => Err(invalid(0, format!("no source file {file}"))),
        }
    }
}

/// For the `hdf5` fuzz target: parse `body` as the mappings of a virtual dataset (a heap
/// object without its checksum, 8-byte lengths) and clip each mapping's geometry to a box
/// of a large dataspace; the number of mappings that map anything.
#[doc(hidden)]
pub fn fuzz_mappings(body: &[u8]) -> Result<usize> {
    let maps = mapping::parse_body(body, 0, 8)?;
    let mut n = 0;
    for m in &maps {
        let rank = |s: &select::Selection| match s {
            select::Selection::Regular(d) => d.len(),
            _ => 3,
        };
        let vdims = vec![1u64 << 40; rank(&m.virt)];
        let sdims = vec![1u64 << 40; rank(&m.source)];
        let (Ok(Some(v)), Ok(Some(s))) = (dims_of(&m.virt, &vdims), dims_of(&m.source, &sdims))
        else {
            continue;
        };
        let lo = vec![0u64; vdims.len()];
        if let Some(p) = Geometry::new(v, s)
            .ok()
            .and_then(|g| g.clip(&lo, &vdims).map(|p| (p.source_box(&g), g)))
        {
            n += usize::from(!p.0.is_empty());
        }
    }
    Ok(n)
}

/// A source dataset name as libhdf5 opens it (from the root group).
/// The `Unsupported` error for mapping `i` of the VDS at `at`, naming what it asks for.
fn refuse_mapping(at: u64, i: usize, m: &mapping::Mapping, what: &str) -> DecodeError {
    unsupported(
        at,
        format!(
            "virtual dataset mapping {i} ({}:{}): {what}",
            m.file, m.dataset
        ),
    )
}

fn absolute(name: &str) -> String {
    if name.starts_with('/') {
        name.to_string()
    } else {
        format!("/{name}")
    }
}

/// Elements per row (the product of all but the first dimension).
fn row_elems(dims: &[u64], at: u64) -> Result<u64> {
    dims.iter()
        .skip(1)
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .ok_or_else(|| invalid(at, "dataspace too large"))
}

impl Hdf5File {
    /// Rows `start..start+count` of a virtual dataset whose sources in other files come
    /// from `sources` (`read` is this with [`NoSources`]).
    pub fn read_virtual(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
        sources: &dyn VirtualSources,
    ) -> Result<Batch> {
        let w = Window::Rows { start, count };
        self.read_sourced(src, path, &w, false, sources)
    }

    /// [`read_virtual`](Self::read_virtual) of a [`Window`]: rows or a hyperslab.
    pub fn read_virtual_window(
        &self,
        src: &dyn ByteSource,
        path: &str,
        window: &Window,
        sources: &dyn VirtualSources,
    ) -> Result<Batch> {
        self.read_sourced(src, path, window, false, sources)
    }

    /// The `(file, dataset)` each mapping of the virtual dataset at `path` reads, in order
    /// (`.` for this file); empty for any other dataset.
    pub fn virtual_sources(
        &self,
        src: &dyn ByteSource,
        path: &str,
    ) -> Result<Vec<(String, String)>> {
        let ctx = self.ctx(src);
        let ds = self.dataset(&ctx, path)?;
        let Layout::Virtual { heap, index } = ds.layout else {
            return Ok(Vec::new());
        };
        Ok(mapping::load(&ctx, &self.gcol, heap, index)?
            .into_iter()
            .map(|m| (m.file, m.dataset))
            .collect())
    }

    /// A dataset as the source of a virtual dataset: its dimensions and type.
    pub fn source_info(&self, src: &dyn ByteSource, path: &str) -> Result<SourceInfo> {
        let ctx = self.ctx(src);
        let ds = self.dataset(&ctx, &absolute(path))?;
        Ok(info_of(&ds))
    }

    /// Raw element bytes of rows `start..start+count` of a dataset (row-major, after
    /// filters, fill applied): what a virtual dataset in another file needs of it.
    pub fn read_raw_rows(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: u64,
    ) -> Result<Vec<u8>> {
        let ctx = self.ctx(src);
        let ds = self.dataset(&ctx, &absolute(path))?;
        self.source_rows(&ctx, &ds, start, count)
    }

    fn source_rows(&self, ctx: &Ctx, ds: &Dataset, start: u64, count: u64) -> Result<Vec<u8>> {
        if matches!(ds.layout, Layout::Virtual { .. }) {
            return Err(unsupported(
                ds.at,
                "a virtual dataset as the source of a virtual dataset",
            ));
        }
        let total = if ds.space.null {
            0
        } else if ds.space.dims.is_empty() {
            1
        } else {
            ds.space.dims[0]
        };
        if start.checked_add(count).is_none_or(|e| e > total) {
            return Err(invalid(
                ds.at,
                format!("source rows {start}+{count} past {total} rows"),
            ));
        }
        let sel = Slab::rows(start, count, &ds.space.dims);
        Ok(self.read_raw(ctx, ds, &sel)?.into_owned())
    }

    /// The raw selection bytes of `sel` in the virtual dataset `ds`: its bounding rows,
    /// assembled from the sources, then the selection copied out of them.
    pub(crate) fn virtual_select(
        &self,
        ctx: &Ctx,
        ds: &Dataset,
        sel: &Slab,
        sources: &dyn VirtualSources,
    ) -> Result<Vec<u8>> {
        let dims = &ds.space.dims;
        let total = selection_bytes(ds, sel, self.max_read_bytes)?;
        if total == 0 {
            return Ok(Vec::new());
        }
        let rows = bounding_rows(sel, dims);
        let raw = self.virtual_raw(ctx, ds, rows.0, rows.1, sources)?;
        from_rows(raw, rows, sel, dims, ds.dtype.size(), total)
    }

    /// The raw selection bytes of rows `start..start+nrows` of the virtual dataset `ds`.
    pub(crate) fn virtual_raw(
        &self,
        ctx: &Ctx,
        ds: &Dataset,
        start: u64,
        nrows: u64,
        sources: &dyn VirtualSources,
    ) -> Result<Vec<u8>> {
        let &Layout::Virtual { heap, index } = &ds.layout else {
            return Err(invalid(ds.at, "not a virtual dataset"));
        };
        let at = ds.at;
        if ds.dtype.is_vl() {
            return Err(unsupported(
                at,
                "a virtual dataset of a variable-length type",
            ));
        }
        let dims = &ds.space.dims;
        if dims.is_empty() || ds.space.null {
            return Err(unsupported(at, "a virtual dataset without dimensions"));
        }
        let es = ds.dtype.size() as u64;
        let row_bytes = row_elems(dims, at)?
            .checked_mul(es)
            .ok_or_else(|| invalid(at, "row too large"))?;
        let max = self.max_read_bytes;
        let total = nrows
            .checked_mul(row_bytes)
            .filter(|&t| t <= max)
            .ok_or_else(|| {
                too_large(
                    at,
                    nrows.saturating_mul(row_bytes),
                    max,
                    &format!("a selection of {nrows} rows of {row_bytes} bytes"),
                )
            })?;
        let mut out = match &ds.fill {
            Some(f) if f.len() as u64 == es && f.iter().any(|&b| b != 0) => {
                f.repeat((total / es) as usize)
            }
            _ => vec![0u8; total as usize],
        };
        if total == 0 {
            return Ok(out);
        }
        let lo: Vec<u64> = std::iter::once(start)
            .chain(dims[1..].iter().map(|_| 0))
            .collect();
        let hi: Vec<u64> = std::iter::once(start + nrows)
            .chain(dims[1..].iter().copied())
            .collect();
        let want = ds.dtype.describe();
        // Errors of other files' sources are kept until every mapping has asked, so a host
        // that serves them learns all it must fetch in one pass.
        let mut pending: Option<DecodeError> = None;
        let mut spent = 0u64;
        let mut maps = Vec::new();
        for (i, m) in mapping::load(ctx, &self.gcol, heap, index)?
            .into_iter()
            .enumerate()
        {
            if !(m.file.contains('%') || m.dataset.contains('%')) {
                maps.push((i, m));
                continue;
            }
            let refuse = |what: &str| refuse_mapping(at, i, &m, what);
            let (list, past) =
                mapping::expand_printf(&m, dims, &lo, &hi).map_err(|w| refuse(&w))?;
            if let Some((file, dataset)) = past {
                let exists = if file == "." {
                    match self.dataset(ctx, &absolute(&dataset)) {
                        Ok(_) => true,
                        Err(e) if e.code == ErrorCode::NotFound => false,
                        Err(e) => return Err(e),
                    }
                } else {
                    match sources.info(&file, &absolute(&dataset)) {
                        Ok(x) => x.is_some(),
                        Err(e) => {
                            pending.get_or_insert(e);
                            false
                        }
                    }
                };
                if exists {
                    return Err(refuse(&format!(
                        "a printf-style (%b) mapping whose sources grew past the extent stored for the virtual dataset ({file}:{dataset} exists; libhdf5 recomputes it)"
                    )));
                }
            }
            maps.extend(list.into_iter().map(|m| (i, m)));
        }
        for (i, m) in maps {
            let refuse = |what: &str| refuse_mapping(at, i, &m, what);
            // An unlimited mapping is as long as its source is now: resolved once its
            // source's extent is known; any other is checked against the box first.
            let unlimited = mapping::is_unlimited(&m.virt);
            if !unlimited {
                let Some(vd) = dims_of(&m.virt, dims).map_err(|w| refuse(&w))? else {
                    continue;
                };
                if !vd
                    .iter()
                    .enumerate()
                    .all(|(d, x)| mapping::touches(x, lo[d], hi[d]))
                {
                    continue;
                }
            }
            let own = m.file == ".";
            let dataset = absolute(&m.dataset);
            let (info, own_ds) = if own {
                match self.dataset(ctx, &dataset) {
                    Ok(sds) => (info_of(&sds), Some(sds)),
                    // No such dataset: the fill value, as libhdf5 reads it.
                    Err(e) if e.code == ErrorCode::NotFound => continue,
                    Err(e) => return Err(e),
                }
            } else {
                match sources.info(&m.file, &dataset) {
                    Ok(Some(info)) => (info, None),
                    Ok(None) => continue, // no such file: the fill value, as libhdf5 reads it
                    Err(e) => {
                        pending.get_or_insert(e);
                        continue;
                    }
                }
            };
            if info.dtype != want || info.element_size != es {
                return Err(refuse(&format!(
                    "a source of type {} for a dataset of type {want} (type conversion)",
                    info.dtype
                )));
            }
            let (virt, source) = if unlimited {
                mapping::resolve_unlimited(&m.virt, &m.source, &info.dims)
                    .map_err(|w| refuse(&w))?
            } else {
                (m.virt.clone(), m.source.clone())
            };
            let vd = dims_of(&virt, dims).map_err(|w| {
                refuse(&if unlimited {
                    format!("{w}: its source grew past the extent stored for the virtual dataset (libhdf5 recomputes it)")
                } else {
                    w
                })
            })?;
            let Some(vd) = vd else {
                continue;
            };
            let sd = match dims_of(&source, &info.dims).map_err(|w| refuse(&w))? {
                Some(sd) => sd,
                None => continue,
            };
            let geom = Geometry::new(vd, sd).map_err(|w| refuse(&w))?;
            let Some(piece) = geom.clip(&lo, &hi) else {
                continue;
            };
            let sbox = piece.source_box(&geom);
            let (a, b) = sbox.first().copied().unwrap_or((0, 1));
            let mut sdims = info.dims.clone();
            if let Some(d0) = sdims.first_mut() {
                *d0 = b - a;
            }
            let need = sdims.iter().try_fold(es, |x, &d| x.checked_mul(d));
            // The source rows of all mappings together stay within the read's limit (many
            // mappings over large sources would otherwise each be read in full).
            spent = spent.saturating_add(need.unwrap_or(u64::MAX));
            if spent > max {
                return Err(too_large(
                    at,
                    spent,
                    max,
                    "the source rows of a virtual dataset's mappings",
                ));
            }
            let raw = match &own_ds {
                Some(sds) => self.source_rows(ctx, sds, a, b - a)?,
                None => match sources.rows(&m.file, &dataset, a, b - a) {
                    Ok(r) => r,
                    Err(e) => {
                        pending.get_or_insert(e);
                        continue;
                    }
                },
            };
            if need != Some(raw.len() as u64) {
                return Err(invalid(
                    at,
                    format!(
                        "virtual dataset mapping {i}: source rows of {} bytes, expected {need:?}",
                        raw.len()
                    ),
                ));
            }
            let mut slo = vec![0u64; sdims.len()];
            if let Some(s0) = slo.first_mut() {
                *s0 = a;
            }
            let oshape: Vec<u64> = lo.iter().zip(&hi).map(|(l, h)| h - l).collect();
            let job = PieceCopy {
                g: &geom,
                p: &piece,
                ost: strides(&oshape),
                lo: &lo,
                sst: strides(&sdims),
                slo: &slo,
                es: es as usize,
            };
            job.run(&mut out, &raw).map_err(|_| {
                invalid(
                    at,
                    format!("virtual dataset mapping {i}: a piece outside its buffers"),
                )
            })?;
        }
        match pending {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

fn info_of(ds: &Dataset) -> SourceInfo {
    SourceInfo {
        dims: if ds.space.null {
            vec![0]
        } else {
            ds.space.dims.clone()
        },
        dtype: ds.dtype.describe(),
        element_size: ds.dtype.size() as u64,
    }
}

/// Row-major strides (in elements) of a box of `shape`.
fn strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1].saturating_mul(shape[d + 1]);
    }
    s
}

/// One piece's copy from a source box's bytes into the output box's.
struct PieceCopy<'a> {
    g: &'a Geometry,
    p: &'a Piece,
    ost: Vec<u64>,
    lo: &'a [u64],
    sst: Vec<u64>,
    slo: &'a [u64],
    es: usize,
}

impl PieceCopy<'_> {
    fn run(&self, out: &mut [u8], src: &[u8]) -> std::result::Result<(), ()> {
        let mut kv: Vec<u64> = self.p.virt.iter().map(|r| r.start).collect();
        let mut ks: Vec<u64> = self.p.source.iter().map(|r| r.start).collect();
        self.rec(0, &mut kv, &mut ks, out, src)
    }

    /// Element offsets of the current indexes in the output and the source.
    fn offsets(&self, kv: &[u64], ks: &[u64]) -> (u64, u64) {
        let o = kv
            .iter()
            .enumerate()
            .map(|(d, &k)| (pos(&self.g.virt[d], k) - self.lo[d]) * self.ost[d])
            .sum();
        let s = ks
            .iter()
            .enumerate()
            .map(|(e, &k)| (pos(&self.g.source[e], k) - self.slo[e]) * self.sst[e])
            .sum();
        (o, s)
    }

    fn put(
        &self,
        out: &mut [u8],
        src: &[u8],
        o: u64,
        s: u64,
        n: u64,
    ) -> std::result::Result<(), ()> {
        let es = self.es as u64;
        let (o, s, n) = (o * es, s * es, n * es);
        let to = out.get_mut(o as usize..(o + n) as usize).ok_or(())?;
        to.copy_from_slice(src.get(s as usize..(s + n) as usize).ok_or(())?);
        Ok(())
    }

    fn rec(
        &self,
        i: usize,
        kv: &mut [u64],
        ks: &mut [u64],
        out: &mut [u8],
        src: &[u8],
    ) -> std::result::Result<(), ()> {
        let pairs = &self.g.pairs;
        if i == pairs.len() {
            let (o, s) = self.offsets(kv, ks);
            return self.put(out, src, o, s, 1);
        }
        let (a, b) = pairs[i];
        let r = self.p.virt[a].clone();
        if i + 1 == pairs.len() && self.ost[a] == 1 && self.sst[b] == 1 {
            // Innermost and contiguous on both sides: runs as long as both blocks allow.
            let (bv, bs) = (self.g.virt[a].block, self.g.source[b].block);
            let mut k = r.start;
            while k < r.end {
                let run = (bv - k % bv).min(bs - k % bs).min(r.end - k);
                kv[a] = k;
                ks[b] = k;
                let (o, s) = self.offsets(kv, ks);
                self.put(out, src, o, s, run)?;
                k += run;
            }
            return Ok(());
        }
        for k in r {
            kv[a] = k;
            ks[b] = k;
            self.rec(i + 1, kv, ks, out, src)?;
        }
        Ok(())
    }
}
