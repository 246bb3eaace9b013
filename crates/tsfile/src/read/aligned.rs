//! The aligned page loop: a device's time chunks, and beside each time page the value
//! pages of the projected columns (one per column, row for row), decoded into the output.

use super::order;
use super::output::Output;
use super::page::{
    check_times, compression, dec_err, fix_dates, page_err, page_overlaps, page_rows,
    time_encoding, value_encoding, value_limit, PageOrder,
};
use super::selection::sorted;
use super::Reader;
use crate::builder::popcount_prefix;
use crate::chunk::{read_chunk_header, ChunkHeader, PageHeader, PageWalker};
use crate::compress::decompress;
use crate::encoding::{decode_page, decode_page_prefix, decode_values, Values};
use crate::meta::{ChunkMeta, SeriesMeta};
use crate::types::TsType;
use arrowsmith_core::Result;

impl Reader<'_> {
    /// Read one aligned device: `time` is its time series, `fields` the output column of
    /// each projected field and the device's series for it (`None`: all null).
    #[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
    pub(super) fn aligned(
        &mut self,
        time: &SeriesMeta,
        fields: &[(usize, Option<&SeriesMeta>)],
        out: &mut Output,
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
        // Chunk groups whose times go backwards or overlap: read them by start time, every
        // row (the limit holds once they are sorted).
        let ordered = order::in_order(&tchunks);
        let mut visit: Vec<usize> = (0..tchunks.len()).collect();
        let room = out.room;
        if !ordered {
            visit.sort_by_key(|&i| order::start_key(&tchunks[i]));
            out.room = usize::MAX;
        }
        for ti in visit {
            let tc = &tchunks[ti];
            if out.room == 0 {
                return Ok(());
            }
            if !tc.stats.overlaps(self.plan.start, self.plan.end) {
                continue;
            }
            let th = read_chunk_header(self.src, tc.offset, self.file.meta_offset)?;
            let tenc = time_encoding(&th)?;
            let tcomp = compression(&th)?;
            // Pages are walked header by header: only the bodies of pages in the range are read.
            let mut tcur = PageWalker::new(&th, TsType::Vector, "time chunk");
            // Value chunks of this group: (header, page walker).
            let mut vcur: Vec<Option<(ChunkHeader, PageWalker)>> = Vec::with_capacity(fields.len());
            for (j, (_, s)) in fields.iter().enumerate() {
                match (s, paired[j][ti]) {
                    (Some(s), Some(vc)) if vc.stats.count > 0 => {
                        let vh = read_chunk_header(self.src, vc.offset, self.file.meta_offset)?;
                        let walker = PageWalker::new(&vh, s.dtype, "value chunk");
                        vcur.push(Some((vh, walker)));
                    }
                    _ => vcur.push(None),
                }
            }
            let mut order = PageOrder::default();
            while !tcur.at_end() && out.room > 0 {
                let tp = tcur.next(self.src)?;
                let mut vps: Vec<Option<PageHeader>> = Vec::with_capacity(fields.len());
                for v in vcur.iter_mut() {
                    match v {
                        Some((_, w)) if !w.at_end() => vps.push(Some(w.next(self.src)?)),
                        _ => vps.push(None),
                    }
                }
                if tp.is_empty() {
                    continue;
                }
                let pstats = tp.stats.unwrap_or(tc.stats);
                order.check(&tp, &pstats, &tc.stats)?;
                if pstats.count > 0 && pstats.start > self.plan.end {
                    break; // pages are in time order: the rest of the chunk is past the range
                }
                if !page_overlaps(&pstats, self.plan.start, self.plan.end) {
                    continue;
                }
                // Decode the time page once; every value column shares it. When the page
                // statistics say every row passes, decode straight into the output.
                self.scratch
                    .budget
                    .page(&tp, page_rows(&pstats, &tp), None)?;
                let tbody = tp.read_body(self.src, &mut self.scratch.body)?;
                decompress(tcomp, tbody, tp.uncompressed, &mut self.scratch.page)
                    .map_err(|m| page_err(&tp, "time", m))?;
                let full = pstats.count > 0
                    && pstats.within(self.plan.start, self.plan.end)
                    && (pstats.count as usize) <= out.room;
                // The statistics count is the page's row count: never decode more.
                let tlimit = if pstats.count > 0 {
                    (pstats.count as usize).min(value_limit(tp.uncompressed))
                } else {
                    value_limit(tp.uncompressed)
                };
                let (rows, lo, hi);
                if full {
                    let before = out.times.len();
                    let mut tv = Values::I64(std::mem::take(&mut out.times));
                    let r = decode_page(tenc, &self.scratch.page, before + tlimit, &mut tv);
                    let Values::I64(t) = tv else { unreachable!() };
                    out.times = t;
                    r.map_err(|e| dec_err(&tp, "time", e))?;
                    check_times(&tp, &pstats, &out.times[before..], &mut out.span)?;
                    rows = out.times.len() - before;
                    lo = 0;
                    hi = rows.min(out.room);
                    out.times.truncate(before + hi);
                } else {
                    self.scratch.times.clear();
                    let mut tv = Values::I64(std::mem::take(&mut self.scratch.times));
                    decode_page(tenc, &self.scratch.page, tlimit, &mut tv)
                        .map_err(|e| dec_err(&tp, "time", e))?;
                    let Values::I64(ptimes) = tv else {
                        unreachable!()
                    };
                    check_times(&tp, &pstats, &ptimes, &mut out.span)?;
                    rows = ptimes.len();
                    lo = ptimes.partition_point(|&t| t < self.plan.start);
                    hi = ptimes
                        .partition_point(|&t| t <= self.plan.end)
                        .min(lo.saturating_add(out.room))
                        .max(lo);
                    out.times.extend_from_slice(&ptimes[lo..hi]);
                    self.scratch.times = ptimes;
                }
                if lo < hi {
                    for (j, (bi, _)) in fields.iter().enumerate() {
                        let b = out.builder(*bi);
                        let (Some(vp), Some((vh, _))) = (&vps[j], &vcur[j]) else {
                            b.push_nulls(hi - lo);
                            continue;
                        };
                        if vp.is_empty() {
                            b.push_nulls(hi - lo);
                            continue;
                        }
                        self.scratch.budget.page(vp, 0, None)?;
                        let body = vp.read_body(self.src, &mut self.scratch.body)?;
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
                        let enc = value_encoding(vh)?;
                        if present == rows && lo == 0 && hi == rows {
                            // No nulls, every row wanted: decode into the output column directly.
                            let at = b.len();
                            let flavor = self.flavor;
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
                        let (flavor, stop) = (self.flavor, popcount_prefix(bitmap, hi));
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
                    out.room -= hi - lo;
                }
            }
        }
        if !ordered {
            out.sort_device_rows(room);
        }
        Ok(())
    }
}
