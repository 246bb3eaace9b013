//! Dataset headers: the dataspace, datatype, layout, filter pipeline and fill value of a
//! dataset's object header, and the `info` that describes them.

use arrowsmith_core::{ByteSource, ErrorCode, Field, Result};

use crate::ctx::Ctx;
use crate::dataspace::Dataspace;
use crate::datatype::Datatype;
use crate::file::Hdf5File;
use crate::io::{err, invalid, Cur};
use crate::layout::{self, Filter, Layout};
use crate::object_header::{
    Message, ObjectHeader, MSG_DATASPACE, MSG_DATATYPE, MSG_EXTERNAL, MSG_FILL, MSG_FILL_OLD,
    MSG_FILTERS, MSG_LAYOUT,
};
use crate::schema::arrow_fields;
use crate::{attribute, filters};

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

pub(crate) struct Dataset {
    pub(crate) layout_version: u8,
    pub(crate) dtype: Datatype,
    pub(crate) space: Dataspace,
    pub(crate) layout: Layout,
    pub(crate) filters: Vec<Filter>,
    pub(crate) fill: Option<Vec<u8>>,
    pub(crate) at: u64,
}

impl Hdf5File {
    pub(crate) fn dataset_at(&self, ctx: &Ctx, addr: u64) -> Result<Dataset> {
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
        // A cursor over one message's body.
        fn body<'m>(ctx: &Ctx, m: &Message<'m>, what: &'static str) -> Cur<'m> {
            Cur::new(m.data, m.offset, what, ctx.sb.so, ctx.sb.sl)
        }
        let cur = |m, what| body(ctx, m, what);
        let sm = m(MSG_DATASPACE, "dataspace")?;
        let space = Dataspace::parse(&mut cur(sm, "dataspace message"))?;
        let tm = m(MSG_DATATYPE, "datatype")?;
        let dtype = attribute::datatype(ctx, tm.data, tm.offset, tm.flags & 2 != 0)?;
        let lm = m(MSG_LAYOUT, "layout")?;
        let layout = Layout::parse(&mut cur(lm, "layout message"))?;
        let filters = match oh.find(MSG_FILTERS) {
            Some(f) => layout::parse_filters(&mut cur(f, "filter pipeline message"))?,
            None => vec![],
        };
        let fill = match (oh.find(MSG_FILL), oh.find(MSG_FILL_OLD)) {
            (Some(f), _) => layout::parse_fill(&mut cur(f, "fill value message"), false)?,
            (None, Some(f)) => layout::parse_fill(&mut cur(f, "fill value message"), true)?,
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

    pub(crate) fn dataset(&self, ctx: &Ctx, path: &str) -> Result<Dataset> {
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
}
