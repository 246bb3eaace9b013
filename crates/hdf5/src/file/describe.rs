//! An object's full metadata as viewers show it (h5web, HDFView): the datatype as a tree,
//! the dataspace, chunks, the filter pipeline with its parameters, and every attribute's
//! type and shape. `list`/`info` summarise; this says everything the header says.

use arrowsmith_core::{ByteSource, ErrorCode, Result};

use crate::datatype::Datatype;
use crate::file::attribute;
use crate::file::dataset::Parts;
use crate::file::list::EntryKind;
use crate::file::Hdf5File;
use crate::filters;
use crate::layout::Layout;
use crate::object_header::{ObjectHeader, MSG_DATATYPE, MSG_EXTERNAL, MSG_LAYOUT};

/// A datatype, class by class, as the file declares it.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeInfo {
    /// An integer of `size` bytes.
    Int {
        /// Bytes per value.
        size: u32,
        /// Two's complement.
        signed: bool,
        /// Big-endian.
        be: bool,
        /// `(bit offset, precision)` when the value does not fill its bytes (N-bit data).
        bits: Option<(u16, u16)>,
    },
    /// A float of `size` bytes (IEEE or not: its bits are decoded either way).
    Float {
        /// Bytes per value.
        size: u32,
        /// Big-endian.
        be: bool,
        /// Its fields are IEEE 754's (else a custom layout, decoded field by field).
        ieee: bool,
    },
    /// HDF5 2.0's complex class: a real and an imaginary part of `base`.
    Complex {
        /// The type of each part.
        base: Box<TypeInfo>,
    },
    /// A string: fixed of `size` bytes, or variable-length (`size` None).
    String {
        /// Bytes per value; None for variable-length strings.
        size: Option<u32>,
        /// UTF-8 (else ASCII).
        utf8: bool,
        /// 0 null-terminated, 1 null-padded, 2 space-padded.
        pad: u8,
    },
    /// A bitfield of `size` bytes.
    Bitfield {
        /// Bytes per value.
        size: u32,
        /// Big-endian.
        be: bool,
    },
    /// Opaque bytes with the file's tag.
    Opaque {
        /// Bytes per value.
        size: u32,
        /// The tag the writer gave.
        tag: String,
    },
    /// The time class.
    Time {
        /// Bytes per value.
        size: u32,
    },
    /// Named members, in the file's order.
    Compound {
        /// `(name, byte offset, type)` per member.
        members: Vec<(String, u32, TypeInfo)>,
    },
    /// An object (`region` false) or region reference.
    Reference {
        /// A dataset region reference.
        region: bool,
    },
    /// Labelled values of an integer base type.
    Enum {
        /// The base integer type.
        base: Box<TypeInfo>,
        /// `(label, value)` per member, in the file's order.
        members: Vec<(String, i128)>,
    },
    /// A variable-length sequence of `base`.
    Vlen {
        /// The element type.
        base: Box<TypeInfo>,
    },
    /// A fixed-size array of `base` with `dims`.
    Array {
        /// The array's dimensions.
        dims: Vec<u32>,
        /// The element type.
        base: Box<TypeInfo>,
    },
}

impl TypeInfo {
    fn of(dt: &Datatype) -> TypeInfo {
        let boxed = |d: &Datatype| Box::new(TypeInfo::of(d));
        match dt {
            Datatype::Int {
                size,
                signed,
                be,
                bits,
            } => TypeInfo::Int {
                size: *size,
                signed: *signed,
                be: *be,
                bits: *bits,
            },
            Datatype::Float { size, be } => TypeInfo::Float {
                size: *size,
                be: *be,
                ieee: true,
            },
            Datatype::CustomFloat(f) => TypeInfo::Float {
                size: f.size,
                be: f.be,
                ieee: false,
            },
            Datatype::Complex { base, .. } => TypeInfo::Complex { base: boxed(base) },
            Datatype::FixedString { size, pad, utf8 } => TypeInfo::String {
                size: Some(*size),
                utf8: *utf8,
                pad: *pad,
            },
            Datatype::VlString { pad, utf8, .. } => TypeInfo::String {
                size: None,
                utf8: *utf8,
                pad: *pad,
            },
            Datatype::Bitfield { size, be } => TypeInfo::Bitfield {
                size: *size,
                be: *be,
            },
            Datatype::Opaque { size, tag } => TypeInfo::Opaque {
                size: *size,
                tag: tag.clone(),
            },
            Datatype::Time { size, .. } => TypeInfo::Time { size: *size },
            Datatype::Compound { members, .. } => TypeInfo::Compound {
                members: members
                    .iter()
                    .map(|m| (m.name.clone(), m.offset, TypeInfo::of(&m.dtype)))
                    .collect(),
            },
            Datatype::Reference { kind, .. } => TypeInfo::Reference { region: *kind != 0 },
            Datatype::Enum { base, .. } => TypeInfo::Enum {
                base: boxed(base),
                members: dt
                    .enum_members()
                    .into_iter()
                    .map(|(n, v)| (n.to_string(), v))
                    .collect(),
            },
            Datatype::VlSequence { base, .. } => TypeInfo::Vlen { base: boxed(base) },
            Datatype::Array { dims, base } => TypeInfo::Array {
                dims: dims.clone(),
                base: boxed(base),
            },
        }
    }
}

/// One filter of a dataset's pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterInfo {
    /// The registered filter id (1 deflate, 2 shuffle, 32015 zstd, …).
    pub id: u16,
    /// The name the file stores, else the filter's registered name (`deflate`), else empty.
    pub name: String,
    /// Its client data values (the filter's parameters), as stored.
    pub cd_values: Vec<u32>,
}

/// One attribute's name, type and shape.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeInfo {
    /// Its name.
    pub name: String,
    /// Its type.
    pub dtype: TypeInfo,
    /// Its dimensions; `None` for the null dataspace, empty for a scalar.
    pub dims: Option<Vec<u64>>,
}

/// Everything an object's header says.
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    /// Group, dataset or committed datatype.
    pub kind: EntryKind,
    /// The datatype (datasets and committed datatypes).
    pub dtype: Option<TypeInfo>,
    /// A dataset's dimensions; `None` for the null dataspace and non-datasets.
    pub dims: Option<Vec<u64>>,
    /// A chunked dataset's chunk dimensions.
    pub chunks: Option<Vec<u64>>,
    /// A dataset's filter pipeline.
    pub filters: Vec<FilterInfo>,
    /// The object's attributes: in creation order when the object tracks it, else as stored.
    pub attributes: Vec<AttributeInfo>,
    /// The object tracks its attributes' creation order (viewers list them in that order,
    /// else by name).
    pub attributes_in_creation_order: bool,
    /// A virtual dataset's `(file, dataset)` per mapping, as stored (`.`: this file).
    pub virtual_sources: Option<Vec<(String, String)>>,
    /// The files holding a dataset's raw data (external storage), as stored.
    pub external_files: Option<Vec<String>>,
}

fn dims_of(space: &crate::dataspace::Dataspace) -> Option<Vec<u64>> {
    (!space.null).then(|| space.dims.clone())
}

impl Hdf5File {
    /// The full metadata of the group, dataset or committed datatype at `path`. A dataset
    /// this reader cannot read (an unsupported filter, say) is described all the same: its
    /// `info` says what stands in the way.
    pub fn describe(&self, src: &dyn ByteSource, path: &str) -> Result<Description> {
        let ctx = self.ctx(src);
        let addr = self.resolve(&ctx, path, 0)?;
        let oh = ObjectHeader::parse(&ctx, addr)?;
        let tracked = attribute::creation_order_tracked(&oh);
        let mut raw = attribute::attributes(&ctx, &oh)?;
        if tracked {
            raw.sort_by_key(|a| a.crt.unwrap_or(u32::MAX));
        }
        let attributes = raw
            .into_iter()
            .map(|a| AttributeInfo {
                name: a.name,
                dtype: TypeInfo::of(&a.dtype),
                dims: dims_of(&a.space),
            })
            .collect();
        let mut d = Description {
            kind: EntryKind::Group,
            dtype: None,
            dims: None,
            chunks: None,
            filters: Vec::new(),
            attributes,
            attributes_in_creation_order: tracked,
            virtual_sources: None,
            external_files: None,
        };
        if oh.find(MSG_LAYOUT).is_some() {
            d.kind = EntryKind::Dataset;
            let p = Parts::parse(&ctx, &oh);
            d.dtype = p.dtype.as_ref().map(TypeInfo::of);
            d.dims = p.space.as_ref().and_then(dims_of);
            match &p.layout {
                Some((Layout::Chunked { dims, .. }, _)) => d.chunks = Some(dims.clone()),
                Some((Layout::Virtual { heap, index }, _)) => {
                    d.virtual_sources = Some(
                        crate::file::virtual_ds::mappings(&ctx, &self.gcol, *heap, *index)?
                            .into_iter()
                            .map(|m| (m.file, m.dataset))
                            .collect(),
                    );
                }
                _ => {}
            }
            if let Some(m) = oh.find(MSG_EXTERNAL) {
                let mut files: Vec<String> = crate::file::external_storage::parse(&ctx, m)?
                    .into_iter()
                    .map(|s| s.name)
                    .collect();
                files.dedup();
                d.external_files = Some(files);
            }
            d.filters = p
                .filters
                .iter()
                .map(|f| FilterInfo {
                    id: f.id,
                    name: if f.name.is_empty() {
                        known_name(f.id)
                    } else {
                        f.name.clone()
                    },
                    cd_values: f.cd.clone(),
                })
                .collect();
        } else if let Some(m) = oh.find(MSG_DATATYPE) {
            d.kind = EntryKind::Datatype;
            d.dtype = match attribute::datatype(&ctx, m.data, m.offset, m.flags & 2 != 0) {
                Ok(dt) => Some(TypeInfo::of(&dt)),
                Err(e) if e.code == ErrorCode::Unsupported => None,
                Err(e) => return Err(e),
            };
        }
        Ok(d)
    }
}

fn known_name(id: u16) -> String {
    match filters::filter_name(id) {
        "unknown" => String::new(),
        n => n.to_string(),
    }
}
