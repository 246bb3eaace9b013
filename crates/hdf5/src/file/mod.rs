//! An open file: the superblock and the caches shared by its reads. Its verbs are the
//! children, one concept each: `path` (resolution), `list`, `walk`, `attribute`, `dataset`
//! (headers and `info`), `describe`, `schema`, `read` (windows → columns), `plan` (ranges a
//! read touches), `external_storage`, `selection` (a selection's bytes: contiguous, compact
//! or chunked), `direct` (the file ranges that are a read's values, for zero-decode hosts),
//! `virtual_ds` (selections of source datasets, in this file or others); `ctx` is the read
//! context, `limits` the read limits.

pub(crate) mod attribute;
pub(crate) mod ctx;
pub(crate) mod dataset;
pub(crate) mod describe;
pub(crate) mod direct;
pub(crate) mod external_storage;
pub(crate) mod limits;
pub(crate) mod list;
pub(crate) mod path;
pub(crate) mod plan;
pub(crate) mod read;
pub(crate) mod schema;
pub(crate) mod selection;
pub(crate) mod virtual_ds;
pub(crate) mod walk;

use arrowsmith_core::{ByteSource, Result};

use crate::file::ctx::Ctx;
use crate::file::limits::DEFAULT_MAX_READ_BYTES;
use crate::file::selection::chunk_cache;
use crate::superblock::Superblock;
use crate::{global_heap, retry_memo};

/// An open file: the superblock, nothing else (all other state is re-read per call).
#[derive(Debug, Clone)]
pub struct Hdf5File {
    pub(crate) superblock: Superblock,
    /// Upper bound on the bytes one `read` may materialise: the raw selection (fill values
    /// of unwritten data are not backed by file bytes), one decoded chunk, and the gathered
    /// VL payloads (many cells may share one heap object). Exceeding it is a
    /// `TooLarge` error naming the bytes needed; read in smaller row windows instead.
    pub max_read_bytes: u64,
    /// Parsed global heap collection tables, shared by every read of this file (bounded;
    /// see [`global_heap::GCOL_CACHE_BYTES`]). [`Hdf5File::clear_cache`] drops them.
    pub(crate) gcol: global_heap::GcolCache,
    /// Decoded chunks of a read that stopped for missing heap bytes (see [`retry_memo`]).
    pub(crate) memo: retry_memo::RetryMemo,
    /// Decoded chunks a read covered in part, for the next window (see [`chunk_cache`]).
    pub(crate) chunks: chunk_cache::ChunkCache,
}

impl Hdf5File {
    /// Open the file in `src`: find its superblock (after a user block, if any).
    pub fn open(src: &dyn ByteSource) -> Result<Hdf5File> {
        Ok(Hdf5File {
            superblock: Superblock::find(src)?,
            max_read_bytes: DEFAULT_MAX_READ_BYTES,
            gcol: Default::default(),
            memo: Default::default(),
            chunks: Default::default(),
        })
    }

    /// Drop cached global heap tables and decoded chunks (only needed if the file's bytes
    /// could change).
    pub fn clear_cache(&self) {
        self.gcol.clear();
        self.memo.clear();
        self.chunks.clear();
    }

    pub(crate) fn ctx<'a>(&'a self, src: &'a dyn ByteSource) -> Ctx<'a> {
        Ctx {
            src,
            sb: &self.superblock,
        }
    }
}
