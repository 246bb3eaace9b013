//! The SZIP (AEC) decoder on hostile streams: byte 0 picks the bits per sample (1–32 or
//! the 64-bit byte planes), byte 1 the block size, bytes 2–3 the pixels per scanline,
//! byte 4 the options (NN, MSB), bytes 5–6 the chunk's size; the rest is the stored chunk
//! (u32 size header, then the stream). Errors are fine; a panic, or output longer than
//! the chunk, is a bug. The same stream also goes through the bare coder.
#![no_main]

use arrowsmith_hdf5::filters::{self, AecCoder, Filter, SZIP};

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [bits, block, p0, p1, opts, e0, e1, chunk @ ..] = data else {
        return;
    };
    let bpp = match bits % 33 {
        0 => 64,
        b => b as u32,
    };
    let ppb = 2 * (1 + *block as u32 % 32);
    let pps = (*p0 as u32) << 8 | *p1 as u32;
    let mask = 128 | ((*opts as u32 & 1) * 32) | ((*opts as u32 & 2) * 8) | 8;
    let expected = (*e0 as usize) << 8 | *e1 as usize;
    let f = Filter {
        id: SZIP,
        name: String::new(),
        flags: 0,
        cd: vec![mask, ppb, bpp, pps],
    };
    if let Ok(v) = filters::apply(std::slice::from_ref(&f), 0, chunk, expected, 0) {
        assert!(v.len() <= expected, "{} bytes out of {expected}", v.len());
    }
    let mut out = vec![0u8; expected];
    if let Ok(n) = filters::apply_into(&[f], 0, chunk, &mut out, 0) {
        assert!(n <= expected, "{n} bytes into {expected}");
    }
    let rsi = (pps as usize).div_ceil(ppb as usize).max(1);
    let coder = AecCoder {
        bps: bpp.min(32),
        j: ppb as usize,
        rsi,
        pps: rsi * ppb as usize,
        pp: opts & 1 != 0,
        msb: opts & 2 != 0,
    };
    let _ = coder.run(chunk, &mut out);
});
