//! Read-only, pure-Rust HDF5 reader whose reason to exist is the batched variable-length
//! path: VL strings and sequences go from cell headers to Arrow buffers with one pass over
//! the headers, one parse per global heap collection and one memcpy per cell.
//!
//! Sans-I/O: every entry point is a pure function of the bytes it reads through a
//! [`ByteSource`]; a `NeedBytes` error asks the host for a range, after which the call is
//! simply repeated. [`Hdf5File::plan`] lists the ranges a read needs so the host can prefetch.

pub mod attribute;
pub mod btree_v1;
pub mod btree_v2;
pub mod checksum;
pub mod chunk_index;
pub mod dataspace;
pub mod datatype;
pub mod decode;
pub mod filters;
pub mod fractal_heap;
pub mod global_heap;
pub mod group;
pub mod io;
pub mod layout;
pub mod local_heap;
pub mod object_header;
pub mod retry_memo;
pub mod superblock;
pub mod vl_cells;
pub mod vlen;

use std::borrow::Cow;
use std::cell::RefCell;

use arrowsmith_core::{Batch, ByteSource, Column, DecodeError, ErrorCode, Field, Format, Result};

use crate::btree_v1::ChunkRec;
use crate::chunk_index::ChunkGeom;
use crate::dataspace::Dataspace;
use crate::datatype::Datatype;
use crate::decode::{decode, fixed_size_lists};
use crate::group::LinkTarget;
use crate::io::{err, invalid, Cur, UNDEF};
use crate::layout::{Filter, Layout};
use crate::object_header::*;
use crate::superblock::Superblock;
use crate::vlen::VlReader;

/// Default for [`Hdf5File::max_read_bytes`].
pub const DEFAULT_MAX_READ_BYTES: u64 = 1 << 30;

/// What a `TooLarge` error advises.
pub(crate) const TOO_LARGE_ADVICE: &str =
    ": read fewer rows (start, count) or in batches, or raise maxReadBytes";

fn too_large(at: u64, need: u64, limit: u64, what: &str) -> DecodeError {
    let mut e = DecodeError::too_large(Format::Hdf5, at, need, limit, what);
    e.message.push_str(TOO_LARGE_ADVICE);
    e
}

/// Read context: the byte source and the superblock (address width, base address).
pub struct Ctx<'a> {
    pub src: &'a dyn ByteSource,
    pub sb: &'a Superblock,
}

impl<'a> Ctx<'a> {
    pub fn abs(&self, addr: u64) -> Result<u64> {
        if addr == UNDEF {
            return Err(invalid(0, "use of the undefined address"));
        }
        addr.checked_add(self.sb.base)
            .ok_or_else(|| invalid(0, format!("address {addr} overflows")))
    }
    pub fn read(&self, addr: u64, len: u64, what: &str) -> Result<&'a [u8]> {
        io::read_abs(self.src, self.abs(addr)?, len, what)
    }
    /// [`Ctx::read`] of bytes used once, right away (see `ByteSource::read_once`).
    pub fn read_once<'s>(
        &self,
        addr: u64,
        len: u64,
        what: &str,
        scratch: &'s mut Vec<u8>,
    ) -> Result<&'s [u8]>
    where
        'a: 's,
    {
        io::read_abs_once(self.src, self.abs(addr)?, len, what, scratch)
    }
    pub fn cur(&self, addr: u64, len: u64, what: &'static str) -> Result<Cur<'a>> {
        let b = self.read(addr, len, what)?;
        Ok(Cur::new(b, self.abs(addr)?, what, self.sb.so, self.sb.sl))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Group,
    Dataset,
    Datatype,
    /// A soft or external link that does not resolve inside this file.
    Link,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub name: String,
    pub kind: EntryKind,
    /// Dataset shape (empty for scalars and non-datasets).
    pub shape: Vec<u64>,
    /// Datatype description (datasets and committed datatypes), e.g. `vlen-str(utf8)`.
    pub dtype: String,
    /// Object header address (file-relative, as object references store it); `u64::MAX`
    /// for unresolved links. Two entries with the same address are the same object.
    pub addr: u64,
    /// Links that do not resolve here: `file:/path` of an external link, the path of a
    /// dangling soft link; empty otherwise.
    pub target: String,
}

/// Where a path leads.
enum Located {
    /// The object header at this address.
    Here(u64),
    /// Through the external link at `via`, to `path` in `file`.
    External {
        via: String,
        file: String,
        path: String,
    },
}

/// An external link's target path followed by the path components after the link.
fn rejoin<'a>(target: String, rest: impl Iterator<Item = &'a str>) -> String {
    rest.fold(target, |mut p, part| {
        if !p.ends_with('/') {
            p.push('/');
        }
        p.push_str(part);
        p
    })
}

#[derive(Debug, Clone, PartialEq)]
pub struct DatasetInfo {
    pub shape: Vec<u64>,
    /// `None` = unlimited.
    pub maxshape: Vec<Option<u64>>,
    pub dtype: String,
    /// Bytes per element on disk (16 for VL cells with 8-byte offsets).
    pub element_size: u64,
    /// "compact" | "contiguous" | "chunked".
    pub layout: String,
    /// Data layout message version (1–5).
    pub layout_version: u8,
    pub chunks: Option<Vec<u64>>,
    /// "btree-v1" | "single-chunk" | "implicit" | "fixed-array" | "extensible-array" | "btree-v2".
    pub chunk_index: Option<String>,
    /// Filter names in pipeline order, e.g. ["shuffle", "deflate"].
    pub filters: Vec<String>,
    /// The Arrow fields `read` returns.
    pub fields: Vec<Field>,
}

/// An open file: the superblock, nothing else (all other state is re-read per call).
#[derive(Debug, Clone)]
pub struct Hdf5File {
    pub superblock: Superblock,
    /// Upper bound on the bytes one `read` may materialise: the raw selection (fill values
    /// of unwritten data are not backed by file bytes), one decoded chunk, and the gathered
    /// VL payloads (many cells may share one heap object). Exceeding it is a
    /// `TooLarge` error naming the bytes needed; read in smaller row windows instead.
    pub max_read_bytes: u64,
    /// Parsed global heap collection tables, shared by every read of this file (bounded;
    /// see [`global_heap::GCOL_CACHE_BYTES`]). [`Hdf5File::clear_cache`] drops them.
    gcol: global_heap::GcolCache,
    /// Decoded chunks of a read that stopped for missing heap bytes (see [`retry_memo`]).
    memo: retry_memo::RetryMemo,
}

struct Dataset {
    layout_version: u8,
    dtype: Datatype,
    space: Dataspace,
    layout: Layout,
    filters: Vec<Filter>,
    fill: Option<Vec<u8>>,
    at: u64,
}

impl Hdf5File {
    pub fn open(src: &dyn ByteSource) -> Result<Hdf5File> {
        Ok(Hdf5File {
            superblock: Superblock::find(src)?,
            max_read_bytes: DEFAULT_MAX_READ_BYTES,
            gcol: Default::default(),
            memo: Default::default(),
        })
    }

    /// Drop cached global heap tables (only needed if the file's bytes could change).
    pub fn clear_cache(&self) {
        self.gcol.clear();
        self.memo.clear();
    }

    fn ctx<'a>(&'a self, src: &'a dyn ByteSource) -> Ctx<'a> {
        Ctx {
            src,
            sb: &self.superblock,
        }
    }

    /// The object `path` names: its header address, or an error naming the external link
    /// it leads through (see [`Hdf5File::external_link`]).
    fn resolve(&self, ctx: &Ctx, path: &str, depth: u32) -> Result<u64> {
        match self.locate(ctx, path, depth)? {
            Located::Here(addr) => Ok(addr),
            Located::External { via, file, path: p } => Err(err(
                0,
                ErrorCode::Unsupported,
                format!("{via}: external link to {file}:{p} (a resolver for {file} follows it)"),
            )),
        }
    }

    /// Walk `path` from the root, following hard and soft links, stopping at the first
    /// external link.
    fn locate(&self, ctx: &Ctx, path: &str, depth: u32) -> Result<Located> {
        if depth > 16 {
            return Err(err(
                0,
                ErrorCode::TooDeep,
                format!("{path}: too many soft links"),
            ));
        }
        let mut addr = self.superblock.root;
        let mut walked = String::new();
        let mut parts = path.split('/').filter(|p| !p.is_empty() && *p != ".");
        while let Some(part) = parts.next() {
            let oh = ObjectHeader::parse(ctx, addr)?;
            let links = group::links(ctx, &oh)?;
            let target = links.into_iter().find(|(n, _)| n == part).map(|(_, t)| t);
            walked.push('/');
            walked.push_str(part);
            addr = match target {
                Some(LinkTarget::Hard(a)) => a,
                Some(LinkTarget::Soft(t)) => {
                    let t = if t.starts_with('/') {
                        t
                    } else {
                        format!("{}/{t}", &walked[..walked.len() - part.len() - 1])
                    };
                    match self.locate(ctx, &t, depth + 1)? {
                        Located::Here(a) => a,
                        Located::External { via, file, path } => {
                            return Ok(Located::External {
                                via,
                                file,
                                path: rejoin(path, parts),
                            })
                        }
                    }
                }
                Some(LinkTarget::External { file, path }) => {
                    return Ok(Located::External {
                        via: walked,
                        file,
                        path: rejoin(path, parts),
                    });
                }
                Some(LinkTarget::UserDefined(t)) => {
                    return Err(err(
                        0,
                        ErrorCode::Unsupported,
                        format!("{walked}: user-defined link type {t}"),
                    ))
                }
                None => {
                    return Err(err(
                        0,
                        ErrorCode::NotFound,
                        format!("{walked}: no such object"),
                    ))
                }
            };
        }
        Ok(Located::Here(addr))
    }

    /// The first external link `path` leads through: the file it names (as stored) and the
    /// path to read there (the link's target joined with the rest of `path`). `None` when
    /// the path stays inside this file.
    pub fn external_link(
        &self,
        src: &dyn ByteSource,
        path: &str,
    ) -> Result<Option<(String, String)>> {
        Ok(match self.locate(&self.ctx(src), path, 0)? {
            Located::Here(_) => None,
            Located::External { file, path, .. } => Some((file, path)),
        })
    }

    /// Members of the group at `path`.
    pub fn list(&self, src: &dyn ByteSource, path: &str) -> Result<Vec<Entry>> {
        let ctx = self.ctx(src);
        let addr = self.resolve(&ctx, path, 0)?;
        let oh = ObjectHeader::parse(&ctx, addr)?;
        let mut out = Vec::new();
        for (name, target) in group::links(&ctx, &oh)? {
            let (addr, target) = match target {
                LinkTarget::Hard(a) => (Some(a), String::new()),
                LinkTarget::Soft(t) => (
                    self.resolve(&ctx, &format!("{}/{name}", path.trim_end_matches('/')), 0)
                        .ok(),
                    t,
                ),
                LinkTarget::External { file, path } => (None, format!("{file}:{path}")),
                LinkTarget::UserDefined(t) => (None, format!("user-defined link type {t}")),
            };
            let Some(addr) = addr else {
                out.push(Entry {
                    name,
                    kind: EntryKind::Link,
                    shape: vec![],
                    dtype: String::new(),
                    addr: UNDEF,
                    target,
                });
                continue;
            };
            let child = ObjectHeader::parse(&ctx, addr)?;
            let entry = if child.find(MSG_LAYOUT).is_some() {
                let ds = self.dataset_at(&ctx, addr)?;
                Entry {
                    name,
                    kind: EntryKind::Dataset,
                    shape: ds.space.dims.clone(),
                    dtype: ds.dtype.describe(),
                    addr,
                    target: String::new(),
                }
            } else if let Some(m) = child.find(MSG_DATATYPE) {
                let dt = attribute::datatype(&ctx, m.data, m.offset, m.flags & 2 != 0)?;
                Entry {
                    name,
                    kind: EntryKind::Datatype,
                    shape: vec![],
                    dtype: dt.describe(),
                    addr,
                    target: String::new(),
                }
            } else {
                Entry {
                    name,
                    kind: EntryKind::Group,
                    shape: vec![],
                    dtype: String::new(),
                    addr,
                    target: String::new(),
                }
            };
            out.push(entry);
        }
        Ok(out)
    }

    /// Attributes of the object at `path`: one column each (rows = first dimension,
    /// one row for scalars; compound → Struct).
    pub fn attrs(&self, src: &dyn ByteSource, path: &str) -> Result<Vec<(String, Column)>> {
        let ctx = self.ctx(src);
        let addr = self.resolve(&ctx, path, 0)?;
        let oh = ObjectHeader::parse(&ctx, addr)?;
        let mut out = Vec::new();
        for a in attribute::attributes(&ctx, &oh)? {
            let n = a.space.num_elements().unwrap_or(0) as usize;
            let mut vl = VlReader::new(&ctx, &self.gcol, self.max_read_bytes);
            let col = decode(&mut vl, &a.dtype, &a.data, n, a.dtype.size(), 0)?;
            let col = if a.space.dims.len() > 1 {
                fixed_size_lists(col, &a.space.dims[1..])
            } else {
                col
            };
            out.push((a.name, col));
        }
        Ok(out)
    }

    fn dataset_at(&self, ctx: &Ctx, addr: u64) -> Result<Dataset> {
        let oh = ObjectHeader::parse(ctx, addr)?;
        let at = ctx.abs(addr)?;
        let m = |k: u16, what: &str| {
            oh.find(k).ok_or_else(|| {
                err(
                    at,
                    ErrorCode::NotFound,
                    format!("object at {at} is not a dataset (no {what} message)"),
                )
            })
        };
        let sm = m(MSG_DATASPACE, "dataspace")?;
        let space = Dataspace::parse(&mut Cur::new(
            sm.data,
            sm.offset,
            "dataspace message",
            ctx.sb.so,
            ctx.sb.sl,
        ))?;
        let tm = m(MSG_DATATYPE, "datatype")?;
        let dtype = attribute::datatype(ctx, tm.data, tm.offset, tm.flags & 2 != 0)?;
        let lm = m(MSG_LAYOUT, "layout")?;
        let layout = Layout::parse(&mut Cur::new(
            lm.data,
            lm.offset,
            "layout message",
            ctx.sb.so,
            ctx.sb.sl,
        ))?;
        let filters = match oh.find(MSG_FILTERS) {
            Some(f) => layout::parse_filters(&mut Cur::new(
                f.data,
                f.offset,
                "filter pipeline message",
                ctx.sb.so,
                ctx.sb.sl,
            ))?,
            None => vec![],
        };
        let fill = match (oh.find(MSG_FILL), oh.find(MSG_FILL_OLD)) {
            (Some(f), _) => layout::parse_fill(
                &mut Cur::new(f.data, f.offset, "fill value message", ctx.sb.so, ctx.sb.sl),
                false,
            )?,
            (None, Some(f)) => layout::parse_fill(
                &mut Cur::new(f.data, f.offset, "fill value message", ctx.sb.so, ctx.sb.sl),
                true,
            )?,
            _ => None,
        };
        if oh.find(MSG_EXTERNAL).is_some() {
            return Err(err(
                at,
                ErrorCode::Unsupported,
                "dataset with external storage",
            ));
        }
        if dtype.size() == 0 {
            return Err(invalid(tm.offset, "datatype of size 0"));
        }
        Ok(Dataset {
            layout_version: lm.data.first().copied().unwrap_or(0),
            dtype,
            space,
            layout,
            filters,
            fill,
            at,
        })
    }

    fn dataset(&self, ctx: &Ctx, path: &str) -> Result<Dataset> {
        let addr = self.resolve(ctx, path, 0)?;
        self.dataset_at(ctx, addr)
    }

    pub fn info(&self, src: &dyn ByteSource, path: &str) -> Result<DatasetInfo> {
        let ctx = self.ctx(src);
        let ds = self.dataset(&ctx, path)?;
        let (chunks, chunk_index) = match &ds.layout {
            Layout::Chunked { dims, index, .. } => {
                (Some(dims.clone()), Some(index.name().to_string()))
            }
            _ => (None, None),
        };
        Ok(DatasetInfo {
            shape: ds.space.dims.clone(),
            maxshape: ds.space.maxdims.clone(),
            dtype: ds.dtype.describe(),
            element_size: ds.dtype.size() as u64,
            layout: ds.layout.name().to_string(),
            layout_version: ds.layout_version,
            chunks,
            chunk_index,
            filters: ds
                .filters
                .iter()
                .map(|f| filters::filter_name(f.id).to_string())
                .collect(),
            fields: arrow_fields(&ds.dtype, &ds.space, path),
        })
    }

    /// Byte ranges (absolute offset, length; sorted, coalesced) that `read` with the same
    /// arguments touches. Ranges whose location depends on bytes not loaded yet are listed
    /// as the next missing range; call again after loading to get the rest.
    pub fn plan(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
    ) -> Result<Vec<(u64, u64)>> {
        let rec = Recorder {
            inner: src,
            log: RefCell::new(Vec::new()),
        };
        // Without the memo: a plan must log every range the read touches.
        let res = self.read_with(&rec, path, start, count, false);
        let mut log = rec.log.into_inner();
        match res {
            Ok(_) => {}
            Err(e) if e.is_need_bytes() => log.push((e.offset, e.need_len)),
            Err(e) => return Err(e),
        }
        Ok(coalesce(log, 64 * 1024))
    }

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

    fn read_with(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
        use_memo: bool,
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
            None => self
                .read_raw(&ctx, &ds, start, nrows, row_elems)
                .map_err(locate)?,
        };
        let decoded = self.decode_selection(&ctx, &ds, &raw, nrows * row_elems, path);
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
    fn decode_selection(
        &self,
        ctx: &Ctx,
        ds: &Dataset,
        raw: &[u8],
        n: u64,
        path: &str,
    ) -> Result<(Vec<Field>, Vec<Column>)> {
        let dims = &ds.space.dims;
        let es = ds.dtype.size() as u64;
        let n = n as usize;
        let mut vl = VlReader::new(ctx, &self.gcol, self.max_read_bytes).single_gather(&ds.dtype);
        let trailing: &[u64] = if dims.len() > 1 { &dims[1..] } else { &[] };
        let name = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or("/");
        Ok(match &ds.dtype {
            Datatype::Compound { members, .. } => {
                let mut f = Vec::new();
                let mut c = Vec::new();
                for m in members {
                    let col = decode(&mut vl, &m.dtype, raw, n, es as usize, m.offset as usize)?;
                    let col = fixed_size_lists(col, trailing);
                    f.push(Field::new(m.name.clone(), col.dtype.clone(), true));
                    c.push(col);
                }
                (f, c)
            }
            dt => {
                let col = fixed_size_lists(decode(&mut vl, dt, raw, n, es as usize, 0)?, trailing);
                (vec![Field::new(name, col.dtype.clone(), true)], vec![col])
            }
        })
    }

    /// The selection's element bytes, row-major, after filters, fill applied.
    fn read_raw<'a>(
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

/// Copy the part of a chunk that falls inside rows `start..start+nrows` into `out`
/// (row-major over `[nrows, dims[1..]]`).
#[allow(clippy::too_many_arguments)]
fn copy_chunk(
    out: &mut [u8],
    chunk: &[u8],
    r: &ChunkRec,
    cdims: &[u64],
    dims: &[u64],
    start: u64,
    nrows: u64,
    es: usize,
) -> Result<()> {
    let rank = dims.len();
    let last = rank - 1;
    // Selected interval per dimension, in dataset coordinates.
    let lo = |k: usize| if k == 0 { start } else { 0 };
    let hi = |k: usize| if k == 0 { start + nrows } else { dims[k] };
    let l0 = r.coords[last].max(lo(last));
    let l1 = r.coords[last].saturating_add(cdims[last]).min(hi(last));
    if l1 <= l0 {
        return Ok(());
    }
    let run = (l1 - l0) as usize * es;
    let mut odims = dims.to_vec();
    odims[0] = nrows;
    let mut c = vec![0u64; rank];
    c[last] = l0 - r.coords[last];
    let bad = || invalid(0, "chunk geometry does not fit the selection");
    loop {
        let mut ok = true;
        let mut src = 0u64;
        let mut dst = 0u64;
        for k in 0..rank {
            let g = r.coords[k].saturating_add(c[k]);
            if g < lo(k) || g >= hi(k) {
                ok = false;
                break;
            }
            src = src * cdims[k] + c[k];
            dst = dst * odims[k] + (g - lo(k));
        }
        if ok {
            let s = usize::try_from(src).map_err(|_| bad())? * es;
            let d = usize::try_from(dst).map_err(|_| bad())? * es;
            let from = chunk.get(s..s + run).ok_or_else(bad)?;
            out.get_mut(d..d + run)
                .ok_or_else(bad)?
                .copy_from_slice(from);
        }
        // Advance the odometer over all dims but the last.
        let mut k = last;
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            c[k] += 1;
            if c[k] < cdims[k] {
                break;
            }
            c[k] = 0;
            if k == 0 {
                return Ok(());
            }
        }
    }
}

/// The Arrow fields `read` returns (types of VL strings are reported as Utf8; a column
/// whose bytes are not valid UTF-8 comes back as Binary).
fn arrow_fields(dt: &Datatype, space: &Dataspace, path: &str) -> Vec<Field> {
    use arrowsmith_core::DataType as D;
    let wrap = |t: D| {
        space.dims.iter().skip(1).rev().fold(t, |t, &d| {
            D::FixedSizeList(Box::new(Field::new("item", t, true)), d as i32)
        })
    };
    match dt {
        Datatype::Compound { members, .. } => members
            .iter()
            .map(|m| Field::new(m.name.clone(), wrap(m.dtype.arrow_type()), true))
            .collect(),
        _ => vec![Field::new(
            path.rsplit('/').find(|s| !s.is_empty()).unwrap_or("/"),
            wrap(dt.arrow_type()),
            true,
        )],
    }
}

struct Recorder<'s> {
    inner: &'s dyn ByteSource,
    log: RefCell<Vec<(u64, u64)>>,
}

impl ByteSource for Recorder<'_> {
    fn size(&self) -> u64 {
        self.inner.size()
    }
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        self.log.borrow_mut().push((offset, len as u64));
        self.inner.get(offset, len)
    }
}

fn coalesce(mut r: Vec<(u64, u64)>, gap: u64) -> Vec<(u64, u64)> {
    r.retain(|&(_, l)| l > 0);
    r.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (o, l) in r {
        if let Some(last) = out.last_mut() {
            let end = last.0 + last.1;
            if o <= end.saturating_add(gap) {
                last.1 = last.1.max(o + l - last.0);
                continue;
            }
        }
        out.push((o, l));
    }
    out
}

/// Every dataset path in the file, sorted. Each group (and dataset) object is visited
/// once, by its first path: hard-link cycles and shared subgroups are not re-walked.
pub fn dataset_paths(file: &Hdf5File, src: &dyn ByteSource) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec!["/".to_string()];
    let mut seen = std::collections::HashSet::new();
    seen.insert(file.superblock.root);
    while let Some(p) = stack.pop() {
        if seen.len() > 1_000_000 {
            return Err(DecodeError::new(
                Format::Hdf5,
                0,
                ErrorCode::TooDeep,
                "too many objects",
            ));
        }
        for e in file.list(src, &p)? {
            let child = if p == "/" {
                format!("/{}", e.name)
            } else {
                format!("{p}/{}", e.name)
            };
            if e.kind != EntryKind::Link && !seen.insert(e.addr) {
                continue;
            }
            match e.kind {
                EntryKind::Group if child.matches('/').count() < 64 => stack.push(child),
                EntryKind::Dataset => out.push(child),
                _ => {}
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Fuzzing / robustness entry: open, list every group recursively, read every dataset and
/// every attribute. Errors are expected on bad input; panics, hangs and unbounded
/// allocation are bugs. Returns the number of datasets read successfully.
#[doc(hidden)]
pub fn exercise(data: &[u8], max_read_bytes: u64) -> usize {
    let src: &dyn ByteSource = &SliceSource(data);
    let Ok(mut f) = Hdf5File::open(src) else {
        return 0;
    };
    f.max_read_bytes = max_read_bytes;
    let Ok(paths) = dataset_paths(&f, src) else {
        return 0;
    };
    let _ = f.attrs(src, "/");
    // The JS package reads in-memory files through a fetch-on-demand HostSource: every
    // dataset read that way must give what the whole-buffer read gives (NaN-safe: as text).
    let kept = arrowsmith_core::RangeCache::new(data.len() as u64);
    let mut arena = arrowsmith_core::Bump::new();
    let mut ok = 0;
    for p in paths.iter().take(256) {
        let _ = f.info(src, p);
        let _ = f.attrs(src, p);
        let whole = f.read(src, p, 0, None);
        arena.reset();
        let fetched = f.read(
            &arrowsmith_core::HostSource::over_slice(&kept, &arena, data),
            p,
            0,
            None,
        );
        assert_eq!(
            format!("{:?}", whole.as_ref().ok()),
            format!("{:?}", fetched.as_ref().ok()),
            "{p}: a HostSource read differs from the whole-buffer read"
        );
        if whole.is_ok() {
            ok += 1;
        }
        let _ = f.read(src, p, 1, Some(2));
    }
    ok
}

/// A borrowed whole-file buffer as a sized [`ByteSource`] (`&[u8]` itself is unsized, so it
/// cannot be passed as `&dyn ByteSource`; this wrapper avoids copying it into a `Vec`).
pub struct SliceSource<'a>(pub &'a [u8]);

impl ByteSource for SliceSource<'_> {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        <[u8] as ByteSource>::get(self.0, offset, len)
    }
}
