//! What the file readers share: plans as flat ranges, the "not open" error, and reads
//! that fetch bytes from a JS-held file on demand.

use crate::batch::js_error;
use arrowsmith_core::{Bump, DecodeError, HostSource, RangeCache};
use wasm_bindgen::prelude::*;

/// Byte ranges `[start0, end0, start1, end1, ...]` as f64 (exact below 2^53).
/// (TsFile plans are (start, end); HDF5 plans are (offset, length) and converted.)
pub fn ranges(r: Vec<(u64, u64)>) -> Vec<f64> {
    r.into_iter()
        .flat_map(|(a, b)| [a as f64, b as f64])
        .collect()
}

pub fn not_open(format: arrowsmith_core::Format) -> JsValue {
    js_error(DecodeError::new(
        format,
        0,
        arrowsmith_core::ErrorCode::Invalid,
        "the file is not open yet",
    ))
}

#[wasm_bindgen]
extern "C" {
    /// The JS side of a file already in JS memory: copies its `len` bytes at `offset` to
    /// wasm memory at `ptr` (a range the reader has bounds-checked against the file size).
    pub type ByteHost;
    #[wasm_bindgen(method, catch, js_name = readInto)]
    pub fn read_into(this: &ByteHost, offset: f64, ptr: u32, len: u32) -> Result<(), JsValue>;
}

/// Fetched bytes an idle reader may keep for the next read (beyond this the arena is freed).
const ARENA_KEEP: usize = 64 << 20;

/// Run a read over `kept` plus bytes fetched from `host` on demand into `arena` (emptied
/// first; freed after when it grew large, so memory stays flat across reads).
pub fn with_host<R>(
    kept: &RangeCache,
    arena: &mut Bump,
    host: &ByteHost,
    read: impl FnOnce(&HostSource) -> R,
) -> R {
    arena.reset();
    let fetch = |off: u64, dst: &mut [std::mem::MaybeUninit<u8>]| {
        host.read_into(off as f64, dst.as_mut_ptr() as u32, dst.len() as u32)
            .is_ok()
    };
    // SAFETY: the JS host (`ByteHost.readInto`, packages/arrowsmith/src/file/hosts.ts) copies all `len` bytes or
    // throws; a throw is `Err` here, so `true` means every byte of `dst` was written.
    #[allow(unsafe_code)]
    let source = unsafe { HostSource::new(kept, arena, &fetch) };
    let out = read(&source);
    if arena.allocated_bytes() > ARENA_KEEP {
        *arena = Bump::new();
    }
    out
}
