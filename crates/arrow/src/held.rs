//! A reader that a batch iterator borrows or owns: borrowed by `batches`, owned by
//! `into_batches` (what hosts that hand the iterator on need: Python, Spark tasks).

use std::ops::{Deref, DerefMut};

pub(crate) enum Held<'a, T> {
    Borrowed(&'a mut T),
    Owned(Box<T>),
}

impl<T> Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Held::Borrowed(t) => t,
            Held::Owned(t) => t,
        }
    }
}

impl<T> DerefMut for Held<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match self {
            Held::Borrowed(t) => t,
            Held::Owned(t) => t,
        }
    }
}
