//! What a read asks for.

use std::sync::Arc;

use crate::mods::Mods;

/// What to read. Every filter is optional; `None` means "everything".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// Table (v4 table model). `None`: the file's first table, or the tree model when the
    /// file has no table schemas.
    pub table: Option<String>,
    /// Device paths (`DeviceInfo::path`) to read.
    pub devices: Option<Vec<String>>,
    /// Output columns besides `time` (tag, field or measurement names), in this order.
    pub columns: Option<Vec<String>>,
    /// Inclusive time range, in the file's raw time unit.
    pub start: Option<i64>,
    /// The range's end (inclusive), as `start`.
    pub end: Option<i64>,
    /// Tag equality filters (table model), all must hold.
    pub tags: Vec<(String, String)>,
    /// At most this many rows.
    pub limit: Option<usize>,
    /// Memory this read may take (output rows and page buffers); `None`:
    /// `DEFAULT_MAX_READ_BYTES`. A read that needs more fails with `TooLarge`.
    pub max_read_bytes: Option<u64>,
    /// IoTDB deletions (`.mods2` / `.mods`) to hide from the read; `None`: the file as written.
    pub mods: Option<Arc<Mods>>,
    /// The host keeps timestamps as full int64 (arrow-rs, pyarrow): skip the check that
    /// apache-arrow JS can read every time value back as a number (`false`: checked).
    pub native_times: bool,
}

/// Default for [`Query::max_read_bytes`] (the HDF5 reader's default too).
pub const DEFAULT_MAX_READ_BYTES: u64 = 1 << 30;
