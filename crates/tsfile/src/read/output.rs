//! The output of one read: the `time` column, one builder per field column, and which
//! device each run of rows came from (expanded into the tag/device columns at the end).

use std::collections::HashMap;

use super::js_time::js_readable;
use super::page::TimeSpan;
use super::selection::{OutCol, OutKind, Plan};
use crate::builder::{arrow_type, ColBuilder};
use crate::encoding::Values;
use crate::meta::SeriesMeta;
use crate::mods::{deleted, DeviceMods};
use crate::types::TsType;
use arrowsmith_core::{Batch, Bitmap, Buffer, Column, DataType, Field, Result, TimeUnit};

pub(super) struct Output {
    /// The `time` column.
    pub times: Vec<i64>,
    /// Bounds every value of `times` (grown by `check_times` as pages are decoded).
    pub span: TimeSpan,
    /// One per output column, in order: a builder for a field column, `None` for a tag or
    /// device column (filled from `row_devices` at the end).
    builders: Vec<Option<ColBuilder>>,
    /// Rows the read may still add (the query's limit).
    remaining: usize,
    /// Rows the device being read may still add: `remaining`, or unbounded while its
    /// deletions are still to be applied.
    pub room: usize,
    /// The first row of the device being read.
    device_start: usize,
    /// (device index in the plan, rows), one per device that added rows, in row order.
    row_devices: Vec<(usize, usize)>,
}

impl Output {
    pub fn new(cols: &[OutCol], limit: Option<usize>) -> Self {
        let remaining = limit.unwrap_or(usize::MAX);
        Output {
            times: Vec::new(),
            span: TimeSpan::default(),
            builders: cols
                .iter()
                .map(|c| match c.kind {
                    OutKind::Field(t) => Some(ColBuilder::new(t)),
                    _ => None,
                })
                .collect(),
            remaining,
            room: remaining,
            device_start: 0,
            row_devices: Vec::new(),
        }
    }

    /// Output bytes per row: time and field columns, 8 bytes each.
    pub fn row_bytes(&self) -> usize {
        8 + 8 * self.builders.iter().flatten().count()
    }

    /// Rows the read may still add.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// Reserve room for `rows` rows in every column.
    pub fn reserve(&mut self, rows: usize) {
        self.times.reserve(rows);
        for b in self.builders.iter_mut().flatten() {
            b.reserve(rows);
        }
    }

    /// The builder of field column `i`.
    pub fn builder(&mut self, i: usize) -> &mut ColBuilder {
        self.builders[i].as_mut().expect("a field column")
    }

    /// Start a device's rows; with `unbounded`, its deletions hide rows after they are
    /// decoded, so the device is read whole and the limit applied after them.
    pub fn start_device(&mut self, unbounded: bool) {
        self.device_start = self.times.len();
        self.room = if unbounded {
            usize::MAX
        } else {
            self.remaining
        };
    }

    /// End device `di`'s rows: count them against the limit.
    pub fn end_device(&mut self, di: usize) {
        let n = self.times.len() - self.device_start;
        self.remaining -= n.min(self.remaining);
        if n > 0 {
            self.row_devices.push((di, n));
        }
    }

    /// Apply one device's deletions to its rows: whole rows deleted, values of deleted
    /// series nulled; in the tree model a row left with no value (every point of it deleted)
    /// goes too, as IoTDB has no row there. Then at most `remaining` rows are kept.
    pub fn hide_deleted(&mut self, m: &DeviceMods, cols: &[OutCol]) {
        let (from, limit) = (self.device_start, self.remaining);
        let (times, builders) = (&mut self.times, &mut self.builders);
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

    /// Merge the (times, values) of a non-aligned device's series (`fields`: output column,
    /// `per`: its rows, `None` when the device lacks the series): the union of their
    /// timestamps, each sorted, capped by `room`; a series without a row at a time is null.
    /// `repeats`: some series holds a time twice (out-of-order chunk groups), see
    /// [`Output::merge_repeats`].
    pub fn merge_series(
        &mut self,
        fields: &[(usize, Option<&SeriesMeta>)],
        per: &[Option<(Vec<i64>, Values)>],
        repeats: bool,
    ) {
        if repeats {
            return self.merge_repeats(fields, per);
        }
        // Union of timestamps (each series is sorted), capped by the limit.
        let mut union: Vec<i64> = per
            .iter()
            .flatten()
            .flat_map(|(t, _)| t.iter().copied())
            .collect();
        union.sort_unstable();
        union.dedup();
        // A series with as many times as the whole union has every one of them.
        let full = union.len();
        union.truncate(self.room);
        for (j, (bi, _)) in fields.iter().enumerate() {
            let b = self.builder(*bi);
            let Some((ts, vals)) = &per[j] else {
                b.push_nulls(union.len());
                continue;
            };
            if ts.len() == full {
                b.push_run(vals, 0, union.len());
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
        self.room -= union.len();
        self.times.extend_from_slice(&union);
    }

    /// [`Output::merge_series`] when a series holds a time more than once: a time takes as
    /// many rows as the series holding it most often, the i-th point of each series at that
    /// time going into its i-th row (points of one time are in chunk order).
    #[inline(never)] // the rare path: out of line
    fn merge_repeats(
        &mut self,
        fields: &[(usize, Option<&SeriesMeta>)],
        per: &[Option<(Vec<i64>, Values)>],
    ) {
        let mut pos = vec![0usize; per.len()];
        let run = |ts: &[i64], at: usize, t: i64| ts[at..].iter().take_while(|&&x| x == t).count();
        while self.room > 0 {
            let Some(t) = per
                .iter()
                .zip(&pos)
                .filter_map(|(p, &k)| p.as_ref().and_then(|(ts, _)| ts.get(k).copied()))
                .min()
            else {
                break;
            };
            let rows = per
                .iter()
                .zip(&pos)
                .filter_map(|(p, &k)| p.as_ref().map(|(ts, _)| run(ts, k, t)))
                .max()
                .unwrap_or(0)
                .min(self.room);
            for (j, (bi, _)) in fields.iter().enumerate() {
                let b = self.builders[*bi].as_mut().expect("a field column");
                let Some((ts, vals)) = &per[j] else {
                    b.push_nulls(rows);
                    continue;
                };
                let n = run(ts, pos[j], t);
                let kept = n.min(rows);
                b.push_run(vals, pos[j], pos[j] + kept);
                b.push_nulls(rows - kept);
                pos[j] += n;
            }
            self.times.extend(std::iter::repeat_n(t, rows));
            self.room -= rows;
        }
    }

    /// Put the rows of the device being read (from `start_device`) in time order, equal
    /// times keeping their order (out-of-order chunk groups of an aligned device, read
    /// chunk after chunk by start time); then at most `room` of them are kept.
    pub fn sort_device_rows(&mut self, room: usize) {
        let from = self.device_start;
        let perm = super::order::time_order(&self.times[from..]);
        let sorted: Vec<i64> = perm.iter().map(|&i| self.times[from + i]).collect();
        self.times.truncate(from);
        self.times.extend_from_slice(&sorted);
        for b in self.builders.iter_mut().flatten() {
            b.permute_tail(from, &perm);
        }
        let n = self.times.len() - from;
        if n > room {
            let keep: Vec<bool> = (0..n).map(|r| r < room).collect();
            self.times.truncate(from + room);
            for b in self.builders.iter_mut().flatten() {
                b.retain_tail(from, &keep);
            }
        }
        self.room = room - n.min(room);
    }

    /// The batch: `time`, then the plan's columns in order (`series`: each device's series,
    /// naming the device of a row an error is about).
    pub fn finish(
        self,
        plan: &Plan,
        series: &[Vec<SeriesMeta>],
        unit: TimeUnit,
        native_times: bool,
    ) -> Result<Batch> {
        let Output {
            times,
            span,
            mut builders,
            row_devices,
            ..
        } = self;
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
        if !native_times {
            js_readable(&times, Some(span), unit, "time", &device_of)?;
        }
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
                    let b = builders[i].take().expect("a field column");
                    debug_assert_eq!(b.len(), nrows);
                    fields.push(Field::new(c.name.clone(), arrow_type(t, unit), true));
                    let col = b.finish(unit);
                    if let (TsType::Timestamp, [Buffer::I64(v)], false) =
                        (t, &col.buffers[..], native_times)
                    {
                        js_readable(v, None, unit, &c.name, &device_of)?;
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
        Ok(Batch {
            fields,
            columns,
            num_rows: nrows,
        })
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
