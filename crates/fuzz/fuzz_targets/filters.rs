//! The HDF5 filter pipeline on hostile chunks: byte 0 picks a filter (blosc, LZ4,
//! bitshuffle, Zstandard, scale-offset, N-bit, bzip2, SZIP, or one of them behind shuffle/deflate),
//! bytes 1–2 the chunk's unfiltered size, byte 3 the number of filter parameters (read
//! next, 4 bytes each), the rest is the stored chunk. Errors are fine; a panic, or output
//! longer than the chunk, is a bug. Seed corpus: chunks of fixtures/hdf5/filters_h5py.h5.
#![no_main]

use arrowsmith_hdf5::filters::{
    self, Filter, BITSHUFFLE, BLOSC, BZIP2, DEFLATE, LZ4, NBIT, SCALEOFFSET, SHUFFLE, SZIP, ZSTD,
};

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [pick, a, b, ncd, rest @ ..] = data else {
        return;
    };
    let expected = (*a as usize) << 8 | *b as usize;
    let ncd = (*ncd as usize % 24).min(rest.len() / 4);
    let (cd, chunk) = rest.split_at(ncd * 4);
    let cd: Vec<u32> = cd
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let ids = [BLOSC, LZ4, BITSHUFFLE, ZSTD, SCALEOFFSET, NBIT, BZIP2, SZIP];
    let id = ids[*pick as usize % ids.len()];
    let filter = |id| Filter {
        id,
        name: String::new(),
        flags: 0,
        cd: cd.clone(),
    };
    let pipeline = match pick / 64 {
        // Stored after shuffle (so undone before the unshuffle), or before deflate.
        1 => vec![filter(SHUFFLE), filter(id)],
        2 => vec![filter(id), filter(DEFLATE)],
        _ => vec![filter(id)],
    };
    if let Ok(v) = filters::apply(&pipeline, 0, chunk, expected, 0) {
        assert!(
            v.len() <= expected,
            "{} bytes out of a {expected}-byte chunk",
            v.len()
        );
    }
    let mut out = vec![0u8; expected];
    if let Ok(n) = filters::apply_into(&pipeline, 0, chunk, &mut out, 0) {
        assert!(
            n <= expected || pipeline.iter().all(|f| f.id != id),
            "{n} bytes into {expected}"
        );
    }
});
