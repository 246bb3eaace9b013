//! Allocation only from evidence: whatever counts and lengths an input declares, decoding
//! it allocates in proportion to its size. A counting allocator measures the peak of each
//! decode (one test function: the counters are global to this test binary).
#![allow(unsafe_code)] // a counting global allocator, which must implement GlobalAlloc

use std::alloc::{GlobalAlloc, Layout as L, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use arrowsmith_msgpack::{decode, split, Options, StreamDecoder};

struct Counting;
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to `System`; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: L) -> *mut u8 {
        let now = NOW.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: L) {
        NOW.fetch_sub(l.size(), Relaxed);
        // SAFETY: `p` was allocated by `System` with layout `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: L, new: usize) -> *mut u8 {
        if new > l.size() {
            let now = NOW.fetch_add(new - l.size(), Relaxed) + new - l.size();
            PEAK.fetch_max(now, Relaxed);
        } else {
            NOW.fetch_sub(l.size() - new, Relaxed);
        }
        // SAFETY: `p` was allocated by `System` with layout `l`.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Peak bytes allocated while `f` runs, above what was allocated before.
fn peak(f: impl FnOnce()) -> usize {
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    f();
    PEAK.load(Relaxed) - base
}

/// Inputs that declare far more than they hold, each with a few real bytes after.
fn hostile() -> Vec<(&'static str, Vec<u8>)> {
    let tail = vec![0x01; 64];
    let with = |head: &[u8]| [head, &tail].concat();
    vec![
        (
            "array32 of 2^32-1 elements",
            with(&[0xdd, 0xff, 0xff, 0xff, 0xff]),
        ),
        (
            "map32 of 2^32-1 entries",
            with(&[0xdf, 0xff, 0xff, 0xff, 0xff]),
        ),
        (
            "array16 of 65535 in an array",
            with(&[0x91, 0xdc, 0xff, 0xff]),
        ),
        (
            "str32 of 4 GiB",
            with(&[0x91, 0xdb, 0xff, 0xff, 0xff, 0xff]),
        ),
        (
            "bin32 of 4 GiB",
            with(&[0x91, 0xc6, 0xff, 0xff, 0xff, 0xff]),
        ),
        (
            "ext32 of 4 GiB",
            with(&[0x91, 0xc9, 0xff, 0xff, 0xff, 0xff, 0x05]),
        ),
        ("the report's dc 00 14", vec![0xdc, 0x00, 0x14]),
        // msgpackr: a structure of 2^32-1 keys.
        (
            "msgpackr keys",
            with(&[0x91, 0xd4, 0x72, 0x40, 0xdd, 0xff, 0xff, 0xff, 0xff]),
        ),
        // Every row an array32 claiming what is left: grants must share one budget.
        ("nested claims", {
            let mut v = vec![0xdc, 0x00, 0x40];
            for _ in 0..64 {
                v.extend([0xdd, 0x00, 0x00, 0x10, 0x00]);
            }
            v.extend(vec![0x00; 4096]);
            v
        }),
    ]
}

#[test]
fn decoding_allocates_in_proportion_to_the_input() {
    for (what, bytes) in hostile() {
        // Output and working memory: at most 64 bytes per input byte, plus a fixed 64 KiB.
        let limit = 64 * bytes.len() + (64 << 10);
        let p = peak(|| {
            let _ = decode(&bytes, &Options::default());
        });
        assert!(
            p <= limit,
            "{what}: decode allocated {p} bytes for {} input bytes",
            bytes.len()
        );
        let p = peak(|| {
            let _ = split(&bytes, 4, &Options::default());
        });
        assert!(p <= limit, "{what}: split allocated {p} bytes");
        let p = peak(|| {
            let mut s = StreamDecoder::new(Options::default());
            let _ = s.push(&bytes);
            let _ = s.finish();
        });
        // The stream also holds its copy of the input.
        assert!(
            p <= limit + bytes.len(),
            "{what}: stream allocated {p} bytes"
        );
    }
    // Records whose every row brings new keys: the null cells of missing keys are
    // bounded by the input (then the records are one Map column).
    let mut rows = vec![0xdd];
    rows.extend(20_000u32.to_be_bytes());
    for i in 0..20_000u32 {
        let k = format!("k{i}");
        rows.extend([0x81, 0xa0 | k.len() as u8]);
        rows.extend(k.as_bytes());
        rows.push(0x01);
    }
    let p = peak(|| {
        decode(&rows, &Options::default()).unwrap();
    });
    assert!(
        p <= 64 * rows.len(),
        "20,000 distinct keys: {p} bytes for {} input bytes",
        rows.len()
    );
}
