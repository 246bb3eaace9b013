//! HDF5 hyperslab reads over arbitrary bytes: every dataset read with selections made from
//! the input's bytes (indexes, ranges with steps, past the end, overflowing, the wrong
//! rank), whole-buffer and fetch-on-demand reads agreeing. Errors are fine; panics, hangs
//! and allocations beyond the read limit are bugs. Seed corpus: fixtures/hdf5/select/*.h5.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../harness/hdf5.rs"]
mod harness;

fuzz_target!(|data: &[u8]| {
    harness::select(data, 16 << 20);
});
