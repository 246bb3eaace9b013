//! Queries: device selection, chunk/page pruning, batch decoding into an Arrow batch.

use std::collections::HashMap;
use std::sync::Arc;

use crate::builder::{arrow_type, date_to_days, popcount_prefix, ColBuilder};
use crate::bytes::err;
use crate::chunk::{read_chunk_header, ChunkHeader, PageHeader, PageWalker};
use crate::compress::decompress;
use crate::encoding::{decode_page, decode_page_prefix, decode_values, Values};
use crate::file::{DeviceEntry, TsFile};
use crate::meta::{ChunkMeta, SeriesMeta, Stats, TableSchema};
use crate::mods::{deleted, Mods};
use crate::types::{Compression, Encoding, TsType};
use arrowsmith_core::{
    Batch, Bitmap, Buffer, ByteSource, Column, DataType, DecodeError, ErrorCode, Field, Result,
    TimeUnit,
};

/// What to read. Every filter is optional; `None` means "everything".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// Table (v4 table model). `None`: the file's first table, or the tree model when the
    /// file has no table schemas.
    pub table: Option<String>,
    /// Device paths (`DeviceInfo::path`) to read.
    pub devices: Option<Vec<String>>,
    /// Output columns besides `time` (tag, field or measurement names), in this order.
    pub columns: Option<Vec<String>>,
    /// Inclusive time range, in the file's raw time unit.
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// Tag equality filters (table model), all must hold.
    pub tags: Vec<(String, String)>,
    /// At most this many rows.
    pub limit: Option<usize>,
    /// Memory this read may take (output rows and page buffers); `None`:
    /// [`DEFAULT_MAX_READ_BYTES`]. A read that needs more fails with `TooLarge`.
    pub max_read_bytes: Option<u64>,
    /// IoTDB deletions (`.mods2` / `.mods`) to hide from the read; `None`: the file as written.
    pub mods: Option<Arc<Mods>>,
}

/// Default for [`Query::max_read_bytes`] (the HDF5 reader's default too).
pub const DEFAULT_MAX_READ_BYTES: u64 = 1 << 30;

enum OutKind {
    /// Tag column `k` of the table (device segment k+1).
    Tag(usize),
    /// The device path (tree model).
    Device,
    Field(TsType),
}

struct OutCol {
    name: String,
    kind: OutKind,
}

struct Plan<'a> {
    table: Option<&'a TableSchema>,
    devices: Vec<&'a DeviceEntry>,
    cols: Vec<OutCol>,
    start: i64,
    end: i64,
}

/// Reused buffers for page decoding, and the read's memory budget.
#[derive(Default)]
struct Scratch {
    /// A compressed page body (a host source copies each into it, see `read_body`).
    body: Vec<u8>,
    page: Vec<u8>,
    times: Vec<i64>,
    budget: Budget,
}

/// Bytes a read has committed to (rows it will output, at their width), against its limit:
/// checked before each page is decompressed and decoded, from the page's own claims
/// (uncompressed size, statistics count), so a read over the limit fails before it allocates.
#[derive(Default)]
struct Budget {
    used: u64,
    max: u64,
    /// Output bytes per row (time and field columns, 8 bytes each).
    row_bytes: u64,
}

impl Budget {
    fn new(max: u64, row_bytes: usize) -> Self {
        Budget {
            used: 0,
            max,
            row_bytes: row_bytes as u64,
        }
    }

    /// A page of `uncompressed` bytes about to be decompressed, adding up to `rows` rows of
    /// `width` bytes to the output (`None`: whole output rows).
    fn page(&mut self, p: &PageHeader, rows: usize, width: Option<u64>) -> Result<()> {
        let out = (rows as u64).saturating_mul(width.unwrap_or(self.row_bytes));
        let need = self.used.saturating_add(out);
        if p.uncompressed as u64 > self.max || need > self.max {
            let (need, what) = if p.uncompressed as u64 > self.max {
                (p.uncompressed as u64, format!("page at byte {}", p.offset))
            } else {
                (need, "this read".to_string())
            };
            let mut e = DecodeError::too_large(
                arrowsmith_core::Format::TsFile,
                p.offset,
                need,
                self.max,
                &what,
            );
            e.message.push_str(": read fewer devices or columns, a shorter time range or in batches, or raise maxReadBytes");
            return Err(e);
        }
        self.used = need;
        Ok(())
    }
}

impl TsFile {
    pub(crate) fn flavor(&self) -> crate::encoding::Flavor {
        // The C++ writer stores the `encryptKey` property as null, Java as "".
        let cpp = self
            .properties
            .iter()
            .any(|(k, v)| k == "encryptKey" && v.is_none());
        crate::encoding::Flavor {
            version: self.version,
            cpp,
        }
    }

    fn plan_query<'a>(
        &'a self,
        src: &dyn ByteSource,
        q: &Query,
    ) -> Result<(Plan<'a>, Vec<Vec<SeriesMeta>>)> {
        let table = match &q.table {
            Some(t) => self.schema(t),
            None => self.schemas.first(),
        };
        if q.table.is_some()
            && table.is_none()
            && !self.devices.iter().any(|d| {
                d.id.table()
                    .eq_ignore_ascii_case(q.table.as_deref().unwrap())
            })
        {
            return Err(err(
                0,
                ErrorCode::NotFound,
                format!("table {:?} is not in the file", q.table.as_deref().unwrap()),
            ));
        }
        if let Some(missing) = q
            .devices
            .iter()
            .flatten()
            .find(|p| !self.devices.iter().any(|d| d.id.path() == **p))
        {
            return Err(err(
                0,
                ErrorCode::NotFound,
                format!("device {missing:?} is not in the file"),
            ));
        }
        let tag_names: Vec<&str> = table
            .map(|t| t.tags().map(|c| c.name.as_str()).collect())
            .unwrap_or_default();
        let mut tag_filters = Vec::new();
        for (name, value) in &q.tags {
            let k = tag_names
                .iter()
                .position(|t| t.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    err(
                        0,
                        ErrorCode::NotFound,
                        format!("tag column {name:?} is not in the table"),
                    )
                })?;
            tag_filters.push((k, value.as_str()));
        }
        let devices: Vec<&DeviceEntry> = self
            .devices
            .iter()
            .filter(|d| match (table, &q.table) {
                (Some(t), _) => d.id.table().eq_ignore_ascii_case(&t.name),
                (None, Some(t)) => {
                    d.id.table().eq_ignore_ascii_case(t) || d.table.eq_ignore_ascii_case(t)
                }
                (None, None) => true,
            })
            .filter(|d| {
                q.devices
                    .as_ref()
                    .is_none_or(|ds| ds.iter().any(|p| *p == d.id.path()))
            })
            .filter(|d| {
                tag_filters
                    .iter()
                    .all(|(k, v)| d.id.segments.get(k + 1).and_then(|s| s.as_deref()) == Some(*v))
            })
            .collect();
        let mut series = Vec::with_capacity(devices.len());
        for d in &devices {
            series.push(self.device_series(src, d)?);
        }
        let mut cols = Vec::new();
        match table {
            Some(t) => {
                let mut all = Vec::new();
                let mut k = 0;
                for c in &t.columns {
                    match c.category {
                        crate::meta::ColumnCategory::Tag => {
                            all.push(OutCol {
                                name: c.name.clone(),
                                kind: OutKind::Tag(k),
                            });
                            k += 1;
                        }
                        crate::meta::ColumnCategory::Field => all.push(OutCol {
                            name: c.name.clone(),
                            kind: OutKind::Field(c.dtype),
                        }),
                        _ => {}
                    }
                }
                // A declared TIME column (C++ 2.x category 3) is the `time` output column.
                let wanted = q.columns.as_ref().map(|w| {
                    w.iter()
                        .filter(|n| {
                            !t.columns.iter().any(|c| {
                                c.category == crate::meta::ColumnCategory::Time
                                    && c.name.eq_ignore_ascii_case(n)
                            })
                        })
                        .cloned()
                        .collect::<Vec<_>>()
                });
                cols = select(all, &wanted)?;
            }
            None => {
                let mut all = vec![OutCol {
                    name: "device".into(),
                    kind: OutKind::Device,
                }];
                let mut seen: HashMap<String, TsType> = HashMap::new();
                let mut names = Vec::new();
                for s in series.iter().flatten() {
                    if s.dtype == TsType::Vector {
                        continue;
                    }
                    match seen.get(&s.name) {
                        Some(t) if *t != s.dtype => {
                            return Err(err(
                                0,
                                ErrorCode::TypeMismatch,
                                format!(
                                    "measurement {:?} is {} in one device and {} in another",
                                    s.name,
                                    t.name(),
                                    s.dtype.name()
                                ),
                            ))
                        }
                        Some(_) => {}
                        None => {
                            seen.insert(s.name.clone(), s.dtype);
                            names.push(s.name.clone());
                        }
                    }
                }
                names.sort();
                all.extend(names.into_iter().map(|n| OutCol {
                    kind: OutKind::Field(seen[&n]),
                    name: n,
                }));
                cols.extend(select(all, &q.columns)?);
            }
        }
        let start = q.start.unwrap_or(i64::MIN);
        let end = q.end.unwrap_or(i64::MAX);
        Ok((
            Plan {
                table,
                devices,
                cols,
                start,
                end,
            },
            series,
        ))
    }

    /// Byte ranges (start, end) of every chunk `read(q)` will touch, sorted and coalesced,
    /// so a host can prefetch them. Needs the index (see [`TsFile::index_range`]).
    pub fn plan(&self, src: &dyn ByteSource, q: &Query) -> Result<Vec<(u64, u64)>> {
        let (plan, series) = self.plan_query(src, q)?;
        // Chunk extents: from each chunk start to the next chunk start in the file.
        let mut starts: Vec<u64> = Vec::new();
        for d in &self.devices {
            for s in self.device_series(src, d)? {
                starts.extend(s.chunks.iter().map(|c| c.offset));
            }
        }
        starts.push(self.meta_offset);
        starts.sort_unstable();
        starts.dedup();
        let extent = |off: u64| -> (u64, u64) {
            let i = starts.partition_point(|&s| s <= off);
            (off, starts.get(i).copied().unwrap_or(self.meta_offset))
        };
        let mut ranges = Vec::new();
        for (di, _) in plan.devices.iter().enumerate() {
            let ss = &series[di];
            let wanted = |name: &str| {
                plan.cols
                    .iter()
                    .any(|c| matches!(c.kind, OutKind::Field(_)) && c.name == name)
            };
            if let Some(time) = ss.iter().find(|s| s.dtype == TsType::Vector) {
                let tchunks = sorted(&time.chunks);
                let keep: Vec<bool> = tchunks
                    .iter()
                    .map(|c| c.stats.overlaps(plan.start, plan.end))
                    .collect();
                // Time chunks are always read (they give the rows); value chunks only when
                // projected, in a kept chunk group, and not all-null.
                for s in ss
                    .iter()
                    .filter(|s| s.dtype != TsType::Vector && wanted(&s.name))
                {
                    for c in &s.chunks {
                        let ti = tchunks.partition_point(|t| t.offset < c.offset);
                        if ti > 0 && keep[ti - 1] && c.stats.count > 0 {
                            ranges.push(extent(c.offset));
                        }
                    }
                }
                for (i, c) in tchunks.iter().enumerate() {
                    if keep[i] {
                        ranges.push(extent(c.offset));
                    }
                }
            } else {
                for s in ss.iter().filter(|s| wanted(&s.name)) {
                    for c in &s.chunks {
                        if c.stats.overlaps(plan.start, plan.end) {
                            ranges.push(extent(c.offset));
                        }
                    }
                }
            }
        }
        ranges.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::new();
        for r in ranges {
            match out.last_mut() {
                Some(last) if r.0 <= last.1 + 256 => last.1 = last.1.max(r.1),
                _ => out.push(r),
            }
        }
        Ok(out)
    }

    /// Read the query into one batch: `time`, then the selected tag/device and field columns.
    pub fn read(&self, src: &dyn ByteSource, q: &Query) -> Result<Batch> {
        self.read_as(src, q, TimeUnit::Millisecond)
    }

    /// [`TsFile::read`] with the unit to label the `time` column and TIMESTAMP fields with
    /// (the file does not record one; values are passed through unchanged).
    pub fn read_as(&self, src: &dyn ByteSource, q: &Query, unit: TimeUnit) -> Result<Batch> {
        let (plan, series) = self.plan_query(src, q)?;
        let mut remaining = q.limit.unwrap_or(usize::MAX);
        let mut times: Vec<i64> = Vec::new();
        let mut builders: Vec<Option<ColBuilder>> = plan
            .cols
            .iter()
            .map(|c| {
                if let OutKind::Field(t) = c.kind {
                    Some(ColBuilder::new(t))
                } else {
                    None
                }
            })
            .collect();
        // Size every output buffer once from the statistics (rows of overlapping time chunks).
        let estimate: u64 = series
            .iter()
            .flat_map(|ss| ss.iter().filter(|s| s.dtype == TsType::Vector))
            .flat_map(|s| {
                s.chunks
                    .iter()
                    .filter(|c| c.stats.overlaps(plan.start, plan.end))
                    .map(|c| c.stats.count)
            })
            .sum();
        // Statistics can lie: never reserve more than a generous multiple of the file size.
        let row_bytes = 8 + 8 * builders.iter().flatten().count();
        let cap = (self.size as usize)
            .saturating_mul(32)
            .saturating_add(1 << 20)
            / row_bytes;
        let max = q.max_read_bytes.unwrap_or(DEFAULT_MAX_READ_BYTES);
        let cap = cap.min((max / row_bytes as u64) as usize);
        let estimate = (estimate as usize).min(remaining).min(cap);
        times.reserve(estimate);
        for b in builders.iter_mut().flatten() {
            b.reserve(estimate);
        }
        // Per-row device index, expanded into dictionary keys at the end.
        let mut row_devices: Vec<(usize, usize)> = Vec::new();
        let mut scratch = Scratch {
            budget: Budget::new(max, row_bytes),
            ..Default::default()
        };
        for (di, dev) in plan.devices.iter().enumerate() {
            if remaining == 0 {
                break;
            }
            let before = times.len();
            // Deletions hide rows after they are decoded, so the device is read whole and
            // the limit applied after them.
            let mut dev_remaining = if q.mods.is_some() {
                usize::MAX
            } else {
                remaining
            };
            let ss = &series[di];
            let field_series: Vec<(usize, Option<&SeriesMeta>)> = plan
                .cols
                .iter()
                .enumerate()
                .filter(|(_, c)| matches!(c.kind, OutKind::Field(_)))
                .map(|(i, c)| {
                    (
                        i,
                        ss.iter()
                            .find(|s| s.name == c.name && s.dtype != TsType::Vector),
                    )
                })
                .collect();
            for (i, s) in &field_series {
                if let (Some(s), OutKind::Field(t)) = (s, &plan.cols[*i].kind) {
                    if s.dtype.physical() != t.physical() {
                        return Err(err(
                            0,
                            ErrorCode::TypeMismatch,
                            format!(
                                "device {}: column {} is {} in the file but {} in the schema",
                                dev.id.path(),
                                s.name,
                                s.dtype.name(),
                                t.name()
                            ),
                        ));
                    }
                }
            }
            if let Some(time) = ss.iter().find(|s| s.dtype == TsType::Vector) {
                self.read_aligned(
                    src,
                    time,
                    &field_series,
                    &plan,
                    &mut times,
                    &mut builders,
                    &mut dev_remaining,
                    &mut scratch,
                )?;
            } else {
                self.read_nonaligned(
                    src,
                    &field_series,
                    &plan,
                    &mut times,
                    &mut builders,
                    &mut dev_remaining,
                    &mut scratch,
                )?;
            }
            if let Some(m) = &q.mods {
                let tree = plan.table.is_none() && q.table.is_none();
                let m = m.for_device(&dev.id.segments, tree);
                hide_deleted(&m, &plan.cols, before, remaining, &mut times, &mut builders);
            }
            let n = times.len() - before;
            remaining -= n.min(remaining);
            if n > 0 {
                row_devices.push((di, n));
            }
        }
        // Assemble.
        let device_of = |row: usize| {
            let mut end = 0;
            let (di, _) = row_devices
                .iter()
                .find(|(_, n)| {
                    end += n;
                    row < end
                })
                .copied()
                .unwrap_or((0, 0));
            let first_chunk = series[di]
                .iter()
                .flat_map(|s| s.chunks.iter().map(|c| c.offset))
                .min();
            (plan.devices[di].id.path(), first_chunk.unwrap_or(0))
        };
        js_readable(&times, unit, "time", &device_of)?;
        let mut fields = vec![Field::new("time", DataType::Timestamp(unit), false)];
        let nrows = times.len();
        let mut columns = vec![Column::primitive(
            DataType::Timestamp(unit),
            Buffer::I64(times),
            None,
        )];
        for (i, c) in plan.cols.iter().enumerate() {
            match c.kind {
                OutKind::Field(t) => {
                    let b = builders[i].take().unwrap();
                    debug_assert_eq!(b.len(), nrows);
                    fields.push(Field::new(c.name.clone(), arrow_type(t, unit), true));
                    let col = b.finish(unit);
                    if let (TsType::Timestamp, [Buffer::I64(v)]) = (t, &col.buffers[..]) {
                        js_readable(v, unit, &c.name, &device_of)?;
                    }
                    columns.push(col);
                }
                OutKind::Tag(k) => {
                    let vals =
                        |di: usize| plan.devices[di].id.segments.get(k + 1).cloned().flatten();
                    fields.push(Field::new(c.name.clone(), DataType::DictionaryUtf8, true));
                    columns.push(dictionary(&row_devices, vals));
                }
                OutKind::Device => {
                    fields.push(Field::new(c.name.clone(), DataType::DictionaryUtf8, false));
                    columns.push(dictionary(&row_devices, |di| {
                        Some(plan.devices[di].id.path())
                    }));
                }
            }
        }
        let _ = plan.table;
        Ok(Batch {
            fields,
            columns,
            num_rows: nrows,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn read_aligned(
        &self,
        src: &dyn ByteSource,
        time: &SeriesMeta,
        fields: &[(usize, Option<&SeriesMeta>)],
        plan: &Plan,
        times: &mut Vec<i64>,
        builders: &mut [Option<ColBuilder>],
        remaining: &mut usize,
        scratch: &mut Scratch,
    ) -> Result<()> {
        let tchunks = sorted(&time.chunks);
        // Pair each value chunk with the time chunk of its chunk group (greatest offset below).
        let mut paired: Vec<Vec<Option<&ChunkMeta>>> =
            vec![vec![None; tchunks.len()]; fields.len()];
        for (j, (_, s)) in fields.iter().enumerate() {
            if let Some(s) = s {
                for c in &s.chunks {
                    let ti = tchunks.partition_point(|t| t.offset < c.offset);
                    if ti > 0 {
                        paired[j][ti - 1] = Some(c);
                    }
                }
            }
        }
        let mut vbufs: Vec<Vec<u8>> = vec![Vec::new(); fields.len()];
        let mut vvals: Vec<Option<Values>> = fields
            .iter()
            .map(|(_, s)| s.map(|s| Values::new(s.dtype.physical())))
            .collect();
        for (ti, tc) in tchunks.iter().enumerate() {
            if *remaining == 0 {
                return Ok(());
            }
            if !tc.stats.overlaps(plan.start, plan.end) {
                continue;
            }
            let th = read_chunk_header(src, tc.offset, self.meta_offset)?;
            let tenc = time_encoding(&th)?;
            let tcomp = compression(&th)?;
            // Pages are walked header by header: only the bodies of pages in the range are read.
            let mut tcur = PageWalker::new(&th, TsType::Vector, "time chunk");
            // Value chunks of this group: (header, page walker).
            let mut vcur: Vec<Option<(ChunkHeader, PageWalker)>> = Vec::with_capacity(fields.len());
            for (j, (_, s)) in fields.iter().enumerate() {
                match (s, paired[j][ti]) {
                    (Some(s), Some(vc)) if vc.stats.count > 0 => {
                        let vh = read_chunk_header(src, vc.offset, self.meta_offset)?;
                        let walker = PageWalker::new(&vh, s.dtype, "value chunk");
                        vcur.push(Some((vh, walker)));
                    }
                    _ => vcur.push(None),
                }
            }
            let mut order = PageOrder::default();
            while !tcur.at_end() && *remaining > 0 {
                let tp = tcur.next(src)?;
                let mut vps: Vec<Option<PageHeader>> = Vec::with_capacity(fields.len());
                for v in vcur.iter_mut() {
                    match v {
                        Some((_, w)) if !w.at_end() => vps.push(Some(w.next(src)?)),
                        _ => vps.push(None),
                    }
                }
                if tp.is_empty() {
                    continue;
                }
                let pstats = tp.stats.unwrap_or(tc.stats);
                order.check(&tp, &pstats, &tc.stats)?;
                if pstats.count > 0 && pstats.start > plan.end {
                    break; // pages are in time order: the rest of the chunk is past the range
                }
                if !page_overlaps(&pstats, plan.start, plan.end) {
                    continue;
                }
                // Decode the time page once; every value column shares it. When the page
                // statistics say every row passes, decode straight into the output.
                scratch.budget.page(&tp, page_rows(&pstats, &tp), None)?;
                let tbody = tp.read_body(src, &mut scratch.body)?;
                decompress(tcomp, tbody, tp.uncompressed, &mut scratch.page)
                    .map_err(|m| page_err(&tp, "time", m))?;
                let full = pstats.count > 0
                    && pstats.within(plan.start, plan.end)
                    && (pstats.count as usize) <= *remaining;
                // The statistics count is the page's row count: never decode more.
                let tlimit = if pstats.count > 0 {
                    (pstats.count as usize).min(value_limit(tp.uncompressed))
                } else {
                    value_limit(tp.uncompressed)
                };
                let (rows, lo, hi);
                if full {
                    let before = times.len();
                    let mut tv = Values::I64(std::mem::take(times));
                    let r = decode_page(tenc, &scratch.page, before + tlimit, &mut tv);
                    let Values::I64(t) = tv else { unreachable!() };
                    *times = t;
                    r.map_err(|e| dec_err(&tp, "time", e))?;
                    check_times(&tp, &pstats, &times[before..])?;
                    rows = times.len() - before;
                    lo = 0;
                    hi = rows.min(*remaining);
                    times.truncate(before + hi);
                } else {
                    scratch.times.clear();
                    let mut tv = Values::I64(std::mem::take(&mut scratch.times));
                    decode_page(tenc, &scratch.page, tlimit, &mut tv)
                        .map_err(|e| dec_err(&tp, "time", e))?;
                    let Values::I64(ptimes) = tv else {
                        unreachable!()
                    };
                    check_times(&tp, &pstats, &ptimes)?;
                    rows = ptimes.len();
                    lo = ptimes.partition_point(|&t| t < plan.start);
                    hi = ptimes
                        .partition_point(|&t| t <= plan.end)
                        .min(lo.saturating_add(*remaining))
                        .max(lo);
                    times.extend_from_slice(&ptimes[lo..hi]);
                    scratch.times = ptimes;
                }
                if lo < hi {
                    for (j, (bi, _)) in fields.iter().enumerate() {
                        let b = builders[*bi].as_mut().unwrap();
                        let (Some(vp), Some((vh, _))) = (&vps[j], &vcur[j]) else {
                            b.push_nulls(hi - lo);
                            continue;
                        };
                        if vp.is_empty() {
                            b.push_nulls(hi - lo);
                            continue;
                        }
                        scratch.budget.page(vp, 0, None)?;
                        let body = vp.read_body(src, &mut scratch.body)?;
                        let buf = &mut vbufs[j];
                        decompress(compression(vh)?, body, vp.uncompressed, buf)
                            .map_err(|m| page_err(vp, "value", m))?;
                        if buf.len() < 4 {
                            return Err(page_err(vp, "value", "shorter than its row count".into()));
                        }
                        let n = i32::from_be_bytes(buf[..4].try_into().unwrap());
                        if n < 0 || n as usize != rows {
                            return Err(page_err(
                                vp,
                                "value",
                                format!(
                                    "row count {n} differs from the {rows} rows of its time page"
                                ),
                            ));
                        }
                        let bm_len = rows.div_ceil(8);
                        if buf.len() < 4 + bm_len {
                            return Err(page_err(
                                vp,
                                "value",
                                format!("null bitmap of {bm_len} bytes is truncated"),
                            ));
                        }
                        let (bitmap, stream) = buf[4..].split_at(bm_len);
                        let present = popcount_prefix(bitmap, rows);
                        let enc = Encoding::from_id(vh.encoding).ok_or_else(|| {
                            page_err(vp, "value", format!("unknown encoding {}", vh.encoding))
                        })?;
                        if present == rows && lo == 0 && hi == rows {
                            // No nulls, every row wanted: decode into the output column directly.
                            let at = b.len();
                            let flavor = self.flavor();
                            let direct = b.decode_direct(|v| {
                                decode_values(flavor, enc, stream, at + present, v)
                            });
                            if let Some(r) = direct {
                                let n = r.map_err(|e| dec_err(vp, "value", e))?;
                                if n != rows {
                                    return Err(page_err(vp, "value", format!("bitmap marks {present} values present, stream holds {n}")));
                                }
                                continue;
                            }
                        }
                        let vals = vvals[j].as_mut().unwrap();
                        vals.clear();
                        // Rows past `hi` are not wanted: their values need not be decoded.
                        let (flavor, stop) = (self.flavor(), popcount_prefix(bitmap, hi));
                        if hi < rows {
                            decode_page_prefix(flavor, enc, stream, present, stop, vals)
                        } else {
                            decode_values(flavor, enc, stream, present, vals)
                        }
                        .map_err(|e| dec_err(vp, "value", e))?;
                        if vals.len() < stop {
                            return Err(page_err(
                                vp,
                                "value",
                                format!(
                                    "bitmap marks {present} values present, stream holds {}",
                                    vals.len()
                                ),
                            ));
                        }
                        fix_dates(b.dtype, vals, vp)?;
                        if present == rows {
                            b.push_run(vals, lo, hi); // no nulls: one copy
                        } else {
                            b.push_scatter(vals, bitmap, lo, hi);
                        }
                    }
                    *remaining -= hi - lo;
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn read_nonaligned(
        &self,
        src: &dyn ByteSource,
        fields: &[(usize, Option<&SeriesMeta>)],
        plan: &Plan,
        times: &mut Vec<i64>,
        builders: &mut [Option<ColBuilder>],
        remaining: &mut usize,
        scratch: &mut Scratch,
    ) -> Result<()> {
        // Each series: its (times, values) within the range.
        let mut per: Vec<Option<(Vec<i64>, Values)>> = Vec::with_capacity(fields.len());
        for (_, s) in fields {
            let Some(s) = s else {
                per.push(None);
                continue;
            };
            let mut ts = Vec::new();
            let mut vals = Values::new(s.dtype.physical());
            for c in sorted(&s.chunks) {
                if !c.stats.overlaps(plan.start, plan.end) {
                    continue;
                }
                let h = read_chunk_header(src, c.offset, self.meta_offset)?;
                let comp = compression(&h)?;
                let enc = Encoding::from_id(h.encoding).ok_or_else(|| {
                    err(
                        h.offset,
                        ErrorCode::Unsupported,
                        format!(
                            "chunk header at byte {}: unknown encoding {}",
                            h.offset, h.encoding
                        ),
                    )
                })?;
                let mut cur = PageWalker::new(&h, s.dtype, "chunk");
                let mut order = PageOrder::default();
                while !cur.at_end() {
                    let p = cur.next(src)?;
                    if p.is_empty() {
                        continue;
                    }
                    let pstats = p.stats.unwrap_or(c.stats);
                    order.check(&p, &pstats, &c.stats)?;
                    if p.stats
                        .is_some_and(|ps| ps.count > 0 && ps.start > plan.end)
                    {
                        break; // pages are in time order: the rest of the chunk is past the range
                    }
                    if !page_overlaps(&p.stats.unwrap_or(c.stats), plan.start, plan.end) {
                        continue;
                    }
                    // One series: its time and value per row (the merged output rows take
                    // 8 bytes per series each, so this covers them too).
                    scratch.budget.page(&p, page_rows(&pstats, &p), Some(16))?;
                    decompress(
                        comp,
                        p.read_body(src, &mut scratch.body)?,
                        p.uncompressed,
                        &mut scratch.page,
                    )
                    .map_err(|m| page_err(&p, "", m))?;
                    let page = &scratch.page;
                    let mut pos = 0;
                    let tlen = crate::bytes::uvarint(page, &mut pos)
                        .ok_or_else(|| page_err(&p, "", "truncated time length".into()))?
                        as usize;
                    if page.len() - pos < tlen {
                        return Err(page_err(
                            &p,
                            "",
                            format!("time column of {tlen} bytes exceeds the page"),
                        ));
                    }
                    let (tb, vb) = page[pos..].split_at(tlen);
                    let mut tv = Values::I64(Vec::new());
                    let count = p.stats.unwrap_or(c.stats).count as usize;
                    let limit = if count > 0 {
                        count.min(value_limit(p.uncompressed))
                    } else {
                        value_limit(p.uncompressed)
                    };
                    if decode_page(Encoding::Ts2Diff, tb, limit, &mut tv).is_err() {
                        // The time encoding is not recorded; PLAIN is the other one writers use.
                        tv = Values::I64(Vec::new());
                        decode_page(Encoding::Plain, tb, limit, &mut tv)
                            .map_err(|e| dec_err(&p, "time", e))?;
                    }
                    let Values::I64(pt) = tv else { unreachable!() };
                    check_times(&p, &pstats, &pt)?;
                    let mut pv = Values::new(s.dtype.physical());
                    decode_values(self.flavor(), enc, vb, pt.len(), &mut pv)
                        .map_err(|e| dec_err(&p, "value", e))?;
                    if pv.len() != pt.len() {
                        return Err(page_err(
                            &p,
                            "",
                            format!("{} timestamps but {} values", pt.len(), pv.len()),
                        ));
                    }
                    fix_dates(s.dtype, &mut pv, &p)?;
                    let lo = pt.partition_point(|&t| t < plan.start);
                    let hi = pt.partition_point(|&t| t <= plan.end).max(lo);
                    ts.extend_from_slice(&pt[lo..hi]);
                    append_values(&mut vals, &pv, lo, hi);
                }
            }
            per.push(Some((ts, vals)));
        }
        // Union of timestamps (each series is sorted), capped by the limit.
        let mut union: Vec<i64> = per
            .iter()
            .flatten()
            .flat_map(|(t, _)| t.iter().copied())
            .collect();
        union.sort_unstable();
        union.dedup();
        union.truncate(*remaining);
        for (j, (bi, _)) in fields.iter().enumerate() {
            let b = builders[*bi].as_mut().unwrap();
            let Some((ts, vals)) = &per[j] else {
                b.push_nulls(union.len());
                continue;
            };
            if ts.len() == union.len() && ts.first() == union.first() {
                b.push_run(vals, 0, ts.len());
                continue;
            }
            let mut k = 0;
            for &t in &union {
                while k < ts.len() && ts[k] < t {
                    k += 1;
                }
                if k < ts.len() && ts[k] == t {
                    b.push_one(vals, k);
                    k += 1;
                } else {
                    b.push_nulls(1);
                }
            }
        }
        *remaining -= union.len();
        times.extend_from_slice(&union);
        Ok(())
    }
}

/// apache-arrow turns a Timestamp value into a JS number whenever it is read (`get`, rows,
/// `toJSON`) and throws past ±(2^53 − 1) of that number: seconds and milliseconds are
/// converted as they are, microseconds divided by 1,000, nanoseconds by 10^6 (every int64
/// fits then). The largest raw value `unit` can carry, `None` for no limit.
pub(crate) fn js_time_bound(unit: TimeUnit) -> Option<i64> {
    const SAFE: i64 = (1 << 53) - 1;
    match unit {
        TimeUnit::Second | TimeUnit::Millisecond => Some(SAFE),
        TimeUnit::Microsecond => Some(SAFE * 1000 + 999),
        TimeUnit::Nanosecond => None,
    }
}

/// Refuse, at decode time, a time or TIMESTAMP column that apache-arrow could not read back
/// in `unit` (a table whose values throw when read is worse than an error naming the cure).
/// Nulls hold 0. `device_of(row)` names the device and its first chunk's offset.
fn js_readable(
    v: &[i64],
    unit: TimeUnit,
    column: &str,
    device_of: &dyn Fn(usize) -> (String, u64),
) -> Result<()> {
    let Some(bound) = js_time_bound(unit) else {
        return Ok(());
    };
    // One pass the compiler vectorises; the offending row is searched only on failure.
    let (lo, hi) = v
        .iter()
        .fold((0i64, 0i64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    if lo >= -bound && hi <= bound {
        return Ok(());
    }
    let row = v
        .iter()
        .position(|x| x.unsigned_abs() > bound as u64)
        .unwrap_or(0);
    let (device, offset) = device_of(row);
    let (name, advice) = match unit {
        TimeUnit::Second => ("s", "; microseconds 'us'"),
        TimeUnit::Millisecond => ("ms", "; microseconds 'us'"),
        _ => ("us", ""),
    };
    Err(err(
        offset,
        ErrorCode::Unsupported,
        format!(
            "{column} value {} of device {device} does not fit a JS number as Timestamp({name}) \
             (beyond ±(2^53 − 1) after the unit's conversion), so apache-arrow could not read it \
             back; if the file's times are nanoseconds, read with timeUnit 'ns' (every int64 \
             fits){advice}",
            v[row]
        ),
    ))
}

/// Apply one device's deletions to its rows `from..` of the output: whole rows deleted, values
/// of deleted series nulled; in the tree model a row left with no value (every point of it
/// deleted) goes too, as IoTDB has no row there. Then at most `limit` rows are kept.
fn hide_deleted(
    m: &crate::mods::DeviceMods,
    cols: &[OutCol],
    from: usize,
    limit: usize,
    times: &mut Vec<i64>,
    builders: &mut [Option<ColBuilder>],
) {
    let n = times.len() - from;
    let rows = &times[from..];
    let mut keep: Vec<bool> = rows.iter().map(|&t| !deleted(&m.rows, t)).collect();
    let mut touched = vec![false; n];
    for (c, b) in cols.iter().zip(builders.iter_mut()) {
        let Some(b) = b else { continue };
        let ranges = m.column(&c.name);
        if ranges.is_empty() {
            continue;
        }
        for (r, &t) in rows.iter().enumerate() {
            if keep[r] && b.is_valid(from + r) && deleted(&ranges, t) {
                b.set_null(from + r);
                touched[r] = true;
            }
        }
    }
    if m.is_tree() {
        for r in (0..n).filter(|&r| touched[r]) {
            if builders.iter().flatten().all(|b| !b.is_valid(from + r)) {
                keep[r] = false;
            }
        }
    }
    let mut kept = 0;
    for k in keep.iter_mut() {
        *k = *k && kept < limit;
        kept += *k as usize;
    }
    if kept == n {
        return;
    }
    let mut w = from;
    for r in 0..n {
        if keep[r] {
            times[w] = times[from + r];
            w += 1;
        }
    }
    times.truncate(w);
    for b in builders.iter_mut().flatten() {
        b.retain_tail(from, &keep);
    }
}

fn select(all: Vec<OutCol>, want: &Option<Vec<String>>) -> Result<Vec<OutCol>> {
    let Some(want) = want else { return Ok(all) };
    let mut all: Vec<Option<OutCol>> = all.into_iter().map(Some).collect();
    let mut out = Vec::new();
    for w in want {
        if w.eq_ignore_ascii_case("time") {
            continue;
        }
        let i = all
            .iter()
            .position(|c| c.as_ref().is_some_and(|c| c.name == *w))
            .or_else(|| {
                all.iter()
                    .position(|c| c.as_ref().is_some_and(|c| c.name.eq_ignore_ascii_case(w)))
            })
            .ok_or_else(|| {
                err(
                    0,
                    ErrorCode::NotFound,
                    format!("column {w:?} is not in the file"),
                )
            })?;
        out.push(all[i].take().unwrap());
    }
    Ok(out)
}

fn sorted(chunks: &[ChunkMeta]) -> Vec<ChunkMeta> {
    let mut v = chunks.to_vec();
    v.sort_by_key(|c| c.offset);
    v
}

/// What makes a read cut into time slices (the worker pool's) give the rows of a whole
/// read: each page's statistics lie within its chunk's and follow the previous page's, and
/// the times a page holds are in order and within its statistics ([`check_times`]). Every
/// writer keeps these; a file that breaks one is refused by whichever read meets it, since
/// otherwise a slice would skip a page whose statistics lie about the rows it holds.
#[derive(Default)]
struct PageOrder {
    /// The end time of the previous page with statistics.
    prev_end: Option<i64>,
}

impl PageOrder {
    fn check(&mut self, p: &PageHeader, ps: &Stats, chunk: &Stats) -> Result<()> {
        if ps.count == 0 {
            return Ok(()); // no range claimed (odd writers): nothing pruned by it either
        }
        let bad = |m: String| Err(page_err(p, "", format!("statistics {m}")));
        if ps.start > ps.end {
            return bad(format!("start {} after end {}", ps.start, ps.end));
        }
        if chunk.count > 0 && (ps.start < chunk.start || ps.end > chunk.end) {
            return bad(format!(
                "{}..{} outside its chunk's {}..{}",
                ps.start, ps.end, chunk.start, chunk.end
            ));
        }
        if let Some(prev) = self.prev_end.filter(|&e| ps.start < e) {
            return bad(format!(
                "start {} before the previous page's end {prev}",
                ps.start
            ));
        }
        self.prev_end = Some(ps.end);
        Ok(())
    }
}

/// A page's decoded times are in order and within its statistics (see [`PageOrder`]).
fn check_times(p: &PageHeader, ps: &Stats, times: &[i64]) -> Result<()> {
    if let Some(i) = times.windows(2).position(|w| w[1] < w[0]) {
        return Err(page_err(
            p,
            "time",
            format!("time {} follows {} (out of order)", times[i + 1], times[i]),
        ));
    }
    if let (true, Some(&a), Some(&b)) = (ps.count > 0, times.first(), times.last()) {
        if a < ps.start || b > ps.end {
            return Err(page_err(
                p,
                "time",
                format!(
                    "times {a}..{b} outside its statistics {}..{}",
                    ps.start, ps.end
                ),
            ));
        }
    }
    Ok(())
}

fn page_overlaps(s: &Stats, start: i64, end: i64) -> bool {
    // A page's count may be 0 in odd writers; only prune on a real range.
    s.start <= end && s.end >= start || s.count == 0 && s.start > s.end
}

/// The rows a page may add: its statistics count, else what its size allows.
fn page_rows(ps: &Stats, p: &PageHeader) -> usize {
    if ps.count > 0 {
        (ps.count as usize).min(value_limit(p.uncompressed))
    } else {
        value_limit(p.uncompressed)
    }
}

/// Upper bound on the values a page of `uncompressed` bytes may hold.
fn value_limit(uncompressed: usize) -> usize {
    uncompressed.saturating_mul(64).saturating_add(1 << 16)
}

fn time_encoding(h: &ChunkHeader) -> Result<Encoding> {
    match Encoding::from_id(h.encoding) {
        Some(
            e @ (Encoding::Plain
            | Encoding::Ts2Diff
            | Encoding::Gorilla
            | Encoding::Rle
            | Encoding::Zigzag
            | Encoding::Chimp
            | Encoding::Sprintz
            | Encoding::Rlbe),
        ) => Ok(e),
        _ => Ok(Encoding::Ts2Diff),
    }
}

fn compression(h: &ChunkHeader) -> Result<Compression> {
    Compression::from_id(h.compression).ok_or_else(|| {
        err(
            h.offset,
            ErrorCode::Unsupported,
            format!(
                "chunk header at byte {}: unknown compression {}",
                h.offset, h.compression
            ),
        )
    })
}

fn page_err(p: &PageHeader, what: &str, m: String) -> DecodeError {
    let sp = if what.is_empty() { "" } else { " " };
    err(
        p.offset,
        ErrorCode::Invalid,
        format!("{what}{sp}page at byte {}: {m}", p.offset),
    )
}

fn dec_err(p: &PageHeader, what: &str, e: crate::encoding::DecErr) -> DecodeError {
    err(
        p.offset,
        ErrorCode::Invalid,
        format!(
            "{what} page at byte {}: stream position {}: {}",
            p.offset, e.pos, e.msg
        ),
    )
}

fn fix_dates(t: TsType, v: &mut Values, p: &PageHeader) -> Result<()> {
    if t == TsType::Date {
        if let Values::I32(v) = v {
            for x in v.iter_mut() {
                *x = date_to_days(*x).ok_or_else(|| {
                    page_err(p, "value", format!("DATE value {x} is not a yyyyMMdd date"))
                })?;
            }
        }
    }
    Ok(())
}

fn append_values(dst: &mut Values, src: &Values, lo: usize, hi: usize) {
    match (dst, src) {
        (Values::Bool(d), Values::Bool(s)) => d.extend_from_slice(&s[lo..hi]),
        (Values::I32(d), Values::I32(s)) => d.extend_from_slice(&s[lo..hi]),
        (Values::I64(d), Values::I64(s)) => d.extend_from_slice(&s[lo..hi]),
        (Values::F32(d), Values::F32(s)) => d.extend_from_slice(&s[lo..hi]),
        (Values::F64(d), Values::F64(s)) => d.extend_from_slice(&s[lo..hi]),
        (
            Values::Bytes {
                offsets: d_o,
                data: d_d,
            },
            Values::Bytes {
                offsets: s_o,
                data: s_d,
            },
        ) => {
            for k in lo..hi {
                d_d.extend_from_slice(&s_d[s_o[k] as usize..s_o[k + 1] as usize]);
                d_o.push(d_d.len() as u32);
            }
        }
        _ => unreachable!(),
    }
}

/// A DictionaryUtf8 column: one key per row, runs per device.
fn dictionary(rows: &[(usize, usize)], value: impl Fn(usize) -> Option<String>) -> Column {
    let mut dict: Vec<String> = Vec::new();
    let mut index: HashMap<String, i32> = HashMap::new();
    let total: usize = rows.iter().map(|r| r.1).sum();
    let mut keys = Vec::with_capacity(total);
    let mut validity = Bitmap::with_capacity(total);
    let mut nulls = 0;
    for &(di, n) in rows {
        match value(di) {
            Some(v) => {
                let k = *index.entry(v.clone()).or_insert_with(|| {
                    dict.push(v);
                    (dict.len() - 1) as i32
                });
                keys.extend(std::iter::repeat_n(k, n));
                validity.push_n(true, n);
            }
            None => {
                keys.extend(std::iter::repeat_n(0, n));
                validity.push_n(false, n);
                nulls += n;
            }
        }
    }
    let mut offsets = vec![0i32];
    let mut data = Vec::new();
    for s in &dict {
        data.extend_from_slice(s.as_bytes());
        offsets.push(data.len() as i32);
    }
    let child = Column::bytes(DataType::Utf8, offsets, data, None);
    Column {
        dtype: DataType::DictionaryUtf8,
        len: total,
        validity: if nulls > 0 { Some(validity) } else { None },
        buffers: vec![Buffer::I32(keys)],
        children: vec![child],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(offset: u64) -> PageHeader {
        PageHeader {
            offset,
            uncompressed: 1,
            compressed: 1,
            stats: None,
            body: offset,
        }
    }
    const fn st(count: u64, start: i64, end: i64) -> Stats {
        Stats { count, start, end }
    }

    /// Statistics that would let a time slice skip rows a whole read returns are refused.
    #[test]
    fn page_statistics_must_follow_and_nest() {
        let chunk = st(9, 0, 100);
        let mut o = PageOrder::default();
        o.check(&page(10), &st(3, 0, 20), &chunk).unwrap();
        o.check(&page(20), &st(0, 90, 5), &chunk).unwrap(); // no range claimed
        o.check(&page(30), &st(3, 20, 50), &chunk).unwrap(); // may touch the previous end
        let e = o.check(&page(40), &st(3, 10, 60), &chunk).unwrap_err();
        assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 40));
        assert!(
            e.message.contains("before the previous page's end 50"),
            "{e}"
        );
        let mut o = PageOrder::default();
        assert!(o.check(&page(1), &st(3, 50, 40), &chunk).is_err());
        assert!(o.check(&page(1), &st(3, 50, 140), &chunk).is_err());
    }

    #[test]
    fn page_times_must_be_in_order_and_within_statistics() {
        let p = page(7);
        check_times(&p, &st(3, 10, 30), &[10, 20, 30]).unwrap();
        check_times(&p, &st(0, 0, 0), &[-5, 99]).unwrap(); // no range claimed
        assert!(check_times(&p, &st(3, 10, 30), &[10, 30, 20]).is_err());
        let e = check_times(&p, &st(3, 10, 30), &[10, 20, 31]).unwrap_err();
        assert_eq!(e.offset, 7);
        assert!(e.message.contains("outside its statistics"), "{e}");
        assert!(check_times(&p, &st(3, 10, 30), &[9, 20]).is_err());
    }
}
