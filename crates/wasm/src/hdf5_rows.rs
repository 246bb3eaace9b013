//! What an HDF5 read covers, as one options object from JS (`Hdf5RowsOptions`): rows or a
//! hyperslab, and the memory the read may take.

use crate::options::{bad, Fields};
use arrowsmith_core::{DecodeError, Format};
use arrowsmith_hdf5::{Select, Window};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const HDF5_ROWS_OPTIONS: &str = r#"
/** What an HDF5 read covers: every field optional, the wasm side checks each. */
export interface Hdf5RowsOptions {
  /** First row along the first dimension (default 0). */
  start?: number;
  /** Rows (default: to the end). */
  count?: number;
  /**
   * A hyperslab, `[start, count, step]` per dimension, where a count of -1 is the index
   * `start` (the dimension is dropped) and -2 the whole dimension; then `start` and `count`
   * are unused.
   */
  select?: Float64Array | number[];
  /** Memory the read may take, in bytes (default 1 GiB); more fails with `too-large`. */
  maxReadBytes?: number;
}
"#;

/// One read's window and memory limit.
pub struct Rows {
    pub window: Window,
    pub max_read_bytes: Option<u64>,
}

impl Rows {
    /// The `Hdf5RowsOptions` object `options`; a bad value is an `argument` error naming it.
    pub fn new(options: JsValue) -> Result<Rows, DecodeError> {
        let o = Fields::new(Format::Hdf5, options)?;
        let window = match o.numbers("select")? {
            Some(v) => select(&v)?,
            None => Window::Rows {
                start: o.whole("start")?.unwrap_or(0),
                count: o.whole("count")?,
            },
        };
        Ok(Rows {
            window,
            max_read_bytes: o.whole("maxReadBytes")?,
        })
    }

    /// The rows of a plain row window (`start`, `count`); a hyperslab is not one.
    pub fn span(&self) -> Result<(u64, Option<u64>), DecodeError> {
        match self.window {
            Window::Rows { start, count } => Ok((start, count)),
            Window::Select(_) => Err(bad(Format::Hdf5, "select", "absent here", "a hyperslab")),
        }
    }
}

/// A hyperslab `[start, count, step]` per dimension (the TS layer has checked the numbers:
/// integers, none negative but the count markers -1 and -2).
fn select(v: &[f64]) -> Result<Window, DecodeError> {
    if !v.len().is_multiple_of(3) {
        return Err(bad(
            Format::Hdf5,
            "select",
            "three numbers per dimension",
            &format!("{} numbers", v.len()),
        ));
    }
    Ok(Window::Select(
        v.chunks_exact(3)
            .map(|t| match (t[0], t[1], t[2]) {
                (i, -1.0, _) => Select::Index(i as u64),
                (_, -2.0, _) => Select::All,
                (s, c, st) => Select::Range {
                    start: s as u64,
                    count: c as u64,
                    step: st as u64,
                },
            })
            .collect(),
    ))
}
