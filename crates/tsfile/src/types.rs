//! TsFile enums: data types, encodings, compressions.

/// TsFile data types (`TSDataType` ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TsType {
    Boolean,
    Int32,
    Int64,
    Float,
    Double,
    Text,
    /// The aligned time column.
    Vector,
    Timestamp,
    Date,
    Blob,
    String,
}

impl TsType {
    pub fn from_id(id: u8) -> Option<TsType> {
        Some(match id {
            0 => TsType::Boolean,
            1 => TsType::Int32,
            2 => TsType::Int64,
            3 => TsType::Float,
            4 => TsType::Double,
            5 => TsType::Text,
            6 => TsType::Vector,
            8 => TsType::Timestamp,
            9 => TsType::Date,
            10 => TsType::Blob,
            11 => TsType::String,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            TsType::Boolean => "BOOLEAN",
            TsType::Int32 => "INT32",
            TsType::Int64 => "INT64",
            TsType::Float => "FLOAT",
            TsType::Double => "DOUBLE",
            TsType::Text => "TEXT",
            TsType::Vector => "VECTOR",
            TsType::Timestamp => "TIMESTAMP",
            TsType::Date => "DATE",
            TsType::Blob => "BLOB",
            TsType::String => "STRING",
        }
    }
    pub fn physical(self) -> Physical {
        match self {
            TsType::Boolean => Physical::Bool,
            TsType::Int32 | TsType::Date => Physical::I32,
            TsType::Int64 | TsType::Timestamp | TsType::Vector => Physical::I64,
            TsType::Float => Physical::F32,
            TsType::Double => Physical::F64,
            TsType::Text | TsType::String | TsType::Blob => Physical::Bytes,
        }
    }
}

/// How values are held while decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Physical {
    Bool,
    I32,
    I64,
    F32,
    F64,
    Bytes,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Plain,
    Dictionary,
    Rle,
    Diff,
    Ts2Diff,
    Bitmap,
    GorillaV1,
    Regular,
    Gorilla,
    Zigzag,
    Freq,
    Chimp,
    Sprintz,
    Rlbe,
    Camel,
}

impl Encoding {
    pub fn from_id(id: u8) -> Option<Encoding> {
        use Encoding::*;
        Some(match id {
            0 => Plain,
            1 => Dictionary,
            2 => Rle,
            3 => Diff,
            4 => Ts2Diff,
            5 => Bitmap,
            6 => GorillaV1,
            7 => Regular,
            8 => Gorilla,
            9 => Zigzag,
            10 => Freq,
            11 => Chimp,
            12 => Sprintz,
            13 => Rlbe,
            14 => Camel,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        use Encoding::*;
        match self {
            Plain => "PLAIN",
            Dictionary => "DICTIONARY",
            Rle => "RLE",
            Diff => "DIFF",
            Ts2Diff => "TS_2DIFF",
            Bitmap => "BITMAP",
            GorillaV1 => "GORILLA_V1",
            Regular => "REGULAR",
            Gorilla => "GORILLA",
            Zigzag => "ZIGZAG",
            Freq => "FREQ",
            Chimp => "CHIMP",
            Sprintz => "SPRINTZ",
            Rlbe => "RLBE",
            Camel => "CAMEL",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    Uncompressed,
    Snappy,
    Gzip,
    Lzo,
    Sdt,
    Paa,
    Pla,
    Lz4,
    Zstd,
    Lzma2,
}

impl Compression {
    pub fn from_id(id: u8) -> Option<Compression> {
        use Compression::*;
        Some(match id {
            0 => Uncompressed,
            1 => Snappy,
            2 => Gzip,
            3 => Lzo,
            4 => Sdt,
            5 => Paa,
            6 => Pla,
            7 => Lz4,
            8 => Zstd,
            9 => Lzma2,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        use Compression::*;
        match self {
            Uncompressed => "UNCOMPRESSED",
            Snappy => "SNAPPY",
            Gzip => "GZIP",
            Lzo => "LZO",
            Sdt => "SDT",
            Paa => "PAA",
            Pla => "PLA",
            Lz4 => "LZ4",
            Zstd => "ZSTD",
            Lzma2 => "LZMA2",
        }
    }
}
