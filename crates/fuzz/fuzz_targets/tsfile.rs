//! Whole-file fuzzing of the TsFile reader: open, list, plan and read everything.
//! Seed corpus: `fixtures/tsfile/*.tsfile`.
#![no_main]

use arrowsmith_tsfile::{Query, TsFile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = data.to_vec();
    let Ok(f) = TsFile::open(&bytes) else { return };
    let _ = f.devices(None);
    let _ = f.timeseries(&bytes);
    let q = Query::default();
    let _ = f.plan(&bytes, &q);
    if let Ok(b) = f.read(&bytes, &q) {
        assert!(b.columns.iter().all(|c| c.len == b.num_rows));
    }
    // A narrow query exercises page pruning and trimming.
    let q = Query {
        start: Some(1_650_000_001_000),
        end: Some(1_700_000_000_500),
        limit: Some(100),
        ..Default::default()
    };
    let _ = f.read(&bytes, &q);
});
