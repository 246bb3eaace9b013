//! Queries: device selection, chunk/page pruning, batch decoding into an Arrow batch.
//!
//! `selection` plans a query (devices, output columns), `ranges` lists the bytes it will
//! touch, `aligned` and `nonaligned` are the two page loops, filling an `output`; `page`
//! holds their checks, `budget` the read's memory limit.

mod aligned;
mod budget;
mod js_time;
mod nonaligned;
mod order;
mod output;
mod page;
mod query;
mod ranges;
mod selection;

pub use query::{Query, DEFAULT_MAX_READ_BYTES};

use budget::{Budget, Scratch};
use output::Output;
use selection::{OutKind, Plan};

use crate::bytes::err;
use crate::encoding::Flavor;
use crate::file::{DeviceEntry, TsFile};
use crate::meta::SeriesMeta;
use crate::types::TsType;
use arrowsmith_core::{Batch, ByteSource, ErrorCode, Result, TimeUnit};

/// What the page loops of one read share: the file, its bytes, the plan, the writer's
/// quirks and the reused buffers with the memory budget.
struct Reader<'a> {
    file: &'a TsFile,
    src: &'a dyn ByteSource,
    plan: &'a Plan<'a>,
    flavor: Flavor,
    scratch: Scratch,
}

impl TsFile {
    pub(crate) fn flavor(&self) -> Flavor {
        // The C++ writer stores the `encryptKey` property as null, Java as "".
        let cpp = self
            .properties
            .iter()
            .any(|(k, v)| k == "encryptKey" && v.is_none());
        Flavor {
            version: self.version,
            cpp,
        }
    }

    /// Read the query into one batch: `time`, then the selected tag/device and field columns.
    pub fn read(&self, src: &dyn ByteSource, q: &Query) -> Result<Batch> {
        self.read_as(src, q, TimeUnit::Millisecond)
    }

    /// [`TsFile::read`] with the unit to label the `time` column and TIMESTAMP fields with
    /// (the file does not record one; values are passed through unchanged).
    pub fn read_as(&self, src: &dyn ByteSource, q: &Query, unit: TimeUnit) -> Result<Batch> {
        let (plan, series) = self.plan_query(src, q)?;
        let mut out = Output::new(&plan.cols, q.limit);
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
        let row_bytes = out.row_bytes();
        let cap = (self.size as usize)
            .saturating_mul(32)
            .saturating_add(1 << 20)
            / row_bytes;
        let max = q.max_read_bytes.unwrap_or(DEFAULT_MAX_READ_BYTES);
        let cap = cap.min((max / row_bytes as u64) as usize);
        out.reserve((estimate as usize).min(out.remaining()).min(cap));
        let mut reader = Reader {
            file: self,
            src,
            plan: &plan,
            flavor: self.flavor(),
            scratch: Scratch {
                budget: Budget::new(max, row_bytes),
                ..Default::default()
            },
        };
        for (di, dev) in plan.devices.iter().enumerate() {
            if out.remaining() == 0 {
                break;
            }
            // Deletions hide rows after they are decoded, so the device is read whole and
            // the limit applied after them.
            out.start_device(q.mods.is_some());
            let ss = &series[di];
            let fields = field_series(&plan, ss, dev)?;
            if let Some(time) = ss.iter().find(|s| s.dtype == TsType::Vector) {
                reader.aligned(time, &fields, &mut out)?;
            } else {
                reader.nonaligned(&fields, &mut out)?;
            }
            if let Some(m) = &q.mods {
                let tree = plan.table.is_none() && q.table.is_none();
                out.hide_deleted(&m.for_device(&dev.id.segments, tree), &plan.cols);
            }
            out.end_device(di);
        }
        out.finish(&plan, &series, unit, q.native_times)
    }
}

/// The output column of each projected field, with the device's series for it (`None`: the
/// device lacks it); a series whose type differs from the schema's is refused.
fn field_series<'s>(
    plan: &Plan,
    ss: &'s [SeriesMeta],
    device: &DeviceEntry,
) -> Result<Vec<(usize, Option<&'s SeriesMeta>)>> {
    let fields: Vec<(usize, Option<&SeriesMeta>)> = plan
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
    for (i, s) in &fields {
        if let (Some(s), OutKind::Field(t)) = (s, &plan.cols[*i].kind) {
            if s.dtype.physical() != t.physical() {
                return Err(err(
                    0,
                    ErrorCode::TypeMismatch,
                    format!(
                        "device {}: column {} is {} in the file but {} in the schema",
                        device.id.path(),
                        s.name,
                        s.dtype.name(),
                        t.name()
                    ),
                ));
            }
        }
    }
    Ok(fields)
}
