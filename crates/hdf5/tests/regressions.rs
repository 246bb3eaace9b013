//! Inputs found by the fuzzer (crates/fuzz/fuzz_targets/hdf5.rs); each must not panic.

#[path = "../../fuzz/harness/hdf5.rs"]
mod harness;

#[test]
fn fuzz_regressions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in rd {
        let p = e.unwrap().path();
        let b = std::fs::read(&p).unwrap();
        harness::exercise(&b, 64 << 20);
    }
}
