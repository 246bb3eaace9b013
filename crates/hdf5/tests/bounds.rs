//! Allocation only from evidence (#24): hostile files whose headers claim more than their
//! bytes hold fail before the claim is allocated, and reads over `max_read_bytes` fail with
//! `TooLarge` naming the bytes needed. A counting allocator measures each read's peak.
#![allow(unsafe_code)] // the counting global allocator (test only) forwards to `System`

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use arrowsmith_core::ErrorCode;
use arrowsmith_hdf5::Hdf5File;

struct Counting;
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = NOW.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), Relaxed);
        // SAFETY: `p` came from `alloc` with this layout.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// The peak of bytes allocated while `f` runs, above what was allocated before.
fn peak<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed) - base)
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(common::fixtures_dir().join(name)).unwrap()
}

/// vl_big.h5's contiguous `/a_str`: 4,500 VL string cells of 16 bytes at its data address.
fn cells(b: &[u8]) -> (usize, usize) {
    let f = Hdf5File::open(&b.to_vec()).unwrap();
    let plan = f.plan(&b.to_vec(), "/a_str", 0, None).unwrap();
    let n = 4500 * 16;
    let at = plan
        .iter()
        .find_map(|&(o, l)| (l >= n as u64).then_some(o as usize))
        .unwrap();
    // The planned range starts at or before the cells: find the first cell by its shape
    // (a length, then the address of a collection in the file).
    let first = (at..at + 4096)
        .find(|&i| {
            let ok = |k: usize| {
                let c = &b[i + 16 * k..i + 16 * k + 16];
                let addr = u64::from_le_bytes(c[4..12].try_into().unwrap());
                (addr as usize) < b.len() && &b[addr as usize..addr as usize + 4] == b"GCOL"
            };
            (0..8).all(ok)
        })
        .unwrap();
    (first, 4500)
}

#[test]
fn vl_cells_claiming_more_than_the_heap_holds_fail_before_allocating() {
    let mut b = fixture("vl_big.h5");
    let (first, n) = cells(&b);
    // Every cell claims 200,000 bytes: 900 MB in all, under the 1 GiB limit, from a
    // 614 KiB file whose heap holds far less.
    for k in 0..n {
        b[first + 16 * k..first + 16 * k + 4].copy_from_slice(&200_000u32.to_le_bytes());
    }
    let f = Hdf5File::open(&b).unwrap();
    let (res, used) = peak(|| f.read(&b, "/a_str", 0, None));
    let e = res.unwrap_err();
    assert_eq!(e.code, ErrorCode::Invalid, "{e}");
    assert!(
        used < 16 * b.len(),
        "allocated {used} bytes for a {}-byte file",
        b.len()
    );
}

#[test]
fn reads_over_the_limit_are_too_large_naming_the_need() {
    let b = fixture("vl_big.h5");
    let mut f = Hdf5File::open(&b).unwrap();
    f.max_read_bytes = 1000;
    for path in ["/a_str", "/b_vint_gzip_edge", "/c_str_gzip"] {
        let e = f.read(&b, path, 0, None).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge, "{path}: {e}");
        assert!(e.need_len > 1000, "{path}: {e}");
        assert!(e.message.contains(&e.need_len.to_string()), "{e}");
        assert!(e.message.contains("maxReadBytes"), "{e}");
    }
    // A read within the limit: a few rows.
    f.max_read_bytes = 64 << 10;
    assert_eq!(f.read(&b, "/a_str", 10, Some(20)).unwrap().num_rows, 20);
}
