//! The non-aligned page loop: each series of a device read on its own (pages hold their
//! own times and values), then merged into rows on the union of their timestamps.

use super::order;
use super::output::Output;
use super::page::{
    append_values, check_times, compression, dec_err, decode_times, fix_dates, page_err,
    page_overlaps, page_rows, value_limit, PageOrder,
};
use super::selection::sorted;
use super::Reader;
use crate::bytes::{err, uvarint};
use crate::chunk::{read_chunk_header, PageWalker};
use crate::compress::decompress;
use crate::encoding::{decode_values, Values};
use crate::meta::SeriesMeta;
use crate::types::Encoding;
use arrowsmith_core::{ErrorCode, Result};

impl Reader<'_> {
    /// Read one non-aligned device: `fields` is the output column of each projected field
    /// and the device's series for it (`None`: all null).
    #[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
    pub(super) fn nonaligned(
        &mut self,
        fields: &[(usize, Option<&SeriesMeta>)],
        out: &mut Output,
    ) -> Result<()> {
        // Each series: its (times, values) within the range.
        let mut per: Vec<Option<(Vec<i64>, Values)>> = Vec::with_capacity(fields.len());
        // Some series holds a time twice (out-of-order chunk groups repeating it).
        let mut repeats = false;
        for (_, s) in fields {
            let Some(s) = s else {
                per.push(None);
                continue;
            };
            let mut ts = Vec::new();
            let mut vals = Values::new(s.dtype.physical());
            let mut chunks = sorted(&s.chunks);
            let ordered = order::in_order(&chunks);
            if !ordered {
                order::by_start(&mut chunks);
            }
            for c in chunks {
                if !c.stats.overlaps(self.plan.start, self.plan.end) {
                    continue;
                }
                let h = read_chunk_header(self.src, c.offset, self.file.meta_offset)?;
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
                    let p = cur.next(self.src)?;
                    if p.is_empty() {
                        continue;
                    }
                    let pstats = p.stats.unwrap_or(c.stats);
                    order.check(&p, &pstats, &c.stats)?;
                    if p.stats
                        .is_some_and(|ps| ps.count > 0 && ps.start > self.plan.end)
                    {
                        break; // pages are in time order: the rest of the chunk is past the range
                    }
                    if !page_overlaps(&p.stats.unwrap_or(c.stats), self.plan.start, self.plan.end) {
                        continue;
                    }
                    // One series: its time and value per row (the merged output rows take
                    // 8 bytes per series each, so this covers them too).
                    self.scratch
                        .budget
                        .page(&p, page_rows(&pstats, &p), Some(16))?;
                    decompress(
                        comp,
                        p.read_body(self.src, &mut self.scratch.body)?,
                        p.uncompressed,
                        &mut self.scratch.page,
                    )
                    .map_err(|m| page_err(&p, "", m))?;
                    let page = &self.scratch.page;
                    let mut pos = 0;
                    let tlen = uvarint(page, &mut pos)
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
                    let count = pstats.count as usize;
                    let limit = if count > 0 {
                        count.min(value_limit(p.uncompressed))
                    } else {
                        value_limit(p.uncompressed)
                    };
                    let pt = decode_times(&p, &pstats, tb, limit)?;
                    check_times(&p, &pstats, &pt, &mut out.span)?;
                    let mut pv = Values::new(s.dtype.physical());
                    decode_values(self.flavor, enc, vb, pt.len(), &mut pv)
                        .map_err(|e| dec_err(&p, "value", e))?;
                    if pv.len() != pt.len() {
                        return Err(page_err(
                            &p,
                            "",
                            format!("{} timestamps but {} values", pt.len(), pv.len()),
                        ));
                    }
                    fix_dates(s.dtype, &mut pv, &p)?;
                    let lo = pt.partition_point(|&t| t < self.plan.start);
                    let hi = pt.partition_point(|&t| t <= self.plan.end).max(lo);
                    ts.extend_from_slice(&pt[lo..hi]);
                    append_values(&mut vals, &pv, lo, hi);
                }
            }
            if !ordered {
                let perm = order::time_order(&ts);
                ts = perm.iter().map(|&i| ts[i]).collect();
                vals = order::gather(&vals, &perm);
                repeats |= ts.windows(2).any(|w| w[0] == w[1]);
            }
            per.push(Some((ts, vals)));
        }
        out.merge_series(fields, &per, repeats);
        Ok(())
    }
}
