//! Fuzzing / robustness entry for HDF5 (the `hdf5` fuzz target and the hdf5 crate's
//! robustness and regression tests include this file): open, list every group
//! recursively, read every dataset and every attribute. Errors are expected on bad input;
//! panics, hangs and unbounded allocation are bugs.

use arrowsmith_core::{Bump, ByteSource, HostSource, RangeCache};
use arrowsmith_hdf5::{dataset_paths, Hdf5File};

/// Returns the number of datasets read successfully.
pub fn exercise(data: &[u8], max_read_bytes: u64) -> usize {
    // Inputs that start like a virtual dataset's mappings (version 0 or 1; the seeds are
    // fixtures/hdf5/vds/*_mappings_*.bin) also go to that parser directly: in a file its
    // heap object is behind a checksum mutations rarely keep.
    if data.first().is_some_and(|&v| v <= 1) {
        let _ = arrowsmith_hdf5::fuzz_mappings(data);
    }
    let bytes = data.to_vec();
    let src: &dyn ByteSource = &bytes;
    let Ok(mut f) = Hdf5File::open(src) else {
        return 0;
    };
    f.max_read_bytes = max_read_bytes;
    let Ok(paths) = dataset_paths(&f, src) else {
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
