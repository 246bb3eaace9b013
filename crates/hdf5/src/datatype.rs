//! Datatype message: every class, recursively (compound, array, enum, variable-length).

use arrowsmith_core::{DataType, Field, Result};

use crate::custom_float::CustomFloat;
use crate::io::{unsupported, Cur};

#[derive(Debug, Clone, PartialEq)]
pub enum Datatype {
    Int {
        size: u32,
        signed: bool,
        be: bool,
        /// `(bit offset, precision)` when the value does not fill its bytes (e.g. 12
        /// significant bits in 16, as N-bit data is written): the value is bits
        /// `offset..offset + precision`, sign-extended when signed.
        bits: Option<(u16, u16)>,
    },
    /// An IEEE 754 binary16/32/64 float (fields where the standard puts them).
    Float {
        size: u32,
        be: bool,
    },
    /// A float whose fields are not IEEE 754's (see [`CustomFloat`]).
    CustomFloat(Box<CustomFloat>),
    /// HDF5 2.0's complex class (11): a real and an imaginary part of one float type,
    /// read as a FixedSizeList of 2 (`[real, imag]`).
    Complex {
        size: u32,
        base: Box<Datatype>,
    },
    /// Fixed-length string. `pad`: 0 null-terminated, 1 null-padded, 2 space-padded.
    FixedString {
        size: u32,
        pad: u8,
        utf8: bool,
    },
    Bitfield {
        size: u32,
        be: bool,
    },
    Opaque {
        size: u32,
        tag: String,
    },
    /// The time class (`H5T_UNIX_D32` / `D64`), written by PyTables for Time32 / Time64
    /// (libhdf5 converts nothing for it; h5py cannot read it). PyTables' encoding: 4 bytes
    /// = int32 seconds; 8 bytes = seconds in the high 32 bits, microseconds in the low 32,
    /// both signed, read as float64 seconds. Other sizes: the element bytes.
    Time {
        size: u32,
        be: bool,
    },
    Compound {
        size: u32,
        members: Vec<Member>,
    },
    /// Object (`region == false`, size = size of offsets) or region reference.
    Reference {
        size: u32,
        kind: u8,
    },
    Enum {
        base: Box<Datatype>,
        names: Vec<String>,
        values: Vec<Vec<u8>>,
    },
    /// On-disk cell size (4 + size of offsets + 4).
    VlString {
        size: u32,
        pad: u8,
        utf8: bool,
    },
    VlSequence {
        size: u32,
        base: Box<Datatype>,
    },
    Array {
        dims: Vec<u32>,
        base: Box<Datatype>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    pub offset: u32,
    pub dtype: Datatype,
}

impl Datatype {
    /// The Arrow type this datatype reads as: the one mapping behind `info()`'s fields and
    /// the decoder's columns (a string column whose bytes are not UTF-8 reads as Binary).
    pub fn arrow_type(&self) -> DataType {
        use DataType as D;
        match self {
            Datatype::Int { size, signed, .. } => match (size, signed) {
                (1, true) => D::Int8,
                (1, false) => D::UInt8,
                (2, true) => D::Int16,
                (2, false) => D::UInt16,
                (4, true) => D::Int32,
                (4, false) => D::UInt32,
                (3..=8, true) => D::Int64,
                (3..=8, false) => D::UInt64,
                _ => D::Binary,
            },
            Datatype::Float { size: 2, .. } => D::Float16,
            Datatype::Float { size: 4, .. } => D::Float32,
            Datatype::Float { .. } => D::Float64,
            Datatype::CustomFloat(f) => f.arrow_type(),
            Datatype::Complex { base, .. } => {
                D::FixedSizeList(Box::new(Field::new("item", base.arrow_type(), true)), 2)
            }
            Datatype::FixedString { .. } | Datatype::VlString { .. } => D::Utf8,
            Datatype::Reference { size: 8, kind: 0 } => D::UInt64,
            Datatype::Bitfield { size, .. } if matches!(size, 1 | 2 | 4 | 8) => Datatype::Int {
                size: *size,
                signed: false,
                be: false,
                bits: None,
            }
            .arrow_type(),
            Datatype::Time { size: 4, .. } => D::Int32,
            Datatype::Time { size: 8, .. } => D::Float64,
            Datatype::Bitfield { .. }
            | Datatype::Opaque { .. }
            | Datatype::Time { .. }
            | Datatype::Reference { .. } => D::Binary,
            Datatype::Enum { .. } if self.is_bool_enum() => D::Bool,
            Datatype::Enum { .. } => D::DictionaryUtf8,
            Datatype::Compound { members, .. } => D::Struct(
                members
                    .iter()
                    .map(|m| Field::new(m.name.clone(), m.dtype.arrow_type(), true))
                    .collect(),
            ),
            Datatype::Array { dims, base } => dims.iter().rev().fold(base.arrow_type(), |t, &d| {
                D::FixedSizeList(Box::new(Field::new("item", t, true)), d as i32)
            }),
            Datatype::VlSequence { base, .. } => {
                D::List(Box::new(Field::new("item", base.arrow_type(), true)))
            }
        }
    }

    pub fn size(&self) -> usize {
        match self {
            Datatype::Int { size, .. }
            | Datatype::Float { size, .. }
            | Datatype::Complex { size, .. }
            | Datatype::FixedString { size, .. }
            | Datatype::Bitfield { size, .. }
            | Datatype::Opaque { size, .. }
            | Datatype::Time { size, .. }
            | Datatype::Compound { size, .. }
            | Datatype::Reference { size, .. }
            | Datatype::VlString { size, .. }
            | Datatype::VlSequence { size, .. } => *size as usize,
            Datatype::Enum { base, .. } => base.size(),
            Datatype::CustomFloat(f) => f.size as usize,
            Datatype::Array { dims, base } => dims
                .iter()
                .fold(base.size(), |a, &d| a.saturating_mul(d as usize)),
        }
    }

    /// h5py's (and anndata's) boolean: a one-byte integer enum `FALSE = 0`, `TRUE = 1`.
    pub fn is_bool_enum(&self) -> bool {
        match self {
            Datatype::Enum {
                base,
                names,
                values,
            } => {
                matches!(**base, Datatype::Int { size: 1, .. })
                    && names.len() == 2
                    && names.iter().zip(values).all(|(n, v)| {
                        (n == "FALSE" && v[..] == [0]) || (n == "TRUE" && v[..] == [1])
                    })
            }
            _ => false,
        }
    }

    /// An enum's members as `(label, value)`, the value read as the base integer.
    pub fn enum_members(&self) -> Vec<(&str, i128)> {
        let Datatype::Enum {
            base,
            names,
            values,
        } = self
        else {
            return Vec::new();
        };
        names
            .iter()
            .zip(values)
            .map(|(n, v)| (n.as_str(), base.int_value(v)))
            .collect()
    }

    /// Raw element bytes of an integer type as a number (0 for other types).
    pub fn int_value(&self, b: &[u8]) -> i128 {
        let Datatype::Int { signed, be, .. } = self else {
            return 0;
        };
        let mut le: Vec<u8> = b.iter().copied().take(8).collect();
        if *be {
            le.reverse();
        }
        let x = crate::io::le_uint(&le);
        let bits = 8 * le.len() as u32;
        if *signed && bits > 0 && bits < 64 && x >> (bits - 1) & 1 == 1 {
            x as i128 - (1i128 << bits)
        } else if *signed && bits == 64 {
            x as i64 as i128
        } else {
            x as i128
        }
    }

    pub fn is_vl(&self) -> bool {
        match self {
            Datatype::VlString { .. } | Datatype::VlSequence { .. } => true,
            Datatype::Compound { members, .. } => members.iter().any(|m| m.dtype.is_vl()),
            Datatype::Array { base, .. } | Datatype::Enum { base, .. } => base.is_vl(),
            _ => false,
        }
    }

    /// A short human description (used by `list`/`info`).
    pub fn describe(&self) -> String {
        let o = |be: &bool| if *be { "be" } else { "le" };
        match self {
            Datatype::Int {
                size, signed, be, ..
            } => {
                format!(
                    "{}int{}{}",
                    if *signed { "" } else { "u" },
                    *size as u64 * 8,
                    if *size > 1 { o(be) } else { "" }
                )
            }
            Datatype::Float { size, be } => format!("float{}{}", size * 8, o(be)),
            Datatype::CustomFloat(f) => f.describe(),
            Datatype::Complex { base, .. } => format!("complex<{}>", base.describe()),
            Datatype::FixedString { size, pad, utf8 } => format!(
                "string[{size}]({},{})",
                if *utf8 { "utf8" } else { "ascii" },
                ["nullterm", "nullpad", "spacepad"]
                    .get(*pad as usize)
                    .unwrap_or(&"pad?")
            ),
            Datatype::Bitfield { size, .. } => format!("bitfield[{size}]"),
            Datatype::Opaque { size, tag } => format!(
                "opaque[{size}]{}",
                if tag.is_empty() {
                    String::new()
                } else {
                    format!("({tag})")
                }
            ),
            Datatype::Time { size: 4, be } => format!("time32{}(PyTables: int32 seconds)", o(be)),
            Datatype::Time { size: 8, be } => {
                format!("time64{}(PyTables: float64 seconds)", o(be))
            }
            Datatype::Time { size, .. } => format!("time[{size}]"),
            Datatype::Compound { members, .. } => format!(
                "compound{{{}}}",
                members
                    .iter()
                    .map(|m| format!("{}:{}", m.name, m.dtype.describe()))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Datatype::Reference { kind, .. } => format!(
                "reference({})",
                if *kind == 0 { "object" } else { "region" }
            ),
            Datatype::Enum { base, .. } => format!(
                "enum<{}>({})",
                base.describe(),
                self.enum_members()
                    .iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Datatype::VlString { utf8, .. } => {
                format!("vlen-str({})", if *utf8 { "utf8" } else { "ascii" })
            }
            Datatype::VlSequence { base, .. } => format!("vlen<{}>", base.describe()),
            Datatype::Array { dims, base } => format!(
                "array[{}]<{}>",
                dims.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("x"),
                base.describe()
            ),
        }
    }

    pub fn parse(c: &mut Cur) -> Result<Datatype> {
        Self::parse_depth(c, 0)
    }

    fn parse_depth(c: &mut Cur, depth: u32) -> Result<Datatype> {
        if depth > 32 {
            return Err(c.invalid("datatype nesting too deep"));
        }
        let at = c.off();
        let b0 = c.u8()?;
        let version = b0 >> 4;
        let class = b0 & 0x0f;
        let bits = c.bytes(3)?;
        let bf = bits[0] as u32 | (bits[1] as u32) << 8 | (bits[2] as u32) << 16;
        let size = c.u32()?;
        if size as u64 > c.buf.len() as u64 + (1 << 32) {
            return Err(c.invalid("datatype size"));
        }
        Ok(match class {
            0 => {
                let offset = c.u16()?;
                let precision = c.u16()?;
                let full = offset == 0 && precision as u64 == size as u64 * 8;
                if precision as u64 + offset as u64 > size as u64 * 8 {
                    return Err(c.invalid(format!(
                        "integer of {size} bytes with {precision} bits at offset {offset}"
                    )));
                }
                Datatype::Int {
                    size,
                    signed: bf & 8 != 0,
                    be: bf & 1 != 0,
                    bits: (!full && precision > 0 && size <= 8).then_some((offset, precision)),
                }
            }
            1 => {
                let props = c.bytes(12)?;
                if bf & 0x40 != 0 {
                    return Err(unsupported(at, "VAX-endian floating point"));
                }
                let custom = match size {
                    1..=16 => CustomFloat::parse(at, size, bf, props)?,
                    _ => None,
                };
                if let Some(f) = custom {
                    return Ok(Datatype::CustomFloat(Box::new(f)));
                }
                if !matches!(size, 2 | 4 | 8) {
                    return Err(unsupported(at, format!("floating point of {size} bytes")));
                }
                Datatype::Float {
                    size,
                    be: bf & 1 != 0,
                }
            }
            2 => {
                c.skip(2)?; // bit precision: the only property of the time class
                Datatype::Time {
                    size,
                    be: bf & 1 != 0,
                }
            }
            3 => Datatype::FixedString {
                size,
                pad: (bf & 0xf) as u8,
                utf8: (bf >> 4) & 0xf == 1,
            },
            4 => {
                c.skip(4)?;
                Datatype::Bitfield {
                    size,
                    be: bf & 1 != 0,
                }
            }
            5 => {
                let n = (bf & 0xff) as usize;
                let tag = c.bytes(n)?;
                let tag = String::from_utf8_lossy(tag.split(|&b| b == 0).next().unwrap_or(&[]))
                    .into_owned();
                Datatype::Opaque { size, tag }
            }
            6 => {
                let n = (bf & 0xffff) as usize;
                let mut members = Vec::with_capacity(n.min(c.remaining()));
                for _ in 0..n {
                    let start = c.pos;
                    let name = String::from_utf8_lossy(c.cstr()?).into_owned();
                    let offset;
                    if version < 3 {
                        c.align_from(start, 8)?;
                        offset = c.u32()?;
                        if version == 1 {
                            let nd = c.u8()? as usize;
                            c.skip(3 + 4 + 4)?;
                            let dims: Vec<u32> = (0..4).map(|_| c.u32()).collect::<Result<_>>()?;
                            let base = Self::parse_depth(c, depth + 1)?;
                            let dtype = if nd == 0 {
                                base
                            } else {
                                Datatype::Array {
                                    dims: dims[..nd.min(4)].to_vec(),
                                    base: Box::new(base),
                                }
                            };
                            if dtype.size() as u64 > size as u64 {
                                return Err(c.invalid(format!(
                                    "compound member {name} larger than its record"
                                )));
                            }
                            members.push(Member {
                                name,
                                offset,
                                dtype,
                            });
                            continue;
                        }
                    } else {
                        let w = crate::io::limit_enc_size(size as u64).min(4);
                        offset = c.uvar(w)? as u32;
                    }
                    let dtype = Self::parse_depth(c, depth + 1)?;
                    members.push(Member {
                        name,
                        offset,
                        dtype,
                    });
                }
                for m in &members {
                    if (m.offset as u64).saturating_add(m.dtype.size() as u64) > size as u64 {
                        return Err(
                            c.invalid(format!("compound member {} exceeds the record", m.name))
                        );
                    }
                }
                Datatype::Compound { size, members }
            }
            7 => Datatype::Reference {
                size,
                kind: (bf & 0xf) as u8,
            },
            8 => {
                let n = (bf & 0xffff) as usize;
                let base = Self::parse_depth(c, depth + 1)?;
                let mut names = Vec::with_capacity(n.min(c.remaining()));
                for _ in 0..n {
                    let start = c.pos;
                    names.push(String::from_utf8_lossy(c.cstr()?).into_owned());
                    if version < 3 {
                        c.align_from(start, 8)?;
                    }
                }
                let bs = base.size();
                let mut values = Vec::with_capacity(n.min(c.remaining()));
                for _ in 0..n {
                    values.push(c.bytes(bs)?.to_vec());
                }
                Datatype::Enum {
                    base: Box::new(base),
                    names,
                    values,
                }
            }
            9 => {
                let base = Self::parse_depth(c, depth + 1)?;
                if bf & 0xf == 1 {
                    Datatype::VlString {
                        size,
                        pad: ((bf >> 4) & 0xf) as u8,
                        utf8: (bf >> 8) & 0xf == 1,
                    }
                } else {
                    Datatype::VlSequence {
                        size,
                        base: Box::new(base),
                    }
                }
            }
            10 => {
                let nd = c.u8()? as usize;
                if version < 3 {
                    c.skip(3)?;
                }
                let dims: Vec<u32> = (0..nd).map(|_| c.u32()).collect::<Result<_>>()?;
                if version < 3 {
                    c.skip(4 * nd)?;
                }
                let base = Self::parse_depth(c, depth + 1)?;
                let total = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d as u64));
                if total.is_none_or(|t| t.saturating_mul(base.size() as u64) > u32::MAX as u64) {
                    return Err(c.invalid("array datatype too large"));
                }
                Datatype::Array {
                    dims,
                    base: Box::new(base),
                }
            }
            11 => {
                // HDF5 2.0 complex: bit 0 = both parts of one type (the only form libhdf5
                // writes), bits 1-2 = rectangular form (0); the base float follows.
                if bf & 1 == 0 || (bf >> 1) & 3 != 0 {
                    return Err(unsupported(
                        at,
                        "complex datatype (HDF5 2.0) of a non-rectangular or mixed form",
                    ));
                }
                let base = Self::parse_depth(c, depth + 1)?;
                if !matches!(base, Datatype::Float { .. } | Datatype::CustomFloat(_))
                    || base.size() as u64 * 2 != size as u64
                {
                    return Err(c.invalid(format!(
                        "complex datatype of {size} bytes over a {} base",
                        base.describe()
                    )));
                }
                Datatype::Complex {
                    size,
                    base: Box::new(base),
                }
            }
            k => return Err(unsupported(at, format!("datatype class {k} (unknown)"))),
        })
    }
}
