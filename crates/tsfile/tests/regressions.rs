//! Inputs found by the fuzzer (crates/fuzz/fuzz_targets/tsfile.rs); each must give a result
//! or a typed error, never a panic (tests build with overflow checks on, as the fuzzer does).

use arrowsmith_tsfile::{Query, TsFile};

#[test]
fn fuzz_regressions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let b = std::fs::read(e.unwrap().path()).unwrap();
        seen += 1;
        let Ok(f) = TsFile::open(&b) else { continue };
        let _ = f.timeseries(&b);
        let _ = f.read(&b, &Query::default());
        let slice = Query {
            start: Some(1_650_000_001_000),
            end: Some(1_700_000_000_500),
            limit: Some(100),
            ..Default::default()
        };
        let _ = f.read(&b, &slice);
    }
    assert!(seen > 0);
}
