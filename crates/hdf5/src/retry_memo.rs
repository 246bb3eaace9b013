//! Keeps a read's decoded selection across one sans-I/O retry.
//!
//! A VL read learns which heap collections it needs only after decoding its cells; when
//! they are not loaded it fails with `NeedBytes` and the host calls `read` again. For a
//! filtered chunked dataset the retry would inflate every chunk a second time, so the
//! decoded bytes are parked here and taken back by the very next read of the same
//! selection. At most one selection is held, and only between a failed read and its retry.

use std::cell::RefCell;

/// Identifies a selection: dataset object header address and the hyperslab.
pub type Key = (u64, crate::hyperslab::Slab);

#[derive(Debug, Default)]
pub struct RetryMemo {
    slot: RefCell<Option<(Key, Vec<u8>)>>,
}

impl Clone for RetryMemo {
    fn clone(&self) -> Self {
        RetryMemo::default()
    }
}

impl RetryMemo {
    /// The parked bytes if they belong to `key`; empties the slot either way.
    pub fn take(&self, key: Key) -> Option<Vec<u8>> {
        match self.slot.borrow_mut().take() {
            Some((k, v)) if k == key => Some(v),
            _ => None,
        }
    }

    pub fn keep(&self, key: Key, bytes: Vec<u8>) {
        *self.slot.borrow_mut() = Some((key, bytes));
    }

    pub fn clear(&self) {
        self.slot.borrow_mut().take();
    }
}
