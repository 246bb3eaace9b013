//! Whole-file HDF5 fuzzing: open, list every group recursively, read every dataset (whole,
//! also through a fetch-on-demand `HostSource`, which must agree,
//! and a window) and every attribute. Errors are fine; panics, hangs and allocations beyond
//! the read limit are bugs. Seed corpus: fixtures/hdf5/*.h5.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../harness/hdf5.rs"]
mod harness;

fuzz_target!(|data: &[u8]| {
    // 16 MiB per read keeps libFuzzer's default 2 GiB RSS limit far away.
    harness::exercise(data, 16 << 20);
});
