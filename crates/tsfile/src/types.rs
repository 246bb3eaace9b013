//! TsFile enums: data types, encodings, compressions.

/// TsFile data types (`TSDataType` ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TsType {
    /// BOOLEAN.
    Boolean,
    /// INT32.
    Int32,
    /// INT64.
    Int64,
    /// FLOAT (f32).
    Float,
    /// DOUBLE (f64).
    Double,
    /// TEXT (bytes, UTF-8 by convention).
    Text,
    /// The aligned time column.
    Vector,
    /// TIMESTAMP (i64 in the file's time unit).
    Timestamp,
    /// DATE (i32 `yyyymmdd`).
    Date,
    /// BLOB (bytes).
    Blob,
    /// STRING (UTF-8 bytes).
    String,
}

impl TsType {
    /// The type of `TSDataType` id `id`, if it is one.
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
    /// The type's name as the writers spell it (`"INT64"`).
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
    /// How values of this type are held while decoding.
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
    /// Booleans.
    Bool,
    /// 32-bit integers (INT32, DATE).
    I32,
    /// 64-bit integers (INT64, TIMESTAMP, times).
    I64,
    /// 32-bit floats.
    F32,
    /// 64-bit floats.
    F64,
    /// Byte strings (TEXT, STRING, BLOB).
    Bytes,
}

/// TsFile value encodings (`TSEncoding` ids); `docs/tsfile.md` says which are decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// PLAIN.
    Plain,
    /// DICTIONARY.
    Dictionary,
    /// RLE.
    Rle,
    /// DIFF.
    Diff,
    /// TS_2DIFF.
    Ts2Diff,
    /// BITMAP.
    Bitmap,
    /// GORILLA_V1.
    GorillaV1,
    /// REGULAR.
    Regular,
    /// GORILLA.
    Gorilla,
    /// ZIGZAG.
    Zigzag,
    /// FREQ.
    Freq,
    /// CHIMP.
    Chimp,
    /// SPRINTZ.
    Sprintz,
    /// RLBE.
    Rlbe,
    /// CAMEL.
    Camel,
}

impl Encoding {
    /// The encoding of `TSEncoding` id `id`, if it is one.
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
    /// The encoding's name as the writers spell it (`"TS_2DIFF"`).
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

/// TsFile page compressions (`CompressionType` ids); `docs/tsfile.md` says which are
/// decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// UNCOMPRESSED.
    Uncompressed,
    /// SNAPPY.
    Snappy,
    /// GZIP.
    Gzip,
    /// LZO.
    Lzo,
    /// SDT.
    Sdt,
    /// PAA.
    Paa,
    /// PLA.
    Pla,
    /// LZ4.
    Lz4,
    /// ZSTD.
    Zstd,
    /// LZMA2.
    Lzma2,
}

impl Compression {
    /// The compression of `CompressionType` id `id`, if it is one.
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
    /// The compression's name as the writers spell it (`"LZ4"`).
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
