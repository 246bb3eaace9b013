//! Read plans: the byte ranges a read touches, recorded by running it over a logging
//! source, so a host can prefetch them in few requests.

use std::cell::RefCell;

use arrowsmith_core::{ByteSource, Result};

use crate::file::virtual_ds::NoSources;
use crate::file::Hdf5File;
use crate::hyperslab::Window;

struct Recorder<'s> {
    inner: &'s dyn ByteSource,
    log: RefCell<Vec<(u64, u64)>>,
}

impl ByteSource for Recorder<'_> {
    fn size(&self) -> u64 {
        self.inner.size()
    }
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        self.log.borrow_mut().push((offset, len as u64));
        self.inner.get(offset, len)
    }
}

fn coalesce(mut r: Vec<(u64, u64)>, gap: u64) -> Vec<(u64, u64)> {
    r.retain(|&(_, l)| l > 0);
    r.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (o, l) in r {
        if let Some(last) = out.last_mut() {
            let end = last.0 + last.1;
            if o <= end.saturating_add(gap) {
                last.1 = last.1.max(o + l - last.0);
                continue;
            }
        }
        out.push((o, l));
    }
    out
}

impl Hdf5File {
    /// Byte ranges (absolute offset, length; sorted, coalesced) that `read` with the same
    /// arguments touches. Ranges whose location depends on bytes not loaded yet are listed
    /// as the next missing range; call again after loading to get the rest.
    pub fn plan(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
    ) -> Result<Vec<(u64, u64)>> {
        self.plan_window(src, path, &Window::Rows { start, count })
    }

    /// [`plan`](Self::plan) of [`read_window`](Self::read_window).
    pub fn plan_window(
        &self,
        src: &dyn ByteSource,
        path: &str,
        window: &Window,
    ) -> Result<Vec<(u64, u64)>> {
        let rec = Recorder {
            inner: src,
            log: RefCell::new(Vec::new()),
        };
        // Without the memo: a plan must log every range the read touches.
        let res = self.read_sourced(&rec, path, window, false, &NoSources);
        let mut log = rec.log.into_inner();
        match res {
            Ok(_) => {}
            Err(e) if e.is_need_bytes() => log.push((e.offset, e.need_len)),
            Err(e) => return Err(e),
        }
        Ok(coalesce(log, 64 * 1024))
    }
}
