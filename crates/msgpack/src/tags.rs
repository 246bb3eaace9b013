//! The MessagePack tag table: what each first byte starts and how its header reads.
//!
//! This is the only place that knows the format's tags. The decoder (`parser/`), the
//! stream scanner (`stream.rs`) and the splitter (`split.rs`) all read it.

/// What a tag starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Int,
    Float,
    Nil,
    Bool,
    Str,
    Bin,
    Ext,
    Array,
    Map,
    /// 0xc1, never used.
    Reserved,
}

impl Kind {
    /// The kind in words, as error messages name it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Nil => "nil",
            Kind::Bool => "bool",
            Kind::Str => "str",
            Kind::Bin => "bin",
            Kind::Ext => "ext",
            Kind::Array => "array",
            Kind::Map => "map",
            Kind::Reserved => "reserved byte 0xc1",
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tag {
    pub kind: Kind,
    /// The format's name for the tag ("uint16", "fixstr", "map32", ...).
    pub name: &'static str,
    /// Bytes of big-endian length or count after the tag byte: 0, 1, 2 or 4.
    pub len_bytes: u8,
    /// When `len_bytes` is 0: the payload bytes of a scalar (an ext's data, without its
    /// type byte), a fixstr's length, or a fixarray's/fixmap's count.
    pub fixed: u8,
}

const fn tag(kind: Kind, name: &'static str, len_bytes: u8, fixed: u8) -> Tag {
    Tag {
        kind,
        name,
        len_bytes,
        fixed,
    }
}

const fn row(t: u8) -> Tag {
    use Kind::*;
    match t {
        0x00..=0x7f => tag(Int, "positive fixint", 0, 0),
        0x80..=0x8f => tag(Map, "fixmap", 0, t & 0x0f),
        0x90..=0x9f => tag(Array, "fixarray", 0, t & 0x0f),
        0xa0..=0xbf => tag(Str, "fixstr", 0, t & 0x1f),
        0xc0 => tag(Nil, "nil", 0, 0),
        0xc1 => tag(Reserved, "reserved byte 0xc1", 0, 0),
        0xc2 | 0xc3 => tag(Bool, "bool", 0, 0),
        0xc4 => tag(Bin, "bin8", 1, 0),
        0xc5 => tag(Bin, "bin16", 2, 0),
        0xc6 => tag(Bin, "bin32", 4, 0),
        0xc7 => tag(Ext, "ext8", 1, 0),
        0xc8 => tag(Ext, "ext16", 2, 0),
        0xc9 => tag(Ext, "ext32", 4, 0),
        0xca => tag(Float, "float32", 0, 4),
        0xcb => tag(Float, "float64", 0, 8),
        0xcc => tag(Int, "uint8", 0, 1),
        0xcd => tag(Int, "uint16", 0, 2),
        0xce => tag(Int, "uint32", 0, 4),
        0xcf => tag(Int, "uint64", 0, 8),
        0xd0 => tag(Int, "int8", 0, 1),
        0xd1 => tag(Int, "int16", 0, 2),
        0xd2 => tag(Int, "int32", 0, 4),
        0xd3 => tag(Int, "int64", 0, 8),
        0xd4 => tag(Ext, "fixext1", 0, 1),
        0xd5 => tag(Ext, "fixext2", 0, 2),
        0xd6 => tag(Ext, "fixext4", 0, 4),
        0xd7 => tag(Ext, "fixext8", 0, 8),
        0xd8 => tag(Ext, "fixext16", 0, 16),
        0xd9 => tag(Str, "str8", 1, 0),
        0xda => tag(Str, "str16", 2, 0),
        0xdb => tag(Str, "str32", 4, 0),
        0xdc => tag(Array, "array16", 2, 0),
        0xdd => tag(Array, "array32", 4, 0),
        0xde => tag(Map, "map16", 2, 0),
        0xdf => tag(Map, "map32", 4, 0),
        0xe0..=0xff => tag(Int, "negative fixint", 0, 0),
    }
}

pub(crate) const TAGS: [Tag; 256] = {
    let mut t = [tag(Kind::Nil, "", 0, 0); 256];
    let mut i = 0;
    while i < 256 {
        t[i] = row(i as u8);
        i += 1;
    }
    t
};

/// What a tag byte starts, in words.
#[inline]
pub(crate) fn kind_name(t: u8) -> &'static str {
    TAGS[t as usize].kind.name()
}

/// The length (str, bin, ext data) or count (array, map) a header declares: the fixed
/// part of the tag, or its length field read from `field` (the bytes after the tag;
/// `None` if they are incomplete).
#[inline]
pub(crate) fn declared(tag: &Tag, field: &[u8]) -> Option<u64> {
    let n = tag.len_bytes as usize;
    if n == 0 {
        return Some(tag.fixed as u64);
    }
    let s = field.get(..n)?;
    Some(s.iter().fold(0u64, |a, &b| a << 8 | b as u64))
}

/// The header of the value starting at `bytes[0]`: its length in bytes, the values it
/// adds (elements, or two per map entry) and the payload bytes after it. `None` if the
/// header is incomplete.
#[inline]
pub(crate) fn header(bytes: &[u8]) -> Option<(usize, u64, u64)> {
    let tag = &TAGS[*bytes.first()? as usize];
    let h = 1 + tag.len_bytes as usize;
    let n = declared(tag, &bytes[1..])?;
    Some(match tag.kind {
        Kind::Array => (h, n, 0),
        Kind::Map => (h, 2 * n, 0),
        Kind::Str | Kind::Bin => (h, 0, n),
        // The type byte, then the data.
        Kind::Ext => (h, 0, n + 1),
        _ => (h, 0, tag.fixed as u64),
    })
}

/// Total size of a value whose tag alone gives it (scalars, fixstr, fixext; 0: read its
/// header). One lookup per value keeps a structural walk a fraction of a decode.
pub(crate) const FIXED_SIZE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let r = &TAGS[i];
        t[i] = match r.kind {
            Kind::Array | Kind::Map => 0,
            _ if r.len_bytes != 0 => 0,
            Kind::Str => 1 + r.fixed,
            Kind::Ext => 2 + r.fixed,
            _ => 1 + r.fixed,
        };
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed sizes agree with the header reader for every tag.
    #[test]
    fn fixed_sizes_match_headers() {
        for t in 0..=255u8 {
            let (h, n, payload) = header(&[t, 0, 0, 0, 0, 0]).unwrap();
            let fixed = FIXED_SIZE[t as usize] as u64;
            if fixed != 0 {
                assert_eq!((n, h as u64 + payload), (0, fixed), "tag {t:#04x}");
            } else {
                assert!(
                    matches!(TAGS[t as usize].kind, Kind::Array | Kind::Map)
                        || TAGS[t as usize].len_bytes > 0,
                    "tag {t:#04x}"
                );
            }
        }
    }

    /// Spot checks against the specification's table.
    #[test]
    fn headers_follow_the_spec() {
        assert_eq!(header(&[0x93]), Some((1, 3, 0)));
        assert_eq!(header(&[0x82]), Some((1, 4, 0)));
        assert_eq!(header(&[0xa5]), Some((1, 0, 5)));
        assert_eq!(header(&[0xdc, 0x01, 0x00]), Some((3, 256, 0)));
        assert_eq!(header(&[0xdf, 0, 0, 0, 2]), Some((5, 4, 0)));
        assert_eq!(header(&[0xc7, 3]), Some((2, 0, 4)));
        assert_eq!(header(&[0xd8]), Some((1, 0, 17)));
        assert_eq!(header(&[0xcb]), Some((1, 0, 8)));
        assert_eq!(header(&[0xdb, 0, 0, 1]), None);
        assert_eq!(kind_name(0xc1), "reserved byte 0xc1");
        assert_eq!(kind_name(0xd3), "int");
        assert_eq!(TAGS[0xda].name, "str16");
    }
}
