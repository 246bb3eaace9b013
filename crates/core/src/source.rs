//! Sans-I/O input: decoders ask a [`ByteSource`] for byte ranges and never do I/O.
//!
//! A whole file in memory is a `[u8]`. For a `Blob` or a URL, the host keeps a
//! [`RangeCache`]: when the decoder asks for a range the cache lacks, it gets a
//! [`ErrorCode::NeedBytes`] error naming the range, the host
//! fetches it (coalescing neighbours), inserts it and calls again. Decoder entry points
//! are therefore written to be restartable: pure functions of the bytes they read.

#![allow(unsafe_code)] // the host fetch writes into uninitialised memory (see `HostSource::new`)

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::mem::MaybeUninit;

use bumpalo::Bump;

use crate::error::{DecodeError, ErrorCode, Format, Result};

/// Where a decoder reads its input: the whole file in memory, or the ranges a host has
/// loaded so far (a missing range is a `NeedBytes` error naming it).
pub trait ByteSource {
    /// Total size of the underlying file.
    fn size(&self) -> u64;

    /// The bytes `offset..offset+len` if they are loaded. Only called for in-bounds ranges.
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]>;

    /// The bytes `offset..offset+len`: a `Truncated` error past the end of the file,
    /// `NeedBytes` when they exist but are not loaded yet.
    fn read(&self, format: Format, offset: u64, len: usize) -> Result<&[u8]> {
        let end = offset.checked_add(len as u64);
        match end {
            Some(end) if end <= self.size() => {}
            _ => {
                return Err(DecodeError::new(
                    format,
                    offset,
                    ErrorCode::Truncated,
                    format!(
                        "needs {len} bytes at offset {offset} but the file has {} bytes",
                        self.size()
                    ),
                ))
            }
        }
        if len == 0 {
            // Nothing to load (an empty range, possibly at the very end of the file): asking
            // the host for it would get nothing back and ask again forever.
            return Ok(&[]);
        }
        self.get(offset, len)
            .ok_or_else(|| DecodeError::need_bytes(format, offset, len as u64))
    }

    /// Whether missing bytes are fetched on demand (so a reader gains nothing by asking
    /// for everything up front).
    fn fetches_on_demand(&self) -> bool {
        false
    }

    /// [`ByteSource::read`] for bytes the reader uses once, right away: a source that
    /// fetches on demand copies them into `scratch` (reused from range to range, so the
    /// copy is still in cache when the reader goes over it) instead of keeping them.
    fn read_once<'s>(
        &'s self,
        format: Format,
        offset: u64,
        len: usize,
        scratch: &'s mut Vec<u8>,
    ) -> Result<&'s [u8]> {
        let _ = scratch;
        self.read(format, offset, len)
    }
}

impl ByteSource for [u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        let start = usize::try_from(offset).ok()?;
        self.get(start..start.checked_add(len)?)
    }
}

impl ByteSource for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        <[u8] as ByteSource>::get(self.as_slice(), offset, len)
    }
}

/// Loaded ranges of a file that is read piecewise (a `Blob`, a URL).
#[derive(Debug, Default)]
pub struct RangeCache {
    size: u64,
    /// Loaded segments keyed by start offset; they never overlap (inserts merge).
    segments: BTreeMap<u64, Vec<u8>>,
    /// Keep segments that only touch apart (see [`RangeCache::keeping_neighbours`]).
    separate_neighbours: bool,
}

impl RangeCache {
    /// An empty cache of a file of `size` bytes.
    pub fn new(size: u64) -> Self {
        RangeCache {
            size,
            segments: BTreeMap::new(),
            separate_neighbours: false,
        }
    }

    /// A cache that merges only overlapping ranges, not ranges that merely touch. For
    /// readers that supply large adjacent ranges (HDF5 cells, then the heap right after
    /// them) whose single reads never span both: no supplied range is copied a second
    /// time. A read that does span two neighbours gets `NeedBytes` for its range; supplying
    /// it overlaps both and merges them, so reads stay correct.
    pub fn keeping_neighbours(size: u64) -> Self {
        RangeCache {
            separate_neighbours: true,
            ..RangeCache::new(size)
        }
    }

    /// Add loaded bytes at `offset`, merging with overlapping or touching segments.
    pub fn insert(&mut self, offset: u64, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        let mut start = offset;
        let mut end = offset + bytes.len() as u64;
        // Collect segments that overlap or touch [start, end] (only overlap when neighbours stay separate).
        let sep = self.separate_neighbours;
        let touching: Vec<u64> = self
            .segments
            .range(..=end)
            .filter(|(s, seg)| {
                let s_end = **s + seg.len() as u64;
                if sep {
                    **s < end && s_end > start
                } else {
                    s_end >= start
                }
            })
            .map(|(s, _)| *s)
            .collect();
        let covered = |s: &u64| *s >= start && *s + self.segments[s].len() as u64 <= end;
        if touching.iter().all(covered) {
            // The new bytes contain every neighbour (a host re-supplying a superset): keep
            // them as they are instead of copying them again.
            for s in &touching {
                self.segments.remove(s);
            }
            self.segments.insert(offset, bytes);
            return;
        }
        // Pieces in start order (the new bytes among them); overlapping bytes are the same
        // file bytes, so each piece only contributes what lies past the merged end so far.
        // Built without zero-filling: this runs on every supplied range.
        let mut pieces: Vec<(u64, Vec<u8>)> = touching
            .iter()
            .map(|s| (*s, self.segments.remove(s).unwrap()))
            .collect();
        pieces.push((offset, bytes));
        pieces.sort_by_key(|(s, _)| *s);
        for (s, seg) in &pieces {
            start = start.min(*s);
            end = end.max(*s + seg.len() as u64);
        }
        let mut merged: Vec<u8> = Vec::with_capacity((end - start) as usize);
        for (s, seg) in pieces {
            let have = start + merged.len() as u64;
            let skip = have.saturating_sub(s) as usize;
            if skip < seg.len() {
                if merged.is_empty() && skip == 0 {
                    merged = seg; // reuse the first piece's allocation when it can grow
                    merged.reserve((end - start) as usize - merged.len());
                } else {
                    merged.extend_from_slice(&seg[skip..]);
                }
            }
        }
        self.segments.insert(start, merged);
    }

    /// Total bytes held.
    pub fn loaded_bytes(&self) -> u64 {
        self.segments.values().map(|s| s.len() as u64).sum()
    }

    /// Drop every loaded segment (the host bounds memory by clearing between reads).
    pub fn clear(&mut self) {
        self.segments.clear();
    }
}

impl ByteSource for RangeCache {
    fn size(&self) -> u64 {
        self.size
    }
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        let (start, seg) = self.segments.range(..=offset).next_back()?;
        let at = usize::try_from(offset - start).ok()?;
        seg.as_slice().get(at..at.checked_add(len)?)
    }
}

/// Bytes fetched at least this many at a time: headers are read field by field, and a
/// page body is usually followed by the next page's header.
const FETCH_MIN: usize = 128;
/// Extra bytes fetched after each range, for the header that usually follows it.
const FETCH_TAIL: usize = 128;
/// How many recent fetches a read looks through before fetching again.
const RECENT: usize = 32;

/// A source whose host can copy any range synchronously (a file already in JS memory):
/// ranges missing from `kept` are fetched on demand into a per-read arena, so a read
/// copies only the pages it decodes instead of whole planned chunks, with no restart.
pub struct HostSource<'a> {
    kept: &'a RangeCache,
    arena: &'a Bump,
    /// Copies the file's bytes at an offset into the buffer; true only when it wrote every
    /// byte of it (the buffer starts uninitialised: zeroing it first cost as much as the copy).
    fetch: &'a dyn Fn(u64, &mut [MaybeUninit<u8>]) -> bool,
    fetched: RefCell<Vec<(u64, &'a [u8])>>,
    /// Bytes this read may fetch in all. A well-formed read fetches about what it decodes
    /// (at most the file plus header windows); a file whose metadata points many times at
    /// the same large range must not multiply the arena: past the budget a fetch fails, the
    /// read reports `NeedBytes`, and the host supplies the range to `kept` once instead.
    budget: std::cell::Cell<u64>,
    /// Bytes copied by [`ByteSource::read_once`] (not kept).
    once: std::cell::Cell<u64>,
}

impl<'a> HostSource<'a> {
    /// `kept` holds what every read needs (footer, index); reset `arena` between reads.
    ///
    /// # Safety
    ///
    /// `fetch(offset, dst)` may return `true` only after writing every byte of `dst`: the
    /// source hands those bytes out as initialised `u8`s without zeroing them first.
    /// [`slice_fetch`] keeps this contract.
    pub unsafe fn new(
        kept: &'a RangeCache,
        arena: &'a Bump,
        fetch: &'a dyn Fn(u64, &mut [MaybeUninit<u8>]) -> bool,
    ) -> Self {
        let budget = kept.size().saturating_mul(4).saturating_add(1 << 20);
        HostSource {
            kept,
            arena,
            fetch,
            fetched: RefCell::new(Vec::new()),
            budget: budget.into(),
            once: 0.into(),
        }
    }

    /// A source that fetches from a file already in memory (tests, fuzzing, native hosts).
    pub fn over_slice(kept: &'a RangeCache, arena: &'a Bump, file: &'a [u8]) -> Self {
        let fetch: &'a dyn Fn(u64, &mut [MaybeUninit<u8>]) -> bool = arena.alloc(slice_fetch(file));
        // SAFETY: `slice_fetch` returns true only after writing every byte of `dst`.
        unsafe { Self::new(kept, arena, fetch) }
    }

    /// The same source with another fetch budget (see the field's note).
    pub fn with_budget(self, bytes: u64) -> Self {
        self.budget.set(bytes);
        self
    }

    /// The range when `kept` or a recent fetch holds it.
    fn loaded(&self, offset: u64, len: usize) -> Option<&'a [u8]> {
        if let Some(b) = self.kept.get(offset, len) {
            return Some(b);
        }
        let end = offset.checked_add(len as u64)?;
        let fetched = self.fetched.borrow();
        for &(s, b) in fetched.iter().rev().take(RECENT) {
            if s <= offset && end <= s + b.len() as u64 {
                let at = (offset - s) as usize;
                return Some(&b[at..at + len]);
            }
        }
        None
    }

    /// Copy the file's `n` bytes at `offset` from the host into `room` (`n + 7` long),
    /// within the fetch budget, starting where `room` shares the offset's alignment mod 8:
    /// a host copying out of a SharedArrayBuffer (pool workers) then gets V8's word-wise
    /// copy, not its byte-wise one for mismatched alignments (~8x slower). Returns that
    /// start; `None` past the budget or when the host could not copy.
    fn fetch_aligned(&self, offset: u64, n: usize, room: &mut [MaybeUninit<u8>]) -> Option<usize> {
        let left = self.budget.get().checked_sub(n as u64)?;
        self.budget.set(left);
        let skip = (offset as usize).wrapping_sub(room.as_ptr() as usize) & 7;
        (self.fetch)(offset, &mut room[skip..skip + n]).then_some(skip)
    }

    /// Bytes copied from the host so far (tests and benchmarks check what a read transfers).
    pub fn fetched_bytes(&self) -> u64 {
        self.fetched
            .borrow()
            .iter()
            .map(|(_, b)| b.len() as u64)
            .sum::<u64>()
            + self.once.get()
    }
}

/// A [`HostSource`] fetch over a file already in Rust memory (tests and native hosts).
pub fn slice_fetch(file: &[u8]) -> impl Fn(u64, &mut [MaybeUninit<u8>]) -> bool + '_ {
    move |off, dst| {
        let Some(src) = usize::try_from(off)
            .ok()
            .and_then(|o| file.get(o..o.checked_add(dst.len())?))
        else {
            return false;
        };
        for (d, s) in dst.iter_mut().zip(src) {
            d.write(*s);
        }
        true
    }
}

impl<'a> ByteSource for HostSource<'a> {
    fn size(&self) -> u64 {
        self.kept.size()
    }
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        if let Some(b) = self.loaded(offset, len) {
            return Some(b);
        }
        let end = offset.checked_add(len as u64)?;
        let mut fetched = self.fetched.borrow_mut();
        if end > self.size() {
            return None;
        }
        // Small reads (header fields) get a window; larger ones (page bodies) a tail.
        let want = if len <= FETCH_MIN {
            FETCH_MIN
        } else {
            len.saturating_add(FETCH_TAIL)
        } as u64;
        let n = want.min(self.size() - offset) as usize;
        let room: &'a mut [MaybeUninit<u8>] = self
            .arena
            .alloc_slice_fill_with(n + 7, |_| MaybeUninit::uninit());
        let skip = self.fetch_aligned(offset, n, room)?;
        let buf = &room[skip..skip + n];
        // SAFETY: the fetch succeeded, which by its contract means it wrote every byte of
        // `buf`; `MaybeUninit<u8>` and `u8` have the same layout.
        let buf: &'a [u8] = unsafe { &*(buf as *const [MaybeUninit<u8>] as *const [u8]) };
        fetched.push((offset, buf));
        Some(&buf[..len])
    }

    fn fetches_on_demand(&self) -> bool {
        true
    }

    fn read_once<'s>(
        &'s self,
        format: Format,
        offset: u64,
        len: usize,
        scratch: &'s mut Vec<u8>,
    ) -> Result<&'s [u8]> {
        let end = offset.checked_add(len as u64).filter(|&e| e <= self.size());
        if end.is_none() || len <= FETCH_MIN {
            return self.read(format, offset, len);
        }
        if let Some(b) = self.loaded(offset, len) {
            return Ok(b);
        }
        if scratch.len() < len + 7 {
            scratch.resize(len + 7, 0);
        }
        let room = &mut scratch[..len + 7];
        // SAFETY: `fetch` only writes initialised bytes (its contract: it copies the file's
        // bytes), so viewing these initialised bytes as `MaybeUninit<u8>` (same layout)
        // cannot leave any of them uninitialised.
        let room = unsafe { &mut *(room as *mut [u8] as *mut [MaybeUninit<u8>]) };
        let skip = self
            .fetch_aligned(offset, len, room)
            .ok_or_else(|| DecodeError::need_bytes(format, offset, len as u64))?;
        self.once.set(self.once.get() + len as u64);
        Ok(&scratch[skip..skip + len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_source_bounds() {
        let data = [1u8, 2, 3, 4];
        let src: &[u8] = &data;
        assert_eq!(src.read(Format::Hdf5, 1, 2).unwrap(), &[2, 3]);
        let err = src.read(Format::Hdf5, 3, 2).unwrap_err();
        assert_eq!(err.code, ErrorCode::Truncated);
        assert_eq!(
            src.read(Format::Hdf5, u64::MAX, 2).unwrap_err().code,
            ErrorCode::Truncated
        );
    }

    /// An empty range is there whether or not anything is loaded, up to the end of the
    /// file: a `NeedBytes` for it could never be answered (the host would supply nothing).
    #[test]
    fn empty_ranges_are_always_loaded() {
        let c = RangeCache::new(100);
        assert_eq!(c.read(Format::Hdf5, 100, 0).unwrap(), &[] as &[u8]);
        assert_eq!(c.read(Format::Hdf5, 40, 0).unwrap(), &[] as &[u8]);
        assert_eq!(
            c.read(Format::Hdf5, 101, 0).unwrap_err().code,
            ErrorCode::Truncated
        );
        let (kept, arena) = (RangeCache::new(10), Bump::new());
        let src = HostSource::over_slice(&kept, &arena, &[0u8; 10]);
        assert_eq!(src.read(Format::Hdf5, 10, 0).unwrap(), &[] as &[u8]);
    }

    #[test]
    fn cache_merges_and_reports_missing() {
        let mut c = RangeCache::new(100);
        c.insert(10, vec![1; 10]);
        assert_eq!(
            c.read(Format::TsFile, 5, 2).unwrap_err().code,
            ErrorCode::NeedBytes
        );
        c.insert(20, vec![2; 5]);
        c.insert(5, vec![3; 6]);
        assert_eq!(c.segments.len(), 1);
        let got = c.read(Format::TsFile, 5, 20).unwrap();
        assert_eq!(&got[..6], &[3; 6]);
        assert_eq!(&got[6..15], &[1; 9]);
        assert_eq!(&got[15..], &[2; 5]);
        assert_eq!(
            c.read(Format::TsFile, 99, 2).unwrap_err().code,
            ErrorCode::Truncated
        );
    }

    #[test]
    fn cache_merges_overlaps_from_both_sides() {
        let file: Vec<u8> = (0..100u8).collect();
        let mut c = RangeCache::new(100);
        for (a, b) in [
            (10, 20),
            (30, 40),
            (15, 35),
            (5, 12),
            (38, 60),
            (60, 61),
            (0, 1),
        ] {
            c.insert(a, file[a as usize..b].to_vec());
        }
        assert_eq!(c.segments.len(), 2);
        assert_eq!(c.read(Format::TsFile, 5, 56).unwrap(), &file[5..61]);
        assert_eq!(c.read(Format::TsFile, 0, 1).unwrap(), &file[0..1]);
        assert_eq!(
            c.read(Format::TsFile, 0, 2).unwrap_err().code,
            ErrorCode::NeedBytes
        );
    }

    #[test]
    fn cache_superset_replaces_neighbours() {
        let file: Vec<u8> = (0..100u8).collect();
        let mut c = RangeCache::new(100);
        c.insert(0, file[0..7].to_vec());
        c.insert(90, file[90..100].to_vec());
        c.insert(0, file[0..95].to_vec());
        assert_eq!(c.segments.len(), 1);
        assert_eq!(c.read(Format::TsFile, 0, 100).unwrap(), &file[..]);
    }

    #[test]
    fn cache_keeping_neighbours_merges_only_overlaps() {
        let file: Vec<u8> = (0..100u8).collect();
        let mut c = RangeCache::keeping_neighbours(100);
        for (a, b) in [(10, 20), (20, 30), (0, 10)] {
            c.insert(a, file[a as usize..b].to_vec());
        }
        assert_eq!(c.segments.len(), 3);
        assert_eq!(c.read(Format::Hdf5, 20, 10).unwrap(), &file[20..30]);
        // A read across two neighbours asks for its range; supplying it merges them.
        assert_eq!(
            c.read(Format::Hdf5, 15, 10).unwrap_err().code,
            ErrorCode::NeedBytes
        );
        c.insert(15, file[15..25].to_vec());
        assert_eq!(c.segments.len(), 2);
        assert_eq!(c.read(Format::Hdf5, 12, 16).unwrap(), &file[12..28]);
    }
    use crate::source::slice_fetch;

    #[test]
    fn host_source_fetches_only_what_is_read() {
        let file: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let mut kept = RangeCache::new(file.len() as u64);
        kept.insert(4900, file[4900..].to_vec());
        let calls = std::cell::Cell::new(0);
        let from_file = slice_fetch(&file);
        let fetch = |off: u64, dst: &mut [MaybeUninit<u8>]| {
            calls.set(calls.get() + 1);
            from_file(off, dst)
        };
        let arena = Bump::new();
        // SAFETY: `fetch` is `slice_fetch` with a call count.
        let src = unsafe { HostSource::new(&kept, &arena, &fetch) };
        // Kept bytes cost no fetch.
        assert_eq!(
            src.read(Format::TsFile, 4950, 10).unwrap(),
            &file[4950..4960]
        );
        assert_eq!(calls.get(), 0);
        // A small read fetches a window; reads inside it are served from it.
        assert_eq!(src.read(Format::TsFile, 100, 4).unwrap(), &file[100..104]);
        assert_eq!(src.read(Format::TsFile, 104, 100).unwrap(), &file[104..204]);
        assert_eq!(calls.get(), 1);
        // A large read fetches its range plus a tail for the header after it.
        assert_eq!(
            src.read(Format::TsFile, 1000, 2000).unwrap(),
            &file[1000..3000]
        );
        assert_eq!(
            src.read(Format::TsFile, 3000, 100).unwrap(),
            &file[3000..3100]
        );
        assert_eq!(calls.get(), 2);
        // Windows stop at the end of the file; past it is Truncated, not a fetch.
        assert_eq!(
            src.read(Format::TsFile, 4890, 20).unwrap(),
            &file[4890..4910]
        );
        assert_eq!(
            src.read(Format::TsFile, 4999, 2).unwrap_err().code,
            ErrorCode::Truncated
        );
        assert_eq!(src.fetched_bytes(), 128 + (2000 + 128) + 110);
    }

    #[test]
    fn host_source_buffers_share_the_file_offsets_alignment() {
        let file: Vec<u8> = (0..5000u32).map(|i| (i * 7) as u8).collect();
        let kept = RangeCache::new(file.len() as u64);
        let inner = slice_fetch(&file);
        let misaligned = std::cell::Cell::new(0);
        let fetch = |off: u64, dst: &mut [MaybeUninit<u8>]| {
            if (dst.as_ptr() as u64).wrapping_sub(off) & 7 != 0 {
                misaligned.set(misaligned.get() + 1);
            }
            inner(off, dst)
        };
        let arena = Bump::new();
        // SAFETY: `fetch` is `slice_fetch` with an alignment count.
        let src = unsafe { HostSource::new(&kept, &arena, &fetch) };
        for (off, len) in [
            (1u64, 3usize),
            (1003, 900),
            (2222, 5),
            (3001, 1000),
            (4097, 17),
        ] {
            assert_eq!(
                src.read(Format::Hdf5, off, len).unwrap(),
                &file[off as usize..off as usize + len]
            );
        }
        assert_eq!(misaligned.get(), 0);
    }

    #[test]
    fn host_source_budget_bounds_the_arena() {
        let file = vec![7u8; 1000];
        let kept = RangeCache::new(1000);
        let arena = Bump::new();
        let src = HostSource::over_slice(&kept, &arena, &file).with_budget(300);
        assert!(src.read(Format::TsFile, 0, 10).is_ok());
        assert!(src.read(Format::TsFile, 500, 10).is_ok());
        // A third window would pass the budget: the host is asked to supply it instead.
        assert_eq!(
            src.read(Format::TsFile, 800, 10).unwrap_err().code,
            ErrorCode::NeedBytes
        );
        assert_eq!(src.fetched_bytes(), 256);
        assert!(arena.allocated_bytes() < 4096);
    }

    #[test]
    fn host_source_failed_fetch_is_need_bytes() {
        let kept = RangeCache::new(100);
        let fetch = |_: u64, _: &mut [MaybeUninit<u8>]| false;
        let arena = Bump::new();
        // SAFETY: `fetch` never claims to have written anything.
        let src = unsafe { HostSource::new(&kept, &arena, &fetch) };
        assert_eq!(
            src.read(Format::Hdf5, 10, 5).unwrap_err().code,
            ErrorCode::NeedBytes
        );
        let mut scratch = Vec::new();
        let e = src
            .read_once(Format::Hdf5, 10, 500, &mut scratch)
            .unwrap_err();
        assert_eq!(
            (e.code, e.offset),
            (ErrorCode::Truncated, 10),
            "past the end"
        );
        let kept = RangeCache::new(1000);
        // SAFETY: as above.
        let src = unsafe { HostSource::new(&kept, &arena, &fetch) };
        let e = src
            .read_once(Format::Hdf5, 10, 300, &mut scratch)
            .unwrap_err();
        assert_eq!(
            (e.code, e.offset, e.need_len),
            (ErrorCode::NeedBytes, 10, 300)
        );
    }

    /// `read_once` copies what is not loaded into the caller's scratch (reused, nothing
    /// kept), at the offset's alignment mod 8, within the fetch budget; loaded bytes and
    /// small reads go the usual way.
    #[test]
    fn host_source_read_once() {
        let file: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut kept = RangeCache::new(file.len() as u64);
        kept.insert(4000, file[4000..4600].to_vec());
        let arena = Bump::new();
        let src = HostSource::over_slice(&kept, &arena, &file).with_budget(2500);
        assert!(src.fetches_on_demand() && !kept.fetches_on_demand());
        let mut scratch = Vec::new();
        for (off, len) in [(1003, 900), (17, 1000), (2001, 600)] {
            let got = src.read_once(Format::Hdf5, off, len, &mut scratch).unwrap();
            assert_eq!(got, &file[off as usize..][..len]);
            assert_eq!(got.as_ptr() as u64 % 8, off % 8, "alignment of {off}");
        }
        assert_eq!(src.fetched_bytes(), 2500, "copied into scratch, counted");
        assert!(arena.allocated_bytes() < 1000, "nothing kept in the arena");
        // Kept bytes cost no fetch, even with the budget spent.
        assert_eq!(
            src.read_once(Format::Hdf5, 4100, 400, &mut scratch)
                .unwrap(),
            &file[4100..4500]
        );
        let e = src
            .read_once(Format::Hdf5, 0, 200, &mut scratch)
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::NeedBytes, "past the budget");
        // A loaded source reads as it always does.
        assert_eq!(
            file.read_once(Format::Hdf5, 5, 300, &mut scratch).unwrap(),
            &file[5..305]
        );
        assert!(file
            .read_once(Format::Hdf5, 4900, 300, &mut scratch)
            .is_err());
    }
}
