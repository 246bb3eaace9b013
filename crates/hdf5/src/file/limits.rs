//! Read limits: the default bound on one read and the `TooLarge` error that names it.

use arrowsmith_core::{DecodeError, Format};

/// Default for [`Hdf5File::max_read_bytes`](crate::Hdf5File::max_read_bytes).
pub const DEFAULT_MAX_READ_BYTES: u64 = 1 << 30;

/// What a `TooLarge` error advises.
pub(crate) const TOO_LARGE_ADVICE: &str =
    ": read fewer rows (start, count) or in batches, or raise maxReadBytes";

pub(crate) fn too_large(at: u64, need: u64, limit: u64, what: &str) -> DecodeError {
    let mut e = DecodeError::too_large(Format::Hdf5, at, need, limit, what);
    e.message.push_str(TOO_LARGE_ADVICE);
    e
}
