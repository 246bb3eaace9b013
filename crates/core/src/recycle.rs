//! Output byte buffers given back once the host has copied them out, reused for the next
//! read's output. A fresh `vec![0; n]` of a few MB is a memset of memory the decoder then
//! overwrites whole: ~0.1 ms for the 3 MB of 100k strings, 3–8 % of such a read.

use std::cell::RefCell;

use crate::column::{Buffer, Column};

/// Buffers smaller than this are not worth keeping.
const MIN: usize = 64 << 10;
/// At most this many buffers and bytes are kept (the rest are freed as usual).
const KEEP: usize = 4;
const KEEP_BYTES: usize = 64 << 20;

thread_local! {
    static SPARE: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// `len` bytes whose contents are unspecified (zeros, or what an earlier output held), for
/// a caller that overwrites every one of them before anyone reads them.
pub fn bytes_to_overwrite(len: usize) -> Vec<u8> {
    if len >= MIN {
        let spare = SPARE.with(|s| {
            let mut s = s.borrow_mut();
            let best = (0..s.len())
                .filter(|&i| s[i].capacity() >= len)
                .min_by_key(|&i| s[i].capacity());
            best.map(|i| s.swap_remove(i))
        });
        if let Some(mut v) = spare {
            // Only bytes past the buffer's earlier length are zeroed.
            if v.len() >= len {
                v.truncate(len);
            } else {
                v.resize(len, 0);
            }
            return v;
        }
    }
    vec![0; len]
}

/// Keep `v` for a later [`bytes_to_overwrite`], within the count and byte bounds (the
/// largest buffers are kept).
pub fn give_back(v: Vec<u8>) {
    if v.capacity() < MIN || v.capacity() > KEEP_BYTES {
        return;
    }
    SPARE.with(|s| {
        let mut s = s.borrow_mut();
        s.push(v);
        s.sort_unstable_by_key(|b| std::cmp::Reverse(b.capacity()));
        while s.len() > KEEP || s.iter().map(Vec::capacity).sum::<usize>() > KEEP_BYTES {
            s.pop();
        }
    });
}

/// Give back every byte buffer of `columns` (and their children): they are being dropped.
pub fn give_back_columns(columns: &mut [Column]) {
    for c in columns {
        for b in &mut c.buffers {
            if let Buffer::U8(v) = b {
                give_back(std::mem::take(v));
            }
        }
        give_back_columns(&mut c.children);
    }
}

/// Bytes held for reuse (tests check the bounds).
pub fn spare_bytes() -> usize {
    SPARE.with(|s| s.borrow().iter().map(Vec::capacity).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_within_bounds() {
        let mut v = bytes_to_overwrite(100 << 10);
        assert!(v.iter().all(|&b| b == 0), "fresh buffers are zeroed");
        v.fill(0xaa);
        let p = v.as_ptr();
        give_back(v);
        assert_eq!(spare_bytes(), 100 << 10);
        // A smaller request takes it as it is (no memset); a larger one zeroes the new part.
        let v = bytes_to_overwrite(80 << 10);
        assert_eq!((v.as_ptr(), v.len()), (p, 80 << 10));
        assert!(v.iter().all(|&b| b == 0xaa));
        give_back(v);
        let v = bytes_to_overwrite(90 << 10);
        assert!(v[..80 << 10].iter().all(|&b| b == 0xaa) && v[80 << 10..].iter().all(|&b| b == 0));
        give_back(v);
        // Too large a request, or a small buffer: not from the pool.
        let big = bytes_to_overwrite(200 << 10);
        assert_ne!(big.as_ptr(), p);
        give_back(vec![1; 1000]);
        assert_eq!(spare_bytes(), 100 << 10);
        // Bounded: at most KEEP buffers and KEEP_BYTES.
        for _ in 0..10 {
            give_back(vec![0; 20 << 20]);
        }
        assert!(spare_bytes() <= KEEP_BYTES);
        SPARE.with(|s| assert!(s.borrow().len() <= KEEP));
    }
}
