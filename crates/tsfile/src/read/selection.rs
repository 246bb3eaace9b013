//! Query planning: which devices and output columns a read selects, and the series of each
//! selected device.

use std::collections::HashMap;

use super::Query;
use crate::bytes::err;
use crate::file::{DeviceEntry, TsFile};
use crate::meta::{ChunkMeta, ColumnCategory, SeriesMeta, TableSchema};
use crate::types::TsType;
use arrowsmith_core::{ByteSource, ErrorCode, Result};

pub(super) enum OutKind {
    /// Tag column `k` of the table (device segment k+1).
    Tag(usize),
    /// The device path (tree model).
    Device,
    Field(TsType),
}

pub(super) struct OutCol {
    pub name: String,
    pub kind: OutKind,
}

pub(super) struct Plan<'a> {
    pub table: Option<&'a TableSchema>,
    pub devices: Vec<&'a DeviceEntry>,
    pub cols: Vec<OutCol>,
    pub start: i64,
    pub end: i64,
}

impl TsFile {
    /// The plan of `q`, and the series of each of its devices (in `Plan::devices` order).
    pub(super) fn plan_query<'a>(
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
                        ColumnCategory::Tag => {
                            all.push(OutCol {
                                name: c.name.clone(),
                                kind: OutKind::Tag(k),
                            });
                            k += 1;
                        }
                        ColumnCategory::Field => all.push(OutCol {
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
                                c.category == ColumnCategory::Time && c.name.eq_ignore_ascii_case(n)
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

/// Chunks in file order.
pub(super) fn sorted(chunks: &[ChunkMeta]) -> Vec<ChunkMeta> {
    let mut v = chunks.to_vec();
    v.sort_by_key(|c| c.offset);
    v
}
