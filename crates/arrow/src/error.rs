//! What a native read can fail with: the decoder's typed error, the file system, or arrow-rs.

use std::fmt;

use arrowsmith_core::DecodeError;

/// A native read's error.
#[derive(Debug)]
pub enum Error {
    /// The bytes: format, code, offset and the feature or fault in words.
    Decode(DecodeError),
    /// Reading the file failed.
    Io(std::io::Error),
    /// arrow-rs rejected a built array (a decoder bug, never the input's fault).
    Arrow(arrow_schema::ArrowError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Decode(e) => write!(f, "{e}"),
            Error::Io(e) => write!(f, "{e}"),
            Error::Arrow(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Self {
        Error::Decode(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<arrow_schema::ArrowError> for Error {
    fn from(e: arrow_schema::ArrowError) -> Self {
        Error::Arrow(e)
    }
}

/// A native read's result.
pub type Result<T> = std::result::Result<T, Error>;
