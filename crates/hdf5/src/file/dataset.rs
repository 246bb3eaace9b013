//! Dataset headers: the dataspace, datatype, layout, filter pipeline and fill value of a
//! dataset's object header, and the `info` that describes them.

use arrowsmith_core::{ByteSource, ErrorCode, Field, Result};

use crate::dataspace::Dataspace;
use crate::datatype::Datatype;
use crate::file::attribute;
use crate::file::ctx::Ctx;
use crate::file::schema::arrow_fields;
use crate::file::Hdf5File;
use crate::filters;
use crate::io::{err, invalid, Cur};
use crate::layout::{self, Filter, Layout};
use crate::object_header::{
    Message, ObjectHeader, MSG_DATASPACE, MSG_DATATYPE, MSG_EXTERNAL, MSG_FILL, MSG_FILL_OLD,
    MSG_FILTERS, MSG_LAYOUT,
};

/// What a dataset is: its shape, type, storage and filters.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetInfo {
    /// The extent of each dimension (empty for a scalar).
    pub shape: Vec<u64>,
    /// `None` = unlimited.
    pub maxshape: Vec<Option<u64>>,
    /// The datatype described in words, e.g. `int32le` or `vlen-str(utf8)`.
    pub dtype: String,
    /// Bytes per element on disk (16 for VL cells with 8-byte offsets).
    pub element_size: u64,
    /// "compact" | "contiguous" | "chunked".
    pub layout: String,
    /// Data layout message version (1–5).
    pub layout_version: u8,
    /// The chunk shape of a chunked dataset.
    pub chunks: Option<Vec<u64>>,
    /// "btree-v1" | "single-chunk" | "implicit" | "fixed-array" | "extensible-array" | "btree-v2".
    pub chunk_index: Option<String>,
    /// Filter names in pipeline order, e.g. ["shuffle", "deflate"].
    pub filters: Vec<String>,
    /// The Arrow fields `read` returns (none when the datatype cannot be decoded).
    pub fields: Vec<Field>,
    /// What this reader cannot read in the dataset, in words (`virtual dataset`, `filter
    /// id 32026 (blosc2) is not supported`): a `read` fails `Unsupported` with it. The
    /// other fields say what the header does describe.
    pub unsupported: Option<String>,
}

/// A dataset header's messages parsed one by one, each kept if it parses: what `list` and
/// `info` still show of a dataset that uses a feature this reader does not decode.
pub(crate) struct Parts {
    pub(crate) space: Option<Dataspace>,
    pub(crate) dtype: Option<Datatype>,
    pub(crate) layout: Option<(Layout, u8)>,
    pub(crate) filters: Vec<Filter>,
}

impl Parts {
    pub(crate) fn parse<'a>(ctx: &Ctx<'a>, oh: &ObjectHeader<'a>) -> Parts {
        let cur = |m: &Message<'a>, what| Cur::new(m.data, m.offset, what, ctx.sb.so, ctx.sb.sl);
        let space = oh
            .find(MSG_DATASPACE)
            .and_then(|m| Dataspace::parse(&mut cur(m, "dataspace message")).ok());
        let dtype = oh
            .find(MSG_DATATYPE)
            .and_then(|m| attribute::datatype(ctx, m.data, m.offset, m.flags & 2 != 0).ok());
        let layout = oh.find(MSG_LAYOUT).and_then(|m| {
            let l = Layout::parse(&mut cur(m, "layout message")).ok()?;
            Some((l, m.data.first().copied().unwrap_or(0)))
        });
        let filters = oh
            .find(MSG_FILTERS)
            .and_then(|m| layout::parse_filters(&mut cur(m, "filter pipeline message")).ok())
            .unwrap_or_default();
        Parts {
            space,
            dtype,
            layout,
            filters,
        }
    }

    pub(crate) fn shape(&self) -> Vec<u64> {
        self.space
            .as_ref()
            .map(|s| s.dims.clone())
            .unwrap_or_default()
    }

    pub(crate) fn dtype(&self) -> String {
        self.dtype
            .as_ref()
            .map(Datatype::describe)
            .unwrap_or_default()
    }
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
        let (ds, external) = self.dataset_and_external(ctx, addr)?;
        match external {
            Some(slots) => Err(crate::file::external_storage::refusal(ds.at, &slots)),
            None => Ok(ds),
        }
    }

    /// The dataset at `addr` and, when its raw data is in other files, their slots.
    pub(crate) fn dataset_and_external(
        &self,
        ctx: &Ctx,
        addr: u64,
    ) -> Result<(
        Dataset,
        Option<Vec<crate::file::external_storage::ExternalSlot>>,
    )> {
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
        let external = match oh.find(MSG_EXTERNAL) {
            Some(m) => Some(crate::file::external_storage::parse(ctx, m)?),
            None => None,
        };
        if dtype.size() == 0 {
            return Err(invalid(tm.offset, "datatype of size 0"));
        }
        Ok((
            Dataset {
                layout_version: lm.data.first().copied().unwrap_or(0),
                dtype,
                space,
                layout,
                filters,
                fill,
                at,
            },
            external,
        ))
    }

    pub(crate) fn dataset(&self, ctx: &Ctx, path: &str) -> Result<Dataset> {
        let addr = self.resolve(ctx, path, 0)?;
        self.dataset_at(ctx, addr)
    }

    /// What the dataset's header says, and what this reader cannot read in it
    /// (`unsupported`); fails only for a path that is not a dataset or a broken header.
    pub fn info(&self, src: &dyn ByteSource, path: &str) -> Result<DatasetInfo> {
        let ctx = self.ctx(src);
        let addr = self.resolve(&ctx, path, 0)?;
        let ds = match self.dataset_at(&ctx, addr) {
            Ok(ds) => ds,
            Err(e) if e.code == ErrorCode::Unsupported => {
                let oh = ObjectHeader::parse(&ctx, addr)?;
                return Ok(partial_info(&Parts::parse(&ctx, &oh), e.message));
            }
            Err(e) => return Err(e),
        };
        let (chunks, chunk_index) = chunking(&ds.layout);
        Ok(DatasetInfo {
            shape: ds.space.dims.clone(),
            maxshape: ds.space.maxdims.clone(),
            dtype: ds.dtype.describe(),
            element_size: ds.dtype.size() as u64,
            layout: ds.layout.name().to_string(),
            layout_version: ds.layout_version,
            chunks,
            chunk_index,
            filters: filter_names(&ds.filters),
            fields: arrow_fields(&ds.dtype, &ds.space, path),
            unsupported: ds.unsupported().map(|e| e.message),
        })
    }
}

impl Dataset {
    /// A feature of this (parsed) dataset that a read refuses: an unsupported filter.
    pub(crate) fn unsupported(&self) -> Option<arrowsmith_core::DecodeError> {
        filters::check_supported(&self.filters, self.at).err()
    }
}

fn chunking(l: &Layout) -> (Option<Vec<u64>>, Option<String>) {
    match l {
        Layout::Chunked { dims, index, .. } => (Some(dims.clone()), Some(index.name().to_string())),
        _ => (None, None),
    }
}

fn filter_names(f: &[Filter]) -> Vec<String> {
    f.iter()
        .map(|f| filters::filter_name(f.id).to_string())
        .collect()
}

/// The info of a dataset whose header uses something this reader cannot read: each part
/// that parses, no fields.
fn partial_info(p: &Parts, unsupported: String) -> DatasetInfo {
    let (chunks, chunk_index) = p.layout.as_ref().map_or((None, None), |l| chunking(&l.0));
    DatasetInfo {
        shape: p.shape(),
        maxshape: p
            .space
            .as_ref()
            .map(|s| s.maxdims.clone())
            .unwrap_or_default(),
        dtype: p.dtype(),
        element_size: p.dtype.as_ref().map_or(0, |d| d.size() as u64),
        layout: p
            .layout
            .as_ref()
            .map_or(String::new(), |l| l.0.name().to_string()),
        layout_version: p.layout.as_ref().map_or(0, |l| l.1),
        chunks,
        chunk_index,
        filters: filter_names(&p.filters),
        fields: vec![],
        unsupported: Some(unsupported),
    }
}
