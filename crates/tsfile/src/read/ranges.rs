//! The byte ranges a read will touch, for a host to prefetch.

use super::order::in_order;
use super::selection::{sorted, OutKind};
use super::Query;
use crate::file::TsFile;
use crate::types::TsType;
use arrowsmith_core::{ByteSource, Result};

impl TsFile {
    /// Byte ranges (start, end) of every chunk `read(q)` will touch, sorted and coalesced,
    /// so a host can prefetch them. Needs the index (see [`TsFile::index_range`]). With a
    /// limit, devices stop being planned once those planned surely hold that many rows (a
    /// lower bound from the statistics: deletions or partly covered chunks may hold fewer,
    /// and then the read asks for the rest as it goes).
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
        let mut sure_rows = 0u64;
        for (di, _) in plan.devices.iter().enumerate() {
            if q.limit
                .is_some_and(|l| q.mods.is_none() && sure_rows >= l as u64)
            {
                break;
            }
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
                // Every time point is a row (out-of-order chunks keep every point too).
                sure_rows = sure_rows.saturating_add(within(&tchunks, plan.start, plan.end));
            } else {
                let mut most = 0;
                for s in ss.iter().filter(|s| wanted(&s.name)) {
                    for c in &s.chunks {
                        if c.stats.overlaps(plan.start, plan.end) {
                            ranges.push(extent(c.offset));
                        }
                    }
                    // Rows are the union of the series' times: at least one series' own
                    // (distinct when its chunks follow one another).
                    if in_order(&sorted(&s.chunks)) {
                        most = most.max(within(&s.chunks, plan.start, plan.end));
                    }
                }
                sure_rows = sure_rows.saturating_add(most);
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
}

/// Points of the chunks lying wholly in `start..=end`.
fn within(chunks: &[crate::meta::ChunkMeta], start: i64, end: i64) -> u64 {
    chunks
        .iter()
        .filter(|c| c.stats.count > 0 && c.stats.within(start, end))
        .fold(0u64, |n, c| n.saturating_add(c.stats.count))
}
