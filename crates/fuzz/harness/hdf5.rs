//! Fuzzing / robustness entry for HDF5 (the `hdf5` fuzz target and the hdf5 crate's
//! robustness and regression tests include this file): open, list every group
//! recursively, read every dataset and every attribute; hyperslab reads of every dataset
//! (`select`, the `hdf5_select` target). Errors are expected on bad input; panics, hangs
//! and unbounded allocation are bugs.

use arrowsmith_core::{Bump, ByteSource, HostSource, RangeCache};
use arrowsmith_hdf5::{dataset_paths, result_shape, Hdf5File, Select};

/// The file and its dataset paths, if it opens and walks.
fn opened(src: &dyn ByteSource, max_read_bytes: u64) -> Option<(Hdf5File, Vec<String>)> {
    let mut f = Hdf5File::open(src).ok()?;
    f.max_read_bytes = max_read_bytes;
    let paths = dataset_paths(&f, src).ok()?;
    Some((f, paths))
}

/// Returns the number of datasets read successfully.
#[allow(dead_code)] // Each includer uses one entry point or both.
pub fn exercise(data: &[u8], max_read_bytes: u64) -> usize {
    // Inputs that start like a virtual dataset's mappings (version 0 or 1; the seeds are
    // fixtures/hdf5/vds/*_mappings_*.bin) also go to that parser directly: in a file its
    // heap object is behind a checksum mutations rarely keep.
    if data.first().is_some_and(|&v| v <= 1) {
        let _ = arrowsmith_hdf5::fuzz_mappings(data);
    }
    let bytes = data.to_vec();
    let src: &dyn ByteSource = &bytes;
    let Some((f, paths)) = opened(src, max_read_bytes) else {
        return 0;
    };
    let _ = f.attrs(src, "/");
    // The JS package reads in-memory files through a fetch-on-demand HostSource: every
    // dataset read that way must give what the whole-buffer read gives (NaN-safe: as text).
    let kept = RangeCache::new(data.len() as u64);
    let mut arena = Bump::new();
    let mut ok = 0;
    for p in paths.iter().take(256) {
        let _ = f.info(src, p);
        let _ = f.attrs(src, p);
        let whole = f.read(src, p, 0, None);
        arena.reset();
        let fetched = f.read(&HostSource::over_slice(&kept, &arena, data), p, 0, None);
        assert_eq!(
            format!("{:?}", whole.as_ref().ok()),
            format!("{:?}", fetched.as_ref().ok()),
            "{p}: a HostSource read differs from the whole-buffer read"
        );
        if whole.is_ok() {
            ok += 1;
        }
        let _ = f.read(src, p, 1, Some(2));
        // External storage: the pieces (bounded by the read limit), decoded from zeros.
        if let Ok(Some(pieces)) = f.external_ranges(src, p, 0, None) {
            let n: u64 = pieces.iter().map(|p| p.2).sum();
            let _ = f.read_external(src, p, 0, None, &vec![0; n as usize]);
        }
    }
    ok
}

/// One dimension of a selection on a dimension of length `d`, from byte `b`: an index, the
/// whole dimension, a range with a step (in bounds or past the end), or counts and steps
/// whose arithmetic overflows.
fn entry(b: u8, d: u64) -> Select {
    let v = b as u64;
    match b % 5 {
        0 => Select::Index(v % (d + 1)),
        1 => Select::All,
        2 | 3 => Select::Range {
            start: (v >> 3) % (d + 1),
            count: (v >> 2) % (d / 2 + 2),
            step: 1 + (v >> 5),
        },
        _ => Select::Range {
            start: u64::MAX - v,
            count: u64::MAX >> (v % 64),
            step: v >> 6,
        },
    }
}

/// Hyperslab reads of every dataset, with selections made from the input's bytes and the
/// dataset's shape (see [`entry`]; one of four of another rank): a read through a
/// fetch-on-demand `HostSource` gives what the whole-buffer read gives, and a read that
/// succeeds has the rows its result shape says. Returns the reads that succeeded.
#[allow(dead_code)] // Each includer uses one entry point or both.
pub fn select(data: &[u8], max_read_bytes: u64) -> usize {
    let bytes = data.to_vec();
    let src: &dyn ByteSource = &bytes;
    let Some((f, paths)) = opened(src, max_read_bytes) else {
        return 0;
    };
    let kept = RangeCache::new(data.len() as u64);
    let mut arena = Bump::new();
    let mut ok = 0;
    let byte = |i: usize| data[i % data.len()];
    for (n, p) in paths.iter().take(64).enumerate() {
        let Ok(info) = f.info(src, p) else {
            continue;
        };
        for j in 0..4 {
            let mut sel: Vec<Select> = (info.shape.iter().enumerate())
                .map(|(k, &d)| entry(byte(97 * n + 13 * j + k), d))
                .collect();
            if j == 3 {
                sel.push(Select::All);
            }
            let whole = f.read_select(src, p, &sel);
            arena.reset();
            let fetched = f.read_select(&HostSource::over_slice(&kept, &arena, data), p, &sel);
            assert_eq!(
                format!("{:?}", whole.as_ref().ok()),
                format!("{:?}", fetched.as_ref().ok()),
                "{p} {sel:?}: a HostSource read differs from the whole-buffer read"
            );
            if let Ok(b) = whole {
                let shape = result_shape(&sel, &info.shape)
                    .expect("a read of a selection that does not fit");
                assert_eq!(
                    b.num_rows as u64,
                    shape.first().copied().unwrap_or(1),
                    "{p} {sel:?}: rows"
                );
                ok += 1;
            }
        }
    }
    ok
}
