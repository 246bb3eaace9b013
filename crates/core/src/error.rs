//! One error type for every decoder: which format, where in the input, what was wrong.

use std::fmt;

/// The format whose decoder reports an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// MessagePack (`arrowsmith-msgpack`).
    MessagePack,
    /// Apache TsFile (`arrowsmith-tsfile`).
    TsFile,
    /// HDF5 (`arrowsmith-hdf5`).
    Hdf5,
}

impl Format {
    /// The format's name as messages write it.
    pub fn name(self) -> &'static str {
        match self {
            Format::MessagePack => "MessagePack",
            Format::TsFile => "TsFile",
            Format::Hdf5 => "HDF5",
        }
    }
}

/// A machine-readable reason; the human text lives in [`DecodeError::message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// The input ends before the structure does.
    Truncated,
    /// A byte or field value the format forbids (e.g. MessagePack 0xc1).
    Invalid,
    /// A declared length or offset points past the available bytes.
    OutOfBounds,
    /// Nesting deeper than the configured limit.
    TooDeep,
    /// A str that is not UTF-8.
    InvalidUtf8,
    /// Values whose kinds cannot share one Arrow column.
    TypeMismatch,
    /// Valid in the format, not (yet) supported by this reader.
    Unsupported,
    /// A checksum in the file does not match its bytes.
    Checksum,
    /// A decompressor rejected its input.
    Compression,
    /// The caller asked for something that is not in the file (path, column, table).
    NotFound,
    /// The read needs more memory than its limit allows (`need_len` holds the bytes it
    /// needs): read a smaller selection, stream it in batches, or raise the limit.
    TooLarge,
    /// The caller's arguments do not fit the data (a selection out of bounds, a zero
    /// step, the wrong number of dimensions): the bytes are fine, the request is not.
    Argument,
    /// The reader needs bytes the host has not supplied yet: fetch `offset..offset+len`
    /// into the [`RangeCache`](crate::RangeCache) and call again. Never shown to users.
    NeedBytes,
}

impl ErrorCode {
    /// The code as the wasm boundary and the TS API spell it (`"type-mismatch"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Truncated => "truncated",
            ErrorCode::Invalid => "invalid",
            ErrorCode::OutOfBounds => "out-of-bounds",
            ErrorCode::TooDeep => "too-deep",
            ErrorCode::InvalidUtf8 => "invalid-utf8",
            ErrorCode::TypeMismatch => "type-mismatch",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::Checksum => "checksum",
            ErrorCode::Compression => "compression",
            ErrorCode::NotFound => "not-found",
            ErrorCode::TooLarge => "too-large",
            ErrorCode::Argument => "argument",
            ErrorCode::NeedBytes => "need-bytes",
        }
    }
}

/// A decoder's failure: the format, the byte where it was found, a code and a message
/// that names the problem in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// The format being decoded.
    pub format: Format,
    /// Byte offset in the input (file offset for TsFile/HDF5) where the problem was found.
    pub offset: u64,
    /// The kind of failure.
    pub code: ErrorCode,
    /// What was wrong, in words.
    pub message: String,
    /// For [`ErrorCode::NeedBytes`]: how many bytes from `offset` are wanted.
    pub need_len: u64,
}

impl DecodeError {
    /// An error of `format` at `offset`.
    pub fn new(format: Format, offset: u64, code: ErrorCode, message: impl Into<String>) -> Self {
        DecodeError {
            format,
            offset,
            code,
            message: message.into(),
            need_len: 0,
        }
    }

    /// A [`ErrorCode::NeedBytes`] request for `len` bytes at `offset`.
    pub fn need_bytes(format: Format, offset: u64, len: u64) -> Self {
        DecodeError {
            format,
            offset,
            code: ErrorCode::NeedBytes,
            message: format!("bytes {offset}..{} are not loaded", offset + len),
            need_len: len,
        }
    }

    /// A read that would need `need` bytes of output or working memory, over `limit`.
    pub fn too_large(format: Format, offset: u64, need: u64, limit: u64, what: &str) -> Self {
        DecodeError {
            format,
            offset,
            code: ErrorCode::TooLarge,
            message: format!("{what} needs {need} bytes, over the limit of {limit}"),
            need_len: need,
        }
    }

    /// Whether this is a request for bytes rather than a failure.
    pub fn is_need_bytes(&self) -> bool {
        self.code == ErrorCode::NeedBytes
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} decode error at byte {}: {}",
            self.format.name(),
            self.offset,
            self.message
        )
    }
}

impl std::error::Error for DecodeError {}

/// A result whose error is a [`DecodeError`].
pub type Result<T, E = DecodeError> = std::result::Result<T, E>;
