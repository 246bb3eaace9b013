//! Metadata (TsFile schemas and devices, HDF5 listings) as JSON for the TS layer.
//! Values only flow out, so a tiny writer is enough; no parser, no serde.

use arrowsmith_core::describe::push_str_json;
#[cfg(feature = "hdf5")]
use arrowsmith_hdf5::{DatasetInfo, Description, Entry, EntryKind, Link, TypeInfo};
#[cfg(feature = "tsfile")]
use arrowsmith_tsfile::{ColumnCategory, DeviceInfo, TableSchema, TimeseriesInfo};

/// A JSON object being written: `obj().str("a", x).num("b", 1).finish()`.
pub struct Obj(String);

pub fn obj() -> Obj {
    Obj(String::from("{"))
}

impl Obj {
    fn key(&mut self, k: &str) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        push_str_json(&mut self.0, k);
        self.0.push(':');
    }
    pub fn str(mut self, k: &str, v: &str) -> Self {
        self.key(k);
        push_str_json(&mut self.0, v);
        self
    }
    pub fn opt_str(mut self, k: &str, v: Option<&str>) -> Self {
        self.key(k);
        match v {
            Some(v) => push_str_json(&mut self.0, v),
            None => self.0.push_str("null"),
        }
        self
    }
    /// Numbers go out as JSON numbers; i64 beyond 2^53 would lose precision, so times are
    /// sent as strings by the callers that need exactness.
    pub fn num(mut self, k: &str, v: impl std::fmt::Display) -> Self {
        self.key(k);
        self.0.push_str(&v.to_string());
        self
    }
    #[cfg(feature = "tsfile")]
    pub fn bool(mut self, k: &str, v: bool) -> Self {
        self.key(k);
        self.0.push_str(if v { "true" } else { "false" });
        self
    }
    pub fn raw(mut self, k: &str, json: &str) -> Self {
        self.key(k);
        self.0.push_str(json);
        self
    }
    pub fn finish(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

pub fn array<T>(items: impl IntoIterator<Item = T>, f: impl Fn(T) -> String) -> String {
    let parts: Vec<String> = items.into_iter().map(f).collect();
    format!("[{}]", parts.join(","))
}

fn str_json(s: &str) -> String {
    let mut out = String::new();
    push_str_json(&mut out, s);
    out
}

#[cfg(feature = "tsfile")]
fn opt_str_json(s: &Option<String>) -> String {
    s.as_deref().map_or_else(|| "null".to_string(), str_json)
}

#[cfg(feature = "tsfile")]
pub fn tables(tables: &[TableSchema]) -> String {
    array(tables, |t| {
        obj()
            .str("name", &t.name)
            .raw(
                "columns",
                &array(&t.columns, |c| {
                    obj()
                        .str("name", &c.name)
                        .str("type", c.dtype.name())
                        .str(
                            "category",
                            match c.category {
                                ColumnCategory::Tag => "TAG",
                                ColumnCategory::Field => "FIELD",
                                ColumnCategory::Attribute => "ATTRIBUTE",
                                ColumnCategory::Time => "TIME",
                            },
                        )
                        .opt_str("encoding", c.encoding.map(|e| e.name()))
                        .opt_str("compression", c.compression.map(|e| e.name()))
                        .finish()
                }),
            )
            .finish()
    })
}

#[cfg(feature = "tsfile")]
pub fn devices(devices: &[DeviceInfo]) -> String {
    array(devices, |d| {
        obj()
            .str("table", &d.table)
            .str("path", &d.path)
            .raw("segments", &array(&d.segments, opt_str_json))
            .raw("tags", &array(&d.tags, opt_str_json))
            .finish()
    })
}

#[cfg(feature = "tsfile")]
pub fn timeseries(series: &[TimeseriesInfo]) -> String {
    array(series, |s| {
        obj()
            .str("device", &s.device)
            .str("measurement", &s.measurement)
            .str("type", s.dtype.name())
            .bool("aligned", s.aligned)
            .opt_str("encoding", s.encoding.map(|e| e.name()))
            .opt_str("compression", s.compression.map(|e| e.name()))
            .num("count", s.count)
            .str("start", &s.start.to_string())
            .str("end", &s.end.to_string())
            .num("chunks", s.chunks)
            .finish()
    })
}

#[cfg(feature = "hdf5")]
fn kind(k: EntryKind) -> &'static str {
    match k {
        EntryKind::Group => "group",
        EntryKind::Dataset => "dataset",
        EntryKind::Datatype => "datatype",
        EntryKind::Link => "link",
    }
}

#[cfg(feature = "hdf5")]
pub fn entries(entries: &[Entry]) -> String {
    array(entries, |e| {
        let o = obj()
            .str("name", &e.name)
            .str("kind", kind(e.kind))
            .raw("shape", &array(&e.shape, |d| d.to_string()))
            .str("dtype", &e.dtype);
        let o = if e.addr == u64::MAX {
            o
        } else {
            o.num("addr", e.addr)
        };
        let o = match e.creation_order {
            Some(c) => o.num("order", c),
            None => o,
        };
        let o = if e.target.is_empty() {
            o
        } else {
            o.str("target", &e.target)
        };
        let o = match &e.link {
            Some(Link::Soft(p)) => {
                o.raw("link", &obj().str("class", "soft").str("path", p).finish())
            }
            Some(Link::External { file, path }) => o.raw(
                "link",
                &obj()
                    .str("class", "external")
                    .str("file", file)
                    .str("path", path)
                    .finish(),
            ),
            None => o,
        };
        match &e.unsupported {
            Some(u) => o.str("unsupported", u),
            None => o,
        }
        .finish()
    })
}

/// External storage pieces as `[{"file", "offset", "length"}, ...]`.
#[cfg(feature = "hdf5")]
pub fn external_pieces(p: &[(String, u64, u64)]) -> String {
    array(p, |(file, offset, length)| {
        obj()
            .str("file", file)
            .num("offset", offset)
            .num("length", length)
            .finish()
    })
}

#[cfg(feature = "hdf5")]
pub fn dataset_info(i: &DatasetInfo) -> String {
    obj()
        .raw("shape", &array(&i.shape, |d| d.to_string()))
        .raw(
            "maxshape",
            &array(&i.maxshape, |d| d.map_or("null".into(), |d| d.to_string())),
        )
        .str("dtype", &i.dtype)
        .num("elementSize", i.element_size)
        .str("layout", &i.layout)
        .num("layoutVersion", i.layout_version)
        .raw(
            "chunks",
            &i.chunks
                .as_ref()
                .map_or("null".into(), |c| array(c, |d| d.to_string())),
        )
        .opt_str("chunkIndex", i.chunk_index.as_deref())
        .raw("filters", &array(&i.filters, |f| str_json(f)))
        .raw("fields", &array(&i.fields, |f| str_json(&f.name)))
        .opt_str("unsupported", i.unsupported.as_deref())
        .finish()
}

#[cfg(feature = "hdf5")]
fn dims_json(d: &Option<Vec<u64>>) -> String {
    d.as_ref()
        .map_or("null".into(), |d| array(d, |x| x.to_string()))
}

/// A datatype as `{"class": "int", ...}`, recursively.
#[cfg(feature = "hdf5")]
pub fn type_json(t: &TypeInfo) -> String {
    match t {
        TypeInfo::Int {
            size,
            signed,
            be,
            bits,
        } => {
            let o = obj()
                .str("class", "int")
                .num("size", size)
                .num("signed", signed)
                .num("be", be);
            match bits {
                Some((offset, precision)) => o.num("offset", offset).num("precision", precision),
                None => o,
            }
            .finish()
        }
        TypeInfo::Float { size, be, ieee } => obj()
            .str("class", "float")
            .num("size", size)
            .num("be", be)
            .num("ieee", ieee)
            .finish(),
        TypeInfo::Complex { base } => obj()
            .str("class", "complex")
            .raw("base", &type_json(base))
            .finish(),
        TypeInfo::String { size, utf8, pad } => obj()
            .str("class", "string")
            .raw("size", &size.map_or("null".into(), |s| s.to_string()))
            .num("utf8", utf8)
            .num("pad", pad)
            .finish(),
        TypeInfo::Bitfield { size, be } => obj()
            .str("class", "bitfield")
            .num("size", size)
            .num("be", be)
            .finish(),
        TypeInfo::Opaque { size, tag } => obj()
            .str("class", "opaque")
            .num("size", size)
            .str("tag", tag)
            .finish(),
        TypeInfo::Time { size } => obj().str("class", "time").num("size", size).finish(),
        TypeInfo::Compound { members } => obj()
            .str("class", "compound")
            .raw(
                "members",
                &array(members, |(n, offset, t)| {
                    obj()
                        .str("name", n)
                        .num("offset", offset)
                        .raw("type", &type_json(t))
                        .finish()
                }),
            )
            .finish(),
        TypeInfo::Reference { region } => obj()
            .str("class", "reference")
            .num("region", region)
            .finish(),
        TypeInfo::Enum { base, members } => obj()
            .str("class", "enum")
            .raw("base", &type_json(base))
            .raw(
                "members",
                &array(members, |(n, v)| {
                    obj().str("name", n).num("value", v).finish()
                }),
            )
            .finish(),
        TypeInfo::Vlen { base } => obj()
            .str("class", "vlen")
            .raw("base", &type_json(base))
            .finish(),
        TypeInfo::Array { dims, base } => obj()
            .str("class", "array")
            .raw("dims", &array(dims, |d| d.to_string()))
            .raw("base", &type_json(base))
            .finish(),
    }
}

/// An object's full metadata (`Hdf5File::describe`).
#[cfg(feature = "hdf5")]
pub fn description(d: &Description) -> String {
    obj()
        .str("kind", kind(d.kind))
        .raw("type", &d.dtype.as_ref().map_or("null".into(), type_json))
        .raw("dims", &dims_json(&d.dims))
        .raw("chunks", &dims_json(&d.chunks))
        .raw(
            "filters",
            &array(&d.filters, |f| {
                obj()
                    .num("id", f.id)
                    .str("name", &f.name)
                    .raw("cdValues", &array(&f.cd_values, |v| v.to_string()))
                    .finish()
            }),
        )
        .raw(
            "attributes",
            &array(&d.attributes, |a| {
                obj()
                    .str("name", &a.name)
                    .raw("type", &type_json(&a.dtype))
                    .raw("dims", &dims_json(&a.dims))
                    .finish()
            }),
        )
        .raw(
            "attributesInCreationOrder",
            if d.attributes_in_creation_order {
                "true"
            } else {
                "false"
            },
        )
        .raw(
            "externalFiles",
            &d.external_files
                .as_ref()
                .map_or("null".into(), |v| array(v, |f| str_json(f))),
        )
        .raw(
            "virtualSources",
            &d.virtual_sources.as_ref().map_or("null".into(), |v| {
                array(v, |(f, p)| obj().str("file", f).str("path", p).finish())
            }),
        )
        .finish()
}
