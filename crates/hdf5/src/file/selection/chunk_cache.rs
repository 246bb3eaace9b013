//! Decoded chunks kept across reads, so a sequence of reads smaller than a chunk (batches of
//! fewer rows than a chunk holds) fetches and decodes each chunk once, not once per read.
//!
//! Only chunks a read covers in part are kept (the next window needs the rest of them), most
//! recent first, up to [`CHUNK_CACHE_BYTES`] in all; a read whose partly covered chunks
//! together exceed that keeps none of them (they would only evict each other).

use std::cell::RefCell;
use std::collections::VecDeque;

/// Decoded bytes kept per file.
pub const CHUNK_CACHE_BYTES: u64 = 32 << 20;

/// Identifies a decoded chunk: dataset object header address, chunk address, stored size,
/// filter mask (what its decoded bytes depend on).
pub type Key = (u64, u64, u64, u32);

#[derive(Debug, Default)]
pub struct ChunkCache {
    chunks: RefCell<VecDeque<(Key, Vec<u8>)>>,
}

impl Clone for ChunkCache {
    fn clone(&self) -> Self {
        ChunkCache::default()
    }
}

impl ChunkCache {
    /// Whether the decoded chunk `key` is kept.
    pub fn has(&self, key: Key) -> bool {
        self.chunks.borrow().iter().any(|(k, _)| *k == key)
    }

    /// Runs `f` over the decoded chunk `key` when it is kept (and marks it most recent).
    pub fn with<T>(&self, key: Key, f: impl FnOnce(&[u8]) -> T) -> Option<T> {
        let mut chunks = self.chunks.borrow_mut();
        let i = chunks.iter().position(|(k, _)| *k == key)?;
        let hit = chunks.remove(i)?;
        chunks.push_front(hit);
        Some(f(&chunks[0].1))
    }

    /// Keeps a decoded chunk, dropping the least recent ones past the budget.
    pub fn keep(&self, key: Key, bytes: Vec<u8>) {
        if bytes.len() as u64 > CHUNK_CACHE_BYTES {
            return;
        }
        let mut chunks = self.chunks.borrow_mut();
        chunks.retain(|(k, _)| *k != key);
        let mut held: u64 = chunks.iter().map(|(_, b)| b.len() as u64).sum();
        while held + bytes.len() as u64 > CHUNK_CACHE_BYTES {
            let Some((_, old)) = chunks.pop_back() else {
                break;
            };
            held -= old.len() as u64;
            arrowsmith_core::recycle::give_back(old);
        }
        chunks.push_front((key, bytes));
    }

    pub fn clear(&self) {
        self.chunks.borrow_mut().clear();
    }

    /// Bytes held (for tests).
    #[cfg(test)]
    pub fn bytes(&self) -> u64 {
        self.chunks
            .borrow()
            .iter()
            .map(|(_, b)| b.len() as u64)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_most_recent_within_the_budget() {
        let c = ChunkCache::default();
        let third = (CHUNK_CACHE_BYTES / 3) as usize;
        for k in 0..4u64 {
            c.keep((0, k, 0, 0), vec![k as u8; third]);
        }
        assert!(!c.has((0, 0, 0, 0)), "the oldest is dropped");
        assert!(c.has((0, 1, 0, 0)) && c.has((0, 3, 0, 0)));
        assert!(c.bytes() <= CHUNK_CACHE_BYTES);
        // A hit becomes the most recent: the next keep drops key 2, not key 1.
        assert_eq!(c.with((0, 1, 0, 0), |b| b[0]), Some(1));
        c.keep((0, 4, 0, 0), vec![4; third]);
        assert!(c.has((0, 1, 0, 0)) && !c.has((0, 2, 0, 0)));
        // A chunk larger than the budget is not kept.
        c.keep((0, 5, 0, 0), vec![0; CHUNK_CACHE_BYTES as usize + 1]);
        assert!(!c.has((0, 5, 0, 0)));
        c.clear();
        assert_eq!(c.bytes(), 0);
    }
}
