//! The read's memory budget and the page buffers it reuses.

use crate::chunk::PageHeader;
use arrowsmith_core::{DecodeError, Result};

/// Reused buffers for page decoding, and the read's memory budget.
#[derive(Default)]
pub(super) struct Scratch {
    /// A compressed page body (a host source copies each into it, see `read_body`).
    pub body: Vec<u8>,
    pub page: Vec<u8>,
    pub times: Vec<i64>,
    pub budget: Budget,
}

/// Bytes a read has committed to (rows it will output, at their width), against its limit:
/// checked before each page is decompressed and decoded, from the page's own claims
/// (uncompressed size, statistics count), so a read over the limit fails before it allocates.
#[derive(Default)]
pub(super) struct Budget {
    used: u64,
    max: u64,
    /// Output bytes per row (time and field columns, 8 bytes each).
    row_bytes: u64,
}

impl Budget {
    pub(super) fn new(max: u64, row_bytes: usize) -> Self {
        Budget {
            used: 0,
            max,
            row_bytes: row_bytes as u64,
        }
    }

    /// A page of `uncompressed` bytes about to be decompressed, adding up to `rows` rows of
    /// `width` bytes to the output (`None`: whole output rows).
    pub(super) fn page(&mut self, p: &PageHeader, rows: usize, width: Option<u64>) -> Result<()> {
        let out = (rows as u64).saturating_mul(width.unwrap_or(self.row_bytes));
        let need = self.used.saturating_add(out);
        if p.uncompressed as u64 > self.max || need > self.max {
            let (need, what) = if p.uncompressed as u64 > self.max {
                (p.uncompressed as u64, format!("page at byte {}", p.offset))
            } else {
                (need, "this read".to_string())
            };
            let mut e = DecodeError::too_large(
                arrowsmith_core::Format::TsFile,
                p.offset,
                need,
                self.max,
                &what,
            );
            e.message.push_str(": read fewer devices or columns, a shorter time range or in batches, or raise maxReadBytes");
            return Err(e);
        }
        self.used = need;
        Ok(())
    }
}
