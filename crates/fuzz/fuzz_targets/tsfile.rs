//! Whole-file fuzzing of the TsFile reader: open, list, plan and read everything, from a
//! slice and through a fetch-on-demand `HostSource` (the in-memory wasm path), which must
//! agree. Seed corpus: `fixtures/tsfile/*.tsfile`.
#![no_main]

use arrowsmith_core::{Bump, HostSource, RangeCache};
use arrowsmith_tsfile::{Query, TsFile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = data.to_vec();
    let Ok(f) = TsFile::open(&bytes) else { return };
    let _ = f.devices(None);
    let _ = f.timeseries(&bytes);
    let q = Query::default();
    let _ = f.plan(&bytes, &q);
    let whole = f.read(&bytes, &q);
    if let Ok(b) = &whole {
        assert!(b.columns.iter().all(|c| c.len == b.num_rows));
    }
    let (kept, arena) = (RangeCache::new(bytes.len() as u64), Bump::new());
    let src = HostSource::over_slice(&kept, &arena, &bytes);
    let fetched = f.read(&src, &q);
    // Same answer (NaN-safe: compared as text).
    assert_eq!(format!("{:?}", whole.ok()), format!("{:?}", fetched.ok()));
    let _ = f.read(
        &src,
        &Query {
            start: Some(1_650_000_001_000),
            end: Some(1_700_000_000_500),
            ..Default::default()
        },
    );
    // A narrow query exercises page pruning and trimming.
    let q = Query {
        start: Some(1_650_000_001_000),
        end: Some(1_700_000_000_500),
        limit: Some(100),
        ..Default::default()
    };
    let _ = f.read(&bytes, &q);
});
